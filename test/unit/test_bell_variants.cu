// BELL's product policies (bell_variants.cuh) on the host, without a GPU: every policy's thread
// body run for every thread of its grid (P::threads), as the kernel would, on layouts of
// build_host, against spmv_host and the CSR product (scaled tolerance: the summation order differs)
//   products  y = A x (y full of NaN before: beta = 0 writes), y += A x, y = a A x + b y
//   empty     empty block rows ignore x (x = Inf gives 0 and beta * y)
//   shapes    bs = 1..8: random block rows (empty ones, partial last slices), one block row,
//             rows longer than a column chunk (w > 8, many chunks and batches), non-default
//             slices (1, 5, 33 block rows: the compile-time-height path off) and windows
//   x2        x at an odd double offset (the double2 paths fall back to scalar loads)
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/block_matrices.hpp"
#include "formats/bell/bell_variants.cuh"

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;

// A block 3D 7-point stencil on an n^3 grid (bench_bell's matrix, small).
static CsrMatrix block_stencil(int32_t n, int32_t bs)
{
  CsrMatrix A;
  A.nrows = A.ncols = n * n * n * bs;
  for (int32_t p = 0; p < n * n * n; ++p) {
    const int32_t        x = p % n, y = p / n % n, z = p / (n * n);
    std::vector<int32_t> q;
    for (int32_t c : {z > 0 ? p - n * n : -1, y > 0 ? p - n : -1, x > 0 ? p - 1 : -1, p, x < n - 1 ? p + 1 : -1, y < n - 1 ? p + n : -1, z < n - 1 ? p + n * n : -1})
      if (c >= 0) q.push_back(c);
    for (int32_t a = 0; a < bs; ++a) {
      for (int32_t c : q)
        for (int32_t b = 0; b < bs; ++b) A.colidx.push_back(c * bs + b), A.values.push_back(std::sin(1.0 + p + 0.3 * a + 0.7 * b + c));
      A.rowptr.push_back((int32_t)A.colidx.size());
    }
  }
  return A;
}

// Every thread of P's grid, the body at bs = BS.
template <class P, int BS>
static void run_threads(const bell::KernelArgs &k, double alpha, const double *x, double beta, double *y)
{
  for (int64_t t = 0, n = P::threads(k); t < n; ++t) P::template thread<BS>(k, t, alpha, x, beta, y);
}
template <class P>
static std::vector<double> emulated(const bell::Layout &L, double alpha, const double *x, double beta, std::vector<double> y)
{
  const bell::KernelArgs k{L.nbrows, L.nslices, L.slice, bell::lanes_per_slice(L.slice, L.bs), L.perm.data(), L.slice_ptr.data(), L.block_col.data(), L.values.data()};
  switch (L.bs) {
  case 1: run_threads<P, 1>(k, alpha, x, beta, y.data()); break;
  case 2: run_threads<P, 2>(k, alpha, x, beta, y.data()); break;
  case 3: run_threads<P, 3>(k, alpha, x, beta, y.data()); break;
  case 4: run_threads<P, 4>(k, alpha, x, beta, y.data()); break;
  case 5: run_threads<P, 5>(k, alpha, x, beta, y.data()); break;
  case 6: run_threads<P, 6>(k, alpha, x, beta, y.data()); break;
  case 7: run_threads<P, 7>(k, alpha, x, beta, y.data()); break;
  case 8: run_threads<P, 8>(k, alpha, x, beta, y.data()); break;
  }
  return y;
}

static int64_t g_cases = 0;

// |got - want| <= 1e-13 * (|alpha| sum |a_ij x_j| + |beta y0_i|) row by row (NaN fails).
static bool close_to_host(const CsrView &A, const std::vector<double> &x, const std::vector<double> &got, const std::vector<double> &want, double alpha, double beta, const std::vector<double> &y0, std::string &why)
{
  for (int32_t i = 0; i < A.nrows; ++i) {
    double mag = 0;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) mag += std::abs(A.values[k] * x[A.colidx[k]]);
    const double tol = 1e-13 * (std::abs(alpha) * mag + (beta != 0.0 ? std::abs(beta * y0[i]) : 0.0)) + 1e-300;
    if (!(std::abs(got[i] - want[i]) <= tol)) return why = "row " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs spmv_host " + std::to_string(want[i]), false;
  }
  return true;
}

