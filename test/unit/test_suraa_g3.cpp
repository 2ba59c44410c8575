// SURAA's G3 sub-warp kernel on the host, without a GPU: the pure functions the kernel and the plan
// are made of (suraa.hpp, suraa_device.cuh), and an emulation of every G3 launch built from them.
//   rule      subwarp_threads: T a power of two in [1, 32], the smallest with 2 T >= mean
//   mapping   subwarp_blocks / subwarp_thread: each position of a launch gets lanes 0..T-1 exactly
//             once, the T lanes of a row are one aligned width-T group of one warp, threads past the
//             end only in the last block, no int32 wrap near 2^31
//   lane dot  subwarp_lane_dot<T>: the lanes' partials add up to the row (integer data: exact, so an
//             entry missed or read twice shows), rows empty, shorter than T, of length 1, at odd
//             and even starts, and at indices next to 2^31 - 1
//   plan      make_plan's G3 launches: exactly [g2_end, nrows), segment-aligned, one T per launch
//             equal to every segment's rule, runs of equal T merged, stream order as documented
//   emulated  the kernel's arithmetic, warp by warp (the width-T __shfl_down_sync emulated, lanes past
//             the end included), against the CSR product: every G3 row stored once, nothing else
//             touched, alpha/beta semantics (beta == 0 over NaN, beta == 1 skipping empty rows)
//   tiles     tile_g3_rows (-mat_suraa_window): only the G3 rows move, each keeps its plan's T (0
//             for an empty row), order (window, T descending, empty, row), blocks cover them once,
//             <= 256 / T rows (256 empty ones), a tile's blocks full but its last; the emulated tile
//             kernel gives the CSR product (the same checks as above), windows 0, 32, 100, 4096
//   describe  -mat_view ::ascii_info shows G3's threads per row
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "core/row_permutation.hpp"
#include "formats/suraa/suraa.hpp"
#include "formats/suraa/suraa_device.cuh"

#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::suraa;

static const int32_t kTs[] = {1, 2, 4, 8, 16, 32};

static bool is_pow2_in_range(int32_t T) { return T >= 1 && T <= kWarp && (T & (T - 1)) == 0; }

// ---------------------------------------------------------------------------------------------
// The T rule

static void test_rule()
{
  bool        ok = true;
  std::string why;
  for (int64_t rows : {1, 2, 3, 7, 32, 1000, 123457})
    for (int64_t nnz = 0; nnz <= 80 * rows; nnz += std::max<int64_t>(1, rows / 7)) {
      const int32_t T = subwarp_threads(nnz, rows);
      // a power of two in [1, 32]; 2 T >= mean unless clamped; the smallest such power
      const bool good = is_pow2_in_range(T) && (2 * (int64_t)T * rows >= nnz || T == kWarp) && (T == 1 || 2 * (int64_t)(T / 2) * rows < nnz);
      if (!good && ok) why = "nnz " + std::to_string(nnz) + " rows " + std::to_string(rows) + " -> T " + std::to_string(T);
      ok = ok && good;
    }
  check(ok, "suraa_g3.rule.smallest_pow2_with_2T_ge_mean", why);
  struct Case {
    int64_t nnz, rows;
    int32_t T;
  };
  const Case cases[] = {{0, 5, 1},      {0, 0, 1},     {1, 1, 1},      {2, 1, 1},        {200, 100, 1},  {201, 100, 2},  {3, 1, 2},
                        {4, 1, 2},      {5, 1, 4},     {7, 1, 4},      {8, 1, 4},        {9, 1, 8},      {16, 1, 8},     {17, 1, 16},
                        {27, 1, 16},    {31, 1, 16},   {3199, 100, 16}, {32, 1, 16},     {33, 1, 32},    {64, 1, 32},    {1000000, 1, 32},
                        {6 * 32 + 7, 32, 4}};
  for (const Case &c : cases) {
    const int32_t T = subwarp_threads(c.nnz, c.rows);
    check(T == c.T, "suraa_g3.rule.nnz" + std::to_string(c.nnz) + "_rows" + std::to_string(c.rows), "T " + std::to_string(T) + ", want " + std::to_string(c.T));
  }
  // G3 holds means < 32: T <= 16 there, so a row's lanes never fill a whole warp.
  bool g3 = true;
  for (int64_t rows : {1, 5, 32, 999})
    for (int64_t nnz = 0; nnz < 32 * rows; ++nnz) g3 = g3 && subwarp_threads(nnz, rows) <= 16;
  check(g3, "suraa_g3.rule.g3_means_give_T_le_16");
}

// ---------------------------------------------------------------------------------------------
// Thread -> (position, lane)

