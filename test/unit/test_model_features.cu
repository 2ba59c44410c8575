// The model's strips from the device path (model/features_device.cuh) on the host, without a GPU:
// the very template strips_of_device runs, instantiated on thrust::host with std::vector buffers.
//   device    equal to the host strips_of field by field (first_row, rows, nnz, max_row, col_span,
//             x_sectors, x_footprint, the row-cost terms, the offset view) on the edge cases, the real matrices and random shapes, for strip sizes
//             1, 31, 32, 33, 1000, 270336 and larger than the matrix, sector strides 1, 2, 3, 7,
//             1000 and INT32_MAX
//   brute     x_sectors of both against a count written here independently (a hash set of the
//             sectors of every group of 32 rows): exact at stride 1, the sampled estimate of
//             model.hpp at the others (heavy groups all, every stride-th light group scaled)
//   sampling  sector_stride's values; on a banded matrix of 400000 rows (two H100 strips) the
//             estimate at stride 8 and at the stride of a 100 M-entry matrix (24) within 10% of
//             the exact count; beside two rows of 200000 entries (a third of the sectors), within
//             2% at strides 12 and 24, where sampling the long rows' groups with the rest missed
//             them or counted them stride times
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "formats/suraa/suraa.hpp"
#include "model/features_device.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::model;

static std::vector<Strip> system_strips(const CsrView &A, int32_t S, int32_t stride)
{
  return features::strips_of_system(HostSystem{}, A.rowptr, A.colidx, A.nrows, A.ncols, A.nnz, S, stride);
}

// "" if equal, else the first difference.
static std::string compare(const std::vector<Strip> &h, const std::vector<Strip> &d)
{
  if (h.size() != d.size()) return "strips: host " + std::to_string(h.size()) + ", device " + std::to_string(d.size());
  for (size_t k = 0; k < h.size(); ++k) {
    const select::StripFeatures &a = h[k].f, &b = d[k].f;
    auto diff = [&](const char *field, int64_t x, int64_t y) { return "strip " + std::to_string(k) + " " + field + ": host " + std::to_string(x) + ", device " + std::to_string(y); };
    if (a.first_row != b.first_row) return diff("first_row", a.first_row, b.first_row);
    if (a.rows != b.rows) return diff("rows", a.rows, b.rows);
    if (a.nnz != b.nnz) return diff("nnz", a.nnz, b.nnz);
    if (a.max_row != b.max_row) return diff("max_row", a.max_row, b.max_row);
    if (a.col_span != b.col_span) return diff("col_span", a.col_span, b.col_span);
    if (h[k].x_sectors != d[k].x_sectors) return diff("x_sectors", h[k].x_sectors, d[k].x_sectors);
    if (h[k].x_footprint != d[k].x_footprint) return diff("x_footprint", h[k].x_footprint, d[k].x_footprint);
    if (h[k].row_lanes != d[k].row_lanes) return diff("row_lanes", h[k].row_lanes, d[k].row_lanes);
    if (h[k].row_warps != d[k].row_warps) return diff("row_warps", h[k].row_warps, d[k].row_warps);
    if (h[k].long_nnz != d[k].long_nnz) return diff("long_nnz", h[k].long_nnz, d[k].long_nnz);
    if (h[k].ndiag != d[k].ndiag) return diff("ndiag", h[k].ndiag, d[k].ndiag);
    for (int32_t o = 0; o < kMaxOffsets; ++o)
      if (h[k].offsets[o] != d[k].offsets[o]) return diff(("offsets[" + std::to_string(o) + "]").c_str(), h[k].offsets[o], d[k].offsets[o]);
  }
  return "";
}

// Distinct sectors per strip, by a set (the footprint at stride 1).
static std::vector<int64_t> brute_footprint(const CsrView &A, int32_t S)
{
  std::vector<int64_t> out;
  for (int64_t r = 0; r < A.nrows; r += S) {
    std::set<int32_t> sec;
    for (int32_t e = A.rowptr[r]; e < A.rowptr[std::min<int64_t>(r + S, A.nrows)]; ++e) sec.insert(A.colidx[e] >> 2);
    out.push_back((int64_t)sec.size());
  }
  return out;
}

