// Transposed products of a format block on the GPU: y = alpha A^T x + beta y, with A^T kept as
// A's CSC (the CSR of A^T), built on the device at the first transposed product and driven by
// cuSPARSE's non-transposed SpMV. Nothing is spent on a block that is never transposed.
//
//   A (3 x 4, CSR)      CSR slots k      CSC of A = CSR of A^T (4 x 3)
//   row 0: a . b .      a0 b1            col 0: a c      rowidx 0 1
//   row 1: c d . .      c2 d3            col 1: d e      rowidx 1 2
//   row 2: . e . f      e4 f5            col 2: b        rowidx 0
//                                        col 3: f        rowidx 2
//   perm (CSC position -> CSR position) = [0 2 3 4 1 5], colptr = [0 2 4 5 6]
//   slot_of_csc[p] = slot_of_csr[perm[p]]:  values_t[p] = format values[slot_of_csc[p]]
//
// Build (transpose_build.cuh, on any Thrust system): A's CSR structure uploaded (staged by host
// threads, core/host_upload.hpp), a stable sort of the CSR positions by column, then rowidx, colptr
// and slot_of_csc; the values come from the format's own device array (no value upload). A
// values-only refresh is one gather through slot_of_csc.
//
// Why a CSC and not cuSPARSE's transposed SpMV on A's CSR (what aijcusparse does by default): the
// non-transposed SpMV on the CSC took 0.44-0.81 of its time on 6 matrices of the GPU suite (stencils,
// FEM, R-MAT, scaled real ones), H100
// (bench/results/h100/transpose/transpose.txt). Building it
// here (8-27 ms on them) replaced a seqaijcusparse view uploaded from the host (64-330 ms,
// transpose-before.txt). Memory: 16 bytes per nonzero + 4 per column (values, row index, slot map;
// column pointers).
#pragma once
#include "../core/csr.hpp"
#include "../formats/format.hpp"

#include <cstddef>
#include <memory>

namespace gpuformats {

class TransposedBlock {
public:
  virtual ~TransposedBlock() = default;
  // A^T from A's host CSR structure and blk, the format block of A on the cuda backend holding A's
  // current values. Asynchronous on `stream` apart from the structure's upload. Throws Error.
  static std::unique_ptr<TransposedBlock> build(const CsrView &A, const FormatBlock &blk, cudaStream_t stream, int upload_threads = 1);
  // The values again from blk (same pattern, new values).
  virtual void refresh(const FormatBlock &blk, cudaStream_t stream) = 0;
  // y = alpha A^T x + beta y; x has A.nrows entries, y A.ncols (device memory). beta == 0: y is write-only.
  virtual void spmv(double alpha, const double *x, double beta, double *y, cudaStream_t stream) = 0;
  virtual std::size_t bytes() const = 0; // device memory held
};

} // namespace gpuformats
