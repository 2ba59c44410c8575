// PETSc integration: every gpuformats type against PETSc's AIJ on 1..n ranks (run under mpiexec):
// MatMult / MatMultAdd / MatMultTranspose / MatGetDiagonal, in-place value changes (MatScale, MatShift,
// MatDiagonalSet, MatDiagonalScale, MatAXPY, MatZeroEntries), values-only refresh, nonzero-pattern
// change, MatDuplicate, MatConvert reuse, MatGPUFormatsGetLastTimes, -mat_view ::ascii_info. Matrices: the edge cases
// (empty local parts, rectangular off-process blocks, one dense row, 1x1, ...) and test/matrices.
// Vectors come from the gpuformats matrix, so on a GPU machine the CUDA path is what is checked.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/format.hpp"
#include "model/auto.hpp"

#include <gpuformats.h>
#include <petscmat.h>
#include <petsc/private/matimpl.h> // Mat::offloadmask: whether the host values are stale

using namespace gftest;

static PetscMPIInt rank_;
static int         halo_ = -1; // -halo <auto,nccl,mpi,vecscatter,ipc>: MatGPUFormatsSetHalo on every converted matrix

// Reports on rank 0 whether the check held on every rank.
static PetscErrorCode report(PetscBool local_ok, const std::string &name)
{
  PetscBool all;

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(&local_ok, &all, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  if (rank_ == 0) check(all, name);
  else if (!all) failures()++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A parallel AIJ copy of a global host CSR, rows split evenly (ranks may own none).
static PetscErrorCode create_aij(const CsrMatrix &G, Mat *A)
{
  PetscMPIInt size;
  PetscInt    rstart, rend;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, G.nrows, G.ncols));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetUp(*A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; ++i) {
    const PetscInt n = G.rowptr[i + 1] - G.rowptr[i];
    if (n) PetscCall(MatSetValues(*A, 1, &i, n, G.colidx.data() + G.rowptr[i], G.values.data() + G.rowptr[i], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode rel_diff(Vec a, Vec b, PetscReal *d)
{
  Vec       t;
  PetscReal nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &t));
  PetscCall(VecCopy(a, t));
  PetscCall(VecAXPY(t, -1.0, b));
  PetscCall(VecNorm(t, NORM_2, d));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *d = nb > 0 ? *d / nb : *d;
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// B x, B x + y, B^T y and diag(B) against A's, with vectors of B's own type.
static PetscErrorCode compare_products(Mat A, Mat B, const std::string &name)
{
  Vec       x, y, z, za, w, wa;
  PetscReal d;
  PetscInt  M, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatCreateVecs(B, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &za));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(y, NULL));
  PetscCall(MatMult(B, x, z));
  PetscCall(MatMult(A, x, za));
  PetscCall(rel_diff(z, za, &d));
  PetscCall(report(d < 1e-12 ? PETSC_TRUE : PETSC_FALSE, name + ".mult"));
  PetscCall(MatMultAdd(B, x, y, z));
  PetscCall(MatMultAdd(A, x, y, za));
  PetscCall(rel_diff(z, za, &d));
  PetscCall(report(d < 1e-12 ? PETSC_TRUE : PETSC_FALSE, name + ".multadd"));
  PetscCall(MatMultAdd(B, x, z, z)); // in place: z = z + B x
  PetscCall(MatMultAdd(A, x, za, za));
  PetscCall(rel_diff(z, za, &d));
  PetscCall(report(d < 1e-12 ? PETSC_TRUE : PETSC_FALSE, name + ".multadd_inplace"));
  PetscCall(MatCreateVecs(B, &w, NULL));
  PetscCall(VecDuplicate(w, &wa));
  PetscCall(MatMultTranspose(B, y, w));
  PetscCall(MatMultTranspose(A, y, wa));
  PetscCall(rel_diff(w, wa, &d));
  PetscCall(report(d < 1e-12 ? PETSC_TRUE : PETSC_FALSE, name + ".multtranspose"));
  PetscCall(MatMultTransposeAdd(B, y, w, w)); // in place: w = w + B^T y
  PetscCall(MatMultTransposeAdd(A, y, wa, wa));
  PetscCall(rel_diff(w, wa, &d));
  PetscCall(report(d < 1e-12 ? PETSC_TRUE : PETSC_FALSE, name + ".multtransposeadd_inplace"));
  if (M == N) {
    PetscCall(MatGetDiagonal(B, z));
    PetscCall(MatGetDiagonal(A, za));
    PetscCall(rel_diff(z, za, &d));
    PetscCall(report(d <= 1e-15 ? PETSC_TRUE : PETSC_FALSE, name + ".diagonal")); // a gather, after in-place edits that may round once differently (FMA)
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&za));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&wa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// B x and friends against A's, and for an MPI type the same for its local block, which block
// Jacobi and ASM take: a seqaij<fmt> matrix (not plain seqaij) running from the parent's layout.
static PetscErrorCode compare_all(Mat A, Mat B, const char *type, const std::string &name)
{
  PetscMPIInt size;
  PetscInt    M, N;

  PetscFunctionBegin;
  PetscCall(compare_products(A, B, name));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  PetscCall(MatGetSize(A, &M, &N));
  if (size > 1 && M == N) { // square, same row and column layout: every rank's block is square (reports stay collective)
    Mat       Ad, Bd;
    PetscBool ours;
    PetscCall(MatGetDiagonalBlock(A, &Ad));
    PetscCall(MatGetDiagonalBlock(B, &Bd));
    PetscCall(PetscObjectTypeCompare((PetscObject)Bd, (std::string(MATSEQAIJ) + type).c_str(), &ours));
    PetscCall(report(ours, name + ".local_block_type"));
    PetscCall(compare_products(Ad, Bd, name + ".local_block"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatGPUFormatsGetLastTimes: times (>= 0) exactly where measured, -1 elsewhere. The cuda backend
// (device present: B's vectors are CUDA vectors) times every build, and a refresh where this rank
// holds entries; the host backend times nothing.
static PetscErrorCode check_last_times(Mat B, PetscBool refreshed, const std::string &name)
{
  Vec       x;
  PetscBool cuda;
  MatInfo   info;
  PetscReal t[4];

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(B, &x, NULL));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(VecDestroy(&x));
  PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
  PetscCall(MatGPUFormatsGetLastTimes(B, &t[0], &t[1], &t[2], &t[3]));
  const bool build = cuda, refresh = cuda && refreshed && info.nz_used > 0;
  auto       as_expected = [](PetscReal v, bool measured) { return measured ? v >= 0 : v == -1; };
  PetscCall(report(as_expected(t[0], build) && as_expected(t[1], build) && as_expected(t[2], refresh) && as_expected(t[3], refresh) ? PETSC_TRUE : PETSC_FALSE, name + ".last_times"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatGPUFormatsGetLastTimes on a matrix of another type: a clear error, not a crash.
static PetscErrorCode check_last_times_needs_gpuformats()
{
  Mat            A;
  PetscReal      t;
  PetscErrorCode ierr;
  const char    *msg = nullptr;

  PetscFunctionBegin;
  PetscCall(create_aij(stencil7(3), &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatGPUFormatsGetLastTimes(A, &t, NULL, NULL, NULL);
  PetscCall(PetscPopErrorHandler());
  if (ierr) PetscCall(PetscErrorMessage(ierr, NULL, &msg));
  PetscCall(report(ierr == PETSC_ERR_ARG_WRONG && msg && std::strstr(msg, "not a gpuformats type") ? PETSC_TRUE : PETSC_FALSE, "last_times.aij_is_an_error"));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The counter `key` of MatGPUFormatsGetStatistics' JSON (-1 where absent).
static PetscInt stats_counter(Mat B, const char *key)
{
  const char *json = nullptr;
  if (MatGPUFormatsGetStatistics(B, &json) || !json) return -1;
  const std::string k = std::string("\"") + key + "\"";
  const char       *at = std::strstr(json, k.c_str());
  if (!at) return -1;
  at = std::strchr(at + k.size(), ':');
  return at ? (PetscInt)std::strtol(at + 1, nullptr, 10) : -1;
}

// A symmetric stencil (the stencil layout, DIA, with its symmetry count back) runs its transposed
// products as the product on the cuda backend: no transposed layout, AIJ's answers. The same pattern
// with lower entries unlike their mirrors, and the host backend, never do. One rank (the local block).
static PetscErrorCode check_symmetric_transposes(const char *type)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size != 1) PetscFunctionReturn(PETSC_SUCCESS);
  for (int sym = 0; sym < 2; ++sym) {
    CsrMatrix G = stencil7(12);
    if (!sym)
      for (int32_t i = 0; i < G.nrows; ++i)
        for (int32_t k = G.rowptr[i]; k < G.rowptr[i + 1]; ++k)
          if (G.colidx[k] < i) G.values[k] = -0.9; // mirrors hold -1
    Mat       A, B;
    Vec       x, y, w, wa;
    PetscReal nrm, d, d2;
    PetscBool cuda;
    PetscCall(create_aij(G, &A));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatCreateVecs(B, &x, &y));
    PetscCall(VecDuplicate(x, &w));
    PetscCall(VecDuplicate(x, &wa));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    PetscCall(VecSetRandom(x, NULL));
    PetscCall(MatMult(B, x, y));
    PetscCall(VecNorm(y, NORM_2, &nrm)); // the stream has run the layout's symmetry count
    PetscCall(MatMultTranspose(B, y, w));
    PetscCall(MatMultTranspose(A, y, wa));
    PetscCall(rel_diff(w, wa, &d));
    PetscCall(MatMultTransposeAdd(B, x, w, w));
    PetscCall(MatMultTransposeAdd(A, x, wa, wa));
    PetscCall(rel_diff(w, wa, &d2));
    const std::string name = std::string(type) + (sym ? ".stencil7_12" : ".stencil7_12_unmirrored") + ".transposes";
    PetscCall(report(d < 1e-12 && d2 < 1e-12 ? PETSC_TRUE : PETSC_FALSE, name + ".match_aij"));
    const PetscInt as_product = stats_counter(B, "symmetric_transposes"), transposed = stats_counter(B, "transposed_products");
    const bool     expect     = cuda && sym;
    PetscCall(report(expect ? (as_product == 2 && transposed == 0 ? PETSC_TRUE : PETSC_FALSE) : (as_product == 0 ? PETSC_TRUE : PETSC_FALSE), name + (expect ? ".ran_as_product" : ".never_as_product")));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&wa));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// How often this rank has run an event so far.
static PetscInt event_count(PetscLogEvent e)
{
  PetscEventPerfInfo info;
  if (PetscLogEventGetPerfInfo(PETSC_DETERMINE, e, &info)) return -1;
  return info.count;
}
// Values-only refreshes (uploads of every value) so far.
static PetscInt refresh_count() { return event_count(MAT_GPUFormatsRefresh); }

// Whether every row has its diagonal entry, on every rank.
static bool has_full_diagonal(Mat A)
{
  PetscInt  rstart, rend;
  PetscBool mine = PETSC_TRUE, all = PETSC_FALSE;
  if (MatGetOwnershipRange(A, &rstart, &rend)) return false;
  for (PetscInt i = rstart; i < rend && mine; ++i) {
    const PetscInt *cols;
    PetscInt        nc;
    bool            found = false;
    if (MatGetRow(A, i, &nc, &cols, NULL)) return false;
    for (PetscInt k = 0; k < nc; ++k) found = found || cols[k] == i;
    if (MatRestoreRow(A, i, &nc, &cols, NULL)) return false;
    mine = found ? PETSC_TRUE : PETSC_FALSE;
  }
  if (MPIU_Allreduce(&mine, &all, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A))) return false;
  return all;
}

// ||B - A||_F / ||A||_F with B's values read on the host: MatConvert of B to AIJ (B's host path).
// Whether B's host values are stale after a change of its layouts alone (offload mask GPU), where
// this rank has values at all (an empty block has none to leave stale).
static PetscBool stale_here(Mat B)
{
  MatInfo info;
  if (MatGetInfo(B, MAT_LOCAL, &info)) return PETSC_FALSE;
  return info.nz_used == 0 || B->offloadmask == PETSC_OFFLOAD_GPU ? PETSC_TRUE : PETSC_FALSE;
}

// Whether two ranks use the same GPU (auto's halo then takes mpi, not ipc). Collective.
static bool ranks_share_gpu()
{
  int         dev = -1, size;
  char        bus[32] = {};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess) bus[0] = 0;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  std::vector<char> all((size_t)size * sizeof bus);
  MPI_Allgather(bus, sizeof bus, MPI_CHAR, all.data(), sizeof bus, MPI_CHAR, PETSC_COMM_WORLD);
  for (int i = 0; i < size; ++i)
    for (int k = i + 1; k < size; ++k)
      if (all[i * sizeof bus] && !std::strcmp(&all[i * sizeof bus], &all[k * sizeof bus])) return true;
  return false;
}

static PetscErrorCode host_diff(Mat A, Mat B, PetscReal *d)
{
  Mat       C;
  PetscReal na;

  PetscFunctionBegin;
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, d));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &na));
  if (na > 0) *d /= na;
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What reads B's values on the host after an in-place edit, against A's (AIJ): B edited its
// layouts alone (host values stale, offload mask GPU) and each of these brings them back first.
// Each path is checked on its own, after a fresh stale state where the type has one.
static PetscErrorCode compare_host_paths(Mat A, Mat B, const std::string &name, bool stale_expected)
{
  PetscInt    rstart, rend, M, N;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  // Each check starts from stale host values that differ from the host copy: A and B doubled (exact
  // in binary; halved back as often at the end), so a path that read the stale copy finds other values.
  int  doublings = 0;
  auto restale   = [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatScale(B, 2.0));
    doublings++;
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  auto stale_now = [&](const char *what) -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(restale());
    if (stale_expected) PetscCall(report(stale_here(B), name + ".stale_before_" + what));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  PetscReal d;
  PetscCall(stale_now("convert"));
  PetscCall(host_diff(A, B, &d));
  PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".host_convert"));
  MatInfo info;
  MatInfo linfo;
  PetscCall(MatGetInfo(B, MAT_GLOBAL_SUM, &info));
  PetscCall(MatGetInfo(B, MAT_LOCAL, &linfo));
  if (stale_expected && info.nz_used > 0) PetscCall(report(linfo.nz_used == 0 || B->offloadmask == PETSC_OFFLOAD_BOTH ? PETSC_TRUE : PETSC_FALSE, name + ".host_current_after_read"));
  { // MatGetRow and MatGetValues of the first and last local rows
    PetscCall(stale_now("getrow"));
    PetscBool ok = PETSC_TRUE;
    for (PetscInt i : {rstart, rend - 1}) { // (every rank makes both rounds: the edits and reports are collective)
      const bool               mine = i >= rstart && i < rend;
      std::vector<PetscInt>    cols;
      if (mine) {
        const PetscInt    *ca, *cb;
        const PetscScalar *va, *vb;
        PetscInt           na, nb;
        PetscCall(MatGetRow(A, i, &na, &ca, &va));
        PetscCall(MatGetRow(B, i, &nb, &cb, &vb));
        ok = ok && na == nb ? PETSC_TRUE : PETSC_FALSE;
        for (PetscInt k = 0; ok && k < na; ++k) ok = ca[k] == cb[k] && PetscAbsScalar(va[k] - vb[k]) <= 1e-14 * (1 + PetscAbsScalar(va[k])) ? PETSC_TRUE : PETSC_FALSE;
        cols.assign(ca, ca + na);
        PetscCall(MatRestoreRow(A, i, &na, &ca, &va));
        PetscCall(MatRestoreRow(B, i, &nb, &cb, &vb));
      }
      PetscCall(stale_now("getvalues"));
      std::vector<PetscScalar> gv(cols.size()), ga(cols.size());
      if (!cols.empty()) {
        PetscCall(MatGetValues(B, 1, &i, (PetscInt)cols.size(), cols.data(), gv.data()));
        PetscCall(MatGetValues(A, 1, &i, (PetscInt)cols.size(), cols.data(), ga.data()));
      }
      for (size_t k = 0; ok && k < cols.size(); ++k) ok = PetscAbsScalar(gv[k] - ga[k]) <= 1e-14 * (1 + PetscAbsScalar(ga[k])) ? PETSC_TRUE : PETSC_FALSE;
    }
    PetscCall(report(ok, name + ".host_getrow_getvalues"));
  }
  { // norms
    PetscBool ok = PETSC_TRUE;
    for (NormType t : {NORM_1, NORM_FROBENIUS, NORM_INFINITY}) {
      PetscReal na, nb;
      PetscCall(stale_now("norm"));
      PetscCall(MatNorm(A, t, &na));
      PetscCall(MatNorm(B, t, &nb));
      ok = ok && PetscAbsReal(na - nb) <= 1e-13 * (1 + na) ? PETSC_TRUE : PETSC_FALSE;
    }
    PetscCall(report(ok, name + ".host_norm"));
  }
  { // MatDuplicate with values, MatCopy into AIJ, MatTranspose
    Mat C, D, At, Bt;
    PetscCall(stale_now("duplicate"));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
    PetscCall(host_diff(A, C, &d));
    PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".host_duplicate"));
    PetscCall(MatDestroy(&C));
    PetscCall(stale_now("copy"));
    PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &D));
    PetscCall(MatCopy(B, D, SAME_NONZERO_PATTERN));
    PetscCall(host_diff(A, D, &d));
    PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".host_copy"));
    PetscCall(MatDestroy(&D));
    PetscCall(stale_now("transpose"));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    const PetscErrorCode ierr = MatTranspose(B, MAT_INITIAL_MATRIX, &Bt); // of B's type: a format may refuse A^T's shape
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      const char *msg = nullptr;
      PetscCall(PetscErrorMessage(ierr, NULL, &msg));
      PetscCall(report(ierr == PETSC_ERR_SUP && msg && std::strstr(msg, gpuformats::kFitsHint) ? PETSC_TRUE : PETSC_FALSE, name + ".host_transpose_refused_clearly"));
    } else {
      PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
      PetscCall(host_diff(At, Bt, &d));
      PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".host_transpose"));
      PetscCall(MatDestroy(&At));
      PetscCall(MatDestroy(&Bt));
    }
  }
  if (size > 1) { // an mpi<fmt>'s blocks read through SeqAIJ's accessors (MPIAIJ's products, GAMG, MatDisAssemble)
    Mat                Ad, Ao, Bd, Bo;
    const PetscScalar *va, *vb;
    PetscBool          ok = PETSC_TRUE;
    PetscCall(stale_now("blocks"));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Bd, &Bo, NULL));
    for (auto [a, b] : {std::pair<Mat, Mat>{Ao, Bo}, {Ad, Bd}}) { // the off-process block first: its guard alone brings it back
      MatInfo ia, ib;
      PetscCall(MatGetInfo(a, MAT_LOCAL, &ia));
      PetscCall(MatGetInfo(b, MAT_LOCAL, &ib));
      if (ia.nz_used != ib.nz_used) {
        ok = PETSC_FALSE;
        continue;
      }
      PetscCall(MatSeqAIJGetArrayRead(a, &va));
      PetscCall(MatSeqAIJGetArrayRead(b, &vb));
      for (PetscInt k = 0; k < (PetscInt)ia.nz_used; ++k) ok = ok && PetscAbsScalar(va[k] - vb[k]) <= 1e-14 * (1 + PetscAbsScalar(va[k])) ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(MatSeqAIJRestoreArrayRead(a, &va));
      PetscCall(MatSeqAIJRestoreArrayRead(b, &vb));
    }
    PetscCall(report(ok, name + ".host_block_arrays"));
  }
  if (M == N) { // MatGetRowMaxAbs
    Vec       va, vb;
    PetscReal dd;
    PetscCall(stale_now("rowmaxabs"));
    PetscCall(MatCreateVecs(A, NULL, &va));
    PetscCall(MatCreateVecs(B, NULL, &vb));
    PetscCall(MatGetRowMaxAbs(A, va, NULL));
    PetscCall(MatGetRowMaxAbs(B, vb, NULL));
    PetscCall(rel_diff(vb, va, &dd));
    PetscCall(report(dd < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".host_rowmaxabs"));
    PetscCall(VecDestroy(&va));
    PetscCall(VecDestroy(&vb));
  }
  if (size == 1 && M == N && M > 0 && has_full_diagonal(A)) {
    // A host factorization (PETSc's ILU(0)) of B, against the same factorization of B's values
    // copied to AIJ afterwards: the same values, so the solves agree to the summation order (AIJ's
    // may use inodes) where B's numeric phase read current values. (Against A's they would differ
    // by the edits' roundings, amplified by the factors.)
    Mat           Fb, Fc, C;
    Vec           b, xb, xc;
    PetscReal     dd = 0;
    IS            row, col;
    MatFactorInfo info;
    PetscCall(MatFactorInfoInitialize(&info));
    info.fill = 1.0;
    PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
    PetscCall(stale_now("factor"));
    PetscCall(MatGetFactor(B, MATSOLVERPETSC, MAT_FACTOR_ILU, &Fb));
    PetscCall(MatILUFactorSymbolic(Fb, B, row, col, &info));
    PetscCall(MatLUFactorNumeric(Fb, B, &info));
    PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatGetFactor(C, MATSOLVERPETSC, MAT_FACTOR_ILU, &Fc));
    PetscCall(MatILUFactorSymbolic(Fc, C, row, col, &info));
    PetscCall(MatLUFactorNumeric(Fc, C, &info));
    PetscCall(MatCreateVecs(C, &xc, &b));
    PetscCall(VecDuplicate(xc, &xb));
    MatFactorError eb, ec;
    PetscCall(MatFactorGetError(Fb, &eb));
    PetscCall(MatFactorGetError(Fc, &ec));
    PetscBool ok = eb == ec ? PETSC_TRUE : PETSC_FALSE; // a zero pivot (MatZeroEntries) on both
    if (ok && eb == MAT_FACTOR_NOERROR) {
      PetscCall(VecSetRandom(b, NULL));
      PetscCall(MatSolve(Fb, b, xb));
      PetscCall(MatSolve(Fc, b, xc));
      PetscCall(rel_diff(xb, xc, &dd));
      ok = dd <= 1e-12 ? PETSC_TRUE : PETSC_FALSE;
    }
    PetscCall(report(ok, name + ".host_factor_ilu0"));
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatDestroy(&Fb));
    PetscCall(MatDestroy(&Fc));
    PetscCall(MatDestroy(&C));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&xb));
    PetscCall(VecDestroy(&xc));
  }
  PetscCall(MatScale(A, std::ldexp(1.0, -doublings)));
  PetscCall(MatScale(B, std::ldexp(1.0, -doublings)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// In-place value changes whose layout was current (the products above ran): each the same on A and
// B, B compared against A after each, and not one values-only refresh (an upload) among them.
// MatZeroRows and MatZeroRowsColumns (Dirichlet rows) on B against A, with the right-hand side
// fixed for a given solution (x, b): every third owned row, the first listed twice, and on several
// ranks a row of the next rank. A seq<fmt> keeps them on its layout where AIJ keeps the pattern
// (MAT_KEEP_NONZERO_PATTERN for MatZeroRows; a full diagonal where the diagonal is set), with no
// refresh; without MAT_KEEP_NONZERO_PATTERN AIJ drops the rows' entries and B rebuilds.
template <class Step>
static PetscErrorCode test_zero_rows(Mat A, Mat B, const char *type, const std::string &name, Step &step)
{
  PetscInt              M, N, rstart, rend;
  PetscMPIInt           size, rank;
  Vec                   x, bA, bB;
  std::vector<PetscInt> rows;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)B), &rank));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i += 3) rows.push_back(i);
  if (!rows.empty()) rows.push_back(rows.front());
  if (size > 1 && rend < M) rows.push_back(rend); // owned by a later rank
  const PetscInt n = (PetscInt)rows.size();
  PetscCall(MatCreateVecs(B, &x, &bB));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(bB, NULL));
  PetscCall(VecDuplicate(bB, &bA));
  PetscCall(VecCopy(bB, bA));
  const bool     seq   = size == 1, full = M == N && has_full_diagonal(A);
  const PetscInt edits = event_count(MAT_GPUFormatsEdit), refreshes = refresh_count();
  auto same_rhs = [&](const char *what) -> PetscErrorCode {
    PetscReal d, nb;
    PetscFunctionBegin;
    PetscCall(VecAXPY(bA, -1.0, bB)); // then bA = bB again
    PetscCall(VecNorm(bA, NORM_INFINITY, &d));
    PetscCall(VecNorm(bB, NORM_INFINITY, &nb));
    PetscCall(VecCopy(bB, bA));
    PetscCall(report(d <= 1e-13 * (1 + nb) ? PETSC_TRUE : PETSC_FALSE, name + ".edit_" + what + ".rhs"));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  auto rhs = [&](Mat Y) { return Y == A ? bA : bB; };
  PetscCall(MatSetOption(A, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  PetscCall(MatSetOption(B, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  if (full) {
    PetscCall(step("zerorows_keep", [&](Mat Y, Mat) { return MatZeroRows(Y, n, rows.data(), 2.0, x, rhs(Y)); }, true, seq));
    PetscCall(same_rhs("zerorows_keep"));
  }
  PetscCall(step("zerorows_keep_nodiag", [&](Mat Y, Mat) { return MatZeroRows(Y, n, rows.data(), 0.0, NULL, NULL); }, false, seq));
  if (full) {
    PetscCall(step("zerorowscolumns", [&](Mat Y, Mat) { return MatZeroRowsColumns(Y, n, rows.data(), 3.0, x, rhs(Y)); }, true, seq));
    PetscCall(same_rhs("zerorowscolumns"));
  }
  if (M == N) {
    PetscCall(step("zerorowscolumns_nodiag", [&](Mat Y, Mat) { return MatZeroRowsColumns(Y, n, rows.data(), 0.0, NULL, NULL); }, false, seq));
    PetscCall(step("zerorowscolumns_none", [&](Mat Y, Mat) { return MatZeroRowsColumns(Y, 0, rows.data(), 1.0, NULL, NULL); }, false, seq));
  }
  if (seq) {
    PetscCall(report(refresh_count() == refreshes ? PETSC_TRUE : PETSC_FALSE, name + ".zero_rows_without_refresh"));
    PetscCall(report(event_count(MAT_GPUFormatsEdit) > edits ? PETSC_TRUE : PETSC_FALSE, name + ".zero_rows_ran"));
  }
  PetscCall(MatSetOption(A, MAT_KEEP_NONZERO_PATTERN, PETSC_FALSE));
  PetscCall(MatSetOption(B, MAT_KEEP_NONZERO_PATTERN, PETSC_FALSE));
  if (!std::strcmp(type, "evchyb")) { // without MAT_KEEP_NONZERO_PATTERN: a new pattern (B's next use
    Mat A2, B2;                       // rebuilds), from host values brought back first; on copies, whose
    PetscCall(MatScale(B, 2.0));      // rows may no longer suit the other formats
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
    PetscCall(MatScale(B2, 0.5)); // stale host values (a seq<fmt>) that AIJ's must read
    PetscCall(MatScale(B, 0.5));
    const bool vecs = M == N; // (MPIAIJ's takes vectors only with matching row and column layouts)
    PetscCall(MatZeroRows(A2, n, rows.data(), full ? 1.0 : 0.0, vecs ? x : NULL, vecs ? bA : NULL));
    PetscCall(MatZeroRows(B2, n, rows.data(), full ? 1.0 : 0.0, vecs ? x : NULL, vecs ? bB : NULL));
    PetscCall(compare_all(A2, B2, type, name + ".edit_zerorows_drop"));
    PetscCall(same_rhs("zerorows_drop"));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&B2));
  }
  if (M > 0) { // a row out of range: AIJ's error on a seq<fmt>, either path
    PetscInt       bad = M + 5;
    PetscErrorCode err;
    PetscCall(MatSetOption(B, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    err = seq ? MatZeroRows(B, 1, &bad, 1.0, NULL, NULL) : PETSC_ERR_ARG_OUTOFRANGE;
    PetscCall(PetscPopErrorHandler());
    PetscCall(report(err == PETSC_ERR_ARG_OUTOFRANGE ? PETSC_TRUE : PETSC_FALSE, name + ".zerorows_out_of_range"));
    PetscCall(MatSetOption(B, MAT_KEEP_NONZERO_PATTERN, PETSC_FALSE));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&bA));
  PetscCall(VecDestroy(&bB));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode test_edits(Mat A, Mat B, const char *type, const std::string &name)
{
  PetscInt M, N;
  Vec      l, r, d;
  Mat      C, Ca;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatCreateVecs(B, &r, &l));
  PetscCall(VecSetRandom(l, NULL));
  PetscCall(VecSetRandom(r, NULL));
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C)); // X of the AXPYs: ours, and AIJ's copy of it
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Ca));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  const PetscInt refreshes = refresh_count(), edits = event_count(MAT_GPUFormatsEdit);
  // alone: the edit changes B's layouts alone (seq and mpi types), the host values go stale
  auto step = [&](const char *what, auto &&op, bool host_paths = false, bool alone = true) -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(op(A, Ca));
    PetscCall(op(B, C));
    if (alone) PetscCall(report(stale_here(B), name + ".edit_" + what + ".layout_alone"));
    PetscCall(compare_all(A, B, type, name + ".edit_" + what));
    if (host_paths) PetscCall(compare_host_paths(A, B, name + ".edit_" + what, alone));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  PetscCall(step("scale", [](Mat Y, Mat) { return MatScale(Y, -0.5); }, true));
  PetscCall(step("diagonalscale", [&](Mat Y, Mat) { return MatDiagonalScale(Y, l, r); }, true));
  PetscCall(step("diagonalscale_left", [&](Mat Y, Mat) { return MatDiagonalScale(Y, l, NULL); }));
  PetscCall(step("axpy_same", [](Mat Y, Mat X) { return MatAXPY(Y, 0.25, X, SAME_NONZERO_PATTERN); }, true));
  PetscCall(step("axpy_unknown", [](Mat Y, Mat X) { return MatAXPY(Y, -1.5, X, UNKNOWN_NONZERO_PATTERN); }));
  PetscCall(step("axpy_different", [](Mat Y, Mat X) { return MatAXPY(Y, 0.5, X, DIFFERENT_NONZERO_PATTERN); })); // found the same: an edit, as aijcusparse's
  PetscCall(step("axpy_subset", [](Mat Y, Mat X) { return MatAXPY(Y, -0.25, X, SUBSET_NONZERO_PATTERN); }));
  { // X in another format: the two layouts differ, entries meet through both slot maps
    Mat         X2;
    const char *other = std::strcmp(type, "evchyb") ? "evchyb" : "pjds";
    PetscCall(MatConvert(Ca, other, MAT_INITIAL_MATRIX, &X2));
    PetscCall(step("axpy_other_format", [&](Mat Y, Mat X) { return MatAXPY(Y, 0.5, X == Ca ? Ca : X2, SAME_NONZERO_PATTERN); }));
    PetscCall(MatDestroy(&X2));
  }
  if (M == N && has_full_diagonal(A)) { // (a missing diagonal entry is inserted: a new pattern, a rebuild)
    PetscCall(MatCreateVecs(B, &d, NULL));
    PetscCall(VecSetRandom(d, NULL));
    PetscCall(step("shift", [](Mat Y, Mat) { return MatShift(Y, 0.75); }, true));
    PetscCall(step("diagonalset_insert", [&](Mat Y, Mat) { return MatDiagonalSet(Y, d, INSERT_VALUES); }));
    PetscCall(step("diagonalset_add", [&](Mat Y, Mat) { return MatDiagonalSet(Y, d, ADD_VALUES); }, true));
    PetscCall(VecDestroy(&d));
  }
  PetscCall(step("zero", [](Mat Y, Mat) { return MatZeroEntries(Y); }, true));
  PetscCall(step("axpy_restore", [](Mat Y, Mat X) { return MatAXPY(Y, 1.0, X, UNKNOWN_NONZERO_PATTERN); })); // MatShift may have added diagonal entries to Y
  PetscCall(report(refresh_count() == refreshes ? PETSC_TRUE : PETSC_FALSE, name + ".edits_without_refresh"));
  PetscCall(report(event_count(MAT_GPUFormatsEdit) > edits ? PETSC_TRUE : PETSC_FALSE, name + ".edits_ran"));
  PetscCall(test_zero_rows(A, B, type, name, step));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Ca));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// COO assembly into B (of `type`) against A (AIJ of the same matrix G): each rank gives the entries of
