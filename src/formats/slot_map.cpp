#include "slot_map.hpp"

namespace gpuformats {

void refresh_values_host(FormatBlock &blk, const double *csr_values)
{
  for (int64_t k = 0; k < blk.nnz; ++k) blk.values[blk.slot_of_csr[k]] = csr_values[k];
}

void gather_csr_values_host(const FormatBlock &blk, double *out)
{
  for (int64_t k = 0; k < blk.nnz; ++k) out[k] = blk.values[blk.slot_of_csr[k]];
}

std::vector<int32_t> diagonal_positions(const CsrView &A, int32_t col_offset)
{
  std::vector<int32_t> pos(A.nrows, -1);
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
      if (A.colidx[k] == i + col_offset) {
        pos[i] = k;
        break;
      }
  return pos;
}

void gather_diagonal_host(const FormatBlock &blk, const int32_t *diag_pos, int32_t n, double *d)
{
  for (int32_t i = 0; i < n; ++i) d[i] = diag_pos[i] >= 0 ? blk.values[blk.slot_of_csr[diag_pos[i]]] : 0.0;
}

} // namespace gpuformats
