// pJDS host builder (the specification of the layout in pjds.hpp), host reference product (the
// test oracle of the CUDA kernels), and pjds_ops.
#include "pjds.hpp"

#include "../../core/row_permutation.hpp"
#include "../../core/text.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace gpuformats {
namespace pjds {

namespace {

// The host block: plain vectors, plain loops.
class PjdsHostBlock : public FormatBlock {
public:
  Info                 info;
  std::vector<int32_t> perm, block_width, diag_base, col_start, colidx, slots;
  std::vector<int32_t> wide_block, wide_item_start, wide_item_owner;
  std::vector<int32_t> long_row, long_start; // long rows: original row, slot of its first entry
  std::vector<uint16_t> col16, col_hi16;      // narrow: jagged column offsets / low halves, high halves
  std::vector<int32_t>  block_col_base;       // narrow: smallest column per block, or kSplitBlock
  std::vector<double>  vals;

  // Column at a jagged slot of block b (-1: padding), and at a long-row slot.
  int32_t jagged_column(int32_t b, int32_t slot) const
  {
    if (!info.narrow) return colidx[slot];
    return block_col_base[b] >= 0 ? column_fit(col16[slot], block_col_base[b]) : narrow_column_split(col16[slot], col_hi16[slot]);
  }
  int32_t long_column(int32_t slot) const { return colidx[info.narrow ? slot - (nslots - info.long_nnz) : slot]; }

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override
  {
    const int32_t br = info.plan.block_rows, S = info.plan.segment_rows;
    for (int32_t p = 0; p < nrows; ++p) {
      const int32_t  s  = p / S, lp = p - s * S, W = block_width[p / br];
      const int32_t *cs = col_start.data() + diag_base[s];
      double         sum = 0;
      for (int32_t j = 0; j < W; ++j) {
        const int32_t slot = cs[j] + lp, c = jagged_column(p / br, slot);
        if (c < 0) break; // padding: the row ended
        sum += vals[slot] * x[c];
      }
      const int32_t row = perm[p];
      y[row]            = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[row];
    }
    for (size_t r = 0; r < long_row.size(); ++r) { // empty rows above: y = beta*y; add alpha*A_row*x
      double sum = 0;
      for (int32_t slot = long_start[r]; slot < long_start[r + 1]; ++slot) sum += vals[slot] * x[long_column(slot)];
      y[long_row[r]] += alpha * sum;
    }
  }
  std::size_t bytes() const override { return layout_bytes(info, nrows, nslots); }
  void        describe(std::vector<LayoutStat> &out) const override { describe_layout(info, *this, out); }
};

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params)
{
  auto  blk = std::make_unique<PjdsHostBlock>();
  Info &in  = blk->info;
  std::vector<int32_t> len(A.nrows);
  for (int32_t i = 0; i < A.nrows; ++i) len[i] = A.row_length(i);
  in.plan = make_plan(
    A.nrows, A.nnz, params, [&](int32_t br, int32_t window, int32_t long_row) { return padded_slots_host(len, br, window, long_row); },
    [&](int32_t long_row) {
      int64_t n = 0;
      for (int32_t l : len) n += l - sort_length(l, long_row);
      return n;
    });
  const Plan   &pl = in.plan;
  const int32_t br = pl.block_rows, S = pl.segment_rows, nb = pl.nblocks, nseg = pl.nsegments, L = pl.long_row;

  blk->perm = sorted_row_permutation(A, RowOrder::longest_first, pl.perm_window, L);
  for (int32_t i = 0; i < A.nrows; ++i) {
    in.max_row_length = std::max(in.max_row_length, len[i]);
    in.empty_rows += len[i] == 0;
  }

  // Block widths: the first row of a block is its longest (rows sorted inside whole-block segments;
  // long rows count as empty).
  blk->block_width.assign(nb, 0);
  int64_t jagged_slots = 0;
  for (int32_t b = 0; b < nb; ++b) {
    const int64_t p        = (int64_t)b * br;
    blk->block_width[b]    = p < A.nrows ? sort_length(len[blk->perm[p]], L) : 0;
    jagged_slots          += (int64_t)br * blk->block_width[b];
  }
  // Long rows, ascending, after the diagonals.
  blk->long_start.push_back((int32_t)std::min<int64_t>(jagged_slots, INT32_MAX));
  for (int32_t i = 0; i < A.nrows; ++i)
    if (sort_length(len[i], L) != len[i]) {
      blk->long_row.push_back(i);
      in.long_nnz += len[i];
      in.nlong_chunks += (len[i] + kLongChunk - 1) / kLongChunk;
      blk->long_start.push_back((int32_t)std::min<int64_t>(jagged_slots + in.long_nnz, INT32_MAX));
    }
  in.nlong_rows        = (int32_t)blk->long_row.size();
  const int64_t nslots = jagged_slots + in.long_nnz;
  check_slots(nslots, A.nnz);

  // Jagged diagonals, segment by segment; diagonal j of segment s spans the blocks wider than j.
  const int32_t blocks_per_segment = S / br;
  blk->diag_base.assign(nseg, 0);
  int64_t ndiag = 0;
  for (int32_t s = 0; s < nseg; ++s) {
    blk->diag_base[s] = (int32_t)ndiag;
    ndiag += blk->block_width[(int64_t)s * blocks_per_segment];
  }
  in.ndiagonals = ndiag;
  blk->col_start.assign(ndiag, 0);
  int64_t next = 0;
  for (int32_t s = 0; s < nseg; ++s) {
    const int32_t b0 = s * blocks_per_segment, b1 = std::min(nb, b0 + blocks_per_segment);
    const int32_t D  = blk->block_width[b0];
    int32_t       reach = b1 - b0; // blocks of s wider than j (widths non-increasing)
    for (int32_t j = 0; j < D; ++j) {
      while (reach > 0 && blk->block_width[b0 + reach - 1] <= j) --reach;
      blk->col_start[blk->diag_base[s] + j] = (int32_t)next;
      next += (int64_t)br * reach;
    }
  }

  blk->vals.assign(nslots, 0.0);
  blk->colidx.assign(nslots, -1);
  blk->slots.assign(A.nnz, 0);
  auto place = [&](int32_t k, int32_t slot) { // CSR entry k goes to `slot`
    blk->slots[k]     = slot;
    blk->vals[slot]   = A.values[k];
    blk->colidx[slot] = A.colidx[k];
  };
  for (int32_t r = 0; r < in.nlong_rows; ++r) {
    const int32_t i = blk->long_row[r];
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) place(k, blk->long_start[r] + (k - A.rowptr[i]));
  }
  for (int32_t p = 0; p < A.nrows; ++p) {
    const int32_t  i = blk->perm[p], s = p / S, lp = p - s * S;
    const int32_t *cs = blk->col_start.data() + blk->diag_base[s];
    if (sort_length(len[i], L) != len[i]) continue; // a long row: stored above
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) place(k, cs[k - A.rowptr[i]] + lp);
  }

  // Narrow columns: the span of every block's real columns (long rows are not in the diagonals).
  blk->block_col_base.assign(nb, 0);
  std::vector<int32_t> block_hi(nb, -1);
  std::vector<bool>    block_has(nb, false);
  for (int32_t p = 0; p < A.nrows; ++p) {
    const int32_t i = blk->perm[p], b = p / br;
    if (sort_length(len[i], L) != len[i]) continue;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      blk->block_col_base[b] = block_has[b] ? std::min(blk->block_col_base[b], A.colidx[k]) : A.colidx[k];
      block_hi[b]            = std::max(block_hi[b], A.colidx[k]);
      block_has[b]           = true;
    }
  }
  const int64_t jagged = nslots - in.long_nnz;
  for (int32_t b = 0; b < nb; ++b) {
    if (!block_has[b]) continue;
    const int32_t span = block_hi[b] - blk->block_col_base[b];
    in.widest_span     = std::max(in.widest_span, span);
    if (block_fits(span)) in.narrow_slots += (int64_t)br * blk->block_width[b];
    else blk->block_col_base[b] = kSplitBlock;
  }
  in.narrow = narrow_pays(params[param_narrow], in.narrow_slots, jagged);
  if (in.narrow) {
    in.split_slots = jagged - in.narrow_slots;
    blk->col16.assign(jagged, kNarrowPad);
    blk->col_hi16.assign(in.split_slots ? jagged : 0, 0xFFFF);
    for (int32_t p = 0; p < A.nrows; ++p) {
      const int32_t  i = blk->perm[p], s = p / S, lp = p - s * S, base = blk->block_col_base[p / br];
      const int32_t *cs = blk->col_start.data() + blk->diag_base[s];
      if (sort_length(len[i], L) != len[i]) continue;
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
        const int32_t slot = cs[k - A.rowptr[i]] + lp;
        blk->col16[slot]   = narrow_column_lo(A.colidx[k], base);
        if (base < 0) blk->col_hi16[slot] = narrow_column_hi(A.colidx[k]);
      }
    }
    blk->colidx.erase(blk->colidx.begin(), blk->colidx.begin() + jagged); // the long rows' columns stay
  } else blk->block_col_base.clear();

  // Wide blocks and their items.
  blk->wide_item_start.push_back(0);
  for (int32_t b = 0; b < nb; ++b) {
    const int32_t W = blk->block_width[b];
    if (W <= kChunkDiagonals) continue;
    const int32_t w = (int32_t)blk->wide_block.size(), items = (W + kChunkDiagonals - 1) / kChunkDiagonals;
    blk->wide_block.push_back(b);
    for (int32_t t = 0; t < items; ++t) blk->wide_item_owner.push_back(w);
    blk->wide_item_start.push_back(blk->wide_item_start.back() + items);
  }
  in.nwide_blocks = (int32_t)blk->wide_block.size();
  in.nwide_items  = blk->wide_item_start.back();

  blk->set_layout(Backend::host, A, blk->vals.data(), nslots, blk->slots.data());
  return blk;
}

} // namespace

