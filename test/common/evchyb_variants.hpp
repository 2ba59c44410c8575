// EVC-HYB's parameter variants, one parameter off its default each: the host kernel emulation
// (test_evchyb_kernel) and the device builder run on the host (test_evchyb_build) both run them.
#pragma once
#include "common/format_checks.hpp"
#include "formats/evchyb/evchyb.hpp"

#include <cstdint>
#include <vector>

namespace gftest {

// The defaults first, then one parameter at a time at its range ends and the layouts it switches.
inline std::vector<ParamVariant> evchyb_variants(const std::vector<int64_t> &def)
{
  using namespace gpuformats::evchyb;
  return {{"", param_ell_max_row, def[param_ell_max_row]},
          {"[sort_window=0]", param_sort_window, 0},
          {"[sort_window=64]", param_sort_window, 64},
          {"[sort_window=1]", param_sort_window, 1},
          {"[slice_rows=1]", param_slice_rows, 1},
          {"[slice_rows=4]", param_slice_rows, 4},
          {"[block_threads=64]", param_block_threads, 64},
          {"[block_threads=1024]", param_block_threads, 1024},
          {"[ell_max_row=0]", param_ell_max_row, 0},
          {"[ell_max_row=1024]", param_ell_max_row, 1024},
          {"[narrow_columns=0]", param_narrow_columns, 0}};
}

} // namespace gftest
