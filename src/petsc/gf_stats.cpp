// MatGPUFormatsGetStatistics(): the layout statistics of -mat_view ::ascii_info as one JSON object,
// for programs (and the Python module) that read them rather than print them.
#include "petsc/gf_mat.hpp"
#include "core/csr.hpp"

#include <nlohmann/json.hpp>

namespace gpuformats {

namespace {

// One stage's times, or null where not measured (host backend, or never run).
PetscErrorCode StageJson(const GFStageTime &st, nlohmann::json &out)
{
  double    up = 0, dev = 0;
  PetscBool measured;

  PetscFunctionBegin;
  PetscCall(GFStageSeconds(st, &up, &dev, &measured));
  out = measured ? nlohmann::json{{"upload_s", up}, {"device_s", dev}} : nlohmann::json(nullptr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BlockJson(const GFMat &gm, const GFBlock &blk, nlohmann::json &out)
{
  PetscFunctionBegin;
  out = {{"built", blk.fmt != nullptr}, {"builds", blk.builds}, {"refreshes", blk.refreshes}, {"edits", blk.edits}, {"products", blk.products}, {"to_host", blk.to_host}};
  if (!blk.fmt) PetscFunctionReturn(PETSC_SUCCESS);
  const FormatBlock &f = *blk.fmt;
  out["layout"]        = GFLayoutName(gm, blk);
  out["format"]        = blk.built_ops ? blk.built_ops->root : gm.ops->root;
  out["backend"]       = blk.backend == Backend::cuda ? "cuda" : "host";
  out["rows"]          = f.nrows;
  out["cols"]          = f.ncols;
  out["nonzeros"]      = f.nnz;
  out["stored_slots"]  = f.nslots;
  out["bytes"]         = f.bytes();
  out["csr_bytes"]     = csr_bytes(f.nnz, f.nrows);
  out["map_bytes"]     = f.map_bytes();
  if (blk.block_bs) out["block_size"] = blk.block_bs;
  if (!blk.layout_reason.empty()) out["layout_reason"] = blk.layout_reason;
  PetscCall(StageJson(blk.last_build, out["last_build"]));
  PetscCall(StageJson(blk.last_refresh, out["last_refresh"]));
  if (blk.transposed) out["transposed_bytes"] = blk.transposed->bytes();
  out["transposed_products"]  = blk.transposed_products;
  out["symmetric_transposes"] = blk.symmetric_transposes;
  std::vector<LayoutStat> stats;
  f.describe(stats);
  nlohmann::json &layout_stats = out["layout_stats"] = nlohmann::json::object();
  for (const LayoutStat &st : stats) layout_stats[st.key] = st.value;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode GFGetStatistics_Private(Mat A, const char **json)
{
  GFMat         &gm = gf(A);
  nlohmann::json out;

  PetscFunctionBegin;
  PetscCall(GFSyncNow(A)); // as -mat_view ::ascii_info: built now if an assembly left it pending
  out["type"]    = ((PetscObject)A)->type_name;
  out["backend"] = MatGPUFormatsBackends[gm.opt.backend_option];
  PetscCall(BlockJson(gm, *gm.diag, out["local"]));
  if (gm.mpi) {
    PetscCall(BlockJson(gm, *gm.offd, out["off_process"]));
    out["halo"] = {{"path", MatGPUFormatsHalos[gm.halo_used]}, {"why", gm.halo_why}};
  }
  try {
    gm.stats_json = out.dump();
  } catch (const std::exception &e) { // a layout statistic that is not UTF-8, or no memory
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "gpuformats: the statistics could not be written as JSON: %s", e.what());
  }
  *json = gm.stats_json.c_str();
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
