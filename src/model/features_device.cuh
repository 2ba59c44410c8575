// The model's strips (model.hpp: Strip, strips_of) from a CSR in a system's memory, written once with
// Thrust and templated on the system (core/thrust_system.cuh), as the formats' device builders are:
// features_cuda.cu runs it on the GPU on the CSR uploaded for the build (strips_of_device), and
// test_model_features runs the very same code on thrust::host against the host strips_of.
//
// Cost, so that it stays a small part of a build (a 100 M-nonzero matrix: a few milliseconds):
//   rows, nnz, max_row, col_span   one reduce_by_key over the rows, keyed by strip: a row's length
//                                  from rowptr and its smallest and largest column from its first
//                                  and last entry (columns are sorted within a row: CsrView), so
//                                  O(nrows) and two reads of colidx per row, never a pass over nnz
//   x_sectors                      every 32-row group's entries from rowptr, heavy or light by
//                                  heavy_group (O(nrows / 32)); a light group's rank in its strip
//                                  by a scan; then the entries of the counted groups only (heavy,
//                                  and every sector_stride-th light one: about 4 M plus the heavy
//                                  groups'), keyed (counted group << 32 | column / 4), sorted,
//                                  distinct keys counted per group, summed per strip heavy and
//                                  light apart, scaled by sampled_x_sectors as the host does
//   x_footprint                    the entries whose sector's hash is sampled, keyed (strip, sector)
//   ndiag, offsets                 the offset layout's (model.hpp): each strip's first longest row
//                                  from the same reduce, its offsets, then one reduce over the rows
//                                  checking their entries against them (O(nnz), rows of at most
//                                  kMaxOffsets entries only)
//   long_nnz                       one more reduce over the rows, a row's length against its strip's
//                                  mean (long_row)
//   row_lanes, row_warps           the row-cost format's (model.hpp): in the same reduce over the
//                                  rows (lanes; warps of wide rows), plus one reduce over its
//                                  windows, a row adding one to its class's count (WindowCounts)
#pragma once
#include "model.hpp"

#include "../core/entry_rows.cuh"
#include "../core/thrust_system.cuh"

