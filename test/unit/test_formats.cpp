// Every registered format's host builder and host reference product against the CSR oracle, on the
// edge cases and the real matrices in test/matrices: products, slot map, padding, values-only
// refresh, diagonal. The GPU suite (test/gpu/test_formats_cuda.cpp) holds the cuda builds to these.
#include "common/format_checks.hpp"
#include "formats/csr/csr.hpp"
#include "formats/dia/dia.hpp"

using namespace gftest;

static void check_format_on(const FormatOps &ops, const std::vector<int64_t> &params, const std::string &tag, const NamedMatrix &m)
{
  const CsrView                A    = m.A.view();
  const std::string            name = std::string(ops.root) + tag + "." + m.name;
  std::unique_ptr<FormatBlock> blk;
  try {
    blk = ops.build_host(A, params.data());
  } catch (const Error &e) {
    check_refusal(ops, e, name + ".build", A, params.data());
    return;
  }
  check(!refusal_expected(ops, A, params.data()), name + ".refusal_expected", "built a matrix the format's documented rule refuses");
  std::string why;
  check(blk && blk->nrows == A.nrows && blk->ncols == A.ncols && blk->nnz == A.nnz && blk->backend == Backend::host, name + ".shape");
  check(check_slot_map(A, std::vector<double>(blk->values, blk->values + blk->nslots), std::vector<int32_t>(blk->slot_of_csr, blk->slot_of_csr + blk->nnz), why), name + ".slots", why);

  const std::vector<double> x = test_vector(A.ncols, 1), y0 = test_vector(A.nrows, 2);
  for (const ProductCase &pc : product_cases()) {
    std::vector<double> want = y0, got(A.nrows, pc.beta == 0.0 ? NAN : 0.0);
    if (pc.beta != 0.0) got = y0;
    csr_spmv_host(A, pc.alpha, x.data(), pc.beta, want.data());
    blk->spmv(pc.alpha, x.data(), pc.beta, got.data(), StreamSet{});
    check(close_products(A, x, got, want, pc.alpha, pc.beta, y0, why), name + "." + pc.name, why);
  }

  check(empty_rows_ignore_x(
          A,
          [&](double alpha, const std::vector<double> &xv, double beta, std::vector<double> y) {
            blk->spmv(alpha, xv.data(), beta, y.data(), StreamSet{});
            return y;
          },
          why),
        name + ".empty_rows_ignore_x", why);

  // Values-only refresh: new values, same pattern.
  CsrMatrix B = m.A;
  for (size_t k = 0; k < B.values.size(); ++k) B.values[k] = 0.25 * B.values[k] + 0.001 * (double)(k % 17);
  refresh_values_host(*blk, B.values.data());
  std::vector<double> want(A.nrows), got(A.nrows, NAN);
  csr_spmv_host(B.view(), 1.0, x.data(), 0.0, want.data());
  blk->spmv(1.0, x.data(), 0.0, got.data(), StreamSet{});
  check(close_products(B.view(), x, got, want, 1.0, 0.0, y0, why), name + ".refresh", why);

  // Diagonal through the slot map.
  std::vector<int32_t> pos = diagonal_positions(B.view());
  std::vector<double>  d(A.nrows, NAN), dw(A.nrows, 0.0);
  for (int32_t i = 0; i < A.nrows; ++i)
    if (pos[i] >= 0) dw[i] = B.values[pos[i]];
  gather_diagonal_host(*blk, pos.data(), A.nrows, d.data());
  check(d == dw, name + ".diagonal");
  // The CSR values back through the slot map (what a device factorization is filled from).
  std::vector<double> vals(B.values.size(), NAN);
  gather_csr_values_host(*blk, vals.data());
  check(vals == B.values, name + ".gather_csr_values");
  check(blk->bytes() > 0 || A.nrows == 0 || A.nnz == 0, name + ".bytes");
  std::vector<LayoutStat> st;
  blk->describe(st);
  check(!st.empty(), name + ".describe");
}

int main(int argc, char **argv)
{
  const std::string dir = argc > 1 ? argv[1] : "test/matrices";
  int               n;
  const FormatOps *const *registered = all_formats(&n);
  // the registered formats, cuSPARSE CSR (gpuauto's baseline candidate, formats/csr/), DIA (a layout
  // every type takes for a stencil, formats/dia/) and the test-only rowpad, made by CONTRIBUTING's
  // recipe (common/recipe_format.hpp)
  std::vector<const FormatOps *> all(registered, registered + n);
  all.push_back(&cusparse_csr_ops);
  all.push_back(&dia::ops);
  all.push_back(&rowpad::ops);
  n = (int)all.size();
  std::vector<NamedMatrix> ms  = edge_case_matrices(true), real = real_matrices(dir);
  ms.insert(ms.end(), real.begin(), real.end());
  check(real.size() >= 10, "real_matrices_found", dir);
  for (int f = 0; f < n; ++f) {
    const FormatOps &ops = *all[f];
    for (const NamedMatrix &m : ms) check_format_on(ops, default_params(ops), "", m);
    // Each parameter at its smallest allowed value too (e.g. tiny slices) and at its extra values
    // (sort windows), on a few shapes.
    for (int p = 0; p < ops.nparams; ++p) {
      std::vector<int64_t> values = extra_param_values(ops.params[p]);
      values.push_back(ops.params[p].min_value);
      for (int64_t v : values) {
        std::vector<int64_t> params = default_params(ops);
        if (params[p] == v) continue;
        params[p] = v;
        for (const char *which : {"mixed_1_to_600", "empty_rows_mixed", "rect_100x7", "stencil7_12", "powerlaw"})
          for (const NamedMatrix &m : ms)
            if (m.name == which) check_format_on(ops, params, std::string("[") + ops.params[p].name + "=" + std::to_string(v) + "]", m);
      }
      // Just outside the range the table declares (the one place it is written, checked_param):
      // refused as bad input that names the option, before anything is built.
      const std::string option = std::string("-mat_") + ops.root + "_" + ops.params[p].name;
      for (int64_t v : {ops.params[p].min_value - 1, ops.params[p].max_value + 1}) {
        std::vector<int64_t> params = default_params(ops);
        params[p]                   = v;
        std::string why             = "accepted";
        try {
          ops.build_host(ms.front().A.view(), params.data());
        } catch (const Error &e) {
          why = e.kind == ErrorKind::bad_input && std::string(e.what()).find(option) != std::string::npos ? "" : e.what();
        }
        check(why.empty(), std::string(ops.root) + ".out_of_range." + ops.params[p].name + "=" + std::to_string(v), why);
      }
    }
  }
  return gftest::finish();
}
