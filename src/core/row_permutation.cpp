#include "row_permutation.hpp"

#include <algorithm>
#include <numeric>

namespace gpuformats {

std::vector<int32_t> sorted_row_permutation(const CsrView &A, RowOrder order, int32_t window)
{
  std::vector<int32_t> perm(A.nrows);
  std::iota(perm.begin(), perm.end(), 0);
  auto first_col = [&](int32_t i) { return A.row_length(i) ? A.colidx[A.rowptr[i]] : A.ncols; };
  auto before    = [&](int32_t a, int32_t b) {
    const int32_t la = A.row_length(a), lb = A.row_length(b);
    if (la != lb) return order == RowOrder::longest_first ? la > lb : la < lb;
    const int32_t ca = first_col(a), cb = first_col(b);
    if (ca != cb) return ca < cb;
    return a < b;
  };
  std::sort(perm.begin(), perm.end(), before);
  window_sort_range(perm, 0, A.nrows, window);
  return perm;
}

void window_sort_range(std::vector<int32_t> &perm, int32_t first, int32_t end, int32_t window)
{
  if (window <= 0 || end - first < 2) return;
  std::stable_sort(perm.begin() + first, perm.begin() + end, [window](int32_t a, int32_t b) { return a / window < b / window; });
}

std::vector<int32_t> invert_permutation(const std::vector<int32_t> &perm)
{
  std::vector<int32_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[perm[k]] = (int32_t)k;
  return inv;
}

} // namespace gpuformats
