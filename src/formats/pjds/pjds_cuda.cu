// pJDS on the GPU: the device builder (Thrust, from the CSR uploaded once; same layout as the host
// builder in pjds_host.cpp) and the product kernels. Layout and invariants: pjds.hpp.
#include "pjds.hpp"
#include "pjds_window.cuh"

#include "../../core/device_buffer.hpp"
#include "../../core/loads.cuh"
#include "../../core/warp_sum.cuh"
#include "../../core/row_permutation.hpp"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>

namespace gpuformats {

namespace pjds_detail {

// ------------------------------------------------------------------------------------------------
// Loads (core/loads.cuh): the matrix streamed (load_stream), x and metadata read-only (load_ro).

// Diagonals loaded together by one thread before it uses any of them: 8 independent (value,
// column) pairs and then 8 independent x loads in flight per thread, so a 7-point stencil row is
// one round trip for the matrix and one for x. More would only add registers.
constexpr int kUnroll = 8;
// 8 warps per CTA: small CTAs keep the tail of the grid short; 256 threads at <= 64 registers
// still let 4 CTAs (32 warps) share an SM, far more loads in flight than HBM needs.
constexpr int kThreads = 256;

// sum_{j0 <= j < j1} values[slot] * x[colidx[slot]], slot = cs[j] + lp, stopping at the first
// padding slot (column -1: the row has ended). Summed in j order, as the host reference does.
__host__ __device__ inline double row_sum(const int32_t *__restrict__ cs, int32_t lp, int32_t j0, int32_t j1, const int32_t *__restrict__ colidx, const double *__restrict__ values, const double *__restrict__ x)
{
  double sum = 0;
  for (int32_t j = j0; j < j1; j += kUnroll) {
    int32_t c[kUnroll];
    double  v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      c[u] = -1;
      v[u] = 0;
      if (j + u < j1) {
        const int32_t slot = load_ro(cs + j + u) + lp; // col_start: same address in the whole warp (broadcast)
        c[u]               = load_stream(colidx + slot);
        v[u]               = load_stream(values + slot);
      }
    }
    double xv[kUnroll]; // all x loads before any use: they overlap instead of waiting on each other
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) xv[u] = c[u] >= 0 ? load_ro(x + c[u]) : 0.0;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += v[u] * xv[u]; // padding adds 0 * 0
    const bool ended = c[kUnroll - 1] < 0; // padding is a suffix of the row
    if (ended) break;
  }
  return sum;
}

__host__ __device__ inline void store_y(double *__restrict__ y, int32_t row, double alpha, double sum, double beta)
{
  y[row] = beta == 0.0 ? alpha * sum : fma(beta, y[row], alpha * sum); // beta == 0: y is write-only
}

struct KernelArgs {
  int32_t        nrows, block_rows, segment_rows;
  const int32_t *perm, *block_width, *diag_base, *col_start, *colidx;
  const double  *values;
};

struct WideArgs {
  int32_t        nwide, nitems;
  const int32_t *wide_block, *wide_item_start, *wide_item_owner;
  double        *partial; // nitems * block_rows
};

// Thread bodies (host+device: the tests run them on the host). One thread per sorted row (the
// paper's Listing 2) over every block not wider than kPjdsChunkDiagonals. kWindowed: several
// segments (sort_window > 0); otherwise p is its own local position.
template <bool kWindowed>
__host__ __device__ inline void row_thread(const KernelArgs &a, int32_t p, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t W = load_ro(a.block_width + p / a.block_rows);
  if (W > kPjdsChunkDiagonals) return; // a wide block: the split path handles it
  int32_t        lp = p;
  const int32_t *cs = a.col_start;
  if (kWindowed) {
    const int32_t s = p / a.segment_rows;
    lp              = p - s * a.segment_rows;
    cs += load_ro(a.diag_base + s);
  }
  const double sum = row_sum(cs, lp, 0, W, a.colidx, a.values, x);
  store_y(y, load_ro(a.perm + p), alpha, sum, beta);
}

