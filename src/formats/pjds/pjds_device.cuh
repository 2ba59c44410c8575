// pJDS product bodies and device builder, generic over where they run: the thread bodies are
// __host__ __device__ and the builder is templated on a "system" (Thrust policy + buffers +
// permutation), so pjds_cuda.cu runs them on the GPU and test_pjds_build runs the very same code on
// thrust::host against the host builder (pjds_host.cpp). Layout and invariants: pjds.hpp.
#pragma once
#include "pjds.hpp"
#include "pjds_window.cuh"

#include "../../core/entry_rows.cuh"
#include "../../core/loads.cuh"
#include "../../core/row_lengths.cuh"
#include "../../core/row_permutation.hpp"
#include "../../core/thrust_system.cuh"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
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
namespace pjds {

// ------------------------------------------------------------------------------------------------
// Loads (core/loads.cuh): the matrix streamed (load_stream), x and metadata read-only (load_ro).

// Diagonals loaded together by one thread before it uses any of them: 8 independent (value,
// column) pairs and then 8 independent x loads in flight per thread, so a 7-point stencil row is
// one round trip for the matrix and one for x. More would only add registers.
constexpr int kUnroll = 8;
// 8 warps per CTA: small CTAs keep the tail of the grid short; 256 threads at <= 64 registers
// still let 4 CTAs (32 warps) share an SM, far more loads in flight than HBM needs.
constexpr int kThreads = 256;

// The column of a jagged slot, -1 for padding: 32-bit indices, or (narrow) 16-bit offsets from
// the block's smallest column with kNarrowPad for padding (pjds.hpp).
struct WideColumns {
  const int32_t *__restrict__ colidx;
  __host__ __device__ int32_t operator()(int32_t slot) const { return load_stream(colidx + slot); }
};
struct NarrowColumns { // a block that fits: offsets from its base
  const uint16_t *__restrict__ col16;
  int32_t base;
  __host__ __device__ int32_t operator()(int32_t slot) const { return column_fit(load_stream(col16 + slot), base); }
};
struct SplitColumns { // a block that does not fit (narrow layout): 32-bit columns in two 16-bit planes
  const uint16_t *__restrict__ lo;
  const uint16_t *__restrict__ hi;
  __host__ __device__ int32_t operator()(int32_t slot) const { return narrow_column_split(load_stream(lo + slot), load_stream(hi + slot)); }
};

// sum_{j0 <= j < j1} values[slot] * x[column(slot)], slot = cs[j] + lp, stopping at the first
// padding slot (column -1: the row has ended). Summed in j order, as the host reference does.
template <class Columns>
__host__ __device__ inline double row_sum(const int32_t *__restrict__ cs, int32_t lp, int32_t j0, int32_t j1, const Columns &column, const double *__restrict__ values, const double *__restrict__ x)
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
        c[u]               = column(slot);
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
  int32_t         nrows, block_rows, segment_rows;
  const int32_t  *perm, *block_width, *diag_base, *col_start, *colidx;
  const double   *values;
  const uint16_t *col16;          // narrow only
  const int32_t  *block_col_base; // narrow only
  const uint16_t *col_hi16;       // narrow with split blocks only
};

// The base of block b (narrow layout; 0 otherwise). Callers load it beside block_width, so the
// reader choice below waits for no extra memory round trip (measured on the H100: choosing after
// the other loads cost scaled CA-GrQc 11%; predicating the high half's load on the base instead
// stalled the in-order issue of every batch: FEM rows 500 -> 400 GFLOP/s).
template <bool kNarrow>
__host__ __device__ inline int32_t block_base(const KernelArgs &a, int32_t b) { return kNarrow ? load_ro(a.block_col_base + b) : 0; }

