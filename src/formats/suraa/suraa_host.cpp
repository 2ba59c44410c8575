// SURAA host builder (the specification of the layout in suraa.hpp), the plan both builders share
// (segments, groups, launches), the host reference product (the test oracle of the CUDA kernels),
// and suraa_ops.
#include "suraa.hpp"

#include "../../core/row_permutation.hpp"
#include "../../core/text.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>

namespace gpuformats {
namespace suraa {

namespace {

std::string range(int32_t a, int32_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

// Quantile q of the ascending row lengths by linear interpolation between closest ranks, exactly as
// core/row_stats.cpp computes it (numpy's default), from the descending sorted lengths `at` gives.
struct QuantilePositions {
  int32_t lo, hi; // ascending ranks
  double  frac;
};
QuantilePositions quantile_positions(int32_t m, double q)
{
  const double  pos = q * (double)(m - 1);
  const int32_t lo  = (int32_t)std::floor(pos);
  return {lo, std::min(lo + 1, m - 1), pos - (double)lo};
}

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params)
{
  const Params P = read_params(params);
  check_size(A);
  auto          blk = std::make_unique<SuraaHostBlock>();
  const int32_t m   = A.nrows;

  // Sort (Algorithm 2 l.4): lengths and row pointers of the sorted rows, for the plan.
  blk->perm = sorted_row_permutation(A, RowOrder::longest_first, 0);
  std::vector<int32_t> len(m);
  auto rearrange = [&] { // row pointers of the rows in perm's order
    blk->rowptr.assign((size_t)m + 1, 0);
    for (int32_t p = 0; p < m; ++p) {
      len[p]             = A.row_length(blk->perm[p]);
      blk->rowptr[p + 1] = blk->rowptr[p] + len[p];
    }
  };
  rearrange();

  // Segments, groups, launches (Algorithm 2 l.6-17).
  SortedRows rows;
  rows.lengths_at = [&](const std::vector<int32_t> &pos) {
    std::vector<int32_t> out;
    for (int32_t p : pos) out.push_back(len[p]);
    return out;
  };
  rows.rowptr_at = [&](const std::vector<int32_t> &pos) {
    std::vector<int32_t> out;
    for (int32_t p : pos) out.push_back(blk->rowptr[p]);
    return out;
  };
  rows.sum_of_squared_lengths = [&] {
    int64_t s = 0;
    for (int32_t l : len) s += (int64_t)l * l;
    return s;
  };
  Plan &pl = blk->plan;
  pl       = make_plan(P, m, A.ncols, A.nnz, rows);

  // G1 chunks.
  blk->g1_chunk_start.assign((size_t)pl.g1_end + 1, 0);
  for (int32_t r = 0; r < pl.g1_end; ++r) {
    blk->g1_chunk_start[r + 1] = blk->g1_chunk_start[r] + g1_chunks(len[r]);
    if (len[r] > kG1ChunkEntries) pl.g1_multi_chunk_rows++;
  }
  pl.g1_chunks  = blk->g1_chunk_start[pl.g1_end];
  pl.empty_rows = (int32_t)std::count(len.begin(), len.end(), 0);

  // Tiles: the G3 and short G2 rows back in windows of the original order (suraa.hpp), then
  // rearrange the CSR (Algorithm 2 l.5) in the final order.
  Tiles t          = tile_rows(pl, blk->perm);
  blk->block_first = std::move(t.block_first);
  blk->block_info  = std::move(t.block_info);
  if (pl.tiles) rearrange();
  blk->colidx.assign(A.nnz, 0);
  blk->vals.assign(A.nnz, 0.0);
  blk->slots.assign(A.nnz, 0);
  for (int32_t p = 0; p < m; ++p) {
    const int32_t i = blk->perm[p];
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const int32_t slot = blk->rowptr[p] + (k - A.rowptr[i]);
      blk->slots[k]      = slot;
      blk->colidx[slot]  = A.colidx[k];
      blk->vals[slot]    = A.values[k];
    }
  }

