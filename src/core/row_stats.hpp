// Row statistics of a CSR block: what the formats' builders and (later) the performance model read.
#pragma once
#include "csr.hpp"

namespace gpuformats {

struct RowStats {
  int32_t nrows      = 0;
  int64_t nnz        = 0;
  int32_t min_length = 0, max_length = 0;
  int32_t empty_rows = 0;
  double  mean = 0, variance = 0, stddev = 0;
  double  q1 = 0, median = 0, q3 = 0, iqr = 0; // quartiles of the row lengths (linear interpolation)
  // histogram[0] counts empty rows; histogram[b] (b >= 1) counts rows whose length is in
  // [2^(b-1), 2^b). Power-of-two buckets keep it small for rows of 10^6 entries.
  std::vector<int64_t> histogram;
};

std::vector<int32_t> row_lengths(const CsrView &A);
RowStats             compute_row_stats(const CsrView &A);
// Same, from lengths already sorted ascending (saves a sort when a builder has them).
RowStats             compute_row_stats_sorted(const std::vector<int32_t> &sorted_lengths);

} // namespace gpuformats
