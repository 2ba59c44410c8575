#include "select/partition.hpp"

#include <algorithm>
#include <limits>

namespace gpuformats::select {

std::vector<StripFeatures> strip_features(const CsrView &A, int32_t strip_rows)
{
  if (strip_rows < 1) throw Error(ErrorKind::bad_input, "strip_features: strips need at least one row");
  std::vector<StripFeatures> out;
  for (int32_t r0 = 0; r0 < A.nrows; r0 += strip_rows) {
    StripFeatures s;
    s.first_row = r0;
    s.rows      = std::min(strip_rows, A.nrows - r0);
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = -1;
    for (int32_t i = r0; i < r0 + s.rows; ++i) {
      const int32_t len = A.row_length(i);
      s.nnz += len;
      s.max_row = std::max(s.max_row, len);
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
        lo = std::min<int64_t>(lo, A.colidx[k]);
        hi = std::max<int64_t>(hi, A.colidx[k]);
      }
    }
    s.col_span = hi >= 0 ? hi - lo + 1 : 0;
    out.push_back(s);
  }
  return out;
}

Partition partition_strips(int nstrips, const std::function<double(int, int, int *)> &cost)
{
  if (nstrips < 1) throw Error(ErrorKind::bad_input, "partition_strips: no strips");
  const int N = nstrips;
  // E and F of every block [i, j], i <= j, row-major in a triangle: index i * N + j.
  std::vector<double> E((size_t)N * N, 0);
  std::vector<int>    F((size_t)N * N, -1);
  for (int i = 0; i < N; ++i)
    for (int j = i; j < N; ++j) E[(size_t)i * N + j] = cost(i, j, &F[(size_t)i * N + j]);
  // Fig. 11: T[j] for strips 0..j, S[j] the last strip of its first part (j: one block).
  std::vector<double> T(N);
  std::vector<int>    S(N);
  for (int j = 0; j < N; ++j) {
    T[j] = E[j];
    S[j] = j;
    for (int k = 0; k < j; ++k) {
      const double q = T[k] + E[(size_t)(k + 1) * N + j];
      if (q < T[j]) {
        T[j] = q;
        S[j] = k;
      }
    }
  }
  Partition p;
  p.time   = T[N - 1];
  p.single = Block{0, N - 1, F[N - 1], E[N - 1]};
  for (int j = N - 1; j >= 0;) { // PRINT_OPTIMAL_STRATEGY, from the end
    const int first = S[j] == j ? 0 : S[j] + 1;
    p.blocks.push_back(Block{first, j, F[(size_t)first * N + j], E[(size_t)first * N + j]});
    j = S[j] == j ? -1 : S[j];
  }
  std::reverse(p.blocks.begin(), p.blocks.end());
  return p;
}

} // namespace gpuformats::select