// Row sum of a jagged row of a block with base cb, with the block's column reader (the branch is
// uniform over the block's rows).
template <bool kNarrow>
__host__ __device__ inline double jagged_sum(const KernelArgs &a, int32_t cb, const int32_t *__restrict__ cs, int32_t lp, int32_t j0, int32_t j1, const double *__restrict__ x)
{
  if constexpr (kNarrow) {
    if (cb >= 0) return row_sum(cs, lp, j0, j1, NarrowColumns{a.col16, cb}, a.values, x);
    return row_sum(cs, lp, j0, j1, SplitColumns{a.col16, a.col_hi16}, a.values, x);
  } else return row_sum(cs, lp, j0, j1, WideColumns{a.colidx}, a.values, x);
}

struct WideArgs {
  int32_t        nwide, nitems;
  const int32_t *wide_block, *wide_item_start, *wide_item_owner;
  double        *partial; // nitems * block_rows
};

struct LongArgs {
  int32_t        nlong, nchunks;
  const int32_t *row, *start, *chunk_start, *chunk_owner;
  double        *partial; // nchunks
};

// Thread bodies (host+device: the tests run them on the host). One thread per sorted row (the
// paper's Listing 2) over every block not wider than kChunkDiagonals. kWindowed: several
// segments (sort_window > 0); otherwise p is its own local position. kNarrow: 16-bit columns.
template <bool kWindowed, bool kNarrow>
__host__ __device__ inline void row_thread(const KernelArgs &a, int32_t p, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t b = p / a.block_rows, W = load_ro(a.block_width + b), cb = block_base<kNarrow>(a, b);
  if (W > kChunkDiagonals) return; // a wide block: the split path handles it
  int32_t        lp = p;
  const int32_t *cs = a.col_start;
  if (kWindowed) {
    const int32_t s = p / a.segment_rows;
    lp              = p - s * a.segment_rows;
    cs += load_ro(a.diag_base + s);
  }
  const double sum = jagged_sum<kNarrow>(a, cb, cs, lp, 0, W, x);
  store_y(y, load_ro(a.perm + p), alpha, sum, beta);
}

// Split path, step 1: item t covers kChunkDiagonals diagonals of one wide block; b_r
// consecutive threads take its b_r rows (same coalesced slots as the row kernel).
template <bool kNarrow>
__host__ __device__ inline void wide_item_thread(const KernelArgs &a, const WideArgs &w, int32_t t, const double *__restrict__ x)
{
  const int32_t item = t / a.block_rows, r = t - item * a.block_rows;
  if (item >= w.nitems) return;
  const int32_t  wi = load_ro(w.wide_item_owner + item);
  const int32_t  b  = load_ro(w.wide_block + wi);
  const int32_t  p  = b * a.block_rows + r; // may be a phantom row: all padding, sum 0
  const int32_t  s  = p / a.segment_rows, lp = p - s * a.segment_rows;
  const int32_t  j0 = (item - load_ro(w.wide_item_start + wi)) * kChunkDiagonals;
  const int32_t  W  = load_ro(a.block_width + b);
  const int32_t  j1 = j0 + kChunkDiagonals < W ? j0 + kChunkDiagonals : W;
  const int32_t *cs = a.col_start + load_ro(a.diag_base + s);
  w.partial[(int64_t)item * a.block_rows + r] = jagged_sum<kNarrow>(a, block_base<kNarrow>(a, b), cs, lp, j0, j1, x);
}

// Long rows, step 1: lane `lane` of the warp on chunk c sums entries lane, lane + 32, ... of the
// chunk (kUnroll loads in flight, as row_sum); the warp's total is the chunk's partial sum.
// colidx[k - colidx_first] is the column of slot k (colidx_first: 0, or the jagged slots when narrow).
__host__ __device__ inline double long_chunk_lane_sum(const LongArgs &l, int32_t c, int lane, const int32_t *__restrict__ colidx, int32_t colidx_first, const double *__restrict__ values, const double *__restrict__ x)
{
  const int32_t r = load_ro(l.chunk_owner + c);
  const int32_t k0 = load_ro(l.start + r) + (c - load_ro(l.chunk_start + r)) * kLongChunk, end = load_ro(l.start + r + 1);
  const int32_t k1  = end - k0 < kLongChunk ? end : k0 + kLongChunk;
  double        sum = 0;
  for (int32_t k = k0 + lane; k < k1; k += 32 * kUnroll) {
    int32_t cl[kUnroll];
    double  v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int32_t kk = k + 32 * u;
      cl[u]            = kk < k1 ? load_stream(colidx + (kk - colidx_first)) : -1;
      v[u]             = kk < k1 ? load_stream(values + kk) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += v[u] * (cl[u] >= 0 ? load_ro(x + cl[u]) : 0.0);
  }
  return sum;
}