static void test_mapping()
{
  for (int32_t T : kTs) {
    bool        ok = true;
    std::string why;
    for (int32_t begin : {0, 5, 96, 1 << 20})
      for (int32_t n : {1, 2, 7, 31, 32, 33, 63, 255, 256, 257, 1000, 4099}) {
        if (!ok) break;
        const int64_t blocks = subwarp_blocks(n, T), per_block = kSubwarpBlockThreads / T;
        std::vector<uint32_t> lanes(n, 0); // bit t: lane t seen
        int64_t               past = 0;
        for (int64_t b = 0; b < blocks && ok; ++b)
          for (uint32_t th = 0; th < (uint32_t)kSubwarpBlockThreads; ++th) {
            const SubwarpThread s = subwarp_thread(begin, (uint32_t)b, th, T), g = subwarp_thread(begin, (uint32_t)b, th / T * T, T);
            // the row's lanes: one aligned group of T lanes of one warp, lane = position in the group
            if (s.lane != (int32_t)(th % T) || g.p != s.p || g.lane != 0 || th / kWarp != (th / T * T) / kWarp) {
              ok  = false;
              why = "group of thread " + std::to_string(th);
              break;
            }
            if (s.p < begin) {
              ok  = false;
              why = "position before begin";
              break;
            }
            if (s.p >= (int64_t)begin + n) {
              ++past;
              if (b != blocks - 1) ok = false, why = "thread past the end outside the last block";
              continue;
            }
            uint32_t &seen = lanes[s.p - begin];
            if (seen >> s.lane & 1u) ok = false, why = "lane twice";
            seen |= 1u << s.lane;
          }
        const uint32_t all = T == 32 ? 0xffffffffu : (1u << T) - 1;
        for (int32_t i = 0; i < n && ok; ++i)
          if (lanes[i] != all) ok = false, why = "position " + std::to_string(i) + " misses lanes";
        if (ok && (blocks - 1) * per_block >= n) ok = false, why = "a block too many";
        if (ok && past >= per_block * T) ok = false, why = "a whole block past the end";
        if (!ok) {
          why += " (begin " + std::to_string(begin) + ", n " + std::to_string(n) + ")";
          break;
        }
      }
    check(ok, "suraa_g3.mapping.T" + std::to_string(T), why);
  }
  // Last block of a launch ending at 2^31 - 1: positions past it are computed in int64, not wrapped.
  bool ok = true;
  for (int32_t T : kTs) {
    const int32_t begin = INT32_MAX - 3, n = 3;
    const int64_t blocks = subwarp_blocks(n, T);
    ok = ok && blocks == 1;
    for (uint32_t th = 0; th < (uint32_t)kSubwarpBlockThreads; ++th) {
      const SubwarpThread s = subwarp_thread(begin, 0, th, T);
      ok = ok && s.p == (int64_t)begin + th / T && (s.p < (int64_t)begin + n) == (th / T < 3);
    }
    const SubwarpThread s = subwarp_thread(INT32_MAX - 600, 7, kSubwarpBlockThreads - 1, T); // p > 2^31 - 1
    ok = ok && s.p == (int64_t)INT32_MAX - 600 + 7LL * (kSubwarpBlockThreads / T) + (kSubwarpBlockThreads - 1) / T;
  }
  check(ok, "suraa_g3.mapping.int64_past_2^31");
}

// ---------------------------------------------------------------------------------------------
// One row, T lanes

// Width-T __shfl_down_sync butterfly over a warp's 32 values, as the hardware does it: a source lane
// outside the caller's aligned group of T lanes gives the caller's own value.
static void emulate_subwarp_sum(double v[kWarp], int32_t T)
{
  for (int32_t offset = T / 2; offset > 0; offset >>= 1) {
    double next[kWarp];
    for (int32_t l = 0; l < kWarp; ++l) next[l] = v[l] + ((l % T) + offset < T ? v[l + offset] : v[l]);
    for (int32_t l = 0; l < kWarp; ++l) v[l] = next[l];
  }
}

template <int T>
static double lane_dot(int32_t rs, int32_t re, int32_t t, const int32_t *c, const double *v, const double *x)
{
  return subwarp_lane_dot<T>(rs, re, t, c, v, x);
}
static double lane_dot_rt(int32_t T, int32_t rs, int32_t re, int32_t t, const int32_t *c, const double *v, const double *x)
{
  switch (T) {
  case 1: return lane_dot<1>(rs, re, t, c, v, x);
  case 2: return lane_dot<2>(rs, re, t, c, v, x);
  case 4: return lane_dot<4>(rs, re, t, c, v, x);
  case 8: return lane_dot<8>(rs, re, t, c, v, x);
  case 16: return lane_dot<16>(rs, re, t, c, v, x);
  default: return lane_dot<32>(rs, re, t, c, v, x);
  }
}