#include <thrust/execution_policy.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuformats::model {
namespace features {

// --- rows, nnz, max_row, col_span ------------------------------------------------------------------

// One row, then (merged) one strip: entries, longest row, smallest and largest column (an empty row
// holds lo = INT32_MAX, hi = -1, so it leaves the span alone, as in select::strip_features).
struct RowStat {
  int64_t nnz;
  int32_t max_row, lo, hi;
  int64_t lanes, wide_warps; // the row-cost format's: lanes; warps of wide rows
  int32_t longest;           // the first row of max_row entries
};
struct RowStatOf {
  const int32_t *rowptr, *colidx;
  RowCost        rc;
  bool           counted; // a format declares a RowCost
  __host__ __device__ RowStat operator()(int32_t i) const
  {
    const int32_t b = rowptr[i], e = rowptr[i + 1];
    if (b == e) return {0, 0, INT32_MAX, -1, 0, 0, i};
    return {e - b, e - b, colidx[b], colidx[e - 1], // sorted columns: first and last are the extremes
            counted ? row_lanes(rc, e - b) : 0, counted ? wide_row_warps(rc, e - b) : 0, i};
  }
};
struct MergeRowStat {
  __host__ __device__ RowStat operator()(const RowStat &a, const RowStat &b) const
  {
    const int32_t longest = a.max_row != b.max_row ? (a.max_row > b.max_row ? a.longest : b.longest) : (a.longest < b.longest ? a.longest : b.longest);
    return {a.nnz + b.nnz, a.max_row > b.max_row ? a.max_row : b.max_row, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.lanes + b.lanes, a.wide_warps + b.wide_warps, longest};
  }
};

// --- the offset layout's view (Strip::ndiag, offsets) ------------------------------------------------
//
// Strip s's first longest row's offsets in off[s * kMaxOffsets ..] (0 beyond its length, and all 0
// for a row longer than kMaxOffsets), then per row whether an entry misses them (counted per strip).
struct StripOffset {
  const int32_t *rowptr, *colidx;
  const RowStat *stats;
  __host__ __device__ int32_t operator()(int32_t t) const
  {
    const RowStat &st = stats[t / kMaxOffsets];
    const int32_t  d  = t % kMaxOffsets;
    return st.max_row <= kMaxOffsets && d < st.max_row ? colidx[rowptr[st.longest] + d] - st.longest : 0;
  }
};
// Rows of strip s (the last may be shorter).
__host__ __device__ inline int64_t strip_row_count(int32_t s, int32_t strip_rows, int32_t nrows)
{
  const int64_t left = nrows - (int64_t)s * strip_rows;
  return left < strip_rows ? left : strip_rows;
}

// long_nnz: a row's entries where it is long in its strip (model.hpp's long_row), else 0.
struct RowLongNnz {
  const int32_t *rowptr;
  const RowStat *stats;
  int32_t        strip_rows, nrows;
  __host__ __device__ int64_t operator()(int32_t i) const
  {
    const int32_t s   = i / strip_rows;
    const int64_t len = rowptr[i + 1] - rowptr[i];
    return long_row(len, strip_row_count(s, strip_rows, nrows), stats[s].nnz) ? len : 0;
  }
};

struct RowMisses {
  const int32_t *rowptr, *colidx, *off;
  const RowStat *stats;
  int32_t        strip_rows;
  __host__ __device__ int32_t operator()(int32_t i) const
  {
    const int32_t  s   = i / strip_rows;
    const int32_t  len = stats[s].max_row;
    if (len > kMaxOffsets) return 1;
    const int32_t *o = off + (int64_t)s * kMaxOffsets;
    for (int32_t e = rowptr[i]; e < rowptr[i + 1]; ++e) {
      const int32_t v = colidx[e] - i;
      int32_t       lo = 0, hi = len; // binary search in the ascending offsets
      while (lo < hi) {
        const int32_t mid = (lo + hi) / 2;
        if (o[mid] < v) lo = mid + 1;
        else hi = mid;
      }
      if (lo == len || o[lo] != v) return 1;
    }
    return 0;
  }
};

// --- the row-cost format's class warps -------------------------------------------------------------
//
// Windows of rc.window rows numbered from each strip's first row (model.hpp), globally
// w = strip x per_strip + local; per window, the rows of each class (row_class: 0..nclasses).
struct WindowCounts {
  int32_t n[kMaxRowClasses + 1]; // rows of each class in the window
};
struct WindowOfRow {
  int32_t strip_rows, per_strip, window;
  __host__ __device__ int32_t operator()(int32_t i) const
  {
    const int32_t s = i / strip_rows;
    return s * per_strip + (i - s * strip_rows) / window;
  }
};
struct WindowCountsOf { // a row of a class: one in its count; a wide row: nothing (RowStat has it)
  const int32_t *rowptr;
  RowCost        rc;
  __host__ __device__ WindowCounts operator()(int32_t i) const
  {
    WindowCounts  c{};
    const int32_t k = row_class(rc, rowptr[i + 1] - rowptr[i]);
    if (k <= rc.nclasses) c.n[k] = 1;
    return c;
  }
};
struct MergeWindowCounts {
  __host__ __device__ WindowCounts operator()(const WindowCounts &a, const WindowCounts &b) const
  {
    WindowCounts c;
    for (int k = 0; k <= kMaxRowClasses; ++k) c.n[k] = a.n[k] + b.n[k];
    return c;
  }
};
struct ClassWarps {
  RowCost rc;
  __host__ __device__ int64_t operator()(const WindowCounts &c) const
  {
    int64_t w = 0;
    for (int k = 0; k <= rc.nclasses; ++k)
      if (c.n[k]) w += class_warps(rc, k, c.n[k]);
    return w;
  }
};
struct StripOfWindow {
  int32_t per_strip;
  __host__ __device__ int32_t operator()(int32_t w) const { return w / per_strip; }
};
struct StripOfRow {
  int32_t strip_rows;
  __host__ __device__ int32_t operator()(int32_t i) const { return i / strip_rows; }
};

// --- the counted groups -------------------------------------------------------------------------------
//
// Every 32-row group, numbered j = 0, 1, ... in row order over the whole matrix: every strip but the
// last holds per_full of them (the same count: the same rows), the last per_last. Closed forms, so
// nothing per group is stored but its light flag, its rank and the list of those counted.
struct Groups {
  int32_t nrows, strip_rows, nstrips;
  int64_t per_full, per_last; // groups of a strip of strip_rows rows (>= 1), of the last strip

