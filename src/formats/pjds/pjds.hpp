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
// Auto (-mat_pjds_sort_window -1): windows of kPjdsAutoWindow rows, unless their block padding
// exceeds kPjdsAutoMaxPaddingRatio times that of the global sort (a few huge rows scattered over
// many windows, e.g. R-MAT), then the global sort. Why, measured on an H100 with fixed windows
// (bench/results/2026-11-23-h100/): the global sort scatters the y writes and x reads of matrices
// whose natural order is local (scaled real matrices, FEM, circuits) and lost 1.5-2.4x there;
// windows of 1024 recovered it, while on R-MAT they multiplied the bytes by 6.8 and halved the
// speed. Auto is the default; it only chooses between those two measured layouts. Its count
// runs in Thrust (pjds_window.cuh) and is checked on thrust::host against the host builder's.
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
// Wide blocks (a modernisation that keeps the layout): a block wider than kPjdsChunkDiagonals
// would keep one thread busy for its whole row (a row of 10^6 entries is milliseconds), so such
// blocks are cut into "items" of kPjdsChunkDiagonals diagonals; each item is a group of b_r
// threads (still one thread per row, reading the same coalesced slots) writing partial sums, and
// one warp per row of a wide block adds its partials in item order. They run on the format's
// extra stream, beside the one-thread-per-row kernel over the other blocks.
//   wide_block[w]      block id of the w-th wide block (ascending)
//   wide_item_start[w] first item of wide block w (nwide + 1 entries, exclusive scan of
//                      ceil(width / kPjdsChunkDiagonals))
//   wide_item_owner[t] wide-block index w of item t
#pragma once
#include "../format.hpp"

#include <cstdint>
#include <vector>

namespace gpuformats {

// Diagonals one thread handles in one pass. Blocks wider than this are split into items of this
// many diagonals (see above). 256 diagonals at ~8 in flight per thread are ~32 dependent memory
// round trips (~25-50 us on H100/H200): short against a product over a >= 500 MB matrix, long
// enough that the split path (extra partial sums, a second kernel) is used only on long rows.
constexpr int32_t kPjdsChunkDiagonals = 256;
constexpr int32_t kPjdsAutoWindow          = 1024; // rows per sorted window in the auto mode
constexpr int64_t kPjdsAutoMaxPaddingRatio = 2;    // auto: windowed slots <= this x globally sorted slots

// Padded slots (b_r * sum of block widths) of the rows sorted longest first inside windows of
// `window` rows (0: globally), from the row lengths alone; the auto rule compares two of these.
int64_t pjds_padded_slots_host(const std::vector<int32_t> &lengths, int32_t block_rows, int32_t window);
// The window the auto rule picks given both counts (kPjdsAutoWindow or 0).
inline int32_t pjds_auto_choice(int64_t windowed_slots, int64_t global_slots) { return windowed_slots <= kPjdsAutoMaxPaddingRatio * global_slots ? kPjdsAutoWindow : 0; }

// Parameter order of pjds_ops.params.
enum PjdsParam { pjds_param_block_rows = 0, pjds_param_sort_window = 1, pjds_nparams = 2 };

// Geometry fixed by the parameters and the row count (and, for the auto window, the row lengths).
struct PjdsPlan {
  int32_t block_rows   = 32; // b_r
  int32_t sort_window  = 0;  // as resolved (0 = global sort)
  bool    auto_window  = false; // chosen by the auto rule (-mat_pjds_sort_window -1)
  int32_t segment_rows = 0;  // S: rows per sorted segment (multiple of b_r), covers all rows when global
  int32_t perm_window  = 0;  // window passed to the core permutation (0 = global, else S)
  int32_t nblocks      = 0;  // ceil(nrows / b_r)
  int32_t nsegments    = 0;  // ceil(nrows / S)
};
void     pjds_check_params(const int64_t *params); // throws Error(bad_input) on bad params
PjdsPlan pjds_plan(int32_t nrows, int32_t block_rows, int32_t sort_window, bool auto_window);

// The plan of a block, both builders: checks the parameters and resolves the auto window with
// padded_slots(block_rows, window), the builder's count of pjds_padded_slots_host.
template <class CountSlots>
PjdsPlan pjds_make_plan(int32_t nrows, const int64_t *params, CountSlots &&padded_slots)
{
  pjds_check_params(params);
  const int32_t br = (int32_t)params[pjds_param_block_rows];
  int64_t       w  = params[pjds_param_sort_window];
  const bool    aw = w == -1;
  if (aw) w = pjds_auto_choice(padded_slots(br, kPjdsAutoWindow), padded_slots(br, 0));
  return pjds_plan(nrows, br, (int32_t)w, aw);
}

// Scalars of a built layout (what describe() and bytes() need; the same from both builders).
struct PjdsInfo {
  PjdsPlan plan;
  int64_t  ndiagonals     = 0; // col_start entries
  int32_t  max_row_length = 0;
  int32_t  empty_rows     = 0;
  int32_t  nwide_blocks   = 0;
  int32_t  nwide_items    = 0;
};

// Bytes the product touches: values + colidx + perm + block_width + diag_base + col_start + the
// wide-block lists and their partial sums.
std::size_t pjds_bytes(const PjdsInfo &info, int32_t nrows, int64_t nslots);
void        pjds_describe(const PjdsInfo &info, const FormatBlock &blk, std::vector<LayoutStat> &out);

// Refuses layouts whose slots do not fit the int32 slot map (before allocating them).
void pjds_check_slots(int64_t nslots, int64_t nnz);

// Device builder and kernels (pjds_cuda.cu).
std::unique_ptr<FormatBlock> pjds_build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream);

extern const FormatOps pjds_ops;

} // namespace gpuformats