// A row's value through the kernel's path: T lanes, butterfly, lane 0 (the row's group placed at
// group `g` of the warp, the other lanes holding garbage rows' partials).
static double subwarp_row(int32_t T, int32_t g, int32_t rs, int32_t re, const int32_t *c, const double *v, const double *x)
{
  double w[kWarp];
  for (int32_t l = 0; l < kWarp; ++l) w[l] = 1e6 * (l + 1); // other groups: must not leak in
  for (int32_t t = 0; t < T; ++t) w[g * T + t] = lane_dot_rt(T, rs, re, t, c, v, x);
  emulate_subwarp_sum(w, T);
  return w[g * T];
}

static void test_lane_dot()
{
  // Entries and x are small positive integers: sums are exact, and an entry missed or added twice
  // changes them.
  std::mt19937_64                        rng(42);
  std::uniform_int_distribution<int32_t> small(1, 5);
  const int32_t                          ncols = 97;
  std::vector<double>                    x(ncols);
  for (double &xi : x) xi = small(rng);
  std::vector<int32_t> cols(4096);
  std::vector<double>  vals(4096);
  for (size_t k = 0; k < cols.size(); ++k) cols[k] = (int32_t)(rng() % ncols), vals[k] = small(rng);
  auto plain = [&](int32_t rs, int32_t re) {
    double s = 0;
    for (int32_t k = rs; k < re; ++k) s += vals[k] * x[cols[k]];
    return s;
  };
  for (int32_t T : kTs) {
    bool        ok = true, lanes_ok = true, real_ok = true;
    std::string why;
    const int32_t lens[] = {0, 1, 2, 3, T - 1, T, T + 1, 2 * T - 1, 2 * T, 2 * T + 1, 3 * T + 2, 5 * T + 3, 31, 70, 257};
    for (int32_t rs : {0, 1, 2, 3, 7, 100, 1001, 2048})
      for (int32_t len : lens) {
        if (len < 0) continue;
        const int32_t re = rs + len;
        if (re > (int32_t)cols.size()) continue;
        double sum = 0;
        for (int32_t t = 0; t < T; ++t) {
          const double p = lane_dot_rt(T, rs, re, t, cols.data(), vals.data(), x.data());
          if (t >= len && T > 1 && p != 0) lanes_ok = false; // a lane past the row adds nothing
          sum += p;
        }
        const double want = plain(rs, re);
        for (int32_t g = 0; g < kWarp / T; g += std::max(1, kWarp / T - 1)) {
          const double got = subwarp_row(T, g, rs, re, cols.data(), vals.data(), x.data());
          if (got != want && ok) why = "rs " + std::to_string(rs) + " len " + std::to_string(len) + ": " + std::to_string(got) + " vs " + std::to_string(want);
          ok = ok && got == want;
        }
        if (sum != want && ok) why = "partials rs " + std::to_string(rs) + " len " + std::to_string(len);
        ok = ok && sum == want;
      }
    check(ok, "suraa_g3.lane_dot.exact.T" + std::to_string(T), why);
    check(lanes_ok, "suraa_g3.lane_dot.lanes_past_row_add_0.T" + std::to_string(T));
    // Real values: the butterfly's order differs from the plain sum only by rounding.
    std::vector<double> rv(vals.size()), rx(x.size());
    std::uniform_real_distribution<double> u(-1, 1);
    for (double &a : rv) a = u(rng);
    for (double &a : rx) a = u(rng);
    for (int32_t rs : {0, 3, 511})
      for (int32_t len : {1, 5, 17, 31, 200}) {
        double want = 0, mag = 0;
        for (int32_t k = rs; k < rs + len; ++k) want += rv[k] * rx[cols[k]], mag += std::abs(rv[k] * rx[cols[k]]);
        const double got = subwarp_row(T, 0, rs, rs + len, cols.data(), rv.data(), rx.data());
        real_ok = real_ok && std::abs(got - want) <= 1e-14 * mag;
      }
    check(real_ok, "suraa_g3.lane_dot.real.T" + std::to_string(T));
  }

  // Indices next to 2^31 - 1 (nnz = 2^31 - 1 is allowed): rows ending there, and an empty row at
  // 2^31 - 1, whose lanes start past it. The arrays are addressed through base pointers shifted
  // back by `off` entries (an even count: the paired loads of row_dot stay 16-byte aligned).
  const int64_t  off = (int64_t)INT32_MAX - 63; // indices off .. off + 63 = 2^31 - 1 map to [0, 64)
  const int32_t *cb  = reinterpret_cast<const int32_t *>(reinterpret_cast<uintptr_t>(cols.data()) - (uintptr_t)off * sizeof(int32_t));
  const double  *vb  = reinterpret_cast<const double *>(reinterpret_cast<uintptr_t>(vals.data()) - (uintptr_t)off * sizeof(double));
  for (int32_t T : kTs) {
    bool ok = true;
    for (int32_t len : {0, 1, 2, 5, 33, 63}) {
      const int32_t re = INT32_MAX, rs = re - len;
      const double  want = plain((int32_t)(rs - off), (int32_t)(re - off));
      ok = ok && subwarp_row(T, 0, rs, re, cb, vb, x.data()) == want;
      for (int32_t t = 0; t < T; ++t) ok = ok && std::isfinite(lane_dot_rt(T, rs, re, t, cb, vb, x.data()));
    }
    check(ok, "suraa_g3.lane_dot.rows_at_2^31.T" + std::to_string(T));
  }
}