// Distinct 32-byte sectors (column / 4) and entries of every group of 32 rows, groups counted from
// each strip's first row: [strip][group].
struct BruteGroup {
  int64_t distinct, entries;
};
// long_nnz per strip, row by row: longer than kLongRowEntries and kLongRowMeanFactor x the strip's mean.
static std::vector<int64_t> brute_long_nnz(const CsrView &A, int32_t S)
{
  std::vector<int64_t> out;
  for (int64_t r0 = 0; r0 < A.nrows; r0 += S) {
    const int64_t r1 = std::min<int64_t>(r0 + S, A.nrows), nnz = A.rowptr[r1] - A.rowptr[r0];
    int64_t       n  = 0;
    for (int64_t i = r0; i < r1; ++i) {
      const int64_t len = A.rowptr[i + 1] - A.rowptr[i];
      if (len > kLongRowEntries && len * (r1 - r0) > kLongRowMeanFactor * nnz) n += len;
    }
    out.push_back(n);
  }
  return out;
}

static std::vector<std::vector<BruteGroup>> brute_groups(const CsrView &A, int32_t S)
{
  std::vector<std::vector<BruteGroup>> out;
  std::unordered_set<int32_t>       seen;
  for (int64_t r0 = 0; r0 < A.nrows; r0 += S) {
    const int64_t r1 = std::min<int64_t>(r0 + S, A.nrows);
    out.emplace_back();
    for (int64_t g = r0; g < r1; g += 32) {
      seen.clear();
      for (int64_t i = g; i < std::min<int64_t>(g + 32, r1); ++i)
        for (int32_t e = A.rowptr[i]; e < A.rowptr[i + 1]; ++e) seen.insert(A.colidx[e] / 4);
      out.back().push_back({(int64_t)seen.size(), (int64_t)A.rowptr[std::min<int64_t>(g + 32, r1)] - A.rowptr[g]});
    }
  }
  return out;
}

// A strip's estimate from its groups' counts: every group with more than 4 times the strip's mean
// entries per group, plus the others numbered k = 0, 1, ... with k % stride == 0, scaled by all of
// those others / the sampled ones.
static int64_t brute_estimate(const std::vector<BruteGroup> &groups, int32_t stride)
{
  int64_t nnz = 0, heavy = 0, sum = 0, light = 0, sampled = 0;
  for (const BruteGroup &b : groups) nnz += b.entries;
  for (const BruteGroup &b : groups) {
    if (b.entries * (int64_t)groups.size() > 4 * nnz) heavy += b.distinct;
    else if (light++ % stride == 0) sum += b.distinct, ++sampled;
  }
  return heavy + (sampled ? sum * light / sampled : 0);
}

// Rows with `length(rng, i)` distinct sorted columns in [i - half, i + half] (clipped to the matrix).
template <class LengthFn>
static CsrMatrix banded(int32_t n, int32_t half, uint64_t seed, LengthFn length)
{
  std::mt19937_64 rng(seed);
  CsrMatrix       A;
  A.nrows = A.ncols = n;
  std::vector<int32_t> cols;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t lo = std::max(0, i - half), hi = std::min(n - 1, i + half);
    const int32_t len = std::min(length(rng, i), hi - lo + 1);
    std::uniform_int_distribution<int32_t> col(lo, hi);
    cols.clear();
    while ((int32_t)cols.size() < len) {
      cols.push_back(col(rng));
      if ((int32_t)cols.size() == len) {
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      }
    }
    for (int32_t c : cols) A.colidx.push_back(c), A.values.push_back(1.0);
    A.rowptr.push_back((int32_t)A.colidx.size());
  }
  return A;
}

// A 5-point stencil on an nx x ny grid (boundary rows shorter, their columns offsets of the
// interior's), rows from `first` on replaced by random ones of 3..9 entries where first < n.
static CsrMatrix stencil_then_random(int32_t nx, int32_t ny, int32_t first, uint64_t seed)
{
  std::mt19937_64 rng(seed);
  const int32_t   n = nx * ny;
  CsrMatrix       A;
  A.nrows = A.ncols = n;
  std::vector<int32_t> cols;
  for (int32_t i = 0; i < n; ++i) {
    cols.clear();
    if (i < first) {
      for (int32_t c : {i - nx, i - 1, i, i + 1, i + nx})
        if (c >= 0 && c < n) cols.push_back(c);
    } else {
      const int32_t len = std::uniform_int_distribution<int32_t>(3, 9)(rng);
      for (int32_t k = 0; k < len; ++k) cols.push_back(std::uniform_int_distribution<int32_t>(0, n - 1)(rng));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    }
    for (int32_t c : cols) A.colidx.push_back(c), A.values.push_back(1.0);
    A.rowptr.push_back((int32_t)A.colidx.size());
  }
  return A;
}