  blk->set_layout(Backend::host, A, blk->vals.data(), A.nnz, blk->slots.data()); // no padding: a slot per nonzero
  return blk;
}

} // namespace

int32_t tiled_begin(const Plan &pl)
{
  int32_t b = pl.nrows;
  for (const Launch &l : pl.launches)
    if (is_tiled(l)) b = std::min(b, l.begin);
  return b;
}

Tiles tile_rows(Plan &pl, std::vector<int32_t> &perm)
{
  Tiles         t;
  const int32_t W = pl.params.window, begin = tiled_begin(pl), nonempty_end = nonempty_end_of(pl);
  if (W <= 0 || pl.nrows <= begin) return t;
  std::vector<std::pair<int32_t, int32_t>> key_row; // (tile_key, row): sorted, the row breaks ties
  key_row.reserve((size_t)(pl.nrows - begin));
  for (const Launch &l : pl.launches)
    if (is_tiled(l))
      for (int32_t p = l.begin; p < l.end; ++p) key_row.push_back({tile_key(perm[p], W, p < nonempty_end ? l.threads_per_row : 0), perm[p]});
  std::sort(key_row.begin(), key_row.end());
  for (size_t j = 0; j < key_row.size(); ++j) perm[(size_t)begin + j] = key_row[j].second;
  for (size_t a = 0; a < key_row.size();) { // a tile: a run of equal keys, cut into blocks
    size_t b = a + 1;
    while (b < key_row.size() && key_row[b].first == key_row[a].first) ++b;
    const int32_t T = key_threads(key_row[a].first), per = tile_block_rows(T);
    for (size_t q = a; q < b; q += (size_t)per) {
      t.block_first.push_back(begin + (int32_t)q);
      t.block_info.push_back(tile_info((int32_t)std::min<size_t>((size_t)per, b - q), T));
    }
    ++t.tiles;
    a = b;
  }
  pl.tile_begin  = begin;
  pl.tiles       = t.tiles;
  pl.tile_blocks = (int32_t)t.block_first.size();
  return t;
}

Params read_params(const int64_t *params)
{
  const auto param = [&](Param i) { return checked_param(suraa_ops, params, i); }; // the ranges: kParams
  const int64_t w = param(param_window);
  if (w != 0 && w < kMinWindow) throw Error(ErrorKind::bad_input, "suraa: -mat_suraa_window must be 0 (G3 in per-T launches, the paper's order) or a row count of at least " + std::to_string(kMinWindow) + "; got " + std::to_string(w));
  Params P;
  P.window            = (int32_t)w;
  P.subwarp_entries   = (int32_t)param(param_subwarp_entries);
  P.segment_rows      = param(param_segment_rows);
  P.max_child_threads = (int32_t)param(param_max_child_threads);
  P.dynamic           = param(param_dynamic) == 1;
  P.streams           = (int32_t)param(param_streams);
  return P;
}

void check_size(const CsrView &A)
{
  if (A.nnz > INT32_MAX) throw Error(ErrorKind::unsupported, "suraa: " + std::to_string(A.nnz) + " nonzeros exceed the 2^31-1 the int32 row pointers and slot map address; split the matrix over more ranks.");
}

Plan make_plan(const Params &P, int32_t m, int32_t ncols, int64_t nnz, const SortedRows &rows)
{
  Plan pl;
  pl.params = P;
  pl.nrows  = m;
  pl.ncols  = ncols;
  pl.nnz    = nnz;
  if (m == 0) return pl;

  // O(1) reads of the sorted lengths: ends and quartiles (ascending rank j = position m-1-j).
  const QuantilePositions a = quantile_positions(m, 0.25), b = quantile_positions(m, 0.75);
  const std::vector<int32_t> l = rows.lengths_at({0, m - 1, m - 1 - a.lo, m - 1 - a.hi, m - 1 - b.lo, m - 1 - b.hi});
  pl.max_length = l[0];
  pl.min_length = l[1];
  pl.q1         = l[2] + a.frac * (l[3] - l[2]);
  pl.q3         = l[4] + b.frac * (l[5] - l[4]);
  pl.iqr        = pl.q3 - pl.q1;

  // Segment size (equation 1 and the rules of suraa.hpp).
  const double cbrt_m = std::cbrt((double)m);
  if (P.segment_rows > 0) {
    pl.rule         = SegmentRule::override_rows;
    pl.segment_rows = (int32_t)std::min<int64_t>(P.segment_rows, m);
  } else if (pl.max_length == pl.min_length) {
    pl.rule         = SegmentRule::single_length;
    pl.bins         = 1;
    pl.segment_rows = m;
  } else {
    if (pl.iqr > 0) {
      pl.rule  = SegmentRule::freedman_diaconis;
      pl.width = 2.0 * pl.iqr / cbrt_m;
    } else {
      pl.rule                 = SegmentRule::scott;
      const int64_t sumsq     = rows.sum_of_squared_lengths();
      const double  mean      = (double)nnz / (double)m;
      pl.stddev               = std::sqrt(std::max(0.0, (double)sumsq / (double)m - mean * mean));
      pl.width                = 3.49 * pl.stddev / cbrt_m;
    }
    const double bins = pl.width > 0 ? std::ceil((double)(pl.max_length - pl.min_length) / pl.width) : (double)m;
    pl.bins           = (int64_t)std::clamp(bins, 1.0, (double)m);
    const int64_t raw = ((int64_t)m + pl.bins - 1) / pl.bins;
    const int64_t S   = std::max<int64_t>(kWarp, (raw + kWarp - 1) / kWarp * kWarp);
    pl.segment_rows   = (int32_t)std::min<int64_t>(S, m);
  }
  const int32_t S = pl.segment_rows;
  pl.segments     = (int32_t)(((int64_t)m + S - 1) / S);

  // Segment boundaries and their nonzeros.
  std::vector<int32_t> bpos(pl.segments + 1);
  for (int32_t s = 0; s <= pl.segments; ++s) bpos[s] = (int32_t)std::min<int64_t>((int64_t)s * S, m);
  const std::vector<int32_t> bptr = rows.rowptr_at(bpos);
  auto seg_rows = [&](int32_t s) { return (int64_t)(bpos[s + 1] - bpos[s]); };
  auto seg_nnz  = [&](int32_t s) { return (int64_t)bptr[s + 1] - bptr[s]; };
  auto is_long  = [&](int32_t s) { return seg_nnz(s) >= (int64_t)kLongMean * seg_rows(s); }; // mean >= 32

  // Groups (section 4.1): G1 = leading long segments while whole segments fit max_child_threads.
  int32_t s = 0;
  while (s < pl.segments && is_long(s) && bpos[s + 1] <= P.max_child_threads) ++s;
  pl.g1_segments = s;
  pl.g1_end      = bpos[s];
  while (s < pl.segments && is_long(s)) ++s;
  pl.g2_segments = s - pl.g1_segments;
  pl.g2_end      = bpos[s];
  pl.g3_segments = pl.segments - s;
  pl.g1_nnz      = bptr[pl.g1_segments];
  pl.g2_nnz      = (int64_t)bptr[pl.g1_segments + pl.g2_segments] - pl.g1_nnz;
  pl.g3_nnz      = nnz - pl.g1_nnz - pl.g2_nnz;

  // Launches in the paper's order: G3 (one sub-warp launch per run of equal T), G2 (one per run of
  // equal Y), G1. Means do not increase along the segments, so neither do T and Y: one run per value.
  int32_t order = 0;
  for (int32_t t = pl.g1_segments + pl.g2_segments; t < pl.segments;) {
    const int32_t T = subwarp_threads(seg_nnz(t), seg_rows(t), pl.params.subwarp_entries);
    int32_t       u = t + 1;
    while (u < pl.segments && subwarp_threads(seg_nnz(u), seg_rows(u), pl.params.subwarp_entries) == T) ++u;
    pl.launches.push_back({Kernel::subwarp, bpos[t], bpos[u], t, u - t, T, (int64_t)bptr[u] - bptr[t], order++});
    t = u;
  }
  for (int32_t t = pl.g1_segments; t < pl.g1_segments + pl.g2_segments;) {
    const int32_t Y = vector_threads(seg_nnz(t) / seg_rows(t));
    int32_t       u = t + 1;
    while (u < pl.g1_segments + pl.g2_segments && vector_threads(seg_nnz(u) / seg_rows(u)) == Y) ++u;
    pl.launches.push_back({Kernel::vector, bpos[t], bpos[u], t, u - t, Y, (int64_t)bptr[u] - bptr[t], order++});
    t = u;
  }
  if (pl.g1_segments) pl.launches.push_back({Kernel::g1, 0, pl.g1_end, 0, pl.g1_segments, 0, pl.g1_nnz, -1});
  return pl;
}

std::size_t bytes(const Plan &pl)
{
  // values + column indices + sorted row pointers + perm + G1 chunk starts.
  return (std::size_t)pl.nnz * 12 + ((std::size_t)pl.nrows + 1) * 4 + (std::size_t)pl.nrows * 4 + (pl.g1_end ? ((std::size_t)pl.g1_end + 1) * 4 : 0) + (std::size_t)pl.tile_blocks * 8;
}

void describe(const Plan &pl, std::vector<LayoutStat> &out)
{
  const double csr = csr_bytes(pl.nnz, pl.nrows);
  const double b   = (double)bytes(pl);
  out.push_back({"rows", std::to_string(pl.nrows)});
  out.push_back({"columns", std::to_string(pl.ncols)});
  out.push_back({"nonzeros", std::to_string(pl.nnz)});
  out.push_back({"empty rows", std::to_string(pl.empty_rows)});
  out.push_back({"row order", pl.params.window > 0 ? "sorted by length, longest first (ties: first column, row) for the plan; tiled rows then by window of " + std::to_string(pl.params.window) + " matrix rows, threads per row descending, row; CSR in that order, y[perm[p]] stored"
                                                  : "sorted by length, longest first (ties: first column, row); CSR of the sorted rows, y[perm[p]] stored"});
  out.push_back({"row lengths", "min " + std::to_string(pl.min_length) + ", max " + std::to_string(pl.max_length) + ", q1 " + format_number(pl.q1, "%.3g") + ", q3 " + format_number(pl.q3, "%.3g") + ", IQR " + format_number(pl.iqr, "%.3g")});
  std::string rule;
  switch (pl.rule) {
  case SegmentRule::none: rule = "none (no rows)"; break;
  case SegmentRule::single_length: rule = "every row has the same length: one Freedman-Diaconis bin, one segment"; break;
  case SegmentRule::freedman_diaconis:
    rule = "Freedman-Diaconis: h = 2 IQR / cbrt(m) = " + format_number(pl.width, "%.3g") + " nonzeros/row, B = ceil((max-min)/h) = " + std::to_string(pl.bins) + " bins, ceil(m/B) rows rounded up to a warp";
    break;
  case SegmentRule::scott:
    rule = "IQR = 0: Scott's rule h = 3.49 sigma / cbrt(m) = " + format_number(pl.width, "%.3g") + " (sigma " + format_number(pl.stddev, "%.3g") + "), B = " + std::to_string(pl.bins) + " bins, ceil(m/B) rows rounded up to a warp";
    break;
  case SegmentRule::override_rows: rule = "-mat_suraa_segment_rows " + std::to_string(pl.params.segment_rows); break;
  }
  out.push_back({"segment rule", rule});
  out.push_back({"segment rows", std::to_string(pl.segment_rows) + " (" + std::to_string(pl.segments) + " segments)"});
  const int32_t k = pl.params.streams;
  auto stream_of  = [&](const Launch &l) { return l.order < 0 || k == 0 ? std::string("PETSc's") : "extra " + std::to_string(1 + l.order % k); };
  for (const Launch &l : pl.launches) {
    const std::string rows = std::to_string(l.end - l.begin) + " rows " + range(l.begin, l.end) + ", " + std::to_string(l.nnz) + " nonzeros, " + std::to_string(l.segments) + " segments";
    switch (l.kernel) {
    case Kernel::subwarp: {
      const int32_t T = l.threads_per_row;
      out.push_back({"G3 (mean < 32)", rows + ", sub-warp kernel T = " + std::to_string(T) + " thread" + (T == 1 ? "" : "s") + "/row (" + std::to_string(kSubwarpBlockThreads / T) + " rows/block, T = smallest power of two >= mean/" + std::to_string(pl.params.subwarp_entries) +
                                         (T == 1 ? ": the paper's scalar row" : ", coalesced") + "), stream " + stream_of(l)});
      break;
    }
    case Kernel::vector: out.push_back({"G2 (mean >= 32)", rows + ", vector kernel Y = " + std::to_string(l.threads_per_row) + " threads/row, stream " + stream_of(l)}); break;
    case Kernel::g1:
      out.push_back({"G1 (long rows, <= " + std::to_string(pl.params.max_child_threads) + ")",
                     rows + ", " + std::to_string(pl.g1_chunks) + " chunk blocks (" + std::to_string(pl.g1_multi_chunk_rows) + " rows > " + std::to_string(kG1ChunkEntries) + " entries), " +
                       (pl.params.dynamic ? "dynamic parallelism: parent thread per row launches a child grid (" + std::to_string(l.end - l.begin) + " device launches/product)"
                                          : "host-launched block-per-chunk kernel (" + std::to_string(kG1BlockThreads) + " threads)") +
                       ", stream " + stream_of(l)});
      break;
    }
  }
  if (pl.params.window > 0)
    out.push_back({"tiles", std::to_string(pl.nrows - pl.tile_begin) + " rows " + range(pl.tile_begin, pl.nrows) + " (G3, and G2 of Y <= " + std::to_string(kTileMaxThreads) + ") in " + std::to_string(pl.tiles) + " tiles (window, threads per row; empty rows last in a window) of " +
                             std::to_string(pl.tile_blocks) + " blocks, one launch of persistent blocks (the lines above say which rows take which T or Y; empty-row blocks do nothing when beta = 1)"});
  if (!pl.g1_segments) out.push_back({"G1 (long rows)", "empty" + std::string(pl.params.max_child_threads < pl.segment_rows ? " (a segment is longer than max_child_threads)" : "")});
  out.push_back({"groups rows G1/G2/G3", std::to_string(pl.g1_end) + " / " + std::to_string(pl.g2_end - pl.g1_end) + " / " + std::to_string(pl.nrows - pl.g2_end)});
  out.push_back({"groups nonzeros G1/G2/G3", std::to_string(pl.g1_nnz) + " / " + std::to_string(pl.g2_nnz) + " / " + std::to_string(pl.g3_nnz)});
  const int32_t tiled    = (int32_t)std::count_if(pl.launches.begin(), pl.launches.end(), [](const Launch &l) { return is_tiled(l); });
  const int32_t launches = (int32_t)pl.launches.size() - (pl.tiles ? tiled - 1 : 0); // tiles: one launch for them all
  const int32_t other    = launches - (pl.g1_segments ? 1 : 0); // G3 + G2 launches
  out.push_back({"launches per product", std::to_string(launches) + " (" + std::to_string(k ? std::min(k, other) : 0) + " of the " + std::to_string(k) + " extra streams used, G1 on PETSc's stream)"});
  out.push_back({"padding", "none (nslots = nnz)"});
  out.push_back({"bytes", std::to_string((int64_t)b)});
  out.push_back({"CSR bytes", std::to_string((int64_t)csr) + " (suraa/CSR = " + format_number(csr > 0 ? b / csr : 0.0, "%.3f") + ")"});
}

const FormatParam kParams[] = {
  {"segment_rows", "rows per segment; 0: Freedman-Diaconis rule on the sorted row lengths (Scott's rule when IQR = 0, at least a warp)", 0, 0, INT32_MAX},
  {"max_child_threads", "G1 (dynamic kernel) takes whole leading segments of mean length >= 32 up to this many rows; 0: no G1", 2048, 0, 1 << 20},
  {"dynamic", "G1 kernel: 1 = dynamic parallelism (parent thread per row launches a child grid), 0 = host-launched block-per-chunk kernel", 0, 0, 1},
  {"streams", "extra CUDA streams for the G3 and G2 launches (0: all on PETSc's stream)", 3, 0, suraa::kMaxStreams},
  {"subwarp_entries", "G3 (rows of mean < 32): entries per lane E; a segment runs T = smallest power of two >= mean/E threads per row (2: the paper's G2 rule)", 2, 1, 32},
  {"window", "G3 rows and G2 rows of Y <= 256 run in one launch of tiles: by window of this many rows of the matrix order, then threads per row (x and y read and written where the matrix has them); 0: one launch per T or Y over the length-sorted rows (the paper)", 4096, 0, INT32_MAX},
};
static_assert(sizeof(kParams) / sizeof(kParams[0]) == nparams, "kParams follows enum Param");

} // namespace suraa