// Split path, step 1: item t covers kPjdsChunkDiagonals diagonals of one wide block; b_r
// consecutive threads take its b_r rows (same coalesced slots as the row kernel).
__host__ __device__ inline void wide_item_thread(const KernelArgs &a, const WideArgs &w, int32_t t, const double *__restrict__ x)
{
  const int32_t item = t / a.block_rows, r = t - item * a.block_rows;
  if (item >= w.nitems) return;
  const int32_t  wi = load_ro(w.wide_item_owner + item);
  const int32_t  b  = load_ro(w.wide_block + wi);
  const int32_t  p  = b * a.block_rows + r; // may be a phantom row: all padding, sum 0
  const int32_t  s  = p / a.segment_rows, lp = p - s * a.segment_rows;
  const int32_t  j0 = (item - load_ro(w.wide_item_start + wi)) * kPjdsChunkDiagonals;
  const int32_t  W  = load_ro(a.block_width + b);
  const int32_t  j1 = j0 + kPjdsChunkDiagonals < W ? j0 + kPjdsChunkDiagonals : W;
  const int32_t *cs = a.col_start + load_ro(a.diag_base + s);
  w.partial[(int64_t)item * a.block_rows + r] = row_sum(cs, lp, j0, j1, a.colidx, a.values, x);
}

template <bool kWindowed>
__global__ void __launch_bounds__(kThreads) pjds_spmv_rows(KernelArgs a, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int64_t p = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (p < a.nrows) row_thread<kWindowed>(a, (int32_t)p, alpha, x, beta, y);
}

__global__ void __launch_bounds__(kThreads) pjds_wide_items(KernelArgs a, WideArgs w, const double *__restrict__ x)
{
  wide_item_thread(a, w, blockIdx.x * kThreads + threadIdx.x, x);
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

// ------------------------------------------------------------------------------------------------
// Builder functors (host+device so the build can also run on thrust::host in tests).
struct RowLength {
  const int32_t *rowptr;
  __host__ __device__ int32_t operator()(int32_t i) const { return rowptr[i + 1] - rowptr[i]; }
};
struct IsZero {
  __host__ __device__ int32_t operator()(int32_t v) const { return v == 0; }
};
struct ToInt64 {
  __host__ __device__ int64_t operator()(int32_t v) const { return v; }
};
struct BlockWidth { // length of the first row of block b (0 for a block of phantom rows)
  const int32_t *rowptr, *perm;
  int32_t        nrows, block_rows;
  __host__ __device__ int32_t operator()(int32_t b) const
  {
    const int64_t p = (int64_t)b * block_rows;
    if (p >= nrows) return 0;
    const int32_t i = perm[p];
    return rowptr[i + 1] - rowptr[i];
  }
};
struct SegmentWidth { // width of the first block of segment s = number of its diagonals
  const int32_t *block_width;
  int32_t        blocks_per_segment;
  __host__ __device__ int32_t operator()(int32_t s) const { return block_width[(int64_t)s * blocks_per_segment]; }
};
struct WiderThan {
  int32_t j;
  __host__ __device__ bool operator()(int32_t w) const { return w > j; }
};
struct DiagonalLength { // slots of flattened diagonal e = diag_base[s] + j
  const int32_t *diag_base, *block_width;
  int32_t        nsegments, blocks_per_segment, nblocks, block_rows;
  __host__ __device__ int32_t operator()(int32_t e) const
  {
    // Segment owning e: the last s with diag_base[s] <= e (segments without diagonals share
    // their base with the next one and own nothing).
    const int32_t s  = (int32_t)(thrust::upper_bound(thrust::seq, diag_base, diag_base + nsegments, e) - diag_base) - 1;
    const int32_t j  = e - diag_base[s];
    const int32_t b0 = s * blocks_per_segment, b1 = b0 + blocks_per_segment < nblocks ? b0 + blocks_per_segment : nblocks;
    // Widths do not increase inside a segment: the blocks wider than j are a prefix.
    const int32_t reach = (int32_t)(thrust::partition_point(thrust::seq, block_width + b0, block_width + b1, WiderThan{j}) - (block_width + b0));
    return block_rows * reach;
  }
};
struct NonZero {
  __host__ __device__ bool operator()(int32_t v) const { return v != 0; }
};
struct SlotOfEntry { // (k, row) -> slot of CSR entry k
  const int32_t *rowptr, *inv_perm, *diag_base, *col_start;
  int32_t        segment_rows;
  __host__ __device__ int32_t operator()(int32_t k, int32_t i) const
  {
    const int32_t p = inv_perm[i];
    const int32_t s = p / segment_rows, lp = p - s * segment_rows;
    return col_start[diag_base[s] + (k - rowptr[i])] + lp;
  }
};
struct IsWide {
  __host__ __device__ bool operator()(int32_t w) const { return w > kPjdsChunkDiagonals; }
};
struct ItemsOfBlock {
  const int32_t *block_width;
  __host__ __device__ int32_t operator()(int32_t b) const { return (block_width[b] + kPjdsChunkDiagonals - 1) / kPjdsChunkDiagonals; }
};
struct MinusOne {
  __host__ __device__ int32_t operator()(int32_t v) const { return v - 1; }
};

// The device side of the build: Thrust on `stream`, DeviceBuffer storage, the core's device
// permutation. (Tests substitute a host system with the same members to run this very code on
// thrust::host and compare it with the host builder.)
struct CudaSystem {
  cudaStream_t stream;
  template <class T>
  using buffer = DeviceBuffer<T>;
  auto policy() const { return thrust::cuda::par.on(stream); }
  void row_permutation(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, int32_t window, int32_t *perm) const { sorted_row_permutation_cuda(rowptr, colidx, nrows, ncols, RowOrder::longest_first, window, perm, stream); }
  template <class T>
  T get(const T *p) const
  {
    T v{};
    GPUFORMATS_CUDA(cudaMemcpyAsync(&v, p, sizeof(T), cudaMemcpyDeviceToHost, stream));
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
    return v;
  }
  void sync() const { GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); }
};