  __host__ __device__ int32_t strip(int64_t j) const
  {
    const int64_t s = j / per_full;
    return (int32_t)(s < nstrips - 1 ? s : nstrips - 1);
  }
  __host__ __device__ int64_t groups_of(int32_t s) const { return s < nstrips - 1 ? per_full : per_last; }
  __host__ __device__ int64_t first_row(int64_t j) const
  {
    const int32_t s = strip(j);
    return (int64_t)s * strip_rows + (j - s * per_full) * kSectorGroupRows;
  }
  __host__ __device__ int64_t end_row(int64_t j) const
  {
    const int32_t s     = strip(j);
    const int64_t send  = (int64_t)s * strip_rows + strip_row_count(s, strip_rows, nrows);
    const int64_t r     = first_row(j) + kSectorGroupRows;
    return r < send ? r : send;
  }
};
struct StripOfGroup {
  Groups g;
  __host__ __device__ int32_t operator()(int32_t j) const { return g.strip(j); }
};
struct GroupLight { // 1 where group j is light in its strip (heavy_group), else 0
  const int32_t *rowptr;
  const RowStat *stats;
  Groups         g;
  __host__ __device__ int32_t operator()(int32_t j) const
  {
    const int32_t s = g.strip(j);
    return heavy_group(rowptr[g.end_row(j)] - rowptr[g.first_row(j)], g.groups_of(s), stats[s].nnz) ? 0 : 1;
  }
};
struct GroupCounted { // heavy, or light with its rank among its strip's light groups a multiple of stride
  const int32_t *light, *rank;
  int32_t        stride;
  __host__ __device__ bool operator()(int32_t j) const { return !light[j] || rank[j] % stride == 0; }
};
struct ListedLength { // entries of counted group i (list[i] its number)
  const int32_t *rowptr, *list;
  Groups         g;
  __host__ __device__ int32_t operator()(int32_t i) const { return rowptr[g.end_row(list[i])] - rowptr[g.first_row(list[i])]; }
};
// Key of counted entry t (item[t] its counted group, offset[i] the first entry of counted group i):
// the group in the high half, so that a sort brings each group's sectors together, groups in order.
struct ListedKey {
  const int32_t *rowptr, *colidx, *offset, *item, *list;
  Groups         g;
  __host__ __device__ uint64_t operator()(int32_t t) const
  {
    const int32_t i = item[t];
    const int32_t e = rowptr[g.first_row(list[i])] + (t - offset[i]);
    return ((uint64_t)i << 32) | (uint32_t)(colidx[e] >> 2); // 4 doubles per 32-byte sector
  }
};
struct ItemOfKey {
  __host__ __device__ int32_t operator()(uint64_t key) const { return (int32_t)(key >> 32); }
};
struct FirstOfKey { // 1 at the first of each run of equal (sorted) keys: a distinct sector of a group
  const uint64_t *keys;
  __host__ __device__ int64_t operator()(int32_t t) const { return t == 0 || keys[t] != keys[t - 1] ? 1 : 0; }
};
struct SectorSums { // distinct sectors of a strip's heavy groups and of its sampled light groups
  int64_t heavy, light;
};
struct AddSectorSums {
  __host__ __device__ SectorSums operator()(const SectorSums &a, const SectorSums &b) const { return {a.heavy + b.heavy, a.light + b.light}; }
};
// Output q of the reduce over the sorted keys: counted[q] its counted group (an index into list),
// distinct[q] that group's distinct sectors.
struct StripOfCounted { // counted group counted[q]'s strip
  const int32_t *counted, *list;
  Groups         g;
  __host__ __device__ int32_t operator()(int32_t q) const { return g.strip(list[counted[q]]); }
};
struct SumsOfCounted { // counted group counted[q]'s distinct sectors, heavy or light
  const int32_t *counted, *list, *light;
  const int64_t *distinct;
  __host__ __device__ SectorSums operator()(int32_t q) const
  {
    const int64_t d = distinct[q];
    return light[list[counted[q]]] ? SectorSums{0, d} : SectorSums{d, 0};
  }
};
struct ScaleBy {
  int32_t k;
  __host__ __device__ int64_t operator()(int64_t v) const { return v * k; }
};
struct ScaleSectors {
  const SectorSums *sums;
  const int64_t    *light_groups;
  int32_t           stride;
  __host__ __device__ int64_t operator()(int32_t s) const { return sampled_x_sectors(sums[s].heavy, sums[s].light, light_groups[s], stride); }
};

// strips_of(A, strip_rows, sector_stride) for the CSR (rowptr, colidx) in the system's memory.
// x_footprint (model.hpp): the entries whose sector's hash is sampled, keyed (strip, sector).
struct StripEntry { // first entry of strip s (s = nstrips: nnz)
  const int32_t *rowptr;
  int32_t        nrows, strip_rows;
  __host__ __device__ int32_t operator()(int32_t s) const
  {
    const int64_t r = (int64_t)s * strip_rows;
    return rowptr[r < nrows ? r : nrows];
  }
};
struct SampledSector {
  const int32_t *colidx;
  uint32_t       mask;
  __host__ __device__ bool operator()(int32_t e) const { return (sector_hash((uint32_t)(colidx[e] >> 2)) & mask) == 0; }
};
struct FootprintKey {
  const int32_t *colidx, *strip_entry;
  int32_t        nstrips;
  __host__ __device__ uint64_t operator()(int32_t e) const
  {
    int32_t lo = 0, hi = nstrips; // the last strip whose first entry is <= e (strips may be empty)
    while (hi - lo > 1) {
      const int32_t mid = (lo + hi) / 2;
      if (strip_entry[mid] <= e) lo = mid;
      else hi = mid;
    }
    return ((uint64_t)lo << 32) | (uint32_t)(colidx[e] >> 2);
  }
};
struct StripOfFootKey {
  __host__ __device__ int32_t operator()(uint64_t key) const { return (int32_t)(key >> 32); }
};

template <class Sys>
void footprints_of_system(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int64_t nnz, int32_t strip_rows, int32_t nstrips, int32_t sector_stride, int64_t *out)
{
  auto                                     pol = sys.policy();
  const thrust::counting_iterator<int32_t> zero(0);
  const int32_t                            k   = footprint_stride(sector_stride);
  thrust::fill(pol, out, out + nstrips, (int64_t)0);
  if (nnz == 0) return;
  const int32_t T = (int32_t)thrust::count_if(pol, zero, zero + (int32_t)nnz, SampledSector{colidx, (uint32_t)k - 1});
  if (T == 0) return;
  auto idx = sys.template temp<int32_t>(T);
  thrust::copy_if(pol, zero, zero + (int32_t)nnz, idx.data(), SampledSector{colidx, (uint32_t)k - 1});
  auto strip_entry = sys.template temp<int32_t>((size_t)nstrips + 1);
  thrust::transform(pol, zero, zero + nstrips + 1, strip_entry.data(), StripEntry{rowptr, nrows, strip_rows});
  auto keys = sys.template temp<uint64_t>(T);
  thrust::transform(pol, idx.data(), idx.data() + T, keys.data(), FootprintKey{colidx, strip_entry.data(), nstrips});
  idx = sys.template temp<int32_t>(0);
  thrust::sort(pol, keys.data(), keys.data() + T);
  auto       strip_out = sys.template temp<int32_t>(nstrips);
  auto       count_out = sys.template temp<int64_t>(nstrips);
  const auto end       = thrust::reduce_by_key(pol, thrust::make_transform_iterator(keys.data(), StripOfFootKey{}), thrust::make_transform_iterator(keys.data() + T, StripOfFootKey{}),
                                               thrust::make_transform_iterator(zero, FirstOfKey{keys.data()}), strip_out.data(), count_out.data());
  const int32_t n = (int32_t)(end.first - strip_out.data());
  thrust::transform(pol, count_out.data(), count_out.data() + n, count_out.data(), ScaleBy{k});
  thrust::scatter(pol, count_out.data(), count_out.data() + n, strip_out.data(), out);
}

template <class Sys>
std::vector<Strip> strips_of_system(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, int64_t nnz, int32_t strip_rows, int32_t sector_stride, bool offset_view = true)
{
  (void)ncols; // the features read columns only through colidx
  if (strip_rows < 1) throw Error(ErrorKind::bad_input, "strips_of_device: strips need at least one row");
  if (sector_stride < 1) throw Error(ErrorKind::bad_input, "strips_of_device: the sector stride must be at least 1");
  if (nrows < 0 || nnz < 0) throw Error(ErrorKind::bad_input, "strips_of_device: negative rows or entries");
  const int32_t nstrips = (int32_t)(((int64_t)nrows + strip_rows - 1) / strip_rows);
  if (nstrips == 0) {
    sys.sync();
    return {};
  }
  auto                                   pol = sys.policy();
  const thrust::counting_iterator<int32_t> zero(0);
  const FormatOps                         *rf      = row_cost_format();
  const bool                               counted = rf != nullptr;
  const RowCost                            rc      = counted ? *rf->row_cost : RowCost{};

  // Every strip has rows, so reduce_by_key gives exactly one value per strip, in strip order.
  auto stats = sys.template temp<RowStat>(nstrips);
  thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, StripOfRow{strip_rows}), thrust::make_transform_iterator(zero + nrows, StripOfRow{strip_rows}),
                        thrust::make_transform_iterator(zero, RowStatOf{rowptr, colidx, rc, counted}), thrust::make_discard_iterator(), stats.data(), thrust::equal_to<int32_t>(), MergeRowStat{});

  auto long_nnz = sys.template temp<int64_t>(nstrips);
  thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, StripOfRow{strip_rows}), thrust::make_transform_iterator(zero + nrows, StripOfRow{strip_rows}),
                        thrust::make_transform_iterator(zero, RowLongNnz{rowptr, stats.data(), strip_rows, nrows}), thrust::make_discard_iterator(), long_nnz.data());

  // x_sectors: distinct sectors per counted group, summed per strip heavy and light apart, scaled.
  auto sectors = sys.template temp<int64_t>(nstrips);
  {
    const int64_t group_rows = (int64_t)kSectorGroupRows;
    const int64_t last_rows  = strip_row_count(nstrips - 1, strip_rows, nrows);
    const Groups  g{nrows, strip_rows, nstrips, (strip_rows + group_rows - 1) / group_rows, (last_rows + group_rows - 1) / group_rows};
    const int32_t G = (int32_t)((int64_t)(nstrips - 1) * g.per_full + g.per_last); // <= nrows
    auto light = sys.template temp<int32_t>(G), rank = sys.template temp<int32_t>(G);
    thrust::transform(pol, zero, zero + G, light.data(), GroupLight{rowptr, stats.data(), g});
    thrust::exclusive_scan_by_key(pol, thrust::make_transform_iterator(zero, StripOfGroup{g}), thrust::make_transform_iterator(zero + G, StripOfGroup{g}), light.data(), rank.data());
    // Every strip has groups: one light count per strip, in strip order.
    auto light_groups = sys.template temp<int64_t>(nstrips);
    thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, StripOfGroup{g}), thrust::make_transform_iterator(zero + G, StripOfGroup{g}), light.data(), thrust::make_discard_iterator(), light_groups.data());
    auto sums = sys.template temp<SectorSums>(nstrips);
    thrust::fill(pol, sums.data(), sums.data() + nstrips, SectorSums{0, 0});
    if (nnz > 0) {
      const GroupCounted counted{light.data(), rank.data(), sector_stride};
      const int32_t      M    = (int32_t)thrust::count_if(pol, zero, zero + G, counted);
      auto               list = sys.template temp<int32_t>(M);
      thrust::copy_if(pol, zero, zero + G, list.data(), counted);
      rank = sys.template temp<int32_t>(0);
      auto offset = sys.template temp<int32_t>((size_t)M + 1);
      thrust::transform(pol, zero, zero + M, offset.data(), ListedLength{rowptr, list.data(), g});
      thrust::fill(pol, offset.data() + M, offset.data() + M + 1, 0);
      thrust::exclusive_scan(pol, offset.data(), offset.data() + M + 1, offset.data());
      const int32_t T = sys.get(offset.data() + M); // counted entries, <= nnz
      if (T > 0) {
        auto item = sys.template temp<int32_t>(T);
        entry_rows(pol, offset.data(), M, T, item.data()); // the counted group of each counted entry
        auto keys = sys.template temp<uint64_t>(T);
        thrust::transform(pol, zero, zero + T, keys.data(), ListedKey{rowptr, colidx, offset.data(), item.data(), list.data(), g});
        item = sys.template temp<int32_t>(0); // the keys hold the group: freed before the sort's own temporaries
        thrust::sort(pol, keys.data(), keys.data() + T);
        // Sorted keys: counted groups in order; a group with no entry is absent and adds nothing.
        auto       groups_out = sys.template temp<int32_t>(M);
        auto       distinct   = sys.template temp<int64_t>(M);
        const auto gend       = thrust::reduce_by_key(pol, thrust::make_transform_iterator(keys.data(), ItemOfKey{}), thrust::make_transform_iterator(keys.data() + T, ItemOfKey{}),
                                                      thrust::make_transform_iterator(zero, FirstOfKey{keys.data()}), groups_out.data(), distinct.data());
        const int32_t n = (int32_t)(gend.first - groups_out.data());
        // Counted groups in order, hence strips in order; a strip with none keeps its zeros.
        auto       strip_out = sys.template temp<int32_t>(nstrips);
        auto       sums_out  = sys.template temp<SectorSums>(nstrips);
        const auto send      = thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, StripOfCounted{groups_out.data(), list.data(), g}), thrust::make_transform_iterator(zero + n, StripOfCounted{groups_out.data(), list.data(), g}),
                                                     thrust::make_transform_iterator(zero, SumsOfCounted{groups_out.data(), list.data(), light.data(), distinct.data()}), strip_out.data(), sums_out.data(),
                                                     thrust::equal_to<int32_t>(), AddSectorSums{});
        thrust::scatter(pol, sums_out.data(), sums_out.data() + (send.first - strip_out.data()), strip_out.data(), sums.data());
      }
    }
    thrust::transform(pol, zero, zero + nstrips, sectors.data(), ScaleSectors{sums.data(), light_groups.data(), sector_stride});
  }

  auto footprint = sys.template temp<int64_t>(nstrips);
  footprints_of_system(sys, rowptr, colidx, nrows, nnz, strip_rows, nstrips, sector_stride, footprint.data());

  // The row-cost format's class warps: counts per window, their warps, summed per strip (every
  // window has rows and every strip windows, so both reduces give one value per key, in order).
  auto tile_warps = sys.template temp<int64_t>(nstrips);
  thrust::fill(pol, tile_warps.data(), tile_warps.data() + nstrips, (int64_t)0);
  if (counted) {
    const int32_t W         = rc.window;
    const int32_t per_strip = (int32_t)(((int64_t)strip_rows + W - 1) / W);
    const int64_t nwin64    = (int64_t)(nstrips - 1) * per_strip + (strip_row_count(nstrips - 1, strip_rows, nrows) + W - 1) / W;
    if (nwin64 > INT32_MAX) throw Error(ErrorKind::bad_input, "strips_of_device: too many windows of the row-cost format");
    const int32_t nwin   = (int32_t)nwin64;
    auto          counts = sys.template temp<WindowCounts>(nwin);
    thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, WindowOfRow{strip_rows, per_strip, W}), thrust::make_transform_iterator(zero + nrows, WindowOfRow{strip_rows, per_strip, W}),
                          thrust::make_transform_iterator(zero, WindowCountsOf{rowptr, rc}), thrust::make_discard_iterator(), counts.data(), thrust::equal_to<int32_t>(), MergeWindowCounts{});
    thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, StripOfWindow{per_strip}), thrust::make_transform_iterator(zero + nwin, StripOfWindow{per_strip}),
                          thrust::make_transform_iterator(counts.data(), ClassWarps{rc}), thrust::make_discard_iterator(), tile_warps.data());
  }

  // The offset layout's view: one more pass over the entries of the strips of short rows (none where
  // that layout is no candidate of the choice).
  const bool shaped = offset_view && offset_shape_format() != nullptr;
  auto       offs   = sys.template temp<int32_t>(shaped ? (size_t)nstrips * kMaxOffsets : 0);
  auto       misses = sys.template temp<int32_t>(shaped ? nstrips : 0);
  if (shaped) {
    thrust::transform(pol, zero, zero + nstrips * kMaxOffsets, offs.data(), StripOffset{rowptr, colidx, stats.data()});
    thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, StripOfRow{strip_rows}), thrust::make_transform_iterator(zero + nrows, StripOfRow{strip_rows}),
                          thrust::make_transform_iterator(zero, RowMisses{rowptr, colidx, offs.data(), stats.data(), strip_rows}), thrust::make_discard_iterator(), misses.data());
  }

  std::vector<RowStat> st(nstrips);
  std::vector<int32_t> off(shaped ? (size_t)nstrips * kMaxOffsets : 0), miss(shaped ? nstrips : 0);
  if (shaped) {
    sys.to_host(off.data(), offs.data(), off.size());
    sys.to_host(miss.data(), misses.data(), miss.size());
  }
  std::vector<int64_t> sec(nstrips), foot(nstrips), tw(nstrips), lng(nstrips);
  sys.to_host(lng.data(), long_nnz.data(), nstrips);
  sys.to_host(tw.data(), tile_warps.data(), nstrips);
  sys.to_host(st.data(), stats.data(), nstrips);
  sys.to_host(sec.data(), sectors.data(), nstrips);
  sys.to_host(foot.data(), footprint.data(), nstrips);
  sys.sync();
  std::vector<Strip> out(nstrips);
  for (int32_t s = 0; s < nstrips; ++s) {
    Strip &o       = out[s];
    o.f.first_row  = (int32_t)((int64_t)s * strip_rows);
    o.f.rows       = (int32_t)strip_row_count(s, strip_rows, nrows);
    o.f.nnz        = st[s].nnz;
    o.f.max_row    = st[s].max_row;
    o.f.col_span   = st[s].hi >= 0 ? (int64_t)st[s].hi - st[s].lo + 1 : 0;
    o.x_sectors    = sec[s];
    o.x_footprint  = foot[s];
    o.row_lanes    = st[s].lanes;
    o.row_warps    = st[s].wide_warps + tw[s];
    o.long_nnz     = lng[s];
    if (shaped && miss[s] == 0) { // else ndiag stays -1 and the offsets 0, as the host's
      o.ndiag = o.f.max_row;
      std::copy(off.begin() + (size_t)s * kMaxOffsets, off.begin() + (size_t)(s + 1) * kMaxOffsets, o.offsets.begin());
    }
  }
  return out;
}

} // namespace features
} // namespace gpuformats::model
