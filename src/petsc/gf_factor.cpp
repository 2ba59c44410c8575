// Factorizations of the seq types: PETSc's "cusparse" solver package, the one seqaijcusparse uses
// (ILU(0) and IC(0) factored by cuSPARSE on the device; LU, Cholesky, ILU(k), ICC(k) factored on
// the host; every triangular solve on the device), run on a shadow seqaijcusparse matrix S:
//
//   A (seqaij<fmt>)   host CSR arrays  ---shared, not copied--->  S (seqaijcusparse, GFMat::shadow)
//                     format values    ---slot_of_csr gather-->   S's device values
//
// S's device CSR is uploaded once per nonzero pattern, at its first use on the device. Every phase
// that factors on the device first brings the format up to date (a values-only refresh, as the next
// product would) and gathers S's values from it, device to device: a refactorization with the same
// pattern uploads nothing the products do not upload anyway. Phases that factor on the host read
// S's host values, which are A's own arrays.
//
// The package is registered for the seq types by their exact names, so MatGetFactor() without a
// solver type offers it before PETSc's own. On the host backend (and for a matrix bound to the CPU)
// it declines, and MatGetFactor() goes on to MATSOLVERPETSC, which serves our types as the
// MATSEQAIJ they are (their names begin with "seqaij").
#include "gf_mat.hpp"

#include "formats/slot_map.hpp"

#include <petscdevice_cuda.h>

#include <algorithm>

// Exported by libpetsc (aijcusparse.cu), declared only in PETSc's source tree.
PETSC_EXTERN PetscErrorCode MatGetFactor_seqaijcusparse_cusparse(Mat, MatFactorType, Mat *);

