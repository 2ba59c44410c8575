// EVC-HYB on the GPU: the device builder (Thrust from the CSR uploaded once; same layout and plan
// as the host builder) and the single-launch product kernel (Algorithm 1 with Listings 1-2 of the
// paper, modernised as said at each point).
#include "evchyb.hpp"
#include "evchyb_rows.cuh"

#include "../../core/device_buffer.hpp"
#include "../../core/entry_rows.cuh"
#include "../../core/row_lengths.cuh"
#include "../../core/warp_sum.cuh"
#include "../../core/row_permutation.hpp"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/system_error.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <new>

namespace gpuformats {
namespace evchyb {

// ------------------------------------------------------------------------------------------------
// The product kernel
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ void store_y(const KernelArgs &a, int32_t out, double sum)
{
  double v = a.alpha * sum;
  if (a.beta != 0.0) v = fma(a.beta, a.y[out], v); // beta == 0: y is write-only (may hold NaN)
  a.y[out] = v;
}

// Sum over a team of tpr (> 32) threads of the warp sums in lane 0; valid in the team's thread 0.
// Every thread of the block must call it (it synchronises).
__device__ __forceinline__ double team_sum(double v, int32_t tpr, double *red)
{
  const int32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31, wpt = tpr >> 5;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (lane == 0 && (warp & (wpt - 1)) == 0) {
    v = 0.0;
    for (int32_t i = 0; i < wpt; ++i) v += red[warp + i];
  }
  return v;
}

struct DeviceSink {
  const KernelArgs &a;
  __device__ __forceinline__ void row(int32_t out, double sum) const { store_y(a, out, sum); }
  __device__ __forceinline__ void empty(int32_t out) const { a.y[out] = a.beta == 0.0 ? 0.0 : a.beta * a.y[out]; }
};

// Listing 1, modernised: a warp owns `rpt` consecutive runs of 32 ELL rows, a row per lane
// (ell_lane). The slice (and so the width and data offset) comes from slice_ptr per row, so a warp
// may cross a group boundary and no block idles at the end of a group.
template <int BLOCK, int MODE, bool NARROW>
__device__ __forceinline__ void ell_band(const KernelArgs &a, const Band &band, int32_t blk)
{
  const int32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  DeviceSink    sink{a};
  for (int32_t k = 0; k < band.param; ++k) {
    const int64_t e0 = ell_run_first(band, blk, BLOCK, warp, k);
    if (e0 >= band.end) break;
    const int32_t e = (int32_t)e0 + lane;
    if (e >= band.end) break;
    ell_lane<MODE, NARROW>(a, e, sink);
  }
}

// Listing 2, modernised: teams of tpr threads (32..BLOCK, one band per team size), one row per
// team, warp shuffles then (tpr > 32) one shared-memory step.
template <int BLOCK, bool CSR_NARROW>
__device__ __forceinline__ void csr_team_band(const KernelArgs &a, const Band &band, int32_t blk, double *red)
{
  const int32_t tpr = band.param, t = threadIdx.x & (tpr - 1);
  const int64_t c   = csr_team_row(band, blk, BLOCK, threadIdx.x);
  const bool    own = c < band.end;
  int32_t       out = 0;
  double        sum = 0.0;
  if (own) {
    if (t == 0) out = load_stream(a.perm + a.csr_first + c); // in flight during the row
    sum = csr_range<CSR_NARROW>(a, (int32_t)c, __ldg(a.csr_row_start + c), __ldg(a.csr_row_start + c + 1), t, tpr);
  }
  sum = warp_sum(sum);
  if (tpr > 32) sum = team_sum(sum, tpr, red); // uniform: the whole block is in this band
  if (own && t == 0) store_y(a, out, sum);
}

// Rows longer than the split chunk: one block per chunk; the block that finishes a row's last
// chunk adds the row's partial sums in chunk order (deterministic) and writes y.
template <int BLOCK, bool CSR_NARROW>
__device__ __forceinline__ void csr_split_band(const KernelArgs &a, const Band &band, int32_t blk, double *red, int32_t *last)
{
  const int32_t    j   = split_entry(band, blk);
  const int4       raw = __ldg(reinterpret_cast<const int4 *>(a.split) + j);
  const SplitBlock sb{raw.x, raw.y, raw.z, raw.w};
  int32_t          start, end;
  split_range(a, sb, start, end);
  double sum = warp_sum(csr_range<CSR_NARROW>(a, sb.row, start, end, threadIdx.x, band.param)); // runtime stride: a constant one unrolls into spills
  sum                    = team_sum(sum, BLOCK, red);
  if (threadIdx.x == 0) {
    a.split_partial[j] = sum;
    __threadfence(); // the partial is visible device-wide before the count says so
    *last = atomicAdd(a.split_counter + sb.first, 1) == sb.nchunks - 1;
  }
  __syncthreads();
  if (*last && threadIdx.x < 32) {
    __threadfence();
    double v = 0.0;
    for (int32_t i = threadIdx.x; i < sb.nchunks; i += 32) v += __ldcg(a.split_partial + sb.first + i); // L2, not a stale L1 line
    v = warp_sum(v);
    if (threadIdx.x == 0) {
      store_y(a, load_stream(a.perm + a.csr_first + sb.row), v);
      a.split_counter[sb.first] = 0; // ready for the next product (stream order)
    }
  }
}

template <int BLOCK>
__device__ __forceinline__ void empty_band(const KernelArgs &a, const Band &band, int32_t blk)
{
#pragma unroll
  for (int32_t k = 0; k < kEmptyRowsPerThread; ++k) {
    const int64_t pos = empty_row(band, blk, BLOCK, threadIdx.x, k);
    if (pos < band.end) {
      const int32_t out = load_stream(a.perm + pos);
      DeviceSink{a}.empty(out);
    }
  }
}

// Occupancy: 1024 threads per SM (32 of 64 warps), i.e. at most 64 registers: the kernel needs
// ~64 to keep a batch of 4 pairs and their 8 x gathers in flight (a 48-register cap spills ~100
// bytes). With 16-byte loads and 8 entries per thread in flight, 32 warps per SM hold more than the
// ~25-30 KB per SM that H100/H200 DRAM latency x bandwidth requires. (Tuning knob: measure 5*256/BLOCK.)
template <int BLOCK>
constexpr int kMinBlocksPerSm = 1024 / BLOCK;

// Algorithm 1: one launch; each block finds its band (the paper's gbmark search, here a scan of
// <= 16 entries of the parameter block, uniform per block) and runs that band's device function.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK, kMinBlocksPerSm<BLOCK>) evchyb_spmv(const __grid_constant__ KernelArgs a)
{
  __shared__ double  red[BLOCK / 32];
  __shared__ int32_t last;
  const int32_t      blk  = (int32_t)blockIdx.x + a.block_offset;
  const Band         band = a.bands[band_of_block(a, blk)];
  switch (band.kind) {
  case band_ell: // separate instantiations: inlining all row kinds into one loop costs ~30 registers
    if (a.narrow) {
      if (a.log2_slice == 5) ell_band<BLOCK, 32, true>(a, band, blk);
      else if (a.log2_slice) ell_band<BLOCK, 1, true>(a, band, blk);
      else ell_band<BLOCK, 0, true>(a, band, blk);
    } else {
      if (a.log2_slice == 5) ell_band<BLOCK, 32, false>(a, band, blk);
      else if (a.log2_slice) ell_band<BLOCK, 1, false>(a, band, blk);
      else ell_band<BLOCK, 0, false>(a, band, blk);
    }
    break;
  case band_csr_team: a.csr_narrow ? csr_team_band<BLOCK, true>(a, band, blk, red) : csr_team_band<BLOCK, false>(a, band, blk, red); break;
  case band_csr_split: a.csr_narrow ? csr_split_band<BLOCK, true>(a, band, blk, red, &last) : csr_split_band<BLOCK, false>(a, band, blk, red, &last); break;
  default: empty_band<BLOCK>(a, band, blk); break;
  }
}

// ------------------------------------------------------------------------------------------------
// The block
// ------------------------------------------------------------------------------------------------

namespace {

class CudaBlock final : public FormatBlock {
public:
  Shape                          sh;
  DeviceBuffer<int32_t>          perm, slice_ptr, csr_row_start, colidx, slots;
  DeviceBuffer<uint16_t>         col16, col_hi16; // narrow columns (offsets / low halves, high halves)
  DeviceBuffer<int32_t>          slice_col_base;  // narrow columns
  DeviceBuffer<uint16_t>         csr_col16;       // csr_narrow: vCSR column offsets
  DeviceBuffer<int32_t>          csr_col_base;    // csr_narrow: smallest column per vCSR row
  DeviceBuffer<double>           vals;
  DeviceBuffer<SplitBlock>       split;
  mutable DeviceBuffer<double>   split_partial; // scratch of the product (one product at a time)
  mutable DeviceBuffer<int32_t>  split_counter;

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (sh.nrows == 0) return;
    int32_t          grid;
    const KernelArgs a = make_kernel_args(sh, {vals.data(), colidx.data(), perm.data(), slice_ptr.data(), csr_row_start.data(), col16.data(), slice_col_base.data(), split.data(), split_partial.data(), split_counter.data(), col_hi16.data(), csr_col16.data(), csr_col_base.data()}, alpha, x, beta, y, grid);
    if (grid <= 0) return;
    cudaStream_t s = streams.main();
    switch (sh.prm.block_threads) {
    case 64: evchyb_spmv<64><<<grid, 64, 0, s>>>(a); break;
    case 128: evchyb_spmv<128><<<grid, 128, 0, s>>>(a); break;
    case 256: evchyb_spmv<256><<<grid, 256, 0, s>>>(a); break;
    case 512: evchyb_spmv<512><<<grid, 512, 0, s>>>(a); break;
    default: evchyb_spmv<1024><<<grid, 1024, 0, s>>>(a); break;
    }
    GPUFORMATS_CUDA(cudaGetLastError());
  }
  std::size_t bytes() const override { return shape_bytes(sh); }
  void        describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"backend", "cuda"});
    describe_shape(sh, out);
  }
};

