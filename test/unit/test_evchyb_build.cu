// EVC-HYB's device builder (evchyb_device.cuh) on the host, without a GPU: the very template the GPU
// build runs, instantiated on thrust::host (core/thrust_system.cuh), against the host builder
// (evchyb_host.cpp), array by array, for every parameter variant test_evchyb_kernel runs
// (common/evchyb_variants.hpp).
//   layout    the same plan (-mat_view lines, bytes), slot map and values, and every array the
//             kernel reads (perm with its ~row marks, slice_ptr, csr_row_start, colidx, the 16-bit
//             column planes and their bases, the split table): the product kernel, emulated over
//             the host builder's arrays by test_evchyb_kernel, then reads the same numbers
#include "common/check.hpp"
#include "common/evchyb_variants.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/evchyb/evchyb_device.cuh"

#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::evchyb;

static void check_build(const std::vector<int64_t> &params, const std::string &tag, const NamedMatrix &m)
{
  const CsrView     A    = m.A.view();
  const std::string name = "evchyb_build" + tag + "." + m.name;
  Arrays<HostSystem>                 a;
  const std::unique_ptr<FormatBlock> fb = build_both(evchyb_ops, A, params.data(), [&] { build_arrays(HostSystem{}, A, m.A.rowptr.data(), m.A.colidx.data(), m.A.values.data(), params.data(), a); }, name); // EVC-HYB refuses nothing
  if (!fb) return;
  const HostBlock &h = static_cast<const HostBlock &>(*fb);

  std::vector<LayoutStat> dd{{"backend", "host"}};
  describe_shape(a.sh, dd);
  check_layout_as_host(name, h, A.nnz, LayoutArrays{a.sh.nslots, a.vals, a.slots}, dd, shape_bytes(a.sh));
  std::string why;
  const bool  same = same_array(a.perm, h.perm, "perm", why) && same_array(a.slice_ptr, h.slice_ptr, "slice_ptr", why) && same_array(a.csr_row_start, h.csr_row_start, "csr_row_start", why) &&
                    same_array(a.colidx, h.colidx, "colidx", why) && same_array(a.col16, h.col16, "col16", why) && same_array(a.col_hi16, h.col_hi16, "col_hi16", why) &&
                    same_array(a.slice_col_base, h.slice_col_base, "slice_col_base", why) && same_array(a.csr_col16, h.csr_col16, "csr_col16", why) &&
                    same_array(a.csr_col_base, h.csr_col_base, "csr_col_base", why) && same_array(a.split, h.split, "split", why);
  check(same, name + ".arrays_as_host", why);
  const Shape &s = a.sh, &t = h.sh;
  check(s.window == t.window && s.auto_tried == t.auto_tried && s.nblocks == t.nblocks && s.bands.size() == t.bands.size() && s.narrow == t.narrow && s.csr_narrow == t.csr_narrow && s.ell_empty == t.ell_empty,
        name + ".plan_as_host", "window " + std::to_string(s.window) + " vs " + std::to_string(t.window));
}

int main(int argc, char **argv)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(true), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  // Auto refusing every window (the builder restores the global order), and narrow columns split per slice.
  ms.push_back({"one_long_row_per_8192", random_rows(140000, 140000, 23, [](std::mt19937_64 &, int32_t i) { return i % 8192 == 0 ? 128 : 0; })});
  ms.push_back({"narrow_minority", two_diagonals_mixed(32 * 40, 100, 70000, 4)});
  const std::vector<int64_t> def = default_params(evchyb_ops);
  for (const ParamVariant &v : evchyb_variants(def))
    for (const NamedMatrix &m : ms) check_build(with_variant(def, v), v.tag, m);
  return finish();
}