namespace gpuformats {
namespace {

using LUSymbolicFn  = PetscErrorCode (*)(Mat, Mat, IS, IS, const MatFactorInfo *);
using CholSymbolicFn = PetscErrorCode (*)(Mat, Mat, IS, const MatFactorInfo *);
using NumericFn     = PetscErrorCode (*)(Mat, Mat, const MatFactorInfo *);
using SolveFn       = PetscErrorCode (*)(Mat, Vec, Vec);

// The cusparse package's phases a factor of ours wraps, composed on the factor (PetscNew'd).
struct GFFactor {
  LUSymbolicFn   lu_symbolic, ilu_symbolic;
  CholSymbolicFn cholesky_symbolic, icc_symbolic;
  NumericFn      lu_numeric, cholesky_numeric; // installed by the symbolic phase
  SolveFn        solve, solve_transpose;       // installed by the numeric phase
  PetscBool      device_values;                // the numeric phase reads S's device values
  Vec            db, dx;                       // device copies of host vectors given to a solve
};

PetscErrorCode DestroyFactorData(void *ctx)
{
  GFFactor *f = *(GFFactor **)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&f->db));
  PetscCall(VecDestroy(&f->dx));
  PetscCall(PetscFree(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetFactorData(Mat B, GFFactor **f)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)B, "GFFactor", (PetscCtxRt)f));
  PetscCheck(*f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuformats: factor without its GFFactor data");
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A factor made from a gpuformats matrix is refactored from one: its values come from the format.
PetscErrorCode CheckOurs(Mat A)
{
  PetscFunctionBegin;
  PetscCheck(A->spptr && format_of_type(((PetscObject)A)->type_name) && !gf(A).mpi, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "gpuformats: this cusparse factor was made from a sequential gpuformats matrix and must be factored with one, not with a %s matrix; get the factor from this matrix with MatGetFactor()", ((PetscObject)A)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// S for the block's current nonzero pattern (a new pattern, or arrays moved by a new preallocation, make a new one).
PetscErrorCode GetShadow(Mat aij, GFShadow &sh, Mat *S)
{
  PetscObjectState nz;
  const PetscInt  *ai, *aj;
  PetscScalar     *aa;
  PetscMemType     mtype;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(aij, &nz));
  PetscCall(MatSeqAIJGetCSRAndMemType(aij, &ai, &aj, &aa, &mtype));
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
PetscErrorCode ShadowOnHost(Mat A, Mat *S)
{
  PetscFunctionBegin;
  PetscCall(GetShadow(A, gf(A).shadow, S));
  (*S)->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(PetscObjectStateIncrease((PetscObject)*S));
  gf(A).shadow.state = -1; // the next device use gathers again
  PetscFunctionReturn(PETSC_SUCCESS);
}

// S's values for a numeric phase: on the device or on the host, where that phase reads them.
PetscErrorCode ShadowValues(Mat A, const GFFactor &f, Mat *S)
{
  PetscFunctionBegin;
  if (f.device_values) PetscCall(GFShadowOnDevice(A, S));
  else PetscCall(ShadowOnHost(A, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The package's solves read and write device arrays (VecCUDAGetArray): a host vector (an
// application on the cuda backend with VECSEQ vectors) goes through device copies, as it would
// through our products' AIJ fallback cost the same copies.
PetscErrorCode HostVectorSolve(Mat B, GFFactor &f, SolveFn solve, Vec b, Vec x)
{
  PetscBool bd, xd;

  PetscFunctionBegin;
  PetscCall(GFVecOnDevice(b, &bd));
  PetscCall(GFVecOnDevice(x, &xd));
  if (bd && xd) {
    PetscCall(solve(B, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!f.db) {
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, B->rmap->n, &f.db));
    PetscCall(VecDuplicate(f.db, &f.dx));
  }
  {
    const PetscScalar *h;
    PetscScalar       *d;
    PetscCall(VecGetArrayRead(b, &h));
    PetscCall(VecCUDAGetArrayWrite(f.db, &d));
    PetscCallCUDA(cudaMemcpy(d, h, sizeof(PetscScalar) * B->rmap->n, cudaMemcpyHostToDevice));
    PetscCall(VecCUDARestoreArrayWrite(f.db, &d));
    PetscCall(VecRestoreArrayRead(b, &h));
  }
  PetscCall(solve(B, f.db, f.dx));
  {
    const PetscScalar *d;
    PetscScalar       *h;
    PetscCall(VecCUDAGetArrayRead(f.dx, &d));
    PetscCall(VecGetArrayWrite(x, &h));
    PetscCallCUDA(cudaMemcpy(h, d, sizeof(PetscScalar) * B->rmap->n, cudaMemcpyDeviceToHost));
    PetscCall(VecRestoreArrayWrite(x, &h));
    PetscCall(VecCUDARestoreArrayRead(f.dx, &d));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Solve_GF<&GFFactor::solve>, Solve_GF<&GFFactor::solve_transpose>: the package's solve, host vectors allowed.
template <SolveFn GFFactor::*which>
PetscErrorCode Solve_GF(Mat B, Vec b, Vec x)
{
  GFFactor *f;

  PetscFunctionBegin;
  PetscCall(GetFactorData(B, &f));
  PetscCall(HostVectorSolve(B, *f, f->*which, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// After the package's numeric phase: our solves in front of the ones it installed.
void WrapSolves(Mat B, GFFactor &f)
{
  if (B->ops->solve != Solve_GF<&GFFactor::solve>) f.solve = B->ops->solve;
  if (B->ops->solvetranspose != Solve_GF<&GFFactor::solve_transpose>) f.solve_transpose = B->ops->solvetranspose;
  if (f.solve) B->ops->solve = Solve_GF<&GFFactor::solve>;
  if (f.solve_transpose) B->ops->solvetranspose = Solve_GF<&GFFactor::solve_transpose>;
}

// The numeric phases (LU and ILU; Cholesky and ICC): the package's on S, whose values are put
// where that phase reads them; then our solves in front of the ones it installed.
template <NumericFn GFFactor::*numeric, NumericFn _MatOps::*slot>
PetscErrorCode FactorNumeric_GF(Mat B, Mat A, const MatFactorInfo *info)
{
  GFFactor *f;
  Mat       S;

  PetscFunctionBegin;
  PetscCall(CheckOurs(A));
  PetscCall(GetFactorData(B, &f));
  PetscCall(ShadowValues(A, *f, &S));
  PetscCall((f->*numeric)(B, S, info));
  B->ops->*slot = FactorNumeric_GF<numeric, slot>; // the package's numeric phase may reinstall itself
  WrapSolves(B, *f);
  PetscFunctionReturn(PETSC_SUCCESS);
}
constexpr auto LUFactorNumeric_GF       = FactorNumeric_GF<&GFFactor::lu_numeric, &_MatOps::lufactornumeric>;
constexpr auto CholeskyFactorNumeric_GF = FactorNumeric_GF<&GFFactor::cholesky_numeric, &_MatOps::choleskyfactornumeric>;

// Whether the cusparse package factors on the device: ILU(0) / IC(0) in the natural ordering, as
// its MatILUFactorSymbolic_SeqAIJCUSPARSE / MatICCFactorSymbolic_SeqAIJCUSPARSE decide (PETSc 3.26).
// A wrong answer costs time, never correctness: S's values are current on the side it marks.
PetscErrorCode FactorsOnDevice(IS row, IS col, const MatFactorInfo *info, PetscBool *device)
{
  PetscBool rid = PETSC_FALSE, cid = PETSC_FALSE;

  PetscFunctionBegin;
  *device = PETSC_FALSE;
  if (info->factoronhost || info->levels != 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISIdentity(row, &rid));
  if (col) PetscCall(ISIdentity(col, &cid));
  else cid = PETSC_TRUE;
  *device = (rid && cid) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What every symbolic phase does first: S, with its values where the package's phases will read
// them (on the device for ILU(0)/IC(0) in the natural ordering; col NULL for Cholesky/ICC).
PetscErrorCode BeginSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info, bool incomplete, GFFactor **f, Mat *S)
{
  PetscFunctionBegin;
  PetscCall(CheckOurs(A));
  PetscCall(GetFactorData(B, f));
  (*f)->device_values = PETSC_FALSE;
  if (incomplete) PetscCall(FactorsOnDevice(row, col, info, &(*f)->device_values));
  PetscCall(ShadowValues(A, **f, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The symbolic phases: the package's own on S, then our numeric phase in front of the one it installed.
PetscErrorCode LUSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info, bool ilu)
{
  GFFactor *f;
  Mat       S;

  PetscFunctionBegin;
  PetscCall(BeginSymbolic(B, A, row, col, info, ilu, &f, &S));
  PetscCall((ilu ? f->ilu_symbolic : f->lu_symbolic)(B, S, row, col, info));
  f->lu_numeric           = B->ops->lufactornumeric;
  B->ops->lufactornumeric = LUFactorNumeric_GF;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CholeskySymbolic(Mat B, Mat A, IS perm, const MatFactorInfo *info, bool icc)
{
  GFFactor *f;
  Mat       S;

  PetscFunctionBegin;
  PetscCall(BeginSymbolic(B, A, perm, NULL, info, icc, &f, &S));
  PetscCall((icc ? f->icc_symbolic : f->cholesky_symbolic)(B, S, perm, info));
  f->cholesky_numeric           = B->ops->choleskyfactornumeric;
  B->ops->choleskyfactornumeric = CholeskyFactorNumeric_GF;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LUFactorSymbolic_GF(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(LUSymbolic(B, A, row, col, info, false));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode ILUFactorSymbolic_GF(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(LUSymbolic(B, A, row, col, info, true));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode CholeskyFactorSymbolic_GF(Mat B, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(CholeskySymbolic(B, A, perm, info, false));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode ICCFactorSymbolic_GF(Mat B, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(CholeskySymbolic(B, A, perm, info, true));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MATSOLVERCUSPARSE for a seq type: seqaijcusparse's factor with our phases in front of its own.
PetscErrorCode MatGetFactor_SeqGF_cusparse(Mat A, MatFactorType ftype, Mat *B)
{
  GFFactor *f;

  PetscFunctionBegin;
  *B = NULL;
  if (A->boundtocpu || resolve_backend(gf(A)) != Backend::cuda) {
    PetscCall(PetscInfo(A, "gpuformats: %s on the host backend (or bound to the CPU): the cusparse factorization declines; PETSc's own serves it\n", ((PetscObject)A)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetFactor_seqaijcusparse_cusparse(A, ftype, B));
  PetscCall(PetscNew(&f));
  f->lu_symbolic       = (*B)->ops->lufactorsymbolic;
  f->ilu_symbolic      = (*B)->ops->ilufactorsymbolic;
  f->cholesky_symbolic = (*B)->ops->choleskyfactorsymbolic;
  f->icc_symbolic      = (*B)->ops->iccfactorsymbolic;
  PetscCall(PetscObjectContainerCompose((PetscObject)*B, "GFFactor", f, DestroyFactorData));
  if (f->lu_symbolic) (*B)->ops->lufactorsymbolic = LUFactorSymbolic_GF;
  if (f->ilu_symbolic) (*B)->ops->ilufactorsymbolic = ILUFactorSymbolic_GF;
  if (f->cholesky_symbolic) (*B)->ops->choleskyfactorsymbolic = CholeskyFactorSymbolic_GF;
  if (f->icc_symbolic) (*B)->ops->iccfactorsymbolic = ICCFactorSymbolic_GF;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

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

PetscErrorCode GFRegisterFactors(const char *seq_type)
{
  PetscFunctionBegin;
  for (MatFactorType ft : {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC}) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, seq_type, ft, MatGetFactor_SeqGF_cusparse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
