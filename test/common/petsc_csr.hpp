// A PETSc AIJ matrix from the project's matrix sources, for the programs that load one (bench_spmv,
// ksp_matrix): a PETSc binary file (.petsc, .bin, .dat: MatLoad, by the caller), a Matrix Market
// file (.mtx) or a generator spec (src/matgen) read into a global CSR every rank holds, then each
// rank's rows through the CSR preallocation of whichever AIJ type the matrix is.
#pragma once
#include "core/csr.hpp"
#include "matgen/generators.hpp"
#include "matgen/matrix_market.hpp"

#include <petscmat.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace gftest {

inline bool ends_with(const std::string &s, const std::string &t) { return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0; }
inline bool is_petsc_binary(const std::string &s) { return ends_with(s, ".petsc") || ends_with(s, ".bin") || ends_with(s, ".dat"); }

// G from a Matrix Market file (.mtx) or a generator spec (seeded); the library's errors as PETSc's.
inline PetscErrorCode read_csr(const std::string &spec, uint64_t seed, gpuformats::CsrMatrix &G)
{
  PetscFunctionBegin;
  try {
    G = ends_with(spec, ".mtx") ? gpuformats::read_matrix_market(spec) : gpuformats::generate_matrix(spec, seed);
  } catch (const gpuformats::Error &err) {
    SETERRQ(PETSC_COMM_SELF, err.kind == gpuformats::ErrorKind::unsupported ? PETSC_ERR_SUP : PETSC_ERR_ARG_WRONG, "%s", err.what());
  } catch (const std::bad_alloc &) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "out of host memory building %s", spec.c_str());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A parallel AIJ from a global CSR, rows split evenly (whole blocks where G carries a block size,
// which is set with MatSetBlockSize before the preallocation, as an application with bs unknowns
// per point does: our types then choose their block layout themselves). from_options:
// MatSetFromOptions before the preallocation, so -mat_type gives its type as in an application
// (aijcusparse, a gpuformats type).
inline PetscErrorCode aij_from_csr(const gpuformats::CsrMatrix &G, Mat *A, bool from_options = false)
{
  const PetscInt bs = G.block_size;
  PetscInt       n = PETSC_DECIDE, N = G.nrows / bs, rend, rstart;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && G.nrows % bs == 0 && G.ncols % bs == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "block size %" PetscInt_FMT " does not divide the %d x %d matrix", bs, (int)G.nrows, (int)G.ncols);
  PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &n, &N)); // in blocks
  n *= bs;
  PetscCallMPI(MPI_Scan(&n, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart = rend - n;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, n, PETSC_DECIDE, G.nrows, G.ncols));
  if (bs > 1) PetscCall(MatSetBlockSize(*A, bs)); // the columns split by blocks too (PetscLayoutSetUp)
  PetscCall(MatSetType(*A, MATAIJ));
  if (from_options) PetscCall(MatSetFromOptions(*A));
  std::vector<PetscInt> ia((size_t)n + 1);
  for (PetscInt i = rstart; i <= rend; ++i) ia[i - rstart] = G.rowptr[i] - G.rowptr[rstart];
  const PetscInt    *ja = G.colidx.data() + G.rowptr[rstart];
  const PetscScalar *va = G.values.data() + G.rowptr[rstart];
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia.data(), ja, va)); // the one of the other kind is a no-op
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ia.data(), ja, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gftest
