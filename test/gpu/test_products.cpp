// GPU suite: matrix-matrix products of the seq types (MatMatMult, MatTransposeMatMult,
// MatMatTransposeMult, MatPtAP, MatRARt, MatMatMatMult; gf_product.cpp) against AIJ's on the host:
// on the cuda backend they run on the device (cuSPARSE's SpGEMM logs GPU flops), give a result of
// the type -mat_gpuformats_product_result names, with AIJ's pattern and values; a numeric phase with
// new values of A and P (MAT_REUSE_MATRIX) recomputes them with no new symbolic phase; the result's
// MatMult on CUDA vectors agrees with AIJ's; an operand of plain seqaij or seqaijcusparse is taken
// too. On the host backend (here and on machines without a GPU) the product is AIJ's, exactly.
//   bin/test/test_products -types evchyb,pjds,pellr,suraa [-n 16]
#include "common/check.hpp"
#include "common/test_matrices.hpp"

#include <gpuformats.h>
#include <petscmat.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using gftest::check;

namespace {

bool has_gpu = false;

// A = 3D 7-point stencil on n^3 (values perturbed, so that no symmetry hides a transposition);
// P = (I - 0.3 A) P0, P0 the piecewise constant aggregation on 2x2x2 blocks (n even).
PetscErrorCode MakeOperators(PetscInt n, Mat *A, Mat *P, Mat *P0out)
{
  gpuformats::CsrMatrix G  = gftest::stencil7((int32_t)n);
  const PetscInt        N  = G.nrows, nc = n / 2, Nc = nc * nc * nc;
  Mat                   P0 = NULL, AP = NULL;

  PetscFunctionBeginUser;
  for (size_t k = 0; k < G.values.size(); ++k) G.values[k] *= 1.0 + 0.01 * (double)(k % 7);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 7, NULL, A));
  for (PetscInt i = 0; i < N; ++i) PetscCall(MatSetValues(*A, 1, &i, G.rowptr[i + 1] - G.rowptr[i], G.colidx.data() + G.rowptr[i], G.values.data() + G.rowptr[i], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, Nc, 1, NULL, &P0));
  for (PetscInt z = 0; z < n; ++z)
    for (PetscInt y = 0; y < n; ++y)
      for (PetscInt x = 0; x < n; ++x) {
        const PetscInt    i = (z * n + y) * n + x, j = ((z / 2) * nc + y / 2) * nc + x / 2;
        const PetscScalar v = 1.0;
        PetscCall(MatSetValues(P0, 1, &i, 1, &j, &v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(*A, P0, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &AP));
  PetscCall(MatAYPX(AP, -0.3, P0, SUBSET_NONZERO_PATTERN));
  PetscCall(MatSetBlockSizes(AP, 1, 2)); // the results' block sizes come from P's (GAMG reads a coarse operator's)
  *P      = AP;
  *P0out  = P0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ||C - R||_F / ||R||_F (C of any seq AIJ type, read through a seqaij copy); nz: C's and R's nonzeros equal.
PetscErrorCode Compare(Mat C, Mat R, PetscReal *rel, PetscBool *nz)
{
  Mat       H;
  PetscReal d, r;
  MatInfo   ic, ir;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(C, MATSEQAIJ, MAT_INITIAL_MATRIX, &H));
  PetscCall(MatGetInfo(H, MAT_LOCAL, &ic));
  PetscCall(MatGetInfo(R, MAT_LOCAL, &ir));
  *nz = ic.nz_used == ir.nz_used ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MatAXPY(H, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(H, NORM_FROBENIUS, &d));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &r));
  *rel = d / PetscMax(r, 1e-300);
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = C x on CUDA vectors (the result's own product: the format or cuSPARSE) against R x on the host.
PetscErrorCode CompareMult(Mat C, Mat R, PetscReal *rel)
{
  Vec       x, y, xr, yr;
  PetscReal d, r;
  PetscInt  m, n;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(R, &m, &n));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &x));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, m, &y));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &xr));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &yr));
  PetscCall(VecSetRandom(xr, NULL));
  PetscCall(VecCopy(xr, x));
  PetscCall(MatMult(C, x, y));
  PetscCall(MatMult(R, xr, yr));
  PetscCall(VecNorm(yr, NORM_2, &r));
  PetscCall(VecAXPY(yr, -1.0, y));
  PetscCall(VecNorm(yr, NORM_2, &d));
  *rel = d / PetscMax(r, 1e-300);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// GPU flops and device-to-host copies logged so far: cuSPARSE's products log both (their symbolic