// ---------------------------------------------------------------------------------------------
// The plan and the emulated G3 kernel on real layouts

// The sorted layout (suraa.hpp: rowptr, colidx, values, perm), built here independently of the
// host builder, from the core permutation.
struct Sorted {
  std::vector<int32_t> perm, rowptr, colidx, len;
  std::vector<double>  values;
  int32_t              empty_rows = 0;
};
static Sorted sort_rows(const CsrMatrix &A)
{
  Sorted S;
  const CsrView V = A.view();
  S.perm          = sorted_row_permutation(V, RowOrder::longest_first, 0);
  S.rowptr.assign((size_t)A.nrows + 1, 0);
  S.len.resize(A.nrows);
  for (int32_t p = 0; p < A.nrows; ++p) {
    const int32_t i = S.perm[p];
    S.len[p]        = V.row_length(i);
    S.rowptr[p + 1] = S.rowptr[p] + S.len[p];
    S.empty_rows += S.len[p] == 0;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) S.colidx.push_back(A.colidx[k]), S.values.push_back(A.values[k]);
  }
  return S;
}
static Plan plan_of(const Sorted &S, const CsrMatrix &A, const Params &P)
{
  SortedRows rows;
  rows.lengths_at = [&](const std::vector<int32_t> &pos) {
    std::vector<int32_t> out;
    for (int32_t p : pos) out.push_back(S.len[p]);
    return out;
  };
  rows.rowptr_at = [&](const std::vector<int32_t> &pos) {
    std::vector<int32_t> out;
    for (int32_t p : pos) out.push_back(S.rowptr[p]);
    return out;
  };
  rows.sum_of_squared_lengths = [&] {
    int64_t s = 0;
    for (int32_t l : S.len) s += (int64_t)l * l;
    return s;
  };
  Plan pl       = make_plan(P, A.nrows, A.ncols, (int64_t)A.colidx.size(), rows);
  pl.empty_rows = S.empty_rows;
  return pl;
}

// Everything the header promises about the launches; "" when it holds.
static std::string plan_problem(const Plan &pl, const Sorted &S)
{
  const int32_t m = pl.nrows, Sg = pl.segment_rows;
  if (m == 0) return pl.launches.empty() ? "" : "launches without rows";
  auto seg_begin = [&](int64_t s) { return (int32_t)std::min<int64_t>(s * Sg, m); };
  // Order: G3 runs, G2 runs, G1; orders 0, 1, ... then -1.
  int32_t stage = 0, order = 0;
  for (const Launch &l : pl.launches) {
    const int32_t st = l.kernel == Kernel::subwarp ? 0 : l.kernel == Kernel::vector ? 1 : 2;
    if (st < stage) return "launches out of the paper's order";
    stage = st;
    if (l.kernel == Kernel::g1 ? l.order != -1 : l.order != order++) return "launch order field";
  }
  // G3: [g2_end, m) exactly, segment-aligned, one T per launch, T the rule of each segment, merged.
  int32_t pos = pl.g2_end, seg = pl.g1_segments + pl.g2_segments, prevT = 0, nseg = 0;
  for (const Launch &l : pl.launches) {
    if (l.kernel != Kernel::subwarp) continue;
    const int32_t T = l.threads_per_row;
    if (l.begin != pos || l.first_segment != seg || l.segments < 1) return "G3 launches not contiguous at " + std::to_string(l.begin);
    if (l.begin != seg_begin(l.first_segment) || l.end != seg_begin((int64_t)l.first_segment + l.segments)) return "G3 launch not on segment bounds";
    if (!is_pow2_in_range(T) || (T > 1 && (T / 2) * pl.params.subwarp_entries >= kLongMean)) return "G3 T " + std::to_string(T);
    if (prevT && T >= prevT) return "G3 runs of T not merged / not decreasing (" + std::to_string(prevT) + " then " + std::to_string(T) + ")";
    for (int32_t s = l.first_segment; s < l.first_segment + l.segments; ++s) {
      const int32_t a = seg_begin(s), b = seg_begin((int64_t)s + 1);
      const int64_t nnz = (int64_t)S.rowptr[b] - S.rowptr[a];
      if (nnz >= 32LL * (b - a)) return "G3 segment with mean >= 32";
      if (subwarp_threads(nnz, b - a, pl.params.subwarp_entries) != T) return "segment " + std::to_string(s) + " rule " + std::to_string(subwarp_threads(nnz, b - a, pl.params.subwarp_entries)) + " in a T " + std::to_string(T) + " launch";
    }
    if (l.nnz != (int64_t)S.rowptr[l.end] - S.rowptr[l.begin]) return "G3 launch nnz";
    pos = l.end, seg += l.segments, prevT = T, nseg += l.segments;
  }
  if (pos != m || nseg != pl.g3_segments) return "G3 launches cover [" + std::to_string(pl.g2_end) + ", " + std::to_string(pos) + ") of " + std::to_string(m);
  // G2 still covers [g1_end, g2_end).
  pos = pl.g1_end;
  for (const Launch &l : pl.launches)
    if (l.kernel == Kernel::vector) {
      if (l.begin != pos) return "G2 launches not contiguous";
      pos = l.end;
    }
  if (pos != pl.g2_end) return "G2 launches cover";
  return "";
}

