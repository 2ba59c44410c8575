// What PETSc does to our matrices besides products: in-place value changes, and the matrices it
// derives from them.
//
// In-place changes (MatScale, MatShift, MatDiagonalSet, MatDiagonalScale, MatAXPY with the same
// nonzero pattern, MatZeroEntries; TS shifts and scales its Jacobian every step; a seq<fmt>'s
// MatZeroRows and MatZeroRowsColumns where they keep the pattern) of a matrix whose layouts held the
// values run on the layouts alone (formats/slot_map.hpp edits: one pass over the values, no upload,
// no host work), and the host values go stale until a host read brings them back (gf_values.cpp).
// An mpi<fmt> decides that collectively (every rank's blocks current: MPIAIJ's own operation may
// assemble or scatter, so no rank may take it alone). Where a layout was not current, or AIJ's would
// change the pattern (a missing diagonal entry inserted), AIJ's runs on current host values, the
// current layouts get the same edit, and the rest sync at their next use.
//
// Which Mat edits which block: a seq<fmt> its block; an mpi<fmt> both of its blocks (after
// MPIAIJ's operation, where it ran, has changed them through the public Mat calls on its blocks:
// their states are then final); its adopted local block (GFMat::adopted) leaves the shared block to
// it, because MPIAIJ calls some block operations directly, without the state increase a public
// call adds.
//
// Derived matrices (MatCreateSubMatrix, MatCreateSubMatrices: fieldsplit's, ASM's and Schur
// complements' blocks) are of our type, with the parent's format options.
#include "gf_mat.hpp"

#include "formats/slot_map.hpp"

#include <petscdevice_cuda.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gpuformats {

