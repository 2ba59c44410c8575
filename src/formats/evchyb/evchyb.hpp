// EVC-HYB (Guo, Gropp, Olson: "A Hybrid Format for Better Performance of SpMV on a GPU", section 2):
// rows sorted by length (shortest first), short rows in per-length ELL groups of S-row slices, long
// rows in warp-aligned vectorized CSR, adaptive threads per row, ONE kernel launch.
//
//  permuted position (perm[pos] = original row; core sorted_row_permutation, RowOrder::shortest_first)
//  0 ........ nempty ................................. csr_first ........................ nrows
//  | empty rows | ELL part: groups of equal width      | vCSR part: rows padded to 32      |
//  | (no slots) | g0: w=1 | g1: w=2 | ... | gk: w<=M   | leftover<S | TPR 32 | 64 |..| split |
//
//  ELL group of width w (M = ell_max_row, S = slice_rows): every group holds a multiple of S rows.
//  The last (t mod S) rows of length i (t = rows of length i plus the rows carried into it) are
//  carried into the next present length (paper: "merged into the sub part with length i+1"); the
//  rows carried out of the widest ELL length become the first rows of the vCSR part.
//
//  One slice = S consecutive ELL rows x w entries, at slots [slice_ptr[s], slice_ptr[s] + S*w).
//  Column-major, but columns are taken two at a time and interleaved per row, so that a thread
//  reads two entries of its row with one 16-byte load (double2 / int2):
//
//     S = 4, w = 5           pair 0 (entries 0,1)      pair 1 (entries 2,3)      single column (4)
//     row r entries a..e:  a0 b0 a1 b1 a2 b2 a3 b3  | c0 d0 c1 d1 c2 d2 c3 d3 | e0 e1 e2 e3
//
//     slot(r, j) = base + (j/2)*2S + 2r + (j%2)   for j < 2*floor(w/2)
//                = base + (w-1)*S + r             for the last entry of an odd width
//     (S = 1 degenerates to base + j: plain per-row storage, read with scalar loads.)
//
//  vCSR part: starts at slot csr_base = ell_slots rounded up to 32 (every row 256-byte aligned);
//  row c holds its entries at [csr_row_start[c], csr_row_start[c] + roundup(len, 32)).
//
//  Sort window (-mat_evchyb_sort_window; not in the paper): the paper sorts and groups ALL rows by
//  length, so each length group sweeps the whole of x and scatters y over the whole matrix: on a
//  matrix whose natural order is local (FEM, circuits, block structures) every group re-reads x
//  from DRAM. With a window W > 0 the empty and ELL rows are re-sorted, stably, by window of their
//  original row (rows r with r / W equal), keeping the length order inside each window:
//
//     | ELL rows, empty ones included: window 0 by length | window 1 by length | ... | vCSR rows (global) |
//
//  Empty rows stay in their windows (perm holds ~row for them; a lane writes beta*y and discards
//  its sum) because a 32-byte sector of y then gets all its rows written close in time (a separate
//  empty band wrote shared sectors twice: docs/formats/evchyb.md).
//
//  There are no length groups then: slices are S consecutive ELL rows, each padded to its longest
//  row (slice widths vary; the kernel reads each slice's width from slice_ptr as it always does),
//  the last slice may be partial, and no row is carried. Long rows (> M) stay globally sorted in
//  the vCSR part: few, each read by a whole team. Odd windows are sorted longest first
//  (WindowOrder::alternate), so the rows that meet in a slice straddling two windows have similar
//  lengths. Auto (-1, default): the first of kAutoWindows whose padding exceeds the global groups'
//  by at most kAutoExtraPadding of the ELL nonzeros, else the global groups (graphs whose windows
//  mix very different lengths); 0: the paper's layout.
//
//  Padding: value 0.0, column = the row's last real column (same x cache line, no extra traffic;
//  column 0 for an empty row).
//  The gap [ell_slots, csr_base) holds value 0.0, column 0 and is never read.
//
//  Narrow columns (-mat_evchyb_narrow_columns 1, the default; not in the paper): the ELL part is
//  bound by its 12 bytes per slot (FEM, block and banded matrices run at copy bandwidth), and on
//  those matrices the columns of a 32-row slice lie close together. A slice whose columns span at
//  most kNarrowSpan (its largest real column minus its smallest) stores them as 16-bit offsets from
//  its smallest column: 10 bytes per ELL slot. The choice is per slice: one far column (a scaled
//  copy's neighbour, a coupling row) must not cost every other slice its saving, so a slice that
//  does not fit keeps its 32-bit columns split into two 16-bit planes (never more bytes than the
//  32-bit layout):
//
//     slice_col_base[s] = smallest column of slice s, or kSplitSlice     (nslices entries)
//     col16[slot]       = column - slice_col_base[s]  | low half (split)  (ell_slots entries; 0 for an empty row)
//     col_hi16[slot]    = high half (split slices only; allocated only when a slice is split)
//     colidx[slot - csr_base]                                             (vCSR part, 32-bit as before)
//
//  The vCSR part (rows longer than M, read by teams of 32..block lanes) has its own switch: when
//  every vCSR row spans at most kNarrowSpan columns (high-order FEM rows, banded or block rows,
//  random rows over a narrow column range), its columns are 16-bit offsets from each row's
//  smallest column too, and colidx keeps only what stays 32-bit:
//
//     csr_col_base[c]            = smallest column of vCSR row c         (csr_rows entries)
//     csr_col16[slot - csr_base] = column - csr_col_base[c]              (the vCSR slots)
//
//  One row wider than that (a dense coupling row) keeps the whole part 32-bit: a team reads one
//  row, so per-row halves would buy little there.
//
//  The slice's base is one broadcast load per lane, issued with slice_ptr, and picks the row's
//  column reader (a branch uniform over the slice; see ell_lane). Narrow layout when the fitting
//  slices hold at least kNarrowMinShare of the ELL slots (split slices pay two column loads for
//  one: core/narrow_columns.hpp); the kernel picks the ELL row function once per band,
//  so a layout without narrow slices (random graphs: columns all over) runs the plain 32-bit path.
//
//  Product plan (bands; the paper's rmark/gbmark): one launch, blocks split into consecutive
//  bands of one kind each:
//     empty      rows [first,end) of perm: y = beta*y (0 if beta == 0); skipped when beta == 1
//     ell        ELL rows [first,end): one row per lane, a warp takes `param` (rows per thread)
//                consecutive runs of 32 rows; rows per thread by width band as in the paper
//     csr_team   vCSR rows [first,end): a team of `param` threads (32..block) per row
//     csr_split  split-table entries [first,end): one block per chunk of a very long row, the last
//                chunk's block adds the partial sums in a fixed order (deterministic)
//
// Files: evchyb_host.cpp (plan, host builder = the specification, host reference product, ops),
// evchyb_cuda.cu (device builder, the kernel), evchyb_rows.cuh (per-thread row arithmetic and
// block -> work mapping, compiled for the device and the host so tests can emulate the kernel).
//
// Invariants: global layout: groups widths strictly increase; sum of group rows = ell_rows
// (multiple of S); windowed layout: no groups, slice widths from slice_width(); both:
// nslots <= INT32_MAX; host and cuda builders produce identical perm/slice_ptr/csr_row_start/
// colidx/values/slot_of_csr and the same plan (they share plan_* below and slot_of()).
#pragma once
#include "../../core/hd.hpp"
#include "../../core/narrow_columns.hpp"
#include "../format.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace gpuformats {

