// What seq<fmt> and mpi<fmt> share: the Mat operations themselves, conversion from AIJ, and vector
// access for the chosen backend. The types differ only in GF{Seq,MPI}{Sync,Product}.
#include "gf_mat.hpp"

#include "layout/layout.hpp"

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

// MatConvert(aij, type) finds the converter on a matrix of the new type (its step 2), under the
// type's name and under its short alias (seqevchyb); conv NULL removes them.
static PetscErrorCode ComposeConverters(Mat B, const FormatOps *ops, bool mpi, GFConvertFn conv)
{
  const char *aij_type = mpi ? MATMPIAIJ : MATSEQAIJ;
  char        name[256];

  PetscFunctionBegin;
  for (const char *t : {mpi ? mpi_type_name(ops) : seq_type_name(ops), mpi ? mpi_alias_name(ops) : seq_alias_name(ops)}) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", aij_type, t));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, conv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// --- the Mat operations, once for seq and mpi; the two differ only in sync and product ---

static PetscErrorCode GFSync(Mat A, Backend backend, PetscBool want_diag, PetscBool with_halo)
{
  PetscFunctionBegin;
  if (gf(A).mpi) PetscCall(GFMPISync(A, backend, want_diag, with_halo));
  else PetscCall(GFSeqSync(A, backend, want_diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFSyncNow(Mat A)
{
  PetscFunctionBegin;
  if (!A->boundtocpu && A->assembled) PetscCall(GFSync(A, resolve_backend(gf(A)), PETSC_FALSE, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GFProduct(Mat A, Backend backend, Vec x, PetscScalar beta, Vec y)
{
  PetscFunctionBegin;
  if (gf(A).mpi) PetscCall(GFMPIProduct(A, backend, x, beta, y));
  else PetscCall(GFSeqProduct(A, backend, x, beta, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_GF(Mat A, Vec x, Vec y)
{
  Backend   backend;
  PetscBool use;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gf(A), x, y, &backend, &use));
  if (use) PetscCall(GFProduct(A, backend, x, 0.0, y));
  else {
    PetscCall(GFHostValues(A));
    PetscCall(gf(A).aij.mult(A, x, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_GF(Mat A, Vec x, Vec y, Vec z)
{
  Backend   backend;
  PetscBool use;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gf(A), x, z, &backend, &use));
  if (!use) {
    PetscCall(GFHostValues(A));
    PetscCall(gf(A).aij.multadd(A, x, y, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (z != y) PetscCall(VecCopy(y, z));
  PetscCall(GFProduct(A, backend, x, 1.0, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Transposed products on the cuda backend with device vectors: each block's A^T (transpose/), made
// by the first transposed product, its values gathered from the format after a change, so a matrix
// never transposed spends nothing on it. Elsewhere AIJ's. z = A^T x (+ y).
static PetscErrorCode TransposedProduct(Mat A, Vec x, Vec y, Vec z)
{
  Backend   backend;
  PetscBool use;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gf(A), x, z, &backend, &use));
  if (!use || backend != Backend::cuda) {
    PetscCall(GFHostValues(A));
    if (y) PetscCall(gf(A).aij.multtransposeadd(A, x, y, z));
    else PetscCall(gf(A).aij.multtranspose(A, x, z));
  } else if (gf(A).mpi) PetscCall(GFMPITransposedProduct(A, x, y, z));
  else {
    GFMat &gm = gf(A);
    PetscCall(GFSeqSync(A, Backend::cuda, PETSC_FALSE));
    const bool symmetric = gm.diag->fmt && gm.diag->fmt->values_symmetric(); // A^T = A: the product, no transposed layout
    if (!symmetric) PetscCall(GFBlockTransposeReady(gm, *gm.diag, A));
    if (y && y != z) PetscCall(VecCopy(y, z));
    if (symmetric) {
      gm.diag->symmetric_transposes++;
      PetscCall(GFSeqProduct(A, Backend::cuda, x, y ? 1.0 : 0.0, z));
    } else PetscCall(GFBlockTransposedProduct(*gm.diag, x, y ? PETSC_TRUE : PETSC_FALSE, z));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_GF(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(TransposedProduct(A, x, nullptr, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_GF(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(TransposedProduct(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_GF(Mat A, Vec d)
{
  GFMat       &gm = gf(A);
  Backend      backend;
  PetscBool    use;
  PetscScalar *da;
  PetscMemType mt;

  PetscFunctionBegin;
  PetscCall(GFUseFormat(A, gm, d, d, &backend, &use));
  // The diagonal lies in the local block only when row and column ownership agree.
  if (!use || A->rmap->rstart != A->cmap->rstart || A->rmap->n != A->cmap->n) {
    PetscCall(GFHostValues(A));
    PetscCall(gm.aij.getdiagonal(A, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFSync(A, backend, PETSC_TRUE, PETSC_FALSE));
  if (backend == Backend::cuda) PetscCall(VecGetArrayWriteAndMemType(d, &da, &mt));
  else PetscCall(VecGetArrayWrite(d, &da));
  PetscCall(GFBlockGetDiagonal(*gm.diag, da, A->rmap->n));
  if (backend == Backend::cuda) PetscCall(VecRestoreArrayWriteAndMemType(d, &da));
  else PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// PCPBJACOBI applies its inverted blocks on the device only for a matrix whose type, or whose block
// diagonal (this op), is aijcusparse: on the cuda backend, give it the block diagonal as one, made
// from the AIJ rows (the caller owns it; PBJacobi inverts it on the host and uploads the inverses,
// as for aijcusparse). Elsewhere none (NULL: PBJacobi takes the matrix itself): its host path keeps
// a pointer into the inverted matrix, which it destroys (PETSc 3.26, pbjacobi.c).
static PetscErrorCode MatGetBlockDiagonal_GF(Mat A, Mat *D)
{
  PetscInt bs, rstart, rend;

  PetscFunctionBegin;
  *D = NULL;
  if (resolve_backend(gf(A)) != Backend::cuda || A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), D));
  PetscCall(MatSetSizes(*D, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(*D, A, A));
  PetscCall(MatSetType(*D, MATAIJCUSPARSE));
  PetscCall(MatSeqAIJSetPreallocation(*D, bs, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*D, bs, NULL, 0, NULL));
  for (PetscInt i = rstart; i < rend; ++i) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    const PetscInt     b0 = (i / bs) * bs;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; ++k)
      if (cols[k] >= b0 && cols[k] < b0 + bs) PetscCall(MatSetValues(*D, 1, &i, 1, &cols[k], &vals[k], INSERT_VALUES));
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*D, MAT_FINAL_ASSEMBLY));
  PetscCall(GFInternalMatrix([&] { return MatAssemblyEnd(*D, MAT_FINAL_ASSEMBLY); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_GF(Mat A, MatAssemblyType mode)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(gm.aij.assemblyend(A, mode)); // (with stale host values: no host write came before it, the layout keeps them: GFBlockSync)
  if (GFHostStale(A)) A->offloadmask = PETSC_OFFLOAD_GPU; // (MPIAIJ's assembly sets BOTH)
  PetscCall(GFWrapHostPaths(A)); // AIJ's assembly may have installed other operations
  // An mpi<fmt>'s local block is our seq type from its first final assembly on, so that what PETSc
  // takes from it before any product (block Jacobi's block, sub-matrices of its type) is ours too.
  if (mode == MAT_FINAL_ASSEMBLY && gf(A).mpi) PetscCall(GFMPIAdoptLocalBlock(A, NULL, NULL));
  // No device work here: the first use after it (product, diagonal, factorization, explicit sync)
  // syncs once, however many assemblies came before (SNES assembles more often than it multiplies;
  // a seq<fmt> finds the new state at that use). An mpi<fmt> marks its next product to sync
  // collectively, as assembly is collective: a failure on one rank then fails all.
  if (mode == MAT_FINAL_ASSEMBLY && gf(A).mpi) gf(A).pending = true;
  // The one exception, communication set-up: NCCL's communicator (once per program) is made at the
  // first final assembly, not in the first product inside a solve.
  if (mode == MAT_FINAL_ASSEMBLY && gf(A).mpi) PetscCall(GFMPIPrepareHalo(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_GF(Mat A, PetscViewer viewer)
{
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(GFHostValues(A));
  PetscCall(gf(A).aij.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GFSyncNow(A)); // the layout statistics asked for: built now if an assembly left it pending
  if (gf(A).mpi) PetscCall(GFMPIView(A, viewer));
  else {
    PetscCall(GFBlockView(gf(A), *gf(A).diag, "gpuformats", viewer, PETSC_FALSE));
    PetscCall(GFShadowView(gf(A).shadow, *gf(A).diag, "gpuformats", viewer, PETSC_FALSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_GF(Mat A)
{
  PetscErrorCode (*aij_destroy)(Mat) = gf(A).aij.destroy;

  PetscFunctionBegin;
  if (gf(A).mpi) PetscCall(GFMPIDestroy(A));
  PetscCall(MatDestroy(&gf(A).shadow.S));
  if (!gf(A).mpi) PetscCall(GFInstallProducts(A, PETSC_FALSE));
  PetscCall(ComposeConverters(A, gf(A).ops, gf(A).mpi, NULL));
  GFReleaseHostPaths(gf(A));
  PetscCall(GFInstallCOO(A, PETSC_FALSE));
  delete &gf(A);
  A->spptr = nullptr;
  PetscCall(GFComposeCommon(A, PETSC_FALSE));
  PetscCall(aij_destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_GF(Mat A, PetscOptionItems PetscOptionsObject)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  if (gm.aij.setfromoptions) PetscCall(gm.aij.setfromoptions(A, PetscOptionsObject));
  PetscCall(GFMatSetFromOptions(A, gm, PetscOptionsObject));
  PetscCall(GFWrapHostPaths(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_GF(Mat A, MatDuplicateOption op, Mat *B)
{
  PetscFunctionBegin;
  if (op != MAT_DO_NOT_COPY_VALUES) PetscCall(GFHostValues(A));
  PetscCall(gf(A).aij.duplicate(A, op, B)); // creates a matrix of A's type, then copies the AIJ data
  PetscCall(GFInherit(A, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFInstall(Mat B, const FormatOps *ops, PetscBool mpi, GFConvertFn self)
{
  PetscFunctionBegin;
  PetscCheck(!B->spptr, PetscObjectComm((PetscObject)B), PETSC_ERR_SUP, "gpuformats: cannot convert a %s matrix that carries another device layout; convert from %s", ((PetscObject)B)->type_name, mpi ? MATMPIAIJ : MATSEQAIJ);
  GFMat *gm = new GFMat;
  gm->ops   = ops;
  gm->mpi   = mpi;
  gm->opt.params = default_params(*ops);
  gm->opt.stencil_params = default_params(layout::stencil_ops());
  gm->opt.settings = layout::Settings(*ops);
  gm->aij  = GFOps{B->ops->assemblyend, B->ops->mult, B->ops->multadd, B->ops->getdiagonal, B->ops->destroy, B->ops->setfromoptions, B->ops->view, B->ops->duplicate, B->ops->multtranspose, B->ops->multtransposeadd,
                   B->ops->scale, B->ops->shift, B->ops->diagonalset, B->ops->diagonalscale, B->ops->axpy, B->ops->zeroentries, B->ops->createsubmatrix, B->ops->createsubmatrices, B->ops->zerorows, B->ops->zerorowscolumns};
  B->spptr = gm;
  B->ops->assemblyend      = MatAssemblyEnd_GF;
  B->ops->mult             = MatMult_GF;
  B->ops->multadd          = MatMultAdd_GF;
  B->ops->getdiagonal      = MatGetDiagonal_GF;
  B->ops->destroy          = MatDestroy_GF;
  B->ops->setfromoptions   = MatSetFromOptions_GF;
  B->ops->view             = MatView_GF;
  B->ops->duplicate        = MatDuplicate_GF;
  B->ops->multtranspose    = MatMultTranspose_GF;
  B->ops->multtransposeadd = MatMultTransposeAdd_GF;
  B->ops->getblockdiagonal = MatGetBlockDiagonal_GF;
  if (!mpi) B->ops->getordering = GFGetOrdering;
  GFInstallEdits(B);
  GFInstallDerived(B);
  if (!mpi) PetscCall(GFInstallProducts(B, PETSC_TRUE)); // MatMatMult, MatPtAP, ... on the device
  PetscCall(GFWrapHostPaths(B));                          // host readers bring an edited layout's values back
  PetscCall(GFInstallCOO(B, PETSC_TRUE));                 // COO assembly into the layout

  PetscCall(ComposeConverters(B, ops, mpi, self));
  PetscCall(GFComposeCommon(B, PETSC_TRUE));
  if (cuda_device_present()) PetscCall(MatSetVecType(B, VECCUDA));
  B->boundtocpu = PETSC_FALSE; // MatCreate binds every matrix to the CPU where PETSc has devices
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, mpi ? mpi_type_name(ops) : seq_type_name(ops)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Turns the AIJ matrix A (seqaij or mpiaij) into seq<fmt> / mpi<fmt>: REUSE copies the values
// (a values-only refresh follows), INITIAL converts a duplicate, INPLACE converts A. The AIJ ops
// are kept in GFMat::aij for the fallbacks; an assembled matrix is converted at once.
PetscErrorCode GFConvert(Mat A, MatType type, MatReuse reuse, Mat *newmat, PetscBool mpi, GFConvertFn self)
{
  const FormatOps *ops = format_of_type(type);
  Mat              B;

  PetscFunctionBegin;
  PetscCheck(ops, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_UNKNOWN_TYPE, "gpuformats: no format for matrix type %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  // A symbolic result (MatTransposeSymbolic() sets our type on a pattern without values) is
  // converted without a sync: its first use after its values are set builds the layout.
  PetscBool values = PETSC_TRUE;
  if (!mpi && B->assembled) {
    const PetscInt *ai, *aj;
    PetscScalar    *aa;
    PetscMemType    mt;
    PetscCall(MatSeqAIJGetCSRAndMemType(B, &ai, &aj, &aa, &mt));
    values = aa || !B->rmap->n || !ai[B->rmap->n] ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscErrorCode ierr = GFInstall(B, ops, mpi, self);
  if (!ierr && values) ierr = GFSyncNow(B); // e.g. out of device memory: a converted copy is not kept
  if (ierr && reuse == MAT_INITIAL_MATRIX) (void)MatDestroy(&B);
  PetscCall(ierr);
  // Only MatConvert calls a converter on an assembled matrix (MatCreate_SeqGF converts an empty
  // one), and it raises B's state right after: the seq block then skips that one step (GFBlockSync).
  // The MPI blocks are mpiaij's own matrices, whose states MatConvert leaves alone.
  if (!mpi && gf(B).diag->fmt) gf(B).diag->caller_step = true;
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