// One G3 launch as the cuda product runs it: subwarp_launch_rows, subwarp_blocks, then per warp
// the lanes' subwarp_lane_dot (0 past the end), the width-T butterfly, lane 0 of a valid row stores.
static void emulate_launch(const Launch &l, const Plan &pl, const Sorted &S, double alpha, const double *x, double beta, double *y, std::vector<int32_t> &writes)
{
  const int32_t T = l.threads_per_row, n = subwarp_launch_rows(l, pl.nrows, pl.empty_rows, beta);
  if (n == 0) return;
  const int32_t begin = l.begin, end = l.begin + n;
  const int64_t blocks = subwarp_blocks(n, T);
  for (int64_t b = 0; b < blocks; ++b)
    for (int32_t w = 0; w < kSubwarpBlockThreads / kWarp; ++w) {
      double        v[kWarp];
      SubwarpThread th[kWarp];
      for (int32_t l2 = 0; l2 < kWarp; ++l2) {
        th[l2] = subwarp_thread(begin, (uint32_t)b, (uint32_t)(w * kWarp + l2), T);
        v[l2]  = th[l2].p < end ? lane_dot_rt(T, S.rowptr[th[l2].p], S.rowptr[th[l2].p + 1], th[l2].lane, S.colidx.data(), S.values.data(), x) : 0.0;
      }
      emulate_subwarp_sum(v, T);
      for (int32_t l2 = 0; l2 < kWarp; ++l2)
        if (th[l2].p < end && th[l2].lane == 0) {
          const int32_t row = S.perm[th[l2].p];
          y[row]            = beta == 0.0 ? alpha * v[l2] : std::fma(beta, y[row], alpha * v[l2]);
          writes[row]++;
        }
    }
}

// The layout in a new row order (the G3 tiles' perm): row pointers and entries rebuilt.
static Sorted reordered(const CsrMatrix &A, const Sorted &S, const std::vector<int32_t> &perm)
{
  Sorted R;
  R.perm       = perm;
  R.empty_rows = S.empty_rows;
  R.rowptr.assign((size_t)A.nrows + 1, 0);
  R.len.resize(A.nrows);
  for (int32_t p = 0; p < A.nrows; ++p) {
    const int32_t i = perm[p];
    R.len[p]        = A.rowptr[i + 1] - A.rowptr[i];
    R.rowptr[p + 1] = R.rowptr[p] + R.len[p];
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) R.colidx.push_back(A.colidx[k]), R.values.push_back(A.values[k]);
  }
  return R;
}

