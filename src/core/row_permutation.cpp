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
  const int32_t w = window > 0 ? window : std::max<int32_t>(A.nrows, 1);
  for (int64_t start = 0; start < A.nrows; start += w) {
    const int64_t end = std::min<int64_t>(start + w, A.nrows);
    std::sort(perm.begin() + start, perm.begin() + end, before);
  }
  return perm;
}

std::vector<int32_t> invert_permutation(const std::vector<int32_t> &perm)
{
  std::vector<int32_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[perm[k]] = (int32_t)k;
  return inv;
}

} // namespace gpuformats
