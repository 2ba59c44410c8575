// Small host matrices for correctness tests: random shapes and the edge cases every format must
// survive, plus the real matrices in test/matrices/. Deterministic for a seed.
#pragma once
#include "core/csr.hpp"
#include "matgen/matrix_market.hpp"

#include <algorithm>
#include <dirent.h>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gftest {

using gpuformats::CsrMatrix;

// Rows with lengths drawn by `length(rng, row)`, distinct sorted random columns, random values.
template <class LengthFn>
CsrMatrix random_rows(int32_t nrows, int32_t ncols, uint64_t seed, LengthFn length)
{
  std::mt19937_64                        rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  CsrMatrix                              A;
  A.nrows = nrows;
  A.ncols = ncols;
  std::vector<int32_t> cols;
  for (int32_t i = 0; i < nrows; ++i) {
    int32_t len = std::min<int32_t>(std::max<int32_t>(length(rng, i), 0), ncols);
    cols.clear();
    if (len * 2 > ncols) { // dense-ish row: take a random subset by shuffling all columns
      std::vector<int32_t> all(ncols);
      for (int32_t c = 0; c < ncols; ++c) all[c] = c;
      std::shuffle(all.begin(), all.end(), rng);
      cols.assign(all.begin(), all.begin() + len);
    } else {
      std::set<int32_t> s;
      std::uniform_int_distribution<int32_t> col(0, ncols - 1);
      while ((int32_t)s.size() < len) s.insert(col(rng));
      cols.assign(s.begin(), s.end());
    }
    std::sort(cols.begin(), cols.end());
    for (int32_t c : cols) {
      A.colidx.push_back(c);
      A.values.push_back(val(rng));
    }
    A.rowptr.push_back((int32_t)A.colidx.size());
  }
  return A;
}

inline CsrMatrix uniform_rows(int32_t nrows, int32_t ncols, int32_t lo, int32_t hi, uint64_t seed)
{
  return random_rows(nrows, ncols, seed, [=](std::mt19937_64 &r, int32_t) { return std::uniform_int_distribution<int32_t>(lo, hi)(r); });
}

// 3D 7-point stencil on an n^3 grid (the shape of SNES ex14's Jacobian).
inline CsrMatrix stencil7(int32_t n)
{
  CsrMatrix A;
  A.nrows = A.ncols = n * n * n;
  for (int32_t z = 0; z < n; ++z)
    for (int32_t y = 0; y < n; ++y)
      for (int32_t x = 0; x < n; ++x) {
        const int32_t row = (z * n + y) * n + x;
        const std::pair<int32_t, double> nb[] = {{z > 0 ? row - n * n : -1, -1}, {y > 0 ? row - n : -1, -1}, {x > 0 ? row - 1 : -1, -1}, {row, 6.0 + 0.01 * row}, {x < n - 1 ? row + 1 : -1, -1}, {y < n - 1 ? row + n : -1, -1}, {z < n - 1 ? row + n * n : -1, -1}};
        for (auto [c, v] : nb)
          if (c >= 0) {
            A.colidx.push_back(c);
            A.values.push_back(v);
          }
        A.rowptr.push_back((int32_t)A.colidx.size());
      }
  return A;
}

// Rows {i, i + d} with d = d_far in every `far_every`-th run of 32 rows, else d_fit: a mix of
// 32-row blocks / slices that fit 16-bit column offsets and blocks that do not.
inline CsrMatrix two_diagonals_mixed(int32_t n, int32_t d_fit, int32_t d_far, int32_t far_every)
{
  CsrMatrix A;
  A.nrows = n;
  A.ncols = n + std::max(d_fit, d_far);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t d = (i / 32) % far_every == 0 ? d_far : d_fit;
    A.colidx.push_back(i);
    A.colidx.push_back(i + d);
    A.values.push_back(1.0 + i % 7);
    A.values.push_back(-0.5 - i % 3);
    A.rowptr.push_back((int32_t)A.colidx.size());
  }
  return A;
}

// Rows {i, i + d} (n rows, n + d columns): 32 consecutive rows span 31 + d columns, which puts
// the 16-bit column offsets of EVC-HYB slices and pJDS blocks right at their limits.
inline CsrMatrix two_diagonals(int32_t n, int32_t d) { return two_diagonals_mixed(n, d, d, 1); }

struct NamedMatrix {
  std::string name;
  CsrMatrix   A;
};

// The edge cases of the issues: empty rows, one dense row, all rows long / short, 1x1, 0x0,
// empty matrix, rectangular (off-process-block shapes), plus stencils and varied random shapes.
inline std::vector<NamedMatrix> edge_case_matrices(bool large = true)
{
  std::vector<NamedMatrix> m;
  m.push_back({"0x0", CsrMatrix{}});
  m.push_back({"1x1", uniform_rows(1, 1, 1, 1, 1)});
  m.push_back({"1x1_empty", uniform_rows(1, 1, 0, 0, 1)});
  m.push_back({"all_empty_50x40", uniform_rows(50, 40, 0, 0, 2)});
  m.push_back({"rect_100x7", uniform_rows(100, 7, 0, 3, 3)});
  m.push_back({"rect_5x3000", uniform_rows(5, 3000, 100, 2000, 4)});
  m.push_back({"rows_no_cols_20x0", uniform_rows(20, 0, 0, 0, 5)});
  m.push_back({"empty_rows_mixed", random_rows(3000, 3000, 6, [](std::mt19937_64 &r, int32_t i) { return i % 3 == 0 ? 0 : std::uniform_int_distribution<int32_t>(1, 40)(r); })});
  m.push_back({"short_rows_lt128", uniform_rows(5000, 5000, 1, 127, 7)});
  m.push_back({"long_rows_gt128", uniform_rows(300, 20000, 129, 900, 8)});
  m.push_back({"mixed_1_to_600", uniform_rows(4000, 4000, 1, 600, 9)});
  m.push_back({"stencil7_12", stencil7(12)});
  m.push_back({"offdiag_mostly_empty", random_rows(4000, 300, 10, [](std::mt19937_64 &r, int32_t i) { return i % 50 == 0 ? std::uniform_int_distribution<int32_t>(1, 8)(r) : 0; })});
  const int32_t dense = large ? 100000 : 5000;
  m.push_back({"one_dense_row", random_rows(2000, dense, 11, [=](std::mt19937_64 &r, int32_t i) { return i == 777 ? dense : std::uniform_int_distribution<int32_t>(0, 9)(r); })});
  m.push_back({"equal_lengths_31", uniform_rows(1000, 1000, 31, 31, 12)});
  m.push_back({"span_65534", two_diagonals(32 * 40, 65503)}); // 16-bit column offsets at their limit
  m.push_back({"narrow_mixed", two_diagonals_mixed(32 * 40, 100, 70000, 8)}); // an eighth of the 32-row blocks too wide
  m.push_back({"powerlaw", random_rows(6000, 6000, 13, [](std::mt19937_64 &r, int32_t) { return (int32_t)(2.0 / std::pow(std::uniform_real_distribution<double>(1e-4, 1.0)(r), 0.9)); })});
  return m;
}

// The real Matrix Market matrices carried in test/matrices (from ../shared/matrices).
inline std::vector<NamedMatrix> real_matrices(const std::string &dir)
{
  std::vector<NamedMatrix> m;
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".mtx") names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const std::string &n : names) m.push_back({n.substr(0, n.size() - 4), gpuformats::read_matrix_market(dir + "/" + n)});
  return m;
}

} // namespace gftest