// ------------------------------------------------------------------------------------------------
// Device builder functors (row lengths: core/row_lengths.cuh)
// ------------------------------------------------------------------------------------------------

struct CsrPaddedLength64 {
  __device__ int64_t operator()(int32_t len) const { return csr_padded(len); }
};

struct SplitChunkCount {
  int32_t chunk;
  __device__ int64_t operator()(int32_t len) const { return is_split_row(len, chunk) ? split_chunks(len, chunk) : 0; }
};

// Slots of slice s: S * its longest row (slice_width); 0 past the end (gives the total in the scan).
struct SliceSlots {
  const int32_t *len;
  int32_t        ell_first, ell_rows, S, nslices;
  __device__ int64_t operator()(int32_t s) const { return s < nslices ? (int64_t)S * slice_width(len, ell_first, ell_rows, S, s) : 0; }
};


struct CsrRowSlots {
  const int32_t *len;
  int32_t        csr_first, csr_rows;
  __device__ int32_t operator()(int32_t c) const { return c < csr_rows ? (int32_t)csr_padded(len[csr_first + c]) : 0; }
};

struct SplitRowChunks {
  const int32_t *len;
  int32_t        first_pos, nsplit, chunk;
  __device__ int32_t operator()(int32_t k) const { return k < nsplit ? (int32_t)split_chunks(len[first_pos + k], chunk) : 0; }
};

