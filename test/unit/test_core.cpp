// Unit tests of src/core on the host: CSR checks and reference product, row statistics, the
// sorted-row permutation.
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "core/host_upload.hpp"

#include <thread>
#include "core/row_permutation.hpp"
#include "core/row_stats.hpp"

#include <numeric>

using namespace gpuformats;
using gftest::check;

static void test_row_stats()
{
  // lengths 0,1,2,3,4,10 (6 rows): numpy quartiles 1.25, 2.5, 3.75
  CsrMatrix A = gftest::random_rows(6, 20, 1, [](std::mt19937_64 &, int32_t i) { return i < 5 ? i : 10; });
  RowStats  s = compute_row_stats(A.view());
  check(s.nrows == 6 && s.nnz == 20, "row_stats.counts");
  check(s.min_length == 0 && s.max_length == 10 && s.empty_rows == 1, "row_stats.min_max_empty");
  check(std::abs(s.mean - 20.0 / 6) < 1e-12, "row_stats.mean");
  const double var = (0 + 1 + 4 + 9 + 16 + 100) / 6.0 - (20.0 / 6) * (20.0 / 6);
  check(std::abs(s.variance - var) < 1e-12, "row_stats.variance");
  check(std::abs(s.q1 - 1.25) < 1e-12 && std::abs(s.median - 2.5) < 1e-12 && std::abs(s.q3 - 3.75) < 1e-12, "row_stats.quartiles", std::to_string(s.q1) + " " + std::to_string(s.median) + " " + std::to_string(s.q3));
  check(std::abs(s.iqr - 2.5) < 1e-12, "row_stats.iqr");
  // histogram: [0]=1 (empty), [1]: len 1, [2]: 2..3, [3]: 4..7, [4]: 8..15
  check(s.histogram.size() == 5 && s.histogram[0] == 1 && s.histogram[1] == 1 && s.histogram[2] == 2 && s.histogram[3] == 1 && s.histogram[4] == 1, "row_stats.histogram");
  RowStats e = compute_row_stats(CsrMatrix{}.view());
  check(e.nrows == 0 && e.nnz == 0 && e.histogram.size() == 1, "row_stats.empty_matrix");
}

// The permutation's defining properties, checked independently of how it is computed.
static bool is_sorted_permutation(const CsrView &A, const std::vector<int32_t> &p, RowOrder order, int32_t window, std::string &why)
{
  if ((int32_t)p.size() != A.nrows) return why = "size", false;
  std::vector<char> seen(A.nrows, 0);
  for (int32_t r : p) {
    if (r < 0 || r >= A.nrows || seen[r]) return why = "not a permutation", false;
    seen[r] = 1;
  }
  auto fc = [&](int32_t i) { return A.row_length(i) ? A.colidx[A.rowptr[i]] : A.ncols; };
  for (int32_t k = 0; k + 1 < A.nrows; ++k) {
    if (window > 0 && (k + 1) % window == 0) continue; // a window boundary
    const int32_t a = p[k], b = p[k + 1], la = A.row_length(a), lb = A.row_length(b);
    if (window > 0 && a / window != k / window) return why = "row left its window", false;
    if (la != lb) {
      if ((order == RowOrder::longest_first) != (la > lb)) return why = "length order at " + std::to_string(k), false;
    } else if (fc(a) != fc(b) ? fc(a) > fc(b) : a > b) return why = "tie order at " + std::to_string(k), false;
  }
  return true;
}

static void test_permutation()
{
  std::vector<gftest::NamedMatrix> ms = gftest::edge_case_matrices(false);
  for (const auto &m : ms) {
    for (RowOrder order : {RowOrder::longest_first, RowOrder::shortest_first})
      for (int32_t window : {0, 1, 32, 1000}) {
        std::string why;
        auto        p = sorted_row_permutation(m.A.view(), order, window);
        check(is_sorted_permutation(m.A.view(), p, order, window, why), "permutation." + m.name + (order == RowOrder::longest_first ? ".desc" : ".asc") + ".w" + std::to_string(window), why);
      }
  }
  std::vector<int32_t> p = {2, 0, 3, 1}, inv = invert_permutation(p);
  check(inv == std::vector<int32_t>({1, 3, 0, 2}), "permutation.invert");
}

static void test_csr()
{
  CsrMatrix A = gftest::uniform_rows(50, 30, 0, 10, 3);
  bool      ok = true;
  try {
    validate_csr(A.view());
  } catch (const Error &) {
    ok = false;
  }
  check(ok, "csr.validate_accepts_good");
  CsrMatrix bad = A;
  bad.colidx[bad.rowptr[10]] = 30; // out of range
  try {
    validate_csr(bad.view());
    check(false, "csr.validate_rejects_out_of_range");
  } catch (const Error &e) {
    check(e.kind == ErrorKind::bad_input && std::string(e.what()).find("row") != std::string::npos, "csr.validate_rejects_out_of_range", e.what());
  }
  // Reference product against a dense product.
  std::vector<double> dense(50 * 30, 0.0), x(30), y(50, 1.0), yd(50);
  for (int32_t i = 0; i < 50; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) dense[i * 30 + A.colidx[k]] = A.values[k];
  for (int32_t j = 0; j < 30; ++j) x[j] = 0.5 + j;
  for (int32_t i = 0; i < 50; ++i) {
    yd[i] = 0.5 * 1.0;
    for (int32_t j = 0; j < 30; ++j) yd[i] += 2.0 * dense[i * 30 + j] * x[j];
  }
  csr_spmv_host(A.view(), 2.0, x.data(), 0.5, y.data());
  check(gftest::rel_error(y, yd, 50) < 1e-14, "csr.spmv_host_vs_dense");
  std::vector<double> ynan(50, NAN);
  csr_spmv_host(A.view(), 1.0, x.data(), 0.0, ynan.data());
  bool finite = std::all_of(ynan.begin(), ynan.end(), [](double v) { return std::isfinite(v); });
  check(finite, "csr.spmv_host_beta0_ignores_y");
}

// The default upload thread count (the copies themselves need a GPU: test/gpu/test_upload.cpp).
void test_upload_threads()
{
  const int d = default_upload_threads();
  check(d >= 1 && d <= 4 && d <= kMaxUploadThreads, "upload.default_threads", std::to_string(d));
  const int cpus = usable_cpus(); // the affinity mask: 1 under `taskset -c 0` or an mpiexec bound to one core
  check(cpus >= 1 && cpus <= (int)std::max(std::thread::hardware_concurrency(), 1u) && d == std::min(cpus, 4), "upload.default_threads_follow_affinity", std::to_string(cpus) + " cpus, " + std::to_string(d) + " threads");
  release_upload_staging(); // nothing staged: frees nothing and touches no device (a crash fails the program)
}

int main()
{
  test_row_stats();
  test_permutation();
  test_csr();
  test_upload_threads();
  return gftest::finish();
}
