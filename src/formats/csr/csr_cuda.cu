// The CSR layout on the GPU: cusparseSpMV CSR_ALG1 on the uploaded CSR (csr.hpp).
#include "csr.hpp"

#include <cusparse.h>
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>

#include <algorithm>
#include <string>

namespace gpuformats {
namespace csr {
namespace {

void check(cusparseStatus_t s, const char *what)
{
  if (s != CUSPARSE_STATUS_SUCCESS) throw Error(s == CUSPARSE_STATUS_ALLOC_FAILED ? ErrorKind::out_of_memory : ErrorKind::device, std::string("cusparse_csr: ") + what + ": " + cusparseGetErrorString(s));
}

__global__ void scale_y(int32_t n, double beta, double *y)
{
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

struct CudaBlock final : FormatBlock {
  DeviceBuffer<int32_t>        rowptr, colidx, slots;
  DeviceBuffer<double>         vals;
  cusparseHandle_t             h   = nullptr;
  cusparseSpMatDescr_t         mat = nullptr;
  // Vector descriptors made once and repointed per product (as aijcusparse keeps its own).
  mutable cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  mutable DeviceBuffer<char>   work;
  mutable bool                 work_sized = false;
  ~CudaBlock() override
  {
    if (vx) cusparseDestroyDnVec(vx);
    if (vy) cusparseDestroyDnVec(vy);
    if (mat) cusparseDestroySpMat(mat);
    if (h) cusparseDestroy(h);
  }
  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    const cudaStream_t s = streams.main();
    if (nrows == 0) return;
    if (nnz == 0) { // cuSPARSE is not asked about an empty matrix: y = beta y
      scale_y<<<(unsigned)((nrows + 255) / 256), 256, 0, s>>>(nrows, beta, y);
      GPUFORMATS_CUDA(cudaGetLastError());
      return;
    }
    check(cusparseSetStream(h, s), "cusparseSetStream");
    check(cusparseDnVecSetValues(vx, const_cast<double *>(x)), "cusparseDnVecSetValues");
    check(cusparseDnVecSetValues(vy, y), "cusparseDnVecSetValues");
    if (!work_sized) {
      size_t bytes = 0;
      check(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &bytes), "cusparseSpMV_bufferSize");
      work.resize(std::max<size_t>(bytes, 1));
      work_sized = true;
    }
    check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, work.data()), "cusparseSpMV");
  }
  std::size_t bytes() const override { return (std::size_t)csr_bytes(nnz, nrows); }
  void        describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"backend", "cuda"});
    out.push_back({"layout", "CSR, cusparseSpMV CSR_ALG1 (as aijcusparse)"});
  }
};

} // namespace

std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *, cudaStream_t stream)
{
  auto blk    = std::make_unique<CudaBlock>();
  blk->rowptr = std::move(d.rowptr);
  blk->colidx = std::move(d.colidx);
  blk->vals   = std::move(d.values);
  blk->slots.resize(std::max<int64_t>(A.nnz, 1));
  try {
    if (A.nnz) thrust::sequence(thrust::cuda::par.on(stream), blk->slots.data(), blk->slots.data() + A.nnz, 0);
  } catch (const thrust::system_error &e) {
    cudaGetLastError();
    throw Error(ErrorKind::device, std::string("cusparse_csr device build: ") + e.what());
  }
  if (A.nrows && A.nnz) {
    check(cusparseCreate(&blk->h), "cusparseCreate");
    check(cusparseCreateCsr(&blk->mat, A.nrows, A.ncols, A.nnz, blk->rowptr.data(), blk->colidx.data(), blk->vals.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), "cusparseCreateCsr");
    // placeholders until the first product points them at its vectors
    check(cusparseCreateDnVec(&blk->vx, A.ncols, blk->vals.data(), CUDA_R_64F), "cusparseCreateDnVec");
    check(cusparseCreateDnVec(&blk->vy, A.nrows, blk->vals.data(), CUDA_R_64F), "cusparseCreateDnVec");
  }
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
  blk->set_layout(Backend::cuda, A, blk->vals.data(), A.nnz, blk->slots.data());
  return blk;
}

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  DeviceCsr d = upload_csr(A, stream, up);
  return build_uploaded(A, d, params, stream);
}

} // namespace csr
} // namespace gpuformats
