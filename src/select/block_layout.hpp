// Block or scalar layout (issue 27): whether a matrix's blocks of bs x bs go into BELL, block ELL
// with one column index per block (formats/bell/bell.hpp), or into its format's scalar layout.
//
//   mode     bs      block_dense(A, bs)   layout   reason (what -mat_view ::ascii_info prints)
//   auto     1       -                    scalar   no block size (MatSetBlockSize, a DMDA's dof)
//   auto     2..8    yes                  block    block-dense
//   auto     2..8    no                   scalar   the first block that is not dense
//   auto     > 8     -                    scalar   above BELL's largest block
//   scalar   any     -                    scalar   asked for
//   block    2..8    yes                  block    asked for, block-dense
//   block    else                         Error(bad_input) for bs, Error(unsupported) naming the block
//
// The block size alone does not decide: a DMDA with dof 4 and a star stencil is block-dense, one
// that drops couplings between components (a zero block structure PETSc's preallocation kept out)
// is not. The check reads the CSR once on the host (no more than the build's own upload reads).
#pragma once
#include "core/csr.hpp"

#include <cstdint>
#include <string>

namespace gpuformats::select {

enum class BlockMode { automatic = 0, scalar = 1, block = 2 }; // -mat_gpuformats_block auto|scalar|block
extern const char *const kBlockModeNames[3];                   // "auto", "scalar", "block"

struct BlockDecision {
  bool        block = false; // BELL with bs
  int32_t     bs    = 1;
  std::string reason;
};
BlockDecision choose_block_layout(const CsrView &A, int32_t bs, BlockMode mode);

} // namespace gpuformats::select
