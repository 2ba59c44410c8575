// Generic operations on a FormatBlock's (values, slot_of_csr) pair: the values-only refresh that
// replaces a rebuild when only the values of an assembled matrix changed (every Newton step), and
// the diagonal. No format-specific code; it sits beside the contract it works on (format.hpp), so
// core/ depends on nothing above it.
#pragma once
#include "../core/device_buffer.hpp"
#include "../core/stage_timer.hpp"
#include "format.hpp"

namespace gpuformats {

// values[slot_of_csr[k]] = csr_values[k], on the host backend.
void refresh_values_host(FormatBlock &blk, const double *csr_values);

// Cuda backend: uploads the host CSR values into `staging` (grown as needed; keep it with the
// block), staged and timed as `up` says, and scatters them through slot_of_csr on `stream`.
// Asynchronous. up.timer gets the upload marked (an empty block marks none); the caller finishes
// it after the scatter.
void refresh_values_cuda(FormatBlock &blk, const double *csr_values_host, DeviceBuffer<double> &staging, cudaStream_t stream, const UploadContext &up = {});

// out[k] = values[slot_of_csr[k]] for k < nnz: the CSR value array back from the layout (a
// factorization's device copy of A, filled without an upload).
void gather_csr_values_host(const FormatBlock &blk, double *out);
void gather_csr_values_cuda(const FormatBlock &blk, double *d_out, cudaStream_t stream);

// diag_pos[i] = CSR position of entry (i, i + col_offset), or -1 where the row has none.
std::vector<int32_t> diagonal_positions(const CsrView &A, int32_t col_offset = 0);

// The same on the device, from a CSR there (a build's upload): pos[i] for i < nrows, columns sorted.
// Returns how many rows have no diagonal entry (synchronises).
int64_t diagonal_positions_cuda(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t *pos, cudaStream_t stream);

// d[i] = values[slot_of_csr[diag_pos[i]]] (0 where diag_pos[i] < 0), for i < n.
void gather_diagonal_host(const FormatBlock &blk, const int32_t *diag_pos, int32_t n, double *d);
void gather_diagonal_cuda(const FormatBlock &blk, const int32_t *d_diag_pos, int32_t n, double *d_out, cudaStream_t stream);

} // namespace gpuformats

namespace gpuformats {

// In-place value edits, for a matrix whose layout is current: the layout's values change as the
// CSR's did on the host (MatScale, MatShift, MatDiagonalSet, MatDiagonalScale, MatAXPY with the
// same pattern), with no upload. Pointers are in the block's backend memory; asynchronous on
// `stream` (ignored on the host backend). Padding slots stay 0 (callers keep `a` finite).

// values[s] *= a for every slot; zero_values: = 0 (MatZeroEntries: an Inf or NaN becomes 0 too).
void scale_values(FormatBlock &blk, double a, cudaStream_t stream);
void zero_values(FormatBlock &blk, cudaStream_t stream);
// For pos[i] >= 0 (i < n): values[slot_of_csr[pos[i]]] = (add ? itself : 0) + (v ? v[i] : c).
void set_at_positions(FormatBlock &blk, const int32_t *pos, int32_t n, const double *v, double c, bool add, cudaStream_t stream);
// MatSetValuesCOO: CSR entry k = (add ? itself : 0) + sum of v[perm[p]] for jmap[k] <= p < jmap[k+1]
// (PETSc's map of the COO entries onto the CSR, duplicates summed), every pointer in backend memory.
void coo_values(FormatBlock &blk, const int64_t *jmap, const int64_t *perm, const double *v, bool add, cudaStream_t stream);
// The same map without duplicates (jmap[k] == k): each of the n COO entries' slot, composed once
// (slot_of_coo[perm[k]] = slot_of_csr[k], -1 for ignored entries), then one pass over the entries
// in their own order: values[slot_of_coo[e]] = (add ? itself : 0) + v[e]. 12 bytes read per entry
// instead of the general map's 28.
void coo_slots(const FormatBlock &blk, const int64_t *perm, int32_t *slot_of_coo, int64_t n, cudaStream_t stream);
void coo_values_unique(FormatBlock &blk, const int32_t *slot_of_coo, int64_t n, const double *v, bool add, cudaStream_t stream);
// An mpi matrix's entries received from other ranks (PETSc's MPIAIJ COO map, second part): for
// i < n, CSR entry imap[i] += v[perm[p]] for jmap[i] <= p < jmap[i+1], one at a time as AIJ adds them.
void coo_add_received(FormatBlock &blk, const int64_t *imap, const int64_t *jmap, const int64_t *perm, int64_t n, const double *v, cudaStream_t stream);
// The values to send: out[i] = v[perm[i]] for i < n, in `backend`'s memory.
void coo_pack(Backend backend, const int64_t *perm, int64_t n, const double *v, double *out, cudaStream_t stream);
// CSR entry (i, cols[k]) times l[i] * r[cols[k]] (l or r null: 1), rowptr/cols the block's pattern.
void scale_rows_cols(FormatBlock &blk, const int32_t *rowptr, const int32_t *cols, const double *l, const double *r, cudaStream_t stream);
// MatZeroRows with the pattern kept: each of the n listed rows r (rowptr the block's pattern) gets
// every entry 0, then its diagonal entry diag where diag != 0 and diag_pos[r] >= 0; b[r] = diag *
// x[r] where x and b are given and r < ncols. Listed twice, a row gets the same values twice.
void zero_rows(FormatBlock &blk, const int32_t *rowptr, const int32_t *rows, int32_t n, const int32_t *diag_pos, double diag, const double *x, double *b, int32_t ncols, cudaStream_t stream);
// MatZeroRowsColumns of a square block: marks (nrows entries, scratch) flags the n listed rows.
// A listed row gets every entry 0, its diagonal diag (diag != 0, diag_pos >= 0) and b[i] = diag *
// x[i]; any other row gets its entries in listed columns 0, each first taken from b as a_ic x_c
// (x and b given), in the row's order, as AIJ subtracts them.
void zero_rows_columns(FormatBlock &blk, const int32_t *rowptr, const int32_t *cols, const int32_t *rows, int32_t n, int32_t *marks, const int32_t *diag_pos, double diag, const double *x, double *b, cudaStream_t stream);
// Y's CSR entry k += a * X's CSR entry k, for two layouts of the same nonzero pattern (any formats);
// same_layout (same_slot_map() said so): slot by slot, without reading the slot maps.
void axpy_values(FormatBlock &Y, double a, const FormatBlock &X, bool same_layout, cudaStream_t stream);
// Whether two layouts of one pattern put every entry in the same slot (and have as many): synchronises.
bool same_slot_map(const FormatBlock &X, const FormatBlock &Y, cudaStream_t stream);

} // namespace gpuformats
