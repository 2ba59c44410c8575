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
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/dia/dia_device.cuh"
#include "matgen/generators.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::dia;

static std::vector<double> emulated_product(const Arrays<HostSystem> &a, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  const KernelArgs k = a.kernel_args();
  for (int32_t i = 0; i < a.nrows; ++i) row_product(k, i, alpha, x.data(), beta, y.data());
  return y;
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
  {
    CsrMatrix w = generate_matrix("stencil2d5:n=30", 3); // 900 x 1900: offsets into the extra columns
    w.ncols     = 1900;
    ms.push_back({"stencil2d5_wide", w});
  }
  const Limits def;
  int          built = 0, refused = 0;
  for (const NamedMatrix &m : ms) {
    const CsrView A = m.A.view();
    for (const Limits &lim : {def, Limits{7, 10, 2}, Limits{kMaxDiags, 100, 4}, Limits{kMaxDiags, 0, 1}}) {
      const int64_t     params[nparams] = {lim.max_diags, lim.max_pad_pct, lim.rows_per_thread};
      const std::string name = "dia_build." + m.name + ".d" + std::to_string(lim.max_diags) + ".pad" + std::to_string(lim.max_pad_pct) + ".r" + std::to_string(lim.rows_per_thread);
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
      std::vector<LayoutStat> dd;
      describe(a, dd);
      check_layout_as_host(name, *host, A.nnz, LayoutArrays{a.nslots, a.values, a.slot_of_csr}, dd, stored_bytes(a));
      check_emulated_products(name, A, [&](double alpha, const std::vector<double> &x, double beta, const std::vector<double> &yin) { return emulated_product(a, alpha, x, beta, yin); });
      // Row by row (every row of a small matrix, a stride of rows of a large one), x = Inf off the
      // row's own columns: its padding must never reach y.
      const KernelArgs    k = a.kernel_args();
      std::vector<double> xinf(A.ncols, INFINITY), y(A.nrows, NAN);
      std::string         why;
      for (int32_t i = 0; i < A.nrows && why.empty(); i += std::max(1, A.nrows / 500)) {
        for (int32_t q = A.rowptr[i]; q < A.rowptr[i + 1]; ++q) xinf[A.colidx[q]] = 1.0;
        row_product(k, i, 1.0, xinf.data(), 0.0, y.data());
        if (!std::isfinite(y[i])) why = "row " + std::to_string(i) + " read x off its columns";
        for (int32_t q = A.rowptr[i]; q < A.rowptr[i + 1]; ++q) xinf[A.colidx[q]] = INFINITY;
      }
      check(why.empty(), name + ".padding_never_reads_x", why);
    }
  }
  // The rule both ways, on these matrices: some build, some are refused.
  check(built >= 20 && refused >= 20, "dia_build.both_sides", std::to_string(built) + " built, " + std::to_string(refused) + " refused");
  return finish();
}
