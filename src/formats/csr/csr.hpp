// cuSPARSE CSR as a layout: the plain CSR of the AIJ block, multiplied by cusparseSpMV
// (CUSPARSE_SPMV_CSR_ALG1), what PETSc's aijcusparse runs for MatMult. It is not a matrix type of
// its own (aijcusparse is that); it is the baseline candidate of gpuauto (model/auto.hpp), so the
// model's choice can never be worse than PETSc's own CSR, and the candidate the calibration times.
//
//   rows   CSR (3 x 4)                       values        = csr.values   (nslots = nnz)
//   0      [a . b .]    rowptr 0 2 3 5       slot_of_csr[k] = k           (no padding, no order)
//   1      [. c . .]    colidx 0 2 1 0 3
//   2      [d . . e]
//
// y = alpha A x + beta y by cusparseSpMV on streams[0] (the host backend: csr_spmv_host). Invariants:
// the values are the CSR's, in its order; beta == 0 never reads y; an empty matrix (no rows or no
// entries) writes beta y.
#pragma once
#include "../format.hpp"

namespace gpuformats {

extern const FormatOps cusparse_csr_ops; // root "cusparse_csr" (model::kCusparseCsr); not registered as a type

namespace csr {
std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params);
std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up);
// Takes d's arrays (no copy).
std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream);
} // namespace csr

} // namespace gpuformats