struct FillSplitTable {
  const int32_t *first_entry; // per split row
  int32_t        first_row;   // vCSR index of the first split row
  SplitBlock    *table;
  __device__ void operator()(int32_t k) const
  {
    const int32_t f = first_entry[k], n = first_entry[k + 1] - f;
    for (int32_t c = 0; c < n; ++c) table[f + c] = SplitBlock{first_row + k, c, n, f};
  }
};

struct ScatterEntries {
  LayoutView     v;
  const int32_t *rowptr, *colidx_in, *row_of_entry, *pos_of_row;
  const double  *values_in;
  double        *values;
  int32_t       *colidx, *slots;
  __device__ void operator()(int32_t k) const
  {
    const int32_t i = row_of_entry[k], s = v.slot_of(pos_of_row[i], k - rowptr[i]);
    values[s]       = values_in[k];
    colidx[s]       = colidx_in[k];
    slots[k]        = s;
  }
};

struct FillPaddingColumns {
  LayoutView     v;
  const int32_t *perm, *len, *rowptr, *colidx_in;
  int32_t       *colidx;
  __device__ void operator()(int32_t pos) const
  {
    const int32_t l = len[pos], w = v.padded_length(pos);
    if (w <= l) return;
    const int32_t last = l ? colidx_in[rowptr[perm[pos]] + l - 1] : 0;
    for (int32_t j = l; j < w; ++j) colidx[v.slot_of(pos, j)] = last;
  }
};