extern const FormatOps evchyb_ops;

namespace evchyb {

// Rows of the vCSR part are padded to a multiple of this (paper: one warp of lanes).
constexpr int32_t kCsrAlign = 32;
// vCSR threads per row: the largest power of two in [32, block_threads] that still leaves each
// thread this many entries (8 16-byte loads): enough independent loads in flight per thread.
constexpr int32_t kCsrEntriesPerThread = 16;
// Rows longer than block_threads * this are cut into chunks of that size, one block each
// (not in the paper: a 10^6-entry row on one block would leave the rest of the GPU idle).
constexpr int32_t kCsrSplitEntriesPerThread = 32;
// ELL rows per thread: the paper's bands [LRmax/2, LRmax] -> 1, [LRmax/4, LRmax/2] -> 2 ..., with
// LRmax capped at this many entries and at most kEllMaxRowsPerThread rows, so a matrix whose
// widest ELL rows are 128 does not give its 1-entry rows 64 rows per thread (too few warps to
// fill an H100's 132 SMs).
constexpr int32_t kEllLaneWork         = 16;
constexpr int32_t kEllMaxRowsPerThread = 8;
// Empty rows handled per thread (each is one 4-byte perm load and one 8-byte store).
constexpr int32_t kEmptyRowsPerThread = 4;
// Auto sort window: windows tried in order (1024: pJDS's measured best, the SELL-C-sigma idea;
// larger windows pad less, as a window's longest rows (its length tail) share fewer slices, at
// some locality: e.g. replicated power-grid rows pad 11% at 1024, 1.6% at 8192; a replicated
// collaboration graph 87%, 13%, 1.8% at 1024, 8192, 65536),
// and the extra padding over the global layout, as a fraction of the ELL nonzeros, above which a
// window is refused (it keeps the device bytes near the 1.15x CSR).
constexpr int32_t kAutoWindows[]    = {1024, 8192, 65536};
constexpr double  kAutoExtraPadding = 0.10;
// Bands fit the kernel's parameter block: 1 empty + <= 4 ELL (rows per thread 8,4,2,1) +
// <= 6 team sizes (32..1024) + 1 split = 12.
constexpr int32_t kMaxBands = 16;
// Narrow columns (core/narrow_columns.hpp): the largest span of a slice's columns a 16-bit offset
// holds, and the base of a slice whose columns are split into halves.
constexpr int32_t kNarrowSpan = 65535;
constexpr int32_t kSplitSlice = -1;

// Parameter order of evchyb_ops.params (-mat_evchyb_<name>).
enum Param { param_ell_max_row = 0, param_slice_rows = 1, param_block_threads = 2, param_sort_window = 3, param_narrow_columns = 4, nparams = 5 };

struct Params {
  int32_t ell_max_row   = 128; // M: rows of length <= M go to ELL
  int32_t slice_rows    = 32;  // S: power of two
  int32_t log2_slice    = 5;
  int32_t block_threads = 256; // power of two in [64, 1024]
  int32_t sort_window   = -1;  // -1 auto, 0 global (paper), > 0 rows per window
  int32_t narrow_columns = 1;  // 1: 16-bit ELL columns when every slice fits; 0: always 32-bit
};
// Reads and checks the params array in the order of evchyb_ops.params; throws Error(bad_input).
Params read_params(const int64_t *params);

struct Group {       // one ELL row length
  int32_t first_row; // ELL row index (ELL row e is perm position ell_first + e)
  int32_t nrows;     // multiple of S
  int32_t width;     // the length i of the group (carried rows are shorter)
  int32_t first_slice;
  int64_t first_slot;
};

enum BandKind : int32_t { band_empty = 0, band_ell = 1, band_csr_team = 2, band_csr_split = 3 };

struct Band {
  int32_t kind;
  int32_t first_block; // blocks [first_block, next band's first_block)
  int32_t first, end;  // perm positions / ELL rows / vCSR rows / split-table entries
  int32_t param;       // ell: rows per thread; csr_team: threads per row; csr_split: block_threads; empty: 0
};

// One block of a split row: vCSR row, chunk index, chunks of the row, split entry of chunk 0.
struct alignas(16) SplitBlock {
  int32_t row, chunk, nchunks, first;
};

// The whole layout and plan as scalars + small tables (arrays live in the blocks).
struct Shape {
  int32_t nrows = 0, ncols = 0;
  int64_t nnz = 0;
  Params  prm;

