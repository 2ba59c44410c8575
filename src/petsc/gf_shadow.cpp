// The shadow seqaijcusparse matrix S of a seq type (GFMat::shadow): the cuSPARSE view that PETSc's
// cusparse factorizations (gf_factor.cpp) and the device matrix products (gf_product.cpp) run on.
// S shares A's host CSR arrays (not copied); its device values are gathered from the format
// through slot_of_csr, device to device, and its device CSR is uploaded once per nonzero pattern.
#include "gf_mat.hpp"

#include "formats/slot_map.hpp"

#include <petscdevice_cuda.h>

#include <algorithm>

namespace gpuformats {

// S for the block's current nonzero pattern (a new pattern, or arrays moved by a new preallocation, make a new one).
static PetscErrorCode GetShadow(Mat aij, GFShadow &sh, Mat *S)
{
  PetscObjectState nz;
  const PetscInt  *ai, *aj;
  PetscScalar     *aa;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(aij, &nz));
  GFSeqAIJArrays(aij, &ai, &aj, &aa); // where the values live, not what they are
  const void *arrays[3] = {ai, aj, aa};
  if (sh.S && nz == sh.nzstate && std::equal(arrays, arrays + 3, sh.arrays)) {
    *S = sh.S;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatDestroy(&sh.S));
  sh.on_device = false;
  sh.state     = -1;
  PetscCall(GFInternalMatrix([&] {
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, aij->rmap->n, aij->cmap->n, const_cast<PetscInt *>(ai), const_cast<PetscInt *>(aj), aa, &sh.S));
    PetscCall(MatConvert(sh.S, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &sh.S));
    return PETSC_SUCCESS;
  }));
  sh.nzstate = nz;
  std::copy(arrays, arrays + 3, sh.arrays);
  *S = sh.S;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// S with its host values current (they are A's arrays): for the phases that factor on the host.
PetscErrorCode GFShadowOnHost(Mat A, Mat *S)
{
  PetscFunctionBegin;
  PetscCall(GFHostValues(A)); // S's host values are A's
  PetscCall(GetShadow(A, gf(A).shadow, S));
  (*S)->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(PetscObjectStateIncrease((PetscObject)*S));
  gf(A).shadow.state = -1; // the next device use gathers again
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The shadow of `aij` whose format block `blk` the caller has synced.
static PetscErrorCode GFShadowOfBlock(Mat aij, GFBlock &blk, GFShadow &sh, Mat *S)
{
  PetscObjectState state;
  PetscScalar     *v;
  cudaStream_t     stream;

  PetscFunctionBegin;
  PetscCall(GetShadow(aij, sh, S));
  PetscCall(PetscObjectStateGet((PetscObject)aij, &state));
  if (state == sh.state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(blk.fmt && blk.backend == Backend::cuda && blk.state == state, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: the block's device layout is not current");
  PetscCall(PetscLogEventBegin(MAT_GPUFormatsViewFill, aij, 0, 0, 0));
  // The first use of a pattern uploads S's device CSR (GetArray); later ones only overwrite its values.
  if (sh.on_device) PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(*S, &v));
  else PetscCall(MatSeqAIJCUSPARSEGetArray(*S, &v));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  GF_TRY(PETSC_COMM_SELF, gather_csr_values_cuda(*blk.fmt, v, stream));
  if (sh.on_device) PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(*S, &v));
  else PetscCall(MatSeqAIJCUSPARSERestoreArray(*S, &v));
  sh.on_device = true;
  sh.state     = state;
  PetscCall(PetscLogEventEnd(MAT_GPUFormatsViewFill, aij, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFShadowOnDevice(Mat A, Mat *S)
{
  PetscFunctionBegin;
  PetscCall(GFSeqSync(A, Backend::cuda, PETSC_FALSE)); // the format holds A's current values
  PetscCall(GFShadowOfBlock(A, *gf(A).diag, gf(A).shadow, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