int main(int argc, char **argv)
{
  // --- the sampling rule ---
  check(kSectorSampleEntries == 4194304 && sector_stride(0) == 1 && sector_stride(1) == 1 && sector_stride(kSectorSampleEntries) == 1 && sector_stride(kSectorSampleEntries + 1) == 2 && sector_stride(100000000) == 24 &&
            sector_stride((int64_t)INT32_MAX) == 512,
        "features.sector_stride", std::to_string(sector_stride(100000000)));
  // 3 light groups at stride 2: groups 0 and 2 sampled, 10 over 2 of 3 -> 15, rounded down; heavy
  // sectors added as they are.
  check(sampled_x_sectors(0, 10, 2, 1) == 10 && sampled_x_sectors(0, 10, 3, 2) == 15 && sampled_x_sectors(5, 11, 3, 2) == 21 && sampled_x_sectors(0, 7, 2, 1000) == 14 && sampled_x_sectors(0, 0, 0, 1) == 0 &&
            sampled_x_sectors(9, 0, 0, 3) == 9,
        "features.sampled_x_sectors");
  // Heavy: more than 4 times the strip's mean entries per group (1000 entries over 10 groups: 401).
  check(kHeavyGroupFactor == 4 && heavy_group(401, 10, 1000) && !heavy_group(400, 10, 1000) && !heavy_group(0, 1, 0) && heavy_group(1, 2, 0), "features.heavy_group");

  // --- bad arguments ---
  {
    const CsrMatrix M = uniform_rows(10, 10, 1, 3, 1);
    auto refused = [&](auto f) {
      try {
        f();
      } catch (const Error &e) {
        return e.kind == ErrorKind::bad_input;
      }
      return false;
    };
    check(refused([&] { system_strips(M.view(), 0, 1); }) && refused([&] { system_strips(M.view(), 32, 0); }) && refused([&] { strips_of(M.view(), 32, 0); }) && refused([&] { strips_of(M.view(), 0, 1); }),
          "features.refuses_bad_sizes");
  }

  // --- device template = host = brute force ---
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  // Skewed lengths with a third of the rows empty.
  ms.push_back({"skewed_empty_rows", random_rows(30000, 30000, 31, [](std::mt19937_64 &r, int32_t i) { return i % 3 == 1 ? 0 : std::min<int32_t>(3000, (int32_t)(1.0 / std::pow(std::uniform_real_distribution<double>(1e-4, 1.0)(r), 1.1))); })});
  // One row holding most entries, in the middle of a 32-row group and of a strip.
  ms.push_back({"one_huge_row", random_rows(5000, 60000, 32, [](std::mt19937_64 &r, int32_t i) { return i == 1234 ? 50000 : std::uniform_int_distribution<int32_t>(0, 5)(r); })});
  ms.push_back({"banded_20000", banded(20000, 50, 33, [](std::mt19937_64 &r, int32_t) { return std::uniform_int_distribution<int32_t>(1, 30)(r); })});
  ms.push_back({"random_cols_1M", uniform_rows(20000, 1 << 20, 0, 16, 34)});
  // Columns up to INT32_MAX: sectors up to 2^29 in the key's low half.
  ms.push_back({"cols_to_int32_max", uniform_rows(2000, INT32_MAX, 0, 12, 35)});
  // Entries only in odd 32-row groups: stride 2 samples none (the sampled entries are none while nnz > 0).
  ms.push_back({"odd_groups_only", random_rows(3200, 3200, 36, [](std::mt19937_64 &r, int32_t i) { return (i / 32) % 2 ? std::uniform_int_distribution<int32_t>(1, 9)(r) : 0; })});
  // long_nnz: rare rows either side of kLongRowEntries among short ones (the 257s long but not the
  // 256s, where a strip's mean is small), and rows of 300 as common as the short ones (never long).
  ms.push_back({"rows_at_long_edge", random_rows(6000, 9000, 40, [](std::mt19937_64 &, int32_t i) {
                  return i % 97 == 5 ? kLongRowEntries + 1 : i % 97 == 6 ? kLongRowEntries : i % 389 == 7 ? 2000 : 3;
                })});
  ms.push_back({"long_rows_common", random_rows(3000, 9000, 41, [](std::mt19937_64 &, int32_t i) { return i % 2 ? 300 : 3; })});
  ms.push_back({"empty_tail", random_rows(5000, 5000, 37, [](std::mt19937_64 &r, int32_t i) { return i < 1700 ? std::uniform_int_distribution<int32_t>(0, 20)(r) : 0; })});

  // The offset layout's view: stencil strips, a random part, the strip where they meet.
  ms.push_back({"stencil5_then_random", stencil_then_random(100, 120, 6500, 38)});
  ms.push_back({"stencil5", stencil_then_random(90, 90, 1 << 30, 39)});

  { // the offsets themselves: interior strips hold the 5 offsets, the random strips none, the strip
    // where they meet neither; a strip of the boundary rows alone (shorter rows) its own row's
    const CsrMatrix          M = stencil_then_random(100, 120, 6500, 38);
    const std::vector<Strip> h = strips_of(M.view(), 1000, 1);
    const std::array<int32_t, 5> five{-100, -1, 0, 1, 100};
    bool ok = h.size() == 12 && h[6].ndiag == -1 && h[6].offsets[0] == 0 && h[7].ndiag == -1 && h[11].ndiag == -1;
    for (int k = 1; k < 6 && ok; ++k) ok = h[k].ndiag == 5 && std::equal(five.begin(), five.end(), h[k].offsets.begin()) && h[k].offsets[5] == 0;
    ok = ok && h[0].ndiag == 5 && h[0].offsets[0] == -100; // row 100 is its first of 5 entries
    const std::vector<Strip> b = strips_of(M.view(), 50, 1);
    ok = ok && b[0].ndiag == 4 && b[0].offsets[0] == -1 && b[0].offsets[3] == 100; // rows 1..49: -1 0 1 100
    check(ok, "features.offsets.stencil_then_random", h.size() == 12 ? std::to_string(h[0].ndiag) + " " + std::to_string(h[6].ndiag) + " " + std::to_string(b[0].ndiag) : "strips");
  }

  { // the long-row rule itself, on one strip: the rare 257s and 2000s are long, the 256s not; rows of
    // 300 half the rows are not
    const NamedMatrix &edge = *std::find_if(ms.begin(), ms.end(), [](const NamedMatrix &m) { return m.name == "rows_at_long_edge"; });
    const NamedMatrix &common = *std::find_if(ms.begin(), ms.end(), [](const NamedMatrix &m) { return m.name == "long_rows_common"; });
    const CsrView E    = edge.A.view();
    int64_t       want = 0;
    for (int32_t i = 0; i < E.nrows; ++i) want += E.row_length(i) == kLongRowEntries + 1 || E.row_length(i) == 2000 ? E.row_length(i) : 0;
    const int64_t h = strips_of(edge.A.view(), edge.A.nrows, 1)[0].long_nnz, d = system_strips(edge.A.view(), edge.A.nrows, 1)[0].long_nnz;
    const int64_t c = strips_of(common.A.view(), common.A.nrows, 1)[0].long_nnz;
    check(want > 0 && h == want && d == want && c == 0, "features.long_nnz.rule", "want " + std::to_string(want) + ", host " + std::to_string(h) + ", device " + std::to_string(d) + "; common rows " + std::to_string(c));
  }

  const int32_t strides[] = {1, 2, 3, 7, 1000, INT32_MAX};
  for (const NamedMatrix &m : ms) {
    const CsrView     A = m.A.view();
    std::set<int32_t> sizes{1, 31, 32, 33, 1000, 270336, A.nrows + 1, INT32_MAX};
    for (int32_t S : sizes) {
      const std::string                       name = m.name + ".S" + std::to_string(S);
      const std::vector<std::vector<BruteGroup>> brute = brute_groups(A, S);
      std::string                             why_device, why_brute;
      for (int32_t stride : strides) {
        const std::vector<Strip> h = strips_of(A, S, stride), d = system_strips(A, S, stride);
        const std::string        w = compare(h, d);
        if (!w.empty() && why_device.empty()) why_device = "stride " + std::to_string(stride) + ": " + w;
        if (h.size() != brute.size()) {
          if (why_brute.empty()) why_brute = "strips " + std::to_string(h.size()) + " vs " + std::to_string(brute.size());
          continue;
        }
        for (size_t k = 0; k < h.size() && why_brute.empty(); ++k) {
          const int64_t want = brute_estimate(brute[k], stride);
          if (h[k].x_sectors != want || d[k].x_sectors != want)
            why_brute = "stride " + std::to_string(stride) + " strip " + std::to_string(k) + ": brute " + std::to_string(want) + ", host " + std::to_string(h[k].x_sectors) + ", device " + std::to_string(d[k].x_sectors);
        }
      }
      check(why_device.empty(), "features.device_equals_host." + name, why_device);
      check(why_brute.empty(), "features.sectors_equal_brute_force." + name, why_brute);
      std::vector<int64_t> foot, lng;
      for (const Strip &st : strips_of(A, S, 1)) foot.push_back(st.x_footprint), lng.push_back(st.long_nnz);
      check(foot == brute_footprint(A, S), "features.footprint_equals_brute_force." + name);
      check(lng == brute_long_nnz(A, S), "features.long_nnz_equals_brute_force." + name);
    }
  }

  // --- SURAA's terms against SURAA's own plan ---
  // Rows of one length are one segment, so the row rule is the plan's: its threads per row give the
  // lane slots, and its tile blocks (8 warps each; none for rows above a tile) the warps. No G1
  // (max_child_threads 0), windows of 4096 (the default), one strip, a part-filled last window.
  for (int32_t len : {1, 2, 3, 5, 9, 16, 21, 31, 32, 33, 66, 200, 513, 700, 3000}) {
    const int32_t   n = 10000;
    const CsrMatrix B = random_rows(n, 4000, 50 + len, [len](std::mt19937_64 &, int32_t) { return len; });
    const int64_t   params[] = {0, 0, 0, 3, 2, (int64_t)suraa::Params{}.window};
    auto            blk      = suraa_ops.build_host(B.view(), params);
    const auto     *sb       = dynamic_cast<const suraa::SuraaHostBlock *>(blk.get());
    const std::vector<Strip> h = strips_of(B.view(), n + 1, 1), d = system_strips(B.view(), n + 1, 1);
    std::string why = sb && h.size() == 1 && sb->plan.launches.size() == 1 ? compare(h, d) : "no plan or strips";
    if (why.empty()) {
      const int64_t t      = sb->plan.launches[0].threads_per_row;
      const int64_t lanes  = (int64_t)n * t * ((len + t - 1) / t);
      const int64_t warps  = t > suraa::kTileMaxThreads ? (int64_t)n * t / 32 : (int64_t)sb->plan.tile_blocks * 8;
      if (h[0].row_lanes != lanes || h[0].row_warps != warps)
        why = "T " + std::to_string(t) + ": lane_slots " + std::to_string(h[0].row_lanes) + " (plan " + std::to_string(lanes) + "), warps " + std::to_string(h[0].row_warps) + " (plan " + std::to_string(warps) + ")";
    }
    check(why.empty(), "features.suraa_terms_equal_plan.len" + std::to_string(len), why);
  }
  { // Two strips of 5000 rows: windows restart at each strip (4096 + 904 rows each); T = 4 and empty rows.
    const CsrMatrix B = random_rows(10000, 4000, 60, [](std::mt19937_64 &, int32_t i) { return i % 2 ? 5 : 0; });
    const std::vector<Strip> h = strips_of(B.view(), 5000, 1), d = system_strips(B.view(), 5000, 1);
    // Per strip: window of 4096 rows, 2048 of 5 entries (T 4: 64 a block, 32 blocks) and 2048 empty
    // (256 a block, 8); window of 904: 452 (8 blocks) and 452 (2). 50 blocks of 8 warps; 2500 rows x 8 lanes.
    const bool ok = h.size() == 2 && compare(h, d).empty() && h[0].row_warps == 400 && h[1].row_warps == 400 && h[0].row_lanes == 20000 && h[1].row_lanes == 20000;
    check(ok, "features.suraa_terms.windows_per_strip", h.size() == 2 ? std::to_string(h[0].row_warps) + " warps, " + std::to_string(h[0].row_lanes) + " lanes; " + compare(h, d) : "strips");
  }

  // --- the sampled estimate on a large banded matrix ---
  {
    // 400000 rows, 5..40 entries each within +-2000 of the diagonal: two strips of an H100 (270336 rows).
    const CsrMatrix B = banded(400000, 2000, 41, [](std::mt19937_64 &r, int32_t) { return std::uniform_int_distribution<int32_t>(5, 40)(r); });
    const CsrView   A = B.view();
    const int32_t   S = 270336;
    const std::vector<Strip> exact = strips_of(A, S, 1);
    const std::vector<std::vector<BruteGroup>> brute = brute_groups(A, S);
    int64_t                                    exact_total = 0, brute_total = 0;
    for (size_t k = 0; k < exact.size(); ++k) exact_total += exact[k].x_sectors;
    for (const auto &g : brute)
      for (const BruteGroup &c : g) brute_total += c.distinct;
    check(exact.size() == 2 && exact_total == brute_total && exact_total > 0, "features.large_banded.exact_at_stride_1", std::to_string(exact_total) + " vs " + std::to_string(brute_total));
    for (int32_t stride : {8, sector_stride(100000000)}) {
      const std::vector<Strip> h = strips_of(A, S, stride), d = system_strips(A, S, stride);
      check(compare(h, d).empty(), "features.large_banded.device_equals_host.stride" + std::to_string(stride), compare(h, d));
      std::string why;
      int64_t     total = 0;
      for (size_t k = 0; k < h.size() && k < exact.size(); ++k) {
        total += h[k].x_sectors;
        if (std::llabs(h[k].x_sectors - exact[k].x_sectors) * 10 > exact[k].x_sectors && why.empty())
          why = "strip " + std::to_string(k) + ": " + std::to_string(h[k].x_sectors) + " vs exact " + std::to_string(exact[k].x_sectors);
      }
      if (std::llabs(total - exact_total) * 10 > exact_total && why.empty()) why = "total " + std::to_string(total) + " vs exact " + std::to_string(exact_total);
      std::printf("# large banded, stride %d: %lld sampled estimate, %lld exact (%.3f%%)\n", stride, (long long)total, (long long)exact_total, 100.0 * (double)(total - exact_total) / (double)exact_total);
      check(h.size() == exact.size() && why.empty(), "features.large_banded.within_10pct.stride" + std::to_string(stride), why);
      int64_t foot = 0, foot_exact = 0;
      for (size_t k = 0; k < h.size() && k < exact.size(); ++k) foot += h[k].x_footprint, foot_exact += exact[k].x_footprint;
      std::printf("# large banded, footprint stride %d: %lld sampled estimate, %lld exact\n", footprint_stride(stride), (long long)foot, (long long)foot_exact);
      check(foot_exact > 0 && std::llabs(foot - foot_exact) * 20 <= foot_exact, "features.large_banded.footprint_within_5pct.stride" + std::to_string(stride), std::to_string(foot) + " vs " + std::to_string(foot_exact));
    }
  }
  // --- rare long rows: their groups are counted, not sampled ---
  {
    // 400000 rows of 5 entries within +-2 of the diagonal, and rows 1234 and 300000 (one in each
    // H100 strip, in groups a stride of 12 or 24 does not sample) of 200000 random columns.
    const int32_t   n = 400000, S = 270336;
    CsrMatrix       B = banded(n, 2, 42, [](std::mt19937_64 &, int32_t i) { return i == 1234 || i == 300000 ? 0 : 5; });
    CsrMatrix       L;
    std::mt19937_64 rng(43);
    L.nrows = L.ncols = n;
    std::vector<int32_t> cols;
    for (int32_t i = 0; i < n; ++i) {
      if (i == 1234 || i == 300000) {
        cols.clear();
        for (int32_t k = 0; k < 200000; ++k) cols.push_back(std::uniform_int_distribution<int32_t>(0, n - 1)(rng));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      } else cols.assign(B.colidx.begin() + B.rowptr[i], B.colidx.begin() + B.rowptr[i + 1]);
      for (int32_t c : cols) L.colidx.push_back(c), L.values.push_back(1.0);
      L.rowptr.push_back((int32_t)L.colidx.size());
    }
    const CsrView            A     = L.view();
    const std::vector<Strip> exact = strips_of(A, S, 1);
    for (int32_t stride : {12, 24}) {
      const std::vector<Strip> h = strips_of(A, S, stride), d = system_strips(A, S, stride);
      std::string why = compare(h, d);
      for (size_t k = 0; k < h.size() && k < exact.size() && why.empty(); ++k)
        if (std::llabs(h[k].x_sectors - exact[k].x_sectors) * 50 > exact[k].x_sectors) why = "strip " + std::to_string(k) + ": " + std::to_string(h[k].x_sectors) + " vs exact " + std::to_string(exact[k].x_sectors);
      if (h.size() != 2 || exact.size() != 2) why = "strips";
      std::printf("# long rows, stride %d: %s\n", stride, why.empty() ? "within 2% per strip" : why.c_str());
      check(why.empty(), "features.long_rows.within_2pct.stride" + std::to_string(stride), why);
    }
  }
  return finish();
}