  int32_t window      = 0;     // rows per sort window of the ELL rows (0: the paper's global groups)
  bool    auto_window = false; // chosen by the auto rule; then the ELL slot counts it compared:
  int64_t auto_global_slots = 0;
  std::vector<std::pair<int32_t, int64_t>> auto_tried; // (window, ELL slots) in the order tried

  int32_t nempty    = 0; // perm positions [0, nempty): empty rows of the global layout (the empty band)
  int32_t ell_empty = 0; // empty rows among the ELL rows (windowed layout; perm holds ~row for them)
  int32_t ell_first = 0; // == nempty
  int32_t ell_rows  = 0; // multiple of S
  int32_t csr_first = 0; // == nempty + ell_rows
  int32_t csr_rows  = 0;
  int32_t nslices   = 0;
  int32_t ell_width = 0; // LRmax: widest ELL group / row (0 if none)
  int64_t ell_slots = 0, csr_base = 0, csr_slots = 0, nslots = 0;
  int64_t ell_nnz = 0, csr_nnz = 0; // real entries per part

  std::vector<Group> groups;

  int32_t nsplit_rows = 0, nsplit_blocks = 0;
  std::vector<Band> bands;
  int32_t nblocks = 0, empty_blocks = 0;

  bool    narrow      = false; // ELL columns as 16-bit offsets (see the picture)
  int32_t widest_span = 0;     // largest column span of an ELL slice
  int64_t fitting_slots = 0;   // ELL slots of the slices whose span fits 16-bit offsets
  int64_t split_slots   = 0;   // narrow: ELL slots of the other slices (two 16-bit halves)
  bool    csr_narrow      = false; // vCSR columns as 16-bit offsets from each row's smallest column
  int32_t csr_widest_span = -1;    // largest column span of a vCSR row (-1: no vCSR rows)