static void check_policies(const std::string &name, const CsrMatrix &M, int32_t bs, const bell::Options &opt = {})
{
  ++g_cases;
  const CsrView A = M.view();
  bell::Layout  L;
  try {
    L = bell::build_host(A, bs, opt);
  } catch (const Error &e) {
    check(false, name + ".built", e.what());
    return;
  }
  bell::for_each_policy([&](auto p) {
    using P                = decltype(p);
    const std::string tag  = name + "." + P::name();
    auto              run  = [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) { return emulated<P>(L, alpha, x.data(), beta, std::move(y)); };
    // Against the CSR product: y = A x (NaN before), y += A x, y = a A x + b y.
    check_emulated_products(tag, A, run);
    std::string why;
    check(empty_rows_ignore_x(A, run, why), tag + ".empty_rows_ignore_x", why);
    // Against spmv_host, beta = 0 (y NaN before) and beta = -0.75, with x at an odd double offset
    // (16-byte loads of x fall back to scalars).
    const std::vector<double> y0 = test_vector(A.nrows, 11);
    std::vector<double>       xbuf(A.ncols + 1);
    for (int32_t i = 0; i < A.ncols; ++i) xbuf[i + 1] = std::cos(0.37 * i) + 0.25;
    for (int shift : {0, 1}) {
      const double             *x = xbuf.data() + shift; // shift 1: 8 bytes past a 16-byte boundary
      const std::vector<double> xs(x, x + A.ncols);       // 16-byte aligned (operator new)
      for (double beta : {0.0, -0.75}) {
        std::vector<double> want = beta == 0.0 ? std::vector<double>(A.nrows, 0.0) : y0;
        bell::spmv_host(L, 1.5, xs.data(), beta, want.data());
        const std::vector<double> got = emulated<P>(L, 1.5, shift ? x : xs.data(), beta, beta == 0.0 ? std::vector<double>(A.nrows, NAN) : y0);
        check(close_to_host(A, xs, got, want, 1.5, beta, y0, why), tag + ".as_spmv_host" + (shift ? ".x_odd" : "") + (beta == 0.0 ? ".beta0" : ".beta"), why);
      }
    }
  });
}

int main()
{
  for (int32_t bs = 1; bs <= bell::kMaxBlockSize; ++bs) {
    const std::string b = ".bs" + std::to_string(bs);
    const int32_t     S = std::max(1, bell::kWarp / bs);
    check_policies("bell_variants.random_300" + b, random_blocks(300, 300, bs, 12, 0, 100 + bs), bs);
    check_policies("bell_variants.empty_brows" + b, random_blocks(257, 257, bs, 9, 3, 200 + bs), bs);
    check_policies("bell_variants.one_brow" + b, random_blocks(1, 40, bs, 20, 0, 300 + bs), bs);
    check_policies("bell_variants.partial_last_slice" + b, random_blocks(5 * S + S / 2 + 1, 90, bs, 7, 5, 400 + bs), bs);
    check_policies("bell_variants.long_rows" + b, random_blocks(3 * S + 2, 200, bs, 40, 4, 500 + bs), bs); // w up to 40: many chunks
    check_policies("bell_variants.all_empty" + b, random_blocks(70, 70, bs, 0, 0, 700 + bs), bs);
    check_policies("bell_variants.0x0" + b, CsrMatrix{}, bs);
    check_policies("bell_variants.stencil7_n5" + b, block_stencil(5, bs), bs);
    for (bell::Options o : {bell::Options{0, 0}, bell::Options{16, 1}, bell::Options{64, 5}, bell::Options{0, 33}}) {
      const std::string tag = ".w" + std::to_string(o.window) + "_s" + std::to_string(o.slice);
      check_policies("bell_variants.random_600" + b + tag, random_blocks(600, 600, bs, 15, 7, 900 + bs), bs, o);
    }
  }
  std::printf("# %lld cases\n", (long long)g_cases);
  return finish();
}
