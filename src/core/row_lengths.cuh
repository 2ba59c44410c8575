// Functors over a CSR's rows that the Thrust device builders share (any policy: the host tests run
// them on thrust::host too).
#pragma once
#include <cstdint>

namespace gpuformats {

struct RowLength { // length of row i
  const int32_t *rowptr;
  __host__ __device__ int32_t operator()(int32_t i) const { return rowptr[i + 1] - rowptr[i]; }
};
struct StoredLength { // length of the row stored at position p of a permutation
  const int32_t *rowptr, *perm; // perm null: identity
  __host__ __device__ int32_t operator()(int32_t p) const
  {
    const int32_t i = perm ? perm[p] : p;
    return rowptr[i + 1] - rowptr[i];
  }
};
struct IsZero {
  __host__ __device__ bool operator()(int32_t v) const { return v == 0; }
};
struct ToInt64 {
  __host__ __device__ int64_t operator()(int32_t v) const { return v; }
};

} // namespace gpuformats
