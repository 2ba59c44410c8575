// Values that live in the layout. An in-place edit of a matrix whose layout is current (MatScale,
// MatShift, MatDiagonalSet, MatDiagonalScale, MatZeroEntries, MatAXPY; gf_edit.cpp) or a COO assembly
// (gf_coo.cpp) changes the layout alone, with no host work, and leaves the host AIJ values stale, as
// aijcusparse's offload mask does (GFBlock::host_stale; A->offloadmask PETSC_OFFLOAD_GPU):
//
//   edit ──> layout (current) ── host AIJ array (stale) ──first host read──> gather + one download
//
// Whatever reads the host values, or writes only some of them, brings them back first, once:
//   - SeqAIJ's value accessors (MatSeqAIJGetArray, ...Read, MatSeqAIJGetCSRAndMemType), through
//     which PETSc's SeqAIJ code, the factorization packages and applications read the values: a
//     seq<fmt>'s own, an mpi<fmt>'s local block's (our seq type) and its off-process block's (a
//     plain SeqAIJ that MPIAIJ remakes: its accessors guarded, GFGuardOffProcessBlock), through
//     which MPIAIJ's products, GAMG's graph and PtAP, and MatDisAssemble read the blocks;
//   - the AIJ operations of GF_HOST_OPS below, which read or change the host array themselves
//     (an mpi<fmt>'s MPIAIJ operations too, with GF_MPI_HOST_OPS: both blocks come back);
//   - our operations where they fall back to AIJ's (host vectors, MatBindToCPU: gf_type.cpp,
//     gf_edit.cpp) and anything that drops the layout (new options, another backend).
// The other AIJ operations need no values (sizes, patterns, options, symbolic phases) or are ours.
// Inodes are off (as for aijcusparse), so no host factorization reads the array behind the
// accessors. A host write raises the AIJ state: the next use refreshes the layout from the host,
// which is then the master again.
#include "gf_mat.hpp"

#include "formats/slot_map.hpp"

#include <../src/mat/impls/aij/seq/aij.h> // Mat_SeqAIJ: its value accessors (Mat_SeqAIJOps)

#include <petscdevice_cuda.h>

