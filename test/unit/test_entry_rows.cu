// core/entry_rows.cuh on thrust::host (the builders run the same template on the device): the row
// of every CSR entry, nothing written past the last one, on the edge cases (empty rows first, last and throughout, 1x1, no entries)
// and the real matrices.
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "core/entry_rows.cuh"

#include <thrust/execution_policy.h>

#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;

int main(int argc, char **argv)
{
  const std::string        dir = argc > 1 ? argv[1] : "test/matrices";
  std::vector<NamedMatrix> ms  = edge_case_matrices(true), real = real_matrices(dir);
  ms.insert(ms.end(), real.begin(), real.end());
  for (const NamedMatrix &m : ms) {
    const CsrView        A = m.A.view();
    std::vector<int32_t> got(A.nnz + 1, -1), want(A.nnz + 1, -1); // got[nnz]: a guard (trailing empty rows start there)
    for (int32_t i = 0; i < A.nrows; ++i)
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) want[k] = i;
    entry_rows(thrust::host, A.rowptr, A.nrows, A.nnz, got.data());
    check(got == want, "entry_rows." + m.name);
  }
  return finish();
}
