#include "slot_map.hpp"

#include <algorithm>

namespace gpuformats {

void refresh_values_host(FormatBlock &blk, const double *csr_values)
{
  for (int64_t k = 0; k < blk.nnz; ++k) blk.values[blk.slot_of_csr[k]] = csr_values[k];
  blk.values_changed(nullptr);
}

void gather_csr_values_host(const FormatBlock &blk, double *out)
{
  for (int64_t k = 0; k < blk.nnz; ++k) out[k] = blk.values[blk.slot_of_csr[k]];
}

std::vector<int32_t> diagonal_positions(const CsrView &A, int32_t col_offset)
{
  std::vector<int32_t> pos(A.nrows, -1);
  for (int32_t i = 0; i < A.nrows; ++i) { // columns are sorted (CsrView): a binary search per row
    const int32_t *first = A.colidx + A.rowptr[i], *last = A.colidx + A.rowptr[i + 1];
    const int32_t *k     = std::lower_bound(first, last, i + col_offset);
    if (k != last && *k == i + col_offset) pos[i] = (int32_t)(k - A.colidx);
  }
  return pos;
}

void gather_diagonal_host(const FormatBlock &blk, const int32_t *diag_pos, int32_t n, double *d)
{
  for (int32_t i = 0; i < n; ++i) d[i] = diag_pos[i] >= 0 ? blk.values[blk.slot_of_csr[diag_pos[i]]] : 0.0;
}

} // namespace gpuformats