// ------------------------------------------------------------------------------------------------
// Builder functors (host+device so the build can also run on thrust::host in tests).
struct BlockWidth { // jagged length of the first row of block b (0 for a block of phantom rows)
  const int32_t *rowptr, *perm;
  int32_t        nrows, block_rows, long_row;
  __host__ __device__ int32_t operator()(int32_t b) const
  {
    const int64_t p = (int64_t)b * block_rows;
    if (p >= nrows) return 0;
    const int32_t i = perm[p];
    return sort_length(rowptr[i + 1] - rowptr[i], long_row);
  }
};
struct LongLength { // entries of row i if it is a long row, else 0
  const int32_t *rowptr;
  int32_t        long_row;
  __host__ __device__ int32_t operator()(int32_t i) const
  {
    const int32_t len = rowptr[i + 1] - rowptr[i];
    return len - sort_length(len, long_row);
  }
};
struct IsLongRow {
  const int32_t *rowptr;
  int32_t        long_row;
  __host__ __device__ bool operator()(int32_t i) const { return LongLength{rowptr, long_row}(i) > 0; }
};
struct LongStart { // slot of the first entry of long row i: after the diagonals, in row order
  const int32_t *long_base;
  int32_t        jagged_slots;
  __host__ __device__ int32_t operator()(int32_t i) const { return jagged_slots + long_base[i]; }
};
struct ChunksOfLongRow {
  const int32_t *rowptr;
  __host__ __device__ int32_t operator()(int32_t i) const { return (rowptr[i + 1] - rowptr[i] + kLongChunk - 1) / kLongChunk; }
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
struct SlotOfEntry { // (k, row) -> slot of CSR entry k
  const int32_t *rowptr, *inv_perm, *diag_base, *col_start, *long_base;
  int32_t        segment_rows, long_row, jagged_slots;
  __host__ __device__ int32_t operator()(int32_t k, int32_t i) const
  {
    if (LongLength{rowptr, long_row}(i) > 0) return jagged_slots + long_base[i] + (k - rowptr[i]);
    const int32_t p = inv_perm[i];
    const int32_t s = p / segment_rows, lp = p - s * segment_rows;
    return col_start[diag_base[s] + (k - rowptr[i])] + lp;
  }
};
struct IsWide {
  __host__ __device__ bool operator()(int32_t w) const { return w > kChunkDiagonals; }
};
struct ItemsOfBlock {
  const int32_t *block_width;
  __host__ __device__ int32_t operator()(int32_t b) const { return (block_width[b] + kChunkDiagonals - 1) / kChunkDiagonals; }
};
struct MinusOne {
  __host__ __device__ int32_t operator()(int32_t v) const { return v - 1; }
};

// Narrow columns: smallest and largest column of the jagged row at sorted position p (a long row
// or a phantom: INT32_MAX, -1), then per block over its rows.
struct RowColumnRange {
  const int32_t *rowptr, *colidx, *perm;
  int32_t        long_row;
  int32_t       *lo, *hi;
  __host__ __device__ void operator()(int32_t p) const
  {
    const int32_t i = perm[p];
    int32_t       l = INT32_MAX, h = -1;
    if (LongLength{rowptr, long_row}(i) == 0)
      for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
        l = colidx[k] < l ? colidx[k] : l;
        h = colidx[k] > h ? colidx[k] : h;
      }
    lo[p] = l;
    hi[p] = h;
  }
};
struct BlockColumnRange { // writes block b's base (0 if it has no entries, kSplitBlock if its span does not fit; idempotent) and returns its span (-1: none)
  const int32_t *lo, *hi;
  int32_t        nrows, block_rows;
  int32_t       *base;
  __host__ __device__ int32_t operator()(int32_t b) const
  {
    int32_t       l = INT32_MAX, h = -1;
    const int64_t p0 = (int64_t)b * block_rows, p1 = p0 + block_rows < nrows ? p0 + block_rows : nrows;
    for (int64_t p = p0; p < p1; ++p) {
      l = lo[p] < l ? lo[p] : l;
      h = hi[p] > h ? hi[p] : h;
    }
    const int32_t span = h >= l ? h - l : -1;
    base[b]            = span < 0 ? 0 : block_fits(span) ? l : kSplitBlock;
    return span;
  }
};
struct FittingSlots { // jagged slots of block b if it fits 16-bit offsets
  const int32_t *block_width, *base;
  int32_t        block_rows;
  __host__ __device__ int64_t operator()(int32_t b) const { return base[b] >= 0 ? (int64_t)block_rows * block_width[b] : 0; }
};
struct FillNarrowColumns { // the 16-bit planes of the jagged row at sorted position p
  const int32_t *rowptr, *colidx, *perm, *slot_of_csr, *block_col_base;
  int32_t        block_rows, long_row;
  uint16_t      *col16, *col_hi16;
  __host__ __device__ void operator()(int32_t p) const
  {
    const int32_t i = perm[p];
    if (LongLength{rowptr, long_row}(i) > 0) return;
    const int32_t base = block_col_base[p / block_rows];
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
      col16[slot_of_csr[k]] = narrow_column_lo(colidx[k], base);
      if (base < 0) col_hi16[slot_of_csr[k]] = narrow_column_hi(colidx[k]);
    }
  }
};

