#include "csr.hpp"

#include <string>

namespace gpuformats {

void validate_csr(const CsrView &A)
{
  if (A.nrows < 0 || A.ncols < 0) throw Error(ErrorKind::bad_input, "CSR block with negative dimensions");
  if (A.nrows > 0 && !A.rowptr) throw Error(ErrorKind::bad_input, "CSR block without row pointers");
  if (A.nrows > 0 && A.rowptr[0] != 0) throw Error(ErrorKind::bad_input, "CSR row pointers must start at 0");
  for (int32_t i = 0; i < A.nrows; ++i) {
    const int32_t b = A.rowptr[i], e = A.rowptr[i + 1];
    if (e < b) throw Error(ErrorKind::bad_input, "CSR row pointers decrease at row " + std::to_string(i));
    for (int32_t k = b; k < e; ++k) {
      const int32_t c = A.colidx[k];
      if (c < 0 || c >= A.ncols) throw Error(ErrorKind::bad_input, "column index " + std::to_string(c) + " out of range [0," + std::to_string(A.ncols) + ") in row " + std::to_string(i));
      if (k > b && c <= A.colidx[k - 1]) throw Error(ErrorKind::bad_input, "column indices not sorted and unique in row " + std::to_string(i));
    }
  }
  if (A.nrows > 0 && A.rowptr[A.nrows] != A.nnz) throw Error(ErrorKind::bad_input, "CSR nnz does not match rowptr[nrows]");
}

void csr_spmv_host(const CsrView &A, double alpha, const double *x, double beta, double *y)
{
  for (int32_t i = 0; i < A.nrows; ++i) {
    double sum = 0;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) sum += A.values[k] * x[A.colidx[k]];
    y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
  }
}

} // namespace gpuformats
