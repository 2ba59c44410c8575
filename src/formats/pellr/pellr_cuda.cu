// PELLR on the GPU: the product kernel and the block, and the device build (pellr_device.cuh, run
// here on CudaSystem; same layout as the host builder in pellr_host.cpp). Layout and invariants: pellr.hpp.
#include "pellr_device.cuh"

#include "../../core/device_buffer.hpp"

namespace gpuformats {
namespace pellr {

template <bool kPerWarp, bool kPermuted>
__global__ void __launch_bounds__(kThreads) pellr_spmv_rows(int32_t nrows, int32_t stored, int32_t S, const int32_t *__restrict__ rl, const int32_t *__restrict__ perm, const int32_t *__restrict__ colidx, const double *__restrict__ values, double alpha, const double *__restrict__ x, double beta,
                                                            double *__restrict__ y)
{
  const int64_t p = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (p < nrows) row_thread<kPerWarp, kPermuted>((int32_t)p, stored, S, rl, perm, colidx, values, alpha, x, beta, y);
}

class PellrCudaBlock : public FormatBlock {
public:
  Arrays<CudaSystem> a;

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (nrows == 0) return;
    const Info    &in   = a.info;
    const unsigned grid = (unsigned)(((int64_t)nrows + kThreads - 1) / kThreads);
    const auto     args = [&](auto kernel) { kernel<<<grid, kThreads, 0, streams.main()>>>(nrows, in.stored, in.stride, a.rl.data(), a.perm.data(), a.colidx.data(), a.values.data(), alpha, x, beta, y); };
    if (in.rl_per_warp) in.permuted ? args(pellr_spmv_rows<true, true>) : args(pellr_spmv_rows<true, false>);
    else in.permuted ? args(pellr_spmv_rows<false, true>) : args(pellr_spmv_rows<false, false>);
    GPUFORMATS_CUDA(cudaGetLastError());
  }
  std::size_t bytes() const override { return layout_bytes(a.info, nrows, nslots); }
  void        describe(std::vector<LayoutStat> &out) const override { describe_layout(a.info, *this, out); }
};

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  read_params(params); // bad parameters fail before any upload
  DeviceCsr d = upload_csr(A, stream, up);
  return build_uploaded(A, d, params, stream);
}

std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream)
{
  read_params(params);
  auto blk = std::make_unique<PellrCudaBlock>();
  build_arrays(CudaSystem{stream}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, params, blk->a);
  blk->set_layout(Backend::cuda, A, blk->a.values.data(), blk->a.nslots, blk->a.slot_of_csr.data());
  return blk;
}

} // namespace pellr
} // namespace gpuformats
