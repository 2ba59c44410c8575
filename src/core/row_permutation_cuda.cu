// Device version of the sorted-row permutation (see row_permutation.hpp for the order).
// One 64-bit key per row, (length key << 32 | first column), radix-sorted together with the row
// index; radix sort is stable, so equal keys keep increasing row index: the host's total order.
#include "device_buffer.hpp"
#include "row_permutation.hpp"

#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/iterator/counting_iterator.h>

namespace gpuformats {

namespace {
struct RowSortKey {
  const int32_t *rowptr, *colidx;
  int32_t        ncols, long_row;
  bool           longest_first;
  __device__ uint64_t operator()(int32_t i) const
  {
    const int32_t  len = sort_length(rowptr[i + 1] - rowptr[i], long_row);
    const uint32_t fc  = len ? (uint32_t)colidx[rowptr[i]] : (uint32_t)ncols;
    const uint32_t lk  = longest_first ? 0x7fffffffu - (uint32_t)len : (uint32_t)len;
    return ((uint64_t)lk << 32) | fc;
  }
};
// (window << 32) | (odd window and alternate ? INT32_MAX - length : 0): stable-sorted, rows keep
// their order inside a window, except that alternate odd windows go longest first.
struct WindowKey {
  const int32_t *rowptr;
  int32_t        window;
  bool           alternate;
  __device__ uint64_t operator()(int32_t row) const
  {
    const uint32_t w = (uint32_t)(row / window);
    return ((uint64_t)w << 32) | (alternate && (w & 1) ? (uint32_t)(INT32_MAX - (rowptr[row + 1] - rowptr[row])) : 0u);
  }
};
} // namespace

void sorted_row_permutation_cuda(const int32_t *d_rowptr, const int32_t *d_colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t *d_perm, cudaStream_t stream, int32_t long_row)
{
  if (nrows <= 0) return;
  auto                   pol = thrust::cuda::par.on(stream);
  DeviceBuffer<uint64_t> keys(nrows);
  thrust::sequence(pol, d_perm, d_perm + nrows);
  thrust::transform(pol, thrust::counting_iterator<int32_t>(0), thrust::counting_iterator<int32_t>(nrows), keys.data(), RowSortKey{d_rowptr, d_colidx, ncols, long_row, order == RowOrder::longest_first});
  thrust::stable_sort_by_key(pol, keys.data(), keys.data() + nrows, d_perm);
  if (window > 0 && window < nrows) window_sort_range_cuda(d_rowptr, d_perm, nrows, window, WindowOrder::same, stream);
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the key buffers are freed on return
}

void window_sort_range_cuda(const int32_t *d_rowptr, int32_t *d_perm, int32_t count, int32_t window, WindowOrder order, cudaStream_t stream)
{
  if (window <= 0 || count < 2) return;
  auto                   pol = thrust::cuda::par.on(stream);
  DeviceBuffer<uint64_t> key(count);
  thrust::transform(pol, d_perm, d_perm + count, key.data(), WindowKey{d_rowptr, window, order == WindowOrder::alternate});
  thrust::stable_sort_by_key(pol, key.data(), key.data() + count, d_perm);
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // key is freed on return
}

} // namespace gpuformats