// Narrow columns: smallest and largest column of the row at ELL index e (empty: INT32_MAX, -1).
struct EllRowColumns {
  const int32_t *perm, *rowptr, *colidx_in;
  int32_t        ell_first;
  int32_t       *row_lo, *row_hi;
  __device__ void operator()(int32_t e) const
  {
    const int32_t i  = perm[ell_first + e];
    int32_t       lo = INT32_MAX, hi = -1;
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
      lo = min(lo, colidx_in[k]);
      hi = max(hi, colidx_in[k]);
    }
    row_lo[e] = lo;
    row_hi[e] = hi;
  }
};

struct SliceSpan {
  const int32_t *row_lo, *row_hi;
  int32_t        ell_rows, S;
  __device__ int32_t operator()(int32_t s) const { return slice_span(slice_columns(row_lo, row_hi, ell_rows, S, s)); }
};

struct SliceColumnBase {
  const int32_t *row_lo, *row_hi;
  int32_t        ell_rows, S;
  __device__ int32_t operator()(int32_t s) const { return slice_base(slice_columns(row_lo, row_hi, ell_rows, S, s)); }
};
struct FittingSlots { // ELL slots of slice s if its columns fit 16-bit offsets
  const int32_t *slice_ptr, *base;
  __device__ int64_t operator()(int32_t s) const { return base[s] >= 0 ? slice_ptr[s + 1] - slice_ptr[s] : 0; }
};

// The 16-bit planes of the row at position pos (an empty row's padding keeps column 0).
struct FillNarrowColumns {
  LayoutView     v;
  const int32_t *len, *colidx, *slice_col_base;
  uint16_t      *col16, *col_hi16;
  __device__ void operator()(int32_t pos) const
  {
    if (len[pos] == 0) return;
    const int32_t base = slice_col_base[(pos - v.ell_first) >> v.log2_slice], w = v.padded_length(pos);
    for (int32_t j = 0; j < w; ++j) {
      const int32_t s = v.slot_of(pos, j);
      col16[s]        = narrow_column_lo(colidx[s], base);
      if (base < 0) col_hi16[s] = narrow_column_hi(colidx[s]);
    }
  }
};

// vCSR columns: the span of row c from its smallest and largest column, and the 16-bit offset of
// vCSR slot s (its row by a binary search of csr_row_start: the vCSR rows are few and long).
struct RowSpan {
  const int32_t *lo, *hi;
  __device__ int32_t operator()(int32_t c) const { return hi[c] - lo[c]; }
};
struct FillCsrNarrowColumns {
  const int32_t *csr_row_start;
  int32_t        csr_rows, csr_base;
  const int32_t *colidx, *lo;
  uint16_t      *col16;
  __device__ void operator()(int64_t s) const
  {
    const int32_t c = (int32_t)(thrust::upper_bound(thrust::seq, csr_row_start, csr_row_start + csr_rows + 1, (int32_t)s) - csr_row_start) - 1;
    col16[s - csr_base] = (uint16_t)(colidx[s] - lo[c]);
  }
};

// Empty rows among the ELL rows (windowed layout) are marked in perm as ~row (see ell_lane).
struct MarkEmptyEllRows {
  const int32_t *len;
  int32_t       *perm;
  __device__ void operator()(int32_t pos) const
  {
    if (len[pos] == 0) perm[pos] = ~perm[pos];
  }
};

