// The stable radix sort of the device builders (the row permutation, SURAA's tiles): CUB on only
// the key bits in use (8 bits a pass), its temporary storage stream-ordered (DeviceBuffer(n, s)).
#pragma once
#include "device_buffer.hpp"

#include <cub/device/device_radix_sort.cuh>

namespace gpuformats {

// Bits to hold 0..v.
inline int bits_for(uint32_t v)
{
  int b = 0;
  while (b < 32 && (v >> b) != 0) ++b;
  return b;
}

// (keys, values) sorted on key bits [0, end_bit), stably: values_out gets the values in key order.
template <class Key>
void radix_sort_pairs(const Key *keys_in, Key *keys_out, const int32_t *values_in, int32_t *values_out, int32_t n, int end_bit, cudaStream_t stream)
{
  size_t bytes = 0;
  GPUFORMATS_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in, values_out, n, 0, end_bit, stream));
  DeviceBuffer<unsigned char> tmp(bytes, stream);
  GPUFORMATS_CUDA(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, keys_in, keys_out, values_in, values_out, n, 0, end_bit, stream));
}

} // namespace gpuformats