// Everything the header promises about the tiles; "" when it holds. `sorted` is the perm before
// tiling (the plan's order), `t` and `tiled` what tile_rows made of it.
static std::string tiles_problem(const Plan &pl, const std::vector<int32_t> &sorted, const std::vector<int32_t> &tiled, const Tiles &t)
{
  const int32_t begin = tiled_begin(pl), end = pl.nrows, W = pl.params.window;
  if (W == 0 || end <= begin) return t.block_first.empty() && t.tiles == 0 && tiled == sorted ? "" : "tiles without window or rows";
  if (begin > pl.g2_end || pl.tile_begin != begin || pl.tiles != t.tiles || pl.tile_blocks != (int32_t)t.block_first.size()) return "tile_begin / counts in the plan";
  std::vector<int32_t> T_of_row(pl.nrows, -1); // the T or Y the plan gives each row
  for (const Launch &l : pl.launches) {
    if ((l.kernel == Kernel::vector && l.threads_per_row <= kTileMaxThreads && l.begin < begin) || (l.kernel == Kernel::vector && l.threads_per_row > kTileMaxThreads && l.end > begin)) return "G2 launch [" + std::to_string(l.begin) + ", " + std::to_string(l.end) + ") on the wrong side of the tiles";
    if (is_tiled(l))
      for (int32_t p = l.begin; p < l.end; ++p) T_of_row[sorted[p]] = p < nonempty_end_of(pl) ? l.threads_per_row : 0; // empty: 0
  }
  for (int32_t p = 0; p < pl.nrows; ++p)
    if ((p < begin || p >= end) && tiled[p] != sorted[p]) return "position " + std::to_string(p) + " outside G3 moved";
  std::vector<int32_t> a(sorted.begin() + begin, sorted.begin() + end), b(tiled.begin() + begin, tiled.begin() + end);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) return "the tiled rows are not the sorted ones";
  int32_t pos = begin, tiles = 0, prev_key = -1;
  for (size_t k = 0; k < t.block_first.size(); ++k) {
    const int32_t first = t.block_first[k], rows = tile_info_rows(t.block_info[k]), T = tile_info_threads(t.block_info[k]);
    if (first != pos || rows < 1 || !(is_pow2_in_range(T) || T == 0 || (T % kWarp == 0 && T <= kTileMaxThreads)) || rows > tile_block_rows(T)) return "block " + std::to_string(k) + " [" + std::to_string(first) + ", +" + std::to_string(rows) + ") T " + std::to_string(T);
    for (int32_t p = first; p < first + rows; ++p) {
      const int32_t row = tiled[p], key = tile_key(row, W, T);
      if (T_of_row[row] != T) return "row " + std::to_string(row) + " runs at T " + std::to_string(T) + ", its plan says " + std::to_string(T_of_row[row]);
      if (key < prev_key || (p > begin && key == prev_key && row <= tiled[p - 1])) return "rows not in (window, T descending, row) order at position " + std::to_string(p);
      if (key != prev_key) {
        if (p != first) return "a tile starts inside block " + std::to_string(k);
        ++tiles;
      } else if (p == first && k > 0 && tile_info_rows(t.block_info[k - 1]) != tile_block_rows(T)) return "block " + std::to_string(k - 1) + " of a tile not full";
      prev_key = key;
    }
    pos = first + rows;
  }
  if (pos != end || tiles != t.tiles) return "blocks cover [" + std::to_string(begin) + ", " + std::to_string(pos) + "), " + std::to_string(tiles) + " tiles (said " + std::to_string(t.tiles) + ")";
  return "";
}

// The G3 part of the cuda product with tiles: the tile kernel block by block, the rows of a block
// at its T from its first position, as a one-block sub-warp launch; an empty-row block (T = 0)
// stores alpha 0 + beta y, nothing when beta == 1.
static void emulate_tiles(const Tiles &t, const Plan &pl, const Sorted &S, double alpha, const double *x, double beta, double *y, std::vector<int32_t> &writes);

