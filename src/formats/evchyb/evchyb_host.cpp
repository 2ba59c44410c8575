// EVC-HYB host side: parameters, the plan shared by both builders, the host builder (the
// specification of the layout), the host reference product (the test oracle for the kernels),
// and the FormatOps table.
#include "evchyb.hpp"

#include "../../core/row_permutation.hpp"
#include "../../core/text.hpp"

#include <algorithm>
#include <climits>
#include <iterator>
#include <cstdio>

namespace gpuformats {
namespace evchyb {

namespace {

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int32_t ilog2(int64_t v)
{
  int32_t l = 0;
  while ((int64_t(1) << (l + 1)) <= v) ++l;
  return l;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Rows of the vCSR part whose threads-per-row is at least tpr, from the lower_bound counts.
int64_t csr_rows_at_least(const Shape &sh, const std::vector<int64_t> &lb, int idx) { return sh.nrows - std::max<int64_t>(lb[idx], sh.csr_first); }

// Paper's ELL bands: rows per thread 2^k for widths in (LR/2^(k+1), LR/2^k].
int32_t ell_rows_per_thread(int32_t width, int32_t ell_width)
{
  const int32_t lr  = std::min(ell_width, kEllLaneWork);
  int32_t       rpt = 1;
  while (rpt * 2 <= kEllMaxRowsPerThread && (int64_t)width * rpt * 2 <= lr) rpt *= 2;
  return rpt;
}

} // namespace

Params read_params(const int64_t *p)
{
  Params prm;
  if (!p) return prm;
  const auto param = [&](Param i) { // the range: kParams; the rest of the rule: here
    const int64_t v = checked_param(evchyb_ops, p, i);
    if ((i == param_slice_rows || i == param_block_threads) && !is_pow2(v)) throw Error(ErrorKind::bad_input, std::string("evchyb: -mat_evchyb_") + evchyb_ops.params[i].name + " must be a power of two; got " + std::to_string(v));
    return v;
  };
  prm.ell_max_row    = (int32_t)param(param_ell_max_row);
  prm.slice_rows     = (int32_t)param(param_slice_rows);
  prm.log2_slice     = ilog2(prm.slice_rows);
  prm.block_threads  = (int32_t)param(param_block_threads);
  prm.sort_window    = (int32_t)param(param_sort_window);
  prm.narrow_columns = (int32_t)param(param_narrow_columns);
  return prm;
}

void init_shape(Shape &sh, const CsrView &A, const int64_t *params)
{
  sh.prm   = read_params(params);
  sh.nrows = A.nrows;
  sh.ncols = A.ncols;
  sh.nnz   = A.nnz;
}

void plan_columns(Shape &sh, int32_t span, int64_t fitting)
{
  sh.widest_span   = span;
  sh.fitting_slots = fitting;
  sh.narrow        = sh.prm.narrow_columns && sh.nslices > 0 && narrow_share_pays(fitting, sh.ell_slots);
  sh.split_slots   = sh.narrow ? sh.ell_slots - fitting : 0;
}

void plan_csr_columns(Shape &sh, int32_t span)
{
  sh.csr_widest_span = span;
  sh.csr_narrow      = sh.prm.narrow_columns && sh.csr_rows > 0 && span >= 0 && span <= kNarrowSpan;
}

std::vector<int32_t> candidate_windows(const Params &prm)
{
  if (prm.sort_window < 0) return std::vector<int32_t>(std::begin(kAutoWindows), std::end(kAutoWindows));
  if (prm.sort_window > 0) return {prm.sort_window};
  return {};
}

// Rows of length 0..M: ELL rows of the windowed layout, empty rows included (the global layout
// has an empty band and carries a few rows out of the ELL part).
PositionRange windowed_ell_range(const Shape &sh, const std::vector<int64_t> &lb)
{
  return {(int32_t)lb[0], (int32_t)lb[sh.prm.ell_max_row + 1]};
}

bool plan_window(Shape &sh, const std::vector<int64_t> &lb, int64_t windowed_ell_slots, int32_t window)
{
  const Params       &prm = sh.prm;
  const PositionRange r   = windowed_ell_range(sh, lb);
  const int32_t       M   = prm.ell_max_row, S = prm.slice_rows;
  int64_t             ell_nnz = 0;
  int32_t             widest  = 0;
  for (int32_t i = 1; i <= M; ++i)
    if (lb[i + 1] > lb[i]) {
      ell_nnz += (int64_t)i * (lb[i + 1] - lb[i]);
      widest = i;
    }
  if (prm.sort_window < 0) { // auto: compare the padding of both layouts (sh holds the global plan)
    sh.auto_window       = true;
    sh.auto_global_slots = sh.ell_slots;
    sh.auto_tried.push_back({window, windowed_ell_slots});
    const double extra = (double)(windowed_ell_slots - ell_nnz) - (double)(sh.ell_slots - sh.ell_nnz);
    if (extra > kAutoExtraPadding * (double)ell_nnz) return false;
  }
  if (windowed_ell_slots > INT32_MAX) throw Error(ErrorKind::unsupported, "evchyb: the ELL part needs more than 2^31 slots; use a smaller -mat_evchyb_ell_max_row or split the matrix over more ranks");
  sh.window    = window;
  sh.groups.clear();
  sh.nempty    = r.first;
  sh.ell_first = r.first;
  sh.ell_rows  = r.end - r.first;
  sh.ell_empty = (int32_t)(lb[1] - lb[0]);
  sh.nslices   = (int32_t)ceil_div(sh.ell_rows, S);
  sh.ell_slots = windowed_ell_slots;
  sh.ell_nnz   = ell_nnz;
  sh.csr_nnz   = sh.nnz - ell_nnz;
  sh.ell_width = widest;
  sh.csr_first = r.end;
  sh.csr_rows  = sh.nrows - r.end;
  return true;
}

// [0, 1, ..., M+1] (row counts per length), then the threads-per-row thresholds 64..block, then
// the split threshold. A vCSR row gets >= tpr threads when roundup(len,32) >= tpr*16, i.e.
// len >= tpr*16 - 31; it is split when roundup(len,32) > chunk, i.e. len >= chunk + 1.
std::vector<int32_t> plan_thresholds(const Params &prm)
{
  std::vector<int32_t> t;
  for (int32_t i = 0; i <= prm.ell_max_row + 1; ++i) t.push_back(i);
  for (int32_t tpr = 64; tpr <= prm.block_threads; tpr *= 2) t.push_back(tpr * kCsrEntriesPerThread - (kCsrAlign - 1));
  t.push_back(prm.block_threads * kCsrSplitEntriesPerThread + 1);
  return t;
}

int team_threshold_index(const Params &prm, int32_t tpr) { return prm.ell_max_row + 2 + ilog2(tpr / 64); }
int split_threshold_index(const Params &prm) { return prm.ell_max_row + 2 + ilog2(prm.block_threads / 32); }

void plan_groups(Shape &sh, const std::vector<int64_t> &lb)
{
  const Params &prm = sh.prm;
  const int32_t S   = prm.slice_rows, M = prm.ell_max_row;
  auto          count = [&](int32_t len) { return lb[len + 1] - lb[len]; };
  sh.nempty           = (int32_t)count(0);
  sh.ell_first        = sh.nempty;
  sh.groups.clear();
  int64_t carry = 0, rows = 0, slot = 0, nnz_all = 0;
  for (int32_t i = 1; i <= M; ++i) {
    nnz_all += (int64_t)i * count(i);
    const int64_t t = carry + count(i), take = t / S * S;
    if (take > 0) {
      if (slot + take * i > INT32_MAX) throw Error(ErrorKind::unsupported, "evchyb: the ELL part needs more than 2^31 slots; use a smaller -mat_evchyb_ell_max_row or split the matrix over more ranks");
      sh.groups.push_back({(int32_t)rows, (int32_t)take, i, (int32_t)(rows / S), slot});
      rows += take;
      slot += take * i;
    }
    carry = t - take;
  }
  // The carried-out rows are the longest rows of length <= M: they go to the vCSR part.
  int64_t carried_nnz = 0;
  for (int32_t i = M, left = (int32_t)carry; i >= 1 && left > 0; --i) {
    const int64_t take = std::min<int64_t>(left, count(i));
    carried_nnz += take * i;
    left -= (int32_t)take;
  }
  sh.ell_rows  = (int32_t)rows;
  sh.nslices   = (int32_t)(rows / S);
  sh.ell_slots = slot;
  sh.ell_nnz   = nnz_all - carried_nnz;
  sh.csr_nnz   = sh.nnz - sh.ell_nnz;
  sh.ell_width = sh.groups.empty() ? 0 : sh.groups.back().width;
  sh.csr_first = sh.nempty + sh.ell_rows;
  sh.csr_rows  = sh.nrows - sh.csr_first;
}

void plan_finish(Shape &sh, const std::vector<int64_t> &lb, int64_t csr_slots, int64_t split_blocks)
{
  const Params &prm = sh.prm;
  const int32_t B   = prm.block_threads;
  sh.csr_slots      = csr_slots;
  sh.csr_base       = sh.csr_rows ? ceil_div(sh.ell_slots, kCsrAlign) * kCsrAlign : sh.ell_slots;
  sh.nslots         = sh.csr_base + csr_slots;
  if (sh.nslots > INT32_MAX)
    throw Error(ErrorKind::unsupported, "evchyb: " + std::to_string(sh.nslots) + " slots exceed 2^31-1 (32-bit slot map); split the matrix over more ranks");
  sh.nsplit_rows   = sh.csr_rows ? (int32_t)csr_rows_at_least(sh, lb, split_threshold_index(prm)) : 0;
  sh.nsplit_blocks = (int32_t)split_blocks;

  sh.bands.clear();
  int64_t nblocks = 0;
  auto    add     = [&](int32_t kind, int64_t first, int64_t end, int32_t param, int64_t blocks) {
    if (end <= first || blocks <= 0) return;
    sh.bands.push_back({kind, (int32_t)nblocks, (int32_t)first, (int32_t)end, param});
    nblocks += blocks;
  };
  add(band_empty, 0, sh.nempty, 0, ceil_div(sh.nempty, (int64_t)B * kEmptyRowsPerThread));
  sh.empty_blocks = (int32_t)nblocks;
  if (sh.window > 0 && sh.ell_rows) { // one band: slice widths vary, rows per thread from the mean width of the non-empty rows
    const int32_t rpt = ell_rows_per_thread((int32_t)ceil_div(sh.ell_nnz, std::max(sh.ell_rows - sh.ell_empty, 1)), sh.ell_width);
    add(band_ell, 0, sh.ell_rows, rpt, ceil_div(sh.ell_rows, (int64_t)B * rpt));
  }
  for (size_t g = 0; g < sh.groups.size();) {
    const int32_t rpt = ell_rows_per_thread(sh.groups[g].width, sh.ell_width);
    size_t        h   = g;
    while (h < sh.groups.size() && ell_rows_per_thread(sh.groups[h].width, sh.ell_width) == rpt) ++h;
    const int64_t first = sh.groups[g].first_row, end = (int64_t)sh.groups[h - 1].first_row + sh.groups[h - 1].nrows;
    add(band_ell, first, end, rpt, ceil_div(end - first, (int64_t)B * rpt));
    g = h;
  }
  if (sh.csr_rows) {
    const int64_t team_end = sh.csr_rows - sh.nsplit_rows;
    int64_t       first    = 0;
    for (int32_t tpr = 32; tpr <= B; tpr *= 2) {
      const int64_t end = tpr == B ? team_end : std::min<int64_t>(team_end, sh.csr_rows - csr_rows_at_least(sh, lb, team_threshold_index(prm, tpr * 2)));
      add(band_csr_team, first, end, tpr, ceil_div(end - first, B / tpr));
      first = std::max(first, end);
    }
    add(band_csr_split, 0, sh.nsplit_blocks, B, sh.nsplit_blocks); // param: threads per chunk
  }
  if (nblocks > INT32_MAX) throw Error(ErrorKind::unsupported, "evchyb: the product needs more than 2^31 blocks");
  if ((int)sh.bands.size() > kMaxBands) throw Error(ErrorKind::internal, "evchyb: internal error, too many bands");
  sh.nblocks = (int32_t)nblocks;
}

std::size_t shape_bytes(const Shape &sh)
{
  const std::size_t ell_columns = sh.narrow ? (std::size_t)(sh.ell_slots + sh.split_slots) * sizeof(uint16_t) + (std::size_t)sh.nslices * sizeof(int32_t) : (std::size_t)sh.csr_base * sizeof(int32_t);
  const std::size_t csr_columns = (std::size_t)(sh.nslots - sh.csr_base) * (sh.csr_narrow ? sizeof(uint16_t) : sizeof(int32_t)) + (sh.csr_narrow ? (std::size_t)sh.csr_rows * sizeof(int32_t) : 0);
  const std::size_t columns     = ell_columns + csr_columns;
  return (std::size_t)sh.nslots * sizeof(double) + columns + (std::size_t)sh.nrows * sizeof(int32_t) + (sh.nslices ? (std::size_t)(sh.nslices + 1) * sizeof(int32_t) : 0) +
         (sh.csr_rows ? (std::size_t)(sh.csr_rows + 1) * sizeof(int32_t) : 0) + (std::size_t)sh.nsplit_blocks * sizeof(SplitBlock);
}

void describe_shape(const Shape &sh, std::vector<LayoutStat> &out)
{
  auto pct = [](double a, double b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", b > 0 ? 100.0 * a / b : 0.0);
    return std::string(buf);
  };
  const int64_t csr_b = (int64_t)csr_bytes(sh.nnz, sh.nrows);
  const int64_t ell_pad = sh.ell_slots - sh.ell_nnz, csr_pad = sh.csr_slots - sh.csr_nnz;
  out.push_back({"layout", "EVC-HYB: rows sorted shortest first; ELL " + std::to_string(sh.prm.slice_rows) + "-row slices for lengths <= " + std::to_string(sh.prm.ell_max_row) + ", vectorized CSR above"});
  out.push_back({"empty rows", sh.window > 0 ? std::to_string(sh.ell_empty) + " (ELL rows of their windows: y written beside their neighbours; a zero-width slice is skipped when y is only added to)" : std::to_string(sh.nempty) + " (no storage)"});
  std::string order = sh.window > 0 ? "ELL rows sorted inside windows of " + std::to_string(sh.window) + " rows" : "global (paper): all rows sorted and grouped by length";
  if (sh.auto_window) {
    order += " (auto: ELL slots global " + std::to_string(sh.auto_global_slots);
    for (const auto &t : sh.auto_tried) order += ", window " + std::to_string(t.first) + " " + std::to_string(t.second);
    order += ")";
  }
  out.push_back({"sort", order});
  const std::string groups = sh.window > 0 ? "slices padded to their longest row" : std::to_string(sh.groups.size()) + " groups";
  out.push_back({"ELL part", std::to_string(sh.ell_rows) + " rows, " + std::to_string(sh.ell_nnz) + " nonzeros (" + pct((double)sh.ell_nnz, (double)sh.nnz) + "), " + groups + ", " + std::to_string(sh.nslices) + " slices, widest " + std::to_string(sh.ell_width) + ", padding " + pct((double)ell_pad, (double)std::max<int64_t>(sh.ell_nnz, 1))});
  out.push_back({"vCSR part", std::to_string(sh.csr_rows) + " rows, " + std::to_string(sh.csr_nnz) + " nonzeros (" + pct((double)sh.csr_nnz, (double)sh.nnz) + "), " + std::to_string(sh.nsplit_rows) + " rows split over " + std::to_string(sh.nsplit_blocks) + " blocks, padding " + pct((double)csr_pad, (double)std::max<int64_t>(sh.csr_nnz, 1))});
  const std::string span = sh.widest_span < 0 ? "no ELL entries" : "widest slice spans " + std::to_string(sh.widest_span) + " columns";
  const std::string fit  = pct((double)sh.fitting_slots, (double)sh.ell_slots) + " of the ELL slots in slices spanning at most " + std::to_string(kNarrowSpan) + " columns";
  out.push_back({"ELL columns", sh.narrow ? "16-bit offsets from each slice's smallest column (" + fit + "; " + span + (sh.split_slots ? ", such slices in two 16-bit halves" : "") + ")"
                                          : std::string("32-bit (") + (sh.prm.narrow_columns ? span + "; " + fit + ", 16-bit offsets need " + format_number(100 * kNarrowMinShare, "%.0f") + "%" : "narrow columns off") + ")"});
  if (sh.csr_rows)
    out.push_back({"vCSR columns", sh.csr_narrow ? "16-bit offsets from each row's smallest column (widest row spans " + std::to_string(sh.csr_widest_span) + " columns)"
                                                 : std::string("32-bit (") + (sh.prm.narrow_columns ? "widest row spans " + std::to_string(sh.csr_widest_span) + " columns; 16-bit offsets need every row within " + std::to_string(kNarrowSpan) : "narrow columns off") + ")"});
  out.push_back({"slots", std::to_string(sh.nslots) + " (padding " + pct((double)(sh.nslots - sh.nnz), (double)std::max<int64_t>(sh.nnz, 1)) + " of nonzeros)"});
  std::string bands;
  static const char *kind_name[] = {"empty", "ell", "csr_team", "csr_split"};
  for (const Band &b : sh.bands) {
    if (!bands.empty()) bands += ", ";
    bands += std::string(kind_name[b.kind]) + "[" + std::to_string(b.first) + "," + std::to_string(b.end) + ")";
    if (b.kind == band_ell) bands += " rpt=" + std::to_string(b.param);
    if (b.kind == band_csr_team) bands += " tpr=" + std::to_string(b.param);
    bands += " @" + std::to_string(b.first_block);
  }
  out.push_back({"launch", std::to_string(sh.nblocks) + " blocks of " + std::to_string(sh.prm.block_threads) + " threads in one launch; bands: " + (bands.empty() ? "none" : bands)});
  out.push_back({"bytes", std::to_string(shape_bytes(sh)) + " (CSR " + std::to_string(csr_b) + ", ratio " + pct((double)shape_bytes(sh), (double)std::max<int64_t>(csr_b, 1)) + ")"});
}

LayoutView HostBlock::view() const { return {slice_ptr.data(), csr_row_start.data(), sh.ell_first, sh.csr_first, sh.prm.log2_slice}; }

int32_t HostBlock::column(int32_t pos, int32_t slot) const
{
  if (sh.narrow && pos < sh.csr_first) {
    const int32_t base = slice_col_base[(pos - sh.ell_first) >> sh.prm.log2_slice];
    return base >= 0 ? base + col16[slot] : narrow_column_split(col16[slot], col_hi16[slot]);
  }
  if (sh.csr_narrow && pos >= sh.csr_first) return csr_col_base[pos - sh.csr_first] + csr_col16[slot - sh.csr_base];
  return colidx[slot - sh.colidx_first()];
}

// The reference: every stored slot of every row, padding included, in layout order.
void HostBlock::spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const
{
  auto store = [&](int32_t row, double sum) { y[row] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[row]; };
  auto empty = [&](int32_t row) { y[row] = beta == 0.0 ? 0.0 : beta * y[row]; };
  for (int32_t pos = 0; pos < sh.nempty; ++pos) empty(perm[pos]);
  const LayoutView v = view();
  for (int32_t pos = sh.nempty; pos < sh.nrows; ++pos) {
    if (perm[pos] < 0) { // an empty row among the windowed ELL rows
      empty(~perm[pos]);
      continue;
    }
    double        sum = 0.0;
    const int32_t w   = v.padded_length(pos);
    for (int32_t j = 0; j < w; ++j) {
      const int32_t s = v.slot_of(pos, j);
      sum += vals[s] * x[column(pos, s)];
    }
    store(perm[pos], sum);
  }
}

void HostBlock::describe(std::vector<LayoutStat> &out) const
{
  out.push_back({"backend", "host"});
  describe_shape(sh, out);
}

namespace {

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params)
{
  auto   blk = std::make_unique<HostBlock>();
  Shape &sh  = blk->sh;
  init_shape(sh, A, params);

  blk->perm = sorted_row_permutation(A, RowOrder::shortest_first);
  std::vector<int32_t> len(A.nrows);
  for (int32_t k = 0; k < A.nrows; ++k) len[k] = A.row_length(blk->perm[k]);
  const std::vector<int32_t> thr = plan_thresholds(sh.prm);
  std::vector<int64_t>       lb(thr.size());
  for (size_t t = 0; t < thr.size(); ++t) lb[t] = std::lower_bound(len.begin(), len.end(), thr[t]) - len.begin();
  plan_groups(sh, lb);
  const PositionRange        wr      = windowed_ell_range(sh, lb);
  const std::vector<int32_t> windows = wr.end > wr.first ? candidate_windows(sh.prm) : std::vector<int32_t>{};
  const std::vector<int32_t> global  = windows.empty() ? std::vector<int32_t>{} : std::vector<int32_t>(blk->perm.begin() + wr.first, blk->perm.begin() + wr.end);
  auto relength = [&] { // len of the window range after its order changed
    for (int32_t k = wr.first; k < wr.end; ++k) len[k] = A.row_length(blk->perm[k]);
  };
  for (int32_t W : windows) {
    window_sort_range(A, blk->perm, wr.first, wr.end, W, WindowOrder::alternate);
    relength();
    const int32_t S = sh.prm.slice_rows, ell_rows = wr.end - wr.first;
    int64_t       slots = 0;
    for (int32_t sl = 0; sl < ceil_div(ell_rows, S); ++sl) slots += (int64_t)S * slice_width(len.data(), wr.first, ell_rows, S, sl);
    if (plan_window(sh, lb, slots, W)) break;
    std::copy(global.begin(), global.end(), blk->perm.begin() + wr.first); // the next window sorts the global order again
  }
  if (!windows.empty() && sh.window == 0) relength(); // every window refused: the global order is back

  const int32_t chunk     = sh.split_chunk();
  int64_t       csr_slots = 0, split_blocks = 0;
  for (int32_t pos = sh.csr_first; pos < sh.nrows; ++pos) {
    csr_slots += csr_padded(len[pos]);
    if (is_split_row(len[pos], chunk)) split_blocks += split_chunks(len[pos], chunk);
  }
  plan_finish(sh, lb, csr_slots, split_blocks);

  // slice_ptr from the groups, csr_row_start from the padded lengths, the split table.
  const int32_t S = sh.prm.slice_rows;
  blk->slice_ptr.reserve(sh.nslices + 1);
  int64_t slot = 0;
  for (int32_t sl = 0; sl < sh.nslices; ++sl) {
    blk->slice_ptr.push_back((int32_t)slot);
    slot += (int64_t)S * slice_width(len.data(), sh.ell_first, sh.ell_rows, S, sl);
  }
  if (sh.nslices) blk->slice_ptr.push_back((int32_t)slot);
  if (slot != sh.ell_slots) throw Error(ErrorKind::internal, "evchyb: internal error, slice widths disagree with the plan");
  if (sh.csr_rows) {
    blk->csr_row_start.resize(sh.csr_rows + 1);
    int64_t s = sh.csr_base;
    for (int32_t c = 0; c < sh.csr_rows; ++c) {
      blk->csr_row_start[c] = (int32_t)s;
      s += csr_padded(len[sh.csr_first + c]);
    }
    blk->csr_row_start[sh.csr_rows] = (int32_t)s;
    for (int32_t c = sh.csr_rows - sh.nsplit_rows; c < sh.csr_rows; ++c) {
      const int32_t n = (int32_t)split_chunks(len[sh.csr_first + c], chunk), first = (int32_t)blk->split.size();
      for (int32_t k = 0; k < n; ++k) blk->split.push_back({c, k, n, first});
    }
  }

  // Scatter the CSR entries to their slots; padding gets 0.0 and the row's last column.
  blk->vals.assign(sh.nslots, 0.0);
  blk->colidx.assign(sh.nslots, 0);
  blk->slots.resize(A.nnz);
  const LayoutView v = blk->view();
  for (int32_t pos = sh.nempty; pos < sh.nrows; ++pos) {
    const int32_t i = blk->perm[pos], w = v.padded_length(pos), l = len[pos];
    for (int32_t j = 0; j < w; ++j) {
      const int32_t s = v.slot_of(pos, j);
      if (j < l) {
        blk->vals[s]                  = A.values[A.rowptr[i] + j];
        blk->colidx[s]                = A.colidx[A.rowptr[i] + j];
        blk->slots[A.rowptr[i] + j] = s;
      } else blk->colidx[s] = l ? A.colidx[A.rowptr[i] + l - 1] : 0;
    }
  }
  // Narrow columns: every slice's span from its rows' smallest and largest columns.
  std::vector<int32_t> row_lo(sh.ell_rows, INT32_MAX), row_hi(sh.ell_rows, -1);
  for (int32_t e = 0; e < sh.ell_rows; ++e) {
    const int32_t i = blk->perm[sh.ell_first + e];
    for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      row_lo[e] = std::min(row_lo[e], A.colidx[k]);
      row_hi[e] = std::max(row_hi[e], A.colidx[k]);
    }
  }
  int32_t span    = -1;
  int64_t fitting = 0;
  std::vector<int32_t> base_of(sh.nslices);
  for (int32_t sl = 0; sl < sh.nslices; ++sl) {
    const ColumnRange c = slice_columns(row_lo.data(), row_hi.data(), sh.ell_rows, S, sl);
    span                = std::max(span, slice_span(c));
    base_of[sl]         = slice_base(c);
    if (base_of[sl] >= 0) fitting += blk->slice_ptr[sl + 1] - blk->slice_ptr[sl];
  }
  plan_columns(sh, span, fitting);
  if (sh.narrow) {
    blk->slice_col_base = base_of;
    blk->col16.assign(sh.ell_slots, 0);
    blk->col_hi16.assign(sh.split_slots ? sh.ell_slots : 0, 0);
    for (int32_t pos = sh.ell_first; pos < sh.csr_first; ++pos) {
      if (len[pos] == 0) continue; // an empty row's padding: column 0 (its sum is discarded)
      const int32_t base = blk->slice_col_base[(pos - sh.ell_first) >> sh.prm.log2_slice];
      for (int32_t j = 0; j < v.padded_length(pos); ++j) {
        const int32_t s = v.slot_of(pos, j);
        blk->col16[s]   = narrow_column_lo(blk->colidx[s], base);
        if (base < 0) blk->col_hi16[s] = narrow_column_hi(blk->colidx[s]);
      }
    }
  }
  // vCSR columns: every vCSR row's span (its padding repeats its last column, inside the span).
  int32_t csr_span = -1;
  std::vector<int32_t> csr_lo(sh.csr_rows, INT32_MAX);
  for (int32_t c = 0; c < sh.csr_rows; ++c) {
    int32_t hi = -1;
    for (int32_t s = blk->csr_row_start[c]; s < blk->csr_row_start[c + 1]; ++s) {
      csr_lo[c] = std::min(csr_lo[c], blk->colidx[s]);
      hi        = std::max(hi, blk->colidx[s]);
    }
    csr_span = std::max(csr_span, hi - csr_lo[c]);
  }
  plan_csr_columns(sh, csr_span);
  if (sh.csr_narrow) {
    blk->csr_col_base = csr_lo;
    blk->csr_col16.assign(sh.nslots - sh.csr_base, 0);
    for (int32_t c = 0; c < sh.csr_rows; ++c)
      for (int32_t s = blk->csr_row_start[c]; s < blk->csr_row_start[c + 1]; ++s) blk->csr_col16[s - sh.csr_base] = (uint16_t)(blk->colidx[s] - csr_lo[c]);
  }
  // colidx keeps the 32-bit columns only (see Shape::colidx_first/colidx_end).
  blk->colidx = std::vector<int32_t>(blk->colidx.begin() + sh.colidx_first(), blk->colidx.begin() + sh.colidx_end());

