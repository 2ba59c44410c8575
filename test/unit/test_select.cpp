// src/select/: the strip partition (the paper's Fig. 11) against every partition enumerated, on
// random block costs; the strip features against a direct count; the block-or-scalar rule on
// block-dense matrices and on ones broken by a single entry, in every mode. Host only.
#include "select/block_layout.hpp"
#include "select/partition.hpp"
#include "formats/bell/bell.hpp"

#include "common/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace gpuformats;
using namespace gpuformats::select;
using gftest::check;

int main()
{
  std::mt19937 rng(20261125);
  // --- the DP against all 2^(N-1) partitions ---
  for (int trial = 0; trial < 300; ++trial) {
    const int N = 1 + trial % 12;
    // A block's cost per format: per-strip costs of that format plus a launch overhead per block,
    // so splits pay and formats differ by strip (as a model's predictions would).
    const int                        nf = 1 + trial % 4;
    std::uniform_real_distribution<> u(0.1, 10.0);
    std::vector<std::vector<double>> strip(nf, std::vector<double>(N));
    for (auto &f : strip)
      for (double &c : f) c = u(rng);
    const double overhead = (trial % 3) * u(rng);
    int          calls    = 0;
    auto         cost     = [&](int i, int j, int *fmt) {
      ++calls;
      double best = INFINITY;
      for (int f = 0; f < nf; ++f) {
        double t = overhead;
        for (int s = i; s <= j; ++s) t += strip[f][s];
        if (t < best) best = t, *fmt = f;
      }
      return best;
    };
    const Partition p = partition_strips(N, cost);
    const std::string tag = "select.dp.trial" + std::to_string(trial) + ".N" + std::to_string(N);
    check(calls == N * (N + 1) / 2, tag + ".one_prediction_per_block");
    // Every partition: bit b of mask set = a split after strip b.
    double brute = INFINITY;
    for (unsigned mask = 0; mask < (1u << (N - 1)); ++mask) {
      double t = 0;
      int    first = 0, f = -1;
      for (int s = 0; s < N; ++s)
        if (s == N - 1 || (mask >> s & 1u)) {
          t += cost(first, s, &f);
          first = s + 1;
        }
      brute = std::min(brute, t);
    }
    check(std::fabs(p.time - brute) <= 1e-9 * brute, tag + ".optimal");
    // The blocks tile the strips in order and their times add up to the total.
    bool   tiles = !p.blocks.empty() && p.blocks.front().first_strip == 0 && p.blocks.back().last_strip == N - 1;
    double sum   = 0;
    for (size_t b = 0; b < p.blocks.size(); ++b) {
      int f = -1;
      tiles = tiles && p.blocks[b].first_strip <= p.blocks[b].last_strip && (b == 0 || p.blocks[b].first_strip == p.blocks[b - 1].last_strip + 1);
      tiles = tiles && std::fabs(p.blocks[b].time - cost(p.blocks[b].first_strip, p.blocks[b].last_strip, &f)) == 0 && f == p.blocks[b].format;
      sum += p.blocks[b].time;
    }
    check(tiles && std::fabs(sum - p.time) <= 1e-9 * p.time, tag + ".blocks_tile_and_add_up");
    int f = -1;
    check(p.single.time == cost(0, N - 1, &f) && p.single.format == f && p.time <= p.single.time, tag + ".single_block_reported");
    check(p.partitioned() == (p.time < p.single.time), tag + ".split_only_when_faster");
  }
  // Equal times keep one block; a huge per-block overhead too.
  {
    const Partition p = partition_strips(6, [](int i, int j, int *f) { *f = 0; return double(j - i + 1); });
    check(!p.partitioned() && p.time == 6.0, "select.dp.ties_keep_one_block");
    const Partition q = partition_strips(5, [](int i, int j, int *f) { *f = i % 2; return 1e6 + (j - i + 1); });
    check(!q.partitioned(), "select.dp.overhead_keeps_one_block");
    // Two halves that want different formats: split between them.
    const Partition r = partition_strips(8, [](int i, int j, int *f) {
      double a = 0, b = 0;
      for (int s = i; s <= j; ++s) a += s < 4 ? 1 : 5, b += s < 4 ? 5 : 1;
      *f = a <= b ? 0 : 1;
      return std::min(a, b) + 0.5;
    });
    check(r.blocks.size() == 2 && r.blocks[0].last_strip == 3 && r.blocks[0].format == 0 && r.blocks[1].format == 1 && r.time == 9.0, "select.dp.splits_where_formats_differ");
    bool threw = false;
    try {
      partition_strips(0, [](int, int, int *) { return 0.0; });
    } catch (const Error &e) {
      threw = e.kind == ErrorKind::bad_input;
    }
    check(threw, "select.dp.refuses_no_strips");
  }
  // --- strip features against a direct count ---
  for (int trial = 0; trial < 50; ++trial) {
    const int32_t         nrows = 1 + (int32_t)(rng() % 300), ncols = 1 + (int32_t)(rng() % 500), S = 1 + (int32_t)(rng() % 64);
    std::vector<int32_t>  rowptr(1, 0), cols;
    for (int32_t i = 0; i < nrows; ++i) {
      const int32_t len = (int32_t)(rng() % 9) * (rng() % 4 != 0); // empty rows too
      std::vector<int32_t> r;
      for (int32_t k = 0; k < len; ++k) r.push_back((int32_t)(rng() % ncols));
      std::sort(r.begin(), r.end());
      r.erase(std::unique(r.begin(), r.end()), r.end());
      cols.insert(cols.end(), r.begin(), r.end());
      rowptr.push_back((int32_t)cols.size());
    }
    CsrView A;
    A.nrows = nrows, A.ncols = ncols, A.nnz = (int64_t)cols.size(), A.rowptr = rowptr.data(), A.colidx = cols.data();
    const std::vector<StripFeatures> f = strip_features(A, S);
    bool ok = (int32_t)f.size() == (nrows + S - 1) / S;
    for (size_t s = 0; s < f.size() && ok; ++s) {
      int64_t nnz = 0, lo = ncols, hi = -1;
      int32_t mx  = 0;
      const int32_t r1 = std::min<int32_t>(nrows, (int32_t)(s + 1) * S);
      for (int32_t i = (int32_t)s * S; i < r1; ++i) {
        nnz += rowptr[i + 1] - rowptr[i];
        mx = std::max(mx, rowptr[i + 1] - rowptr[i]);
        for (int32_t k = rowptr[i]; k < rowptr[i + 1]; ++k) lo = std::min<int64_t>(lo, cols[k]), hi = std::max<int64_t>(hi, cols[k]);
      }
      ok = f[s].first_row == (int32_t)s * S && f[s].rows == r1 - (int32_t)s * S && f[s].nnz == nnz && f[s].max_row == mx && f[s].col_span == (hi >= 0 ? hi - lo + 1 : 0);
    }
    check(ok, "select.features.trial" + std::to_string(trial));
  }
  // --- block or scalar layout ---
  for (int32_t bs = 1; bs <= 9; ++bs) {
    // a random block pattern (nb x nb, diagonal blocks included) with every block dense
    const int32_t        nb = 5 + (int32_t)(rng() % 20);
    std::vector<int32_t> rowptr(1, 0), cols;
    std::vector<std::vector<int32_t>> brow(nb);
    for (int32_t br = 0; br < nb; ++br) {
      brow[br].push_back(br);
      for (int k = 0; k < 3; ++k) brow[br].push_back((int32_t)(rng() % nb));
      std::sort(brow[br].begin(), brow[br].end());
      brow[br].erase(std::unique(brow[br].begin(), brow[br].end()), brow[br].end());
    }
    for (int32_t r = 0; r < nb * bs; ++r) {
      for (int32_t bc : brow[r / bs])
        for (int32_t b = 0; b < bs; ++b) cols.push_back(bc * bs + b);
      rowptr.push_back((int32_t)cols.size());
    }
    const CsrView dense{nb * bs, nb * bs, (int64_t)cols.size(), rowptr.data(), cols.data(), nullptr};
    // the same with the last entry of row 1 (when it exists) dropped: one block no longer dense
    std::vector<int32_t> rowptr2 = rowptr, cols2 = cols;
    const int32_t        drop = std::min<int32_t>(1, nb * bs - 1);
    cols2.erase(cols2.begin() + rowptr2[drop + 1] - 1);
    for (size_t i = drop + 1; i < rowptr2.size(); ++i) --rowptr2[i];
    const CsrView broken{nb * bs, nb * bs, (int64_t)cols2.size(), rowptr2.data(), cols2.data(), nullptr};
    const std::string tag = "select.block_layout.bs" + std::to_string(bs);
    const BlockDecision a = choose_block_layout(dense, bs, BlockMode::automatic);
    const bool          fits = bs >= 2 && bs <= 8;
    check(a.block == fits && (!fits || a.bs == bs) && !a.reason.empty(), tag + ".auto_dense", a.reason);
    const BlockDecision b = choose_block_layout(broken, bs, BlockMode::automatic);
    check(!b.block && (bs == 1 || bs > 8 || b.reason.find("not block-dense (row 1 has") != std::string::npos), tag + ".auto_broken", b.reason);
    // the same row lengths with one column moved out of its block: the cheap check passes it, the
    // builder refuses it, and refused_block_layout says why (auto) or throws (block)
    if (fits && nb > 1) {
      std::vector<int32_t> cols3 = cols;
      const int32_t        k = rowptr[1] - 1; // row 0's last entry: into the next block column's first
      const int32_t        c = cols3[k];
      cols3[k]               = (c / bs + 1) * bs < nb * bs && std::find(cols3.begin() + rowptr[0], cols3.begin() + rowptr[1], (c / bs + 1) * bs) == cols3.begin() + rowptr[1] ? (c / bs + 1) * bs : c;
      std::sort(cols3.begin() + rowptr[0], cols3.begin() + rowptr[1]);
      const std::vector<double> vals(cols3.size(), 1.0);
      const CsrView moved{nb * bs, nb * bs, (int64_t)cols3.size(), rowptr.data(), cols3.data(), vals.data()};
      const BlockDecision m = choose_block_layout(moved, bs, BlockMode::automatic);
      std::string         refusal = "built";
      try {
        bell::build_host(moved, bs);
      } catch (const Error &e) {
        const BlockDecision r = refused_block_layout(e, bs, BlockMode::automatic);
        refusal               = r.block ? "block" : r.reason;
        bool threw            = false;
        try {
          refused_block_layout(e, bs, BlockMode::block);
        } catch (const Error &f) {
          threw = f.kind == ErrorKind::unsupported && std::string(f.what()).find("-mat_gpuformats_block block: bell: not block-dense") != std::string::npos;
        }
        if (!threw) refusal += " (block mode did not throw)";
      }
      const bool moved_any = cols3 != cols;
      check(!moved_any || (m.block && refusal.find("scalar layout: block size " + std::to_string(bs) + " but the block layout refused it (bell: not block-dense") == 0 && refusal.find("Formats that fit") == std::string::npos && refusal.find("did not throw") == std::string::npos),
            tag + ".auto_refused_by_builder", refusal);
    }
    const BlockDecision c = choose_block_layout(dense, bs, BlockMode::scalar);
    check(!c.block && c.reason.find("-mat_gpuformats_block scalar") != std::string::npos, tag + ".scalar_forced", c.reason);
    const auto kind_of = [&](const CsrView &A) {
      try {
        const BlockDecision d = choose_block_layout(A, bs, BlockMode::block);
        return d.block ? std::string("block") : std::string("scalar");
      } catch (const Error &e) {
        return std::string(e.kind == ErrorKind::bad_input ? "bad_input" : e.kind == ErrorKind::unsupported ? "unsupported" : "other") + ": " + e.what();
      }
    };
    const std::string fd = kind_of(dense), fb = kind_of(broken);
    check(fits ? fd == "block" : fd.rfind("bad_input", 0) == 0, tag + ".block_forced_dense", fd);
    check(fits ? fb.rfind("unsupported", 0) == 0 && fb.find("not block-dense") != std::string::npos : fb.rfind("bad_input", 0) == 0, tag + ".block_forced_broken", fb);
  }
  return gftest::finish();
}
