// A linear solve on one matrix, for comparing solvers and preconditioners (ILU variants) across
// matrix types: a Matrix Market file, a PETSc binary file or a generator spec (src/matgen) as a
// PETSc matrix of the type -mat_type names (MatSetFromOptions, as an application's matrix takes
// it: aij, aijcusparse, or a gpuformats type loaded with -dll_append), b = A * ones, x = 0,
// KSPSetFromOptions (PETSc's defaults: GMRES + ILU(0) on one rank), KSPSolve. One line:
//
//   ksp_matrix: <name> n <n> nnz <nnz> its <its> reason <reason> relres <||b-Ax||/||b||> err <||x-1||_inf>
//
// Exit 0 whether or not the solve converged (the reason says it); a non-square matrix prints a
// skip line. -repeat K solves K times from x = 0 (timings in -log_view), the line is the last's.
// -fill_diagonal stores explicit zeros on missing diagonals (graphs, LPs), which ILU needs.
// -dirichlet S fixes every S-th unknown at 1 before each solve, as FEM codes impose Dirichlet
// conditions (MatZeroRowsColumns with b fixed for x = ones; -dirichlet_rows: MatZeroRows with
// MAT_KEEP_NONZERO_PATTERN); the events DirichletFirst (the first solve's) and DirichletMult (the
// others') time it with the product after it.
// It calls nothing of gpuformats: the types come in through -dll_append, as in any application.
//
//   bin/test/ksp_matrix -f test/matrices/fidapm05.mtx -ksp_monitor
//   bin/test/ksp_matrix -f convdiff3d:n=100,pe=100 -dll_append $PWD/lib/libgpuformats.so
//     -mat_type evchyb -mat_gpuformats_trisolve sweeps -repeat 5 -log_view   (one command line)
#include "common/petsc_csr.hpp"

#include <petscksp.h>

#include <string>
#include <vector>

static const char help[] = "Solves A x = A * ones for one matrix and prints iterations, reason, residual and error.\n"
                           "  -f <file.mtx|file.petsc|file.bin|file.dat|generator spec>  the matrix (required)\n"
                           "  -repeat <K>       solve K times, x = 0 each time (default 1)\n"
                           "  -seed <s>         seed of random generators (default 1)\n"
                           "  -fill_diagonal    store explicit zeros where a row has no diagonal entry (ILU(0) needs one; add\n"
                           "                    -pc_factor_shift_type nonzero for the zero pivots); Matrix Market files and generators\n"
                           "  -dirichlet <S>    before each solve, fix every S-th unknown at 1: MatZeroRowsColumns (diagonal 1, b fixed)\n"
                           "  -dirichlet_rows   MatZeroRows with MAT_KEEP_NONZERO_PATTERN instead (keeps the solve's answer: b fixed)\n"
                           "  -mat_type <type>  the matrix type (default aij); with -dll_append lib/libgpuformats.so: evchyb, pjds, ...\n"
                           "Generators:\n";

// The name printed: a file's base name without its extension, or the generator spec.
static std::string matrix_name(const std::string &f, bool is_file)
{
  if (!is_file) return f;
  std::string b = f.substr(f.find_last_of('/') == std::string::npos ? 0 : f.find_last_of('/') + 1);
  return b.substr(0, b.find_last_of('.'));
}

// Rows of a square G with no stored diagonal entry; with `fill`, an explicit zero is inserted there.
static int64_t missing_diagonal(gpuformats::CsrMatrix &G, bool fill)
{
  int64_t              missing = 0;
  std::vector<int32_t> rowptr{0}, colidx;
  std::vector<double>  values;
  for (int32_t i = 0; i < G.nrows; ++i) {
    bool found = false;
    for (int32_t k = G.rowptr[i]; k < G.rowptr[i + 1]; ++k) found = found || G.colidx[k] == i;
    missing += !found;
    if (!fill) continue;
    for (int32_t k = G.rowptr[i]; k <= G.rowptr[i + 1]; ++k) { // the zero goes before the first larger column
      if (!found && (k == G.rowptr[i + 1] || G.colidx[k] > i)) {
        colidx.push_back(i);
        values.push_back(0.0);
        found = true;
      }
      if (k < G.rowptr[i + 1]) {
        colidx.push_back(G.colidx[k]);
        values.push_back(G.values[k]);
      }
    }
    rowptr.push_back((int32_t)colidx.size());
  }
  if (fill && missing) {
    G.rowptr.swap(rowptr);
    G.colidx.swap(colidx);
    G.values.swap(values);
  }
  return missing;
}

