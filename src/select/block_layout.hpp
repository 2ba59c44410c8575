// Block or scalar layout: whether a matrix's blocks of bs x bs go into BELL, block ELL
// with one column index per block (formats/bell/bell.hpp), or into its format's scalar layout.
//
//   mode     bs      rows (cheap check)   block build       layout   reason (-mat_view ::ascii_info)
//   auto     1       -                    -                 scalar   no block size (MatSetBlockSize, a DMDA's dof)
//   auto     2..8    equal in block rows  block-dense       block    block-dense
//   auto     2..8    equal in block rows  refuses           scalar   the builder's: the first block not dense
//   auto     2..8    not                  -                 scalar   the first row that breaks it
//   auto     > 8     -                    -                 scalar   above BELL's largest block
//   scalar   any     -                    -                 scalar   asked for
//   block    2..8    equal in block rows  block-dense       block    asked for
//   block    else                                           Error(bad_input) for bs, Error(unsupported) naming the row or block
//
// The block size alone does not decide: a DMDA with dof 4 and a star stencil is block-dense, one
// whose block fills drop couplings between components is not. The full check is the block
// builder's own (on the device for the cuda backend: a few ms where a host pass over the column
// indices took 0.2 s at 205 M nonzeros: bench/results/h200/block-layout/); the cheap check first (row lengths: multiples of bs,
// equal in each block row, O(rows)) keeps most patterns that are not block-dense from paying an
// upload for a refused block build.
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
// Before the build: the mode, bs and the cheap check. block = true: build BELL with bs, and where
// it refuses the matrix take refused_block_layout().
BlockDecision choose_block_layout(const CsrView &A, int32_t bs, BlockMode mode);
// After the block build refused the matrix (Error(unsupported): not block-dense, or beyond the
// int32 slot map): auto takes the scalar layout with the builder's reason; block throws it.
BlockDecision refused_block_layout(const Error &refusal, int32_t bs, BlockMode mode);

} // namespace gpuformats::select
