// What gpuauto chose and why, in words: -info at a build and -mat_view ::ascii_info (its
// predictions, its choice against cuSPARSE's CSR, the refused candidates, the DP's partition and
// the features the model read); and the view's line writer the blocks' views share.
#include "gf_mat.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace gpuformats {

// gpuauto's choice in words: the predictions, the choice and the DP's partition (-info, -mat_view).
static std::string AutoPredictions(const model::AutoReport &r)
{
  std::string out;
  char        buf[96];
  for (size_t i = 0; i < r.names.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%s %.1f", i ? ", " : "", r.names[i].c_str(), 1e6 * r.predicted[i]);
    out += buf;
  }
  return out;
}

static std::string AutoChoice(const model::AutoReport &r)
{
  char   buf[256];
  double csr = -1;
  for (size_t i = 0; i < r.names.size(); ++i)
    if (r.names[i] == model::kCusparseCsr) csr = r.predicted[i];
  if (csr > 0 && r.chosen != model::kCusparseCsr) std::snprintf(buf, sizeof buf, "chose %s (predicted %.1f us, %.2fx cusparse_csr's %.1f us); the choice took %.3f ms", r.chosen.c_str(), 1e6 * r.chosen_predicted, csr / std::max(r.chosen_predicted, 1e-30), 1e6 * csr, 1e3 * r.choice_seconds);
  else std::snprintf(buf, sizeof buf, "chose %s (predicted %.1f us); the choice took %.3f ms", r.chosen.c_str(), 1e6 * r.chosen_predicted, 1e3 * r.choice_seconds);
  return buf;
}

static std::string AutoPartition(const model::AutoReport &r)
{
  if (r.strips.empty()) return "no strips (no rows)";
  const select::Partition &p = r.partition;
  if (!p.partitioned()) return "one block: no split of the " + std::to_string(r.strips.size()) + " strip(s) into formats is predicted faster";
  std::string out = "the DP predicts ";
  char        buf[160];
  for (size_t b = 0; b < p.blocks.size(); ++b) {
    const select::Block &k = p.blocks[b];
    std::snprintf(buf, sizeof buf, "%sstrips %d-%d %s", b ? ", " : "", k.first_strip, k.last_strip, r.names[k.format].c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, " at %.1f us against %.1f us for one format (%.3fx); one format is built", 1e6 * p.time, 1e6 * p.single.time, p.single.time / std::max(p.time, 1e-30));
  return out + buf;
}

PetscErrorCode GFAutoInfo(Mat aij, const GFBlock &blk)
{
  PetscFunctionBegin;
  if (!blk.auto_report) PetscFunctionReturn(PETSC_SUCCESS);
  const model::AutoReport &r = *blk.auto_report;
  PetscCall(PetscInfo(aij, "gpuformats: gpuauto %s; predicted us: %s; model %s\n", AutoChoice(r).c_str(), AutoPredictions(r).c_str(), r.model_source.c_str()));
  for (const std::string &why : r.refused) PetscCall(PetscInfo(aij, "gpuformats: gpuauto: refused %s\n", why.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// One line of a block's view: on every rank when `all` (inside PetscViewerASCIIPushSynchronized,
// flushed by the caller), else on the viewer's first rank only.
PetscErrorCode GFViewLine(PetscViewer viewer, PetscBool all, const char *fmt, ...)
{
  va_list ap, ap2;

  PetscFunctionBegin;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  std::string line((size_t)std::max(std::vsnprintf(nullptr, 0, fmt, ap), 0) + 1, '\0');
  std::vsnprintf(line.data(), line.size(), fmt, ap2);
  va_end(ap2);
  va_end(ap);
  if (all) PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "%s", line.c_str()));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "%s", line.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFAutoView(const model::AutoReport &r, const char *label, PetscViewer viewer, PetscBool all)
{
  int64_t rows = 0, nnz = 0, sectors = 0, footprint = 0, lanes = 0, warps = 0;
  int32_t max_row = 0;

  PetscFunctionBegin;
  for (const model::Strip &st : r.strips) rows += st.f.rows, nnz += st.f.nnz, sectors += st.x_sectors, footprint += st.x_footprint, lanes += st.lane_slots, warps += st.suraa_warps, max_row = std::max(max_row, st.f.max_row);
  PetscCall(GFViewLine(viewer, all, "%s: gpuauto: model %s (%s)\n", label, r.model_source.c_str(), r.model_gpu.c_str()));
  if (!r.model_message.empty()) PetscCall(GFViewLine(viewer, all, "%s: gpuauto: %s\n", label, r.model_message.c_str()));
  PetscCall(GFViewLine(viewer, all, "%s: gpuauto: features (%s): %zu strip(s) of %d rows; %" PetscInt64_FMT " rows, %" PetscInt64_FMT " nonzeros, longest row %d, %" PetscInt64_FMT " sectors of x read by its row groups (1 in %d groups counted), %" PetscInt64_FMT " distinct per strip (1 in %d sectors counted); SURAA's %" PetscInt64_FMT " lane slots in %" PetscInt64_FMT " warps\n", label, r.features_on_device ? "from the uploaded CSR, on the device" : "host", r.strips.size(), r.strip_rows, (PetscInt64)rows, (PetscInt64)nnz, max_row, (PetscInt64)sectors, r.sector_stride, (PetscInt64)footprint, model::footprint_stride(r.sector_stride), (PetscInt64)lanes, (PetscInt64)warps));
  PetscCall(GFViewLine(viewer, all, "%s: gpuauto: predicted us per product: %s\n", label, AutoPredictions(r).c_str()));
  PetscCall(GFViewLine(viewer, all, "%s: gpuauto: %s\n", label, AutoChoice(r).c_str()));
  for (const std::string &why : r.refused) PetscCall(GFViewLine(viewer, all, "%s: gpuauto: refused %s\n", label, why.c_str()));
  PetscCall(GFViewLine(viewer, all, "%s: gpuauto: partition: %s\n", label, AutoPartition(r).c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
