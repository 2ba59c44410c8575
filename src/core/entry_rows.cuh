// The row of every CSR entry, as the device builders need it to scatter entries to their slots:
//
//   rowptr  0     3 3     5            row[k]   0 0 0 1 1   (row 1 of 0 entries leaves no mark)
//   marks   0 . . 2 .  (row i writes i at its first entry rowptr[i], if it has one)
//   max-scan          ->  0 0 0 2 2    = the row of each entry
//
// O(nnz) streaming: a binary search of rowptr per entry costs log2(nrows) dependent reads of a
// rowptr that may exceed L2 (24 per entry at 16M rows). Any Thrust policy: the builders pass
// their device policy, the host tests thrust::host.
#pragma once
#include "row_lengths.cuh"

#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>

#include <cstdint>

namespace gpuformats {

struct EntryRowsNonEmpty {
  __host__ __device__ bool operator()(int32_t len) const { return len != 0; }
};

// row[k] = the row of CSR entry k, k < nnz (rowptr: nrows + 1 entries, in the policy's memory).
template <class Policy>
void entry_rows(const Policy &pol, const int32_t *rowptr, int32_t nrows, int64_t nnz, int32_t *row)
{
  if (nnz <= 0) return;
  const thrust::counting_iterator<int32_t> zero(0);
  thrust::fill(pol, row, row + nnz, 0);
  thrust::scatter_if(pol, zero, zero + nrows, rowptr, thrust::make_transform_iterator(zero, RowLength{rowptr}), row, EntryRowsNonEmpty{});
  thrust::inclusive_scan(pol, row, row + nnz, row, thrust::maximum<int32_t>());
}

} // namespace gpuformats