namespace {

// One block an operation may edit: which (0 the local block, 1 the off-process one), its AIJ
// matrix, and whether its layout was current before.
struct Target {
  int       index   = 0;
  GFBlock  *blk     = nullptr;
  Mat       aij     = nullptr;
  PetscBool current = PETSC_FALSE;
};

PetscErrorCode Before(int index, GFBlock &blk, Mat aij, Backend backend, Target *t)
{
  PetscFunctionBegin;
  t->index = index;
  t->blk   = &blk;
  t->aij   = aij;
  PetscCall(GFBlockCurrent(blk, aij, backend, &t->current));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// After the AIJ operation: applies `edit(t, cudaStream_t)` (on t.blk->fmt) where the block was current and
// kept its pattern. exact: the block's state is final now (an mpi<fmt>'s blocks); else the public
// Mat call that called us raises it once more (a seq<fmt>).
template <class Edit>
PetscErrorCode After(Target &t, bool exact, Edit &&edit)
{
  PetscObjectState state, nzstate;
  cudaStream_t     s = nullptr;
  GFLayerError     err;

  PetscFunctionBegin;
  if (!t.current) PetscFunctionReturn(PETSC_SUCCESS);
  GFBlock &blk = *t.blk;
  PetscCall(PetscObjectStateGet((PetscObject)t.aij, &state));
  PetscCall(MatGetNonzeroState(t.aij, &nzstate));
  if (nzstate != blk.nzstate) PetscFunctionReturn(PETSC_SUCCESS); // a new pattern: the next use rebuilds
  if (blk.backend == Backend::cuda) PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(PetscLogEventBegin(MAT_GPUFormatsEdit, t.aij, 0, 0, 0));
  PetscErrorCode ierr = PETSC_SUCCESS;
  const bool     ok   = run_layer([&] { ierr = edit(t, s); }, err);
  PetscCall(PetscLogEventEnd(MAT_GPUFormatsEdit, t.aij, 0, 0, 0));
  if (!ok || ierr) {
    blk.reset(); // values half-changed: rebuilt at the next use
    PetscCall(ierr);
    SETERRQ(PETSC_COMM_SELF, err.cls, "gpuformats: in-place change of the layout: %s", err.msg.c_str());
  }
  blk.state       = state;
  blk.caller_step = !exact;
  blk.edits++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A vector's local array in the backend's memory (a host array is uploaded into `buf` for the cuda
// backend: n values, once per edit).
class BackendArray {
public:
  PetscErrorCode get(Vec v, Backend backend)
  {
    PetscMemType mt;
    PetscInt     n;

    PetscFunctionBegin;
    v_ = v;
    if (!v) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VecGetArrayReadAndMemType(v, &a_, &mt));
    ptr_ = a_;
    if (backend == Backend::cuda && !PetscMemTypeDevice(mt)) {
      cudaStream_t s;
      PetscCall(VecGetLocalSize(v, &n));
      PetscCall(PetscGetCurrentCUDAStream(&s));
      GF_TRY(PETSC_COMM_SELF, buf_.resize((size_t)n); buf_.upload(a_, (size_t)n, s));
      ptr_ = buf_.data();
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode restore()
  {
    PetscFunctionBegin;
    if (v_) PetscCall(VecRestoreArrayReadAndMemType(v_, &a_));
    v_ = nullptr;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const double *data() const { return v_ ? ptr_ : nullptr; }

private:
  Vec                  v_   = nullptr;
  const PetscScalar   *a_   = nullptr;
  const double        *ptr_ = nullptr;
  DeviceBuffer<double> buf_;
};

// The blocks an operation on A may edit: a seq<fmt>'s own (none for an adopted local block),
// an mpi<fmt>'s two. exact tells After() whose state is final.
PetscErrorCode Targets(Mat A, Target t[2], int *n, bool *exact)
{
  GFMat  &gm      = gf(A);
  Backend backend = resolve_backend(gm);

  PetscFunctionBegin;
  *n     = 0;
  *exact = gm.mpi;
  if (A->boundtocpu || !A->assembled || gm.adopted) PetscFunctionReturn(PETSC_SUCCESS);
  if (gm.mpi) {
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    if (!Ad->spptr || gf(Ad).diag != gm.diag) PetscFunctionReturn(PETSC_SUCCESS); // not adopted yet: nothing was synced
    PetscCall(Before(0, *gm.diag, Ad, backend, &t[0]));
    PetscCall(Before(1, *gm.offd, Ao, backend, &t[1]));
    *n = 2;
  } else {
    PetscCall(Before(0, *gm.diag, A, backend, &t[0]));
    *n = 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Runs the AIJ operation, then `edit(const Target &, cudaStream_t)` on each target that was current.
// caller_raises: the public Mat call raises A's state after its operation (MatScale, MatShift,
// MatDiagonalSet, MatDiagonalScale, MatZeroEntries; not MatAXPY).
// layout_alone: the edit can run on the layout without AIJ's (no new nonzero): where every layout is
// current (an mpi<fmt>: on every rank), it changes them alone and leaves the host values stale.
template <class Op, class Edit>
PetscErrorCode EditAll(Mat A, bool caller_raises, Op &&aij_op, Edit &&edit, bool layout_alone = true)
{
  Target t[2];
  int    n;
  bool   exact;

  PetscFunctionBegin;
  PetscCall(Targets(A, t, &n, &exact));
  const bool mpi   = gf(A).mpi;
  PetscBool  alone = layout_alone && n > 0 ? PETSC_TRUE : PETSC_FALSE;
  for (int i = 0; i < n; ++i) alone = alone && t[i].current ? PETSC_TRUE : PETSC_FALSE;
  if (mpi) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &alone, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (alone) {
    if (mpi) { // the blocks' states raised as AIJ's operation on them would
      for (int i = 0; i < n; ++i) {
        PetscCall(PetscObjectStateIncrease((PetscObject)t[i].aij));
        PetscCall(After(t[i], true, edit));
      }
      if (!caller_raises) PetscCall(PetscObjectStateIncrease((PetscObject)A));
    } else {
      if (!caller_raises) PetscCall(PetscObjectStateIncrease((PetscObject)A)); // as AIJ's operation would
      PetscCall(After(t[0], !caller_raises, edit));
    }
    GFMarkHostStale(A); // (a failed edit dropped its layout and raised)
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  exact = exact || !caller_raises;
  PetscCall(GFHostValues(A)); // AIJ's operation reads them
  PetscCall(aij_op());
  for (int i = 0; i < n; ++i) PetscCall(After(t[i], exact, edit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatScale_GF(Mat A, PetscScalar a)
{
  PetscFunctionBegin;
  if (!std::isfinite(PetscRealPart(a))) { // the padding would turn NaN: AIJ's change, then a refresh
    PetscCall(GFHostValues(A));
    PetscCall(gf(A).aij.scale(A, a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(EditAll(A, true, [&] { return gf(A).aij.scale(A, a); }, [&](const Target &t, cudaStream_t s) { scale_values(*t.blk->fmt, a, s); return PETSC_SUCCESS; }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroEntries_GF(Mat A)
{
  PetscFunctionBegin;
  PetscCall(EditAll(A, true, [&] { return gf(A).aij.zeroentries(A); }, [&](const Target &t, cudaStream_t s) { zero_values(*t.blk->fmt, s); return PETSC_SUCCESS; }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The diagonal lies in the local block (target 0) of a square layout: entries (i, i) = (add ? itself : 0)
// + (D ? D_i : c) after aij_op, AIJ's own change (which inserts missing diagonal entries: a new
// pattern, no edit).
template <class Op>
PetscErrorCode EditDiagonal(Mat A, Op &&aij_op, Vec D, PetscScalar c, bool add)
{
  PetscBool    cong;
  BackendArray d;

  PetscFunctionBegin;
  PetscCall(MatHasCongruentLayouts(A, &cong));
  if (!cong) {
    PetscCall(GFHostValues(A));
    PetscCall(aij_op());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // The layout alone only where every diagonal entry exists (AIJ's inserts missing ones).
  PetscBool full = PETSC_FALSE;
  Mat       Ad   = A;
  if (gf(A).mpi && A->assembled) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
  if (!gf(A).adopted && A->assembled && gf(A).diag->fmt && (!gf(A).mpi || (Ad->spptr && gf(Ad).diag == gf(A).diag))) PetscCall(GFBlockDiagonalFull(*gf(A).diag, Ad, &full));
  PetscCall(EditAll(A, true, aij_op, [&](const Target &t, cudaStream_t s) -> PetscErrorCode {
    GFBlock &blk = *t.blk;

    PetscFunctionBegin;
    if (t.index != 0) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(GFBlockDiagPositions(blk, t.aij));
    PetscCall(d.get(D, blk.backend));
    set_at_positions(*blk.fmt, blk.backend == Backend::cuda ? blk.d_diag_pos.data() : blk.diag_pos.data(), (int32_t)t.aij->rmap->n, d.data(), c, add, s);
    PetscCall(d.restore());
    PetscFunctionReturn(PETSC_SUCCESS);
  }, full == PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatShift_GF(Mat A, PetscScalar a)
{
  PetscFunctionBegin;
  PetscCall(EditDiagonal(A, [&] { return gf(A).aij.shift(A, a); }, NULL, a, true));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagonalSet_GF(Mat A, Vec D, InsertMode mode)
{
  PetscFunctionBegin;
  PetscCall(EditDiagonal(A, [&] { return gf(A).aij.diagonalset(A, D, mode); }, D, 0.0, mode == ADD_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A_ij *= l_i r_j: the local block with r's local values, the off-process block with r's ghosts.
PetscErrorCode MatDiagonalScale_GF(Mat A, Vec l, Vec r)
{
  BackendArray la, ra;
  Vec          ghosts = nullptr;

  PetscFunctionBegin;
  PetscCall(EditAll(A, true, [&] { return gf(A).aij.diagonalscale(A, l, r); }, [&](const Target &t, cudaStream_t s) -> PetscErrorCode {
    const int32_t *rowptr, *cols;

    PetscFunctionBegin;
    if (t.index == 1 && r && !ghosts) PetscCall(GFMPIGhostValues(A, t.blk->backend, r, &ghosts));
    PetscCall(GFBlockPattern(*t.blk, t.aij, &rowptr, &cols, (int)gf(A).opt.upload_threads));
    PetscCall(la.get(l, t.blk->backend));
    PetscCall(ra.get(t.index == 0 ? r : ghosts, t.blk->backend));
    scale_rows_cols(*t.blk->fmt, rowptr, cols, la.data(), ra.data(), s);
    PetscCall(la.restore());
    PetscCall(ra.restore());
    PetscFunctionReturn(PETSC_SUCCESS);
  }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatZeroRows (AIJ's keeps the pattern only with MAT_KEEP_NONZERO_PATTERN: else it drops the rows'
// entries, a new pattern) and MatZeroRowsColumns (the Dirichlet rows of FEM codes; AIJ's keeps the
// pattern) of a seq<fmt> whose layout is current: one pass on the layout, with b fixed on the
// device, and the host values stale. Elsewhere AIJ's on current host values: an mpi<fmt> (MPIAIJ
// sends the rows to their owners and calls its blocks'), a diagonal entry AIJ would insert or
// miss, vectors outside the backend's memory, x aliasing b.
template <class Op>
PetscErrorCode ZeroRows(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b, bool columns, Op &&aij_op)
{
  GFMat    &gm      = gf(A);
  Backend   backend = resolve_backend(gm);
  PetscBool current = PETSC_FALSE, full = PETSC_TRUE, vecs_ok = PETSC_TRUE;

  PetscFunctionBegin;
  const bool keeps = columns ? A->rmap->n == A->cmap->n : GFSeqAIJKeepsPattern(A);
  if (!gm.mpi && !gm.adopted && !A->boundtocpu && A->assembled && gm.diag->fmt && keeps && (!x || !b || x != b)) PetscCall(GFBlockCurrent(*gm.diag, A, backend, &current));
  if (current && diag != 0.0 && N > 0) PetscCall(GFBlockDiagonalFull(*gm.diag, A, &full));
  if (current && x && b && backend == Backend::cuda) { // the vector part runs where the values are
    PetscBool xc, bc;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &xc, VECSEQCUDA, VECMPICUDA, ""));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &bc, VECSEQCUDA, VECMPICUDA, ""));
    vecs_ok = xc && bc ? PETSC_TRUE : PETSC_FALSE;
  }
  if (!current || !full || !vecs_ok) {
    PetscCall(GFHostValues(A));
    PetscCall(aij_op());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::vector<int32_t> r((size_t)N);
  for (PetscInt i = 0; i < N; ++i) {
    PetscCheck(rows[i] >= 0 && rows[i] < A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "row %" PetscInt_FMT " out of range", rows[i]);
    r[(size_t)i] = (int32_t)rows[i];
  }
  PetscCall(EditAll(A, true, aij_op, [&](const Target &t, cudaStream_t s) -> PetscErrorCode {
    GFBlock           &blk = *t.blk;
    const int32_t     *rowptr, *cols;
    const PetscScalar *xa = nullptr;
    PetscScalar       *ba = nullptr;
    PetscMemType       mt;

    PetscFunctionBegin;
    if (N == 0) PetscFunctionReturn(PETSC_SUCCESS); // (the public call still raises the state: After() keeps the layout current)
    PetscCall(GFBlockPattern(blk, t.aij, &rowptr, &cols, (int)gm.opt.upload_threads));
    PetscCall(GFBlockDiagPositions(blk, t.aij));
    const int32_t *pos = blk.backend == Backend::cuda ? blk.d_diag_pos.data() : blk.diag_pos.data();
    if (x && b) {
      PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
      PetscCall(VecGetArrayAndMemType(b, &ba, &mt));
    }
    const int32_t *d_rows = r.data();
    DeviceBuffer<int32_t> up, marks; // stream-ordered: freed behind the pass (r may go once uploaded)
    std::vector<int32_t>  hmarks;
    GF_TRY(PETSC_COMM_SELF, {
      if (blk.backend == Backend::cuda && N > 0) {
        up = DeviceBuffer<int32_t>((size_t)N, s);
        up.upload(r.data(), (size_t)N, s);
        d_rows = up.data();
      }
      if (columns) {
        int32_t *m;
        if (blk.backend == Backend::cuda) m = (marks = DeviceBuffer<int32_t>((size_t)A->rmap->n, s)).data();
        else m = (hmarks.resize((size_t)A->rmap->n), hmarks.data());
        zero_rows_columns(*blk.fmt, rowptr, cols, d_rows, (int32_t)N, m, pos, PetscRealPart(diag), xa, ba, s);
      } else zero_rows(*blk.fmt, rowptr, d_rows, (int32_t)N, pos, PetscRealPart(diag), xa, ba, (int32_t)A->cmap->n, s);
    });
    if (x && b) {
      PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
      PetscCall(VecRestoreArrayAndMemType(b, &ba));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroRows_GF(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCall(ZeroRows(A, N, rows, diag, x, b, false, [&] { return gf(A).aij.zerorows(A, N, rows, diag, x, b); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatZeroRowsColumns_GF(Mat A, PetscInt N, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscFunctionBegin;
  PetscCall(ZeroRows(A, N, rows, diag, x, b, true, [&] { return gf(A).aij.zerorowscolumns(A, N, rows, diag, x, b); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether two AIJ blocks have the same nonzero pattern (what MatAXPY_SeqAIJ checks for UNKNOWN).
bool SameBlockPattern(Mat X, Mat Y)
{
  const PetscInt *xi, *xj, *yi, *yj;
  PetscMemType    mx, my;
  if (X->rmap->n != Y->rmap->n || X->cmap->n != Y->cmap->n) return false;
  if (MatSeqAIJGetCSRAndMemType(X, &xi, &xj, NULL, &mx) || MatSeqAIJGetCSRAndMemType(Y, &yi, &yj, NULL, &my)) return false; // the patterns: no values brought back
  const PetscInt m = X->rmap->n;
  return xi[m] == yi[m] && !std::memcmp(xi, yi, sizeof(PetscInt) * (m + 1)) && !std::memcmp(xj, yj, sizeof(PetscInt) * xi[m]);
}

// SAME_NONZERO_PATTERN, or any other MatStructure where the patterns are the same (both blocks,
// the off-process columns, on every rank), as aijcusparse's MatAXPY checks: AIJ's would make a new
// matrix row by row (a rebuild at each TS step for UNKNOWN; GAMG's graph symmetrization, A + A^T with
// DIFFERENT_NONZERO_PATTERN, 2.7 s at 200^3 against aijcusparse's device sum: bench/results/h100/gamg/).
PetscErrorCode KnownSame(Mat Y, Mat X, MatStructure str, PetscBool *same)
{
  Mat                     blocks[4] = {X, nullptr, Y, nullptr}; // X's local and off-process blocks, Y's
  const PetscInt         *xg = nullptr, *yg = nullptr;
  std::vector<PetscInt64> key;

  PetscFunctionBegin;
  *same = str == SAME_NONZERO_PATTERN ? PETSC_TRUE : PETSC_FALSE;
  if (*same) PetscFunctionReturn(PETSC_SUCCESS);
  const bool mpi = gf(Y).mpi;
  if (mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(X, &blocks[0], &blocks[1], &xg));
    PetscCall(MatMPIAIJGetSeqAIJ(Y, &blocks[2], &blocks[3], &yg));
  }
  for (Mat b : blocks) {
    PetscObjectState nz = -1;
    if (b) PetscCall(MatGetNonzeroState(b, &nz));
    key.push_back(b ? (PetscInt64)((PetscObject)b)->id : -1);
    key.push_back((PetscInt64)nz);
  }
  bool mine = key == gf(Y).same_pattern_key; // found the same before, and no block changed since
  if (!mine) mine = mpi ? SameBlockPattern(blocks[0], blocks[2]) && SameBlockPattern(blocks[1], blocks[3]) && !std::memcmp(xg, yg, sizeof(PetscInt) * blocks[1]->cmap->n) : SameBlockPattern(X, Y);
  if (mpi) { // every rank takes part, cached or not
    PetscBool m = mine ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPIU_Allreduce(&m, same, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
  } else *same = mine ? PETSC_TRUE : PETSC_FALSE;
  gf(Y).same_pattern_key = mine ? key : std::vector<PetscInt64>{};
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// Y += a X with the same pattern, X a gpuformats matrix on Y's backend (synced first: a constant X,
// TS's right-hand-side Jacobian, is built once): each Y block's entries plus a times X's (through both
// slot maps, any two formats). Else AIJ's, and Y refreshes at its next use. Y not ours: an
// aijcusparse result of our products, which shares this method (GFProductResultAXPY).
PetscErrorCode MatAXPY_GF(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  Target    tx[2];
  int       nx = 0;
  bool      exact;
  PetscBool ours, same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatsIsType(Y, &ours));
  if (!ours) {
    PetscCall(GFProductResultAXPY(Y, a, X, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGPUFormatsIsType(X, &ours));
  const PetscBool x_ours = ours;
  auto            aij_axpy = [&] { // AIJ's reads X's host values (an edit of ours reads X's layout)
    PetscFunctionBegin;
    if (x_ours) PetscCall(GFHostValues(X));
    PetscCall(gf(Y).aij.axpy(Y, a, X, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  if (ours && gf(X).mpi == gf(Y).mpi && resolve_backend(gf(X)) == resolve_backend(gf(Y)) && !X->boundtocpu && !Y->boundtocpu) PetscCall(KnownSame(Y, X, str, &same));
  if (same) {
    PetscCall(GFSyncNow(X));
    PetscCall(Targets(X, tx, &nx, &exact));
    str = SAME_NONZERO_PATTERN;
  }
  bool usable = nx > 0;
  for (int i = 0; i < nx; ++i) { // a SAME_NONZERO_PATTERN that is not: AIJ's (and a rebuild)
    Mat     yb = Y;
    MatInfo info;
    if (gf(Y).mpi) PetscCall(MatMPIAIJGetSeqAIJ(Y, i == 0 ? &yb : NULL, i == 0 ? NULL : &yb, NULL));
    PetscCall(MatGetInfo(yb, MAT_LOCAL, &info));
    usable = usable && tx[i].current && (int64_t)info.nz_used == tx[i].blk->fmt->nnz;
  }
  if (gf(Y).mpi && same) { // AIJ's may assemble: every rank takes the same path
    PetscBool u = usable ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &u, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)Y)));
    usable = u;
  }
  if (!usable) {
    PetscCall(GFHostValues(Y));
    PetscCall(aij_axpy());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(EditAll(Y, false, aij_axpy, [&](const Target &t, cudaStream_t s) {
    // Y made by MatDuplicate of X (TS's Jacobians) has X's layout: slot by slot, once the two slot
    // maps were found equal for this pair of builds.
    GFBlock &yb = *t.blk, &xb = *tx[t.index].blk;
    if (yb.axpy_peer != xb.serial) {
      yb.axpy_same_layout = same_slot_map(*xb.fmt, *yb.fmt, s);
      yb.axpy_peer        = xb.serial;
    }
    axpy_values(*yb.fmt, a, *xb.fmt, yb.axpy_same_layout, s);
    return PETSC_SUCCESS;
  }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {

// A derived matrix that came back plain AIJ (a path of PETSc's that names MATMPIAIJ / MATSEQAIJ) is
// made ours in place; one of our types takes the parent's options.
PetscErrorCode MakeOurs(Mat parent, Mat M)
{
  PetscBool plain, ours;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, &plain, MATSEQAIJ, MATMPIAIJ, ""));
  if (plain) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)M), &size));
    const FormatOps *ops = gf(parent).ops;
    PetscCall(MatConvert(M, size > 1 ? mpi_type_name(ops) : seq_type_name(ops), MAT_INPLACE_MATRIX, &M));
  }
  PetscCall(MatGPUFormatsIsType(M, &ours));
  if (ours) PetscCall(GFInherit(parent, M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrix_GF(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(GFHostValues(A));
  PetscCall(gf(A).aij.createsubmatrix(A, isrow, iscol, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MakeOurs(A, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreateSubMatrices_GF(Mat A, PetscInt n, const IS isrow[], const IS iscol[], MatReuse reuse, Mat *B[])
{
  PetscFunctionBegin;
  PetscCall(GFHostValues(A));
  PetscCall(gf(A).aij.createsubmatrices(A, n, isrow, iscol, reuse, B));
  if (reuse == MAT_INITIAL_MATRIX)
    for (PetscInt i = 0; i < n; ++i) PetscCall(MakeOurs(A, (*B)[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode GFInherit(Mat from, Mat to)
{
  PetscFunctionBegin;
  GFMat          &f = gf(from), &t = gf(to);
  const GFOptions was = t.opt;
  t.opt             = f.opt; // all of them, but: the format's parameters and the type's settings belong to a type
  if (f.ops != t.ops) t.opt.params = was.params, t.opt.settings = was.settings;
  t.opt.halo_option = was.halo_option, t.opt.halo_measure = was.halo_measure;
  GFSetHalo(t, f.opt.halo_option, f.opt.halo_measure);
  if (t.opt.halo_node_ranks != was.halo_node_ranks) t.halo_nzstate = -1; // ipc's peers chosen again
  if (t.opt.backend_option != was.backend_option) PetscCall(MatSetVecType(to, resolve_backend(t) == Backend::cuda ? VECCUDA : VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void GFInstallEdits(Mat B)
{
  B->ops->scale         = MatScale_GF;
  B->ops->shift         = MatShift_GF;
  B->ops->diagonalset   = MatDiagonalSet_GF;
  B->ops->diagonalscale = MatDiagonalScale_GF;
  B->ops->axpy          = MatAXPY_GF;
  B->ops->zeroentries   = MatZeroEntries_GF;
  if (!gf(B).mpi && B->ops->zerorows) B->ops->zerorows = MatZeroRows_GF;
  if (!gf(B).mpi && B->ops->zerorowscolumns) B->ops->zerorowscolumns = MatZeroRowsColumns_GF;
}

void GFInstallDerived(Mat B)
{
  if (B->ops->createsubmatrix) B->ops->createsubmatrix = MatCreateSubMatrix_GF;
  if (B->ops->createsubmatrices) B->ops->createsubmatrices = MatCreateSubMatrices_GF;
}

} // namespace gpuformats