// the rows i with i % size == rank (off-process ones on several ranks), every entry once or split
// into two duplicates (1/4 and 3/4 of it: the two maps of gf_coo.cpp), and one ignored entry
// (negative row); INSERT, then ADD (2 G), then INSERT from device memory (a CUDA vector's array)
// where B's vectors are CUDA vectors.
static PetscErrorCode test_coo(const char *type, const NamedMatrix &m, const std::string &name_, bool duplicates)
{
  const std::string   name  = name_ + (duplicates ? ".dup" : ".unique");
  std::vector<double> parts = duplicates ? std::vector<double>{0.25, 0.75} : std::vector<double>{1.0};
  const CsrMatrix      &G = m.A;
  PetscMPIInt           rank, size;
  std::vector<PetscInt> ci, cj;
  std::vector<double>   cv;
  Mat                   A, B;
  PetscReal             d;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (PetscInt i = 0; i < G.nrows; ++i)
    if (i % size == rank)
      for (PetscInt k = G.rowptr[i]; k < G.rowptr[i + 1]; ++k)
        for (double part : parts) {
          ci.push_back(i);
          cj.push_back(G.colidx[k]);
          cv.push_back(part * G.values[k]);
        }
  ci.push_back(-1); // ignored, with its value
  cj.push_back(0);
  cv.push_back(1e300);
  PetscCall(create_aij(G, &A));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, G.nrows, G.ncols));
  PetscCall(MatSetType(B, type));
  PetscCall(MatSetPreallocationCOO(B, (PetscCount)ci.size(), ci.data(), cj.data()));
  PetscCall(MatSetValuesCOO(B, cv.data(), INSERT_VALUES));
  if (!G.colidx.empty()) PetscCall(report(stale_here(B), name + ".coo_insert.layout_alone")); // no host AIJ work (mpi: both blocks)
  PetscCall(compare_all(A, B, type, name + ".coo_insert"));
  PetscCall(host_diff(A, B, &d));
  PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".coo_insert.host"));
  PetscCall(MatSetValuesCOO(B, cv.data(), ADD_VALUES));
  PetscCall(MatScale(A, 2.0));
  PetscCall(compare_all(A, B, type, name + ".coo_add"));
  PetscCall(host_diff(A, B, &d));
  PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".coo_add.host"));
  {
    Vec       x;
    PetscBool cuda;
    PetscCall(MatCreateVecs(B, &x, NULL));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    PetscCall(VecDestroy(&x));
    if (cuda) { // the values from device memory
      Vec          dv;
      PetscScalar *h;
      PetscMemType mt;
      PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, (PetscInt)cv.size(), &dv));
      PetscCall(VecGetArrayWrite(dv, &h));
      std::copy(cv.begin(), cv.end(), h);
      PetscCall(VecRestoreArrayWrite(dv, &h));
      PetscCall(VecGetArrayReadAndMemType(dv, (const PetscScalar **)&h, &mt));
      PetscCall(MatSetValuesCOO(B, h, INSERT_VALUES));
      PetscCall(VecRestoreArrayReadAndMemType(dv, (const PetscScalar **)&h));
      PetscCall(VecDestroy(&dv));
      PetscCall(MatScale(A, 0.5));
      PetscCall(compare_all(A, B, type, name + ".coo_device"));
      PetscCall(host_diff(A, B, &d));
      PetscCall(report(d < 1e-14 ? PETSC_TRUE : PETSC_FALSE, name + ".coo_device.host"));
    }
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetValuesCOO before MatSetPreallocationCOO: PETSc's clear error, not a crash.
static PetscErrorCode check_coo_needs_preallocation(const char *type)
{
  Mat            B;
  PetscScalar    v = 1.0;
  PetscErrorCode ierr;
  const char    *msg = nullptr;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, 4, 4));
  PetscCall(MatSetType(B, type));
  PetscCall(MatSetUp(B));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatSetValuesCOO(B, &v, INSERT_VALUES);
  PetscCall(PetscPopErrorHandler());
  if (ierr) PetscCall(PetscErrorMessage(ierr, NULL, &msg));
  PetscCall(report(ierr && msg && std::strstr(msg, "MatSetPreallocationCOO") ? PETSC_TRUE : PETSC_FALSE, std::string(type) + ".coo_before_preallocation_is_an_error"));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// COO input a user gets wrong or changes: an index out of range is PETSc's clear error (every rank
