// pJDS auto sort window: the Thrust padded-slot count the device builder runs (pjds_window.cuh),
// here on thrust::host, against the host builder's count, on the test matrices, for global and
// windowed sorts and several block sizes; and the auto rule's choices on shapes with a known
// answer. Runs without a GPU.
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "formats/pjds/pjds_window.cuh"

#include <thrust/execution_policy.h>

using namespace gftest;
using namespace gpuformats;

static int64_t thrust_host_slots(const CsrMatrix &A, int32_t br, int32_t window)
{
  std::vector<int64_t> keys(std::max<int32_t>(A.nrows, 1));
  return pjds_padded_slots(thrust::host, keys.data(), A.rowptr.data(), A.nrows, br, window);
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
      for (int32_t w : {0, 64, kPjdsAutoWindow}) {
        const int64_t h = pjds_padded_slots_host(lengths(m.A), br, w), t = thrust_host_slots(m.A, br, w);
        check(h == t, "pjds_window.slots." + m.name + ".br" + std::to_string(br) + ".w" + std::to_string(w), std::to_string(t) + " vs host " + std::to_string(h));
      }
  // The rule: a stencil keeps windows (same padding); one huge row per window of a power-law-like
  // matrix pads every window to it, far beyond the global sort: global.
  CsrMatrix st = stencil7(24);
  check(pjds_auto_choice(thrust_host_slots(st, 32, kPjdsAutoWindow), thrust_host_slots(st, 32, 0)) == kPjdsAutoWindow, "pjds_window.auto.stencil_keeps_windows");
  CsrMatrix hubs = random_rows(64 * 1024, 64 * 1024, 5, [](std::mt19937_64 &r, int32_t i) { return i % 1024 == 3 ? 3000 : std::uniform_int_distribution<int32_t>(1, 6)(r); });
  check(pjds_auto_choice(thrust_host_slots(hubs, 32, kPjdsAutoWindow), thrust_host_slots(hubs, 32, 0)) == 0, "pjds_window.auto.hub_per_window_sorts_globally");
  return finish();
}
