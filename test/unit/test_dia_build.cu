// DIA's device builder and product body (dia_device.cuh) on the host, without a GPU: the very
// template the GPU build runs, instantiated on thrust::host (core/thrust_system.cuh), against the
// host builder (dia_host.cpp).
//   layout    same refusal (message), nslots, slot map, values, describe lines and bytes as the host
//             builder, on the edge cases, the real matrices and stencils: 2D 5-point, 3D 7- and
//             27-point, convection-diffusion, ex14-like (boundary rows hold only the diagonal), a
//             band, explicit zeros, a wide rectangle, a matrix whose first row is the longest
//   refusal   both builders refuse exactly what the documented rule refuses (format_checks.hpp's
//             dia_refusal_expected, from the set of all offsets): a periodic stencil (offsets
//             beyond the longest row's), too much padding, more offsets than max_diags
//   product   row_product for every row (each of 1, 2 and 4 rows per thread: the same body),
//             against the CSR product, for y = A x (y full of NaN), y += A x and y = a A x + b y,
//             and x = Inf off a row's own columns never reaching its y (padding reads no x)
//   mirrors   the count of rows whose lower entries differ from their mirrors, against the CSR
//             (0 for the symmetrized stencils, the rows next to the boundary for ex14-like
//             patterns); where 0, mirrored reads give the full product bit for bit; a refresh that
//             breaks the symmetry turns them off and the product stays the CSR's, a symmetric one
//             turns them on again
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/dia/dia_device.cuh"
#include "matgen/generators.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::dia;

// Every thread of the kernel, with full or mirrored reads.
static std::vector<double> emulated_product(const Arrays<HostSystem> &a, bool mirrored, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  const KernelArgs k = a.kernel_args();
  for (int32_t i = 0; i < a.nrows; ++i) row_product(k, i, mirrored, alpha, x.data(), beta, y.data());
  return y;
}

// A(i, j) of a CSR, 0 where not stored.
static double entry(const CsrView &A, int32_t i, int32_t j)
{
  const int32_t *f = A.colidx + A.rowptr[i], *l = A.colidx + A.rowptr[i + 1], *t = std::lower_bound(f, l, j);
  return t != l && *t == j ? A.values[t - A.colidx] : 0.0;
}

// The pattern of A with symmetric values: entry (i, j) gets a value of (min, max) (A's pattern must
// be symmetric for the result to be).
static CsrMatrix symmetrized(CsrMatrix A)
{
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const int64_t lo = std::min(i, A.colidx[k]), hi = std::max(i, A.colidx[k]);
      A.values[k]      = lo == hi ? 8.0 + 0.001 * (double)lo : -0.1 - (double)((lo * 7919 + hi * 104729) % 97) / 97.0;
    }
  return A;
}

// ex14's Jacobian pattern: the 7-point stencil inside, the diagonal alone on the boundary.
static CsrMatrix dirichlet7(int32_t n)
{
  CsrMatrix A = stencil7(n), B;
  B.nrows = B.ncols = A.nrows;
  for (int32_t i = 0; i < A.nrows; ++i) {
    const int32_t x = i % n, y = i / n % n, z = i / (n * n);
    const bool    edge = x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
      if (!edge || A.colidx[k] == i) B.colidx.push_back(A.colidx[k]), B.values.push_back(A.values[k]);
    B.rowptr.push_back((int32_t)B.colidx.size());
  }
  return B;
}

// The 1D periodic Laplacian: rows 0 and n-1 reach across (offsets n-1 and 1-n).
static CsrMatrix periodic(int32_t n)
{
  CsrMatrix A;
  A.nrows = A.ncols = n;
  for (int32_t i = 0; i < n; ++i) {
    std::vector<int32_t> c = {(i + n - 1) % n, i, (i + 1) % n};
    std::sort(c.begin(), c.end());
    for (int32_t j : c) A.colidx.push_back(j), A.values.push_back(j == i ? 2.0 : -1.0);
    A.rowptr.push_back((int32_t)A.colidx.size());
  }
  return A;
}