// gives one, so the error is collective); a second preallocation with another pattern replaces the
// first, with the values of the assembly after it (the tridiagonal, then its diagonal alone).
static PetscErrorCode check_coo_bad_input_and_repreallocation(const char *type)
{
  Mat            B;
  PetscErrorCode ierr;
  const char    *msg = nullptr;
  const PetscInt n   = 8;
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(B, type));
  PetscCall(MatSetUp(B));
  PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
  {
    PetscInt i[1] = {rstart}, j[1] = {n + 3}; // a column past the last
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSetPreallocationCOO(B, 1, i, j);
    PetscCall(PetscPopErrorHandler());
    if (ierr) PetscCall(PetscErrorMessage(ierr, NULL, &msg));
    PetscCall(report(ierr == PETSC_ERR_ARG_OUTOFRANGE ? PETSC_TRUE : PETSC_FALSE, std::string(type) + ".coo_index_out_of_range_is_an_error"));
  }
  PetscCall(MatDestroy(&B));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(B, type));
  PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
  std::vector<PetscInt>    ci, cj;
  std::vector<PetscScalar> cv;
  for (PetscInt r = rstart; r < rend; ++r)
    for (PetscInt c = r - 1; c <= r + 1; ++c)
      if (c >= 0 && c < n) ci.push_back(r), cj.push_back(c), cv.push_back(c == r ? 2.0 : -1.0);
  PetscCall(MatSetPreallocationCOO(B, (PetscCount)ci.size(), ci.data(), cj.data()));
  PetscCall(MatSetValuesCOO(B, cv.data(), INSERT_VALUES));
  Vec x, y;
  PetscCall(MatCreateVecs(B, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(B, x, y)); // the tridiagonal's layout in use
  std::vector<PetscInt>    di, dj;
  std::vector<PetscScalar> dv;
  for (PetscInt r = rstart; r < rend; ++r) di.push_back(r), dj.push_back(r), dv.push_back(3.0 + r);
  PetscCall(MatSetPreallocationCOO(B, (PetscCount)di.size(), di.data(), dj.data()));
  PetscCall(MatSetValuesCOO(B, dv.data(), INSERT_VALUES));
  PetscCall(MatMult(B, x, y));
  PetscBool          ok = PETSC_TRUE;
  const PetscScalar *ya;
  PetscCall(VecGetArrayRead(y, &ya));
  for (PetscInt r = rstart; r < rend; ++r) ok = ok && ya[r - rstart] == 3.0 + r ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VecRestoreArrayRead(y, &ya));
  MatInfo info;
  PetscCall(MatGetInfo(B, MAT_GLOBAL_SUM, &info));
  PetscCall(report(ok && info.nz_used == n ? PETSC_TRUE : PETSC_FALSE, std::string(type) + ".coo_second_preallocation_replaces_the_pattern"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether a format's documented rule (refusal_expected, test/common/format_checks.hpp) refuses a
// block of A on some rank, at its default parameters: the local block (owned columns) and the
// off-process block (the others), each split from A's rows here. Decided by the test, not by the
// format, so a refusal of a matrix the format should hold fails.
static PetscErrorCode refusal_expected_somewhere(const char *type, Mat A, PetscBool *expected)
{
  const FormatOps *ops = find_format(type); // null for gpuauto (it falls back among candidates): no refusal
  PetscInt         rstart, rend, cstart, cend;
  PetscBool        local = PETSC_FALSE;

  PetscFunctionBegin;
  *expected = PETSC_FALSE;
  if (!ops) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
  std::vector<int32_t> rowptr[2] = {{0}, {0}}, colidx[2];
  for (PetscInt i = rstart; i < rend; ++i) {
    const PetscInt *cols;
    PetscInt        n;
    PetscCall(MatGetRow(A, i, &n, &cols, NULL));
    for (PetscInt k = 0; k < n; ++k) colidx[cols[k] >= cstart && cols[k] < cend ? 0 : 1].push_back((int32_t)cols[k]);
    PetscCall(MatRestoreRow(A, i, &n, &cols, NULL));
    for (int b = 0; b < 2; ++b) rowptr[b].push_back((int32_t)colidx[b].size());
  }
  const std::vector<int64_t> params = default_params(*ops);
  for (int b = 0; b < 2; ++b) {
    CsrView blk;
    blk.nrows  = (int32_t)(rend - rstart);
    blk.ncols  = (int32_t)A->cmap->N;
    blk.nnz    = (int64_t)colidx[b].size();
    blk.rowptr = rowptr[b].data();
    blk.colidx = colidx[b].data();
    if (refusal_expected(*ops, blk, params.data())) local = PETSC_TRUE;
  }
  PetscCallMPI(MPIU_Allreduce(&local, expected, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode test_type(const char *type, const NamedMatrix &m)
{
  Mat               A, B, C;
  const std::string name = std::string(type) + "." + m.name;
  PetscInt          M, N, rstart, rend;
  PetscMPIInt       size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(create_aij(m.A, &A));
  {
    // A format may refuse a matrix it cannot hold well (PELLR's padding blow-up): that must be a
    // PETSC_ERR_SUP naming formats that fit, raised on every rank, with the AIJ matrix unchanged.
    PetscErrorCode ierr;
    const char    *msg = nullptr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatConvert(A, type, MAT_INITIAL_MATRIX, &B);
    PetscCall(PetscPopErrorHandler());
    PetscBool expected;
    PetscCall(refusal_expected_somewhere(type, A, &expected));
    if (!ierr) PetscCall(report(expected ? PETSC_FALSE : PETSC_TRUE, name + ".refusal_as_documented")); // built what the rule refuses: fails
    if (ierr == PETSC_ERR_SUP) {
      PetscCall(PetscErrorMessage(ierr, NULL, &msg));
      PetscCall(report(expected && msg && std::strstr(msg, "Formats that fit") ? PETSC_TRUE : PETSC_FALSE, name + ".refused_with_alternatives"));
      Vec x, y;
      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecSet(x, 1.0));
      PetscCall(MatMult(A, x, y)); // still usable
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(MatDestroy(&A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(ierr);
  }
  if (halo_ >= 0) {
    PetscBool nodes, overlap;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_gpuformats_halo_node_ranks", &nodes));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_gpuformats_halo_overlap", &overlap));
    if (nodes || overlap) PetscCall(MatSetFromOptions(B)); // the ipc halo's nodes, the exchange's order
    PetscCall(MatGPUFormatsSetHalo(B, (MatGPUFormatsHalo)halo_));
  }
  {
    PetscBool ours_b, ours_a;
    PetscCall(MatGPUFormatsIsType(B, &ours_b));
    PetscCall(MatGPUFormatsIsType(A, &ours_a));
    PetscCall(report(ours_b && !ours_a ? PETSC_TRUE : PETSC_FALSE, name + ".is_type"));
  }
  {
    PetscBool same;
    PetscCall(PetscObjectTypeCompare((PetscObject)B, size > 1 ? (std::string(MATMPIAIJ) + type).c_str() : (std::string(MATSEQAIJ) + type).c_str(), &same));
    PetscCall(report(same, name + ".convert_type"));
  }
  // Before any product: built, never refreshed. MatConvert ends by raising B's state; that step
  // must not cost a refresh of the same values at the first product.
  PetscCall(check_last_times(B, PETSC_FALSE, name + ".after_convert"));
  const PetscInt refreshes = refresh_count();
  PetscCall(compare_all(A, B, type, name));
  PetscCall(report(refreshes >= 0 && refresh_count() == refreshes ? PETSC_TRUE : PETSC_FALSE, name + ".no_refresh_after_convert"));
  if (halo_ >= 0 && size > 1) { // -halo: the products above used the exchange asked for (auto: ipc on the GPU, one node whose GPUs are peers; vecscatter on the host)
    MatGPUFormatsHalo used;
    VecType           vt;
    PetscBool         gpu;
    PetscCall(MatGPUFormatsGetHaloTimes(B, &used, NULL, NULL, NULL, NULL));
    PetscCall(MatGetVecType(B, &vt));
    PetscCall(PetscStrcmp(vt, VECCUDA, &gpu));
    const MatGPUFormatsHalo want = halo_ == MAT_GPUFORMATS_HALO_AUTO ? (gpu ? (ranks_share_gpu() ? MAT_GPUFORMATS_HALO_MPI : MAT_GPUFORMATS_HALO_IPC) : MAT_GPUFORMATS_HALO_VECSCATTER) : (MatGPUFormatsHalo)halo_;
    const PetscBool         ok   = used == want ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(report(ok, name + ".halo_" + MatGPUFormatsHalos[halo_] + "_used_" + MatGPUFormatsHalos[used]));
  }
  {
    PetscInt64 local, bytes;
    PetscCall(MatGPUFormatsGetBytes(B, &local)); // built, and the products above ran in the format
    PetscCallMPI(MPI_Allreduce(&local, &bytes, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD)); // bytes of this rank: a rank may own no rows
    PetscCall(report(bytes > 0 || m.A.colidx.empty() ? PETSC_TRUE : PETSC_FALSE, name + ".format_built"));
  }

  PetscCall(test_edits(A, B, type, name));
  PetscCall(test_coo(type, m, name, true));
  PetscCall(test_coo(type, m, name, false));
  // Values-only refresh: new values from the host (MatCopy with the same pattern).
  PetscCall(MatScale(A, -0.5));
  const PetscInt before_copy = refresh_count();
  PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
  PetscCall(compare_all(A, B, type, name + ".after_copy"));
  PetscCall(report(refresh_count() > before_copy || m.A.colidx.empty() ? PETSC_TRUE : PETSC_FALSE, name + ".after_copy.refreshed")); // (no value to copy: nothing changed)
  PetscCall(check_last_times(B, PETSC_TRUE, name + ".after_copy"));

  // Nonzero-pattern change: one new entry per rank that owns rows -> rebuild.
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); // AXPY with a new pattern made new matrices
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  if (rend > rstart && N > 0) {
    const PetscInt    i = rstart, j = (rstart * 7 + 3) % N;
    const PetscScalar v = 3.25;
    PetscCall(MatSetValues(A, 1, &i, 1, &j, &v, ADD_VALUES));
    PetscCall(MatSetValues(B, 1, &i, 1, &j, &v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(compare_all(A, B, type, name + ".after_new_nonzero"));

  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &C));
  PetscCall(compare_all(A, C, type, name + ".duplicate"));
  PetscCall(MatScale(A, 1.5));
  PetscCall(MatConvert(A, type, MAT_REUSE_MATRIX, &C));
  PetscCall(compare_all(A, C, type, name + ".convert_reuse"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      dir[PETSC_MAX_PATH_LEN] = "test/matrices", types[1024] = "";
  PetscBool view = PETSC_FALSE, quick = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, "gpuformats: every type against AIJ\n"));
  PetscCall(GPUFormatsInitializePackage());
  PetscCall(PetscLogDefaultBegin()); // refresh_count() reads the event counts
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank_));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", types, sizeof(types), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view", &view, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-quick", &quick, NULL));
  {
    PetscInt  h;
    PetscBool set;
    PetscCall(PetscOptionsGetEList(NULL, NULL, "-halo", MatGPUFormatsHalos, 5, &h, &set)); // every matrix's halo exchange (MatGPUFormatsSetHalo)
    if (set) halo_ = (int)h;
  }

  std::vector<std::string> tl;
  if (types[0]) {
    std::string s = types;
    for (size_t p = 0; p != std::string::npos;) {
      size_t q = s.find(',', p);
      tl.push_back(s.substr(p, q == std::string::npos ? q : q - p));
      p = q == std::string::npos ? q : q + 1;
    }
  } else {
    int                                n;
    const gpuformats::FormatOps *const *all = gpuformats::all_formats(&n);
    for (int i = 0; i < n; ++i) tl.push_back(all[i]->root);
    tl.push_back(gpuformats::model::gpuauto_ops.root);
  }
  std::vector<NamedMatrix> ms = edge_case_matrices(!quick);
  if (!quick) {
    std::vector<NamedMatrix> real = real_matrices(dir);
    ms.insert(ms.end(), real.begin(), real.end());
  }
  for (const std::string &t : tl) {
    for (const NamedMatrix &m : ms) PetscCall(test_type(t.c_str(), m));
    PetscCall(check_coo_needs_preallocation(t.c_str()));
    PetscCall(check_coo_bad_input_and_repreallocation(t.c_str()));
    PetscCall(check_symmetric_transposes(t.c_str()));
  }
  PetscCall(check_last_times_needs_gpuformats());

  if (view && !tl.empty()) { // -mat_view ::ascii_info shows the layout statistics
    Mat A, B;
    PetscCall(create_aij(stencil7(10), &A));
    PetscCall(MatConvert(A, tl[0].c_str(), MAT_INITIAL_MATRIX, &B));
    PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(B, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&A));
  }
  const int rc = gftest::finish();
  PetscCall(PetscFinalize());
  return rc;
}
