// The padded-slot count behind pJDS's auto sort window (pjds.hpp), with Thrust on any execution
// policy: the device builder runs it on the GPU, the unit test on thrust::host against
// padded_slots_host. Sort keys: (window of the row, INT32_MAX - its length), so one sort
// orders every window longest first; a block's width is then the length at its first position.
#pragma once
#include "pjds.hpp"

#include "../../core/row_permutation.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

namespace gpuformats {
namespace pjds {

struct WindowLengthKey {
  const int32_t *rowptr;
  int64_t        window;   // rows per window (a multiple of b_r); >= nrows: one window
  int32_t        long_row; // rows longer count as empty (0: none)
  __host__ __device__ int64_t operator()(int32_t i) const { return ((int64_t)(i / window) << 32) | (int64_t)(uint32_t)(INT32_MAX - sort_length(rowptr[i + 1] - rowptr[i], long_row)); }
};
struct BlockLeadSlots { // b_r * length of the first (longest) row of block b in the sorted keys
  const int64_t *keys;
  int32_t        br;
  __host__ __device__ int64_t operator()(int32_t b) const { return (int64_t)br * (INT32_MAX - (int32_t)(keys[(int64_t)b * br] & 0xffffffff)); }
};

// padded_slots_host from CSR row pointers; keys: scratch of nrows entries, same memory space.
template <class Policy>
int64_t count_padded_slots(Policy pol, int64_t *keys, const int32_t *rowptr, int32_t nrows, int32_t br, int32_t window, int32_t long_row)
{
  if (nrows == 0) return 0;
  const int64_t                            W = window > 0 ? ((int64_t)window + br - 1) / br * br : (int64_t)nrows;
  const thrust::counting_iterator<int32_t> zero(0);
  thrust::transform(pol, zero, zero + nrows, keys, WindowLengthKey{rowptr, W, long_row});
  thrust::sort(pol, keys, keys + nrows);
  const int32_t nb = (int32_t)(((int64_t)nrows + br - 1) / br);
  return thrust::transform_reduce(pol, zero, zero + nb, BlockLeadSlots{keys, br}, (int64_t)0, thrust::plus<int64_t>());
}

} // namespace pjds
} // namespace gpuformats
