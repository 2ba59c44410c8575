// pJDS: padded jagged diagonals storage (Kreutzer, Hager, Wellein et al., section II).
//
// Rows are sorted by length, longest first (the shared core permutation). Consecutive blocks of
// b_r sorted rows are padded to the longest row of the block, and the padded rows are stored
// column by column of the sorted, left-packed matrix: "jagged diagonal" j holds entry j of every
// row whose block reaches that far, and col_start[j] is where diagonal j begins.
//
//   CSR (5 rows)           sorted, b_r = 2              jagged diagonals (slots)
//   r0: a b                p0 = r2: d e f g   block 0   diag 0: d h a c      col_start[0] = 0
//   r1: c                  p1 = r4: h i j *   W = 4     diag 1: e i b *      col_start[1] = 4
//   r2: d e f g            p2 = r0: a b       block 1   diag 2: f j          col_start[2] = 8
//   r3: (empty)            p3 = r1: c *       W = 2     diag 3: g *          col_start[3] = 10
//   r4: h i j              p4 = r3: (empty)   block 2   nslots = 12
//                          p5 = (phantom)     W = 0
//   values = [d h a c | e i b * | f j | g *], colidx alike, * = padding (value 0, column -1)
//   perm = [2 4 0 1 3], block_width = [4 2 0]
//
// The product (Listing 2 of the paper) runs one thread per sorted row p:
//   y[perm[p]] = alpha * sum_{j < W(block of p)} values[col_start[j] + p] * x[colidx[col_start[j] + p]]
//                + beta * y[perm[p]]
// a warp of 32 threads reads 32 consecutive slots per diagonal (coalesced), x through the
// read-only cache, and stops a row at its first padding slot (column -1), so padding never
// touches x (an Inf in x cannot leak into a row that does not hold that column).
//
// Sorting window (-mat_pjds_sort_window w > 0): rows are sorted only inside consecutive segments
// of S = ceil(w / b_r) * b_r rows (the core permutation with window S; SELL-C-sigma's idea), which
// keeps the natural order's x and y locality across segments. Block widths then fall only inside
// a segment, so each segment gets its own run of col_start entries beginning at diag_base[s]:
//   slot(p, j) = col_start[diag_base[s] + j] + (p - s*S),   s = p / S
// With w = 0 (global sort, the paper's format) there is one segment, diag_base = [0].
//
// Auto (-mat_pjds_sort_window -1, the default): the first of kAutoWindows (1024, 8192, 65536
// rows) whose layout stores at most kAutoExtraPadding of the nonzeros more than the global
// sort's, else the global sort. Why: the global sort lost 1.5-2.4x on matrices whose natural order
// is local, and larger windows pad less (docs/formats/pjds.md). Its count runs in Thrust
// (pjds_window.cuh) and is checked on thrust::host against the host builder's.
//
// Invariants (host and cuda builders produce identical arrays):
//   perm[p]           original row at sorted position p (sorted_row_permutation, longest first,
//                     window S or 0); positions nrows .. nblocks*b_r-1 are phantom rows of length 0
//   block_width[b]    length of the first (= longest) row of block b; non-increasing inside a
//                     segment (a segment is a whole number of blocks)
//   diag_base[s]      sum of the widths of the first blocks of segments 0..s-1
//   col_start[e]      for e = diag_base[s] + j: first slot of diagonal j of segment s; diagonal j
//                     of segment s holds b_r * #{blocks b of s : block_width[b] > j} consecutive
//                     slots; segment s's slots follow segment s-1's
//   values/colidx     nslots = b_r * sum_b block_width[b] entries; padding: 0.0 and column -1
//   slot_of_csr[k]    slot of CSR entry k (the q-th entry of row i goes to slot(inv_perm[i], q))
//   nslots <= INT32_MAX: slots, col_start and every offset are 32-bit (slot_of_csr is int32 by the
//                     format contract, so a larger layout is refused with Error(unsupported)).
//   Padding is bounded: with a global sort at most (b_r - 1) * (longest row) slots plus the
//   phantom rows of the last block (the widths telescope); per segment with a window.
//
// Wide blocks (a modernisation that keeps the layout): a block wider than kChunkDiagonals
// would keep one thread busy for its whole row (a row of 10^6 entries is milliseconds), so such
// blocks are cut into "items" of kChunkDiagonals diagonals; each item is a group of b_r
// threads (still one thread per row, reading the same coalesced slots) writing partial sums, and
// one warp per row of a wide block adds its partials in item order. They run on the format's
// extra stream, beside the one-thread-per-row kernel over the other blocks.
//   wide_block[w]      block id of the w-th wide block (ascending)
//   wide_item_start[w] first item of wide block w (nwide + 1 entries, exclusive scan of
//                      ceil(width / kChunkDiagonals))
//   wide_item_owner[t] wide-block index w of item t
//
// Narrow columns (-mat_pjds_narrow_columns 1, the default; not in the paper): the jagged slots of
// a block whose real columns span at most kNarrowSpan (its largest minus its smallest) store
// 16-bit offsets from the block's smallest column, padding kNarrowPad (the -1 of the 32-bit
// layout): 10 instead of 12 bytes per slot on the bandwidth-bound FEM, block and banded matrices.
// The choice is per block, because one far column (a scaled copy's neighbour, a coupling row)
// must not cost every other block its saving; a block that does not fit keeps its 32-bit columns
// split into two 16-bit planes, so the layout never stores more than the 32-bit one:
//
//   block_col_base[b]  smallest real column of block b, or kSplitBlock (its span does not fit)
//   col16[slot]        fitting block: column - block_col_base[b] (kNarrowPad = padding)
//                      split block: low half of the column          (jagged slots only)
//   col_hi16[slot]     split block: high half (0xFFFF:0xFFFF = -1 = padding); unused otherwise,
//                      allocated only when some block is split
//   colidx[slot - (nslots - long_nnz)]   the long rows' columns only, 32-bit
//
//   jagged slot of block b:  base = block_col_base[b] >= 0 ?  column = base + col16   (2 bytes read)
//                                                       : column = hi16:lo16      (4 bytes read)
// The block's base is one broadcast load per thread, issued with block_width, and picks the row's
// column reader (a branch uniform over the block's rows; see block_base in pjds_device.cuh).
// Narrow layout when the fitting blocks hold at least kNarrowMinShare of the jagged slots
// (core/narrow_columns.hpp: split blocks pay two column loads for one, measured slower below it).
// Long rows (a modernisation the paper does not have; -mat_pjds_long_row L, 1 <= L <= 256): a row
// longer than L pads every other row of its block to its length (the two rows of 5M entries of the
// suite's long_2x20 made the layout 8.5x its CSR bytes, circuit's dense rows 2.3x). Such rows leave the jagged
// diagonals: they sort as empty rows (core sort_length) and their entries follow the diagonals in
// plain CSR order, in ascending row order, cut into chunks of kLongChunk entries:
//
//   slots: [ jagged diagonals (nslots - long_nnz) | long row 0 | long row 1 | ... ]
//                                                   chunk 0..2   chunk 3
//   long_row[r]         original row of long row r (ascending)
//   long_start[r]       slot of its first entry (nlong + 1 entries; long_start[nlong] = nslots)
//   long_chunk_start[r] its first chunk (nlong + 1 entries, exclusive scan of ceil(len / chunk))
//   long_chunk_owner[c] long row of chunk c
// The product runs the row kernel as usual (a long row is an empty jagged row there: it writes
// y = beta*y), then one warp per chunk (coalesced, partial sums in chunk order) and one warp per
// long row adding alpha * (sum of its partials) to y, all on the main stream: y is written by
// one kernel at a time. Long rows and wide blocks never meet (L <= kChunkDiagonals caps every
// jagged width). Auto (-1, the default): rows longer than kAutoLongRow leave the diagonals
// when that removes more padding than kAutoLongPaddingPercent of the nonzeros; otherwise the
// paper's layout (as 0 asks for). With the auto window too, rows longer than kAutoWarpLongRow
// leave when only that keeps the windows (see make_plan).
#pragma once
#include "../../core/narrow_columns.hpp"
#include "../format.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace gpuformats {

