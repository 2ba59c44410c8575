// Stencil or not: whether a block's entries go into DIA, one value array per column offset and no
// column index (formats/dia/dia.hpp), or into the scalar layout of its type. Taken after the
// block layout (a matrix with a block size that is block-dense stays in BELL) and before gpuauto.
//
//   mode   cheap check (row lengths, O(rows))        DIA build            layout     reason
//   auto   no entries                                -                    scalar     no entries
//   auto   longest row > max_diags, or padding of   -                    scalar     the check's
//          longest x rows above max_pad_pct % of nnz
//   auto   passes                                    builds               stencil    offsets, padding
//   auto   passes                                    refuses              scalar     the builder's: the
//                                                                                    first entry off them
//   off    -                                         -                    scalar     asked for
//   on     -                                         builds / refuses     stencil    or its refusal thrown
//
// Why DIA: 8 bytes per slot against CSR's 12 and EVC-HYB's 10 per entry, and x read at fixed
// offsets. Padding costs 8 bytes per slot (never an x read: dia.hpp), so DIA moves fewer bytes than
// EVC-HYB up to 25% padding; the default limit, 15%, keeps a margin for the row-length-irregular
// end of that range. The cheap check runs on the host's row pointers; the full check (every entry
// on one of the longest row's offsets) is the builder's, on the device for the cuda backend.
#pragma once
#include "core/csr.hpp"

#include <cstdint>
#include <string>

namespace gpuformats::select {

enum class StencilMode { automatic = 0, off = 1, on = 2 }; // -mat_gpuformats_stencil auto|off|on
extern const char *const kStencilModeNames[3];            // "auto", "off", "on"

struct StencilDecision {
  bool        stencil = false; // build DIA
  std::string reason;
};
// Before the build: the mode and the cheap check, against DIA's limits.
StencilDecision choose_stencil_layout(const CsrView &A, StencilMode mode, int32_t max_diags, int32_t max_pad_pct);
// After the DIA build refused the matrix (Error(unsupported)): auto takes the scalar layout with
// the builder's reason; on throws it.
StencilDecision refused_stencil_layout(const Error &refusal, StencilMode mode);

} // namespace gpuformats::select
