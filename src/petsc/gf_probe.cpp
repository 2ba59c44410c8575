// -mat_gpuformats_trisolve auto's measurement (gf_factor.cpp decides with it): a few iterations
// of GMRES with each apply, run with PETSc's private KSP and PC headers (the events it pauses),
// which nothing else of the glue needs.
#include "gf_mat.hpp"

#include "trisolve/trisolve.hpp"

#include <petsc/private/kspimpl.h>
#include <petsc/private/pcimpl.h>
#include <petscdevice_cuda.h>

#include <chrono>
#include <cmath>
#include <vector>

namespace gpuformats {
namespace {

// auto's measurement (trisolve::AutoProbe), both applies built: kAutoIterations of right-
// preconditioned GMRES from the probe with each, the apply as a shell PC, timed (synchronised). The
// solver's own events are paused, so -log_view's counts stay the application's.
struct AutoShell {
  Mat B;
  PetscErrorCode (*solve)(Mat, Vec, Vec);
};
PetscErrorCode AutoShellApply(PC pc, Vec x, Vec y)
{
  AutoShell *s;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &s));
  PetscCall(s->solve(s->B, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode GFTrisolveAutoMeasure(Mat B, Mat A, PetscErrorCode (*exact)(Mat, Vec, Vec), PetscErrorCode (*approx)(Mat, Vec, Vec), trisolve::AutoProbe &p)
{
  Vec         b, x;
  KSP         ksp;
  PC          pc;
  PetscReal   nb, nr;
  PetscInt    its;
  PetscScalar *v;
  AutoShell   shell{B, NULL};

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  const std::vector<double> probe = trisolve::probe_vector((int32_t)A->rmap->n);
  PetscCall(VecCUDAGetArrayWrite(b, &v));
  PetscCallCUDA(cudaMemcpy(v, probe.data(), sizeof(double) * probe.size(), cudaMemcpyHostToDevice));
  PetscCall(VecCUDARestoreArrayWrite(b, &v));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, trisolve::kAutoIterations));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_DETERMINE, trisolve::kAutoIterations));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, &shell));
  PetscCall(PCShellSetApply(pc, AutoShellApply));
  for (PetscLogEvent e : {KSP_SetUp, KSP_Solve, PC_Apply, MAT_Mult}) PetscCall(PetscLogEventDeactivatePush(e));
  for (int which = 0; which < 2; ++which) {
    shell.solve = which ? approx : exact;
    PetscCallCUDA(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    PetscCall(KSPSolve(ksp, b, x));
    PetscCallCUDA(cudaDeviceSynchronize());
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &nr));
    const double rate = its > 0 && nb > 0 ? std::pow((double)(nr / nb), 1.0 / (double)its) : (nr == 0 ? 0.0 : NAN);
    (which ? p.rate_approx : p.rate_exact) = rate;
    (which ? p.t_approx : p.t_exact)       = its > 0 ? t / (double)its : NAN;
  }
  for (PetscLogEvent e : {KSP_SetUp, KSP_Solve, PC_Apply, MAT_Mult}) PetscCall(PetscLogEventDeactivatePop(e));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpuformats
