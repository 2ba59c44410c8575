// The CSC of a CSR structure (transpose.hpp), generic over where it runs: Thrust algorithms on a
// policy, so transpose_cuda.cu runs them on the GPU and test_transpose_build runs the very same
// code on thrust::host against a plain host transpose.
#pragma once
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cstdint>

namespace gpuformats {
namespace transpose_detail {

struct MinusOne {
  __host__ __device__ int32_t operator()(int32_t v) const { return v - 1; }
};

// From A's CSR structure (rowptr: nrows + 1, colidx: nnz) and the format's slot_of_csr (nnz), all
// in the policy's memory: colptr (ncols + 1), rowidx (nnz) and slot_of_csc (nnz) of A's CSC.
// keys and perm are nnz entries of scratch; perm ends as the CSC position -> CSR position map.
template <class Policy>
void build_csc(Policy pol, const int32_t *rowptr, const int32_t *colidx, const int32_t *slot_of_csr, int32_t nrows, int32_t ncols, int64_t nnz, int32_t *keys, int32_t *perm, int32_t *colptr, int32_t *rowidx, int32_t *slot_of_csc)
{
  const thrust::counting_iterator<int32_t> zero(0);
  thrust::copy(pol, colidx, colidx + nnz, keys);
  thrust::sequence(pol, perm, perm + nnz);
  // Stable: within a column the entries keep CSR order, i.e. ascending rows (a sorted CSC).
  thrust::stable_sort_by_key(pol, keys, keys + nnz, perm);
  // The row of CSR position q is the last i with rowptr[i] <= q (empty rows repeat rowptr values).
  thrust::upper_bound(pol, rowptr, rowptr + nrows + 1, perm, perm + nnz, rowidx);
  thrust::transform(pol, rowidx, rowidx + nnz, rowidx, MinusOne{});
  thrust::lower_bound(pol, keys, keys + nnz, zero, zero + ncols + 1, colptr);
  thrust::gather(pol, perm, perm + nnz, slot_of_csr, slot_of_csc);
}

} // namespace transpose_detail
} // namespace gpuformats