int64_t padded_slots_host(const std::vector<int32_t> &lengths, int32_t br, int32_t window, int32_t long_row)
{
  const size_t n = lengths.size(), W = window > 0 ? ((size_t)window + br - 1) / br * br : std::max<size_t>(n, 1);
  int64_t      slots = 0;
  std::vector<int32_t> seg;
  for (size_t s0 = 0; s0 < n; s0 += W) {
    seg.clear();
    for (size_t i = s0; i < std::min(n, s0 + W); ++i) seg.push_back(sort_length(lengths[i], long_row));
    std::sort(seg.begin(), seg.end(), std::greater<int32_t>());
    for (size_t b = 0; b < seg.size(); b += br) slots += (int64_t)br * seg[b];
  }
  return slots;
}

void check_params(const int64_t *params)
{
  for (int i = 0; i < nparams; ++i) checked_param(pjds_ops, params, i); // the ranges: kParams
}

Plan plan_geometry(int32_t nrows, int32_t br, int32_t w, bool auto_window, int32_t long_row, bool auto_long)
{
  Plan pl;
  pl.block_rows             = br;
  pl.sort_window            = w;
  pl.auto_window            = auto_window;
  pl.long_row               = long_row;
  pl.auto_long              = auto_long;
  pl.nblocks                = (int32_t)(((int64_t)nrows + br - 1) / br);
  const int64_t padded_rows = (int64_t)pl.nblocks * br;
  const int64_t S           = ((int64_t)w + br - 1) / br * br; // window rounded up to whole blocks
  if (w == 0 || S >= nrows) {                          // global sort: one segment
    pl.segment_rows = (int32_t)std::max<int64_t>(padded_rows, br);
    pl.perm_window  = 0;
  } else {
    pl.segment_rows = (int32_t)S;
    pl.perm_window  = (int32_t)S;
  }
  pl.nsegments = (int32_t)(((int64_t)nrows + pl.segment_rows - 1) / pl.segment_rows);
  return pl;
}