namespace suraa {
namespace {
// The model's row classes (row_cost.hpp), read off the rules above for a row that is its own
// segment at the default parameters: T of G3 below kLongMean, Y of G2 above, tiles up to
// kTileMaxThreads threads, windows of Params{}.window rows.
RowCost row_cost_table()
{
  RowCost r{"lane_slots", "suraa_warps", Params{}.window, kSubwarpBlockThreads, 0, {}, {}, 2, kMaxThreadsPerRow};
  for (int32_t len = 1;; ++len) {
    const int32_t t = len < kLongMean ? subwarp_threads(len, 1, Params{}.subwarp_entries) : vector_threads(len);
    if (t > kTileMaxThreads) break;
    if (r.nclasses == 0 || r.threads[r.nclasses - 1] != t) r.threads[r.nclasses++] = t;
    r.max_len[r.nclasses - 1] = len;
  }
  return r;
}
const RowCost kRowCost = row_cost_table();
} // namespace
} // namespace suraa

static_assert(suraa::kMaxStreams <= kMaxExtraStreams, "raise kMaxExtraStreams");

extern const FormatOps suraa_ops = {
  "suraa",
  "SURAA (Muhammed et al.): rows sorted longest first, Freedman-Diaconis segments, G1/G2/G3 by segment mean run by dynamic-parallelism / vector / sub-warp CSR kernels on streams",
  suraa::kParams,
  suraa::nparams,
  suraa::kMaxStreams,
  suraa::build_host,
  suraa::build_cuda,
  false,
  suraa::build_uploaded,
  &suraa::kRowCost,
};

} // namespace gpuformats
