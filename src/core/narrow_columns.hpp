// 16-bit column offsets, shared by the formats that store them (EVC-HYB slices and vCSR rows, pJDS
// blocks): a group of slots whose columns span little stores each column as an offset from the
// group's smallest column (2 bytes instead of 4); a group that does not fit, in a layout where
// most do, stores its 32-bit columns as two 16-bit planes (low half where the offsets are, high
// half in a second plane), so the narrow layout never stores more than the 32-bit one:
//
//   base >= 0 (the group fits):   column = base + lo               lo = column - base
//   base <  0 (a split group):    column = hi:lo (hi << 16 | lo)    lo, hi = halves of the column
//
// Each format keeps its own span limit and padding mark; what is shared is the encoding and the
// rule for when mixed layouts pay.
#pragma once
#include "hd.hpp"

#include <cstdint>

namespace gpuformats {

GPUFORMATS_HD uint16_t narrow_column_lo(int32_t col, int32_t base) { return base >= 0 ? (uint16_t)(col - base) : (uint16_t)((uint32_t)col & 0xFFFFu); }
GPUFORMATS_HD uint16_t narrow_column_hi(int32_t col) { return (uint16_t)((uint32_t)col >> 16); }
GPUFORMATS_HD int32_t  narrow_column_split(uint16_t lo, uint16_t hi) { return (int32_t)(((uint32_t)hi << 16) | lo); } // 0xFFFF:0xFFFF = -1

// The share of the slots the fitting groups must hold for a narrow layout with split groups.
// Split groups cost more than their bytes say (two column loads for one). Measured on an H100
// (bench/results/h100/narrow-columns): mixed layouts won where 87.7% and 95.7% of
// the slots fit (scaled dwt_2680 +4%, ani4 +2%) and lost where 80.4% did (scaled power grid:
// EVC-HYB 225 -> 219 GFLOP/s, pJDS 207 -> 199) and where 46% did (scaled CA-GrQc: 136 -> 127,
// pJDS 142 -> 127).
constexpr double kNarrowMinShare = 0.85;
inline bool      narrow_share_pays(int64_t fitting_slots, int64_t slots) { return fitting_slots > 0 && (double)fitting_slots >= kNarrowMinShare * (double)slots; }

} // namespace gpuformats
