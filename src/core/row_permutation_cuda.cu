// Device version of the sorted-row permutation (see row_permutation.hpp for the order).
// One 64-bit key per row, (length key << column bits | first column), radix-sorted together with
// the row index; radix sort is stable, so equal keys keep increasing row index: the host's total
// order. The keys use only the bits the matrix needs (the longest row's, the column count's): CUB
// sorts 8 bits per pass, so a 7-point stencil of 8M rows (3 + 23 bits) takes 4 passes, not the 8
// of the full 64-bit key the sort ran before (CA-GrQc scaled to 45M rows: 5). Temporaries and
// Thrust are stream-ordered (DeviceBuffer(n, stream), par_nosync): nothing here synchronises the device.
// Rows of sort length 0 (empty rows, and long rows when long_row > 0) tie on their whole key: they
// keep the row order, after all others (longest first) or before them (shortest first). They are
// set aside by two stable selections (CUB, no host synchronisation: their counts are known from
// the pass that finds the longest row) and only the others are sorted: the same permutation, and a
// matrix whose rows are mostly empty (CA-GrQc scaled: 45M rows, most of them empty; an off-process
// block) sorts only its non-empty rows.
#include "radix_sort.cuh"
#include "row_permutation.hpp"

#include <algorithm>

#include <cub/device/device_select.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/iterator/counting_iterator.h>