template <class Sys>
struct Arrays {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  PjdsInfo     info;
  int64_t      nslots = 0;
  buf<int32_t> perm, block_width, diag_base, col_start, colidx, slot_of_csr, wide_block, wide_item_start, wide_item_owner;
  buf<double>  values;
};

// pjds_padded_slots (pjds_window.cuh) on the system's policy, with its buffers.
template <class Sys>
int64_t padded_slots(const Sys &sys, const int32_t *rowptr, int32_t nrows, int32_t br, int32_t window)
{
  typename Sys::template buffer<int64_t> keys(std::max<int32_t>(nrows, 1));
  const int64_t                          slots = pjds_padded_slots(sys.policy(), keys.data(), rowptr, nrows, br, window);
  sys.sync(); // keys die here
  return slots;
}

// Builds every array of pjds.hpp from a CSR in the system's memory.
template <class Sys>
void build_arrays(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, const double *csr_values, int32_t nrows, int32_t ncols, int64_t nnz, const int64_t *params, Arrays<Sys> &out)
{
  using thrust::counting_iterator;
  auto      pol = sys.policy();
  PjdsInfo &in  = out.info;
  in.plan       = pjds_make_plan(nrows, params, [&](int32_t br, int32_t window) { return padded_slots(sys, rowptr, nrows, br, window); });
  const PjdsPlan &pl  = in.plan;
  const int32_t   br = pl.block_rows, S = pl.segment_rows, nb = pl.nblocks, nseg = pl.nsegments, bps = S / br;
  const counting_iterator<int32_t> zero(0);

  in.max_row_length = thrust::transform_reduce(pol, zero, zero + nrows, RowLength{rowptr}, (int32_t)0, thrust::maximum<int32_t>());
  in.empty_rows     = (int32_t)thrust::count_if(pol, thrust::make_transform_iterator(zero, RowLength{rowptr}), thrust::make_transform_iterator(zero + nrows, RowLength{rowptr}), IsZero{});

  out.perm.resize(nrows);
  sys.row_permutation(rowptr, colidx, nrows, ncols, pl.perm_window, out.perm.data());

  out.block_width.resize(nb);
  thrust::transform(pol, zero, zero + nb, out.block_width.data(), BlockWidth{rowptr, out.perm.data(), nrows, br});
  const int64_t nslots = (int64_t)br * thrust::transform_reduce(pol, out.block_width.data(), out.block_width.data() + nb, ToInt64{}, (int64_t)0, thrust::plus<int64_t>());
  pjds_check_slots(nslots, nnz); // before the big allocations
  out.nslots = nslots;

  // diag_base = exclusive scan of the segments' widths; col_start = exclusive scan of the
  // flattened diagonals' lengths (segment after segment, diagonal after diagonal).
  out.diag_base.resize(nseg);
  thrust::transform(pol, zero, zero + nseg, out.diag_base.data(), SegmentWidth{out.block_width.data(), bps});
  in.ndiagonals = thrust::transform_reduce(pol, out.diag_base.data(), out.diag_base.data() + nseg, ToInt64{}, (int64_t)0, thrust::plus<int64_t>());
  thrust::exclusive_scan(pol, out.diag_base.data(), out.diag_base.data() + nseg, out.diag_base.data());
  const int32_t ndiag = (int32_t)in.ndiagonals;
  out.col_start.resize(ndiag);
  thrust::transform(pol, zero, zero + ndiag, out.col_start.data(), DiagonalLength{out.diag_base.data(), out.block_width.data(), nseg, bps, nb, br});
  thrust::exclusive_scan(pol, out.col_start.data(), out.col_start.data() + ndiag, out.col_start.data());

  // Entries: slot of CSR entry k from its row and its position in the row.
  out.values.resize(nslots);
  out.colidx.resize(nslots);
  thrust::fill(pol, out.values.data(), out.values.data() + nslots, 0.0);
  thrust::fill(pol, out.colidx.data(), out.colidx.data() + nslots, -1);
  {
    typename Sys::template buffer<int32_t> inv(nrows);
    thrust::scatter(pol, zero, zero + nrows, out.perm.data(), inv.data());
    out.slot_of_csr.resize(nnz);
    int32_t *sl = out.slot_of_csr.data();
    // Row of each entry: every non-empty row writes its index at its first entry, a running
    // maximum fills the rest (O(nnz) streaming instead of a binary search per entry).
    thrust::fill(pol, sl, sl + nnz, 0);
    thrust::scatter_if(pol, zero, zero + nrows, rowptr, thrust::make_transform_iterator(zero, RowLength{rowptr}), sl, NonZero{});
    thrust::inclusive_scan(pol, sl, sl + nnz, sl, thrust::maximum<int32_t>());
    thrust::transform(pol, zero, zero + (int32_t)nnz, sl, sl, SlotOfEntry{rowptr, inv.data(), out.diag_base.data(), out.col_start.data(), S});
    thrust::scatter(pol, csr_values, csr_values + nnz, sl, out.values.data());
    thrust::scatter(pol, colidx, colidx + nnz, sl, out.colidx.data());
    sys.sync(); // inv dies here
  }

  // Wide blocks, their item ranges and the owner of each item.
  const int32_t nwide = (int32_t)thrust::count_if(pol, out.block_width.data(), out.block_width.data() + nb, IsWide{});
  out.wide_block.resize(nwide);
  thrust::copy_if(pol, zero, zero + nb, out.block_width.data(), out.wide_block.data(), IsWide{});
  out.wide_item_start.resize(nwide + 1);
  thrust::transform(pol, out.wide_block.data(), out.wide_block.data() + nwide, out.wide_item_start.data(), ItemsOfBlock{out.block_width.data()});
  thrust::fill(pol, out.wide_item_start.data() + nwide, out.wide_item_start.data() + nwide + 1, 0);
  thrust::exclusive_scan(pol, out.wide_item_start.data(), out.wide_item_start.data() + nwide + 1, out.wide_item_start.data());
  const int32_t nitems = sys.get(out.wide_item_start.data() + nwide);
  out.wide_item_owner.resize(nitems);
  thrust::upper_bound(pol, out.wide_item_start.data(), out.wide_item_start.data() + nwide + 1, zero, zero + nitems, out.wide_item_owner.data());
  thrust::transform(pol, out.wide_item_owner.data(), out.wide_item_owner.data() + nitems, out.wide_item_owner.data(), MinusOne{});
  in.nwide_blocks = nwide;
  in.nwide_items  = nitems;
  sys.sync();
}