std::unique_ptr<FormatBlock> build_device(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  auto   blk = std::make_unique<CudaBlock>();
  Shape &sh  = blk->sh;
  init_shape(sh, A, params);
  const int32_t n = A.nrows;
  const auto    pol = thrust::cuda::par.on(stream);
  using thrust::counting_iterator;
  using thrust::make_transform_iterator;

  DeviceCsr d = upload_csr(A, stream, up);

  // Sort (core), then the sorted lengths and their lower_bound counts: the only numbers the plan needs.
  blk->perm.resize(n);
  DeviceBuffer<int32_t> len(n);
  const std::vector<int32_t> thr = plan_thresholds(sh.prm);
  std::vector<int64_t>       lb(thr.size(), 0);
  if (n > 0) {
    sorted_row_permutation_cuda(d.rowptr.data(), d.colidx.data(), n, A.ncols, RowOrder::shortest_first, 0, blk->perm.data(), stream);
    thrust::transform(pol, blk->perm.data(), blk->perm.data() + n, len.data(), RowLength{d.rowptr.data()});
    DeviceBuffer<int32_t> dthr(thr.size());
    DeviceBuffer<int64_t> dlb(thr.size());
    dthr.upload(thr.data(), thr.size(), stream);
    thrust::lower_bound(pol, len.data(), len.data() + n, dthr.data(), dthr.data() + thr.size(), dlb.data());
    dlb.download(lb.data(), lb.size(), stream);
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
  }
  plan_groups(sh, lb);
  const PositionRange wr = windowed_ell_range(sh, lb);
  const std::vector<int32_t> windows = wr.end > wr.first ? candidate_windows(sh.prm) : std::vector<int32_t>{};
  if (!windows.empty()) {
    const int32_t         ell_rows = wr.end - wr.first, S = sh.prm.slice_rows, nsl = (ell_rows + S - 1) / S;
    DeviceBuffer<int32_t> global(ell_rows);
    GPUFORMATS_CUDA(cudaMemcpyAsync(global.data(), blk->perm.data() + wr.first, global.bytes(), cudaMemcpyDeviceToDevice, stream));
    auto relength = [&] { // len of the window range after its order changed
      thrust::transform(pol, blk->perm.data() + wr.first, blk->perm.data() + wr.end, len.data() + wr.first, RowLength{d.rowptr.data()});
    };
    for (int32_t W : windows) {
      window_sort_range_cuda(d.rowptr.data(), blk->perm.data() + wr.first, ell_rows, W, WindowOrder::alternate, stream);
      relength();
      auto          it    = make_transform_iterator(counting_iterator<int32_t>(0), SliceSlots{len.data(), wr.first, ell_rows, S, nsl});
      const int64_t slots = thrust::reduce(pol, it, it + nsl, (int64_t)0, thrust::plus<int64_t>());
      if (plan_window(sh, lb, slots, W)) break;
      // The next window sorts the global order again.
      GPUFORMATS_CUDA(cudaMemcpyAsync(blk->perm.data() + wr.first, global.data(), global.bytes(), cudaMemcpyDeviceToDevice, stream));
    }
    if (sh.window == 0) relength(); // every window refused: the global order is back
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // global dies here
  }
  const int32_t chunk     = sh.split_chunk();
  int64_t       csr_slots = 0, split_blocks = 0;
  if (sh.csr_rows) {
    csr_slots    = thrust::transform_reduce(pol, len.data() + sh.csr_first, len.data() + n, CsrPaddedLength64{}, (int64_t)0, thrust::plus<int64_t>());
    split_blocks = thrust::transform_reduce(pol, len.data() + sh.csr_first, len.data() + n, SplitChunkCount{chunk}, (int64_t)0, thrust::plus<int64_t>());
  }
  plan_finish(sh, lb, csr_slots, split_blocks);

  // Layout metadata.
  const int32_t S = sh.prm.slice_rows;
  if (sh.nslices) {
    blk->slice_ptr.resize(sh.nslices + 1);
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), SliceSlots{len.data(), sh.ell_first, sh.ell_rows, S, sh.nslices});
    thrust::exclusive_scan(pol, it, it + sh.nslices + 1, blk->slice_ptr.data(), (int32_t)0); // fits: ell_slots <= INT32_MAX (plan)
  }
  if (sh.csr_rows) {
    blk->csr_row_start.resize(sh.csr_rows + 1);
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), CsrRowSlots{len.data(), sh.csr_first, sh.csr_rows});
    thrust::exclusive_scan(pol, it, it + sh.csr_rows + 1, blk->csr_row_start.data(), (int32_t)sh.csr_base);
  }
  if (sh.nsplit_blocks) {
    const int32_t         first_row = sh.csr_rows - sh.nsplit_rows;
    DeviceBuffer<int32_t> first_entry(sh.nsplit_rows + 1);
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), SplitRowChunks{len.data(), sh.csr_first + first_row, sh.nsplit_rows, chunk});
    thrust::exclusive_scan(pol, it, it + sh.nsplit_rows + 1, first_entry.data(), (int32_t)0);
    blk->split.resize(sh.nsplit_blocks);
    thrust::for_each_n(pol, counting_iterator<int32_t>(0), sh.nsplit_rows, FillSplitTable{first_entry.data(), first_row, blk->split.data()});
    blk->split_partial.resize(sh.nsplit_blocks);
    blk->split_counter.resize(sh.nsplit_blocks);
    GPUFORMATS_CUDA(cudaMemsetAsync(blk->split_counter.data(), 0, blk->split_counter.bytes(), stream));
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // first_entry dies here
  }

  // Values, columns, slot map: zeroed slots (padding value 0.0, gap column 0), entries scattered
  // by their row's permuted position, then the padding columns.
  blk->vals.resize(sh.nslots);
  blk->colidx.resize(sh.nslots);
  blk->slots.resize(A.nnz);
  if (sh.nslots) {
    GPUFORMATS_CUDA(cudaMemsetAsync(blk->vals.data(), 0, blk->vals.bytes(), stream));
    GPUFORMATS_CUDA(cudaMemsetAsync(blk->colidx.data(), 0, blk->colidx.bytes(), stream));
  }
  const LayoutView v{blk->slice_ptr.data(), blk->csr_row_start.data(), sh.ell_first, sh.csr_first, sh.prm.log2_slice};
  if (A.nnz) {
    DeviceBuffer<int32_t> pos_of_row(n), row_of_entry(A.nnz);
    thrust::scatter(pol, counting_iterator<int32_t>(0), counting_iterator<int32_t>(n), blk->perm.data(), pos_of_row.data());
    entry_rows(pol, d.rowptr.data(), n, A.nnz, row_of_entry.data());
    thrust::for_each_n(pol, counting_iterator<int32_t>(0), (int32_t)A.nnz,
                       ScatterEntries{v, d.rowptr.data(), d.colidx.data(), row_of_entry.data(), pos_of_row.data(), d.values.data(), blk->vals.data(), blk->colidx.data(), blk->slots.data()});
    thrust::for_each_n(pol, counting_iterator<int32_t>(sh.nempty), n - sh.nempty, FillPaddingColumns{v, blk->perm.data(), len.data(), d.rowptr.data(), d.colidx.data(), blk->colidx.data()});
  }
  // Narrow columns: every slice's span from its rows' smallest and largest columns (as the host).
  int32_t span = -1;
  if (sh.ell_rows) {
    DeviceBuffer<int32_t> row_lo(sh.ell_rows), row_hi(sh.ell_rows);
    thrust::for_each_n(pol, counting_iterator<int32_t>(0), sh.ell_rows, EllRowColumns{blk->perm.data(), d.rowptr.data(), d.colidx.data(), sh.ell_first, row_lo.data(), row_hi.data()});
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), SliceSpan{row_lo.data(), row_hi.data(), sh.ell_rows, S});
    span    = thrust::reduce(pol, it, it + sh.nslices, (int32_t)-1, thrust::maximum<int32_t>());
    blk->slice_col_base.resize(sh.nslices);
    auto base = make_transform_iterator(counting_iterator<int32_t>(0), SliceColumnBase{row_lo.data(), row_hi.data(), sh.ell_rows, S});
    thrust::copy(pol, base, base + sh.nslices, blk->slice_col_base.data());
    const int64_t fitting = thrust::transform_reduce(pol, counting_iterator<int32_t>(0), counting_iterator<int32_t>(sh.nslices), FittingSlots{blk->slice_ptr.data(), blk->slice_col_base.data()}, (int64_t)0, thrust::plus<int64_t>());
    plan_columns(sh, span, fitting);
    if (sh.narrow) {
      blk->col16.resize(sh.ell_slots);
      GPUFORMATS_CUDA(cudaMemsetAsync(blk->col16.data(), 0, blk->col16.bytes(), stream));
      blk->col_hi16.resize(sh.split_slots ? sh.ell_slots : 0);
      if (sh.split_slots) GPUFORMATS_CUDA(cudaMemsetAsync(blk->col_hi16.data(), 0, blk->col_hi16.bytes(), stream));
      thrust::for_each_n(pol, counting_iterator<int32_t>(sh.ell_first), sh.ell_rows, FillNarrowColumns{v, len.data(), blk->colidx.data(), blk->slice_col_base.data(), blk->col16.data(), blk->col_hi16.data()});
    }
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // row_lo, row_hi die here
  } else plan_columns(sh, span, 0);
  if (!sh.narrow) blk->slice_col_base.resize(0);
  // vCSR columns (as the host builder): every vCSR row's smallest and largest stored column, by a
  // segmented reduction over its slots (padding repeats the row's last column).
  if (sh.csr_rows) {
    DeviceBuffer<int32_t> csr_lo(sh.csr_rows), csr_hi(sh.csr_rows);
    const int32_t        *in = blk->colidx.data(), *off = blk->csr_row_start.data();
    std::size_t           tmp_min = 0, tmp_max = 0;
    GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Min(nullptr, tmp_min, in, csr_lo.data(), sh.csr_rows, off, off + 1, stream));
    GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Max(nullptr, tmp_max, in, csr_hi.data(), sh.csr_rows, off, off + 1, stream));
    DeviceBuffer<unsigned char> tmp(std::max(tmp_min, tmp_max));
    GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Min(tmp.data(), tmp_min, in, csr_lo.data(), sh.csr_rows, off, off + 1, stream));
    GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Max(tmp.data(), tmp_max, in, csr_hi.data(), sh.csr_rows, off, off + 1, stream));
    plan_csr_columns(sh, thrust::transform_reduce(pol, counting_iterator<int32_t>(0), counting_iterator<int32_t>(sh.csr_rows), RowSpan{csr_lo.data(), csr_hi.data()}, (int32_t)-1, thrust::maximum<int32_t>()));
    if (sh.csr_narrow) {
      blk->csr_col16.resize(sh.nslots - sh.csr_base);
      thrust::for_each_n(pol, counting_iterator<int64_t>(sh.csr_base), sh.nslots - sh.csr_base, FillCsrNarrowColumns{off, sh.csr_rows, (int32_t)sh.csr_base, in, csr_lo.data(), blk->csr_col16.data()});
      blk->csr_col_base = std::move(csr_lo);
    }
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // tmp, csr_lo, csr_hi die here
  } else plan_csr_columns(sh, -1);
  if (sh.colidx_first() != 0 || sh.colidx_end() != sh.nslots) { // colidx keeps the 32-bit columns only
    DeviceBuffer<int32_t> kept(sh.colidx_end() - sh.colidx_first());
    if (kept.size()) GPUFORMATS_CUDA(cudaMemcpyAsync(kept.data(), blk->colidx.data() + sh.colidx_first(), kept.bytes(), cudaMemcpyDeviceToDevice, stream));
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the full colidx is freed below
    blk->colidx = std::move(kept);
  }
  if (sh.ell_empty) thrust::for_each_n(pol, counting_iterator<int32_t>(sh.ell_first), sh.ell_rows, MarkEmptyEllRows{len.data(), blk->perm.data()});
  GPUFORMATS_CUDA(cudaGetLastError());
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the uploaded CSR and the temporaries die here

  blk->set_layout(Backend::cuda, A, blk->vals.data(), sh.nslots, blk->slots.data());
  return blk;
}

} // namespace

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  try {
    return build_device(A, params, stream, up);
  } catch (const Error &) {
    throw;
  } catch (const thrust::system_error &e) { // Thrust's own temporaries
    cudaGetLastError();
    throw Error(e.code().value() == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::device, std::string("evchyb device build: ") + e.what());
  } catch (const std::bad_alloc &e) {
    cudaGetLastError();
    throw Error(ErrorKind::out_of_memory, std::string("evchyb device build: out of memory (") + e.what() + "); the AIJ matrix is unchanged");
  }
}

} // namespace evchyb
} // namespace gpuformats