  int32_t split_chunk() const { return prm.block_threads * kCsrSplitEntriesPerThread; }
  // What colidx holds (the 32-bit columns): [colidx_first(), colidx_end()) of the slots.
  int64_t colidx_first() const { return narrow ? csr_base : 0; }
  int64_t colidx_end() const { return csr_narrow ? csr_base : nslots; }
};

// Planning, shared verbatim by both builders. Input is the ascending sorted row lengths, seen
// only through lower_bound counts (the cuda builder gets them with one thrust::lower_bound):
//   1. thresholds = plan_thresholds(prm)
//   2. lb[t] = number of rows whose length < thresholds[t]
//   3. plan_groups(shape, lb)            -> empty rows, ELL groups, csr_first (the global layout)
//   3b. for each W of candidate_windows(prm) (none when sort_window == 0): the builder re-sorts
//      the ELL rows of windowed_ell_range(lb) by window W (core window_sort_range, alternate),
//      sums S * (slice's longest row) over their slices (slice_width below), and
//      plan_window(shape, lb, that sum, W) switches to the windowed layout when the parameter
//      asks for W or the auto rule accepts it (it returns whether it did; if not, the builder
//      restores the global order of that range and tries the next W)
//   4. csr_slots = sum over vCSR rows of roundup(len, 32); split_blocks = sum over split rows of
//      ceil(roundup(len, 32) / split_chunk)
//   5. plan_finish(shape, lb, csr_slots, split_blocks) -> slots, bands (throws unsupported if the
//      slots exceed INT32_MAX)
void                 init_shape(Shape &sh, const CsrView &A, const int64_t *params); // params (checked) and A's sizes
std::vector<int32_t> plan_thresholds(const Params &prm);
void                 plan_groups(Shape &sh, const std::vector<int64_t> &lb);
struct PositionRange {
  int32_t first, end;
};
PositionRange        windowed_ell_range(const Shape &sh, const std::vector<int64_t> &lb);
std::vector<int32_t> candidate_windows(const Params &prm); // {} (global), {W} or kAutoWindows
bool                 plan_window(Shape &sh, const std::vector<int64_t> &lb, int64_t windowed_ell_slots, int32_t window);
void                 plan_finish(Shape &sh, const std::vector<int64_t> &lb, int64_t csr_slots, int64_t split_blocks);
// Index into thresholds/lb of the length threshold of threads-per-row `tpr` (64..block) and of
// the split threshold.
int team_threshold_index(const Params &prm, int32_t tpr);
int split_threshold_index(const Params &prm);

// Per-row helpers used by both builders (and the device scatter).
GPUFORMATS_HD int64_t csr_padded(int64_t len) { return (len + kCsrAlign - 1) / kCsrAlign * kCsrAlign; }
GPUFORMATS_HD int64_t split_chunks(int64_t len, int32_t chunk) { return (csr_padded(len) + chunk - 1) / chunk; }
GPUFORMATS_HD bool    is_split_row(int64_t len, int32_t chunk) { return csr_padded(len) > chunk; }

// Width of ELL slice s: its longest row. In the global layout that is the group's width (a group's
// carried rows come first and are fewer than S, so every slice holds a row of the group's length);
// in the windowed layout the rows of a slice may come from two windows. len: row lengths by permuted
// position; ell_rows: the last slice may be partial.
GPUFORMATS_HD int32_t slice_width(const int32_t *len, int32_t ell_first, int32_t ell_rows, int32_t S, int32_t s)
{
  int32_t       w   = 0;
  const int32_t end = (s + 1) * S < ell_rows ? (s + 1) * S : ell_rows;
  for (int32_t e = s * S; e < end; ++e) w = len[ell_first + e] > w ? len[ell_first + e] : w;
  return w;
}

// Slot of entry j of ELL row r (0..S-1) of a slice at `base` of width w (see the picture).
GPUFORMATS_HD int32_t ell_slot(int32_t base, int32_t w, int32_t S, int32_t r, int32_t j)
{
  return j < (w & ~1) ? base + (j >> 1) * 2 * S + 2 * r + (j & 1) : base + j * S + r;
}

// The layout seen through raw pointers (host or device memory): slot of entry j of the row at
// permuted position pos, and the padded length of that row.
struct LayoutView {
  const int32_t *slice_ptr     = nullptr; // nslices + 1
  const int32_t *csr_row_start = nullptr; // csr_rows + 1
  int32_t        ell_first = 0, csr_first = 0, log2_slice = 0;

