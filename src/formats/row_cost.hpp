// How a format's product spends GPU lanes and warps on rows, for a format that declares it
// (FormatOps::row_cost). The SpMV model (model/model.hpp) counts its last two terms from this
// description alone, for that format's candidate only, so it never names the format.
//
//   a row of len entries       class                      threads t            lanes
//   len == 0                   0 (empty)                  0 (one per block)    0
//   max_len[c-1] < len <= max_len[c]  c = 1..nclasses     threads[c-1]         t x ceil(len / t)
//   len > max_len[nclasses-1]  wide                       len / wide_entries   t x ceil(len / t)
//                                                         rounded up to a warp,
//                                                         in [32, wide_max]
//
//   warps, per window of `window` rows:  rows of one class share blocks of block_threads threads,
//   ceil(rows x max(t, 1) / block_threads) blocks of block_threads / 32 warps; a wide row runs t / 32.
//
// Invariants (row_cost_valid): 1 <= nclasses <= kMaxRowClasses; max_len ascending and >= 1;
// 1 <= threads[c] <= block_threads; a wide row's threads exceed block_threads; window >= 1.
#pragma once
#include "../core/hd.hpp"

#include <cstdint>

namespace gpuformats {

constexpr int32_t kMaxRowClasses = 16;

struct RowCost {
  const char *lanes_term, *warps_term; // the two terms' names in the model file
  int32_t     window, block_threads;
  int32_t     nclasses;
  int32_t     max_len[kMaxRowClasses], threads[kMaxRowClasses];
  int32_t     wide_entries, wide_max; // wide rows: t = round_up(len / wide_entries, 32), clamped
};

// 0: empty; 1..nclasses: the table's classes; nclasses + 1: wide.
GPUFORMATS_HD int32_t row_class(const RowCost &r, int64_t len)
{
  if (len <= 0) return 0;
  for (int32_t c = 0; c < r.nclasses; ++c)
    if (len <= r.max_len[c]) return c + 1;
  return r.nclasses + 1;
}
GPUFORMATS_HD int32_t class_threads(const RowCost &r, int32_t c, int64_t len)
{
  if (c == 0) return 0;
  if (c <= r.nclasses) return r.threads[c - 1];
  const int64_t t = (len / r.wide_entries + 31) / 32 * 32;
  return (int32_t)(t < 32 ? 32 : t > r.wide_max ? r.wide_max : t);
}
GPUFORMATS_HD int32_t row_threads(const RowCost &r, int64_t len) { return class_threads(r, row_class(r, len), len); }
GPUFORMATS_HD int64_t row_lanes(const RowCost &r, int64_t len)
{
  const int64_t t = row_threads(r, len);
  return t ? t * ((len + t - 1) / t) : 0;
}
// Warps of a wide row (0 for a row of a class: those are counted per window, class_warps).
GPUFORMATS_HD int64_t wide_row_warps(const RowCost &r, int64_t len) { return row_class(r, len) > r.nclasses ? row_threads(r, len) / 32 : 0; }
// Warps of the blocks of `rows` rows of class c in one window.
GPUFORMATS_HD int64_t class_warps(const RowCost &r, int32_t c, int64_t rows)
{
  const int64_t t = c == 0 ? 1 : r.threads[c - 1];
  return (rows * t + r.block_threads - 1) / r.block_threads * (r.block_threads / 32);
}

inline bool row_cost_valid(const RowCost &r)
{
  if (r.nclasses < 1 || r.nclasses > kMaxRowClasses || r.window < 1 || r.block_threads < 32 || r.wide_entries < 1) return false;
  for (int32_t c = 0; c < r.nclasses; ++c)
    if (r.max_len[c] < 1 || (c && r.max_len[c] <= r.max_len[c - 1]) || r.threads[c] < 1 || r.threads[c] > r.block_threads) return false;
  return class_threads(r, r.nclasses + 1, (int64_t)r.max_len[r.nclasses - 1] + 1) > r.block_threads;
}

} // namespace gpuformats
