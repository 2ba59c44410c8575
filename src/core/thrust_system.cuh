// Where a device builder written once with Thrust runs (the formats' builders in *_device.cuh and
// suraa_build.cuh are templated on it): CudaSystem, the GPU on a stream with DeviceBuffer storage
// and the device row permutation; HostSystem, thrust::host with std::vector storage and the host
// permutation, so that CI (no GPU) runs the very code the GPU build runs and compares it with the
// host builders (test/unit/test_<fmt>_build.cu).
//   buffer<T>        storage with data() / resize(); temp<T>(n) a temporary one
//   policy()         the Thrust execution policy
//   row_permutation  sorted_row_permutation(_cuda) (core/row_permutation.hpp) into perm
//   window_sort      window_sort_range(_cuda) of count positions of a permutation, in place
//   get(p)           one value of a buffer, on the host
//   to_system(d, h, n), to_host(h, d, n)   n values from host memory into a buffer, and back
//                    (to_host returns once they have arrived)
//   free_bytes()     memory a padded layout may still take (a refusal is decided before allocating)
//   sync()           temporaries may be freed after this
//   sort_pairs       keys and int32 values sorted stably by the keys' low end_bit bits (CUB's radix sort)
// CudaOrderedSystem: CudaSystem with the non-synchronising policy and stream-ordered temporaries
// (temp(n)); its builders synchronise themselves before reading back or freeing (SURAA's).
#pragma once
#include "device_buffer.hpp"
#include "radix_sort.cuh"
#include "row_permutation.hpp"

#include <thrust/execution_policy.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace gpuformats {

struct CudaSystem {
  cudaStream_t stream;
  template <class T>
  using buffer = DeviceBuffer<T>;
  auto policy() const { return thrust::cuda::par.on(stream); }
  template <class T>
  buffer<T> temp(std::size_t n) const { return buffer<T>(n); }
  template <class Key>
  void sort_pairs(const Key *keys_in, Key *keys_out, const int32_t *values_in, int32_t *values_out, int32_t n, int end_bit) const { radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, end_bit, stream); }
  void row_permutation(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t long_row, int32_t *perm) const
  {
    sorted_row_permutation_cuda(rowptr, colidx, nrows, ncols, order, window, perm, stream, long_row);
  }
  void window_sort(const int32_t *rowptr, int32_t *perm, int32_t count, int32_t window, WindowOrder order) const { window_sort_range_cuda(rowptr, perm, count, window, order, stream); }
  template <class T>
  void to_system(T *dst, const T *host, std::size_t n) const
  {
    if (n) GPUFORMATS_CUDA(cudaMemcpyAsync(dst, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  template <class T>
  void to_host(T *host, const T *src, std::size_t n) const
  {
    if (n) GPUFORMATS_CUDA(cudaMemcpyAsync(host, src, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
  }
  template <class T>
  T get(const T *p) const
  {
    T v{};
    GPUFORMATS_CUDA(cudaMemcpyAsync(&v, p, sizeof(T), cudaMemcpyDeviceToHost, stream));
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
    return v;
  }
  int64_t free_bytes() const
  {
    size_t free = 0, total = 0;
    GPUFORMATS_CUDA(cudaMemGetInfo(&free, &total));
    return (int64_t)free;
  }
  void sync() const { GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); }
};

struct CudaOrderedSystem : CudaSystem {
  auto policy() const { return thrust::cuda::par_nosync.on(stream); }
  template <class T>
  buffer<T> temp(std::size_t n) const { return buffer<T>(n, stream); }
};

struct HostSystem {
  template <class T>
  using buffer = std::vector<T>;
  auto policy() const { return thrust::host; }
  template <class T>
  buffer<T> temp(std::size_t n) const { return buffer<T>(n); }
  template <class Key>
  void sort_pairs(const Key *keys_in, Key *keys_out, const int32_t *values_in, int32_t *values_out, int32_t n, int end_bit) const
  {
    // The bits CUB compares (the builders' keys are non-negative, all below end_bit).
    const uint64_t       mask = end_bit >= 64 ? ~uint64_t(0) : (uint64_t(1) << end_bit) - 1;
    auto                 bits = [&](int32_t k) { return (uint64_t)(std::make_unsigned_t<Key>)keys_in[k] & mask; };
    std::vector<int32_t> order(n);
    for (int32_t k = 0; k < n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return bits(a) < bits(b); });
    std::vector<Key>     keys(n);
    std::vector<int32_t> values(n);
    for (int32_t k = 0; k < n; ++k) keys[k] = keys_in[order[k]], values[k] = values_in[order[k]];
    std::copy(keys.begin(), keys.end(), keys_out);
    std::copy(values.begin(), values.end(), values_out);
  }
  void row_permutation(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t long_row, int32_t *perm) const
  {
    const CsrView              A{nrows, ncols, (int64_t)rowptr[nrows], rowptr, colidx, nullptr};
    const std::vector<int32_t> p = sorted_row_permutation(A, order, window, long_row);
    std::copy(p.begin(), p.end(), perm);
  }
  void window_sort(const int32_t *rowptr, int32_t *perm, int32_t count, int32_t window, WindowOrder order) const
  {
    const CsrView        A{0, 0, 0, rowptr, nullptr, nullptr}; // window_sort_range reads row lengths only
    std::vector<int32_t> p(perm, perm + count);
    window_sort_range(A, p, 0, count, window, order);
    std::copy(p.begin(), p.end(), perm);
  }
  template <class T>
  void to_system(T *dst, const T *host, std::size_t n) const { std::copy(host, host + n, dst); }
  template <class T>
  void to_host(T *host, const T *src, std::size_t n) const { std::copy(src, src + n, host); }
  template <class T>
  T get(const T *p) const { return *p; }
  int64_t free_bytes() const { return -1; } // not checked (as the host builders)
  void    sync() const {}
};

} // namespace gpuformats
