// pJDS auto sort window and auto long rows: the Thrust padded-slot count the device builder runs
// (pjds_window.cuh), here on thrust::host, against the host builder's count, on the test matrices,
// for global and windowed sorts, several block sizes and long-row thresholds; and the auto rules'
// choices on shapes with a known answer. Runs without a GPU.
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "formats/pjds/pjds_window.cuh"

#include <thrust/execution_policy.h>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::pjds;

static int64_t thrust_host_slots(const CsrMatrix &A, int32_t br, int32_t window, int32_t long_row = 0)
{
  std::vector<int64_t> keys(std::max<int32_t>(A.nrows, 1));
  return count_padded_slots(thrust::host, keys.data(), A.rowptr.data(), A.nrows, br, window, long_row);
}

static std::vector<int32_t> lengths(const CsrMatrix &A)
{
  std::vector<int32_t> l(A.nrows);
  for (int32_t i = 0; i < A.nrows; ++i) l[i] = A.rowptr[i + 1] - A.rowptr[i];
  return l;
}

int main(int argc, char **argv)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  for (const NamedMatrix &m : ms)
    for (int32_t br : {1, 7, 32})
      for (int32_t w : {0, 64, kAutoWindows[0], kAutoWindows[1]})
        for (int32_t L : {0, 3, kAutoLongRow}) {
          const int64_t h = padded_slots_host(lengths(m.A), br, w, L), t = thrust_host_slots(m.A, br, w, L);
          check(h == t, "pjds_window.slots." + m.name + ".br" + std::to_string(br) + ".w" + std::to_string(w) + ".L" + std::to_string(L), std::to_string(t) + " vs host " + std::to_string(h));
        }
  // The rule: a stencil keeps windows (about the same padding); one huge row per window of a
  // power-law-like matrix pads every window to it, far beyond the global sort: global.
  CsrMatrix     st  = stencil7(24);
  const int64_t snz = (int64_t)st.colidx.size();
  check(window_accepted(thrust_host_slots(st, 32, kAutoWindows[0]), thrust_host_slots(st, 32, 0), snz), "pjds_window.auto.stencil_keeps_windows");
  CsrMatrix hubs = random_rows(64 * 1024, 64 * 1024, 5, [](std::mt19937_64 &r, int32_t i) { return i % 1024 == 3 ? 3000 : std::uniform_int_distribution<int32_t>(1, 6)(r); });
  check(!window_accepted(thrust_host_slots(hubs, 32, kAutoWindows[0]), thrust_host_slots(hubs, 32, 0), (int64_t)hubs.colidx.size()), "pjds_window.auto.hub_per_window_refused");
  // The limit itself: exactly kAutoExtraPadding of the nonzeros more is accepted, one more refused.
  check(window_accepted(1100, 1000, 1000) && !window_accepted(1101, 1000, 1000), "pjds_window.auto.limit");

  // Auto long rows (make_plan with the host counts): two rows holding a fifth of the nonzeros
  // pad their blocks far beyond 10%: they leave the diagonals, and the windows stay; rows of
  // 400..2000 entries sorted next to each other pad little: all stay (the wide-block path).
  auto plan_of = [](const CsrMatrix &A) {
    const std::vector<int32_t> len = lengths(A);
    const int64_t              params[nparams] = {32, -1, -1};
    return make_plan(
      A.nrows, (int64_t)A.colidx.size(), params, [&](int32_t br, int32_t w, int32_t L) { return padded_slots_host(len, br, w, L); },
      [&](int32_t L) {
        int64_t n = 0;
        for (int32_t l : len) n += l - sort_length(l, L);
        return n;
      });
  };
  CsrMatrix  two_long = random_rows(40000, 40000, 7, [](std::mt19937_64 &r, int32_t i) { return i == 5000 || i == 30000 ? 12000 : std::uniform_int_distribution<int32_t>(1, 10)(r); });
  const Plan p1 = plan_of(two_long);
  check(p1.long_row == kAutoLongRow && p1.auto_long && p1.sort_window == kAutoWindows[0], "pjds_window.auto_long.two_long_rows_leave", "long_row " + std::to_string(p1.long_row) + " window " + std::to_string(p1.sort_window));
  const Plan p2 = plan_of(uniform_rows(3000, 60000, 400, 2000, 8));
  check(p2.long_row == 0 && p2.auto_long, "pjds_window.auto_long.similar_long_rows_stay", "long_row " + std::to_string(p2.long_row));
  const Plan p3 = plan_of(st);
  check(p3.long_row == 0 && p3.sort_window == kAutoWindows[0], "pjds_window.auto_long.stencil_unchanged");
  // The window ladder. Mostly empty rows and a power-law tail of 1..81 (CA-GrQc's shape), 4 x 65536
  // rows: windows of 1024 and 8192 pad far more than 10% (a window's few long rows pad whole
  // blocks of short ones), 65536 does not; no row leaves the diagonals.
  CsrMatrix grqc_like = random_rows(4 * 65536, 4 * 65536, 9, [](std::mt19937_64 &r, int32_t) {
    if (std::uniform_real_distribution<double>(0, 1)(r) < 0.8) return 0;
    return std::min(81, (int32_t)(1.0 / std::pow(std::uniform_real_distribution<double>(1e-3, 1.0)(r), 0.8)));
  });
  const Plan p4 = plan_of(grqc_like);
  check(p4.sort_window == kAutoWindows[2] && p4.long_row == 0, "pjds_window.auto.power_law_short_rows_take_a_larger_window", "window " + std::to_string(p4.sort_window) + " long_row " + std::to_string(p4.long_row));
  const Plan p5 = plan_of(uniform_rows(40000, 40000, 10, 80, 11));
  check(p5.sort_window == kAutoWindows[0] && p5.long_row == 0, "pjds_window.auto_long.fem_like_keeps_all_rows", "window " + std::to_string(p5.sort_window) + " long_row " + std::to_string(p5.long_row));
  // Last resort: one row of 100 entries per 65536, a row of 1 entry per 4, the rest empty. Every
  // window's long row pads its block by ~3100 slots against ~16400 nonzeros (19%); with the rows
  // longer than a warp out of the diagonals the first window pads nothing.
  CsrMatrix rare_long = random_rows(3 * 65536, 3 * 65536, 12, [](std::mt19937_64 &, int32_t i) { return i % 65536 == 7 ? 100 : i % 4 == 0 ? 1 : 0; });
  const Plan p6 = plan_of(rare_long);
  check(p6.sort_window == kAutoWindows[0] && p6.long_row == kAutoWarpLongRow, "pjds_window.auto_long.warp_rows_leave_when_no_window_fits", "window " + std::to_string(p6.sort_window) + " long_row " + std::to_string(p6.long_row));
  return finish();
}
