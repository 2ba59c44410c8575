#include "row_permutation.hpp"

#include <algorithm>
#include <numeric>

namespace gpuformats {

std::vector<int32_t> sorted_row_permutation(const CsrView &A, RowOrder order, int32_t window, int32_t long_row)
{
  std::vector<int32_t> perm(A.nrows);
  std::iota(perm.begin(), perm.end(), 0);
  auto length    = [&](int32_t i) { return sort_length(A.row_length(i), long_row); };
  auto first_col = [&](int32_t i) { return length(i) ? A.colidx[A.rowptr[i]] : A.ncols; };
  auto before    = [&](int32_t a, int32_t b) {
    const int32_t la = length(a), lb = length(b);
    if (la != lb) return order == RowOrder::longest_first ? la > lb : la < lb;
    const int32_t ca = first_col(a), cb = first_col(b);
    if (ca != cb) return ca < cb;
    return a < b;
  };
  std::sort(perm.begin(), perm.end(), before);
  window_sort_range(A, perm, 0, A.nrows, window, WindowOrder::same);
  return perm;
}

void window_sort_range(const CsrView &A, std::vector<int32_t> &perm, int32_t first, int32_t end, int32_t window, WindowOrder order)
{
  if (window <= 0 || end - first < 2) return;
  const bool alt = order == WindowOrder::alternate;
  std::stable_sort(perm.begin() + first, perm.begin() + end, [&](int32_t a, int32_t b) {
    const int32_t wa = a / window, wb = b / window;
    if (wa != wb) return wa < wb;
    return alt && (wa & 1) && A.row_length(a) > A.row_length(b);
  });
}

std::vector<int32_t> invert_permutation(const std::vector<int32_t> &perm)
{
  std::vector<int32_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[perm[k]] = (int32_t)k;
  return inv;
}

} // namespace gpuformats