class PjdsCudaBlock : public FormatBlock {
public:
  Arrays<CudaSystem>           a;
  mutable DeviceBuffer<double> partial; // split-path partial sums (scratch of the product)

  KernelArgs kernel_args() const
  {
    const PjdsPlan &pl = a.info.plan;
    return {nrows, pl.block_rows, pl.segment_rows, a.perm.data(), a.block_width.data(), a.diag_base.data(), a.col_start.data(), a.colidx.data(), a.values.data()};
  }

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (nrows == 0) return;
    const KernelArgs ka = kernel_args();
    const PjdsInfo  &in = a.info;
    if (in.nwide_items > 0) { // long rows first, on their own stream: they take longest
      const cudaStream_t ws = streams.count > 1 ? streams.streams[1] : streams.main();
      const WideArgs     wa{in.nwide_blocks, in.nwide_items, a.wide_block.data(), a.wide_item_start.data(), a.wide_item_owner.data(), partial.data()};
      const int64_t      item_threads   = (int64_t)in.nwide_items * in.plan.block_rows;
      const int64_t      finish_threads = (int64_t)in.nwide_blocks * in.plan.block_rows * 32;
      pjds_wide_items<<<(unsigned)((item_threads + kThreads - 1) / kThreads), kThreads, 0, ws>>>(ka, wa, x);
      GPUFORMATS_CUDA(cudaGetLastError());
      pjds_wide_finish<<<(unsigned)((finish_threads + kThreads - 1) / kThreads), kThreads, 0, ws>>>(ka, wa, alpha, beta, y);
      GPUFORMATS_CUDA(cudaGetLastError());
    }
    const unsigned grid = (unsigned)(((int64_t)nrows + kThreads - 1) / kThreads);
    if (in.plan.perm_window) pjds_spmv_rows<true><<<grid, kThreads, 0, streams.main()>>>(ka, alpha, x, beta, y);
    else pjds_spmv_rows<false><<<grid, kThreads, 0, streams.main()>>>(ka, alpha, x, beta, y);
    GPUFORMATS_CUDA(cudaGetLastError());
  }
  std::size_t bytes() const override { return pjds_bytes(a.info, nrows, nslots); }
  void        describe(std::vector<LayoutStat> &out) const override { pjds_describe(a.info, *this, out); }
};

} // namespace pjds_detail

std::unique_ptr<FormatBlock> pjds_build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream)
{
  using namespace pjds_detail;
  pjds_check_params(params); // bad parameters fail before any upload
  auto            blk = std::make_unique<PjdsCudaBlock>();
  {
    DeviceCsr d = upload_csr(A, stream);
    build_arrays(CudaSystem{stream}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, params, blk->a);
  } // the uploaded CSR is freed here (build_arrays synchronised the stream)
  blk->partial.resize((size_t)blk->a.info.nwide_items * blk->a.info.plan.block_rows);
  blk->set_layout(Backend::cuda, A, blk->a.values.data(), blk->a.nslots, blk->a.slot_of_csr.data());
  return blk;
}

} // namespace gpuformats
