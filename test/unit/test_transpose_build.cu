// The transposed layout's builder (transpose/transpose_build.cuh) on the host, without a GPU: the
// very template the GPU build runs, instantiated on thrust::host, for every format's slot map on
// the edge cases and the real matrices:
//   structure  colptr and rowidx equal a counting-sort transpose of the CSR (a sorted CSC)
//   values     the format's values gathered through slot_of_csc equal the CSC's values
//   product    the CSC, read as the CSR of A^T, gives A^T x (the CSR scattered by columns)
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "transpose/transpose_build.cuh"

#include <thrust/execution_policy.h>

#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;

struct Csc {
  std::vector<int32_t> colptr, rowidx;
  std::vector<double>  values;
};

// Counting sort by column: the reference CSC.
static Csc reference_csc(const CsrView &A)
{
  Csc c;
  c.colptr.assign((size_t)A.ncols + 1, 0);
  for (int64_t k = 0; k < A.nnz; ++k) c.colptr[A.colidx[k] + 1]++;
  for (int32_t j = 0; j < A.ncols; ++j) c.colptr[j + 1] += c.colptr[j];
  c.rowidx.resize(A.nnz);
  c.values.resize(A.nnz);
  std::vector<int32_t> next(c.colptr.begin(), c.colptr.end() - 1); // where each column's next entry goes
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const int32_t p = next[A.colidx[k]]++;
      c.rowidx[p]     = i;
      c.values[p]     = A.values[k];
    }
  return c;
}

int main(int argc, char **argv)
{
  const std::string dir = argc > 1 ? argv[1] : "test/matrices";
  std::vector<NamedMatrix> ms = edge_case_matrices(false);
  for (NamedMatrix &m : real_matrices(dir)) ms.push_back(std::move(m));
  int nformats;
  const FormatOps *const *formats = all_formats(&nformats);
  for (const NamedMatrix &m : ms) {
    const CsrView A   = m.A.view();
    const Csc     ref = reference_csc(A);
    for (int f = 0; f < nformats; ++f) {
      const FormatOps            &ops    = *formats[f];
      const std::vector<int64_t>  params = default_params(ops);
      const std::string           name   = std::string("transpose_build.") + ops.root + "." + m.name;
      std::unique_ptr<FormatBlock> blk;
      try {
        blk = ops.build_host(A, params.data());
      } catch (const Error &e) {
        check(check_refusal(ops, e, name, A, params.data()), name + ".build", e.what());
        continue;
      }
      const size_t         nnz = (size_t)A.nnz;
      std::vector<int32_t> keys(nnz), perm(nnz), colptr((size_t)A.ncols + 1), rowidx(nnz), slot_of_csc(nnz);
      transpose_detail::build_csc(thrust::host, A.rowptr, A.colidx, blk->slot_of_csr, A.nrows, A.ncols, A.nnz, keys.data(), perm.data(), colptr.data(), rowidx.data(), slot_of_csc.data());
      check(colptr == ref.colptr && rowidx == ref.rowidx, name + ".structure");

      std::vector<double> values(nnz);
      for (size_t p = 0; p < nnz; ++p) values[p] = blk->values[slot_of_csc[p]];
      check(values == ref.values, name + ".values");

      // A^T x: the CSC as the CSR of A^T (ncols x nrows) against the CSR scattered by columns.
      const std::vector<double> x = test_vector(A.nrows, 3);
      std::vector<double>       got(A.ncols), want(A.ncols, 0.0);
      const CsrView             At{A.ncols, A.nrows, A.nnz, colptr.data(), rowidx.data(), values.data()};
      csr_spmv_host(At, 1.0, x.data(), 0.0, got.data());
      for (int32_t i = 0; i < A.nrows; ++i)
        for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) want[A.colidx[k]] += A.values[k] * x[i];
      const double err = rel_error(got, want, want.size());
      check(err <= 1e-13, name + ".product", "relative error " + std::to_string(err));
    }
  }
  return finish();
}
