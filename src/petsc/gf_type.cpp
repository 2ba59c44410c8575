// What seq<fmt> and mpi<fmt> share: installing a format on an AIJ matrix, converting, duplicating,
// options, destroying, and vector access for the chosen backend.
#include "gf_mat.hpp"

namespace gpuformats {

// True when v can hand us device memory (a CUDA vector not bound to the CPU).
PetscErrorCode GFVecOnDevice(Vec v, PetscBool *on)
{
  PetscBool cuda, bound;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(VecBoundToCPU(v, &bound));
  *on = (cuda && !bound) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether this product runs in the format, and on which backend. The format runs on the host
// backend whatever the vectors are (host reference kernels), and on the cuda backend when both
// vectors live on the device; otherwise (host vectors, MatBindToCPU) PETSc's AIJ product runs.
PetscErrorCode GFUseFormat(Mat A, GFMat &gm, Vec x, Vec y, Backend *backend, PetscBool *use)
{
  PetscBool xd, yd;

  PetscFunctionBegin;
  *use     = PETSC_FALSE;
  *backend = resolve_backend(gm);
  if (A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  if (*backend == Backend::host) {
    *use = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFVecOnDevice(x, &xd));
  PetscCall(GFVecOnDevice(y, &yd));
  *use = (xd && yd) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Arrays of x (read) and y (write, or read-write when beta != 0) in the backend's memory.
PetscErrorCode GFGetArrays(Backend backend, Vec x, const PetscScalar **xa, Vec y, PetscBool read_y, PetscScalar **ya)
{
  PetscFunctionBegin;
  if (backend == Backend::cuda) {
    PetscMemType mx, my;
    PetscCall(VecGetArrayReadAndMemType(x, xa, &mx));
    if (read_y) PetscCall(VecGetArrayAndMemType(y, ya, &my));
    else PetscCall(VecGetArrayWriteAndMemType(y, ya, &my));
    PetscCheck(PetscMemTypeDevice(mx) && PetscMemTypeDevice(my), PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: expected device arrays");
  } else {
    PetscCall(VecGetArrayRead(x, xa));
    if (read_y) PetscCall(VecGetArray(y, ya));
    else PetscCall(VecGetArrayWrite(y, ya));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFRestoreArrays(Backend backend, Vec x, const PetscScalar **xa, Vec y, PetscBool read_y, PetscScalar **ya)
{
  PetscFunctionBegin;
  if (backend == Backend::cuda) {
    PetscCall(VecRestoreArrayReadAndMemType(x, xa));
    if (read_y) PetscCall(VecRestoreArrayAndMemType(y, ya));
    else PetscCall(VecRestoreArrayWriteAndMemType(y, ya));
  } else {
    PetscCall(VecRestoreArrayRead(x, xa));
    if (read_y) PetscCall(VecRestoreArray(y, ya));
    else PetscCall(VecRestoreArrayWrite(y, ya));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_GF(Mat A, PetscOptionItems PetscOptionsObject)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  if (gm.aij.setfromoptions) PetscCall(gm.aij.setfromoptions(A, PetscOptionsObject));
  PetscCall(GFMatSetFromOptions(A, gm, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_GF(Mat A, MatDuplicateOption op, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(gf(A).aij.duplicate(A, op, B)); // creates a matrix of A's type, then copies the AIJ data
  gf(*B).params         = gf(A).params;
  gf(*B).backend_option = gf(A).backend_option;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFConvertBegin(Mat A, MatType type, MatReuse reuse, Mat *newmat, const FormatOps **ops, PetscBool *done)
{
  PetscFunctionBegin;
  *ops  = format_of_type(type);
  *done = PETSC_FALSE;
  PetscCheck(*ops, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_UNKNOWN_TYPE, "gpuformats: no format for matrix type %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN)); // a values-only refresh at the next sync
    *done = PETSC_TRUE;
  } else if (reuse == MAT_INITIAL_MATRIX) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, newmat));
  } else {
    *newmat = A;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFInstall(Mat B, const FormatOps *ops, GFOps ours, const char *aij_type, const char *new_type, GFConvertFn conv)
{
  char name[256];

  PetscFunctionBegin;
  PetscCheck(!B->spptr, PetscObjectComm((PetscObject)B), PETSC_ERR_SUP, "gpuformats: cannot convert a %s matrix that carries another device layout; convert from %s", ((PetscObject)B)->type_name, aij_type);
  ours.setfromoptions = MatSetFromOptions_GF;
  ours.duplicate      = MatDuplicate_GF;

  GFMat *gm = new GFMat;
  gm->ops   = ops;
  for (int p = 0; p < ops->nparams; ++p) gm->params.push_back(ops->params[p].default_value);
  gm->aij = GFOps{B->ops->assemblyend, B->ops->mult, B->ops->multadd, B->ops->getdiagonal, B->ops->destroy, B->ops->setfromoptions, B->ops->view, B->ops->duplicate};
  B->spptr = gm;
  B->ops->assemblyend    = ours.assemblyend;
  B->ops->mult           = ours.mult;
  B->ops->multadd        = ours.multadd;
  B->ops->getdiagonal    = ours.getdiagonal;
  B->ops->destroy        = ours.destroy;
  B->ops->setfromoptions = ours.setfromoptions;
  B->ops->view           = ours.view;
  B->ops->duplicate      = ours.duplicate;

  // MatConvert(aij, new_type) finds the converter on a matrix of the new type (its step 2).
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", aij_type, new_type));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, name, conv));
  PetscCall(GFComposeCommon(B, PETSC_TRUE));
  if (cuda_device_present()) PetscCall(MatSetVecType(B, VECCUDA));
  B->boundtocpu = PETSC_FALSE; // MatCreate binds every matrix to the CPU where PETSc has devices
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, new_type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFDestroy(Mat A, const char *aij_type)
{
  PetscErrorCode (*aij_destroy)(Mat) = gf(A).aij.destroy;
  char name[256];

  PetscFunctionBegin;
  delete &gf(A);
  A->spptr = nullptr;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", aij_type, ((PetscObject)A)->type_name));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, NULL));
  PetscCall(GFComposeCommon(A, PETSC_FALSE));
  PetscCall(aij_destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
