// EVC-HYB per-thread row kernels: the arithmetic of one thread over its slots, with no
// cross-thread operation, compiled for the device (evchyb_cuda.cu) and for the host (the kernel
// emulation in the tests runs these very functions; loads become plain reads there).
#pragma once
#include "../../core/loads.cuh"
#include "evchyb.hpp"

#include <cmath>
#include <type_traits>
#include <vector_types.h>

namespace gpuformats {
namespace evchyb {

// 16-byte pairs loaded per thread before their x gathers are issued: 4 pairs = 8 entries, so a
// 7-point stencil row (3 pairs + 1 single) costs two dependent memory round trips (indices, then
// x), not one per entry as a rolled loop would (in-order issue stalls at the first FMA).
constexpr int kPairBatch = 4;

struct KernelArgs {
  const double     *values;
  const int32_t    *colidx;         // column of slot k at colidx[k - colidx_first]
  const uint16_t   *col16;          // narrow: ELL column offsets / low halves
  const int32_t    *slice_col_base; // narrow: smallest column per slice, or kSplitSlice
  const uint16_t   *col_hi16;       // narrow: high halves of split slices
  const uint16_t   *csr_col16;      // csr_narrow: vCSR column offsets, slot - csr_base
  const int32_t    *csr_col_base;   // csr_narrow: smallest column per vCSR row
  const int32_t    *perm;
  const int32_t    *slice_ptr;
  const int32_t    *csr_row_start;
  const SplitBlock *split;
  double           *split_partial; // one per split-table entry
  int32_t          *split_counter; // chunks done, at the entry of each split row's chunk 0
  const double     *x;
  double           *y;
  double            alpha, beta;
  int32_t           ell_first, csr_first, log2_slice, split_chunk;
  int32_t           narrow, colidx_first, csr_narrow, csr_base;
  int32_t           block_offset; // nonzero (= empty-band blocks) when beta == 1: empty rows untouched
  int32_t           nbands;
  Band              bands[kMaxBands]; // rmark/gbmark of the paper, in the parameter block (constant bank)
};

// The layout's arrays as raw pointers (device memory for the kernel, host memory for the emulation).
struct LayoutArrays {
  const double     *values;
  const int32_t    *colidx, *perm, *slice_ptr, *csr_row_start;
  const uint16_t   *col16;
  const int32_t    *slice_col_base;
  const SplitBlock *split;
  double           *split_partial;
  int32_t          *split_counter;
  const uint16_t   *col_hi16;
  const uint16_t   *csr_col16;
  const int32_t    *csr_col_base;
};

// The kernel's arguments for y = alpha*A*x + beta*y, and the blocks to launch (grid <= 0: none).
// With beta == 1 the empty band's blocks are skipped (block_offset): empty rows keep y.
inline KernelArgs make_kernel_args(const Shape &sh, const LayoutArrays &arr, double alpha, const double *x, double beta, double *y, int32_t &grid)
{
  KernelArgs a{};
  a.values        = arr.values;
  a.colidx        = arr.colidx;
  a.col16          = arr.col16;
  a.slice_col_base = arr.slice_col_base;
  a.col_hi16       = arr.col_hi16;
  a.csr_col16      = arr.csr_col16;
  a.csr_col_base   = arr.csr_col_base;
  a.csr_narrow     = sh.csr_narrow;
  a.csr_base       = (int32_t)sh.csr_base;
  a.narrow         = sh.narrow;
  a.colidx_first   = (int32_t)sh.colidx_first();
  a.perm          = arr.perm;
  a.slice_ptr     = arr.slice_ptr;
  a.csr_row_start = arr.csr_row_start;
  a.split         = arr.split;
  a.split_partial = arr.split_partial;
  a.split_counter = arr.split_counter;
  a.x             = x;
  a.y             = y;
  a.alpha         = alpha;
  a.beta          = beta;
  a.ell_first     = sh.ell_first;
  a.csr_first     = sh.csr_first;
  a.log2_slice    = sh.prm.log2_slice;
  a.split_chunk   = sh.split_chunk();
  a.block_offset  = beta == 1.0 ? sh.empty_blocks : 0;
  a.nbands        = (int32_t)sh.bands.size();
  for (size_t i = 0; i < sh.bands.size(); ++i) a.bands[i] = sh.bands[i];
  grid = sh.nblocks - a.block_offset;
  return a;
}

// Matrix data is read once: streaming loads (ld.global.cs, evict-first) keep L1/L2 for x, which
// irregular matrices re-read. x goes through the read-only path (__ldg; the paper's texture
// cache). Both from core/loads.cuh.

// ELL columns of a slice: 32-bit, or (narrow) 16-bit offsets from the slice's smallest column,
// or (narrow, a split slice: base kSplitSlice) 32-bit columns in two 16-bit planes. All give int32
// columns; a narrow pair is one 4-byte load per lane (a warp: 128 contiguous bytes), a split pair
// two. ell_lane picks the reader by the slice's base, loaded beside slice_ptr so the choice waits
// for no extra memory round trip (measured on the H100: choosing after slice_ptr cost scaled
// CA-GrQc 7%; predicating the high half's load on the base instead stalled the in-order issue of
// every batch: FEM rows 503 -> 483 GFLOP/s).
struct EllColumns32 {
  const int32_t *col;
  GPUFORMATS_HD int2    pair(int32_t pair_index) const { return load_stream(reinterpret_cast<const int2 *>(col) + pair_index); }
  GPUFORMATS_HD int32_t single(int32_t slot) const { return load_stream(col + slot); }
};
struct EllColumns16 {
  const uint16_t *col;
  int32_t         base;
  GPUFORMATS_HD int2 pair(int32_t pair_index) const
  {
    const ushort2 c = load_stream(reinterpret_cast<const ushort2 *>(col) + pair_index);
    return int2{base + c.x, base + c.y};
  }
  GPUFORMATS_HD int32_t single(int32_t slot) const { return base + load_stream(col + slot); }
};
struct EllColumnsSplit {
  const uint16_t *lo, *hi;
  GPUFORMATS_HD int2 pair(int32_t pair_index) const
  {
    const ushort2 l = load_stream(reinterpret_cast<const ushort2 *>(lo) + pair_index), h = load_stream(reinterpret_cast<const ushort2 *>(hi) + pair_index);
    return int2{narrow_column_split(l.x, h.x), narrow_column_split(l.y, h.y)};
  }
  GPUFORMATS_HD int32_t single(int32_t slot) const { return narrow_column_split(load_stream(lo + slot), load_stream(hi + slot)); }
};

// One ELL row, S >= 2: pairs (double2 + int2 or ushort2, 16 and 8 or 4 bytes per lane, a warp
// reads 512 and 256 or 128 contiguous bytes per pair column) and the odd last column. SC = S at
// compile time (the default 32): the pair strides become immediate offsets, which frees the
// registers that keep a whole batch of loads in flight; SC = 0 reads S at run time.
template <int SC, class Cols>
GPUFORMATS_HD double ell_row_paired(const KernelArgs &a, const Cols &cols, int32_t base, int32_t w, int32_t S_rt, int32_t r)
{
  const int32_t  S     = SC ? SC : S_rt;
  constexpr int  NB    = SC ? kPairBatch : kPairBatch / 2; // run-time strides cost address registers
  const double2 *vp    = reinterpret_cast<const double2 *>(a.values + base) + r;
  const int32_t  ip    = (base >> 1) + r; // pair index of the row's first pair (base is even: S >= 2)
  const int32_t  npair = w >> 1;
  bool           odd   = w & 1;
  double         sv = 0.0, s0 = 0.0, s1 = 0.0;
  int32_t        sc = 0;
  if (odd) { // issued now, gathered with the first batch
    const int32_t slot = base + (w - 1) * S + r;
    sv                 = load_stream(a.values + slot);
    sc                 = cols.single(slot);
  }
  for (int32_t p0 = 0; p0 < npair; p0 += NB) {
    double2 v[NB];
    int2    c[NB];
#pragma unroll
    for (int q = 0; q < NB; ++q)
      if (p0 + q < npair) {
        v[q] = load_stream(vp + (p0 + q) * S);
        c[q] = cols.pair(ip + (p0 + q) * S);
      }
    const double xs = odd ? load_ro(a.x + sc) : 0.0;
#pragma unroll
    for (int q = 0; q < NB; ++q)
      if (p0 + q < npair) {
        s0 = fma(v[q].x, load_ro(a.x + c[q].x), s0);
        s1 = fma(v[q].y, load_ro(a.x + c[q].y), s1);
      }
    if (odd) s0 = fma(sv, xs, s0);
    odd = false;
  }
  if (odd) s0 = fma(sv, load_ro(a.x + sc), s0); // width 1
  return s0 + s1;
}

// One ELL row, S == 1 (each row its own slice, entries contiguous, slots maybe odd: scalar loads).
template <class Cols>
GPUFORMATS_HD double ell_row_scalar(const KernelArgs &a, const Cols &cols, int32_t base, int32_t w)
{
  double s0 = 0.0;
#pragma unroll 1 // the batch is the unit; unrolling further only costs registers
  for (int32_t j0 = 0; j0 < w; j0 += 2 * kPairBatch) {
    double  v[2 * kPairBatch];
    int32_t c[2 * kPairBatch];
#pragma unroll
    for (int q = 0; q < 2 * kPairBatch; ++q)
      if (j0 + q < w) {
        v[q] = load_stream(a.values + base + j0 + q);
        c[q] = cols.single(base + j0 + q);
      }
#pragma unroll
    for (int q = 0; q < 2 * kPairBatch; ++q)
      if (j0 + q < w) s0 = fma(v[q], load_ro(a.x + c[q]), s0);
  }
  return s0;
}

// vCSR columns, read in pairs (slot pair p): 32-bit, or (csr_narrow) 16-bit offsets from the row's
// smallest column, whose load is issued with the row's first loads (its address is the row's).
struct CsrColumns32 {
  const int2 *ip; // pair p at ip[p]
  GPUFORMATS_HD CsrColumns32(const KernelArgs &a, int32_t) : ip(reinterpret_cast<const int2 *>(a.colidx) - (a.colidx_first >> 1)) {} // colidx_first: 0 or csr_base (even)
  GPUFORMATS_HD int2 pair(int32_t p) const { return load_stream(ip + p); }
};
struct CsrColumns16 {
  const ushort2 *ip;
  int32_t        base;
  GPUFORMATS_HD CsrColumns16(const KernelArgs &a, int32_t c) : ip(reinterpret_cast<const ushort2 *>(a.csr_col16) - (a.csr_base >> 1)), base(load_ro(a.csr_col_base + c)) {} // csr_base: a multiple of 32
  GPUFORMATS_HD int2 pair(int32_t p) const
  {
    const ushort2 o = load_stream(ip + p);
    return int2{base + o.x, base + o.y};
  }
};

// Padded vCSR slots [start, end) (both even) of vCSR row `row` by `stride` threads, this one starting
// at pair t. A warp reads 32 consecutive pairs: 512 contiguous bytes of values, 256 (or, narrow,
// 128) of indices.
template <bool CSR_NARROW>
GPUFORMATS_HD double csr_range(const KernelArgs &a, int32_t row, int32_t start, int32_t end, int32_t t, int32_t stride)
{
  using Cols = std::conditional_t<CSR_NARROW, CsrColumns16, CsrColumns32>;
  const Cols     ip(a, row);
  const double2 *vp = reinterpret_cast<const double2 *>(a.values);
  const int32_t  pe = end >> 1;
  double         s0 = 0.0, s1 = 0.0;
#pragma unroll 1 // the batch is the unit; unrolling further only costs registers
  for (int32_t p0 = (start >> 1) + t; p0 < pe; p0 += kPairBatch * stride) {
    double2 v[kPairBatch];
    int2    c[kPairBatch];
#pragma unroll
    for (int q = 0; q < kPairBatch; ++q)
      if (p0 + q * stride < pe) {
        v[q] = load_stream(vp + p0 + q * stride);
        c[q] = ip.pair(p0 + q * stride);
      }
#pragma unroll
    for (int q = 0; q < kPairBatch; ++q)
      if (p0 + q * stride < pe) {
        s0 = fma(v[q].x, load_ro(a.x + c[q].x), s0);
        s1 = fma(v[q].y, load_ro(a.x + c[q].y), s1);
      }
  }
  return s0 + s1;
}

// ---- Work of a block (shared by the kernel and the host emulation in the tests) ----

// One ELL lane: the row at ELL index e. MODE: 0 = scalar rows (S == 1), 1 = pairs with S at run
// time, 32 = pairs with S == 32; NARROW: 16-bit columns. Sink: row(out, sum) stores alpha*sum
// (+ beta*y); empty(out) stores beta*y (0 when beta == 0: y may hold NaN, x is not read).
// The windowed layout keeps its empty rows among the ELL rows (see evchyb.hpp), with perm = ~row.
// Such a row's sum is discarded, not skipped: perm stays in flight with the row's loads instead of
// adding a round trip (an empty row costs loads only in a slice shared with longer rows, where its
// padding reads x[0]; 0.0 * Inf would be NaN, hence the discard). With beta == 1 an all-empty
// slice (width 0) is skipped before perm is read: an off-process block is mostly such slices.
template <int MODE, bool NARROW, class Sink>
GPUFORMATS_HD void ell_lane(const KernelArgs &a, int32_t e, Sink &sink)
{
  const int32_t log2S = a.log2_slice, S = 1 << log2S;
  const int32_t s = e >> log2S, r = e & (S - 1);
  const int32_t cb   = NARROW ? load_ro(a.slice_col_base + s) : 0; // in flight with slice_ptr
  const int32_t base = load_ro(a.slice_ptr + s), w = (load_ro(a.slice_ptr + s + 1) - base) >> log2S;
  if (w == 0 && a.beta == 1.0) return;
  const int32_t out = load_stream(a.perm + a.ell_first + e);
  constexpr int SC  = MODE == 1 ? 0 : MODE;
  auto          row = [&](const auto &cols) { return MODE == 0 ? ell_row_scalar(a, cols, base, w) : ell_row_paired<SC>(a, cols, base, w, S, r); };
  double        sum;
  if constexpr (NARROW) sum = cb >= 0 ? row(EllColumns16{a.col16, cb}) : row(EllColumnsSplit{a.col16, a.col_hi16}); // uniform over the slice
  else sum = row(EllColumns32{a.colidx});
  if (out >= 0) sink.row(out, sum);
  else if (a.beta != 1.0) sink.empty(~out);
}

// The band of block blk: the paper's gbmark search, here over <= kMaxBands entries of the
// parameter block (constant bank, uniform per block: no divergence, no memory traffic).
GPUFORMATS_HD int32_t band_of_block(const KernelArgs &a, int32_t blk)
{
  int32_t b = 0;
  for (int32_t i = 1; i < a.nbands; ++i)
    if (blk >= a.bands[i].first_block) b = i;
  return b;
}
// ELL: first row of the k-th run of 32 rows of warp `warp` (a warp owns band.param consecutive runs).
GPUFORMATS_HD int64_t ell_run_first(const Band &band, int32_t blk, int32_t block_threads, int32_t warp, int32_t k)
{
  return band.first + (((int64_t)(blk - band.first_block) * (block_threads / 32) + warp) * band.param + k) * 32;
}
// vCSR team band: the row of the team of thread tid.
GPUFORMATS_HD int64_t csr_team_row(const Band &band, int32_t blk, int32_t block_threads, int32_t tid)
{
  return band.first + (int64_t)(blk - band.first_block) * (block_threads / band.param) + tid / band.param;
}
// Empty band: k-th row position of thread tid.
GPUFORMATS_HD int64_t empty_row(const Band &band, int32_t blk, int32_t block_threads, int32_t tid, int32_t k)
{
  return band.first + ((int64_t)(blk - band.first_block) * kEmptyRowsPerThread + k) * block_threads + tid;
}
// Split band: the split-table entry of the block, and its slot range.
GPUFORMATS_HD int32_t split_entry(const Band &band, int32_t blk) { return band.first + (blk - band.first_block); }
GPUFORMATS_HD void    split_range(const KernelArgs &a, const SplitBlock &sb, int32_t &start, int32_t &end)
{
  const int32_t row_end = load_ro(a.csr_row_start + sb.row + 1);
  start                 = load_ro(a.csr_row_start + sb.row) + sb.chunk * a.split_chunk;
  end                   = row_end - start < a.split_chunk ? row_end : start + a.split_chunk;
}

} // namespace evchyb
} // namespace gpuformats