static void check_matrix(const std::string &name, const CsrMatrix &A, const Params &P)
{
  const Sorted S0 = sort_rows(A);
  Plan         pl = plan_of(S0, A, P);
  const std::string why = plan_problem(pl, S0);
  check(why.empty(), "suraa_g3.plan." + name, why);
  if (!why.empty()) return;
  std::vector<int32_t> perm = S0.perm;
  const Tiles          t    = tile_rows(pl, perm);
  const std::string    twhy = tiles_problem(pl, S0.perm, perm, t);
  check(twhy.empty(), "suraa_g3.tiles." + name, twhy);
  if (!twhy.empty()) return;

  // Integer data (exact sums) and real data; y0 a sentinel pattern; beta 0 over NaN, 1 (empty rows
  // skipped), and another. Emulated: the G3 launches, or the tiles (G3 and G2 of Y <= 256).
  const int32_t lo = t.tiles ? pl.tile_begin : pl.g2_end;
  for (int data = 0; data < 2; ++data) {
    CsrMatrix AD = A;
    std::mt19937_64 rng(7 + data);
    std::vector<double> x(A.ncols);
    for (double &xi : x) xi = data == 0 ? (double)(int32_t)(rng() % 7) - 3 : std::uniform_real_distribution<double>(-1, 1)(rng);
    for (size_t k = 0; k < AD.values.size(); ++k) AD.values[k] = data == 0 ? (double)(int32_t)(k % 9) - 4 : A.values[k];
    const Sorted SD = reordered(AD, S0, perm); // same structure: same permutation, plan and tiles
    for (double beta : {0.0, 1.0, -0.5}) {
      const double        alpha = data == 0 ? 2.0 : 1.3;
      std::vector<double> y0(A.nrows), y(A.nrows);
      for (int32_t i = 0; i < A.nrows; ++i) y0[i] = (double)(i % 11) - 5;
      std::vector<int32_t> writes(A.nrows, 0);
      y = y0;
      if (beta == 0.0)
        for (int32_t p = lo; p < A.nrows; ++p) y[SD.perm[p]] = NAN; // write-only
      if (t.tiles) emulate_tiles(t, pl, SD, alpha, x.data(), beta, y.data(), writes);
      else
        for (const Launch &l : pl.launches)
          if (l.kernel == Kernel::subwarp) emulate_launch(l, pl, SD, alpha, x.data(), beta, y.data(), writes);
      // Reference: the original CSR, row by row; G3 rows only, the others must be untouched.
      std::vector<char> in_g3(A.nrows, 0);
      for (int32_t p = lo; p < A.nrows; ++p) in_g3[SD.perm[p]] = 1;
      bool        ok = true;
      std::string err;
      for (int32_t i = 0; i < A.nrows && ok; ++i) {
        if (!in_g3[i]) {
          if (writes[i] != 0 || y[i] != y0[i]) ok = false, err = "row " + std::to_string(i) + " outside G3 touched";
          continue;
        }
        double s = 0, mag = 0;
        for (int32_t k = AD.rowptr[i]; k < AD.rowptr[i + 1]; ++k) s += AD.values[k] * x[AD.colidx[k]], mag += std::abs(AD.values[k] * x[AD.colidx[k]]);
        const bool    empty  = AD.rowptr[i + 1] == AD.rowptr[i];
        const int32_t wanted = beta == 1.0 && empty ? 0 : 1;
        const double  want   = beta == 0.0 ? alpha * s : alpha * s + beta * y0[i];
        if (writes[i] != wanted) ok = false, err = "row " + std::to_string(i) + " stored " + std::to_string(writes[i]) + " times";
        else if (data == 0 ? y[i] != want : !(std::abs(y[i] - want) <= 1e-13 * (std::abs(alpha) * mag + std::abs(beta * y0[i])))) ok = false, err = "row " + std::to_string(i) + ": " + std::to_string(y[i]) + " vs " + std::to_string(want);
      }
      check(ok, "suraa_g3.emulated." + name + (data == 0 ? ".int" : ".real") + ".beta" + (beta == 0.0 ? "0" : beta == 1.0 ? "1" : "-0.5"), err);
    }
  }
}

static void emulate_tiles(const Tiles &t, const Plan &pl, const Sorted &S, double alpha, const double *x, double beta, double *y, std::vector<int32_t> &writes)
{
  for (size_t k = 0; k < t.block_first.size(); ++k) {
    const int32_t T = tile_info_threads(t.block_info[k]), first = t.block_first[k], end = first + tile_info_rows(t.block_info[k]);
    if (T == 0) {
      for (int32_t p = first; p < end && beta != 1.0; ++p) {
        const int32_t row = S.perm[p];
        y[row]            = beta == 0.0 ? alpha * 0.0 : std::fma(beta, y[row], alpha * 0.0);
        writes[row]++;
      }
      continue;
    }
    if (T >= kWarp) { // vector_rows: Y lanes per row, lane l sums entries l, l + Y, ...
      for (int32_t p = first; p < end; ++p) {
        double sum = 0;
        for (int32_t lane = 0; lane < T; ++lane) sum += strided_dot<2>((uint32_t)(S.rowptr[p] + lane), (uint32_t)S.rowptr[p + 1], (uint32_t)T, S.colidx.data(), S.values.data(), x);
        const int32_t row = S.perm[p];
        y[row]            = beta == 0.0 ? alpha * sum : std::fma(beta, y[row], alpha * sum);
        writes[row]++;
      }
      continue;
    }
    const Launch one{Kernel::subwarp, first, end, 0, 1, T, 0, 0};
    Plan         no_empty = pl; // the rows of a block with entries: none to skip
    no_empty.empty_rows   = 0;
    emulate_launch(one, no_empty, S, alpha, x, beta, y, writes); // one block: tiles_problem checked rows <= 256 / T
  }
}

static CsrMatrix stencil27(int32_t n)
{
  CsrMatrix A;
  A.nrows = A.ncols = n * n * n;
  A.rowptr.assign(1, 0);
  for (int32_t z = 0; z < n; ++z)
    for (int32_t y = 0; y < n; ++y)
      for (int32_t x = 0; x < n; ++x) {
        for (int32_t dz = -1; dz <= 1; ++dz)
          for (int32_t dy = -1; dy <= 1; ++dy)
            for (int32_t dx = -1; dx <= 1; ++dx) {
              const int32_t a = z + dz, b = y + dy, c = x + dx;
              if (a < 0 || b < 0 || c < 0 || a >= n || b >= n || c >= n) continue;
              A.colidx.push_back((a * n + b) * n + c);
              A.values.push_back(dz == 0 && dy == 0 && dx == 0 ? 26.5 : -1.0);
            }
        A.rowptr.push_back((int32_t)A.colidx.size());
      }
  return A;
}