extern const FormatOps pjds_ops;

namespace pjds {

// Diagonals one thread handles in one pass. Blocks wider than this are split into items of this
// many diagonals (see above). 256 diagonals at ~8 in flight per thread are ~32 dependent memory
// round trips (~25-50 us on H100/H200): short against a product over a >= 500 MB matrix, long
// enough that the split path (extra partial sums, a second kernel) is used only on long rows.
constexpr int32_t kChunkDiagonals = 256;
// Auto sort windows, tried in order, and the padding above the global sort's, as a share of the
// nonzeros, beyond which a window is refused (keeps the device bytes near the 1.1x CSR).
constexpr int32_t kAutoWindows[]    = {1024, 8192, 65536};
constexpr double  kAutoExtraPadding = 0.10;
// Entries one warp sums per long-row chunk: 32 per lane, 4 rounds of 8 loads in flight; a row of
// 10^6 entries spreads over ~1000 warps, a row just over the threshold is one warp.
constexpr int32_t kLongChunk = 1024;
// Auto long rows: rows the jagged kernel would otherwise cut into items (longer than one chunk of
// diagonals) leave the diagonals when their padding exceeds this share of the nonzeros.
constexpr int32_t kAutoLongRow            = kChunkDiagonals;
constexpr int64_t kAutoLongPaddingPercent = 10;
// Auto, when every window pads too much even so: rows longer than one warp leave the diagonals if
// that makes a window's padding acceptable (first window of the list again). A last resort: it
// lost to a larger window without it on most graph-like matrices (docs/formats/pjds.md).
constexpr int32_t kAutoWarpLongRow = 32;

// Padded jagged slots (b_r * sum of block widths) of the rows sorted longest first inside windows
// of `window` rows (0: globally), rows longer than long_row (> 0) counted as empty, from the row
// lengths alone; the auto rules compare these.
int64_t padded_slots_host(const std::vector<int32_t> &lengths, int32_t block_rows, int32_t window, int32_t long_row);
// Whether the auto rule takes a window, given the entries it and the global sort store.
inline bool window_accepted(int64_t windowed_stored, int64_t global_stored, int64_t nnz) { return (double)(windowed_stored - global_stored) <= kAutoExtraPadding * (double)nnz; }
// The long-row threshold the auto rule picks given the jagged padding with and without the long
// rows in the diagonals (kAutoLongRow or 0 = none).
inline int32_t auto_long_row(int64_t padding_kept, int64_t padding_cut, int64_t nnz) { return (padding_kept - padding_cut) * 100 > kAutoLongPaddingPercent * nnz ? kAutoLongRow : 0; }

// Narrow columns (core/narrow_columns.hpp): the largest span of a block's columns; 0xFFFF marks
// padding; the base of a block whose columns are split into halves.
constexpr int32_t  kNarrowSpan = 65534;
constexpr uint16_t kNarrowPad  = 0xFFFF;
constexpr int32_t  kSplitBlock = -1;
inline bool        narrow_pays(int64_t enabled, int64_t narrow_slots, int64_t jagged_slots) { return enabled && narrow_share_pays(narrow_slots, jagged_slots); }

GPUFORMATS_HD bool    block_fits(int32_t span) { return span <= kNarrowSpan; } // span -1: no entries
// The column of a jagged slot of a fitting block (offset lo; kNarrowPad = padding); a split
// block's column is narrow_column_split(lo, hi), padding 0xFFFF:0xFFFF = -1.
GPUFORMATS_HD int32_t column_fit(uint16_t lo, int32_t base) { return lo == kNarrowPad ? -1 : base + lo; }

// Parameter order of pjds_ops.params.
enum Param { param_block_rows = 0, param_sort_window = 1, param_long_row = 2, param_narrow = 3, nparams = 4 };

// Geometry fixed by the parameters and the row count (and, for the auto window, the row lengths).
struct Plan {
  int32_t block_rows   = 32; // b_r
  int32_t sort_window  = 0;  // as resolved (0 = global sort)
  bool    auto_window  = false; // chosen by the auto rule (-mat_pjds_sort_window -1)
  int32_t segment_rows = 0;  // S: rows per sorted segment (multiple of b_r), covers all rows when global
  int32_t perm_window  = 0;  // window passed to the core permutation (0 = global, else S)
  int32_t nblocks      = 0;  // ceil(nrows / b_r)
  int32_t nsegments    = 0;  // ceil(nrows / S)
  int32_t long_row     = 0;  // rows longer than this are long rows (0: none, the paper's layout)
  bool    auto_long    = false; // chosen by the auto rule (-mat_pjds_long_row -1)
};
void check_params(const int64_t *params); // throws Error(bad_input) on bad params
Plan plan_geometry(int32_t nrows, int32_t block_rows, int32_t sort_window, bool auto_window, int32_t long_row, bool auto_long);

// The plan of a block, both builders: checks the parameters and resolves the auto window and the
// auto long rows with the builder's counts: padded_slots(block_rows, window, long_row) (its count
// of padded_slots_host) and long_nnz(long_row) (entries of the rows longer than long_row).
template <class CountSlots, class CountLong>
Plan make_plan(int32_t nrows, int64_t nnz, const int64_t *params, CountSlots &&padded_slots, CountLong &&long_nnz)
{
  check_params(params);
  const int32_t br = (int32_t)params[param_block_rows];
  int64_t       w  = params[param_sort_window], L = params[param_long_row];
  const bool    aw = w == -1, al = L == -1;
  // Each count is a pass over all rows (a slot count sorts them): once per argument.
  std::map<std::pair<int32_t, int32_t>, int64_t> seen_slots;
  std::map<int32_t, int64_t>                     seen_long;
  auto slots = [&](int32_t window, int32_t lr) {
    auto it = seen_slots.find({window, lr});
    return it != seen_slots.end() ? it->second : (seen_slots[{window, lr}] = padded_slots(br, window, lr));
  };
  auto long_entries = [&](int32_t lr) {
    auto it = seen_long.find(lr);
    return it != seen_long.end() ? it->second : (seen_long[lr] = long_nnz(lr));
  };
  auto long_at = [&](int32_t window) -> int32_t { // the threshold at one window
    if (!al) return (int32_t)L;
    const int64_t cut_nnz = long_entries(kAutoLongRow);
    if (cut_nnz == 0) return 0; // no row that long: nothing to decide
    return auto_long_row(slots(window, 0) - nnz, slots(window, kAutoLongRow) - (nnz - cut_nnz), nnz);
  };
  if (aw) { // compare the entries each layout stores: jagged slots + long-row entries
    const int32_t lg     = long_at(0);
    const int64_t global = slots(0, lg) + long_entries(lg);
    auto          take   = [&](int32_t window, int32_t lr) { return window_accepted(slots(window, lr) + long_entries(lr), global, nnz) ? (w = window, L = lr, true) : false; };
    bool          found  = false;
    for (int32_t W : kAutoWindows)
      if ((found = take(W, long_at(W)))) break;
    if (!found && al)
      for (int32_t W : kAutoWindows)
        if ((found = take(W, kAutoWarpLongRow))) break;
    if (!found) w = 0, L = lg;
  } else L = long_at((int32_t)w);
  return plan_geometry(nrows, br, (int32_t)w, aw, (int32_t)L, al);
}

// Scalars of a built layout (what describe() and bytes() need; the same from both builders).
struct Info {
  Plan     plan;
  int64_t  ndiagonals     = 0; // col_start entries
  int32_t  max_row_length = 0;
  int32_t  empty_rows     = 0;
  int32_t  nwide_blocks   = 0;
  int32_t  nwide_items    = 0;
  int32_t  nlong_rows     = 0; // rows longer than plan.long_row (CSR part)
  int64_t  long_nnz       = 0; // their entries: the last long_nnz slots
  int32_t  nlong_chunks   = 0;
  bool     narrow         = false; // 16-bit jagged columns (see the picture)
  int32_t  widest_span    = -1;    // largest column span of a block (-1: no jagged entries)
  int64_t  narrow_slots   = 0;     // jagged slots of the blocks that fit 16-bit offsets
  int64_t  split_slots    = 0;     // narrow layout: jagged slots of the other blocks (two 16-bit halves)
};

// Bytes the product touches: values + colidx + perm + block_width + diag_base + col_start + the
// wide-block lists, the long-row lists and their partial sums.
std::size_t layout_bytes(const Info &info, int32_t nrows, int64_t nslots);
void        describe_layout(const Info &info, const FormatBlock &blk, std::vector<LayoutStat> &out);

// Refuses layouts whose slots do not fit the int32 slot map (before allocating them).
void check_slots(int64_t nslots, int64_t nnz);

// Device builder and kernels (pjds_cuda.cu).
std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up);
std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream); // build_cuda after its upload

} // namespace pjds
} // namespace gpuformats
