// The sorted-row permutation every format shares.
//
//   perm[k] = the original row placed at position k.
//
// Rows are ordered by length (longest first or shortest first); ties by the column of the row's
// first nonzero (empty rows count as ncols, so they go last among equals), then by row index. The
// order is total, so the host and the device versions give identical permutations (tested).
// With window > 0, rows are sorted only inside consecutive windows of `window` rows (as
// SELL-C-sigma does), which keeps the natural order's x and y locality across windows.
// With long_row > 0, rows longer than long_row are ordered as empty rows (length 0, first column
// ncols): pJDS keeps such rows out of its jagged diagonals, so they must not lead its blocks.
#pragma once
#include "csr.hpp"

#include <cuda_runtime_api.h>

namespace gpuformats {

enum class RowOrder { longest_first, shortest_first };

// The length a row is sorted by: its length, or 0 when long_row > 0 and the row is longer.
#ifdef __CUDACC__
__host__ __device__
#endif
inline int32_t sort_length(int32_t length, int32_t long_row) { return long_row > 0 && length > long_row ? 0 : length; }

std::vector<int32_t> sorted_row_permutation(const CsrView &A, RowOrder order, int32_t window = 0, int32_t long_row = 0);

// Device version: d_rowptr / d_colidx hold the CSR structure on the device; d_perm receives nrows
// entries. Thrust/CUB radix sorts on `stream`; asynchronous.
void sorted_row_permutation_cuda(const int32_t *d_rowptr, const int32_t *d_colidx, int32_t nrows, int32_t ncols, RowOrder order, int32_t window, int32_t *d_perm, cudaStream_t stream, int32_t long_row = 0);

// Stable re-sort of perm[first, end) by window of the original row (perm[k] / window): inside a
// window the order perm had survives. The windowed permutation above is the global one followed by
// this on the whole range; EVC-HYB applies it to its ELL rows only, with WindowOrder::alternate:
// odd windows reverse the length order (longest first; equal lengths keep perm's order), so the
// rows that meet at a window boundary have similar lengths (a slice that straddles two windows
// then pads little: measured on power-grid/LP/graph matrices, 11-16% padding -> see evchyb.hpp).
enum class WindowOrder { same, alternate };
void window_sort_range(const CsrView &A, std::vector<int32_t> &perm, int32_t first, int32_t end, int32_t window, WindowOrder order);
void window_sort_range_cuda(const int32_t *d_rowptr, int32_t *d_perm, int32_t count, int32_t window, WindowOrder order, cudaStream_t stream);

// inverse[perm[k]] = k
std::vector<int32_t> invert_permutation(const std::vector<int32_t> &perm);

} // namespace gpuformats
