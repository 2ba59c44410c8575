// The stencil-or-not rule (stencil_layout.hpp).
#include "stencil_layout.hpp"

#include "core/text.hpp"
#include "formats/format.hpp"

#include <algorithm>

namespace gpuformats::select {

const char *const kStencilModeNames[3] = {"auto", "off", "on"};

StencilDecision choose_stencil_layout(const CsrView &A, StencilMode mode, int32_t max_diags, int32_t max_pad_pct)
{
  StencilDecision d;
  if (mode == StencilMode::off) {
    d.reason = "not stencil: -mat_gpuformats_stencil off";
    return d;
  }
  if (mode == StencilMode::on) {
    d.stencil = true;
    d.reason  = "stencil layout (DIA), as -mat_gpuformats_stencil on asks";
    return d;
  }
  if (A.nrows == 0 || A.nnz == 0) {
    d.reason = "not stencil: no entries";
    return d;
  }
  int32_t longest = 0;
  for (int32_t i = 0; i < A.nrows; ++i) longest = std::max(longest, A.row_length(i));
  const int64_t pad = (int64_t)longest * A.nrows - A.nnz;
  if (longest > max_diags) d.reason = "not stencil: a row of " + std::to_string(longest) + " entries, more offsets than " + std::to_string(max_diags);
  else if (pad * 100 > (int64_t)max_pad_pct * A.nnz) d.reason = "not stencil: rows of " + std::to_string(longest) + " entries would pad " + format_number(100.0 * (double)pad / (double)A.nnz, "%.1f") + "% of the nonzeros, above " + std::to_string(max_pad_pct) + "%";
  else {
    d.stencil = true;
    d.reason  = "stencil layout (DIA): every row on the longest row's " + std::to_string(longest) + " offsets, " + format_number(100.0 * (double)pad / (double)A.nnz, "%.1f") + "% padding";
  }
  return d;
}

StencilDecision refused_stencil_layout(const Error &refusal, StencilMode mode)
{
  const std::string why = without_fits_hint(refusal);
  if (mode == StencilMode::on) throw Error(ErrorKind::unsupported, "-mat_gpuformats_stencil on: " + why + "; use -mat_gpuformats_stencil auto or off");
  StencilDecision d;
  d.reason = "not stencil: " + why;
  return d;
}

} // namespace gpuformats::select
