// Compressed rows: a block whose rows are mostly empty, kept in its layout over its nonempty rows
// only, as PETSc's compressed-row AIJ keeps MPIAIJ's off-process block. That block is the case: on 2
// ranks of a 7-point 256^3 grid, 65536 of a rank's 8.4 M rows have entries there.
//
//   A: 6 rows, 2 with entries          inner: the layout of the 2 rows    rows = {1, 4}
//   row 0  [          ]                 row 0  [ a  b     ]
//   row 1  [ a  b     ]        ->       row 1  [       c  ]
//   row 2  [          ]
//   row 3  [          ]              y = A x:  t = inner x (2 values); y = beta y; y[rows[i]] += t[i]
//   row 4  [       c  ]
//   row 5  [          ]
//
// The product then costs the entries and those rows, not a pass over y: measured on 2 H200s, the
// off-process product took 58 us a product on st7_256 (8.4 M rows a rank), 32 us on st7_200 and
// 38 us on st5_3200, about 7 us per million rows, where its entries need a few.
//
// Invariants: the inner layout is built from the compressed CSR, whose entries are A's in A's
// order, so slot_of_csr, values and every value writer (refresh, edits, COO, the diagonal, the
// factor and transpose views) are the inner's unchanged; nrows is A's. Taken where at most
// kCompressRowsShare of the rows have entries, after the block layout (BELL keeps its block rows).
// The glue asks for it on an mpi matrix's off-process block only: a local block's product writes
// all of y anyway, and the extra pass over t cost 3-15% on one H200 (rmat_s22, x_ca_grqc).
#pragma once
#include "../formats/format.hpp"

#include <memory>
#include <vector>

namespace gpuformats::layout {

constexpr double kCompressRowsShare = 0.5;

// A's nonempty rows, and the CSR over them (its rowptr here; columns and values are A's arrays).
struct CompressedRows {
  std::vector<int32_t> rows;   // the nonempty rows of A, ascending
  std::vector<int32_t> rowptr; // rows.size() + 1 entries
  CsrView              view;   // rows.size() x A.ncols, A's entries
};

// The compressed CSR where A has at most kCompressRowsShare nonempty rows (and some); else null.
std::unique_ptr<CompressedRows> compress_rows(const CsrView &A);

// A block of A's shape whose product runs `inner` (built from c->view) on the nonempty rows. For
// the cuda backend the row list is uploaded on `stream`.
std::unique_ptr<FormatBlock> with_compressed_rows(std::unique_ptr<FormatBlock> inner, const CsrView &A, const CompressedRows &c, Backend backend, cudaStream_t stream);

// The cuda product's last step (compressed_rows_cuda.cu): y = beta y over all n rows, then
// y[rows[i]] += t[i] for the k rows.
void compressed_rows_add_cuda(const int32_t *rows, int32_t k, const double *t, double beta, double *y, int32_t n, cudaStream_t stream);

} // namespace gpuformats::layout
