// seq<fmt>: a SeqAIJ matrix whose products run in a gpuformats layout (one block: the matrix).
#include "gf_mat.hpp"

namespace gpuformats {

PetscErrorCode GFSeqSync(Mat A, Backend backend, PetscBool want_diag)
{
  PetscFunctionBegin;
  gf(A).syncs++;
  PetscCall(GFBlockSync(gf(A), *gf(A).diag, A, backend, want_diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A x + beta y
PetscErrorCode GFSeqProduct(Mat A, Backend backend, Vec x, PetscScalar beta, Vec y)
{
  GFMat             &gm     = gf(A);
  const PetscBool    read_y = beta != 0.0 ? PETSC_TRUE : PETSC_FALSE;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(GFSeqSync(A, backend, PETSC_FALSE));
  PetscCall(GFGetArrays(backend, x, &xa, y, read_y, &ya));
  PetscCall(GFBlockSpMV(gm, *gm.diag, 1.0, xa, beta, ya));
  PetscCall(GFRestoreArrays(backend, x, &xa, y, read_y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Turns a SeqAIJ matrix into seq<fmt>, in place or on a copy (MatConvert, MatCreate_SeqGF).
PetscErrorCode MatConvert_SeqAIJ_SeqGF(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(GFConvert(A, type, reuse, newmat, PETSC_FALSE, MatConvert_SeqAIJ_SeqGF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_SeqGF(Mat B, const FormatOps *ops)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqAIJ(B));
  PetscCall(MatConvert_SeqAIJ_SeqGF(B, seq_type_name(ops), MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