namespace gpuformats {

namespace {
struct SortLengthAt { // the length of the row at position p
  const int32_t *rowptr, *perm;
  __device__ int32_t operator()(int32_t p) const { return rowptr[perm[p] + 1] - rowptr[perm[p]]; }
};
struct ZeroSortLength { // row i has sort length 0 (want = true) or not (want = false)
  const int32_t *rowptr;
  int32_t        long_row;
  bool           want;
  __device__ bool operator()(const int32_t &i) const { return (sort_length(rowptr[i + 1] - rowptr[i], long_row) == 0) == want; }
};
// The rows 0..nrows-1 that `pred` selects, in increasing order, to out.
void select_rows(int32_t nrows, const ZeroSortLength &pred, int32_t *out, cudaStream_t stream)
{
  const thrust::counting_iterator<int32_t> first(0);
  DeviceBuffer<int32_t>                    count(1, stream); // known to the caller already
  size_t                                   bytes = 0;
  GPUFORMATS_CUDA(cub::DeviceSelect::If(nullptr, bytes, first, out, count.data(), nrows, pred, stream));
  DeviceBuffer<unsigned char> tmp(bytes, stream);
  GPUFORMATS_CUDA(cub::DeviceSelect::If(tmp.data(), bytes, first, out, count.data(), nrows, pred, stream));
}
// The longest sort length and the number of rows of sort length 0, in one pass.
struct LengthStats {
  int32_t max_len, zero_rows;
};
struct LengthStatsOf {
  const int32_t *rowptr;
  int32_t        long_row;
  __device__ LengthStats operator()(int32_t i) const
  {
    const int32_t len = sort_length(rowptr[i + 1] - rowptr[i], long_row);
    return {len, len == 0 ? 1 : 0};
  }
};
struct MergeLengthStats {
  __host__ __device__ LengthStats operator()(const LengthStats &a, const LengthStats &b) const { return {a.max_len > b.max_len ? a.max_len : b.max_len, a.zero_rows + b.zero_rows}; }
};
// Length key (len, or max_len - len longest first) << col_bits | first column (ncols: empty row).
struct RowSortKey {
  const int32_t *rowptr, *colidx;
  int32_t        ncols, long_row, max_len, col_bits;
  bool           longest_first;
  __device__ uint64_t operator()(int32_t i) const
  {
    const int32_t  len = sort_length(rowptr[i + 1] - rowptr[i], long_row);
    const uint32_t fc  = len ? (uint32_t)colidx[rowptr[i]] : (uint32_t)ncols;
    const uint32_t lk  = longest_first ? (uint32_t)(max_len - len) : (uint32_t)len;
    return ((uint64_t)lk << col_bits) | fc;
  }
};
// (window << len_bits) | (odd window and alternate ? max_len - length : 0): stable-sorted, rows
// keep their order inside a window, except that alternate odd windows go longest first.
struct WindowKey {
  const int32_t *rowptr;
  int32_t        window, max_len, len_bits;
  bool           alternate;
  __device__ uint64_t operator()(int32_t row) const
  {
    const uint32_t w = (uint32_t)(row / window);
    return ((uint64_t)w << len_bits) | (alternate && (w & 1) ? (uint32_t)(max_len - (rowptr[row + 1] - rowptr[row])) : 0u);
  }
};

} // namespace

void sorted_row_permutation_cuda(const int32_t *d_rowptr, const int32_t *d_colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t *d_perm, cudaStream_t stream, int32_t long_row)
{
  if (nrows <= 0) return;
  const auto                       pol = thrust::cuda::par_nosync.on(stream);
  const thrust::counting_iterator<int32_t> zero(0);
  const LengthStats st       = thrust::transform_reduce(pol, zero, zero + nrows, LengthStatsOf{d_rowptr, long_row}, LengthStats{0, 0}, MergeLengthStats{});
  const int32_t     max_len  = st.max_len, sorted_rows = nrows - st.zero_rows;
  const int         col_bits = bits_for((uint32_t)ncols);
  const bool        longest  = order == RowOrder::longest_first;
  DeviceBuffer<int32_t> rows(sorted_rows, stream);
  int32_t              *out = d_perm; // where the sorted rows go
  if (st.zero_rows == 0) thrust::sequence(pol, rows.data(), rows.data() + nrows);
  else {
    if (!longest) out = d_perm + st.zero_rows;
    select_rows(nrows, ZeroSortLength{d_rowptr, long_row, true}, longest ? d_perm + sorted_rows : d_perm, stream);
    if (sorted_rows > 0) select_rows(nrows, ZeroSortLength{d_rowptr, long_row, false}, rows.data(), stream);
  }
  if (sorted_rows > 0) {
    DeviceBuffer<uint64_t> keys(sorted_rows, stream), sorted(sorted_rows, stream);
    thrust::transform(pol, rows.data(), rows.data() + sorted_rows, keys.data(), RowSortKey{d_rowptr, d_colidx, ncols, long_row, max_len, col_bits, longest});
    radix_sort_pairs(keys.data(), sorted.data(), rows.data(), out, sorted_rows, std::max(1, col_bits + bits_for((uint32_t)max_len)), stream);
  }
  if (window > 0 && window < nrows) window_sort_range_cuda(d_rowptr, d_perm, nrows, window, WindowOrder::same, stream);
}

void window_sort_range_cuda(const int32_t *d_rowptr, int32_t *d_perm, int32_t count, int32_t window, WindowOrder order, cudaStream_t stream)
{
  if (window <= 0 || count < 2) return;
  const auto                       pol = thrust::cuda::par_nosync.on(stream);
  const thrust::counting_iterator<int32_t> zero(0);
  const bool    alternate = order == WindowOrder::alternate;
  const int32_t max_len   = alternate ? thrust::transform_reduce(pol, zero, zero + count, SortLengthAt{d_rowptr, d_perm}, (int32_t)0, thrust::maximum<int32_t>()) : 0;
  const int32_t max_row   = thrust::reduce(pol, d_perm, d_perm + count, (int32_t)0, thrust::maximum<int32_t>());
  const int     len_bits  = bits_for((uint32_t)max_len);
  DeviceBuffer<uint64_t> key(count, stream), sorted(count, stream);
  DeviceBuffer<int32_t>  rows(count, stream);
  thrust::transform(pol, d_perm, d_perm + count, key.data(), WindowKey{d_rowptr, window, max_len, len_bits, alternate});
  GPUFORMATS_CUDA(cudaMemcpyAsync(rows.data(), d_perm, (size_t)count * sizeof(int32_t), cudaMemcpyDeviceToDevice, stream));
  radix_sort_pairs(key.data(), sorted.data(), rows.data(), d_perm, count, std::max(1, len_bits + bits_for((uint32_t)(max_row / window))), stream);
}

} // namespace gpuformats