static void test_plans_and_emulation(const std::string &dir)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(dir);
  ms.insert(ms.end(), real.begin(), real.end());
  ms.push_back({"stencil7_16", stencil7(16)});
  ms.push_back({"stencil27_10", stencil27(10)});
  ms.push_back({"lengths_0_to_31", uniform_rows(3000, 3000, 0, 31, 21)});
  ms.push_back({"all_length_1", uniform_rows(777, 900, 1, 1, 22)});
  ms.push_back({"all_length_2", uniform_rows(777, 900, 2, 2, 23)});
  ms.push_back({"lengths_2_3", uniform_rows(1001, 900, 2, 3, 24)});
  ms.push_back({"short_plus_empty_tail", random_rows(2500, 2500, 25, [](std::mt19937_64 &r, int32_t i) { return i % 4 == 0 ? 0 : std::uniform_int_distribution<int32_t>(1, 20)(r); })});
  ms.push_back({"hubs_and_short", random_rows(5000, 5000, 26, [](std::mt19937_64 &r, int32_t i) { return i % 700 == 1 ? 1500 : std::uniform_int_distribution<int32_t>(0, 12)(r); })});
  struct Variant {
    const char *tag;
    int64_t     segment_rows;
    int32_t     max_child_threads;
    int32_t     subwarp_entries;
    int32_t     window;
  };
  const Variant variants[] = {{"", 0, 2048, 2, 4096},        {".seg1", 1, 2048, 2, 32},  {".seg7", 7, 2048, 2, 100}, {".seg32", 32, 0, 2, 4096}, {".seg1000", 1000, 64, 2, 32},
                              {".e1", 0, 2048, 1, 32},      {".e5", 7, 2048, 5, 4096},  {".w0", 0, 2048, 2, 0},     {".seg7.w0", 7, 2048, 2, 0}, {".w32", 0, 2048, 2, 32},
                              {".seg1000.w0", 1000, 64, 2, 0}};
  for (const NamedMatrix &m : ms)
    for (const Variant &v : variants) {
      Params P;
      P.segment_rows      = v.segment_rows;
      P.max_child_threads = v.max_child_threads;
      P.subwarp_entries   = v.subwarp_entries;
      P.window            = v.window;
      check_matrix(m.name + v.tag, m.A, P);
    }

  // The stencils' G3 runs: 7-point rows (mean 7 in the interior segments) at T = 4, 27-point at 16.
  auto first_T = [](const CsrMatrix &A) {
    const Sorted S = sort_rows(A);
    const Plan   pl = plan_of(S, A, Params{});
    for (const Launch &l : pl.launches)
      if (l.kernel == Kernel::subwarp) return l.threads_per_row;
    return 0;
  };
  check(first_T(stencil7(16)) == 4, "suraa_g3.plan.stencil7_T4", std::to_string(first_T(stencil7(16))));
  check(first_T(stencil27(10)) == 16, "suraa_g3.plan.stencil27_T16", std::to_string(first_T(stencil27(10))));
  check(subwarp_threads(7, 1, 1) == 8 && subwarp_threads(27, 1, 1) == 32 && subwarp_threads(9, 1, 3) == 4 && subwarp_threads(1, 1, 1) == 1, "suraa_g3.rule.entries_per_lane");
}

// ---------------------------------------------------------------------------------------------
// -mat_view ::ascii_info through the host builder

static void test_describe()
{
  const CsrMatrix              A        = stencil7(12);
  const int64_t                params[] = {0, 2048, 0, 3, 2, 4096};
  std::unique_ptr<FormatBlock> blk      = suraa_ops.build_host(A.view(), params);
  std::vector<LayoutStat>      st;
  blk->describe(st);
  int  g3 = 0;
  bool t4 = false;
  for (const LayoutStat &s : st)
    if (s.key.rfind("G3", 0) == 0) {
      ++g3;
      t4 = t4 || s.value.find("T = 4 threads/row") != std::string::npos;
    }
  check(g3 >= 1 && t4, "suraa_g3.describe.threads_per_row", std::to_string(g3) + " G3 lines");
}

int main(int argc, char **argv)
{
  test_rule();
  test_mapping();
  test_lane_dot();
  test_plans_and_emulation(argc > 1 ? argv[1] : "test/matrices");
  test_describe();
  return finish();
}
