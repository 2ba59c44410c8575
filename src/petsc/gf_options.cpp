// A gpuformats matrix's options (-mat_gpuformats_*, -mat_<fmt>_*, a type's own -mat_<type>_*), read
// by MatSetFromOptions: what they change is dropped so that the next use rebuilds with them.
#include "gf_mat.hpp"

#include "layout/layout.hpp"
#include "select/block_layout.hpp"
#include "select/stencil_layout.hpp"

#include <string>
#include <vector>

namespace gpuformats {

// The type's string options beyond its format parameters (the model-driven type's model file and candidates),
// checked and kept by the layout decision's Settings.
static PetscErrorCode TypeOptions(Mat A, GFMat &gm, PetscOptionItems PetscOptionsObject, PetscBool *changed)
{
  const std::vector<layout::StringOption> options = gm.opt.settings.options();

  PetscFunctionBegin;
  for (size_t i = 0; i < options.size(); ++i) {
    const layout::StringOption &so = options[i];
    char                        opt[128];
    std::vector<std::string>    values;
    PetscBool                   set;
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_%s", gm.ops->root, so.name));
    if (so.list) {
      char    *names[32];
      PetscInt n = 32;
      PetscCall(PetscOptionsStringArray(opt, so.help, "MatSetFromOptions", names, &n, &set));
      for (PetscInt k = 0; k < n; ++k) values.emplace_back(names[k]);
      for (PetscInt k = 0; k < n; ++k) PetscCall(PetscFree(names[k]));
    } else {
      char value[PETSC_MAX_PATH_LEN];
      PetscCall(PetscStrncpy(value, gm.opt.settings.value(i).c_str(), sizeof(value)));
      PetscCall(PetscOptionsString(opt, so.help, "MatSetFromOptions", value, value, sizeof(value), &set));
      values.emplace_back(value);
    }
    bool now_changed = false;
    if (set) GF_TRY(PetscObjectComm((PetscObject)A), now_changed = gm.opt.settings.set(i, values));
    if (now_changed) *changed = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMatSetFromOptions(Mat A, GFMat &gm, PetscOptionItems PetscOptionsObject)
{
  char                 title[128], opt[128];
  PetscBool            changed = PETSC_FALSE;
  MatGPUFormatsBackend backend = gm.opt.backend_option;
  PetscInt             result  = gm.opt.product_format ? 1 : 0; // -mat_gpuformats_product_result

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(title, sizeof(title), "%s matrix options (gpuformats: %s)", gm.ops->root, gm.ops->description));
  PetscOptionsHeadBegin(PetscOptionsObject, title);
  PetscCall(PetscOptionsEnum("-mat_gpuformats_backend", "Where products run: auto (cuda if a device is present), host (reference kernels), cuda", "MatGPUFormatsSetBackend", MatGPUFormatsBackends, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  if (gm.mpi) {
    MatGPUFormatsHalo halo    = gm.opt.halo_option;
    PetscBool         measure = gm.opt.halo_measure;
    PetscCall(PetscOptionsEnum("-mat_gpuformats_halo", "How products gather the ghost values: auto (GPU: ipc where every rank is on one node whose GPUs are peers, mpi where ranks share a GPU, else nccl for halos of 2^20 values or more where NCCL serves every rank, else mpi; host backend: vecscatter), nccl (device to device, overlapped), mpi (our pattern over MPI, overlapped), vecscatter (PETSc's), ipc (GPUs of a node: copy engines through CUDA IPC, no SM and no host wait; other nodes by mpi)", "MatSetFromOptions", MatGPUFormatsHalos, (PetscEnum)halo, (PetscEnum *)&halo, NULL));
    PetscCall(PetscOptionsBool("-mat_gpuformats_halo_measure", "Time each product's halo and local product with CUDA events (the hidden fraction in -mat_view ::ascii_info)", "MatGPUFormatsGetHaloTimes", measure, &measure, NULL));
    PetscInt node_ranks = gm.opt.halo_node_ranks;
    PetscCall(PetscOptionsInt("-mat_gpuformats_halo_node_ranks", "ipc halo: ranks per node, consecutive (0: the ranks that share memory); a smaller number tries peers on other nodes (MPI) on one machine", "MatSetFromOptions", node_ranks, &node_ranks, NULL));
    PetscCheck(node_ranks >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuformats_halo_node_ranks %" PetscInt_FMT " is negative: give 0 (the ranks that share memory) or the ranks per node", node_ranks);
    if (node_ranks != gm.opt.halo_node_ranks) gm.halo_nzstate = -1; // chosen again at the next product
    gm.opt.halo_node_ranks = node_ranks;
    PetscCall(PetscOptionsBool("-mat_gpuformats_halo_overlap", "Run the halo exchange beside the local product (else before it, alone on the GPU)", "MatSetFromOptions", gm.opt.halo_overlap, &gm.opt.halo_overlap, NULL));
    GFSetHalo(gm, halo, measure);
  }
  PetscCall(PetscOptionsEList("-mat_gpuformats_product_result", "Type of the result of a MatProduct computed on the GPU (MatMatMult, MatPtAP: GAMG's coarse operators): aijcusparse, or this matrix's format", "MatProductSetFromOptions", GFProductResults, 2, GFProductResults[result], &result, NULL));
  gm.opt.product_format = result == 1;
  PetscBool trisolve_set = PETSC_FALSE;
  PetscCall(PetscOptionsEList("-mat_gpuformats_trisolve", "How the triangular solves of ILU(k) / ICC(k) in the natural ordering (PCILU, PCICC) run: levelset (exact solves of our own, the default: cuSPARSE's answers, faster per apply, and no cuSPARSE analysis at the setup; for ILU(k > 0) by default only where the lines schedule takes both triangles, a 3D grid's, else cuSPARSE's; for ILU(0) by default except on triangles of 1000 or more thin levels of long rows, a mesh graph's, where cuSPARSE's are faster; -pc_precision single keeps the factor's values in FP32), cusparse (cuSPARSE's exact triangular solves, as aijcusparse), sweeps (Jacobi sweeps, products in this format), isai (incomplete sparse approximate inverses, 2 products), auto (the sweeps or cuSPARSE's solves, whichever a measurement at the first numeric factorization predicts faster)", "PCFactorSetMatSolverType", GFTrisolveModes, 5, GFTrisolveModes[gm.opt.trisolve], &gm.opt.trisolve, &trisolve_set));
  gm.opt.trisolve_set = gm.opt.trisolve_set || trisolve_set ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_sweeps", "Jacobi sweeps per triangle of -mat_gpuformats_trisolve sweeps and auto", "PCFactorSetMatSolverType", gm.opt.trisolve_sweeps, &gm.opt.trisolve_sweeps, NULL, 0, 1000));
  const PetscInt block_mode = gm.opt.block_mode;
  PetscCall(PetscOptionsEList("-mat_gpuformats_block", "Block layout for a matrix with a block size (MatSetBlockSize, a DMDA's dof) from 2 to 8: auto (BELL, one column index per bs x bs block, where every block is dense; else this format), scalar (always this format), block (BELL, an error where not block-dense)", "MatSetBlockSize", select::kBlockModeNames, 3, select::kBlockModeNames[gm.opt.block_mode], &gm.opt.block_mode, NULL));
  if (gm.opt.block_mode != block_mode) changed = PETSC_TRUE;
  const PetscInt stencil_mode = gm.opt.stencil_mode;
  PetscCall(PetscOptionsEList("-mat_gpuformats_stencil", "Stencil layout (DIA: one value array per column offset, no column index) for a block whose rows all lie on the column offsets of its longest row, at most 32 of them, with at most 15% padding (a DMDA's stencil): auto (DIA where it fits, checked at each build; else this format), off (always this format), on (DIA, an error where it does not fit)", "MatSetFromOptions", select::kStencilModeNames, 3, select::kStencilModeNames[gm.opt.stencil_mode], &gm.opt.stencil_mode, NULL));
  if (gm.opt.stencil_mode != stencil_mode) changed = PETSC_TRUE;
  const PetscBool compressed_rows = gm.opt.compressed_rows;
  PetscCall(PetscOptionsBool("-mat_gpuformats_compressed_rows", "An mpi matrix's off-process block, where at most half its rows are nonempty, in its layout over those rows only, the product adding into them (else over every row, a pass over y per product)", "MatSetFromOptions", gm.opt.compressed_rows, &gm.opt.compressed_rows, NULL));
  if (gm.opt.compressed_rows != compressed_rows) changed = PETSC_TRUE;
  PetscBool margin_set = PETSC_FALSE;
  PetscCall(PetscOptionsReal("-mat_gpuformats_trisolve_auto_margin", "-mat_gpuformats_trisolve auto takes the sweeps where their predicted solve time is at most this times the exact solves' (0: never; default, shown as -1: 0.4 for ILU(0) / ICC(0), 0.3 with fill)", "PCFactorSetMatSolverType", gm.opt.trisolve_auto_margin, &gm.opt.trisolve_auto_margin, &margin_set));
  PetscCheck(!margin_set || gm.opt.trisolve_auto_margin >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuformats_trisolve_auto_margin must be 0 or more (given %g): it bounds a ratio of times", (double)gm.opt.trisolve_auto_margin);
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_upload_threads", "Host threads that copy the AIJ arrays into pinned buffers for their upload to the GPU at a build or values-only refresh (1: cudaMemcpyAsync from pageable memory, as aijcusparse)", "MatSetFromOptions", gm.opt.upload_threads, &gm.opt.upload_threads, NULL, 1, kMaxUploadThreads));
  PetscCall(TypeOptions(A, gm, PetscOptionsObject, &changed));
  // the type's format's parameters, then the stencil layout's (every type may take it)
  for (auto [ops, params] : {std::pair<const FormatOps *, std::vector<int64_t> *>{gm.ops, &gm.opt.params}, {&layout::stencil_ops(), &gm.opt.stencil_params}})
    for (int p = 0; p < ops->nparams; ++p) {
      const FormatParam &fp  = ops->params[p];
      PetscInt           val = (PetscInt)(*params)[p];
      PetscBool          set;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_%s", ops->root, fp.name));
      if (fp.min_value == 0 && fp.max_value == 1) { // a switch (narrow_columns, permute, ...): true/false, 1/0
        PetscBool on = val ? PETSC_TRUE : PETSC_FALSE;
        PetscCall(PetscOptionsBool(opt, fp.help, "MatSetFromOptions", on, &on, &set));
        val = on ? 1 : 0;
      } else PetscCall(PetscOptionsRangeInt(opt, fp.help, "MatSetFromOptions", val, &val, &set, (PetscInt)fp.min_value, (PetscInt)fp.max_value));
      if (set && val != (*params)[p]) {
        (*params)[p] = val;
        changed      = PETSC_TRUE;
      }
    }
  PetscOptionsHeadEnd();
  if (backend != gm.opt.backend_option) PetscCall(MatGPUFormatsSetBackend(A, backend));
  if (changed) { // a layout parameter changed: rebuild at the next sync
    PetscCall(GFHostValues(A)); // from the layout it drops
    gm.diag->reset();
    gm.offd->reset();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
