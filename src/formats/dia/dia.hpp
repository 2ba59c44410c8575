// DIA: the diagonal (stencil) layout, for matrices whose rows share a few column offsets j - i
// (a DMDA stencil: ex14's 7 points, a 27-point Laplacian). One value array per offset and no
// column index at all: 8 bytes per slot against CSR's 12 and EVC-HYB's 10 per entry (Saad,
// Iterative Methods for Sparse Linear Systems, 3.4; Bell and Garland, SC'09, "DIA").
//
//   A (4 x 4)        offsets = [-1 0 2], those of the first longest row (r1)    S = 4 (drawn; real: 32)
//   r0: a . b .      d = 0 (j = i - 1):  * c f g     slots 0..3      * padding: 0.0
//   r1: c d . e      d = 1 (j = i)    :  a d * h     slots 4..7
//   r2: . f . .      d = 2 (j = i + 2):  b e * *     slots 8..11
//   r3: . . g h      slot_of_csr = [4 8 | 1 5 9 | 2 | 3 7]
//
// Product: y[i] = alpha * sum_{d < ndiag} values[d*S + i] * x[i + offsets[d]] (+ beta*y[i]);
// a slot whose value is 0.0 is skipped, so padding never reads x (i + offsets[d] may lie outside
// the columns there), rows without entries never read x, and the sum runs in CSR order (offsets
// ascending). A stored zero is skipped as padding is: where x holds Inf or NaN at its column, AIJ
// gives NaN and DIA does not; every finite x gives AIJ's product (up to the sign of a zero).
//
// Invariants (the host builder is the specification; the device builder gives identical arrays):
//   offsets      the column offsets of the first longest row (lowest index of the rows of the
//                greatest length), ascending; ndiag = that length <= max_diags (at most 32)
//   every entry  A(i, j): j - i is one of the offsets, else Error(unsupported) naming the first
//                such entry (CSR order) and kFitsHint
//   S            nrows rounded up to 32 (each offset's array starts 256-byte aligned)
//   slot(i, d)   = d*S + i; nslots = ndiag*S; slots that hold no entry are 0.0
//   padding      ndiag*nrows - nnz <= max_pad_pct % of nnz (-mat_dia_max_pad_pct), else
//                Error(unsupported) before the padded array is allocated; the same for
//                nslots > INT32_MAX and, on the device, a layout beyond free memory
//   slot_of_csr  values[slot_of_csr[k]] == A.values[k]
// An empty matrix (no rows or no entries) builds with no offsets: the product writes beta*y.
//
// Mirrored reads: in a square block whose offsets come in pairs (+o, -o), row j's lower entry
// A(j, j - o) is usually its mirror A(j - o, j), the upper entry of row j - o. Every change of the
// values (build, refresh, edits: FormatBlock::values_changed) counts, in one pass on the device,
// the rows where some lower entry is not (bitwise: a NaN counts). Where none is, the product reads
// the diagonal and the upper offsets only, each row's lower entries from the upper values of rows
// j - o (ascending columns: the CSR-order sum, bit for bit): 8*(nupper + 1) bytes of values per row
// instead of 8*ndiag, the upper values re-read from L2. The count comes back without a sync; until
// it has, and wherever a row differs (snes ex14: its Dirichlet rows hold only the diagonal), the
// product reads every offset. The same count answers values_symmetric (the glue then runs a
// transposed product as the product). Storage stays full (the slot map's contract).
// -mat_dia_symmetric 0: never mirrored.
#pragma once
#include "../format.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpuformats {
namespace dia {

constexpr int32_t kMaxDiags = 32; // offsets a kernel carries in its parameters
constexpr int32_t kAlign    = 32; // S is a multiple of this (doubles)

enum Param { param_max_diags = 0, param_max_pad_pct = 1, param_rows_per_thread = 2, param_symmetric = 3, nparams = 4 };

// The sizes of a layout, everything but its arrays.
struct Geometry {
  int32_t nrows = 0, ncols = 0, ndiag = 0, stride = 0;
  int64_t nnz = 0, nslots = 0;
  int32_t offsets[kMaxDiags] = {};
  int32_t rows_per_thread = 1;
  // Symmetric pairs (plan): paired when square, every offset's negative an offset too, and
  // -mat_dia_symmetric 1; then upper[u] indexes the offsets > 0 (ascending), mirror[u] their
  // negatives, diag the offset 0 (-1: none).
  bool    paired = false;
  int32_t nupper = 0, diag = -1;
  int32_t upper[kMaxDiags] = {}, mirror[kMaxDiags] = {};
};

struct Layout : Geometry {
  std::vector<double>  values;      // nslots
  std::vector<int32_t> slot_of_csr; // nnz
};

struct Limits {
  int32_t max_diags = kMaxDiags, max_pad_pct = 15, rows_per_thread = 1;
  bool    symmetric = true;
};
// The parameters, checked against ops' table (Error(bad_input)).
Limits read_params(const int64_t *params);

// The refusals both builders throw (Error(unsupported) with kFitsHint).
Error too_many_offsets_error(int32_t row, int64_t length, int32_t max_diags);
Error offset_error(int32_t row, int32_t col, const Geometry &g);
Error padding_error(const Geometry &g, int32_t max_pad_pct);
// After the offsets are known: S, nslots, the symmetric pairs, and the padding, int32 and memory
// refusals (free_bytes < 0: not checked, as on the host).
void plan(Geometry &g, const Limits &lim, int64_t free_bytes = -1);

Layout build_host(const CsrView &A, const Limits &lim = {});
std::size_t stored_bytes(const Geometry &g); // values only: FormatBlock::bytes's count
// unmirrored: the rows whose lower entries differ from their mirrors (-1: not paired), for the
// last line.
void        describe(const Geometry &g, int64_t unmirrored, std::vector<LayoutStat> &out);
// Those rows of values, counted on the host (dia_rows.hpp's row_unmirrored; -1 where not paired).
int64_t     count_unmirrored(const Geometry &g, const double *values);

// A DIA block on the device, from A already uploaded in d (read, not taken).
std::unique_ptr<FormatBlock> make_block_uploaded(const CsrView &A, const DeviceCsr &d, const Limits &lim, cudaStream_t stream);

// DIA as a layout (layout/layout.hpp takes it for any type where the pattern is a stencil:
// -mat_gpuformats_stencil auto|off|on). Not registered as a type. may_refuse: every matrix
// whose entries do not all fall on the offsets of its longest row.
extern const FormatOps ops;

} // namespace dia
} // namespace gpuformats
