// pJDS on the GPU: the kernels over the thread bodies of pjds_device.cuh, the CUDA system the
// device builder runs on (Thrust on the stream, from the CSR uploaded once), and the block.
// Layout and invariants: pjds.hpp.
#include "pjds_device.cuh"

#include "../../core/device_buffer.hpp"
#include "../../core/warp_sum.cuh"

namespace gpuformats {
namespace pjds {

// ------------------------------------------------------------------------------------------------
// Kernels: one thread (row kernel, wide items) or one warp (long chunks, finishes) per unit.
template <bool kWindowed, bool kNarrow>
__global__ void __launch_bounds__(kThreads) pjds_spmv_rows(KernelArgs a, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int64_t p = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (p < a.nrows) row_thread<kWindowed, kNarrow>(a, (int32_t)p, alpha, x, beta, y);
}

template <bool kNarrow>
__global__ void __launch_bounds__(kThreads) pjds_wide_items(KernelArgs a, WideArgs w, const double *__restrict__ x)
{
  wide_item_thread<kNarrow>(a, w, blockIdx.x * kThreads + threadIdx.x, x);
}

// Split path, step 2: one warp per row of a wide block adds the row's partial sums (lanes stride
// over the items, then a shuffle reduction) and writes y.
__global__ void __launch_bounds__(kThreads) pjds_wide_finish(KernelArgs a, WideArgs w, double alpha, double beta, double *__restrict__ y)
{
  const int32_t warp = (int32_t)((blockIdx.x * (int64_t)kThreads + threadIdx.x) >> 5), lane = threadIdx.x & 31;
  const int32_t wi = warp / a.block_rows, r = warp - wi * a.block_rows;
  if (wi >= w.nwide) return;
  const int32_t p = load_ro(w.wide_block + wi) * a.block_rows + r;
  if (p >= a.nrows) return; // phantom row (uniform over the warp)
  const int32_t t1  = load_ro(w.wide_item_start + wi + 1);
  double        sum = 0;
  for (int32_t t = load_ro(w.wide_item_start + wi) + lane; t < t1; t += 32) sum += w.partial[(int64_t)t * a.block_rows + r];
  sum = warp_sum(sum);
  if (lane == 0) store_y(y, load_ro(a.perm + p), alpha, sum, beta);
}

__global__ void __launch_bounds__(kThreads) pjds_long_chunks(LongArgs l, const int32_t *__restrict__ colidx, int32_t colidx_first, const double *__restrict__ values, const double *__restrict__ x)
{
  const int32_t c = (int32_t)((blockIdx.x * (int64_t)kThreads + threadIdx.x) >> 5), lane = threadIdx.x & 31;
  if (c >= l.nchunks) return; // uniform over the warp
  const double sum = warp_sum(long_chunk_lane_sum(l, c, lane, colidx, colidx_first, values, x));
  if (lane == 0) l.partial[c] = sum;
}

// Long rows, step 2: one warp per long row adds its partial sums in chunk order to y, which the
// row kernel (an empty jagged row) already set to beta*y.
__global__ void __launch_bounds__(kThreads) pjds_long_finish(LongArgs l, double alpha, double *__restrict__ y)
{
  const int32_t r = (int32_t)((blockIdx.x * (int64_t)kThreads + threadIdx.x) >> 5), lane = threadIdx.x & 31;
  if (r >= l.nlong) return;
  const int32_t c1  = load_ro(l.chunk_start + r + 1);
  double        sum = 0;
  for (int32_t c = load_ro(l.chunk_start + r) + lane; c < c1; c += 32) sum += l.partial[c];
  sum = warp_sum(sum);
  if (lane == 0) {
    const int32_t row = load_ro(l.row + r);
    y[row] += alpha * sum;
  }
}

class PjdsCudaBlock : public FormatBlock {
public:
  Arrays<CudaSystem>           a;
  mutable DeviceBuffer<double> partial, long_partial; // partial sums of wide items, long-row chunks (scratch of the product)

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (nrows == 0) return;
    const KernelArgs ka = a.kernel_args(nrows);
    const bool       nc = a.info.narrow;
    const Info      &in = a.info;
    if (in.nwide_items > 0) { // long rows first, on their own stream: they take longest
      const cudaStream_t ws = streams.count > 1 ? streams.streams[1] : streams.main();
      const WideArgs     wa{in.nwide_blocks, in.nwide_items, a.wide_block.data(), a.wide_item_start.data(), a.wide_item_owner.data(), partial.data()};
      const int64_t      item_threads   = (int64_t)in.nwide_items * in.plan.block_rows;
      const int64_t      finish_threads = (int64_t)in.nwide_blocks * in.plan.block_rows * 32;
      const unsigned     item_grid      = (unsigned)((item_threads + kThreads - 1) / kThreads);
      if (nc) pjds_wide_items<true><<<item_grid, kThreads, 0, ws>>>(ka, wa, x);
      else pjds_wide_items<false><<<item_grid, kThreads, 0, ws>>>(ka, wa, x);
      GPUFORMATS_CUDA(cudaGetLastError());
      pjds_wide_finish<<<(unsigned)((finish_threads + kThreads - 1) / kThreads), kThreads, 0, ws>>>(ka, wa, alpha, beta, y);
      GPUFORMATS_CUDA(cudaGetLastError());
    }
    const unsigned grid = (unsigned)(((int64_t)nrows + kThreads - 1) / kThreads);
    const cudaStream_t ms   = streams.main();
    if (in.plan.perm_window) nc ? pjds_spmv_rows<true, true><<<grid, kThreads, 0, ms>>>(ka, alpha, x, beta, y) : pjds_spmv_rows<true, false><<<grid, kThreads, 0, ms>>>(ka, alpha, x, beta, y);
    else nc ? pjds_spmv_rows<false, true><<<grid, kThreads, 0, ms>>>(ka, alpha, x, beta, y) : pjds_spmv_rows<false, false><<<grid, kThreads, 0, ms>>>(ka, alpha, x, beta, y);
    GPUFORMATS_CUDA(cudaGetLastError());
    if (in.nlong_rows > 0) { // after the row kernel on the same stream: it set y = beta*y on these rows
      const LongArgs la{in.nlong_rows, in.nlong_chunks, a.long_row.data(), a.long_start.data(), a.long_chunk_start.data(), a.long_chunk_owner.data(), long_partial.data()};
      const int64_t  chunk_threads = (int64_t)in.nlong_chunks * 32, finish_threads = (int64_t)in.nlong_rows * 32;
      pjds_long_chunks<<<(unsigned)((chunk_threads + kThreads - 1) / kThreads), kThreads, 0, streams.main()>>>(la, a.colidx.data(), a.colidx_first(), a.values.data(), x);
      GPUFORMATS_CUDA(cudaGetLastError());
      pjds_long_finish<<<(unsigned)((finish_threads + kThreads - 1) / kThreads), kThreads, 0, streams.main()>>>(la, alpha, y);
      GPUFORMATS_CUDA(cudaGetLastError());
    }
  }
  std::size_t bytes() const override { return layout_bytes(a.info, nrows, nslots); }
  void        describe(std::vector<LayoutStat> &out) const override { describe_layout(a.info, *this, out); }
};

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  check_params(params); // bad parameters fail before any upload
  DeviceCsr d = upload_csr(A, stream, up);
  return build_uploaded(A, d, params, stream);
}

std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream)
{
  check_params(params);
  auto blk = std::make_unique<PjdsCudaBlock>();
  build_arrays(CudaSystem{stream}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, params, blk->a);
  blk->partial.resize((size_t)blk->a.info.nwide_items * blk->a.info.plan.block_rows);
  blk->long_partial.resize((size_t)blk->a.info.nlong_chunks);
  blk->set_layout(Backend::cuda, A, blk->a.values.data(), blk->a.nslots, blk->a.slot_of_csr.data());
  return blk;
}

} // namespace pjds
} // namespace gpuformats