template <class Sys>
struct Arrays {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  Info         info;
  int64_t      nslots = 0;
  buf<int32_t> perm, block_width, diag_base, col_start, colidx, slot_of_csr, wide_block, wide_item_start, wide_item_owner;
  buf<int32_t> long_row, long_start, long_chunk_start, long_chunk_owner;
  buf<double>  values;
  buf<uint16_t> col16, col_hi16; // narrow columns: offsets / low halves, high halves of split blocks
  buf<int32_t>  block_col_base;  // narrow columns

  KernelArgs kernel_args(int32_t nrows) const
  {
    const Plan &pl = info.plan;
    return {nrows, pl.block_rows, pl.segment_rows, perm.data(), block_width.data(), diag_base.data(), col_start.data(), colidx.data(), values.data(), col16.data(), block_col_base.data(), col_hi16.data()};
  }
  int32_t colidx_first() const { return info.narrow ? (int32_t)(nslots - info.long_nnz) : 0; }
};

// count_padded_slots (pjds_window.cuh) on the system's policy, with its buffers.
template <class Sys>
int64_t padded_slots(const Sys &sys, const int32_t *rowptr, int32_t nrows, int32_t br, int32_t window, int32_t long_row)
{
  typename Sys::template buffer<int64_t> keys(std::max<int32_t>(nrows, 1));
  const int64_t                          slots = count_padded_slots(sys.policy(), keys.data(), rowptr, nrows, br, window, long_row);
  sys.sync(); // keys die here
  return slots;
}