// phase copies the result's pattern to the host), AIJ's host products neither.
PetscLogDouble GpuActivity() { return petsc_gflops + petsc_gtoc_ct; }

PetscErrorCode EventCount(const char *name, PetscInt *count)
{
  PetscLogEvent      id;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &id));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// One product: f(reuse, &C) computes it from our operands, g from AIJ's.
struct Case {
  const char                                            *name, *symbolic_event;
  std::function<PetscErrorCode(MatReuse, Mat *)>         ours, aij;
};

// Checks the product of one case: type, values, device, MatMult; then, after `change` (new values
// of the operands, the same on ours and AIJ's), the reuse with no new symbolic phase.
PetscErrorCode RunCase(const std::string &tag, const Case &c, const char *want_type, bool on_device, const std::function<PetscErrorCode()> &change)
{
  Mat            C = NULL, R = NULL;
  PetscReal      rel;
  PetscBool      nz, is;
  PetscLogDouble gf0;
  PetscInt       sym0, sym1;
  const double   tol = on_device ? 1e-12 : 0.0; // the host backend is AIJ's code: exact

  PetscFunctionBeginUser;
  gf0 = GpuActivity();
  PetscCall(c.ours(MAT_INITIAL_MATRIX, &C));
  const bool device = GpuActivity() > gf0;
  PetscCall(c.aij(MAT_INITIAL_MATRIX, &R));
  if (on_device) { // on the host, whatever AIJ's code makes
    MatType got;
    PetscCall(MatGetType(C, &got));
    PetscCall(PetscObjectTypeCompare((PetscObject)C, want_type, &is));
    check(is, tag + ".type", std::string("got ") + got + ", want " + want_type);
  }
  check(device == on_device, tag + (on_device ? ".on_device" : ".on_host"), device ? "GPU activity logged" : "no GPU flops or copies logged");
  PetscCall(Compare(C, R, &rel, &nz));
  check(rel <= tol, tag + ".values", "relative difference " + std::to_string(rel));
  check(nz, tag + ".pattern", "nonzero count differs from AIJ's");
  {
    PetscInt rc, cc, rr, cr;
    PetscCall(MatGetBlockSizes(C, &rc, &cc));
    PetscCall(MatGetBlockSizes(R, &rr, &cr));
    check(rc == rr && cc == cr, tag + ".block_sizes", std::to_string(rc) + "," + std::to_string(cc) + " vs AIJ's " + std::to_string(rr) + "," + std::to_string(cr));
  }
  if (has_gpu) {
    PetscCall(CompareMult(C, R, &rel));
    check(rel <= 1e-12, tag + ".matmult", "relative difference " + std::to_string(rel));
  }
  PetscCall(change());
  PetscCall(EventCount(c.symbolic_event, &sym0));
  gf0 = GpuActivity();
  PetscCall(c.ours(MAT_REUSE_MATRIX, &C));
  const bool device2 = GpuActivity() > gf0;
  PetscCall(EventCount(c.symbolic_event, &sym1));
  PetscCall(c.aij(MAT_REUSE_MATRIX, &R));
  check(sym1 == sym0, tag + ".reuse_no_symbolic", std::to_string(sym1 - sym0) + " new symbolic phases");
  // cuSPARSE logs no flops for ABt, and its numeric phase into an aijcusparse result copies nothing:
  // there the first product's type and GPU activity said it
  if (!(on_device && !std::strcmp(c.name, "ABt") && !std::strcmp(want_type, MATSEQAIJCUSPARSE))) check(device2 == on_device, tag + ".reuse" + (on_device ? ".on_device" : ".on_host"));
  PetscCall(Compare(C, R, &rel, &nz));
  check(rel <= tol, tag + ".reuse_values", "relative difference " + std::to_string(rel));
  if (has_gpu) {
    PetscCall(CompareMult(C, R, &rel));
    check(rel <= 1e-12, tag + ".reuse_matmult", "relative difference " + std::to_string(rel));
  }
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// GAMG's prolongator smoothing (agg.c): C = A P0, C = D^-1 C, C = -1.4/emax C + P0 with P0 of A's
// type (SUBSET_NONZERO_PATTERN). With an aijcusparse result on the device, the sum stays there (no
// copy of C to the host: PETSc's MatAXPY_Basic would make one); AIJ's values either way.
PetscErrorCode CheckSmoothing(const std::string &tag, Mat A, Mat P0, Mat Ag, Mat P0g, bool device_sum)
{
  Mat            C, R;
  Vec            d, dg;
  PetscReal      rel;
  PetscBool      nz;
  PetscLogDouble copies;

  PetscFunctionBeginUser;
  PetscCall(MatMatMult(Ag, P0g, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
  PetscCall(MatMatMult(A, P0, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &R));
  PetscCall(MatProductClear(C));
  PetscCall(MatCreateVecs(Ag, &dg, NULL));
  PetscCall(MatCreateVecs(A, &d, NULL));
  PetscCall(MatGetDiagonal(Ag, dg));
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(VecReciprocal(dg));
  PetscCall(VecReciprocal(d));
  PetscCall(MatDiagonalScale(C, dg, NULL));
  PetscCall(MatDiagonalScale(R, d, NULL));
  copies = petsc_gtoc_ct;
  PetscCall(MatAYPX(C, -0.35, P0g, SUBSET_NONZERO_PATTERN));
  if (device_sum) check(petsc_gtoc_ct == copies, tag + ".smoothing.on_device", std::to_string(petsc_gtoc_ct - copies) + " copies to the host in MatAYPX");
  PetscCall(MatAYPX(R, -0.35, P0, SUBSET_NONZERO_PATTERN));
  PetscCall(Compare(C, R, &rel, &nz));
  check(rel <= 1e-12, tag + ".smoothing.values", "relative difference " + std::to_string(rel));
  check(nz, tag + ".smoothing.pattern", "nonzero count differs from AIJ's");
  // a plain aijcusparse X and Y = that result: aijcusparse's own sum (the same pattern)
  if (device_sum) {
    Mat Cc;
    PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &Cc));
    copies = petsc_gtoc_ct;
    PetscCall(MatAXPY(C, 2.0, Cc, SAME_NONZERO_PATTERN));
    check(petsc_gtoc_ct == copies, tag + ".smoothing.aijcusparse_sum_on_device", std::to_string(petsc_gtoc_ct - copies) + " copies to the host in MatAXPY");
    PetscCall(MatAXPY(R, 2.0, R, SAME_NONZERO_PATTERN));
    PetscCall(Compare(C, R, &rel, &nz));
    check(rel <= 1e-12, tag + ".smoothing.aijcusparse_sum", "relative difference " + std::to_string(rel));
    PetscCall(MatDestroy(&Cc));
  }
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&dg));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// New values, same pattern: scale, and change a few entries.
PetscErrorCode NewValues(Mat M, PetscScalar s)
{
  PetscInt m, n;

  PetscFunctionBeginUser;
  PetscCall(MatScale(M, s));
  PetscCall(MatGetSize(M, &m, &n));
  std::vector<PetscInt>    rows, cols0;
  std::vector<PetscScalar> vals0;
  for (PetscInt i = 0; i < m; i += 97) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscCall(MatGetRow(M, i, &nc, &cols, &vals));
    if (nc) rows.push_back(i), cols0.push_back(cols[0]), vals0.push_back(vals[0] + 0.25);
    PetscCall(MatRestoreRow(M, i, &nc, &cols, &vals));
  }
  for (size_t k = 0; k < rows.size(); ++k) PetscCall(MatSetValues(M, 1, &rows[k], 1, &cols0[k], &vals0[k], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Convert(Mat X, const char *type, const char *result, const char *backend, Mat *Y)
{
  PetscFunctionBeginUser;
  PetscCall(MatConvert(X, type, MAT_INITIAL_MATRIX, Y));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gpuformats_product_result", result));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_gpuformats_backend", backend));
  PetscCall(MatSetFromOptions(*Y));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gpuformats_product_result"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_gpuformats_backend"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RunType(const char *t, PetscInt n)
{
  const char *results[] = {"aijcusparse", "format"};

  PetscFunctionBeginUser;
  for (const char *backend : {"cuda", "host"}) {
    if (!has_gpu && !std::strcmp(backend, "cuda")) continue;
    for (const char *result : results) {
      if (!std::strcmp(backend, "host") && !std::strcmp(result, "format")) continue; // the option only matters on the device
      Mat         A, P, P0, R, Ag, Pg, P0g, Rg, Pc = NULL, Ppl = NULL;
      char        seq_type[64];
      const bool  dev  = !std::strcmp(backend, "cuda");
      const char *want = dev && !std::strcmp(result, "aijcusparse") ? MATSEQAIJCUSPARSE : seq_type;
      PetscCall(PetscSNPrintf(seq_type, sizeof(seq_type), "seqaij%s", t));
      PetscCall(MakeOperators(n, &A, &P, &P0));
      PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
      PetscCall(Convert(A, t, result, backend, &Ag));
      PetscCall(Convert(P, t, result, backend, &Pg));
      PetscCall(Convert(R, t, result, backend, &Rg));
      PetscCall(Convert(P0, t, result, backend, &P0g));
      if (dev) {
        PetscCall(MatConvert(P, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Pc));
        PetscCall(MatDuplicate(P, MAT_COPY_VALUES, &Ppl));
      }
      // new values of A and P (and R = P^T, and P's other copies) on both sides
      auto change = [&]() -> PetscErrorCode {
        PetscFunctionBeginUser;
        for (Mat M : {A, Ag}) PetscCall(NewValues(M, 1.5)); // ours: in-place edits of its layout
        PetscCall(NewValues(P, 0.75));                      // the others: new host values
        for (Mat M : {Pg, Pc, Ppl})
          if (M) PetscCall(MatCopy(P, M, SAME_NONZERO_PATTERN));
        PetscCall(MatTranspose(P, MAT_REUSE_MATRIX, &R));
        PetscCall(MatCopy(R, Rg, SAME_NONZERO_PATTERN));
        PetscFunctionReturn(PETSC_SUCCESS);
      };
      std::vector<Case> cases = {
        {"AB", "MatMatMultSym", [&](MatReuse r, Mat *C) { return MatMatMult(Ag, Pg, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatMatMult(A, P, r, PETSC_DETERMINE, C); }},
        {"AtB", "MatTrnMatMultSym", [&](MatReuse r, Mat *C) { return MatTransposeMatMult(Pg, Ag, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatTransposeMatMult(P, A, r, PETSC_DETERMINE, C); }},
        {"ABt", "MatMatTrnMultSym", [&](MatReuse r, Mat *C) { return MatMatTransposeMult(Ag, Rg, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatMatTransposeMult(A, R, r, PETSC_DETERMINE, C); }},
        {"PtAP", "MatPtAPSymbolic", [&](MatReuse r, Mat *C) { return MatPtAP(Ag, Pg, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatPtAP(A, P, r, PETSC_DETERMINE, C); }},
        {"RARt", "MatRARtSym", [&](MatReuse r, Mat *C) { return MatRARt(Ag, Rg, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatRARt(A, R, r, PETSC_DETERMINE, C); }},
        {"ABC", "MatMatMatMultSym", [&](MatReuse r, Mat *C) { return MatMatMatMult(Rg, Ag, Pg, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatMatMatMult(R, A, P, r, PETSC_DETERMINE, C); }},
      };
      if (dev) { // operands of other types: a plain seqaij (its copy kept with the product), a seqaijcusparse
        cases.push_back({"PtAP_seqaij_P", "MatPtAPSymbolic", [&](MatReuse r, Mat *C) { return MatPtAP(Ag, Ppl, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatPtAP(A, P, r, PETSC_DETERMINE, C); }});
        cases.push_back({"PtAP_aijcusparse_P", "MatPtAPSymbolic", [&](MatReuse r, Mat *C) { return MatPtAP(Ag, Pc, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatPtAP(A, P, r, PETSC_DETERMINE, C); }});
        cases.push_back({"AB_seqaij_A", "MatMatMultSym", [&](MatReuse r, Mat *C) { return MatMatMult(Ppl, Rg, r, PETSC_DETERMINE, C); }, [&](MatReuse r, Mat *C) { return MatMatMult(P, R, r, PETSC_DETERMINE, C); }});
      }
      for (const Case &c : cases) {
        const std::string tag = std::string("products.") + t + "." + backend + (dev ? std::string(".") + result : "") + "." + c.name;
        PetscCall(RunCase(tag, c, want, dev, change));
      }
      PetscCall(CheckSmoothing(std::string("products.") + t + "." + backend + (dev ? std::string(".") + result : ""), A, P0, Ag, P0g, dev && !std::strcmp(result, "aijcusparse")));
      for (Mat *M : {&A, &P, &P0, &R, &Ag, &Pg, &P0g, &Rg, &Pc, &Ppl}) PetscCall(MatDestroy(M));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  int      count = 0;
  char     types[256] = "evchyb";
  PetscInt n          = 16;

  has_gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(GPUFormatsInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", types, sizeof(types), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  if (!has_gpu) std::printf("# no CUDA device: the host backend only\n");
  for (char *t = std::strtok(types, ","); t; t = std::strtok(NULL, ",")) PetscCall(RunType(t, n));
  const int rc = gftest::finish();
  PetscCall(PetscFinalize());
  return rc;
}