  for (int32_t pos = sh.ell_first; pos < sh.csr_first; ++pos) // empty ELL rows (windowed layout): ~row
    if (len[pos] == 0) blk->perm[pos] = ~blk->perm[pos];

  blk->set_layout(Backend::host, A, blk->vals.data(), sh.nslots, blk->slots.data());
  return blk;
}

const FormatParam kParams[] = {
  {"ell_max_row", "rows of length <= this go to the ELL part (paper: 128); longer rows to the vectorized-CSR part", 128, 0, 1024},
  {"slice_rows", "rows per ELL slice, a power of two (paper: 32 = one warp; a row per lane)", 32, 1, 1024},
  {"block_threads", "threads per block of the single SpMV launch, a power of two in [64,1024] (paper: 256)", 256, 64, 1024},
  {"sort_window", "ELL rows sorted by length only inside windows of this many rows, keeping x/y locality (0: the paper's global sort; -1: auto, windows of 1024, 8192 or 65536 rows, the first that pads at most 10% more than the global sort, else the global sort)", -1, -1, INT32_MAX},
  {"narrow_columns", "1: ELL columns of every 32-row slice spanning at most 65535 columns stored as 16-bit offsets from the slice's smallest column (10 instead of 12 bytes per ELL entry; other slices keep 32-bit columns as two 16-bit halves), when such slices hold at least 85% of the ELL slots; vCSR rows (longer than ell_max_row) as 16-bit offsets from each row's smallest column when every vCSR row spans at most 65535; 0: always 32-bit", 1, 0, 1},
};
static_assert(sizeof(kParams) / sizeof(kParams[0]) == nparams, "kParams follows enum Param");

} // namespace
} // namespace evchyb

const FormatOps evchyb_ops = {
  "evchyb",
  "EVC-HYB (Guo, Gropp, Olson): length-sorted rows, per-length ELL slices for short rows, warp-aligned vectorized CSR for long rows, adaptive threads per row, one launch",
  evchyb::kParams,
  (int)(sizeof(evchyb::kParams) / sizeof(evchyb::kParams[0])),
  0,
  evchyb::build_host,
  evchyb::build_cuda,
  false,
  evchyb::build_uploaded,
};

} // namespace gpuformats