  GPUFORMATS_HD int32_t slot_of(int32_t pos, int32_t j) const
  {
    if (pos < csr_first) {
      const int32_t e = pos - ell_first, s = e >> log2_slice, r = e & ((1 << log2_slice) - 1);
      const int32_t base = slice_ptr[s], w = (slice_ptr[s + 1] - base) >> log2_slice;
      return ell_slot(base, w, 1 << log2_slice, r, j);
    }
    return csr_row_start[pos - csr_first] + j;
  }
  GPUFORMATS_HD int32_t padded_length(int32_t pos) const
  {
    if (pos < csr_first) {
      const int32_t s = (pos - ell_first) >> log2_slice;
      return (slice_ptr[s + 1] - slice_ptr[s]) >> log2_slice;
    }
    const int32_t c = pos - csr_first;
    return csr_row_start[c + 1] - csr_row_start[c];
  }
};

// Narrow columns, both builders: span = the largest (largest - smallest real column) over the
// ELL slices (-1 when no slice holds an entry), fitting = the ELL slots of the slices that fit;
// sets sh.narrow, sh.widest_span, sh.fitting_slots, sh.split_slots.
void plan_columns(Shape &sh, int32_t span, int64_t fitting);
// The vCSR part's switch, both builders: span = the largest column span of a vCSR row (-1: none).
void plan_csr_columns(Shape &sh, int32_t span);
// Smallest and largest real column of slice s from those of its rows (row_lo/row_hi by ELL row
// index; an empty row has lo = INT32_MAX, hi = -1, and so has a slice of empty rows).
struct ColumnRange {
  int32_t lo, hi;
};
GPUFORMATS_HD ColumnRange slice_columns(const int32_t *row_lo, const int32_t *row_hi, int32_t ell_rows, int32_t S, int32_t s)
{
  ColumnRange   c{INT32_MAX, -1};
  const int32_t end = (s + 1) * S < ell_rows ? (s + 1) * S : ell_rows;
  for (int32_t e = s * S; e < end; ++e) {
    c.lo = row_lo[e] < c.lo ? row_lo[e] : c.lo;
    c.hi = row_hi[e] > c.hi ? row_hi[e] : c.hi;
  }
  return c;
}
GPUFORMATS_HD int32_t slice_span(ColumnRange c) { return c.hi >= c.lo ? c.hi - c.lo : -1; }
// slice_col_base of a slice with columns c: its smallest column, 0 without entries, kSplitSlice
// when the span does not fit.
GPUFORMATS_HD int32_t slice_base(ColumnRange c) { return c.hi < c.lo ? 0 : c.hi - c.lo <= kNarrowSpan ? c.lo : kSplitSlice; }

// Bytes the product reads: values, column indices, perm, slice_ptr, csr_row_start, split table.
std::size_t shape_bytes(const Shape &sh);
// -mat_view ::ascii_info lines.
void describe_shape(const Shape &sh, std::vector<LayoutStat> &out);

// The host block: arrays in host memory (tests read them to compare with the cuda build).
class HostBlock final : public FormatBlock {
public:
  Shape                   sh;
  std::vector<int32_t>    perm, slice_ptr, csr_row_start, colidx, slots;
  std::vector<uint16_t>   col16, col_hi16; // narrow: ELL column offsets / low halves, high halves of split slices
  std::vector<int32_t>    slice_col_base;  // narrow: smallest column per slice, or kSplitSlice
  std::vector<uint16_t>   csr_col16;       // csr_narrow: vCSR column offsets
  std::vector<int32_t>    csr_col_base;    // csr_narrow: smallest column per vCSR row
  std::vector<double>     vals;
  std::vector<SplitBlock> split;

  LayoutView  view() const;
  int32_t     column(int32_t pos, int32_t slot) const; // the column stored at a slot of the row at pos
  void        spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override;
  std::size_t bytes() const override { return shape_bytes(sh); }
  void        describe(std::vector<LayoutStat> &out) const override;
};

// Device builder (evchyb_cuda.cu).
std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up);
std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream); // build_cuda after its upload

} // namespace evchyb
} // namespace gpuformats
