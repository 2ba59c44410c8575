// COO assembly as GPU applications do it, with any matrix type (-mat_type): a 3D 27-point Poisson
// operator on an n^3 grid (Dirichlet boundary eliminated: 26 on the diagonal, -1 to each neighbour)
// given to MatSetPreallocationCOO / MatSetValuesCOO row by row, every entry split into -dup duplicates,
// the values from host memory or (-device_values) from a CUDA vector's array; on several ranks each
// gives its own rows (-shift_rows s: rows s further on, some owned by another rank). Times:
// the preallocation, the first MatSetValuesCOO (which builds the device copy), the mean of -repeat
// more, and the mean MatMult; then solves A x = 1 with the options' KSP and PC (-ksp_type cg
// -pc_type jacobi) unless -solve 0. One JSON line on stdout; -log_view for the events.
//   coo_poisson -n 160 -mat_type aijcusparse -vec_type cuda [-device_values] [-log_view]
#include <petscdevice_cuda.h>
#include <petscksp.h>

#include <vector>

#include <nlohmann/json.hpp>

using Json = nlohmann::ordered_json; // the JSON lines, members in this order

static PetscErrorCode Sync() // device work done, where there is a device, on every rank
{
  static int devices = -1;

  PetscFunctionBegin;
  if (devices < 0 && cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices > 0) PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       n = 64, dup = 1, repeat = 10, shift = 0;
  PetscBool      device_values = PETSC_FALSE, solve = PETSC_TRUE;
  Mat            A;
  Vec            x, b, dv = nullptr;
  KSP            ksp;
  MatType        type;
  PetscLogDouble t0, t1, t_prealloc, t_first, t_values, t_mult;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, "COO assembly of a 27-point Poisson operator"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dup", &dup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device_values", &device_values, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-shift_rows", &shift, NULL));
  const PetscInt N = n * n * n;
  // This rank's rows: its share of the matrix's (PETSc's split), moved by -shift_rows (wrapping), so
  // that some entries belong to another rank (MatSetValuesCOO sends them).
  PetscLayout rows;
  PetscInt    lo, hi;
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscLayoutCreate(PETSC_COMM_WORLD, &rows));
  PetscCall(PetscLayoutSetSize(rows, N));
  PetscCall(PetscLayoutSetUp(rows));
  PetscCall(PetscLayoutGetRange(rows, &lo, &hi));
  PetscCall(PetscLayoutDestroy(&rows));

  std::vector<PetscInt>    ci, cj;
  std::vector<PetscScalar> cv;
  ci.reserve((size_t)(hi - lo) * 27 * dup);
  cj.reserve((size_t)(hi - lo) * 27 * dup);
  cv.reserve((size_t)(hi - lo) * 27 * dup);
  for (PetscInt r = lo; r < hi; ++r) {
    const PetscInt row = ((r + shift) % N + N) % N, z = row / (n * n), y = (row / n) % n, x0 = row % n;
    for (PetscInt dz = -1; dz <= 1; ++dz)
      for (PetscInt dy = -1; dy <= 1; ++dy)
        for (PetscInt dx = -1; dx <= 1; ++dx) {
          const PetscInt zz = z + dz, yy = y + dy, xx = x0 + dx;
          if (zz < 0 || zz >= n || yy < 0 || yy >= n || xx < 0 || xx >= n) continue;
          const PetscScalar v = (dx || dy || dz) ? -1.0 : 26.0;
          for (PetscInt d = 0; d < dup; ++d) {
            ci.push_back(row);
            cj.push_back((zz * n + yy) * n + xx);
            cv.push_back(v / (PetscScalar)dup);
          }
        }
  }
  const PetscCount ncoo = (PetscCount)ci.size();

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscTime(&t0));
  PetscCall(MatSetPreallocationCOO(A, ncoo, ci.data(), cj.data()));
  PetscCall(PetscTime(&t1));
  t_prealloc = t1 - t0;
  const PetscScalar *vals = cv.data();
  if (device_values) {
    PetscScalar *h;
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, (PetscInt)ncoo, &dv));
    PetscCall(VecGetArrayWrite(dv, &h));
    std::copy(cv.begin(), cv.end(), h);
    PetscCall(VecRestoreArrayWrite(dv, &h));
    PetscCall(VecCUDAGetArrayRead(dv, &vals));
  }
  PetscCall(Sync());
  PetscCall(PetscTime(&t0));
  PetscCall(MatSetValuesCOO(A, vals, INSERT_VALUES));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(MatMult(A, b, x)); // the first product: a format that builds at first use builds here
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  t_first = t1 - t0;
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < repeat; ++r) PetscCall(MatSetValuesCOO(A, vals, INSERT_VALUES));
  PetscCall(MatMult(A, b, x)); // the values are in use after each (one product counted apart)
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  PetscLogDouble t_set_and_mult = t1 - t0;
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < 20; ++r) PetscCall(MatMult(A, b, x));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  t_mult   = (t1 - t0) / 20;
  t_values = (t_set_and_mult - t_mult) / PetscMax(repeat, 1);
  if (dv) PetscCall(VecCUDARestoreArrayRead(dv, &vals));

  PetscInt           its = 0;
  PetscLogDouble     t_solve = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PCType             pctype  = "";
  if (solve) {
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecSet(x, 0.0));
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t_solve = t1 - t0;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &pctype));
    const Json line = {{"type", type}, {"n", n}, {"ranks", size}, {"pc", pctype}, {"ksp_solve_s", t_solve}, {"iterations", its}, {"reason", (int)reason}};
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", line.dump().c_str()));
    PetscCall(KSPDestroy(&ksp));
  }
  const Json line = {{"type", type}, {"n", n}, {"ranks", size}, {"shift_rows", shift}, {"rows", N}, {"coo_entries", (int64_t)ncoo}, {"dup", dup}, {"device_values", (bool)device_values}, {"preallocation_s", t_prealloc}, {"first_values_and_product_s", t_first}, {"values_s", t_values}, {"mult_s", t_mult}, {"values_in_products", t_values / t_mult}};
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", line.dump().c_str()));
  PetscCall(VecDestroy(&dv));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