void check_slots(int64_t nslots, int64_t nnz)
{
  if (nslots > INT32_MAX)
    throw Error(ErrorKind::unsupported, "pjds: the padded layout needs " + std::to_string(nslots) + " slots for " + std::to_string(nnz) + " nonzeros, more than the 2^31-1 the int32 slot map can address; use -mat_type evchyb (no block padding), or split the matrix over more ranks");
}

std::size_t layout_bytes(const Info &in, int32_t nrows, int64_t nslots)
{
  const int64_t br = in.plan.block_rows;
  const int64_t columns = in.narrow ? (nslots - in.long_nnz) * 2 + in.split_slots * 2 + in.plan.nblocks * 4 + in.long_nnz * 4 : nslots * 4;
  return (std::size_t)(nslots * (int64_t)sizeof(double) + columns                      // values, columns
                       + (int64_t)nrows * 4 + (int64_t)in.plan.nblocks * 4               // perm, block_width
                       + (int64_t)in.plan.nsegments * 4 + in.ndiagonals * 4              // diag_base, col_start
                       + (int64_t)in.nwide_blocks * 8 + 4 + (int64_t)in.nwide_items * 4 // wide lists
                       + (int64_t)in.nwide_items * br * 8                                // partial sums
                       + (int64_t)in.nlong_rows * 12 + 8 + (int64_t)in.nlong_chunks * 12);   // long-row lists, partials
}

