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
// -mat_gpuformats_trisolve levelset|sweeps|isai|auto (src/trisolve), ILU(k) and ICC(k) in the
// natural ordering: A's values, in ILU(k)'s pattern for k > 0 (trisolve::iluk_pattern, made on the
// host at the symbolic phase), are factored on the device by trisolve::Ilu0 (ours, level-scheduled;
// -mat_gpuformats_trisolve_factor cusparse: cuSPARSE's csrilu02), and the triangular solves are
// ours: level-scheduled exact solves of the factors, or products in our formats (Jacobi sweeps, or
// incomplete sparse approximate inverses). levelset is the default; with it, sweeps and isai,
// neither S nor the package's phases are made (Lean), unless the apply
// declines the pattern (a row without its diagonal): then the package's run, as for cusparse,
// which keeps cuSPARSE's solves. auto builds both at the first numeric phase, measures them on a
// probe (trisolve::AutoProbe) and keeps the one predicted faster for the numeric phases that
// follow. ICC(k) is applied the same way as the ILU(k) of A: for a symmetric A, U = D L^T and
// L U = L_c L_c^T (the IC factor L_c = L D^1/2), so the two are one preconditioner, and the sweeps
// and isai applies of it are symmetric too (MatSolveTranspose is MatSolve, as for ICC). PETSc's ICC
// shifts a non-positive pivot (-pc_factor_shift_type positive_definite, its default); this
// factorization, as aijcusparse's device IC(0), does not: it reports the zero pivot.
//
// The package is registered for the seq types by their exact names, so MatGetFactor() without a
// solver type offers it before PETSc's own. On the host backend (and for a matrix bound to the CPU)
// it declines, and MatGetFactor() goes on to MATSOLVERPETSC, which serves our types as the
// MATSEQAIJ they are (their names begin with "seqaij").
#include "gf_mat.hpp"

#include "formats/slot_map.hpp"
#include "trisolve/trisolve.hpp"

#include <petscdevice_cuda.h>

#include <algorithm>
#include <chrono>
#include <memory>

// Exported by libpetsc (aijcusparse.cu), declared only in PETSc's source tree.
PETSC_EXTERN PetscErrorCode MatGetFactor_seqaijcusparse_cusparse(Mat, MatFactorType, Mat *);

