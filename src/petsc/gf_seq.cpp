// seq<fmt>: a SeqAIJ matrix whose products run in a gpuformats layout.
#include "gf_mat.hpp"

namespace gpuformats {

static PetscErrorCode MatMult_SeqGF(Mat A, Vec x, Vec y)
{
  GFMat             &gm = gf(A);
  Backend            backend;
  PetscBool          use;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gm, x, y, &backend, &use));
  if (!use) {
    PetscCall(gm.aij.mult(A, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFBlockSync(gm, gm.diag, A, backend, PETSC_FALSE));
  PetscCall(GFGetArrays(backend, x, &xa, y, PETSC_FALSE, &ya));
  PetscCall(GFBlockSpMV(gm, gm.diag, 1.0, xa, 0.0, ya));
  PetscCall(GFRestoreArrays(backend, x, &xa, y, PETSC_FALSE, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqGF(Mat A, Vec x, Vec y, Vec z)
{
  GFMat             &gm = gf(A);
  Backend            backend;
  PetscBool          use;
  const PetscScalar *xa;
  PetscScalar       *za;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gm, x, z, &backend, &use));
  if (!use) {
    PetscCall(gm.aij.multadd(A, x, y, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFBlockSync(gm, gm.diag, A, backend, PETSC_FALSE));
  if (z != y) PetscCall(VecCopy(y, z));
  PetscCall(GFGetArrays(backend, x, &xa, z, PETSC_TRUE, &za));
  PetscCall(GFBlockSpMV(gm, gm.diag, 1.0, xa, 1.0, za));
  PetscCall(GFRestoreArrays(backend, x, &xa, z, PETSC_TRUE, &za));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_SeqGF(Mat A, Vec d)
{
  GFMat       &gm = gf(A);
  Backend      backend;
  PetscBool    use;
  PetscScalar *da;
  PetscMemType mt;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gm, d, d, &backend, &use));
  if (!use || A->rmap->n != A->cmap->n) {
    PetscCall(gm.aij.getdiagonal(A, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFBlockSync(gm, gm.diag, A, backend, PETSC_TRUE));
  if (backend == Backend::cuda) PetscCall(VecGetArrayWriteAndMemType(d, &da, &mt));
  else PetscCall(VecGetArrayWrite(d, &da));
  PetscCall(GFBlockGetDiagonal(gm.diag, da, A->rmap->n));
  if (backend == Backend::cuda) PetscCall(VecRestoreArrayWriteAndMemType(d, &da));
  else PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_SeqGF(Mat A, MatAssemblyType mode)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(gm.aij.assemblyend(A, mode));
  // Convert on assembly (later products find the layout current); MatBindToCPU defers it.
  if (mode == MAT_FINAL_ASSEMBLY && !A->boundtocpu) PetscCall(GFBlockSync(gm, gm.diag, A, resolve_backend(gm), PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqGF(Mat A)
{
  PetscFunctionBegin;
  PetscCall(GFDestroy(A, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SeqGF(Mat A, PetscViewer viewer)
{
  GFMat            &gm = gf(A);
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(gm.aij.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(GFBlockView(gm, gm.diag, "gpuformats", viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Turns a SeqAIJ matrix into seq<fmt>, in place or on a copy (MatConvert, MatCreate_SeqGF).
PetscErrorCode MatConvert_SeqAIJ_SeqGF(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  const FormatOps *ops;
  PetscBool        done;
  GFOps            ours{};

  PetscFunctionBegin;
  PetscCall(GFConvertBegin(A, type, reuse, newmat, &ops, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  ours.assemblyend = MatAssemblyEnd_SeqGF;
  ours.mult        = MatMult_SeqGF;
  ours.multadd     = MatMultAdd_SeqGF;
  ours.getdiagonal = MatGetDiagonal_SeqGF;
  ours.destroy     = MatDestroy_SeqGF;
  ours.view        = MatView_SeqGF;
  PetscCall(GFInstall(*newmat, ops, ours, MATSEQAIJ, seq_type_name(ops), MatConvert_SeqAIJ_SeqGF));
  if ((*newmat)->assembled && !(*newmat)->boundtocpu) PetscCall(GFBlockSync(gf(*newmat), gf(*newmat).diag, *newmat, resolve_backend(gf(*newmat)), PETSC_FALSE));
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
