#include "row_stats.hpp"

#include <algorithm>
#include <cmath>

namespace gpuformats {

std::vector<int32_t> row_lengths(const CsrView &A)
{
  std::vector<int32_t> len(A.nrows);
  for (int32_t i = 0; i < A.nrows; ++i) len[i] = A.row_length(i);
  return len;
}

// Quartile by linear interpolation between closest ranks (numpy's default), so the
// Freedman-Diaconis rule of SURAA gives the numbers a reader can check with numpy.
static double quantile_sorted(const std::vector<int32_t> &s, double q)
{
  if (s.empty()) return 0;
  const double pos = q * (double)(s.size() - 1);
  const size_t lo  = (size_t)std::floor(pos);
  const size_t hi  = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - (double)lo) * (s[hi] - s[lo]);
}

RowStats compute_row_stats_sorted(const std::vector<int32_t> &s)
{
  RowStats st;
  st.nrows = (int32_t)s.size();
  st.histogram.assign(1, 0);
  if (s.empty()) return st;
  st.min_length = s.front();
  st.max_length = s.back();
  double sum = 0, sumsq = 0;
  for (int32_t l : s) {
    st.nnz += l;
    sum += l;
    sumsq += (double)l * l;
    if (l == 0) st.empty_rows++;
    size_t b = 0;
    while (b < 32 && (int64_t(1) << b) <= l) ++b; // l in [2^(b-1), 2^b)
    if (st.histogram.size() <= b) st.histogram.resize(b + 1, 0);
    st.histogram[b]++;
  }
  st.mean     = sum / st.nrows;
  st.variance = std::max(0.0, sumsq / st.nrows - st.mean * st.mean);
  st.stddev   = std::sqrt(st.variance);
  st.q1       = quantile_sorted(s, 0.25);
  st.median   = quantile_sorted(s, 0.5);
  st.q3       = quantile_sorted(s, 0.75);
  st.iqr      = st.q3 - st.q1;
  return st;
}

RowStats compute_row_stats(const CsrView &A)
{
  std::vector<int32_t> len = row_lengths(A);
  std::sort(len.begin(), len.end());
  return compute_row_stats_sorted(len);
}

} // namespace gpuformats
