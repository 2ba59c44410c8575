// A test-only format written by CONTRIBUTING.md's "Adding a format" recipe, to show that the recipe
// is true: a format made by its steps 1 (the host half), 2 (the FormatOps) and 5 (a documented
// refusal, written in format_checks.hpp's refusal_expected) passes every check test_formats runs
// on the registered formats, through the slot map's generic code and nothing of its own. It is not
// registered (step 3 would make it a PETSc type), so it has no device half (steps 1's .cuh / .cu, 4).
//
//   "rowpad": A's rows in CSR order, each followed by `pad` zero slots; a row longer than max_row
//   is refused. A (3 x 3), pad 1:   values  a00 a02 0 | a11 0 | a20 a21 a22 0
//   r0: a00 .   a02                 cols    0   2   - | 1   - | 0   1   2   -
//   r1: .   a11 .                   start   0 3 5 9   (slot_of_csr: 0 1 3 5 6 7)
//   r2: a20 a21 a22
#pragma once
#include "formats/format.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gftest {
namespace rowpad {

using namespace gpuformats;

enum Param { param_pad, param_max_row, nparams };
inline const FormatParam kParams[nparams] = {
  {"pad", "zero slots after each row", 1, 0, 4},
  {"max_row", "longest row held; a longer one is refused", 1000, 1, 1 << 20},
};

class HostBlock final : public FormatBlock {
public:
  std::vector<double>  vals;
  std::vector<int32_t> cols, start, slots;
  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override
  {
    for (int32_t i = 0; i < nrows; ++i) {
      double s = 0.0;
      for (int32_t q = start[i]; q < start[i + 1]; ++q)
        if (cols[q] >= 0) s += vals[q] * x[cols[q]]; // padding reads no x
      y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
  }
  std::size_t bytes() const override { return vals.size() * (sizeof(double) + sizeof(int32_t)) + start.size() * sizeof(int32_t); }
  void        describe(std::vector<LayoutStat> &out) const override { out.push_back({"rowpad", std::to_string(vals.size() - (std::size_t)nnz) + " padding slots"}); }
};

inline std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params);
inline const FormatOps ops{"rowpad", "test-only: rows in CSR order, each padded", kParams, nparams, 0, build_host, nullptr, true, nullptr};

inline std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params)
{
  const int64_t pad = checked_param(ops, params, param_pad), max_row = checked_param(ops, params, param_max_row);
  for (int32_t i = 0; i < A.nrows; ++i)
    if (A.row_length(i) > max_row) throw Error(ErrorKind::unsupported, "rowpad: row " + std::to_string(i) + " is longer than -mat_rowpad_max_row. " + kFitsHint + ": every other format");
  auto b = std::make_unique<HostBlock>();
  b->start.assign(A.nrows + 1, 0);
  for (int32_t i = 0; i < A.nrows; ++i) b->start[i + 1] = b->start[i] + A.row_length(i) + (int32_t)pad;
  b->vals.assign(b->start[A.nrows], 0.0);
  b->cols.assign(b->start[A.nrows], -1);
  b->slots.resize(A.nnz);
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const int32_t q = b->start[i] + (k - A.rowptr[i]);
      b->vals[q] = A.values[k], b->cols[q] = A.colidx[k], b->slots[k] = q;
    }
  b->set_layout(Backend::host, A, b->vals.data(), (int64_t)b->vals.size(), b->slots.data());
  return b;
}

// Its documented refusal (step 5), decided from the matrix alone.
inline bool refusal_expected(const CsrView &A, int64_t max_row)
{
  for (int32_t i = 0; i < A.nrows; ++i)
    if (A.row_length(i) > max_row) return true;
  return false;
}

} // namespace rowpad
} // namespace gftest