// Every other off-diagonal value of a stencil set to an explicit zero (stored, value 0.0).
static CsrMatrix with_zeros(CsrMatrix A)
{
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
      if (A.colidx[k] != i && k % 2) A.values[k] = 0.0;
  return A;
}

int main(int argc, char **argv)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  for (const char *spec : {"stencil2d5:n=40", "stencil3d7:n=17", "stencil27:n=13", "convdiff3d:n=15,pe=10", "banded:n=3000,bw=5", "banded:n=3000,bw=20,fill=0.97"}) ms.push_back({spec, generate_matrix(spec, 7)});
  ms.push_back({"dirichlet7_20", dirichlet7(20)});
  ms.push_back({"dirichlet7_8", dirichlet7(8)}); // boundary-heavy: more padding than the default allows
  ms.push_back({"periodic_500", periodic(500)});
  ms.push_back({"stencil7_zeros", with_zeros(stencil7(10))});
  for (const char *spec : {"stencil2d5:n=40", "stencil27:n=13"}) ms.push_back({std::string("sym_") + spec, symmetrized(generate_matrix(spec, 7))});
  ms.push_back({"sym_stencil7_zeros", symmetrized(with_zeros(stencil7(10)))});
  {
    CsrMatrix w = generate_matrix("stencil2d5:n=30", 3); // 900 x 1900: offsets into the extra columns
    w.ncols     = 1900;
    ms.push_back({"stencil2d5_wide", w});
  }
  const Limits def;
  int          built = 0, refused = 0, symmetric = 0;
  for (const NamedMatrix &m : ms) {
    const CsrView A = m.A.view();
    for (const Limits &lim : {def, Limits{7, 10, 2, true}, Limits{kMaxDiags, 100, 4, true}, Limits{kMaxDiags, 0, 1, false}}) {
      const int64_t     params[nparams] = {lim.max_diags, lim.max_pad_pct, lim.rows_per_thread, lim.symmetric};
      const std::string name = "dia_build." + m.name + ".d" + std::to_string(lim.max_diags) + ".pad" + std::to_string(lim.max_pad_pct) + ".r" + std::to_string(lim.rows_per_thread) + (lim.symmetric ? "" : ".nosym");
      std::unique_ptr<FormatBlock> host;
      Arrays<HostSystem>           a;
      std::string                  host_err, dev_err;
      try {
        host = ops.build_host(A, params);
      } catch (const Error &e) {
        host_err = e.what();
        check(e.kind == ErrorKind::unsupported && host_err.find(kFitsHint) != std::string::npos, name + ".refusal_kind", host_err);
      }
      try {
        build_arrays(HostSystem{}, m.A.rowptr.data(), m.A.colidx.data(), m.A.values.data(), A.nrows, A.ncols, A.nnz, lim, a);
      } catch (const Error &e) {
        dev_err = e.what();
      }
      check(host_err == dev_err, name + ".same_refusal", "host '" + host_err + "' vs device '" + dev_err + "'");
      check(host_err.empty() != dia_refusal_expected(A, lim.max_diags, lim.max_pad_pct), name + ".refusal_as_documented", host_err.empty() ? "built, though the rule refuses" : "refused, though the rule accepts: " + host_err);
      if (!host || !dev_err.empty()) {
        ++refused;
        continue;
      }
      ++built;
      // The count: exactly the rows j with A(j, j - o) != A(j - o, j) for an upper offset o, from
      // the CSR (paired layouts only: square, offsets in pairs, -mat_dia_symmetric 1).
      const int64_t marked = count_unmirrored(a, a.values.data());
      int64_t       want   = a.paired ? 0 : -1;
      for (int32_t j = 0; j < A.nrows && a.paired; ++j) {
        bool differs = false;
        for (int32_t d = 0; d < a.ndiag; ++d)
          if (a.offsets[d] > 0 && j - a.offsets[d] >= 0 && !(entry(A, j, j - a.offsets[d]) == entry(A, j - a.offsets[d], j))) differs = true;
        want += differs;
      }
      check(marked == want, name + ".unmirrored_count", std::to_string(marked) + " counted, " + std::to_string(want) + " in the CSR");
      symmetric += marked == 0;
      std::vector<LayoutStat> dd;
      describe(a, marked, dd);
      check_layout_as_host(name, *host, A.nnz, LayoutArrays{a.nslots, a.values, a.slot_of_csr}, dd, stored_bytes(a));
      for (bool m : {false, true}) {
        if (m && marked != 0) continue;
        check_emulated_products(name + (m ? ".mirrored" : ""), A, [&](double alpha, const std::vector<double> &x, double beta, const std::vector<double> &yin) { return emulated_product(a, m, alpha, x, beta, yin); });
      }
      if (marked == 0) { // mirrored reads give the full product bit for bit (the same sums in the same order)
        const std::vector<double> x = test_vector(A.ncols, 9), y0(A.nrows, NAN);
        check(emulated_product(a, true, 1.5, x, 0.0, y0) == emulated_product(a, false, 1.5, x, 0.0, y0), name + ".mirrored_bitwise");
      }
      if (marked == 0 && A.nnz > 0) {
        // a refresh that breaks the symmetry turns mirrored reads off (the host block: values_changed),
        // and the product stays the CSR's; a symmetric refresh turns them on again
        const std::vector<double> x = test_vector(A.ncols, 9), y0(A.nrows, NAN);
        CsrMatrix                 B       = m.A;
        bool                      changed = false; // the first off-diagonal entry (a diagonal matrix has none: skipped)
        for (int64_t q = 0; q < (int64_t)B.colidx.size() && !changed; ++q)
          if (B.colidx[q] != std::upper_bound(B.rowptr.begin(), B.rowptr.end(), (int32_t)q) - B.rowptr.begin() - 1) B.values[q] += 0.5, changed = true;
        std::vector<LayoutStat> st;
        auto                    mirrored_on = [&] {
          st.clear();
          host->describe(st);
          return st.back().value.rfind("on:", 0) == 0;
        };
        refresh_values_host(*host, B.values.data());
        std::vector<double> got(A.nrows, NAN), want_y(A.nrows);
        host->spmv(1.0, x.data(), 0.0, got.data(), StreamSet{});
        csr_spmv_host(B.view(), 1.0, x.data(), 0.0, want_y.data());
        std::string why;
        check(!(changed && mirrored_on()) && close_products(B.view(), x, got, want_y, 1.0, 0.0, y0, why), name + ".unsymmetric_refresh", why + " " + (st.empty() ? "" : st.back().value));
        refresh_values_host(*host, m.A.values.data());
        check(mirrored_on(), name + ".symmetric_refresh", st.back().value);
      }
      // Row by row (every row of a small matrix, a stride of rows of a large one), x = Inf off the
      // row's own columns: its padding must never reach y.
      const KernelArgs    k = a.kernel_args();
      std::vector<double> xinf(A.ncols, INFINITY), y(A.nrows, NAN);
      std::string         why;
      for (int32_t i = 0; i < A.nrows && why.empty(); i += std::max(1, A.nrows / 500)) {
        for (int32_t q = A.rowptr[i]; q < A.rowptr[i + 1]; ++q) xinf[A.colidx[q]] = 1.0;
        for (bool mir : {false, marked == 0}) {
          row_product(k, i, mir, 1.0, xinf.data(), 0.0, y.data());
          if (!std::isfinite(y[i])) why = "row " + std::to_string(i) + " read x off its columns" + (mir ? " (mirrored reads)" : "");
        }
        for (int32_t q = A.rowptr[i]; q < A.rowptr[i + 1]; ++q) xinf[A.colidx[q]] = INFINITY;
      }
      check(why.empty(), name + ".padding_never_reads_x", why);
    }
  }
  // The rule both ways, on these matrices: some build, some are refused.
  check(built >= 20 && refused >= 20 && symmetric >= 8, "dia_build.both_sides", std::to_string(built) + " built (" + std::to_string(symmetric) + " symmetric), " + std::to_string(refused) + " refused");
  return finish();
}
