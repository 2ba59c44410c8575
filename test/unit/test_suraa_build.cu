// SURAA's device builder (suraa_build.cuh) on the host, without a GPU: the very template the GPU
// build runs, instantiated on thrust::host (core/thrust_system.cuh), against the host builder
// (suraa_host.cpp), array by array, for the defaults and each parameter that changes the layout.
//   layout    the same plan (-mat_view lines, bytes, launches, G1 chunk counts, tiles), slot map and
//             values, and every array the kernels read (perm, the sorted rowptr, colidx, G1 chunk
//             starts, the tile blocks' first rows and info words): the host product, an
//             independent oracle over the host builder's arrays, then reads the same numbers
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/suraa/suraa_build.cuh"

#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::suraa;

static bool same_launches(const Plan &a, const Plan &b)
{
  if (a.launches.size() != b.launches.size()) return false;
  for (size_t k = 0; k < a.launches.size(); ++k) {
    const Launch &x = a.launches[k], &y = b.launches[k];
    if (x.kernel != y.kernel || x.begin != y.begin || x.end != y.end || x.first_segment != y.first_segment || x.segments != y.segments || x.threads_per_row != y.threads_per_row || x.nnz != y.nnz || x.order != y.order) return false;
  }
  return true;
}

static void check_build(const std::vector<int64_t> &params, const std::string &tag, const NamedMatrix &m)
{
  const CsrView     A    = m.A.view();
  const std::string name = "suraa_build" + tag + "." + m.name;
  build_detail::Arrays<HostSystem>   a;
  const std::unique_ptr<FormatBlock> fb = build_both(suraa_ops, A, params.data(), [&] {
    const Params P = read_params(params.data()); // as build_cuda: parameters and size first
    check_size(A);
    build_detail::build_arrays(HostSystem{}, A, m.A.rowptr.data(), m.A.colidx.data(), m.A.values.data(), P, a);
  }, name); // SURAA refuses nothing
  if (!fb) return;
  const SuraaHostBlock &h = static_cast<const SuraaHostBlock &>(*fb);

  std::vector<LayoutStat> dd;
  describe(a.plan, dd);
  check_layout_as_host(name, h, A.nnz, LayoutArrays{A.nnz, a.vals, a.slots}, dd, bytes(a.plan));
  // The host builder keeps g1_chunk_start = {0} without G1 rows; the device builder allocates none.
  const std::vector<int32_t> g1_host = a.plan.g1_end ? h.g1_chunk_start : std::vector<int32_t>{};
  std::string                why;
  const bool same = same_array(a.perm, h.perm, "perm", why) && same_array(a.rowptr, h.rowptr, "rowptr", why) && same_array(a.colidx, h.colidx, "colidx", why) && same_array(a.g1_chunk_start, g1_host, "g1_chunk_start", why) &&
                    same_array(a.block_first, h.block_first, "block_first", why) && same_array(a.block_info, h.block_info, "block_info", why);
  check(same, name + ".arrays_as_host", why);
  const Plan &s = a.plan, &t = h.plan;
  check(same_launches(s, t) && s.empty_rows == t.empty_rows && s.g1_chunks == t.g1_chunks && s.g1_multi_chunk_rows == t.g1_multi_chunk_rows && s.tile_begin == t.tile_begin && s.tiles == t.tiles && s.tile_blocks == t.tile_blocks,
        name + ".plan_as_host", "tiles " + std::to_string(s.tiles) + " vs " + std::to_string(t.tiles) + ", tile blocks " + std::to_string(s.tile_blocks) + " vs " + std::to_string(t.tile_blocks));
}

int main(int argc, char **argv)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(true), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  const std::vector<int64_t> def = default_params(suraa_ops);
  // The defaults, the paper's launches (no tiles), the smallest window and one no power of two,
  // fixed segments, G1 off and small, and the sub-warp rule's entries per lane at both ends.
  const ParamVariant variants[] = {{"", param_window, def[param_window]},
                                   {"[window=0]", param_window, 0},
                                   {"[window=32]", param_window, 32},
                                   {"[window=1000]", param_window, 1000},
                                   {"[segment_rows=32]", param_segment_rows, 32},
                                   {"[segment_rows=1]", param_segment_rows, 1},
                                   {"[max_child_threads=0]", param_max_child_threads, 0},
                                   {"[max_child_threads=64]", param_max_child_threads, 64},
                                   {"[subwarp_entries=1]", param_subwarp_entries, 1},
                                   {"[subwarp_entries=8]", param_subwarp_entries, 8}};
  for (const ParamVariant &v : variants)
    for (const NamedMatrix &m : ms) check_build(with_variant(def, v), v.tag, m);
  return finish();
}
