// mpi<fmt>: an MPIAIJ matrix whose local (diagonal) and off-process blocks both run in a
// gpuformats layout. Product order, as PETSc's MPIAIJ but with our own halo scatter:
//
//   VecScatterBegin(x -> ghosts)   packs on PETSc's stream and posts MPI
//   y  = A_d x                     launched while the messages travel
//   VecScatterEnd                  waits, unpacks on the stream
//   y += A_o ghosts                rows with no off-process entries cost nothing in the format
#include "gf_mat.hpp"
#include <string>

namespace gpuformats {

// The SeqAIJ blocks of the MPIAIJ data (MatMPIAIJGetSeqAIJ() takes our mpiaij<fmt> names as MPIAIJ),
// the local one adopted as a seq<fmt> sharing our diag block (gf_mat.hpp): MPIAIJ makes a new plain
// seqaij one at each preallocation, adopted at the final assembly. Its options follow ours at every sync.
PetscErrorCode GFMPIAdoptLocalBlock(Mat A, Mat *Ad, Mat *Ao)
{
  GFMat &gm = gf(A);
  Mat    d, o;

  PetscFunctionBegin;
  if (!Ad) Ad = &d;
  if (!Ao) Ao = &o;
  PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL));
  if (!(*Ad)->spptr) {
    PetscBool plain;
    PetscCall(PetscObjectTypeCompare((PetscObject)*Ad, MATSEQAIJ, &plain));
    PetscCheck(plain, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: the local block of a %s matrix is %s; expected %s", ((PetscObject)A)->type_name, ((PetscObject)*Ad)->type_name, MATSEQAIJ);
    PetscCall(GFInstall(*Ad, gm.ops, PETSC_FALSE, MatConvert_SeqAIJ_SeqGF));
  }
  GFMat &ld = gf(*Ad);
  PetscCheck(ld.ops == gm.ops, PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: the local block of a %s matrix is %s", ((PetscObject)A)->type_name, ((PetscObject)*Ad)->type_name);
  ld.adopted = true;
  ld.diag    = gm.diag;
  PetscCall(GFInherit(A, *Ad));
  (*Ad)->boundtocpu = A->boundtocpu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Ghost vector and scatter for the off-process block, rebuilt when the nonzero pattern (and so
// the ghost list) or the backend changes.
static PetscErrorCode EnsureHalo(Mat A, GFMat &gm, Backend backend)
{
  PetscObjectState nz;
  PetscInt         nghost;
  const PetscInt  *ghosts;
  IS               is;
  Vec              xt;
  PetscBool        lcuda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &nz));
  if (gm.lvec) PetscCall(PetscObjectTypeCompare((PetscObject)gm.lvec, VECSEQCUDA, &lcuda));
  if (gm.halo && nz == gm.halo_nzstate && (lcuda == PETSC_TRUE) == (backend == Backend::cuda)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScatterDestroy(&gm.halo));
  PetscCall(VecDestroy(&gm.lvec));
  PetscCall(MatGetGhosts(A, &nghost, &ghosts));
  PetscCall(VecCreate(PETSC_COMM_SELF, &gm.lvec));
  PetscCall(VecSetSizes(gm.lvec, nghost, nghost));
  PetscCall(VecSetType(gm.lvec, backend == Backend::cuda ? VECSEQCUDA : VECSEQ));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, ghosts, PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, A->cmap->n, A->cmap->N, NULL, &xt));
  PetscCall(VecScatterCreate(xt, is, gm.lvec, NULL, &gm.halo));
  PetscCall(VecDestroy(&xt));
  PetscCall(ISDestroy(&is));
  gm.halo_nzstate = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIGhostValues(Mat A, Backend backend, Vec r, Vec *ghosts)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(EnsureHalo(A, gm, backend));
  PetscCall(VecScatterBegin(gm.halo, r, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(gm.halo, r, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  *ghosts = gm.lvec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Both blocks. defer null: a failure is raised on this rank; else it is held in *defer, naming the block.
static PetscErrorCode SyncBlocks(Mat A, GFMat &gm, Backend backend, PetscBool want_diag, GFLayerError *defer)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(GFMPIAdoptLocalBlock(A, &Ad, &Ao));
  gm.syncs++; // the blocks built or refreshed here count as one build or refresh (MatGPUFormatsGetLastTimes)
  PetscCall(GFBlockSync(gm, *gm.diag, Ad, backend, want_diag, defer));
  if (defer && defer->cls) {
    defer->msg = "local block: " + defer->msg;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(GFBlockSync(gm, gm.offd, Ao, backend, PETSC_FALSE, defer));
  if (defer && defer->cls) defer->msg = "off-process block: " + defer->msg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Both blocks, and the halo when asked. Collective: called from the first product after an assembly,
// conversion, MatGPUFormatsSync/GetBytes and the diagonal, where the layouts are (re)built; a
// failure on one rank fails every rank with the first failing rank's message.
// Collective: a failure held in e on any rank fails every rank with the first failing rank's
// message (after `cleanup` on every rank).
template <class Cleanup>
static PetscErrorCode CollectiveCheck(MPI_Comm comm, const GFLayerError &e, Cleanup cleanup)
{
  PetscMPIInt mine = (PetscMPIInt)e.cls, any = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any) {
    PetscMPIInt rank, who, len;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    const PetscMPIInt cand = e.cls ? rank : PETSC_MPI_INT_MAX;
    PetscCallMPI(MPI_Allreduce(&cand, &who, 1, MPI_INT, MPI_MIN, comm));
    std::string msg = e.cls ? "[rank " + std::to_string(rank) + "] " + e.msg : "";
    len             = (PetscMPIInt)msg.size();
    PetscCallMPI(MPI_Bcast(&len, 1, MPI_INT, who, comm));
    msg.resize((size_t)len);
    PetscCallMPI(MPI_Bcast(msg.data(), len, MPI_CHAR, who, comm));
    cleanup();
    SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)(mine ? mine : any), "gpuformats: %s; the AIJ matrix is unchanged", msg.c_str());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPISync(Mat A, Backend backend, PetscBool want_diag, PetscBool with_halo)
{
  GFMat       &gm = gf(A);
  GFLayerError e;

  PetscFunctionBegin;
  PetscCall(SyncBlocks(A, gm, backend, want_diag, &e));
  gm.collective_syncs++;
  PetscCall(CollectiveCheck(PetscObjectComm((PetscObject)A), e, [&] {
    gm.diag->reset();
    gm.offd.reset();
  }));
  gm.pending = false;
  if (with_halo) PetscCall(EnsureHalo(A, gm, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What every product does first. The first product after an assembly syncs collectively (a failure
// on one rank fails every rank); later ones do no reduction: what a product still finds stale
// (values changed without assembly, a backend switch) is refreshed here and a failure is raised on
// this rank, as MPIAIJ's own products do.
static PetscErrorCode ReadyForProduct(Mat A, GFMat &gm, Backend backend)
{
  PetscFunctionBegin;
  if (gm.pending) PetscCall(GFMPISync(A, backend, PETSC_FALSE, PETSC_TRUE));
  PetscCall(SyncBlocks(A, gm, backend, PETSC_FALSE, nullptr));
  PetscCall(EnsureHalo(A, gm, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A x + beta y, with the halo exchange overlapped with the local product.
PetscErrorCode GFMPIProduct(Mat A, Backend backend, Vec x, PetscScalar beta, Vec y)
{
  GFMat             &gm     = gf(A);
  const PetscBool    read_y = beta != 0.0 ? PETSC_TRUE : PETSC_FALSE;
  const PetscScalar *xa, *ga;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(ReadyForProduct(A, gm, backend));
  PetscCall(VecScatterBegin(gm.halo, x, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(GFGetArrays(backend, x, &xa, y, read_y, &ya));
  PetscCall(GFBlockSpMV(gm, *gm.diag, 1.0, xa, beta, ya));
  PetscCall(GFRestoreArrays(backend, x, &xa, y, read_y, &ya));
  PetscCall(VecScatterEnd(gm.halo, x, gm.lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (gm.offd.fmt->nnz > 0) {
    PetscCall(GFGetArrays(backend, gm.lvec, &ga, y, PETSC_TRUE, &ya));
    PetscCall(GFBlockSpMV(gm, gm.offd, 1.0, ga, 1.0, ya));
    PetscCall(GFRestoreArrays(backend, gm.lvec, &ga, y, PETSC_TRUE, &ya));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// z = A^T x (+ y), cuda backend, device vectors: each block's A^T (transpose/), the off-process part
// sent back by the reverse halo scatter, as mpiaijcusparse does (A_o^T x first, so the messages
// travel during A_d^T x).
PetscErrorCode GFMPITransposedProduct(Mat A, Vec x, Vec y, Vec z)
{
  GFMat       &gm = gf(A);
  Mat          Ad, Ao;
  GFLayerError e;

  PetscFunctionBegin;
  PetscCall(ReadyForProduct(A, gm, Backend::cuda));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL)); // A_d adopted by the sync above
  // The first transposed product after a collective sync may build both A^T: a failure there (out of
  // memory) fails every rank, as a sync does. Later ones only gather values, like ReadyForProduct.
  const bool collective = gm.transposed_checked != gm.collective_syncs;
  PetscCall(GFBlockTransposeReady(gm, *gm.diag, Ad, collective ? &e : nullptr));
  if (!e.cls) PetscCall(GFBlockTransposeReady(gm, gm.offd, Ao, collective ? &e : nullptr));
  if (collective) {
    PetscCall(CollectiveCheck(PetscObjectComm((PetscObject)A), e, [&] {
      gm.diag->transposed.reset();
      gm.offd.transposed.reset();
    }));
    gm.transposed_checked = gm.collective_syncs;
  }
  // A rank without off-process entries (no ghosts) still takes part in the scatter: others send to it.
  if (y && y != z) PetscCall(VecCopy(y, z));
  if (gm.offd.fmt->ncols > 0) PetscCall(GFBlockTransposedProduct(gm.offd, x, PETSC_FALSE, gm.lvec));
  PetscCall(GFBlockTransposedProduct(*gm.diag, x, y ? PETSC_TRUE : PETSC_FALSE, z));
  PetscCall(VecScatterBegin(gm.halo, gm.lvec, z, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(gm.halo, gm.lvec, z, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIView(Mat A, PetscViewer viewer)
{
  GFMat      &gm = gf(A);
  PetscMPIInt rank;
  char        label[64];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscSNPrintf(label, sizeof(label), "[%d] gpuformats local block", rank));
  PetscCall(GFBlockView(gm, *gm.diag, label, viewer, PETSC_TRUE));
  {
    Mat Ad;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    if (Ad->spptr) PetscCall(GFShadowView(gf(Ad).shadow, *gm.diag, label, viewer, PETSC_TRUE));
  }
  PetscCall(PetscSNPrintf(label, sizeof(label), "[%d] gpuformats off-process block", rank));
  PetscCall(GFBlockView(gm, gm.offd, label, viewer, PETSC_TRUE));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GFMPIDestroy(Mat A)
{
  GFMat &gm = gf(A);

  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&gm.halo));
  PetscCall(VecDestroy(&gm.lvec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJ_MPIGF(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(GFConvert(A, type, reuse, newmat, PETSC_TRUE, MatConvert_MPIAIJ_MPIGF));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_MPIGF(Mat B, const FormatOps *ops)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIAIJ(B));
  PetscCall(MatConvert_MPIAIJ_MPIGF(B, mpi_type_name(ops), MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
