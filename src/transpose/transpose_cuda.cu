#include "transpose.hpp"
#include "transpose_build.cuh"

#include "../core/device_buffer.hpp"

#include <cusparse.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/transform.h>

#include <limits>
#include <string>

namespace gpuformats {
namespace {

void cusparse_check(cusparseStatus_t st, const char *what)
{
  if (st == CUSPARSE_STATUS_SUCCESS) return;
  throw Error(st == CUSPARSE_STATUS_ALLOC_FAILED ? ErrorKind::out_of_memory : ErrorKind::device, std::string("cuSPARSE ") + what + " failed: " + cusparseGetErrorString(st));
}

struct Scale {
  double beta;
  __host__ __device__ double operator()(double v) const { return beta * v; }
};

class CudaTransposedBlock final : public TransposedBlock {
public:
  int32_t                nrows = 0, ncols = 0; // of A; A^T is ncols x nrows
  int64_t                nnz   = 0;
  DeviceBuffer<int32_t>  colptr, rowidx, slot_of_csc;
  DeviceBuffer<double>   values;
  DeviceBuffer<char>     work; // cuSPARSE's SpMV buffer
  cusparseHandle_t       handle = nullptr;
  cusparseSpMatDescr_t   mat    = nullptr;
  cusparseDnVecDescr_t   vx = nullptr, vy = nullptr;

  ~CudaTransposedBlock() override
  {
    if (vx) cusparseDestroyDnVec(vx);
    if (vy) cusparseDestroyDnVec(vy);
    if (mat) cusparseDestroySpMat(mat);
    if (handle) cusparseDestroy(handle);
  }

  void refresh(const FormatBlock &blk, cudaStream_t stream) override
  {
    if (nnz == 0) return;
    thrust::gather(thrust::cuda::par.on(stream), slot_of_csc.data(), slot_of_csc.data() + nnz, blk.values, values.data());
    GPUFORMATS_CUDA(cudaGetLastError());
  }

  void spmv(double alpha, const double *x, double beta, double *y, cudaStream_t stream) override
  {
    if (ncols == 0) return;
    if (nnz == 0 || nrows == 0) { // y = beta y
      if (beta == 0) GPUFORMATS_CUDA(cudaMemsetAsync(y, 0, sizeof(double) * ncols, stream));
      else if (beta != 1) thrust::transform(thrust::cuda::par.on(stream), y, y + ncols, y, Scale{beta});
      GPUFORMATS_CUDA(cudaGetLastError());
      return;
    }
    cusparse_check(cusparseSetStream(handle, stream), "SetStream");
    if (!vx) { // first product: descriptors, the work buffer, cuSPARSE's analysis (as aijcusparse does)
      cusparse_check(cusparseCreateDnVec(&vx, nrows, const_cast<double *>(x), CUDA_R_64F), "CreateDnVec");
      cusparse_check(cusparseCreateDnVec(&vy, ncols, y, CUDA_R_64F), "CreateDnVec");
      std::size_t size = 0;
      cusparse_check(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &size), "SpMV_bufferSize");
      work.resize(std::max<std::size_t>(size, 1));
      cusparse_check(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, work.data()), "SpMV_preprocess");
    } else {
      cusparse_check(cusparseDnVecSetValues(vx, const_cast<double *>(x)), "DnVecSetValues");
      cusparse_check(cusparseDnVecSetValues(vy, y), "DnVecSetValues");
    }
    cusparse_check(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, work.data()), "SpMV");
  }

  std::size_t bytes() const override { return colptr.size() * sizeof(int32_t) + rowidx.size() * sizeof(int32_t) + slot_of_csc.size() * sizeof(int32_t) + values.size() * sizeof(double) + work.size(); }
};

} // namespace

std::unique_ptr<TransposedBlock> TransposedBlock::build(const CsrView &A, const FormatBlock &blk, cudaStream_t stream, int upload_threads)
{
  if (blk.backend != Backend::cuda || blk.nnz != A.nnz || blk.nrows != A.nrows || blk.ncols != A.ncols) throw Error(ErrorKind::internal, "transposed block: the format block is not A's on the cuda backend");
  if (A.nnz > std::numeric_limits<int32_t>::max()) throw Error(ErrorKind::unsupported, "transposed block: more than 2^31-1 nonzeros in one block");
  auto t   = std::make_unique<CudaTransposedBlock>();
  t->nrows = A.nrows;
  t->ncols = A.ncols;
  t->nnz   = A.nnz;
  t->colptr.resize((std::size_t)A.ncols + 1);
  if (A.nnz > 0) {
    t->rowidx.resize((std::size_t)A.nnz);
    t->slot_of_csc.resize((std::size_t)A.nnz);
    t->values.resize((std::size_t)A.nnz);
    {
      DeviceBuffer<int32_t> rowptr((std::size_t)A.nrows + 1, stream), colidx((std::size_t)A.nnz, stream), keys((std::size_t)A.nnz, stream), perm((std::size_t)A.nnz, stream);
      rowptr.upload(A.rowptr, (std::size_t)A.nrows + 1, stream, 0, upload_threads);
      colidx.upload(A.colidx, (std::size_t)A.nnz, stream, 0, upload_threads);
      transpose_detail::build_csc(thrust::cuda::par.on(stream), rowptr.data(), colidx.data(), blk.slot_of_csr, A.nrows, A.ncols, A.nnz, keys.data(), perm.data(), t->colptr.data(), t->rowidx.data(), t->slot_of_csc.data());
      GPUFORMATS_CUDA(cudaGetLastError());
    } // the scratch is freed in stream order
    t->refresh(blk, stream);
    cusparse_check(cusparseCreate(&t->handle), "Create");
    cusparse_check(cusparseCreateCsr(&t->mat, A.ncols, A.nrows, A.nnz, t->colptr.data(), t->rowidx.data(), t->values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), "CreateCsr");
  }
  return t;
}

} // namespace gpuformats