namespace gpuformats {
namespace {

using LUSymbolicFn  = PetscErrorCode (*)(Mat, Mat, IS, IS, const MatFactorInfo *);
using CholSymbolicFn = PetscErrorCode (*)(Mat, Mat, IS, const MatFactorInfo *);
using NumericFn     = PetscErrorCode (*)(Mat, Mat, const MatFactorInfo *);
using SolveFn       = PetscErrorCode (*)(Mat, Vec, Vec);

// An ILU(k) applied in our formats (-mat_gpuformats_trisolve sweeps|isai|auto), made by the symbolic phase.
struct TriState {
  std::unique_ptr<trisolve::TriangularApply> apply;
  std::unique_ptr<trisolve::Ilu0>            ilu;            // on M's pattern: A's for k = 0, with ILU(k)'s fill otherwise
  DeviceBuffer<double>                       m;              // M = L\U: A's values (scattered into M's pattern) factored in place
  DeviceBuffer<int32_t>                      a_to_m;         // k > 0: where each of A's entries sits in M's pattern
  DeviceBuffer<double>                       a_values;       // k > 0 without S (GFFactor::lean): A's values in CSR order
  int64_t                                    a_nnz      = 0;
  int                                        levels     = 0;  // k
  PetscObjectState                           nzstate    = -1; // A's pattern at the symbolic phase
  double                                     setup_ms   = 0;  // the last numeric phase (factor + operators + probe)
  double                                     a_bytes    = 0;  // one product of A in its format (bytes it reads)
  double                                     residual   = -1; // the last numeric phase's probe residual (-1: none)
  PetscInt                                   numerics   = 0;
  bool                                       icc        = false; // an ICC(k) factor (applied as the ILU(k) of A)
  bool                                       autom      = false; // -mat_gpuformats_trisolve auto
  bool                                       single     = false; // -pc_precision single: the exact solve's values in FP32
  double                                     margin     = 0;     // -mat_gpuformats_trisolve_auto_margin
  bool                                       decided    = false; // auto's choice is made (at the first numeric phase)
  bool                                       exact      = false; // auto chose the package's solves
  trisolve::AutoProbe                        probe{};              // what auto measured
  double                                     ratio      = 0;     // auto's predicted solve time, sweeps over exact
  double                                     auto_ms    = 0;     // what its measurement took
  double                                     apply_ms   = 0;     // symbolic phase: the apply made (its setup line in -ksp_view)
  double                                     ilu_ms     = 0;     // symbolic phase: the ILU(0)'s analysis of M's pattern
  double                                     factor_ms  = 0;     // the last numeric phase: the ILU(0) itself
};

// FP32 factor values (-pc_precision single): the exact apply's probe residual above this is said
// in -ksp_view and -info (FP64 values give ~1e-15; FP32 ones ~1e-7 times the factors' conditioning).
constexpr double kSingleResidualWarning = 1e-4;

// The cusparse package's phases a factor of ours wraps, composed on the factor (PetscNew'd).
struct GFFactor {
  LUSymbolicFn   lu_symbolic, ilu_symbolic;
  CholSymbolicFn cholesky_symbolic, icc_symbolic;
  NumericFn      lu_numeric, cholesky_numeric; // installed by the symbolic phase
  SolveFn        solve, solve_transpose;       // installed by the numeric phase
  PetscBool      device_values;                // the numeric phase reads S's device values
  PetscBool      lean;                         // ours alone: no S and no package phase (Lean)
  PetscBool      declined;                     // lean, but the apply declined the pattern: the package's phases instead ...
  char           declined_why[256];            // ... and why (-ksp_view)
  Vec            db, dx;                       // device copies of host vectors given to a solve
  TriState      *tri;                          // -mat_gpuformats_trisolve sweeps|isai
  double         shadow_ms, package_ms;        // the last symbolic phase: S's values, the package's own symbolic phase
  PetscErrorCode (*view)(Mat, PetscViewer);    // the factor's own MatView
};

PetscErrorCode DestroyFactorData(void *ctx)
{
  GFFactor *f = *(GFFactor **)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&f->db));
  PetscCall(VecDestroy(&f->dx));
  delete f->tri;
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

// S's values for a numeric phase: on the device or on the host, where that phase reads them.
PetscErrorCode ShadowValues(Mat A, const GFFactor &f, Mat *S)
{
  PetscFunctionBegin;
  if (f.device_values) PetscCall(GFShadowOnDevice(A, S));
  else PetscCall(GFShadowOnHost(A, S));
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

// ---- -mat_gpuformats_trisolve sweeps|isai ----

const char *TrisolveName(const TriState &t) { return t.autom ? "auto" : trisolve::mode_name(t.apply->mode()); }
bool        TriExact(const TriState &t) { return t.apply->mode() == trisolve::Mode::levelset; }

// x = the apply of b (transposed: of (L U)^T), device vectors: no cuSPARSE triangular solve.
PetscErrorCode RunApply(const trisolve::TriangularApply &ap, bool transpose, Vec b, Vec x)
{
  const PetscScalar *bb;
  PetscScalar       *xx;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayRead(b, &bb));
  PetscCall(VecCUDAGetArrayWrite(x, &xx));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  GF_TRY(PETSC_COMM_SELF, transpose ? ap.apply_transpose(bb, xx, stream) : ap.apply(bb, xx, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(ap.apply_flops()));
  PetscCall(VecCUDARestoreArrayWrite(x, &xx));
  PetscCall(VecCUDARestoreArrayRead(b, &bb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriSolve(Mat B, Vec b, Vec x)
{
  GFFactor *f;

  PetscFunctionBegin;
  PetscCall(GetFactorData(B, &f));
  PetscCall(RunApply(*f->tri->apply, false, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// (L U)^T x = b: exact solves of U^T and L^T; ICC's applies are symmetric (gf_factor.cpp's head).
PetscErrorCode TriSolveTranspose(Mat B, Vec b, Vec x)
{
  GFFactor *f;

  PetscFunctionBegin;
  PetscCall(GetFactorData(B, &f));
  if (f->tri->icc) {
    PetscCall(TriSolve(B, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(TriExact(*f->tri), PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuformats: MatSolveTranspose() is not offered with -mat_gpuformats_trisolve %s; use -mat_gpuformats_trisolve levelset (the default) or cusparse", TrisolveName(*f->tri));
  PetscCall(RunApply(*f->tri->apply, true, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// -ksp_view / -mat_view ::ascii_info: the apply, its operators and its costs, then the factor's own view.
PetscErrorCode TriView(Mat B, PetscViewer viewer)
{
  GFFactor         *f;
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(GetFactorData(B, &f));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && f->declined && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) PetscCall(PetscViewerASCIIPrintf(viewer, "gpuformats: cuSPARSE's triangular solves: ours declined this factor (%s)\n", f->declined_why));
  if (ascii && f->tri && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    std::vector<LayoutStat> lines;
    const TriState &t = *f->tri;
    t.apply->describe(lines);
    if (t.icc) PetscCall(PetscViewerASCIIPrintf(viewer, "gpuformats ICC(%d), as the ILU(%d) of A, apply (-mat_gpuformats_trisolve %s):\n", t.levels, t.levels, TrisolveName(t)));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "gpuformats ILU(%d) apply (-mat_gpuformats_trisolve %s):\n", t.levels, TrisolveName(t)));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (t.autom && t.decided)
      PetscCall(PetscViewerASCIIPrintf(viewer, "auto: %s (predicted solve time of the sweeps %.3g of the exact solves' %s margin %g; per GMRES iteration on a probe the residual falls to %.3g with the sweeps, %.3g with the exact solves, in %.3g ms, %.3g ms; measured in %.3f ms)\n", t.exact ? "cuSPARSE's triangular solves" : "the sweeps below",
                                       t.ratio, t.exact ? ">" : "<=", t.margin, t.probe.rate_approx, t.probe.rate_exact, 1e3 * t.probe.t_approx, 1e3 * t.probe.t_exact, t.auto_ms));
    for (const LayoutStat &l : lines) PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %s\n", l.key.c_str(), l.value.c_str()));
    if (t.a_bytes > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "apply cost: %.2f products of A (bytes read)\n", (double)t.apply->apply_bytes() / t.a_bytes));
    if (t.residual >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "probe residual: ||b - LU x|| / ||b|| = %.3g for x the apply of a probe b\n", t.residual));
    if (t.single && t.residual > kSingleResidualWarning) PetscCall(PetscViewerASCIIPrintf(viewer, "warning: with the factor's values in FP32 (-pc_precision single) the probe residual is %.3g, above %.3g: iterations may grow; -pc_precision double keeps FP64\n", t.residual, kSingleResidualWarning));
    if (t.levels > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(%d) pattern: %" PetscInt64_FMT " entries, %.2f times A's\n", t.levels, (PetscInt64)t.apply->nnz(), t.a_nnz ? (double)t.apply->nnz() / (double)t.a_nnz : 1.0));
    char factor[96];
    if (t.ilu->schedule() == trisolve::Ilu0Schedule::cusparse) PetscCall(PetscSNPrintf(factor, sizeof factor, "cuSPARSE's csrilu02"));
    else if (t.ilu->schedule() == trisolve::Ilu0Schedule::sync_free) PetscCall(PetscSNPrintf(factor, sizeof factor, "ours, sync-free"));
    else PetscCall(PetscSNPrintf(factor, sizeof factor, "ours, %s over L's %d levels", trisolve::ilu0_schedule_name(t.ilu->schedule()), (int)t.ilu->levels()));
    PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0) factorization: %s (-mat_gpuformats_trisolve_factor %s)\n", factor, trisolve::ilu0_schedule_name(t.ilu->schedule())));
    if (f->lean) PetscCall(PetscViewerASCIIPrintf(viewer, "symbolic phase: %.1f ms: this apply made %.1f, the ILU(0)'s analysis of M's pattern %.1f (the apply alone: no cusparse package phase)\n", f->package_ms + t.apply_ms + t.ilu_ms, t.apply_ms, t.ilu_ms));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "symbolic phase: %.1f ms: S's values %.1f, the cusparse package's symbolic phase %.1f, this apply made %.1f, the ILU(0)'s analysis of M's pattern %.1f\n", f->shadow_ms + f->package_ms + t.apply_ms + t.ilu_ms, f->shadow_ms, f->package_ms, t.apply_ms, t.ilu_ms));
    PetscCall(PetscViewerASCIIPrintf(viewer, "numeric phases: %" PetscInt_FMT ", the last %.3f ms (%sthe ILU(0) in M's pattern %.3f ms, the operators and the probe)\n", t.numerics, t.setup_ms, t.levels > 0 ? "A's values into ILU(k)'s pattern, " : "", t.factor_ms));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  if (f->lean && !(ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL))) {
    // B holds no host rows: the factor M lives on the device, in the apply
    PetscCheck(ascii, PetscObjectComm((PetscObject)B), PETSC_ERR_SUP, "gpuformats: this ILU/ICC factor lives on the device only (-mat_gpuformats_trisolve %s); view it with -ksp_view or ::ascii_info, or use -mat_gpuformats_trisolve cusparse for a factor with host rows", f->tri ? TrisolveName(*f->tri) : "");
    PetscCall(PetscViewerASCIIPrintf(viewer, "gpuformats: the factor lives on the device only (-mat_gpuformats_trisolve %s): no host rows to print\n", f->tri ? TrisolveName(*f->tri) : ""));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (f->view) PetscCall(f->view(B, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The numeric phase: A's current values (from the format, device to device) into M (k > 0:
// scattered into ILU(k)'s pattern, zeros at the fill), the ILU(0) of M in place (ILU(k) of A), the
// operators from M and their probe residual; the solves become the operators' products. auto: the
// first numeric phase also runs the package's own (cuSPARSE's factor and solve analysis), measures
// both and keeps the faster-predicted; later ones run only the kept one's.
PetscErrorCode TriNumeric(Mat B, Mat A, const MatFactorInfo *info)
{
  GFFactor          *f;
  Mat                S;
  const PetscScalar *a = NULL;
  cudaStream_t       stream;
  PetscObjectState   nz;

  PetscFunctionBegin;
  PetscCall(CheckOurs(A));
  PetscCall(GetFactorData(B, &f));
  TriState &t = *f->tri;
  PetscCall(MatGetNonzeroState(A, &nz));
  PetscCheck(nz == t.nzstate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "gpuformats: the matrix's nonzero pattern changed since the symbolic factorization; factor it again from MatILUFactorSymbolic() / MatICCFactorSymbolic()");
  using Ms      = std::chrono::duration<double, std::milli>; // no comma inside GF_TRY below
  const auto t0 = std::chrono::steady_clock::now();
  const bool ours = !(t.autom && t.decided && t.exact), theirs = t.autom && !(t.decided && !t.exact);
  int32_t    pivot = -1;
  if (ours) {
    // A's values in CSR order: gathered from the format itself (lean), or S's, gathered from it
    if (f->lean) PetscCall(GFSeqSync(A, Backend::cuda, PETSC_FALSE));
    else {
      PetscCall(GFShadowOnDevice(A, &S));
      PetscCall(MatSeqAIJCUSPARSEGetArrayRead(S, &a));
    }
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    double residual = -1;
    GF_TRY(PETSC_COMM_SELF, {
      if (f->lean) {
        double *dst = t.levels == 0 ? t.m.data() : t.a_values.data();
        gather_csr_values_cuda(*gf(A).diag->fmt, dst, stream);
        a = dst;
      }
      if (t.levels > 0) trisolve::scatter_to_pattern_cuda(a, t.a_nnz, t.a_to_m.data(), t.m.data(), t.apply->nnz(), stream);
      else if (!f->lean) GPUFORMATS_CUDA(cudaMemcpyAsync(t.m.data(), a, sizeof(double) * t.a_nnz, cudaMemcpyDeviceToDevice, stream));
      GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the factorization timed alone
      const auto tf = std::chrono::steady_clock::now();
      pivot = t.ilu->factor(t.m.data(), stream); // synchronises (its zero-pivot check)
      t.factor_ms = Ms(std::chrono::steady_clock::now() - tf).count();
      if (pivot < 0) {
        t.apply->set_values(t.m.data(), stream);
        residual = t.apply->probe_residual(t.m.data(), stream); // synchronises
      }
    });
    PetscCall(PetscLogGpuTimeEnd());
    if (!f->lean) PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(S, &a));
    t.residual = residual;
    if (t.single && residual > kSingleResidualWarning) PetscCall(PetscInfo(A, "gpuformats: FP32 factor values: probe residual %g (above %g)\n", residual, kSingleResidualWarning));
    // a zero pivot is the factorization's failure, as PETSc reports it (KSP: DIVERGED_PC_FAILED), not an error
    B->factorerrortype             = pivot < 0 ? MAT_FACTOR_NOERROR : MAT_FACTOR_NUMERIC_ZEROPIVOT;
    B->factorerror_zeropivot_value = 0.0;
    B->factorerror_zeropivot_row   = pivot < 0 ? 0 : pivot;
    if (pivot >= 0) PetscCall(PetscInfo(A, "gpuformats: ILU(%d) zero pivot in row %d\n", t.levels, (int)pivot));
  }
  SolveFn exact_solve = NULL, exact_transpose = NULL;
  if (theirs && pivot < 0) { // the package's numeric phase on S, with A's current values where it reads them (k > 0: the host)
    if (t.levels > 0) PetscCall(GFShadowOnHost(A, &S));
    else if (!ours) PetscCall(GFShadowOnDevice(A, &S));
    PetscCall((t.icc ? f->cholesky_numeric : f->lu_numeric)(B, S, info));
    exact_solve     = B->ops->solve;
    exact_transpose = B->ops->solvetranspose;
  }
  if (t.autom && !t.decided && pivot < 0) {
    const auto ta = std::chrono::steady_clock::now();
    PetscCall(GFTrisolveAutoMeasure(B, A, exact_solve, TriSolve, t.probe));
    t.auto_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ta).count();
    t.ratio   = trisolve::predicted_time_ratio(t.probe);
    t.exact   = !(t.ratio <= t.margin);
    t.decided = true;
    PetscCall(PetscInfo(A, "gpuformats: -mat_gpuformats_trisolve auto: %s (predicted solve time of the sweeps %g of the exact solves', margin %g)\n", t.exact ? "cuSPARSE's triangular solves" : "the sweeps", t.ratio, t.margin));
  }
  if (t.autom && t.exact) {
    if (exact_solve) f->solve = exact_solve, f->solve_transpose = exact_transpose;
  } else {
    f->solve                  = TriSolve;
    f->solve_transpose        = TriSolveTranspose;
    B->ops->matsolve          = NULL; // MatMatSolve column by column through the solve below
    B->ops->matsolvetranspose = NULL;
  }
  t.setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  t.numerics++;
  B->assembled    = PETSC_TRUE; // as the package's numeric phases mark it (k > 0 may not run one): a factored matrix
  B->preallocated = PETSC_TRUE;
  t.a_bytes              = gf(A).diag && gf(A).diag->fmt ? (double)gf(A).diag->fmt->bytes() + 16.0 * A->rmap->n : 0.0;
  B->ops->solve          = Solve_GF<&GFFactor::solve>;
  B->ops->solvetranspose = Solve_GF<&GFFactor::solve_transpose>;
  if (t.icc) B->ops->choleskyfactornumeric = TriNumeric;
  else B->ops->lufactornumeric = TriNumeric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// After the package's ILU(k) / ICC(k) symbolic phase (which keeps the factor a complete
// seqaijcusparse factor for its views and queries, and auto's fallback): M's pattern (A's, or
// ILU(k)'s fill on the host for k > 0), the operators for it, the ILU(0)'s analysis of it, and
// our numeric phase in front of the package's.
PetscErrorCode TriSymbolic(Mat B, Mat A, GFFactor &f, bool icc, int levels)
{
  const PetscInt *ai, *aj;
  PetscMemType    mt;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, NULL, &mt)); // the pattern
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  // the factor's options, read with its prefix as the MUMPS and SuperLU_DIST packages read -pc_precision
  PetscPrecision          precision = PETSC_PRECISION_DOUBLE;
  PetscInt                schedule  = 5; // auto
  trisolve::ExactOptions  exact;
  PetscInt                blocks_per_sm = exact.blocks_per_sm, backoff_ns = exact.backoff_ns;
  PetscInt                tile_levels = exact.tile_levels, tile_chunk = exact.tile_chunk, tile_rows = exact.tile_rows, tile_threads = exact.tile_threads, tile_kb = exact.tile_kb, tile_kc = exact.tile_kc;
  PetscInt                lines_chunk = exact.lines_chunk, lines_warps = exact.lines_warps, lines_spread = exact.lines_spread, lines_ring = exact.lines_ring;
  const char *const       schedules[] = {"tiles", "syncfree", "levels", "graph", "lines", "auto"};
  // -mat_gpuformats_trisolve_factor: in trisolve::Ilu0Schedule's order
  const char *const       factors[]   = {"levels", "graph", "syncfree", "cusparse"};
  PetscInt                factor      = (PetscInt)trisolve::kIlu0Schedule;
  PetscOptionsBegin(PetscObjectComm((PetscObject)B), ((PetscObject)B)->prefix, "gpuformats triangular solves", "Mat");
  PetscCall(PetscOptionsEnum("-pc_precision", "Precision of the factor's values in the triangular solves of -mat_gpuformats_trisolve levelset (single: FP32 values, FP64 diagonal, arithmetic and vectors)", "MATSOLVERCUSPARSE", PetscPrecisionTypes, (PetscEnum)precision, (PetscEnum *)&precision, NULL));
  PetscCall(PetscOptionsEList("-mat_gpuformats_trisolve_schedule", "How the triangular solves of -mat_gpuformats_trisolve levelset run on the device: tiles (one launch per triangle, a block solving a tile's levels in shared memory), syncfree (one launch per triangle, each row waits for the rows it reads), levels (one launch per level), graph (those launches from a CUDA graph), lines (one launch per triangle, a thread solving a line of rows, the lines pipelined; tiles where a triangle has no lines) or auto (lines where a triangle has lines that fill the SMs, a 3D grid's; tiles where not)", "MATSOLVERCUSPARSE", schedules, 6, schedules[schedule], &schedule, NULL));
  PetscCall(PetscOptionsEList("-mat_gpuformats_trisolve_factor", "How the device ILU(0) of -mat_gpuformats_trisolve levelset|sweeps|isai|auto (and ILU(k) as the ILU(0) of its fill) runs: levels (ours: a launch per level of L), graph (those launches from a CUDA graph), syncfree (ours: one launch, each row waiting for the rows it reads, no analysis) or cusparse (cuSPARSE's csrilu02)", "MATSOLVERCUSPARSE", factors, 4, factors[factor], &factor, NULL));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_tile_levels", "tiles: levels per tile (0: chosen from the factor's levels)", "MATSOLVERCUSPARSE", tile_levels, &tile_levels, NULL, 0, 64));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_tile_chunk", "tiles: a tile's rows span this many times the farthest a row reads back, a 3D grid's planes (0: chosen)", "MATSOLVERCUSPARSE", tile_chunk, &tile_chunk, NULL, 0, 1 << 20));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_tile_rows", "tiles: rows per tile at most", "MATSOLVERCUSPARSE", tile_rows, &tile_rows, NULL, 1, 8192));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_tile_threads", "tiles: threads per block (256 or 512)", "MATSOLVERCUSPARSE", tile_threads, &tile_threads, NULL, 256, 512));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_tile_kb", "tiles: the tiles' order is band * kb + chunk * kc", "MATSOLVERCUSPARSE", tile_kb, &tile_kb, NULL, 1, 1024));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_tile_kc", "tiles: the tiles' order is band * kb + chunk * kc", "MATSOLVERCUSPARSE", tile_kc, &tile_kc, NULL, 1, 1024));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_lines_chunk", "lines: rows per line (0: the most frequent short distance of the factor's pattern, a grid's line)", "MATSOLVERCUSPARSE", lines_chunk, &lines_chunk, NULL, 0, 1 << 20));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_lines_warps", "lines: warps of 32 lines per block (0: the fewest that give each SM a block, at most 8)", "MATSOLVERCUSPARSE", lines_warps, &lines_warps, NULL, 0, 8));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_lines_spread", "lines: the most the start steps of a warp's lines may differ", "MATSOLVERCUSPARSE", lines_spread, &lines_spread, NULL, 0, 1 << 20));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_lines_ring", "lines: steps a block keeps its results in shared memory (a power of two; reads farther back go to global memory)", "MATSOLVERCUSPARSE", lines_ring, &lines_ring, NULL, 1, 1024));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_blocks_per_sm", "syncfree: resident blocks per SM taking row blocks in turn (0: one block per row block); tiles: blocks per SM sharing its shared memory", "MATSOLVERCUSPARSE", blocks_per_sm, &blocks_per_sm, NULL, 0, 64));
  PetscCall(PetscOptionsRangeInt("-mat_gpuformats_trisolve_backoff_ns", "syncfree: the longest sleep between two polls of a row not yet solved, in ns (0: none)", "MATSOLVERCUSPARSE", backoff_ns, &backoff_ns, NULL, 0, 100000));
  PetscOptionsEnd();
  exact.blocks_per_sm = (int)blocks_per_sm;
  exact.backoff_ns    = (int)backoff_ns;
  PetscCheck(precision == PETSC_PRECISION_SINGLE || precision == PETSC_PRECISION_DOUBLE, PetscObjectComm((PetscObject)B), PETSC_ERR_USER_INPUT, "gpuformats: -pc_precision takes single or double for the triangular solves");
  exact.single   = precision == PETSC_PRECISION_SINGLE;
  PetscCheck((lines_ring & (lines_ring - 1)) == 0, PetscObjectComm((PetscObject)B), PETSC_ERR_ARG_OUTOFRANGE, "gpuformats: -mat_gpuformats_trisolve_lines_ring %" PetscInt_FMT " is not a power of two", lines_ring);
  exact.lines_chunk = (int)lines_chunk, exact.lines_warps = (int)lines_warps, exact.lines_spread = (int)lines_spread, exact.lines_ring = (int)lines_ring;
  exact.schedule = schedule == 5 ? trisolve::Schedule::automatic : schedule == 4 ? trisolve::Schedule::lines : schedule == 3 ? trisolve::Schedule::graph : schedule == 2 ? trisolve::Schedule::levels : schedule == 1 ? trisolve::Schedule::sync_free : trisolve::Schedule::tiles;
  const trisolve::Ilu0Schedule factor_schedule = (trisolve::Ilu0Schedule)factor;
  exact.tile_levels = (int)tile_levels, exact.tile_chunk = (int)tile_chunk, exact.tile_rows = (int)tile_rows, exact.tile_threads = (int)tile_threads, exact.tile_kb = (int)tile_kb, exact.tile_kc = (int)tile_kc;
  const PetscInt mode_option = gf(A).opt.trisolve;
  // Our solves are the default for ILU(0) and ICC(k): at or above aijcusparse's time to solution
  // on every ILU(0) case measured (1.07-1.64x, bench/results/h200/trisolve-auto-schedule/); on ex45
  // ICC(1) ours converged in 49 iterations where cuSPARSE's solves (aijcusparse's too) stopped at
  // 10000. ILU(k > 0) by default takes ours only where the lines schedule takes both triangles (a
  // 3D grid's; ExactOptions::lines_required) and declines to cuSPARSE's elsewhere: its factor has
  // many more levels (24640 at ksp ex45 128^3 ILU(1)), and tiles, bound by the time per level, gave
  // 0.40-0.78x aijcusparse's KSPSolve against cuSPARSE's 0.98-1.07x (ILU(1) on ex45, ex14, ex19,
  // convection-diffusion; ILU(2) on ex45), where lines gave 1.17x on ex45 128^3 ILU(1).
  const bool     iluk_default = levels > 0 && !icc && !gf(A).opt.trisolve_set && mode_option == kTrisolveLevelset && exact.schedule == trisolve::Schedule::automatic;
  exact.lines_required        = iluk_default;
  // ILU(0) takes ours by default except where a triangle's thin levels of long rows predict them
  // slower than cuSPARSE's (trisolve::exact_declines: a mesh graph in its natural order). ICC(0)
  // keeps ours there: on a symmetric mesh graph (1.5 M nonzeros, one H100) CG with cuSPARSE's ICC(0),
  // as aijcusparse's, stalled at 400 iterations (21 s) where ours converged in 5 (0.35 s).
  const bool     exact_default = levels == 0 && !icc && !gf(A).opt.trisolve_set && mode_option == kTrisolveLevelset && exact.schedule == trisolve::Schedule::automatic;
  if (exact.single && mode_option != kTrisolveLevelset) PetscCall(PetscInfo(A, "gpuformats: -pc_precision single applies to -mat_gpuformats_trisolve levelset; the %s apply keeps FP64\n", GFTrisolveModes[mode_option]));
  auto t = std::make_unique<TriState>();
  PetscCall(MatGetNonzeroState(A, &t->nzstate));
  const CsrView view{(int32_t)A->rmap->n, (int32_t)A->cmap->n, (int64_t)ai[A->rmap->n], ai, aj, nullptr};
  std::string declined; // lean: why the apply cannot serve this pattern (the package's phases then run)
  bool        thin = false; // declined by exact_declines
  PetscInt    rmax = 0;     // A's longest row as its assembly counted it (exact_declines then skips its scan)
  if (exact_default) PetscCall(MatSeqAIJGetMaxRowNonzeros(A, &rmax));
  GF_TRY(PETSC_COMM_SELF, ([&] { // parenthesised: the braces hold commas
   try {
    if (iluk_default && f.lean) declined = trisolve::lines_refuse_every_fill(view); // before the fill (a decline after it cost ex19 256^2 ILU(1) 0.24 s)
    if (exact_default && f.lean) thin = !(declined = trisolve::exact_declines(view, rmax)).empty();
    if (!declined.empty()) return;
    const trisolve::Mode  mode = mode_option == kTrisolveLevelset ? trisolve::Mode::levelset : mode_option == 2 ? trisolve::Mode::isai : trisolve::Mode::sweeps; // sweeps for auto
    trisolve::FillPattern fill;
    if (levels > 0) fill = trisolve::iluk_pattern(view, levels);
    const CsrView pattern = levels > 0 ? CsrView{view.nrows, view.ncols, fill.nnz(), fill.rowptr.data(), fill.colidx.data(), nullptr} : view;
    const auto    t0      = std::chrono::steady_clock::now();
    t->apply = std::make_unique<trisolve::TriangularApply>(pattern, mode, (int)gf(A).opt.trisolve_sweeps, gf(A).diag->derived_ops ? *gf(A).diag->derived_ops : *gf(A).ops, Backend::cuda, stream, exact);
    const auto    t1      = std::chrono::steady_clock::now();
    const std::vector<int32_t> *level_ptr = nullptr;
    const int32_t              *order     = t->apply->lower_level_order(&level_ptr); // levelset: L's levels, found by the apply
    t->ilu   = std::make_unique<trisolve::Ilu0>(t->apply->nrows(), t->apply->nnz(), t->apply->rowptr(), t->apply->colidx(), Backend::cuda, stream, factor_schedule, order, level_ptr); // synchronises
    t->apply_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    t->ilu_ms   = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    t->m.resize(std::max<int64_t>(t->apply->nnz(), 1));
    if (levels > 0) {
      if (f.lean) t->a_values.resize(std::max<int64_t>(view.nnz, 1));
      t->a_to_m.resize(std::max<int64_t>(view.nnz, 1));
      GPUFORMATS_CUDA(cudaMemcpyAsync(t->a_to_m.data(), fill.a_to_m.data(), sizeof(int32_t) * fill.a_to_m.size(), cudaMemcpyHostToDevice, stream));
      GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // fill is freed on return
    }
   } catch (const Error &e) {
    if (!f.lean || e.kind != ErrorKind::bad_input) throw;
    declined = e.what();
   }
  })());
  if (!declined.empty()) { // a row without its diagonal (cuSPARSE's phases, as aijcusparse's: a zero pivot), ILU(k)'s lines refused, or thin levels
    if (iluk_default) declined = "ILU(" + std::to_string(levels) + ") takes our solves where the lines schedule takes both triangles; " + declined + "; -mat_gpuformats_trisolve levelset takes ours here";
    else if (thin) declined = "ILU(0): ours predicted slower than cuSPARSE's; " + declined + "; -mat_gpuformats_trisolve levelset takes ours";
    PetscCall(PetscInfo(A, "gpuformats: %s; the cusparse package's factorization and solves instead\n", declined.c_str()));
    PetscCall(PetscStrncpy(f.declined_why, declined.c_str(), sizeof f.declined_why));
    f.declined = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (f.lean && view.nnz > 0) B->info.fill_ratio_needed = (PetscReal)t->apply->nnz() / (PetscReal)view.nnz;
  t->a_nnz    = view.nnz;
  t->levels   = levels;
  t->icc      = icc;
  t->autom    = mode_option == 3;
  t->single   = exact.single && mode_option == kTrisolveLevelset;
  t->margin   = gf(A).opt.trisolve_auto_margin >= 0 ? (double)gf(A).opt.trisolve_auto_margin : trisolve::auto_margin(levels);
  f.tri       = t.release();
  if (icc) B->ops->choleskyfactornumeric = TriNumeric;
  else B->ops->lufactornumeric = TriNumeric;
  if (B->ops->view != TriView) f.view = B->ops->view;
  B->ops->view = TriView;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// MatGetOrdering() of the seq types. The natural ordering on the cuda backend is two identity
// strides: the factorizations that follow there (ours, the cusparse package's) test it with
// ISIdentity() and never read its indices, where PETSc's MatGetOrdering_Natural() fills two arrays
// of n indices (101 ms of ksp ex45 256^3's PCSetUp, H200: bench/results/h200/trisolve-factor/).
// Every other ordering, and the host backend, as PETSc's MatGetOrdering() orders an AIJ matrix.
PetscErrorCode GFGetOrdering(Mat A, MatOrderingType type, IS *rperm, IS *cperm)
{
  PetscBool natural;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, MATORDERINGNATURAL, &natural));
  PetscCheck(A->rmap->n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Must be square matrix, rows %" PetscInt_FMT " columns %" PetscInt_FMT, A->rmap->n, A->cmap->n);
  PetscCall(PetscLogEventBegin(MAT_GetOrdering, A, 0, 0, 0));
  if (natural && resolve_backend(gf(A)) == Backend::cuda && !A->boundtocpu) {
    PetscCall(ISCreateStride(PETSC_COMM_SELF, A->rmap->n, 0, 1, rperm));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, A->rmap->n, 0, 1, cperm));
    PetscCall(ISSetIdentity(*rperm));
    PetscCall(ISSetIdentity(*cperm));
  } else {
    PetscErrorCode (*order)(Mat, MatOrderingType, IS *, IS *) = NULL;
    PetscFunctionList list;
    PetscCall(MatOrderingRegisterAll());
    PetscCall(MatGetOrderingList(&list));
    PetscCall(PetscFunctionListFind(list, type, &order));
    PetscCheck(order, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown or unregistered type: %s", type);
    PetscCall((*order)(A, type, rperm, cperm));
  }
  PetscCall(ISSetPermutation(*rperm));
  PetscCall(ISSetPermutation(*cperm));
  PetscCall(PetscLogEventEnd(MAT_GetOrdering, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {

// Whether an incomplete factorization is in the natural ordering and not asked to run on the
// host: the cusparse package then factors ILU(0) / IC(0) on the device, as its
// MatILUFactorSymbolic_SeqAIJCUSPARSE / MatICCFactorSymbolic_SeqAIJCUSPARSE decide (PETSc 3.26), and
// -mat_gpuformats_trisolve applies ILU(k) / ICC(k) for every k. A wrong answer about the package
// costs time, never correctness: S's values are current on the side it marks.
PetscErrorCode NaturalOnDevice(IS row, IS col, const MatFactorInfo *info, PetscBool *natural)
{
  PetscBool rid = PETSC_FALSE, cid = PETSC_FALSE;

  PetscFunctionBegin;
  *natural = PETSC_FALSE;
  if (info->factoronhost) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISIdentity(row, &rid));
  if (col) PetscCall(ISIdentity(col, &cid));
  else cid = PETSC_TRUE;
  *natural = (rid && cid) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether our apply serves the factor alone (-mat_gpuformats_trisolve levelset, sweeps or isai on
// an incomplete factor in the natural ordering on the device): then neither S nor the package's
// phases are made. The package's ILU(0) symbolic phase (a host copy of A's pattern, cuSPARSE's
// ILU(0) and SpSV analyses) and S (a SeqAIJ assembled on the host, its CSR uploaded) cost 1.66 s and
// 0.80 s of ksp ex45's 3.0 s symbolic phase at 256^3 (H200, bench/results/h200/trisolve-setup/),
// for solves that would never run. cusparse keeps the package; auto measures its solves.
bool Lean(Mat A, bool incomplete, PetscBool natural)
{
  const PetscInt m = gf(A).opt.trisolve;
  return incomplete && natural && (m == 1 || m == 2 || m == kTrisolveLevelset);
}

// What every symbolic phase does first: whether an incomplete factorization is natural
// (NaturalOnDevice) and, where allowed, lean (Lean); unless lean, S, with its values where the
// package's phases will read them (on the device for ILU(0)/IC(0) in the natural ordering; col
// NULL for Cholesky/ICC).
PetscErrorCode BeginSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info, bool incomplete, bool cholesky, bool allow_lean, GFFactor **f, Mat *S, PetscBool *natural)
{
  PetscFunctionBegin;
  PetscCall(CheckOurs(A));
  PetscCall(GetFactorData(B, f));
  *natural = PETSC_FALSE;
  if (incomplete) PetscCall(NaturalOnDevice(row, col, info, natural));
  (*f)->device_values = (*natural && info->levels == 0) ? PETSC_TRUE : PETSC_FALSE;
  (*f)->lean          = allow_lean && Lean(A, incomplete, *natural) ? PETSC_TRUE : PETSC_FALSE;
  if (allow_lean) (*f)->declined = PETSC_FALSE; // else the pass after a decline: the package's phases alone
  *S                  = NULL;
  if (!(*f)->lean) PetscCall(ShadowValues(A, **f, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The lean symbolic phase, in place of the package's: B a factor of A's size that holds no host
// factor (the apply keeps M on the device), with the fill PETSc reports for it.
PetscErrorCode LeanSymbolic(Mat B, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJSetPreallocation(B, MAT_SKIP_ALLOCATION, NULL)); // no host arrays (TriView serves B's views)
  B->assembled                  = PETSC_FALSE;
  B->info.factor_mallocs        = 0;
  B->info.fill_ratio_given      = info->fill;
  B->info.fill_ratio_needed     = 1.0; // TriSymbolic sets ILU(k)'s
  B->ops->lufactornumeric       = NULL;
  B->ops->choleskyfactornumeric = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What every symbolic phase does last, after the package's own on S: our numeric phase in front of
// the one it installed, and for an incomplete factor in the natural ordering with
// -mat_gpuformats_trisolve, the apply in our formats.
PetscErrorCode EndSymbolic(Mat B, Mat A, GFFactor &f, const MatFactorInfo *info, bool incomplete, PetscBool natural, bool cholesky)
{
  PetscFunctionBegin;
  if (cholesky) {
    f.cholesky_numeric            = B->ops->choleskyfactornumeric;
    B->ops->choleskyfactornumeric = CholeskyFactorNumeric_GF;
  } else {
    f.lu_numeric            = B->ops->lufactornumeric;
    B->ops->lufactornumeric = LUFactorNumeric_GF;
  }
  delete f.tri;
  f.tri = nullptr;
  if (f.declined && B->ops->view != TriView) f.view = B->ops->view, B->ops->view = TriView; // -ksp_view says why cuSPARSE's solves run
  if (gf(A).opt.trisolve == 0 || f.declined) PetscFunctionReturn(PETSC_SUCCESS);
  if (incomplete && natural) PetscCall(TriSymbolic(B, A, f, cholesky, (int)info->levels));
  else PetscCall(PetscInfo(A, "gpuformats: -mat_gpuformats_trisolve applies to ILU(k) and ICC(k) in the natural ordering on the device; this %s keeps cuSPARSE's triangular solves\n", incomplete ? "factorization (another ordering, or factored on the host)" : "complete factorization"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ms since t0, the device's work included (the symbolic phase's parts in -ksp_view).
PetscErrorCode SymbolicLap(std::chrono::steady_clock::time_point t0, double *ms)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The symbolic phases: S and the package's own on it (package(S)), or the lean one, between the
// two above; a lean phase whose apply declined the pattern runs again with the package's.
template <class Package>
PetscErrorCode Symbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info, bool incomplete, bool cholesky, Package &&package, GFFactor **pf)
{
  Mat       S;
  PetscBool natural;

  PetscFunctionBegin;
  for (int pass = 0; pass < 2; ++pass) { // pass 1: the apply declined, the package's phases as for cusparse
    const auto t0 = std::chrono::steady_clock::now();
    PetscCall(BeginSymbolic(B, A, row, col, info, incomplete, cholesky, pass == 0, pf, &S, &natural));
    GFFactor &f = **pf;
    PetscCall(SymbolicLap(t0, &f.shadow_ms));
    const auto t1 = std::chrono::steady_clock::now();
    if (f.lean) PetscCall(LeanSymbolic(B, info));
    else PetscCall(package(S));
    PetscCall(SymbolicLap(t1, &f.package_ms));
    PetscCall(EndSymbolic(B, A, f, info, incomplete, natural, cholesky));
    if (!f.declined) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LUSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info, bool ilu)
{
  GFFactor *f = NULL;

  PetscFunctionBegin;
  PetscCall(Symbolic(B, A, row, col, info, ilu, false, [&](Mat S) { return (ilu ? f->ilu_symbolic : f->lu_symbolic)(B, S, row, col, info); }, &f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CholeskySymbolic(Mat B, Mat A, IS perm, const MatFactorInfo *info, bool icc)
{
  GFFactor *f = NULL;

  PetscFunctionBegin;
  PetscCall(Symbolic(B, A, perm, NULL, info, icc, true, [&](Mat S) { return (icc ? f->icc_symbolic : f->cholesky_symbolic)(B, S, perm, info); }, &f));
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

const char *const GFTrisolveModes[] = {"cusparse", "sweeps", "isai", "auto", "levelset"};

PetscErrorCode GFRegisterFactors(const char *seq_type)
{
  PetscFunctionBegin;
  for (MatFactorType ft : {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC}) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, seq_type, ft, MatGetFactor_SeqGF_cusparse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
