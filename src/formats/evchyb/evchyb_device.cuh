// EVC-HYB's device builder, generic over where it runs (core/thrust_system.cuh): evchyb_cuda.cu
// runs it on the GPU (CudaSystem) and test_evchyb_build runs the very same code on thrust::host
// (HostSystem) against the host builder (evchyb_host.cpp), array by array. It follows the host
// builder's steps with the shared plan (evchyb.hpp): sort, lower_bound counts, windows, slots,
// scatter, narrow columns. Layout and invariants: evchyb.hpp.
#pragma once
#include "evchyb.hpp"

#include "../../core/entry_rows.cuh"
#include "../../core/row_lengths.cuh"
#include "../../core/thrust_system.cuh"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <climits>
#include <limits>

namespace gpuformats {
namespace evchyb {

// ------------------------------------------------------------------------------------------------
// Builder functors (host+device; row lengths: core/row_lengths.cuh)
// ------------------------------------------------------------------------------------------------

struct CsrPaddedLength64 {
  GPUFORMATS_HD int64_t operator()(int32_t len) const { return csr_padded(len); }
};

struct SplitChunkCount {
  int32_t chunk;
  GPUFORMATS_HD int64_t operator()(int32_t len) const { return is_split_row(len, chunk) ? split_chunks(len, chunk) : 0; }
};

// Slots of slice s: S * its longest row (slice_width); 0 past the end (gives the total in the scan).
struct SliceSlots {
  const int32_t *len;
  int32_t        ell_first, ell_rows, S, nslices;
  GPUFORMATS_HD int64_t operator()(int32_t s) const { return s < nslices ? (int64_t)S * slice_width(len, ell_first, ell_rows, S, s) : 0; }
};

struct CsrRowSlots {
  const int32_t *len;
  int32_t        csr_first, csr_rows;
  GPUFORMATS_HD int32_t operator()(int32_t c) const { return c < csr_rows ? (int32_t)csr_padded(len[csr_first + c]) : 0; }
};

struct SplitRowChunks {
  const int32_t *len;
  int32_t        first_pos, nsplit, chunk;
  GPUFORMATS_HD int32_t operator()(int32_t k) const { return k < nsplit ? (int32_t)split_chunks(len[first_pos + k], chunk) : 0; }
};

struct FillSplitTable {
  const int32_t *first_entry; // per split row
  int32_t        first_row;   // vCSR index of the first split row
  SplitBlock    *table;
  GPUFORMATS_HD void operator()(int32_t k) const
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
  GPUFORMATS_HD void operator()(int32_t k) const
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
  GPUFORMATS_HD void operator()(int32_t pos) const
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
  GPUFORMATS_HD void operator()(int32_t e) const
  {
    const int32_t i  = perm[ell_first + e];
    int32_t       lo = INT32_MAX, hi = -1;
    for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) {
      lo = colidx_in[k] < lo ? colidx_in[k] : lo;
      hi = colidx_in[k] > hi ? colidx_in[k] : hi;
    }
    row_lo[e] = lo;
    row_hi[e] = hi;
  }
};

struct SliceSpan {
  const int32_t *row_lo, *row_hi;
  int32_t        ell_rows, S;
  GPUFORMATS_HD int32_t operator()(int32_t s) const { return slice_span(slice_columns(row_lo, row_hi, ell_rows, S, s)); }
};

struct SliceColumnBase {
  const int32_t *row_lo, *row_hi;
  int32_t        ell_rows, S;
  GPUFORMATS_HD int32_t operator()(int32_t s) const { return slice_base(slice_columns(row_lo, row_hi, ell_rows, S, s)); }
};
struct FittingSlots { // ELL slots of slice s if its columns fit 16-bit offsets
  const int32_t *slice_ptr, *base;
  GPUFORMATS_HD int64_t operator()(int32_t s) const { return base[s] >= 0 ? slice_ptr[s + 1] - slice_ptr[s] : 0; }
};

// The 16-bit planes of the row at position pos (an empty row's padding keeps column 0).
struct FillNarrowColumns {
  LayoutView     v;
  const int32_t *len, *colidx, *slice_col_base;
  uint16_t      *col16, *col_hi16;
  GPUFORMATS_HD void operator()(int32_t pos) const
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
  GPUFORMATS_HD int32_t operator()(int32_t c) const { return hi[c] - lo[c]; }
};
struct FillCsrNarrowColumns {
  const int32_t *csr_row_start;
  int32_t        csr_rows, csr_base;
  const int32_t *colidx, *lo;
  uint16_t      *col16;
  GPUFORMATS_HD void operator()(int64_t s) const
  {
    const int32_t c = (int32_t)(thrust::upper_bound(thrust::seq, csr_row_start, csr_row_start + csr_rows + 1, (int32_t)s) - csr_row_start) - 1;
    col16[s - csr_base] = (uint16_t)(colidx[s] - lo[c]);
  }
};

// Empty rows among the ELL rows (windowed layout) are marked in perm as ~row (see ell_lane).
struct MarkEmptyEllRows {
  const int32_t *len;
  int32_t       *perm;
  GPUFORMATS_HD void operator()(int32_t pos) const
  {
    if (len[pos] == 0) perm[pos] = ~perm[pos];
  }
};

// vCSR rows' smallest and largest stored column, a segmented reduction over csr_row_start (slot
// offsets into colidx): CUB's DeviceSegmentedReduce on the GPU (evchyb_cuda.cu), a loop on the host.
void        csr_row_min_max(const CudaSystem &sys, const int32_t *colidx, const int32_t *offsets, int32_t rows, int32_t *lo, int32_t *hi);
inline void csr_row_min_max(const HostSystem &, const int32_t *colidx, const int32_t *offsets, int32_t rows, int32_t *lo, int32_t *hi)
{
  for (int32_t c = 0; c < rows; ++c) { // CUB's identities for an empty segment (no vCSR row is)
    int32_t l = std::numeric_limits<int32_t>::max(), h = std::numeric_limits<int32_t>::lowest();
    for (int32_t s = offsets[c]; s < offsets[c + 1]; ++s) {
      l = colidx[s] < l ? colidx[s] : l;
      h = colidx[s] > h ? colidx[s] : h;
    }
    lo[c] = l;
    hi[c] = h;
  }
}

// The layout's arrays in the system's memory (named as HostBlock's), and its shape.
template <class Sys>
struct Arrays {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  Shape           sh;
  buf<int32_t>    perm, slice_ptr, csr_row_start, colidx, slots;
  buf<uint16_t>   col16, col_hi16; // narrow columns (offsets / low halves, high halves)
  buf<int32_t>    slice_col_base;  // narrow columns
  buf<uint16_t>   csr_col16;       // csr_narrow: vCSR column offsets
  buf<int32_t>    csr_col_base;    // csr_narrow: smallest column per vCSR row
  buf<double>     vals;
  buf<SplitBlock> split;
};

// The layout of the CSR rowptr / colidx_in / values_in (in the system's memory; A gives the sizes).
template <class Sys>
void build_arrays(const Sys &sys, const CsrView &A, const int32_t *rowptr, const int32_t *colidx_in, const double *values_in, const int64_t *params, Arrays<Sys> &out)
{
  using thrust::counting_iterator;
  using thrust::make_transform_iterator;
  using I32 = typename Sys::template buffer<int32_t>;
  const auto pol = sys.policy();
  Shape     &sh  = out.sh;
  init_shape(sh, A, params);
  const int32_t n = A.nrows;

  // Sort (core), then the sorted lengths and their lower_bound counts: the only numbers the plan needs.
  out.perm.resize(n);
  I32                        len(n);
  const std::vector<int32_t> thr = plan_thresholds(sh.prm);
  std::vector<int64_t>       lb(thr.size(), 0);
  if (n > 0) {
    sys.row_permutation(rowptr, colidx_in, n, A.ncols, RowOrder::shortest_first, 0, 0, out.perm.data());
    thrust::transform(pol, out.perm.data(), out.perm.data() + n, len.data(), RowLength{rowptr});
    I32                                    dthr(thr.size());
    typename Sys::template buffer<int64_t> dlb(thr.size());
    sys.to_system(dthr.data(), thr.data(), thr.size());
    thrust::lower_bound(pol, len.data(), len.data() + n, dthr.data(), dthr.data() + thr.size(), dlb.data());
    sys.to_host(lb.data(), dlb.data(), lb.size());
  }
  plan_groups(sh, lb);
  const PositionRange        wr      = windowed_ell_range(sh, lb);
  const std::vector<int32_t> windows = wr.end > wr.first ? candidate_windows(sh.prm) : std::vector<int32_t>{};
  if (!windows.empty()) {
    const int32_t ell_rows = wr.end - wr.first, S = sh.prm.slice_rows, nsl = (ell_rows + S - 1) / S;
    I32           global(ell_rows);
    thrust::copy(pol, out.perm.data() + wr.first, out.perm.data() + wr.end, global.data());
    auto relength = [&] { // len of the window range after its order changed
      thrust::transform(pol, out.perm.data() + wr.first, out.perm.data() + wr.end, len.data() + wr.first, RowLength{rowptr});
    };
    for (int32_t W : windows) {
      sys.window_sort(rowptr, out.perm.data() + wr.first, ell_rows, W, WindowOrder::alternate);
      relength();
      auto          it    = make_transform_iterator(counting_iterator<int32_t>(0), SliceSlots{len.data(), wr.first, ell_rows, S, nsl});
      const int64_t slots = thrust::reduce(pol, it, it + nsl, (int64_t)0, thrust::plus<int64_t>());
      if (plan_window(sh, lb, slots, W)) break;
      // The next window sorts the global order again.
      thrust::copy(pol, global.data(), global.data() + ell_rows, out.perm.data() + wr.first);
    }
    if (sh.window == 0) relength(); // every window refused: the global order is back
    sys.sync();                     // global dies here
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
    out.slice_ptr.resize(sh.nslices + 1);
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), SliceSlots{len.data(), sh.ell_first, sh.ell_rows, S, sh.nslices});
    thrust::exclusive_scan(pol, it, it + sh.nslices + 1, out.slice_ptr.data(), (int32_t)0); // fits: ell_slots <= INT32_MAX (plan)
  }
  if (sh.csr_rows) {
    out.csr_row_start.resize(sh.csr_rows + 1);
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), CsrRowSlots{len.data(), sh.csr_first, sh.csr_rows});
    thrust::exclusive_scan(pol, it, it + sh.csr_rows + 1, out.csr_row_start.data(), (int32_t)sh.csr_base);
  }
  if (sh.nsplit_blocks) {
    const int32_t first_row = sh.csr_rows - sh.nsplit_rows;
    I32           first_entry(sh.nsplit_rows + 1);
    auto          it = make_transform_iterator(counting_iterator<int32_t>(0), SplitRowChunks{len.data(), sh.csr_first + first_row, sh.nsplit_rows, chunk});
    thrust::exclusive_scan(pol, it, it + sh.nsplit_rows + 1, first_entry.data(), (int32_t)0);
    out.split.resize(sh.nsplit_blocks);
    thrust::for_each_n(pol, counting_iterator<int32_t>(0), sh.nsplit_rows, FillSplitTable{first_entry.data(), first_row, out.split.data()});
    sys.sync(); // first_entry dies here
  }

  // Values, columns, slot map: zeroed slots (padding value 0.0, gap column 0), entries scattered
  // by their row's permuted position, then the padding columns.
  out.vals.resize(sh.nslots);
  out.colidx.resize(sh.nslots);
  out.slots.resize(A.nnz);
  thrust::fill(pol, out.vals.data(), out.vals.data() + sh.nslots, 0.0);
  thrust::fill(pol, out.colidx.data(), out.colidx.data() + sh.nslots, 0);
  const LayoutView v{out.slice_ptr.data(), out.csr_row_start.data(), sh.ell_first, sh.csr_first, sh.prm.log2_slice};
  if (A.nnz) {
    I32 pos_of_row(n), row_of_entry(A.nnz);
    thrust::scatter(pol, counting_iterator<int32_t>(0), counting_iterator<int32_t>(n), out.perm.data(), pos_of_row.data());
    entry_rows(pol, rowptr, n, A.nnz, row_of_entry.data());
    thrust::for_each_n(pol, counting_iterator<int32_t>(0), (int32_t)A.nnz, ScatterEntries{v, rowptr, colidx_in, row_of_entry.data(), pos_of_row.data(), values_in, out.vals.data(), out.colidx.data(), out.slots.data()});
    thrust::for_each_n(pol, counting_iterator<int32_t>(sh.nempty), n - sh.nempty, FillPaddingColumns{v, out.perm.data(), len.data(), rowptr, colidx_in, out.colidx.data()});
    sys.sync(); // pos_of_row, row_of_entry die here
  }
  // Narrow columns: every slice's span from its rows' smallest and largest columns (as the host).
  int32_t span = -1;
  if (sh.ell_rows) {
    I32 row_lo(sh.ell_rows), row_hi(sh.ell_rows);
    thrust::for_each_n(pol, counting_iterator<int32_t>(0), sh.ell_rows, EllRowColumns{out.perm.data(), rowptr, colidx_in, sh.ell_first, row_lo.data(), row_hi.data()});
    auto it = make_transform_iterator(counting_iterator<int32_t>(0), SliceSpan{row_lo.data(), row_hi.data(), sh.ell_rows, S});
    span    = thrust::reduce(pol, it, it + sh.nslices, (int32_t)-1, thrust::maximum<int32_t>());
    out.slice_col_base.resize(sh.nslices);
    auto base = make_transform_iterator(counting_iterator<int32_t>(0), SliceColumnBase{row_lo.data(), row_hi.data(), sh.ell_rows, S});
    thrust::copy(pol, base, base + sh.nslices, out.slice_col_base.data());
    const int64_t fitting = thrust::transform_reduce(pol, counting_iterator<int32_t>(0), counting_iterator<int32_t>(sh.nslices), FittingSlots{out.slice_ptr.data(), out.slice_col_base.data()}, (int64_t)0, thrust::plus<int64_t>());
    plan_columns(sh, span, fitting);
    if (sh.narrow) {
      out.col16.resize(sh.ell_slots);
      thrust::fill(pol, out.col16.data(), out.col16.data() + sh.ell_slots, (uint16_t)0);
      out.col_hi16.resize(sh.split_slots ? sh.ell_slots : 0);
      if (sh.split_slots) thrust::fill(pol, out.col_hi16.data(), out.col_hi16.data() + sh.ell_slots, (uint16_t)0);
      thrust::for_each_n(pol, counting_iterator<int32_t>(sh.ell_first), sh.ell_rows, FillNarrowColumns{v, len.data(), out.colidx.data(), out.slice_col_base.data(), out.col16.data(), out.col_hi16.data()});
    }
    sys.sync(); // row_lo, row_hi die here
  } else plan_columns(sh, span, 0);
  if (!sh.narrow) out.slice_col_base.resize(0);
  // vCSR columns (as the host builder): every vCSR row's smallest and largest stored column, by a
  // segmented reduction over its slots (padding repeats the row's last column).
  if (sh.csr_rows) {
    I32            csr_lo(sh.csr_rows), csr_hi(sh.csr_rows);
    const int32_t *in = out.colidx.data(), *off = out.csr_row_start.data();
    csr_row_min_max(sys, in, off, sh.csr_rows, csr_lo.data(), csr_hi.data());
    plan_csr_columns(sh, thrust::transform_reduce(pol, counting_iterator<int32_t>(0), counting_iterator<int32_t>(sh.csr_rows), RowSpan{csr_lo.data(), csr_hi.data()}, (int32_t)-1, thrust::maximum<int32_t>()));
    if (sh.csr_narrow) {
      out.csr_col16.resize(sh.nslots - sh.csr_base);
      thrust::for_each_n(pol, counting_iterator<int64_t>(sh.csr_base), sh.nslots - sh.csr_base, FillCsrNarrowColumns{off, sh.csr_rows, (int32_t)sh.csr_base, in, csr_lo.data(), out.csr_col16.data()});
      out.csr_col_base = std::move(csr_lo);
    }
    sys.sync(); // csr_lo, csr_hi die here
  } else plan_csr_columns(sh, -1);
  if (sh.colidx_first() != 0 || sh.colidx_end() != sh.nslots) { // colidx keeps the 32-bit columns only
    I32 kept(sh.colidx_end() - sh.colidx_first());
    thrust::copy(pol, out.colidx.data() + sh.colidx_first(), out.colidx.data() + sh.colidx_end(), kept.data());
    sys.sync(); // the full colidx is freed below
    out.colidx = std::move(kept);
  }
  if (sh.ell_empty) thrust::for_each_n(pol, counting_iterator<int32_t>(sh.ell_first), sh.ell_rows, MarkEmptyEllRows{len.data(), out.perm.data()});
  sys.sync(); // the temporaries die here
}

} // namespace evchyb
} // namespace gpuformats