void describe_layout(const Info &in, const FormatBlock &blk, std::vector<LayoutStat> &out)
{
  const Plan     &pl      = in.plan;
  const double    bytes   = (double)layout_bytes(in, blk.nrows, blk.nslots);
  const double    csr     = csr_bytes(blk.nnz, blk.nrows);
  // ELLPACK-R as the paper counts it: N padded to a multiple of the warp size, times the longest
  // row, values + column indices, plus rowmax[] (4 bytes per row).
  const double    n32     = (double)(((int64_t)blk.nrows + 31) / 32 * 32);
  const double    ellr    = n32 * (double)in.max_row_length * 12.0 + 4.0 * n32;
  const int64_t   padding = blk.nslots - blk.nnz;
  out.push_back({"rows", std::to_string(blk.nrows)});
  out.push_back({"columns", std::to_string(blk.ncols)});
  out.push_back({"nonzeros", std::to_string(blk.nnz)});
  out.push_back({"empty rows", std::to_string(in.empty_rows)});
  out.push_back({"longest row", std::to_string(in.max_row_length)});
  out.push_back({"block rows (b_r)", std::to_string(pl.block_rows)});
  out.push_back({"blocks", std::to_string(pl.nblocks)});
  out.push_back({"row sort", (pl.perm_window ? "within windows of " + std::to_string(pl.segment_rows) + " rows (" + std::to_string(pl.nsegments) + " segments)" : std::string("global, longest first")) +
                               (pl.auto_window ? " (auto: the first of 1024, 8192, 65536 rows that pads at most " + format_number(100 * kAutoExtraPadding, "%.0f") + "% of the nonzeros more than the global sort, else global)" : "")});
  out.push_back({"jagged diagonals (col_start entries)", std::to_string(in.ndiagonals)});
  const std::string span = in.widest_span < 0 ? "no jagged entries" : "widest block spans " + std::to_string(in.widest_span) + " columns";
  const int64_t     jagged = blk.nslots - in.long_nnz;
  const std::string fit    = format_number(jagged ? 100.0 * (double)in.narrow_slots / (double)jagged : 0.0, "%.1f") + "% of the jagged slots in blocks spanning at most " + std::to_string(kNarrowSpan) + " columns";
  out.push_back({"column indices", in.narrow ? "16-bit offsets from each block's smallest column (" + fit + "; " + span + (in.split_slots ? ", such blocks in two 16-bit halves" : "") + "); long rows 32-bit"
                                             : "32-bit (" + span + "; " + fit + ", 16-bit offsets need " + format_number(100 * kNarrowMinShare, "%.0f") + "% and -mat_pjds_narrow_columns 1)"});
  out.push_back({"slots", std::to_string(blk.nslots)});
  out.push_back({"padding slots", std::to_string(padding) + " (" + format_number(blk.nslots ? 100.0 * (double)padding / (double)blk.nslots : 0.0, "%.2f") + "% of slots)"});
  out.push_back({"wide blocks (> " + std::to_string(kChunkDiagonals) + " diagonals, split)", std::to_string(in.nwide_blocks) + " blocks, " + std::to_string(in.nwide_items) + " items"});
  out.push_back({"long rows (CSR part after the diagonals)",
                 (pl.long_row ? std::to_string(in.nlong_rows) + " rows longer than " + std::to_string(pl.long_row) + ", " + std::to_string(in.long_nnz) + " nonzeros, " + std::to_string(in.nlong_chunks) + " warp chunks of " + std::to_string(kLongChunk)
                              : std::string("none (every row in the diagonals)")) +
                   (pl.auto_long ? " (auto: rows longer than " + std::to_string(kAutoLongRow) + " leave the diagonals when that saves padding above " + std::to_string(kAutoLongPaddingPercent) + "% of the nonzeros, longer than " + std::to_string(kAutoWarpLongRow) + " when only that keeps the sort windows)" : "")});
  out.push_back({"bytes", std::to_string((int64_t)bytes)});
  out.push_back({"CSR bytes", std::to_string((int64_t)csr) + " (pjds/CSR = " + format_number(csr > 0 ? bytes / csr : 0.0, "%.3f") + ")"});
  out.push_back({"ELLPACK-R bytes", format_number(ellr, "%.0f")});
  out.push_back({"memory saving vs ELLPACK-R", format_number(ellr > 0 ? 100.0 * (1.0 - bytes / ellr) : 0.0, "%.2f") + "%"});
}