int main(int argc, char **argv)
{
  char        file[PETSC_MAX_PATH_LEN] = "";
  PetscBool   has_file = PETSC_FALSE, fill_diagonal = PETSC_FALSE, dirichlet_rows = PETSC_FALSE;
  PetscInt    repeat = 1, seed = 1, M, N, its = 0, dirichlet = 0;
  PetscLogEvent dirichlet_event, dirichlet_first;
  Mat         A      = NULL;
  Vec         x, b, ones, r;
  KSP         ksp;
  MatInfo     info;
  PetscReal   bnorm, rnorm, err;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;

  PetscCall(PetscInitialize(&argc, &argv, NULL, (std::string(help) + gpuformats::generator_help()).c_str()));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", file, sizeof(file), &has_file));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fill_diagonal", &fill_diagonal, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dirichlet", &dirichlet, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dirichlet_rows", &dirichlet_rows, NULL));
  PetscCall(PetscLogEventRegister("DirichletFirst", MAT_CLASSID, &dirichlet_first));
  PetscCall(PetscLogEventRegister("DirichletMult", MAT_CLASSID, &dirichlet_event));
  if (!has_file) {
    PetscBool help_only;
    PetscCall(PetscOptionsHasHelp(NULL, &help_only));
    if (help_only) { // -help alone: the text above, nothing to solve
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCheck(has_file && file[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give the matrix: -f <file.mtx|file.petsc|generator spec> (-help lists the generators)");
  PetscCheck(repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeat %" PetscInt_FMT " must be at least 1", repeat);
  PetscCheck(dirichlet >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dirichlet %" PetscInt_FMT " must be 0 (none) or a stride", dirichlet);
  const std::string f(file);
  const bool        binary = gftest::is_petsc_binary(f);
  const bool        mtx    = gftest::ends_with(f, ".mtx");
  const std::string name   = matrix_name(f, binary || mtx);

  if (binary) {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetType(A, MATAIJ));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatLoad(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(MatGetSize(A, &M, &N));
  } else {
    gpuformats::CsrMatrix G;
    PetscCall(gftest::read_csr(f, (uint64_t)seed, G));
    M = G.nrows;
    N = G.ncols;
    if (M == N) {
      const int64_t missing = missing_diagonal(G, fill_diagonal);
      if (missing && !fill_diagonal)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ksp_matrix: %s: %lld rows have no diagonal entry, which ILU/ICC refuse (-fill_diagonal stores zeros there)\n", name.c_str(), (long long)missing));
      PetscCall(gftest::aij_from_csr(G, &A, true));
    }
  }
  if (M != N) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ksp_matrix: %s skipped: not square (%" PetscInt_FMT " x %" PetscInt_FMT ")\n", name.c_str(), M, N));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));

  PetscCall(MatCreateVecs(A, &x, &b)); // of the matrix's vector type: CUDA vectors for the GPU types
  PetscCall(VecDuplicate(x, &ones));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(ones, 1.0));
  PetscCall(MatMult(A, ones, b));
  PetscCall(VecNorm(b, NORM_2, &bnorm));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  std::vector<PetscInt> fixed; // this rank's fixed unknowns
  if (dirichlet) {
    PetscInt rstart, rend;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; ++i)
      if (i % dirichlet == 0) fixed.push_back(i);
    if (dirichlet_rows) PetscCall(MatSetOption(A, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
  }
  for (PetscInt k = 0; k < repeat; ++k) {
    if (dirichlet) { // b - A ones stays 0: the rows (and columns) fixed for x = ones
      const PetscLogEvent ev = k ? dirichlet_event : dirichlet_first; // the first may set up what the others reuse
      PetscCall(PetscLogEventBegin(ev, A, 0, 0, 0));
      if (dirichlet_rows) PetscCall(MatZeroRows(A, (PetscInt)fixed.size(), fixed.data(), 1.0, ones, b));
      else PetscCall(MatZeroRowsColumns(A, (PetscInt)fixed.size(), fixed.data(), 1.0, ones, b));
      PetscCall(MatMult(A, ones, r)); // the first product after the change pays what it left
      PetscCall(PetscLogEventEnd(ev, A, 0, 0, 0));
    }
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, b, x));
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));

  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b)); // r = b - A x
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecAXPY(x, -1.0, ones)); // x - 1
  PetscCall(VecNorm(x, NORM_INFINITY, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ksp_matrix: %s n %" PetscInt_FMT " nnz %.0f its %" PetscInt_FMT " reason %s relres %.3e err %.3e\n", name.c_str(), M, (double)info.nz_used, its,
                        KSPConvergedReasons[reason], (double)(bnorm > 0 ? rnorm / bnorm : rnorm), (double)err));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&ones));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
