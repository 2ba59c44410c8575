// Schedule::lines's plan (lines.hpp): two passes over the triangle's entries, on host threads (the
// distances, then the chunks' graph); the rest is per chunk, warp and block (the start steps from
// the chunks' graph), the blocks' edges sorted (a few per block).
#include "lines.hpp"
#include "trisolve.hpp" // level_shape

#include <algorithm>
#include <climits>
#include <exception>
#include <queue>
#include <thread>
#include <utility>

namespace gpuformats {
namespace trisolve {
namespace lines {

namespace {
constexpr int32_t kMinChunk = 8, kMaxChunk = 4096;
constexpr int32_t kThreadRows = 1 << 16; // fewer rows: one thread

// The most frequent distance of kMinChunk..kMaxChunk rows (ties: the smaller), if over n/8 of
// the entries have it, else 0; a divisor of it that at least half as many have instead (the
// smallest): a grid's line, not its plane, when both fit (7 points, nz > ny), and the point
// line of a 4-dof grid (4096, not the 4093-4099 its dofs couple at).
int32_t chunk_of(int32_t n, const std::vector<int64_t> &count)
{
  int32_t best = 0;
  for (int32_t d = kMinChunk; d <= kMaxChunk; ++d)
    if (count[d] > count[best]) best = d;
  if (best == 0 || count[best] <= n / 8) return 0;
  for (int32_t q = kMinChunk; q < best; ++q)
    if (best % q == 0 && 2 * count[q] >= count[best]) return q;
  return best;
}

// j / d for 0 <= j < 2^31 by one multiply (Granlund and Montgomery's round-up method: with
// 2^l >= d, m = ceil(2^(31+l) / d) < 2^32 + 1 is exact over 31 bits), a pass's division an entry
struct Divide {
  uint64_t m = 1;
  int      s = 31;
  explicit Divide(int32_t d)
  {
    int l = 0;
    while ((int64_t(1) << l) < d) ++l;
    s = 31 + l, m = ((uint64_t(1) << s) + (uint64_t)d - 1) / (uint64_t)d;
  }
  int32_t operator()(int32_t j) const { return (int32_t)(((uint64_t)j * m) >> s); }
};

// a count per key, summed then read off through the touched list (the array stays zero)
struct Tally {
  std::vector<int64_t> cnt;
  std::vector<int32_t> touched;
  explicit Tally(std::size_t n) : cnt(n, 0) {}
  void add(int32_t k, int64_t by)
  {
    if (cnt[k] == 0) touched.push_back(k);
    cnt[k] += by;
  }
  template <class F>
  void drain(F &&f)
  {
    for (int32_t k : touched) f(k, cnt[k]), cnt[k] = 0;
    touched.clear();
  }
};

// f(t, lo, hi) over T contiguous ranges of [0, count), range t on thread t (the caller's: t = 0);
// a range's exception (memory) is rethrown here once all have ended
template <class F>
void in_ranges(int T, int64_t count, F &&f)
{
  std::vector<std::thread>         pool;
  std::vector<std::exception_ptr>  err(T);
  const auto                       lo  = [&](int t) { return count * t / T; };
  const auto                       run = [&](int t) {
    try {
      f(t, lo(t), lo(t + 1));
    } catch (...) {
      err[t] = std::current_exception();
    }
  };
  for (int t = 1; t < T; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto &th : pool) th.join();
  for (auto &e : err)
    if (e) std::rethrow_exception(e);
}

// The rows a step a plan must give under o.width (sms = 0 counts 132); 0 where any will do.
int64_t fewest_rows_a_step(const Options &o) { return (int64_t)o.width * (o.sms > 0 ? o.sms : 132); }
} // namespace

std::string refuses_every_fill(int32_t n, const int32_t *rp, const int32_t *ci, const Options &o)
{
  if (n == 0 || o.width <= 0) return "";
  const int64_t wide = fewest_rows_a_step(o);
  for (int upper = 0; upper < 2; ++upper) {
    const int32_t levels = level_shape(n, rp, ci, upper).levels;
    if (n < wide * levels) return std::string(upper ? "U" : "L") + ": lines would solve at most " + std::to_string(n / levels) + " rows a step (the pattern's own " + std::to_string(levels) + " levels), fewer than " + std::to_string(o.width) + " per SM";
  }
  return "";
}

std::string make_plan(const Pattern &T, const Options &o, Plan &P)
{
  P = Plan{};
  const int32_t n = T.n;
  P.n = n;
  if (n == 0) return "an empty triangle";
  const int64_t wide = fewest_rows_a_step(o);
  const auto    narrow = [&](int64_t steps) {
    return "lines would solve " + std::to_string(n / std::max<int64_t>(steps, 1)) + " rows a step, fewer than " + std::to_string(o.width) + " per SM (-mat_gpuformats_trisolve_schedule lines takes them)";
  };
  if (o.levels > 0 && n < wide * o.levels) return narrow(o.levels); // a plan takes at least the levels in steps
  // the two passes over the entries run on up to o.threads threads (ranges of rows, then of
  // chunks), each into its own counts, joined in order: the plan does not depend on the threads
  const int nt = n >= kThreadRows ? std::max(1, std::min(o.threads, 16)) : 1;
  // K and the distances' counts, in any order
  std::vector<int32_t>              Kt(nt, 0);
  std::vector<std::vector<int64_t>> counts(nt, std::vector<int64_t>(o.chunk <= 0 ? kMaxChunk + 1 : 0, 0));
  in_ranges(nt, n, [&](int t, int64_t i0, int64_t i1) {
    int32_t  k     = 0;
    int64_t *count = counts[t].data();
    for (int32_t i = (int32_t)i0; i < (int32_t)i1; ++i) {
      const int32_t lo = T.lo(i), hi = T.hi(i);
      k = std::max(k, hi - lo);
      if (o.chunk <= 0)
        for (int32_t e = lo; e < hi; ++e) {
          const int32_t d = T.upper ? T.ci[e] - i : i - T.ci[e];
          if (d >= kMinChunk && d <= kMaxChunk) ++count[d];
        }
    }
    Kt[t] = k;
  });
  int32_t              K = *std::max_element(Kt.begin(), Kt.end());
  std::vector<int64_t> count(std::move(counts[0]));
  for (int t = 1; t < nt; ++t)
    for (std::size_t d = 0; d < count.size(); ++d) count[d] += counts[t][d];
  if (K > kMaxReads) return "a row reads " + std::to_string(K) + " rows, more than the " + std::to_string(kMaxReads) + " a line's step takes";
  K = K <= 3 ? 3 : K <= 7 ? 7 : kMaxReads; // the kernels' widths
  const int32_t C = o.chunk > 0 ? std::min(o.chunk, n) : chunk_of(n, count);
  if (C == 0) return "no distance of 8 to 4096 rows is frequent: the rows form no lines (-mat_gpuformats_trisolve_lines_chunk sets one)";
  const Divide  div(C);
  const int32_t nch    = (n + C - 1) / C;
  const auto    len_of = [&](int32_t c) { return std::min(n, (c + 1) * C) - c * C; };
  // the chunks' graph: chunk c reads chunk gto[q] gcnt[q] times, a row at position p reading
  // position pj at most goff[q] = pj - p + 1 ahead, q in [gfirst[c], gfirst[c+1]); then the start
  // steps, the longest path at chunk level (reads go to earlier chunks): S(c) = max S(cj) + goff
  struct Edges {
    std::vector<int32_t> first, to, off; // first: the range's chunks' first edges, counted in the range
    std::vector<int64_t> cnt;
  };
  std::vector<Edges> parts(nt);
  in_ranges(nt, nch, [&](int t, int64_t c0, int64_t c1) {
    Edges               &g = parts[t];
    Tally                reads(nch);
    std::vector<int32_t> far(nch, INT32_MIN);
    g.first.push_back(0);
    for (int32_t c = (int32_t)c0; c < (int32_t)c1; ++c) {
      for (int32_t r = c * C, p = 0; p < len_of(c); ++r, ++p) {
        const int32_t i = T.row(r);
        for (int32_t e = T.lo(i); e < T.hi(i); ++e) {
          const int32_t j = T.read(e), cj = div(j);
          if (cj != c) far[cj] = std::max(far[cj], (j - cj * C) - p + 1), reads.add(cj, 1);
        }
      }
      reads.drain([&](int32_t cj, int64_t k) { g.to.push_back(cj), g.cnt.push_back(k), g.off.push_back(far[cj]), far[cj] = INT32_MIN; });
      g.first.push_back((int32_t)g.to.size());
    }
  });
  std::vector<int64_t> S(nch, 0), gcnt;
  std::vector<int32_t> gfirst(nch + 1, 0), gto, goff;
  for (int t = 0, c = 0; t < nt; ++t) {
    const Edges &g = parts[t];
    for (std::size_t k = 0; k + 1 < g.first.size(); ++k, ++c) gfirst[c + 1] = (int32_t)gto.size() + g.first[k + 1];
    gto.insert(gto.end(), g.to.begin(), g.to.end()), gcnt.insert(gcnt.end(), g.cnt.begin(), g.cnt.end()), goff.insert(goff.end(), g.off.begin(), g.off.end());
    parts[t] = Edges{};
  }
  for (int32_t c = 0; c < nch; ++c)
    for (int32_t q = gfirst[c]; q < gfirst[c + 1]; ++q) S[c] = std::max(S[c], S[gto[q]] + goff[q]);
  for (int32_t c = 0; c < nch; ++c) P.steps = std::max<int64_t>(P.steps, S[c] + len_of(c));
  if (o.levels > 0 && o.chunk <= 0 && P.steps > 2 * (int64_t)o.levels) // chunks across the lines serialise them (a line's length off by a few rows)
    return "lines of " + std::to_string(C) + " rows take " + std::to_string(P.steps) + " steps, more than twice the triangle's " + std::to_string(o.levels) + " levels (-mat_gpuformats_trisolve_lines_chunk sets the length)";
  if (n < wide * P.steps) return narrow(P.steps);
  if (P.steps > INT32_MAX) return "more than 2^31 steps";
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
  // the warps' graph from the chunks': warp w reads warp wto[q] wcnt[q] times (first read
  // first), and its most-read other warp (ties: the first read)
  std::vector<int32_t> wgfirst(nw + 1, 0), wto, pred(nw, -1);
  std::vector<int64_t> wcnt, pred_reads(nw, 0);
  Tally                wreads(nw);
  for (int32_t w = 0; w < nw; ++w) {
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c)
      for (int32_t q = gfirst[c]; q < gfirst[c + 1]; ++q)
        if (warp_of[gto[q]] != w) wreads.add(warp_of[gto[q]], gcnt[q]);
    wreads.drain([&](int32_t wj, int64_t k) {
      wto.push_back(wj), wcnt.push_back(k);
      if (k > pred_reads[w]) pred_reads[w] = k, pred[w] = wj;
    });
    wgfirst[w + 1] = (int32_t)wto.size();
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
      for (int32_t q = wgfirst[w]; q < wgfirst[w + 1]; ++q) {
        const int32_t bj = blk_of[wto[q]];
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
  std::vector<int32_t> slot_in_block(nw);
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
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) lo = std::min(lo, S[c]);
    P.warp_smin[w] = (int32_t)lo;
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) {
      const int32_t l = c - wfirst[w];
      P.lane_off[(std::size_t)w * 32 + l] = (int32_t)(S[c] - lo), P.lane_len[(std::size_t)w * 32 + l] = len_of(c);
      rows = std::max<int64_t>(rows, S[c] - lo + len_of(c));
    }
    P.warp_row0[w + 1] = P.warp_row0[w] + rows;
  }
  P.rows = P.warp_row0[nw];
  if (P.rows * 32 > INT32_MAX) return "more than 2^31 slots";
  P.block_s0.assign(nb, INT32_MAX), P.block_s1.assign(nb, 0);
  P.chunk_step.resize(nch), P.chunk_block.resize(nch), P.chunk_thread.resize(nch), P.chunk_at.resize(nch);
  for (int32_t c = 0; c < nch; ++c) {
    const int32_t w = warp_of[c], b = rank[blk_of[w]], l = c - wfirst[w];
    P.block_s0[b]   = (int32_t)std::min<int64_t>(P.block_s0[b], S[c]);
    P.block_s1[b]   = (int32_t)std::max<int64_t>(P.block_s1[b], S[c] + len_of(c));
    P.chunk_step[c] = (int32_t)S[c], P.chunk_block[c] = b, P.chunk_thread[c] = slot_in_block[w] * 32 + l;
    P.chunk_at[c]   = (P.warp_row0[w] + (S[c] - P.warp_smin[w])) * 32 + l;
  }
  return "";
}

} // namespace lines
} // namespace trisolve
} // namespace gpuformats