// Pieces of a list: n elements, count(e) pieces each (an iterator of counts). start (n + 1
// entries) = exclusive scan of the counts, owner[t] = element of piece t. Returns the pieces.
// (Wide blocks -> items, long rows -> chunks.)
template <class Sys, class Counts>
int32_t split_into_pieces(const Sys &sys, Counts counts, int32_t n, typename Sys::template buffer<int32_t> &start, typename Sys::template buffer<int32_t> &owner)
{
  auto                                     pol = sys.policy();
  const thrust::counting_iterator<int32_t> zero(0);
  start.resize(n + 1);
  thrust::copy(pol, counts, counts + n, start.data());
  thrust::fill(pol, start.data() + n, start.data() + n + 1, 0);
  thrust::exclusive_scan(pol, start.data(), start.data() + n + 1, start.data());
  const int32_t pieces = sys.get(start.data() + n);
  owner.resize(pieces);
  thrust::upper_bound(pol, start.data(), start.data() + n + 1, zero, zero + pieces, owner.data());
  thrust::transform(pol, owner.data(), owner.data() + pieces, owner.data(), MinusOne{});
  return pieces;
}

// Builds every array of pjds.hpp from a CSR in the system's memory.
template <class Sys>
void build_arrays(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, const double *csr_values, int32_t nrows, int32_t ncols, int64_t nnz, const int64_t *params, Arrays<Sys> &out)
{
  using thrust::counting_iterator;
  auto  pol = sys.policy();
  Info &in  = out.info;
  const counting_iterator<int32_t> zero(0);
  auto long_nnz = [&](int32_t long_row) { return thrust::transform_reduce(pol, zero, zero + nrows, LongLength{rowptr, long_row}, (int64_t)0, thrust::plus<int64_t>()); };
  in.plan = make_plan(nrows, nnz, params, [&](int32_t br, int32_t window, int32_t long_row) { return padded_slots(sys, rowptr, nrows, br, window, long_row); }, long_nnz);
  const Plan   &pl = in.plan;
  const int32_t br = pl.block_rows, S = pl.segment_rows, nb = pl.nblocks, nseg = pl.nsegments, bps = S / br, L = pl.long_row;

  in.max_row_length = thrust::transform_reduce(pol, zero, zero + nrows, RowLength{rowptr}, (int32_t)0, thrust::maximum<int32_t>());
  in.empty_rows     = (int32_t)thrust::count_if(pol, thrust::make_transform_iterator(zero, RowLength{rowptr}), thrust::make_transform_iterator(zero + nrows, RowLength{rowptr}), IsZero{});

  out.perm.resize(nrows);
  sys.row_permutation(rowptr, colidx, nrows, ncols, RowOrder::longest_first, pl.perm_window, L, out.perm.data());

  out.block_width.resize(nb);
  thrust::transform(pol, zero, zero + nb, out.block_width.data(), BlockWidth{rowptr, out.perm.data(), nrows, br, L});
  const int64_t jagged_slots = (int64_t)br * thrust::transform_reduce(pol, out.block_width.data(), out.block_width.data() + nb, ToInt64{}, (int64_t)0, thrust::plus<int64_t>());
  in.long_nnz                = L > 0 ? long_nnz(L) : 0;
  const int64_t nslots       = jagged_slots + in.long_nnz;
  check_slots(nslots, nnz); // before the big allocations
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
    // long_base[i]: entries of the long rows before row i (exclusive scan), their slots' offset
    // after the diagonals; long rows ascending with their first slot and chunks.
    typename Sys::template buffer<int32_t> inv(nrows), long_base(nrows + 1);
    thrust::transform(pol, zero, zero + nrows, long_base.data(), LongLength{rowptr, L});
    thrust::fill(pol, long_base.data() + nrows, long_base.data() + nrows + 1, 0);
    thrust::exclusive_scan(pol, long_base.data(), long_base.data() + nrows + 1, long_base.data());
    const int32_t nlong = L > 0 ? (int32_t)thrust::count_if(pol, zero, zero + nrows, IsLongRow{rowptr, L}) : 0;
    out.long_row.resize(nlong);
    thrust::copy_if(pol, zero, zero + nrows, out.long_row.data(), IsLongRow{rowptr, L});
    out.long_start.resize(nlong + 1);
    thrust::transform(pol, out.long_row.data(), out.long_row.data() + nlong, out.long_start.data(), LongStart{long_base.data(), (int32_t)jagged_slots});
    thrust::fill(pol, out.long_start.data() + nlong, out.long_start.data() + nlong + 1, (int32_t)nslots);
    in.nlong_rows   = nlong;
    in.nlong_chunks = split_into_pieces(sys, thrust::make_transform_iterator(out.long_row.data(), ChunksOfLongRow{rowptr}), nlong, out.long_chunk_start, out.long_chunk_owner);

    thrust::scatter(pol, zero, zero + nrows, out.perm.data(), inv.data());
    out.slot_of_csr.resize(nnz);
    int32_t *sl = out.slot_of_csr.data();
    entry_rows(pol, rowptr, nrows, nnz, sl); // the row of each entry (core), then its slot
    thrust::transform(pol, zero, zero + (int32_t)nnz, sl, sl, SlotOfEntry{rowptr, inv.data(), out.diag_base.data(), out.col_start.data(), long_base.data(), S, L, (int32_t)jagged_slots});
    thrust::scatter(pol, csr_values, csr_values + nnz, sl, out.values.data());
    thrust::scatter(pol, colidx, colidx + nnz, sl, out.colidx.data());
    sys.sync(); // inv and long_base die here
  }

  // Narrow columns (as the host builder): every block's column span from its rows' ranges.
  out.block_col_base.resize(nb);
  if (nrows > 0) {
    typename Sys::template buffer<int32_t> lo(nrows), hi(nrows);
    thrust::for_each_n(pol, zero, nrows, RowColumnRange{rowptr, colidx, out.perm.data(), L, lo.data(), hi.data()});
    auto spans     = thrust::make_transform_iterator(zero, BlockColumnRange{lo.data(), hi.data(), nrows, br, out.block_col_base.data()});
    in.widest_span = thrust::reduce(pol, spans, spans + nb, (int32_t)-1, thrust::maximum<int32_t>());
    sys.sync(); // lo, hi die here
  }
  const int64_t jagged = nslots - in.long_nnz;
  if (nb > 0) in.narrow_slots = thrust::transform_reduce(pol, zero, zero + nb, FittingSlots{out.block_width.data(), out.block_col_base.data(), br}, (int64_t)0, thrust::plus<int64_t>());
  in.narrow = narrow_pays(params[param_narrow], in.narrow_slots, jagged);
  if (in.narrow) {
    in.split_slots = jagged - in.narrow_slots;
    out.col16.resize(jagged);
    thrust::fill(pol, out.col16.data(), out.col16.data() + jagged, kNarrowPad);
    out.col_hi16.resize(in.split_slots ? jagged : 0);
    if (in.split_slots) thrust::fill(pol, out.col_hi16.data(), out.col_hi16.data() + jagged, (uint16_t)0xFFFF);
    thrust::for_each_n(pol, zero, nrows, FillNarrowColumns{rowptr, colidx, out.perm.data(), out.slot_of_csr.data(), out.block_col_base.data(), br, L, out.col16.data(), out.col_hi16.data()});
    typename Sys::template buffer<int32_t> long_cols(in.long_nnz); // the long rows' columns stay
    thrust::copy(pol, out.colidx.data() + jagged, out.colidx.data() + nslots, long_cols.data());
    sys.sync();
    out.colidx = std::move(long_cols);
  } else out.block_col_base.resize(0);

  // Wide blocks, their item ranges and the owner of each item.
  const int32_t nwide = (int32_t)thrust::count_if(pol, out.block_width.data(), out.block_width.data() + nb, IsWide{});
  out.wide_block.resize(nwide);
  thrust::copy_if(pol, zero, zero + nb, out.block_width.data(), out.wide_block.data(), IsWide{});
  in.nwide_blocks = nwide;
  in.nwide_items  = split_into_pieces(sys, thrust::make_transform_iterator(out.wide_block.data(), ItemsOfBlock{out.block_width.data()}), nwide, out.wide_item_start, out.wide_item_owner);
  sys.sync();
}

} // namespace pjds
} // namespace gpuformats