const FormatParam kParams[] = {
  {"block_rows", "rows per padded block b_r (32 = one warp, the paper's choice); rows of a block are padded to its longest row", 32, 1, 1024},
  {"sort_window", "sort rows by length only inside windows of this many rows (rounded up to whole blocks; keeps x/y locality like SELL-C-sigma); 0 = global sort (the paper); -1 (default) = auto: the first of 1024, 8192, 65536 rows that pads at most 10% of the nonzeros more than the global sort, else the global sort", -1, -1, INT32_MAX},
  {"long_row", "rows longer than this (1..256) leave the jagged diagonals for a CSR part read by one warp per 1024 entries, so they pad no other row of their block; 0 = none (the paper); -1 (default) = auto: rows longer than 256 when that saves padding above 10% of the nonzeros, or longer than 32 when only that lets the auto sort window keep windows", -1, -1, kChunkDiagonals},
  {"narrow_columns", "1: jagged column indices of every block spanning at most 65534 columns stored as 16-bit offsets from the block's smallest column (10 instead of 12 bytes per slot; other blocks keep 32-bit columns as two 16-bit halves), when such blocks hold at least 85% of the slots; 0: always 32-bit", 1, 0, 1},
};
static_assert(sizeof(kParams) / sizeof(kParams[0]) == nparams, "kParams follows enum Param");

} // namespace pjds

extern const FormatOps pjds_ops = {
  "pjds",
  "pJDS (Kreutzer et al.): rows sorted by length, blocks of b_r rows padded to their longest row, stored by jagged diagonal",
  pjds::kParams,
  pjds::nparams,
  1, // extra stream: the split path for wide blocks runs beside the row kernel
  pjds::build_host,
  pjds::build_cuda,
  false,
  pjds::build_uploaded,
};

} // namespace gpuformats
