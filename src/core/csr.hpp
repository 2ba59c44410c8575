// CSR view of a host matrix block, and the error type every layer below the PETSc glue throws.
// No PETSc types here: the glue fills a CsrView from a SeqAIJ block (which shares this layout when
// PetscInt is 32-bit and PetscScalar is double).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuformats {

// A borrowed, 0-based CSR block: nrows x ncols, nnz stored entries, column indices sorted
// within each row (PETSc's AIJ guarantees this). Rows may be empty; ncols may differ from nrows
// (the off-process block of an MPI matrix is nrows x nghosts).
struct CsrView {
  int32_t        nrows  = 0;
  int32_t        ncols  = 0;
  int64_t        nnz    = 0;
  const int32_t *rowptr = nullptr; // nrows + 1 entries
  const int32_t *colidx = nullptr; // nnz entries
  const double  *values = nullptr; // nnz entries

  int32_t row_length(int32_t i) const { return rowptr[i + 1] - rowptr[i]; }
};

// Device bytes of a CSR with 32-bit indices and double values: 12 per nonzero, 4 per row pointer.
// The yardstick every "bytes vs CSR" figure divides by.
inline double csr_bytes(int64_t nnz, int64_t nrows) { return 12.0 * (double)nnz + 4.0 * (double)(nrows + 1); }

// An owning host CSR (readers, generators and tests produce these).
struct CsrMatrix {
  int32_t              nrows = 0, ncols = 0;
  std::vector<int32_t> rowptr{0};
  std::vector<int32_t> colidx;
  std::vector<double>  values;
  // The block size a user would give MatSetBlockSize (the unknowns per grid point): set by the block
  // generators (blockstencil3d, blockfem, any generator's blocksize=), 1 from readers and the rest.
  // bench_spmv / ksp_matrix pass it on, so our types choose the block layout as in an application.
  int32_t block_size = 1;

  CsrView view() const { return {nrows, ncols, (int64_t)colidx.size(), rowptr.data(), colidx.data(), values.data()}; }
};

// What went wrong, so the glue can map it to the right PETSc error class.
enum class ErrorKind {
  out_of_memory, // device or host allocation failed: the caller's AIJ matrix is untouched
  unsupported,   // the input does not fit this format (e.g. PELLR padding blow-up); message says what fits
  bad_input,     // malformed CSR, out-of-range option
  device,        // any other CUDA error
  internal,      // a broken invariant of ours (a bug): PETSC_ERR_PLIB
};

struct Error : std::runtime_error {
  ErrorKind kind;
  Error(ErrorKind k, const std::string &what) : std::runtime_error(what), kind(k) {}
};

// Checks that a view is a well-formed CSR (monotone rowptr, columns in range and sorted).
// Throws Error(bad_input) naming the first offending row.
void validate_csr(const CsrView &A);

// Host reference product y = alpha*A*x + beta*y straight from CSR (beta == 0: y is not read).
// The oracle every format's host reference is tested against.
void csr_spmv_host(const CsrView &A, double alpha, const double *x, double beta, double *y);

} // namespace gpuformats
