// Schedule::lines's plan (lines.hpp): every pass is linear in the triangle's entries but the
// blocks' edges, sorted (a few per block).
#include "lines.hpp"

#include <algorithm>
#include <climits>
#include <queue>
#include <utility>

namespace gpuformats {
namespace trisolve {
namespace lines {

namespace {
constexpr int32_t kMinChunk = 8, kMaxChunk = 4096;

// The most frequent distance of kMinChunk..kMaxChunk rows (ties: the smaller), if over n/8 of
// the entries have it, else 0; a divisor of it that at least half as many have instead (the
// smallest): a grid's line, not its plane, when both fit (7 points, nz > ny), and the point
// line of a 4-dof grid (4096, not the 4093-4099 its dofs couple at).
int32_t chunk_of(int32_t n, const int32_t *rp, const int32_t *ci)
{
  std::vector<int64_t> count(kMaxChunk + 1, 0);
  for (int32_t r = 0; r < n; ++r)
    for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
      const int32_t d = r - ci[e];
      if (d >= kMinChunk && d <= kMaxChunk) ++count[d];
    }
  int32_t best = 0;
  for (int32_t d = kMinChunk; d <= kMaxChunk; ++d)
    if (count[d] > count[best]) best = d;
  if (best == 0 || count[best] <= n / 8) return 0;
  for (int32_t q = kMinChunk; q < best; ++q)
    if (best % q == 0 && 2 * count[q] >= count[best]) return q;
  return best;
}
} // namespace

std::string make_plan(int32_t n, const int32_t *rp, const int32_t *ci, const int32_t *src, const int32_t *diag, const Options &o, Plan &P)
{
  P = Plan{};
  P.n = n;
  if (n == 0) return "an empty triangle";
  int32_t K = 0;
  for (int32_t r = 0; r < n; ++r) K = std::max(K, rp[r + 1] - rp[r]);
  if (K > kMaxReads) return "a row reads " + std::to_string(K) + " rows, more than the " + std::to_string(kMaxReads) + " a line's step takes";
  K = K <= 3 ? 3 : K <= 7 ? 7 : kMaxReads; // the kernels' widths
  const int32_t C = o.chunk > 0 ? std::min(o.chunk, n) : chunk_of(n, rp, ci);
  if (C == 0) return "no distance of 8 to 4096 rows is frequent: the rows form no lines (-mat_gpuformats_trisolve_lines_chunk sets one)";
  const int32_t nch = (n + C - 1) / C;
  const auto    len_of = [&](int32_t c) { return std::min(n, (c + 1) * C) - c * C; };
  // start steps: the longest path at chunk level (reads go to earlier chunks)
  std::vector<int64_t> S(nch, 0);
  for (int32_t c = 0; c < nch; ++c) {
    int64_t s = 0;
    for (int32_t r = c * C; r < c * C + len_of(c); ++r)
      for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
        const int32_t j = ci[e], cj = j / C;
        if (cj != c) s = std::max(s, S[cj] + (j % C) - (r % C) + 1);
      }
    S[c] = s;
  }
  if (o.levels > 0 && o.chunk <= 0) { // chunks across the lines serialise them (a line's length off by a few rows)
    int64_t steps = 0;
    for (int32_t c = 0; c < nch; ++c) steps = std::max<int64_t>(steps, S[c] + len_of(c));
    if (steps > 2 * (int64_t)o.levels)
      return "lines of " + std::to_string(C) + " rows take " + std::to_string(steps) + " steps, more than twice the triangle's " + std::to_string(o.levels) + " levels (-mat_gpuformats_trisolve_lines_chunk sets the length)";
  }
  // warps: runs of at most 32 consecutive chunks whose starts spread at most o.spread, or an
  // eighth of a line if more (a lane idles at most an eighth: a 2D grid of 4 dofs skews 4 a line)
  const int64_t spread = std::max<int64_t>(o.spread, C / 8);
  std::vector<int32_t> warp_of(nch), wfirst;
  for (int32_t c = 0; c < nch;) {
    int64_t lo = S[c], hi = S[c];
    int32_t e = c + 1;
    while (e < nch && e - c < 32 && std::max(hi, S[e]) - std::min(lo, S[e]) <= spread) lo = std::min(lo, S[e]), hi = std::max(hi, S[e]), ++e;
    for (int32_t q = c; q < e; ++q) warp_of[q] = (int32_t)wfirst.size();
    wfirst.push_back(c);
    c = e;
  }
  const int32_t nw = (int32_t)wfirst.size();
  wfirst.push_back(nch);
  int wpb = o.warps > 0 ? std::min(o.warps, 8) : 1;
  if (o.warps <= 0) {
    const int64_t sms = o.sms > 0 ? o.sms : 0;
    if (sms == 0) wpb = 4;
    else
      while (wpb < 8 && (nw + wpb - 1) / wpb > sms) wpb *= 2;
  }
  const auto warp_at = [&](int32_t row) { return warp_of[row / C]; };
  // each warp's most-read other warp: counts in one array, reset through the touched list
  std::vector<int32_t> pred(nw, -1), touched;
  std::vector<int64_t> cnt(nw, 0), pred_reads(nw, 0);
  for (int32_t w = 0; w < nw; ++w) {
    touched.clear();
    for (int32_t r = wfirst[w] * C; r < std::min(n, wfirst[w + 1] * C); ++r)
      for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
        const int32_t wj = warp_at(ci[e]);
        if (wj != w && cnt[wj]++ == 0) touched.push_back(wj);
      }
    int64_t best = 0;
    for (int32_t wj : touched) {
      if (cnt[wj] > best || (cnt[wj] == best && wj < pred[w])) best = cnt[wj], pred[w] = wj;
      cnt[wj] = 0;
    }
    pred_reads[w] = best;
  }
  // blocks along the predecessor chains, wpb warps at most. A warp follows its predecessor only
  // if it reads it a quarter as often as it has rows (a grid's plane below, not the first plane's
  // line beside: those chains skew the blocks into cycles). The blocks' graph (an edge once per
  // reading warp, then unique) in topological order by least start; a cycle halves the warps per
  // block (one warp a block reads only earlier warps: no cycle).
  std::vector<int32_t>                     blk_of(nw), tail, fill, first, indeg, rank;
  std::vector<int64_t>                     bmin;
  std::vector<std::pair<int32_t, int32_t>> edges;
  int32_t                                  nb = 0;
  for (;; wpb /= 2) {
    tail.clear(), fill.clear(), edges.clear();
    for (int32_t w = 0; w < nw; ++w) {
      const int64_t rows = std::min(n, wfirst[w + 1] * C) - wfirst[w] * C;
      const int32_t pb   = pred[w] >= 0 && 4 * pred_reads[w] >= rows ? blk_of[pred[w]] : -1;
      if (pb >= 0 && tail[pb] == pred[w] && fill[pb] < wpb) blk_of[w] = pb, tail[pb] = w, ++fill[pb];
      else blk_of[w] = (int32_t)tail.size(), tail.push_back(w), fill.push_back(1);
    }
    nb = (int32_t)tail.size();
    bmin.assign(nb, INT64_MAX);
    std::vector<int32_t> stamp(nb, -1);
    for (int32_t w = 0; w < nw; ++w) {
      const int32_t b = blk_of[w];
      for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) bmin[b] = std::min(bmin[b], S[c]);
      for (int32_t r = wfirst[w] * C; r < std::min(n, wfirst[w + 1] * C); ++r)
        for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
          const int32_t bj = blk_of[warp_at(ci[e])];
          if (bj != b && stamp[bj] != w) stamp[bj] = w, edges.push_back({bj, b});
        }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    first.assign(nb + 1, 0), indeg.assign(nb, 0), rank.assign(nb, -1);
    for (const auto &e : edges) ++first[e.first + 1], ++indeg[e.second];
    for (int32_t b = 0; b < nb; ++b) first[b + 1] += first[b];
    using Item = std::pair<int64_t, int32_t>; // (least start, block), least first
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    for (int32_t b = 0; b < nb; ++b)
      if (!indeg[b]) ready.push({bmin[b], b});
    int32_t next = 0;
    while (!ready.empty()) {
      const int32_t b = ready.top().second;
      ready.pop();
      rank[b] = next++;
      for (int32_t q = first[b]; q < first[b + 1]; ++q)
        if (--indeg[edges[q].second] == 0) ready.push({bmin[edges[q].second], edges[q].second});
    }
    if (next == nb) break;
    if (wpb == 1) return "the blocks of lines depend on each other in a cycle (the plan's own check)";
  }
  P.C = C, P.K = K, P.wpb = wpb, P.nwarps = nw, P.nblocks = nb;
  P.block_warps.assign((std::size_t)nb * wpb, -1);
  std::vector<int32_t> slot_in_block(nw), lane_of(nch);
  {
    std::vector<int32_t> f(nb, 0);
    for (int32_t w = 0; w < nw; ++w) {
      const int32_t b  = rank[blk_of[w]];
      slot_in_block[w] = f[b];
      P.block_warps[(std::size_t)b * wpb + f[b]++] = w;
    }
  }
  P.warp_smin.assign(nw, 0), P.warp_row0.assign(nw + 1, 0);
  P.lane_off.assign((std::size_t)nw * 32, 0), P.lane_len.assign((std::size_t)nw * 32, 0);
  for (int32_t w = 0; w < nw; ++w) {
    int64_t lo = INT64_MAX, rows = 0;
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) lo = std::min(lo, S[c]), lane_of[c] = c - wfirst[w];
    if (lo > INT32_MAX) return "a start step past 2^31";
    P.warp_smin[w] = (int32_t)lo;
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) {
      const int32_t l = c - wfirst[w];
      P.lane_off[(std::size_t)w * 32 + l] = (int32_t)(S[c] - lo), P.lane_len[(std::size_t)w * 32 + l] = len_of(c);
      rows    = std::max<int64_t>(rows, S[c] - lo + len_of(c));
      P.steps = std::max<int64_t>(P.steps, S[c] + len_of(c));
    }
    P.warp_row0[w + 1] = P.warp_row0[w] + rows;
  }
  P.rows = P.warp_row0[nw];
  if (P.rows * 32 > INT32_MAX || P.steps > INT32_MAX) return "more than 2^31 slots";
  P.block_s0.assign(nb, INT32_MAX), P.block_s1.assign(nb, 0);
  for (int32_t c = 0; c < nch; ++c) {
    const int32_t b = rank[blk_of[warp_of[c]]];
    P.block_s0[b]   = (int32_t)std::min<int64_t>(P.block_s0[b], S[c]);
    P.block_s1[b]   = (int32_t)std::max<int64_t>(P.block_s1[b], S[c] + len_of(c));
  }
  const auto at_of = [&](int32_t r) { // the work vector's index of row r
    const int32_t c = r / C, w = warp_of[c];
    return (int32_t)((P.warp_row0[w] + (S[c] - P.warp_smin[w]) + r % C) * 32 + lane_of[c]);
  };
  const auto step_of = [&](int32_t r) { return S[r / C] + r % C; };
  const auto block_of = [&](int32_t r) { return rank[blk_of[warp_at(r)]]; };
  int64_t need = 1; // the farthest ring read + 1
  for (int32_t r = 0; r < n; ++r)
    for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
      const int64_t d = step_of(r) - step_of(ci[e]);
      if (d <= 0) return "a read of a row not solved at an earlier step (the plan's own check)";
      if (block_of(ci[e]) == block_of(r) && d < o.ring) need = std::max(need, d + 1);
    }
  while (P.R < need) P.R *= 2;
  P.perm_row.assign((std::size_t)P.rows * 32, -1), P.diag_src.assign((std::size_t)P.rows * 32, -1);
  P.ref.assign((std::size_t)P.rows * 32 * K, INT32_MIN), P.val_src.assign((std::size_t)P.rows * 32 * K, -1);
  for (int32_t r = 0; r < n; ++r) {
    const int32_t     at = at_of(r), l = at % 32, b = block_of(r);
    const std::size_t row = (std::size_t)(at / 32);
    P.perm_row[at] = r, P.diag_src[at] = diag ? diag[r] : -1;
    for (int32_t e = rp[r], m = 0; e < rp[r + 1]; ++e, ++m) {
      const int32_t     j = ci[e], wj = warp_at(j);
      const std::size_t q = (row * K + m) * 32 + l;
      const int64_t     d = step_of(r) - step_of(j);
      P.val_src[q] = src[e];
      if (block_of(j) == b && d < P.R) {
        const int32_t t = slot_in_block[wj] * 32 + lane_of[j / C];
        P.ref[q] = -(1 + (t * P.R + (int32_t)(step_of(j) % P.R)));
        ++P.shared_refs;
      } else {
        P.ref[q] = at_of(j);
        ++(block_of(j) == b ? P.global_refs : P.cross_refs);
      }
    }
  }
  return "";
}

} // namespace lines
} // namespace trisolve
} // namespace gpuformats
