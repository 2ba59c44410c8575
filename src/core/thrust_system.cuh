// Where a device builder written once with Thrust runs (the formats' *_device.cuh builders are
// templated on it): CudaSystem, the GPU on a stream with DeviceBuffer storage and the device row
// permutation; HostSystem, thrust::host with std::vector storage and the host permutation, so that
// CI (no GPU) runs the very code the GPU build runs and compares it with the host builders.
//   buffer<T>        storage with data() / resize()
//   policy()         the Thrust execution policy
//   row_permutation  sorted_row_permutation(_cuda) (core/row_permutation.hpp) into perm
//   get(p)           one value of a buffer, on the host
//   free_bytes()     memory a padded layout may still take (a refusal is decided before allocating)
//   sync()           temporaries may be freed after this
#pragma once
#include "device_buffer.hpp"
#include "row_permutation.hpp"

#include <thrust/execution_policy.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace gpuformats {

struct CudaSystem {
  cudaStream_t stream;
  template <class T>
  using buffer = DeviceBuffer<T>;
  auto policy() const { return thrust::cuda::par.on(stream); }
  void row_permutation(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t long_row, int32_t *perm) const
  {
    sorted_row_permutation_cuda(rowptr, colidx, nrows, ncols, order, window, perm, stream, long_row);
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

struct HostSystem {
  template <class T>
  using buffer = std::vector<T>;
  auto policy() const { return thrust::host; }
  void row_permutation(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t long_row, int32_t *perm) const
  {
    const CsrView              A{nrows, ncols, (int64_t)rowptr[nrows], rowptr, colidx, nullptr};
    const std::vector<int32_t> p = sorted_row_permutation(A, order, window, long_row);
    std::copy(p.begin(), p.end(), perm);
  }
  template <class T>
  T get(const T *p) const { return *p; }
  int64_t free_bytes() const { return -1; } // not checked (as the host builders)
  void    sync() const {}
};

} // namespace gpuformats