namespace gpuformats {

bool GFHostStale(Mat A) { return A->spptr && (gf(A).diag->host_stale || (gf(A).mpi && gf(A).offd->host_stale)); }

namespace {

// ---- SeqAIJ's value accessors ----

const Mat_SeqAIJOps &SavedAccessors(Mat A) { return *static_cast<const Mat_SeqAIJOps *>(gf(A).seqaij_ops); }

PetscErrorCode GetArray_GF(Mat A, PetscScalar **v)
{
  PetscFunctionBegin;
  PetscCall(GFHostValues(A));
  if (SavedAccessors(A).getarray) PetscCall(SavedAccessors(A).getarray(A, v));
  else *v = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetArrayRead_GF(Mat A, const PetscScalar **v)
{
  PetscFunctionBegin;
  PetscCall(GFHostValues(A));
  if (SavedAccessors(A).getarrayread) PetscCall(SavedAccessors(A).getarrayread(A, v));
  else *v = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Write-only: every value is overwritten, so nothing comes back; the host is the master from here.
PetscErrorCode GetArrayWrite_GF(Mat A, PetscScalar **v)
{
  PetscFunctionBegin;
  if (GFHostStale(A)) {
    gf(A).diag->host_stale = false;
    A->offloadmask         = PETSC_OFFLOAD_CPU;
  }
  if (SavedAccessors(A).getarraywrite) PetscCall(SavedAccessors(A).getarraywrite(A, v));
  else *v = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSeqAIJGetCSRAndMemType as SeqAIJ (or the accessor `saved` it had) answers it.
PetscErrorCode SeqAIJCSR(Mat A, PetscErrorCode (*saved)(Mat, const PetscInt **, const PetscInt **, PetscScalar **, PetscMemType *), const PetscInt **i, const PetscInt **j, PetscScalar **v, PetscMemType *mt)
{
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)A->data;

  PetscFunctionBegin;
  if (saved) PetscCall(saved(A, i, j, v, mt));
  else {
    if (i) *i = a->i;
    if (j) *j = a->j;
    if (v) *v = a->a;
    if (mt) *mt = PETSC_MEMTYPE_HOST;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetCSRAndMemType_GF(Mat A, const PetscInt **i, const PetscInt **j, PetscScalar **v, PetscMemType *mt)
{
  PetscFunctionBegin;
  if (v) PetscCall(GFHostValues(A));
  PetscCall(SeqAIJCSR(A, SavedAccessors(A).getcsrandmemtype, i, j, v, mt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- the AIJ operations that touch host values ----

template <class T>
struct HostOp;
template <class... Args>
struct HostOp<PetscErrorCode (*_MatOps::*)(Mat, Args...)> {
  // The AIJ operation in `slot`, after the host values came back.
  template <PetscErrorCode (*_MatOps::*slot)(Mat, Args...)>
  static PetscErrorCode call(Mat A, Args... args)
  {
    PetscFunctionBegin;
    PetscCall(GFHostValues(A));
    PetscCall((gf(A).host_ops.*slot)(A, args...));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

// MatEqual reads both matrices' host values (B's too where B is of our types: another type's spptr
// is not a GFMat).
PetscErrorCode Equal_GF(Mat A, Mat B, PetscBool *flg)
{
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(GFHostValues(A));
  PetscCall(MatGPUFormatsIsType(B, &ours));
  if (ours) PetscCall(GFHostValues(B));
  PetscCall(gf(A).host_ops.equal(A, B, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class Fn>
void Wrap(Mat A, Fn _MatOps::*slot, Fn wrapper)
{
  Fn &op = A->ops->*slot;
  if (!op || op == wrapper) return;
  gf(A).host_ops.*slot = op;
  op                   = wrapper;
}

// The AIJ operations that read or change the host values themselves (PETSc 3.26's SeqAIJ):
// entries, rows and columns read; host writes of some entries (MatSetValues*, MatZeroRows*Local:
// their other entries must be current); host factorizations in place; reductions, norms,
// comparisons; conversions and copies; SOR. MatEqual is Equal_GF (both operands); MatZeroRows and
// MatZeroRowsColumns are gf_edit.cpp's (on the layout where they keep the pattern).
#define GF_HOST_OPS(X) \
  X(setvalues) X(setvaluesblocked) X(setvalueslocal) X(setvaluesblockedlocal) X(setvaluesrow) X(getrow) X(getvalues) X(getvalueslocal) X(getrowuppertriangular) \
  X(zerorowslocal) X(zerorowscolumnslocal) X(eliminatezeros) X(conjugate) X(realpart) X(imaginarypart) X(setrandom) \
  X(lufactor) X(choleskyfactor) X(ilufactor) X(iccfactor) X(sor) X(transpose) X(hermitiantranspose) X(norm) X(issymmetric) X(ishermitian) \
  X(getrowmax) X(getrowmaxabs) X(getrowmin) X(getrowminabs) X(getrowsumabs) X(getcolumnvector) X(getcolumnreductions) X(findzerodiagonals) X(findnonzerorows) \
  X(findoffblockdiagonalentries) X(invertblockdiagonal) X(invertvariableblockdiagonal) X(getvblockdiagonal) X(multdiagonalblock) X(multhermitiantranspose) \
  X(multhermitiantransposeadd) X(residual) X(copy) X(convert) X(permute) X(creategraph) X(adot) X(anorm) X(adot_local) X(anorm_local)

// SeqAIJ's own pattern operations, which MatSeqAIJCheckInode replaces by inode versions where it
// found inodes (an AIJ block assembled before our type adopted it): read from a fresh SeqAIJ, since
// PETSc does not export them.
PetscErrorCode PlainSeqAIJOps(const _MatOps **ops)
{
  static _MatOps plain{};
  static bool    done = false;

  PetscFunctionBegin;
  if (!done) {
    Mat M;
    PetscCall(MatCreate(PETSC_COMM_SELF, &M));
    PetscCall(MatSetType(M, MATSEQAIJ));
    plain = *M->ops;
    PetscCall(MatDestroy(&M));
    done = true;
  }
  *ops = &plain;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MPIAIJ's operations beyond GF_HOST_OPS that read or write its blocks' values on the host (PETSc
// 3.26's MatOps_Values): MatZeroRows* (an mpi<fmt> leaves them to MPIAIJ), products' numeric phases
// of the operation table, the sub-matrices it gathers and FD colouring's write.
#define GF_MPI_HOST_OPS(X) \
  X(zerorows) X(zerorowscolumns) X(createsubmatricesmpi) X(getmultiprocblock) X(fdcoloringapply) X(matmultnumeric) X(ptapnumeric) \
  X(mattransposemultnumeric) X(transposematmultnumeric) X(matmatmultnumeric)

// ---- an mpi<fmt>'s off-process block A_o: a plain SeqAIJ whose accessors bring its values back ----

struct OffdGuard {
  std::shared_ptr<GFBlock> blk;   // the parent's offd block
  Mat_SeqAIJOps            saved; // A_o's accessors as SeqAIJ left them
};
constexpr const char *kOffdGuard = "GFOffProcessBlockGuard";

PetscErrorCode DestroyOffdGuard(PetscCtxRt ctx) // ctx: the address of the pointer
{
  OffdGuard **g = static_cast<OffdGuard **>(ctx);
  delete *g;
  *g = nullptr;
  return PETSC_SUCCESS;
}

// The guard of A_o (null where none: a SeqAIJ copied from a guarded one keeps its accessors).
PetscErrorCode FindOffdGuard(Mat Ao, OffdGuard **g)
{
  PetscFunctionBegin;
  *g = nullptr;
  PetscCall(PetscObjectContainerQuery((PetscObject)Ao, kOffdGuard, (PetscCtxRt)g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OffdBack(Mat Ao, const Mat_SeqAIJOps **saved)
{
  OffdGuard *g;

  PetscFunctionBegin;
  PetscCall(FindOffdGuard(Ao, &g));
  *saved = g ? &g->saved : nullptr;
  if (g) PetscCall(GFBlockToHost(*g->blk, Ao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSeqAIJGetArray / ...Read of A_o: its values back first, then SeqAIJ's accessor.
template <class V, PetscErrorCode (*Mat_SeqAIJOps::*get)(Mat, V **)>
PetscErrorCode OffdRead(Mat A, V **v)
{
  const Mat_SeqAIJOps *saved;

  PetscFunctionBegin;
  PetscCall(OffdBack(A, &saved));
  if (saved && saved->*get) PetscCall((saved->*get)(A, v));
  else *v = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OffdGetArrayWrite(Mat A, PetscScalar **v) // every value overwritten: nothing comes back
{
  OffdGuard *g;

  PetscFunctionBegin;
  PetscCall(FindOffdGuard(A, &g));
  if (g) g->blk->host_stale = false;
  if (g && g->saved.getarraywrite) PetscCall(g->saved.getarraywrite(A, v));
  else *v = ((Mat_SeqAIJ *)A->data)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OffdGetCSRAndMemType(Mat A, const PetscInt **i, const PetscInt **j, PetscScalar **v, PetscMemType *mt)
{
  const Mat_SeqAIJOps *saved = nullptr;
  OffdGuard           *g;

  PetscFunctionBegin;
  if (v) PetscCall(OffdBack(A, &saved));
  else {
    PetscCall(FindOffdGuard(A, &g));
    saved = g ? &g->saved : nullptr;
  }
  PetscCall(SeqAIJCSR(A, saved ? saved->getcsrandmemtype : nullptr, i, j, v, mt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode GFGuardOffProcessBlock(Mat A, Mat Ao)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  if (!Ao || gm.offd_guarded == ((PetscObject)Ao)->id) PetscFunctionReturn(PETSC_SUCCESS);
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)Ao->data;
  OffdGuard  *g = new OffdGuard{gm.offd, *a->ops};
  PetscCall(PetscObjectContainerCompose((PetscObject)Ao, kOffdGuard, g, DestroyOffdGuard));
  a->ops->getarray         = OffdRead<PetscScalar, &Mat_SeqAIJOps::getarray>;
  a->ops->getarrayread     = OffdRead<const PetscScalar, &Mat_SeqAIJOps::getarrayread>;
  a->ops->getarraywrite    = OffdGetArrayWrite;
  a->ops->getcsrandmemtype = OffdGetCSRAndMemType;
  gm.offd_guarded          = ((PetscObject)Ao)->id;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFWrapHostPaths(Mat A)
{
  PetscFunctionBegin;
  GFMat &gm = gf(A);
  if (gm.mpi) {
#define GF_WRAP(op) Wrap(A, &_MatOps::op, HostOp<decltype(&_MatOps::op)>::template call<&_MatOps::op>);
    GF_HOST_OPS(GF_WRAP)
    GF_MPI_HOST_OPS(GF_WRAP)
#undef GF_WRAP
    Wrap(A, &_MatOps::equal, Equal_GF);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)A->data;
  if (!gm.seqaij_ops) {
    gm.seqaij_ops                  = new Mat_SeqAIJOps(*a->ops);
    a->ops->getarray               = GetArray_GF;
    a->ops->getarrayread           = GetArrayRead_GF;
    a->ops->getarraywrite          = GetArrayWrite_GF;
    a->ops->getcsrandmemtype       = GetCSRAndMemType_GF;
    a->inode.use                   = PETSC_FALSE; // inode kernels read the array directly (and aijcusparse has them off)
    a->inode.node_count            = 0;
    a->inode.checked               = PETSC_FALSE;
    PetscCall(PetscFree(a->inode.size_csr)); // what a host factorization would take for inode kernels
    // ... and the pattern operations back to SeqAIJ's, as PETSc's MatSeqAIJ_Inode_ResetOps does: the
    // inode versions need the sizes just freed ("Missing Inode Structure": an adopted block's
    // MatGetRowIJ under a nested-dissection ordering, GAMG's coarse LU on 2 ranks)
    const _MatOps *plain;
    PetscCall(PlainSeqAIJOps(&plain));
    A->ops->getrowij          = plain->getrowij;
    A->ops->restorerowij      = plain->restorerowij;
    A->ops->getcolumnij       = plain->getcolumnij;
    A->ops->restorecolumnij   = plain->restorecolumnij;
    A->ops->coloringpatch     = plain->coloringpatch;
    A->ops->multdiagonalblock = plain->multdiagonalblock;
  }
#define GF_WRAP(op) Wrap(A, &_MatOps::op, HostOp<decltype(&_MatOps::op)>::template call<&_MatOps::op>);
  GF_HOST_OPS(GF_WRAP)
#undef GF_WRAP
  Wrap(A, &_MatOps::equal, Equal_GF);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void GFReleaseHostPaths(GFMat &gm)
{
  delete static_cast<Mat_SeqAIJOps *>(gm.seqaij_ops);
  gm.seqaij_ops = nullptr;
}

void GFSeqAIJArrays(Mat aij, const PetscInt **i, const PetscInt **j, PetscScalar **a)
{
  const Mat_SeqAIJ *s = (const Mat_SeqAIJ *)aij->data;
  if (i) *i = s->i;
  if (j) *j = s->j;
  if (a) *a = s->a;
}

bool GFSeqAIJKeepsPattern(Mat aij) { return ((const Mat_SeqAIJ *)aij->data)->keepnonzeropattern; }

void GFMarkHostStale(Mat A)
{
  GFMat &gm = gf(A);
  if (gm.diag->fmt && gm.diag->fmt->nnz > 0) gm.diag->host_stale = true; // (an empty block has no value to bring back)
  if (gm.mpi && gm.offd->fmt && gm.offd->fmt->nnz > 0) gm.offd->host_stale = true;
  if (!GFHostStale(A)) return;
  A->offloadmask = PETSC_OFFLOAD_GPU;
  if (gm.mpi) {
    Mat Ad;
    if (!MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL) && Ad && Ad->spptr) Ad->offloadmask = PETSC_OFFLOAD_GPU; // our adopted seq type
  }
}

PetscErrorCode GFHostValues(Mat A)
{
  PetscFunctionBegin;
  if (!GFHostStale(A)) PetscFunctionReturn(PETSC_SUCCESS);
  GFMat &gm = gf(A);
  if (gm.mpi) {
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(GFBlockToHost(*gm.diag, Ad));
    if (Ad->spptr) Ad->offloadmask = PETSC_OFFLOAD_BOTH;
    PetscCall(GFBlockToHost(*gm.offd, Ao));
  } else PetscCall(GFBlockToHost(*gm.diag, A));
  A->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFBlockToHost(GFBlock &blk, Mat aij)
{
  PetscObjectState nzstate;

  PetscFunctionBegin;
  if (!blk.host_stale) PetscFunctionReturn(PETSC_SUCCESS);
  Mat_SeqAIJ *a = (Mat_SeqAIJ *)aij->data;
  PetscCall(MatGetNonzeroState(aij, &nzstate));
  if (((PetscObject)aij)->id != blk.src || nzstate != blk.nzstate) { // a new preallocation (COO's) dropped the values with the pattern
    blk.host_stale = false;
    if (blk.owner && !GFHostStale(blk.owner)) blk.owner->offloadmask = PETSC_OFFLOAD_CPU;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(blk.fmt && blk.fmt->nnz == (int64_t)a->nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: the layout holds the values but no longer matches the AIJ pattern");
  Mat A = aij;
  PetscCall(PetscLogEventBegin(MAT_GPUFormatsToHost, A, 0, 0, 0));
  if (blk.backend == Backend::host) gather_csr_values_host(*blk.fmt, a->a);
  else {
    cudaStream_t s;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    GF_TRY(PETSC_COMM_SELF, {
      blk.staging.resize((size_t)a->nz);
      gather_csr_values_cuda(*blk.fmt, blk.staging.data(), s);
      blk.staging.download(a->a, (size_t)a->nz, s);
      GPUFORMATS_CUDA(cudaStreamSynchronize(s));
    });
    PetscCall(PetscLogGpuToCpu(sizeof(PetscScalar) * (PetscLogDouble)a->nz));
  }
  PetscCall(PetscLogEventEnd(MAT_GPUFormatsToHost, A, 0, 0, 0));
  blk.host_stale = false;
  blk.to_host++;
  if (blk.owner && !GFHostStale(blk.owner)) blk.owner->offloadmask = PETSC_OFFLOAD_BOTH; // (a block brought back alone: the other may be current)
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
