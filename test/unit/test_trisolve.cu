// The triangular apply of incomplete factors (src/trisolve): the host references, then the apply
// of each mode with the parts in every format, on the host backend (the functors the GPU runs, on
// thrust::host) and, where a GPU is present, on the device.
//   ilu0      (L U)(i, j) == A(i, j) on A's pattern (the definition of ILU(0)); lu_solve: L U x == b;
//             Ilu0, every schedule, against ilu0_host: bit for bit on the host, to rounding on the
//             device (cuSPARSE's csrilu02 too); its levels against L's depth; the first zero pivot
//   levelset  the level-scheduled exact solves (every schedule; FP64 and FP32 values) against the host's:
//             x = U^-1 L^-1 b, the transposed solve against lu_solve_transpose_host (itself checked
//             by (L U)^T x == b), FP32 values against the host solve of M with them rounded; each
//             triangle's levels against its depth; the host runs each level's rows last to first,
//             so a row that read another of its level would read it unsolved; lines (lines.hpp) run
//             on the host block by block in ticket order, a row reading a row not yet solved throws;
//             grids whose lines the plan takes (and the line length it finds), a wide row (tiles)
//   sweeps    K = 0 is x = D^-1 b, K >= the triangles' depths is the exact solve; the error
//             against the exact solve shrinks from K = 1 to K = 3 on diagonally dominant matrices
//   isai      against LI and UI made here by another route (each row's small triangular system
//             assembled densely and solved by elimination), then x = UI (LI b)
//   auto      the model of predicted_time_ratio on constructed rates and times per iteration
//   probe     probe_residual against ||b - L U x|| / ||b|| computed here from the apply's x; 0
//             for the exact sweeps, > 0 for one sweep on triangles deeper than 2
//   iluk      ILU(k)'s pattern against the dense definition of levels of fill (k = 0: A's, with
//             a_to_m the identity); complete fill (k = n): the ILU(0) in it is LU, A x == b
//   errors    a missing diagonal entry, a non-square matrix, negative sweeps or levels: Error(bad_input)
// Matrices: square edge cases and real matrices with a dominant diagonal put in (ILU(0) exists).
//   bin/test/test_trisolve test/matrices
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "trisolve/trisolve.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using gpuformats::trisolve::Mode;

namespace {

int short_lines[2] = {0, 0}; // the short lines' triangles taken, of those tried

// A with every diagonal entry present and 1 + sum |row| on it (strictly dominant: ILU(0) exists).
CsrMatrix dominant(const CsrMatrix &A)
{
  CsrMatrix B;
  B.nrows = B.ncols = A.nrows;
  for (int32_t i = 0; i < A.nrows; ++i) {
    std::map<int32_t, double> row;
    double                    s = 1.0;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) row[A.colidx[k]] += A.values[k], s += std::fabs(A.values[k]);
    row[i] = s;
    for (auto [c, v] : row) B.colidx.push_back(c), B.values.push_back(v);
    B.rowptr.push_back((int32_t)B.colidx.size());
  }
  return B;
}

double entry(const CsrMatrix &M, int32_t i, int32_t j)
{
  auto b = M.colidx.begin() + M.rowptr[i], e = M.colidx.begin() + M.rowptr[i + 1];
  auto p = std::lower_bound(b, e, j);
  return p != e && *p == j ? M.values[p - M.colidx.begin()] : 0.0;
}

// Depth of a triangle's dependency graph (levels of the level schedule): sweeps that make it exact.
int depth(const CsrMatrix &M, bool lower)
{
  std::vector<int> level(M.nrows, 1);
  int              d = M.nrows ? 1 : 0;
  for (int32_t s = 0; s < M.nrows; ++s) {
    const int32_t i = lower ? s : M.nrows - 1 - s;
    for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; ++k) {
      const int32_t j = M.colidx[k];
      if (lower ? j < i : j > i) level[i] = std::max(level[i], level[j] + 1);
    }
    d = std::max(d, level[i]);
  }
  return d;
}

// LI and UI by another route: row i's system assembled densely, solved by elimination.
void isai_reference(const CsrMatrix &M, CsrMatrix &LI, CsrMatrix &UI)
{
  LI = UI = CsrMatrix{};
  LI.nrows = LI.ncols = UI.nrows = UI.ncols = M.nrows;
  for (int32_t i = 0; i < M.nrows; ++i)
    for (int t = 0; t < 2; ++t) {
      std::vector<int32_t> J;
      for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; ++k)
        if (t ? M.colidx[k] >= i : M.colidx[k] <= i) J.push_back(M.colidx[k]);
      const size_t        m = J.size();
      std::vector<double> G(m * m), r(m, 0.0); // G = T(J, J)^T, T = L (unit) or U; G m = e_i
      for (size_t a = 0; a < m; ++a)
        for (size_t b = 0; b < m; ++b) {
          const int32_t row = J[b], col = J[a]; // G(a, b) = T(J_b, J_a)
          double        v   = 0.0;
          if (!t) v = row == col ? 1.0 : (col < row ? entry(M, row, col) : 0.0);
          else v = col >= row ? entry(M, row, col) : 0.0;
          G[a * m + b] = v;
        }
      r[t ? 0 : m - 1] = 1.0;
      for (size_t p = 0; p < m; ++p) { // Gaussian elimination with partial pivoting
        size_t piv = p;
        for (size_t q = p + 1; q < m; ++q)
          if (std::fabs(G[q * m + p]) > std::fabs(G[piv * m + p])) piv = q;
        for (size_t c = 0; c < m; ++c) std::swap(G[p * m + c], G[piv * m + c]);
        std::swap(r[p], r[piv]);
        for (size_t q = p + 1; q < m; ++q) {
          const double f = G[q * m + p] / G[p * m + p];
          for (size_t c = p; c < m; ++c) G[q * m + c] -= f * G[p * m + c];
          r[q] -= f * r[p];
        }
      }
      std::vector<double> x(m);
      for (size_t p = m; p-- > 0;) {
        double s = r[p];
        for (size_t c = p + 1; c < m; ++c) s -= G[p * m + c] * x[c];
        x[p] = s / G[p * m + p];
      }
      CsrMatrix &O = t ? UI : LI;
      for (size_t p = 0; p < m; ++p) O.colidx.push_back(J[p]), O.values.push_back(x[p]);
      O.rowptr.push_back((int32_t)O.colidx.size());
    }
}

size_t max_row(const CsrMatrix &A)
{
  size_t m = 0;
  for (int32_t i = 0; i < A.nrows; ++i) m = std::max<size_t>(m, A.rowptr[i + 1] - A.rowptr[i]);
  return m;
}

// Ilu0 of A's values on the backend, factored twice by one Ilu0 (a reused schedule must start
// afresh): the values, and its levels and first zero pivot (-1: none) where asked. apply_order:
// L's level order from a levelset apply on A's pattern (the glue's way).
std::vector<double> run_ilu0(const CsrMatrix &A, Backend be, trisolve::Ilu0Schedule sc, int32_t *levels, int32_t *pivot = nullptr, bool apply_order = false)
{
  std::unique_ptr<trisolve::TriangularApply> T;
  const std::vector<int32_t>                *optr  = nullptr;
  const int32_t                             *order = nullptr;
  if (apply_order) {
    T     = std::make_unique<trisolve::TriangularApply>(A.view(), Mode::levelset, 0, *find_format("evchyb"), be, nullptr);
    order = T->lower_level_order(&optr);
  }
  const int32_t       n = A.nrows;
  const std::size_t   nnz = A.values.size();
  std::vector<double> m = A.values;
  int32_t             p = -2;
  if (be == Backend::host) {
    trisolve::Ilu0 f(n, (int64_t)nnz, apply_order ? T->rowptr() : A.rowptr.data(), apply_order ? T->colidx() : A.colidx.data(), be, nullptr, sc, order, optr);
    std::vector<double> first = A.values;
    f.factor(first.data(), nullptr);
    p = f.factor(m.data(), nullptr);
    if (levels) *levels = f.levels();
  } else {
    int32_t *drp, *dci;
    double  *dm;
    cudaMalloc(&drp, sizeof(int32_t) * (n + 1));
    cudaMalloc(&dci, sizeof(int32_t) * std::max<std::size_t>(nnz, 1));
    cudaMalloc(&dm, sizeof(double) * std::max<std::size_t>(nnz, 1));
    cudaMemcpy(drp, A.rowptr.data(), sizeof(int32_t) * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dci, A.colidx.data(), sizeof(int32_t) * nnz, cudaMemcpyHostToDevice);
    {
      trisolve::Ilu0 f(n, (int64_t)nnz, drp, dci, be, nullptr, sc, order, optr);
      for (int r = 0; r < 2; ++r) {
        cudaMemcpy(dm, A.values.data(), sizeof(double) * nnz, cudaMemcpyHostToDevice);
        p = f.factor(dm, nullptr);
      }
      if (levels) *levels = f.levels();
    }
    cudaMemcpy(m.data(), dm, sizeof(double) * nnz, cudaMemcpyDeviceToHost);
    cudaFree(drp), cudaFree(dci), cudaFree(dm);
  }
  if (pivot) *pivot = p;
  return m;
}

// x = apply(b) on the backend: device vectors and M's values uploaded for the cuda backend.
std::vector<double> run_apply(trisolve::TriangularApply &T, Backend be, const std::vector<double> &m, const std::vector<double> &b, bool device_factor = false, std::vector<double> *factored = nullptr, bool transpose = false)
{
  const size_t        n = b.size();
  std::vector<double> x(n, NAN);
  if (be == Backend::host) {
    T.set_values(m.data(), nullptr);
    if (transpose) T.apply_transpose(b.data(), x.data(), nullptr);
    else T.apply(b.data(), x.data(), nullptr);
    return x;
  }
  double *dm, *db, *dx;
  cudaMalloc(&dm, sizeof(double) * std::max<size_t>(m.size(), 1));
  cudaMalloc(&db, sizeof(double) * std::max<size_t>(n, 1));
  cudaMalloc(&dx, sizeof(double) * std::max<size_t>(n, 1));
  cudaMemcpy(dm, m.data(), sizeof(double) * m.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
  if (device_factor) {
    trisolve::Ilu0 ilu(T.nrows(), T.nnz(), T.rowptr(), T.colidx(), Backend::cuda, nullptr, trisolve::Ilu0Schedule::cusparse);
    const bool ok = ilu.factor(dm, nullptr) < 0; // a zero pivot: NaN, and the caller's comparison fails
    factored->assign(m.size(), NAN);
    if (ok) cudaMemcpy(factored->data(), dm, sizeof(double) * m.size(), cudaMemcpyDeviceToHost);
  }
  T.set_values(dm, nullptr);
  if (transpose) T.apply_transpose(db, dx, nullptr);
  else T.apply(db, dx, nullptr);
  cudaMemcpy(x.data(), dx, sizeof(double) * n, cudaMemcpyDeviceToHost);
  cudaFree(dm), cudaFree(db), cudaFree(dx);
  return x;
}

std::string sci(double v)
{
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", v);
  return b;
}

// T.probe_residual on the backend, M's values given to set_values there.
double run_probe(trisolve::TriangularApply &T, Backend be, const std::vector<double> &m)
{
  if (be == Backend::host) {
    T.set_values(m.data(), nullptr);
    return T.probe_residual(m.data(), nullptr);
  }
  double *dm;
  cudaMalloc(&dm, sizeof(double) * std::max<size_t>(m.size(), 1));
  cudaMemcpy(dm, m.data(), sizeof(double) * m.size(), cudaMemcpyHostToDevice);
  T.set_values(dm, nullptr);
  const double q = T.probe_residual(dm, nullptr);
  cudaFree(dm);
  return q;
}

// y = L U x with M = L\U (L unit lower).
std::vector<double> lu_times(const CsrMatrix &M, const std::vector<double> &x)
{
  const int32_t       n = M.nrows;
  std::vector<double> u(n, 0.0), y(n, 0.0);
  for (int32_t i = 0; i < n; ++i)
    for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; ++k)
      if (M.colidx[k] >= i) u[i] += M.values[k] * x[M.colidx[k]];
  for (int32_t i = 0; i < n; ++i) {
    y[i] = u[i];
    for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1] && M.colidx[k] < i; ++k) y[i] += M.values[k] * u[M.colidx[k]];
  }
  return y;
}

// ||b - L U x|| / ||b|| (0 for n = 0), b the probe.
double probe_residual_of(const CsrMatrix &M, const std::vector<double> &b, const std::vector<double> &x)
{
  const std::vector<double> y = lu_times(M, x);
  double                    rr = 0, bb = 0;
  for (int32_t i = 0; i < M.nrows; ++i) rr += (b[i] - y[i]) * (b[i] - y[i]), bb += b[i] * b[i];
  return M.nrows ? std::sqrt(rr / bb) : 0.0;
}

// The probe residual by the host, x the apply of the probe on the backend.
double probe_reference(trisolve::TriangularApply &T, Backend be, const CsrMatrix &M)
{
  const std::vector<double> b = trisolve::probe_vector(M.nrows);
  return probe_residual_of(M, b, run_apply(T, be, M.values, b));
}

// 2D 5-point stencil on an nx x ny grid, natural order
CsrMatrix stencil5(int32_t nx, int32_t ny)
{
  CsrMatrix A;
  A.nrows = A.ncols = nx * ny;
  for (int32_t y = 0; y < ny; ++y)
    for (int32_t x = 0; x < nx; ++x) {
      const int32_t row = y * nx + x;
      const std::pair<int32_t, double> nb[] = {{y > 0 ? row - nx : -1, -1}, {x > 0 ? row - 1 : -1, -1.5}, {row, 4.0 + 0.01 * (row % 7)}, {x < nx - 1 ? row + 1 : -1, -0.5}, {y < ny - 1 ? row + nx : -1, -1}};
      for (auto [c, v] : nb)
        if (c >= 0) A.colidx.push_back(c), A.values.push_back(v);
      A.rowptr.push_back((int32_t)A.colidx.size());
    }
  return A;
}

// 3D 27-point stencil on an n^3 grid, natural order
CsrMatrix stencil27(int32_t n)
{
  CsrMatrix A;
  A.nrows = A.ncols = n * n * n;
  for (int32_t z = 0; z < n; ++z)
    for (int32_t y = 0; y < n; ++y)
      for (int32_t x = 0; x < n; ++x) {
        for (int32_t dz = -1; dz <= 1; ++dz)
          for (int32_t dy = -1; dy <= 1; ++dy)
            for (int32_t dx = -1; dx <= 1; ++dx) {
              const int32_t xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
              A.colidx.push_back((zz * n + yy) * n + xx);
              A.values.push_back(dx == 0 && dy == 0 && dz == 0 ? 27.0 : -1.0 + 0.01 * (dx + 2 * dy));
            }
        A.rowptr.push_back((int32_t)A.colidx.size());
      }
  return A;
}

// A with rows and columns `row` coupled to the `width` rows before it (a row too wide for lines)
CsrMatrix with_wide_row(const CsrMatrix &A, int32_t row, int32_t width)
{
  std::vector<std::map<int32_t, double>> rows(A.nrows);
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) rows[i][A.colidx[k]] = A.values[k];
  for (int32_t j = std::max(0, row - width); j < row; ++j) rows[row].emplace(j, -0.1), rows[j].emplace(row, -0.1);
  CsrMatrix B;
  B.nrows = B.ncols = A.nrows;
  for (const auto &r : rows) {
    for (const auto &[c, v] : r) B.colidx.push_back(c), B.values.push_back(v);
    B.rowptr.push_back((int32_t)B.colidx.size());
  }
  return B;
}

// A 7-point nx x ny x nz grid of `dof` unknowns a point, all coupled at a point and to a
// neighbour's: a box whose first plane's lines skew the blocks (nx 8, ny 96: 3 warps a plane),
// and a 2D grid of 4 dofs whose point line (4 nx rows) is not the smallest frequent distance
CsrMatrix grid_dofs(int32_t nx, int32_t ny, int32_t nz, int32_t dof)
{
  CsrMatrix A;
  A.nrows = A.ncols = nx * ny * nz * dof;
  for (int32_t z = 0; z < nz; ++z)
    for (int32_t y = 0; y < ny; ++y)
      for (int32_t x = 0; x < nx; ++x)
        for (int32_t c = 0; c < dof; ++c) {
          const int32_t p = (z * ny + y) * nx + x;
          for (const int32_t q : {p - nx * ny, p - nx, p - 1, p, p + 1, p + nx, p + nx * ny}) {
            const bool in = q == p || (q == p - 1 && x > 0) || (q == p + 1 && x + 1 < nx) || (q == p - nx && y > 0) || (q == p + nx && y + 1 < ny) || (q == p - nx * ny && z > 0) || (q == p + nx * ny && z + 1 < nz);
            if (!in) continue;
            for (int32_t c2 = 0; c2 < dof; ++c2) A.colidx.push_back(q * dof + c2), A.values.push_back(q == p && c2 == c ? 8.0 * dof : -1.0 + 0.05 * (c2 - c) + 0.01 * (q - p > 0));
          }
          A.rowptr.push_back((int32_t)A.colidx.size());
        }
  return A;
}

// lines_expect: the triangles Schedule::lines takes with the plan as found (-1: not checked),
// lines_chunk: the line's length it finds (0: not checked)
void test_matrix(const std::string &name, const CsrMatrix &A0, const std::vector<Backend> &backends, int lines_expect = -1, int lines_chunk = 0)
{
  const CsrMatrix A = dominant(A0);
  const int32_t   n = A.nrows;
  CsrMatrix       M = A;
  trisolve::ilu0_host(A.view(), M.values.data());
  { // (L U)(i, j) == A(i, j) on the pattern
    double err = 0, scale = 0;
    for (int32_t i = 0; i < n; ++i)
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
        const int32_t j = A.colidx[k];
        double        s = 0;
        for (int32_t q = M.rowptr[i]; q < M.rowptr[i + 1] && M.colidx[q] <= std::min(i, j); ++q) { // L(i, p) U(p, j), p <= min(i, j)
          const int32_t p = M.colidx[q];
          s += (p == i ? 1.0 : M.values[q]) * entry(M, p, j);
        }
        err = std::max(err, std::fabs(s - A.values[k]));
        scale = std::max(scale, std::fabs(A.values[k]));
      }
    check(err <= 1e-12 * scale, "trisolve.ilu0_host." + name, "max |LU - A| on the pattern " + std::to_string(err));
  }
  for (Backend be : backends) // Ilu0, every schedule (levels also from an apply's level order), against ilu0_host
    for (int v = 0; v < 5; ++v) {
      const trisolve::Ilu0Schedule sc = v == 4 ? trisolve::Ilu0Schedule::levels : (trisolve::Ilu0Schedule)v;
      const bool order_from_apply = v == 4;
      if (be == Backend::host && sc == trisolve::Ilu0Schedule::cusparse) continue; // the cuda backend only
      const std::string tag = std::string(be == Backend::host ? "host." : "cuda.") + trisolve::ilu0_schedule_name(sc) + (order_from_apply ? "_apply_order." : ".") + name;
      try {
        const std::vector<double> f = run_ilu0(A, be, sc, nullptr, nullptr, order_from_apply);
        const double              e = rel_error(f, M.values, M.values.size());
        check(be == Backend::host ? f == M.values : e <= 1e-12, "trisolve.ilu0." + tag, be == Backend::host ? std::string(f == M.values ? "bit for bit" : "differs: " + std::to_string(e)) : std::to_string(e));
        int32_t levels = -1;
        run_ilu0(A, be, sc, &levels, nullptr, order_from_apply);
        const bool scheduled = sc == trisolve::Ilu0Schedule::levels || sc == trisolve::Ilu0Schedule::graph;
        check(levels == (scheduled ? (n ? depth(A, true) : 0) : 0), "trisolve.ilu0_levels." + tag, std::to_string(levels) + " levels, L's depth " + std::to_string(depth(A, true)));
        if (n > 1) { // the last row's entries up to its diagonal 0: its pivot exactly 0, no other row changed
          CsrMatrix Z = A;
          for (int32_t k = Z.rowptr[n - 1]; k < Z.rowptr[n]; ++k) Z.values[k] = 0.0;
          int32_t pivot = -2;
          run_ilu0(Z, be, sc, nullptr, &pivot, order_from_apply);
          check(pivot == n - 1, "trisolve.ilu0_zero_pivot." + tag, "row " + std::to_string(pivot) + " of " + std::to_string(n));
          CsrMatrix Z0 = A; // the first row's pivot 0: row 0, whatever the rows after it divide by
          for (int32_t k = Z0.rowptr[0]; k < Z0.rowptr[1]; ++k)
            if (Z0.colidx[k] == 0) Z0.values[k] = 0.0;
          run_ilu0(Z0, be, sc, nullptr, &pivot, order_from_apply);
          check(pivot == 0, "trisolve.ilu0_first_pivot." + tag, "row " + std::to_string(pivot));
        }
      } catch (const Error &e) {
        check(false, "trisolve.ilu0." + tag, std::string("threw: ") + e.what());
      }
    }
  std::mt19937_64                        rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double>                    b(n), exact(n);
  for (auto &v : b) v = u(rng);
  trisolve::lu_solve_host(M.view(), b.data(), exact.data());
  { // L U exact == b
    const std::vector<double> r = lu_times(M, exact);
    // backward stable: the residual is rounding times |L| |U| |x| (not times ||b||: arc130's entries span 10^15)
    std::vector<double> bound(n, 0.0), yb(n, 0.0);
    for (int32_t i = 0; i < n; ++i)
      for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; ++k)
        if (M.colidx[k] >= i) yb[i] += std::fabs(M.values[k] * exact[M.colidx[k]]);
    for (int32_t i = 0; i < n; ++i) {
      bound[i] = yb[i];
      for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1] && M.colidx[k] < i; ++k) bound[i] += std::fabs(M.values[k]) * yb[M.colidx[k]];
    }
    double worst = 0;
    for (int32_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(r[i] - b[i]) / std::max(bound[i], 1e-300));
    check(worst <= 1e-12, "trisolve.lu_solve_host." + name, "max |LU x - b| / (|L| |U| |x|) " + std::to_string(worst));
  }
  double exact_probe; // the probe residual of the host's exact solve
  {
    const std::vector<double> p = trisolve::probe_vector(n);
    std::vector<double>       x(n);
    trisolve::lu_solve_host(M.view(), p.data(), x.data());
    exact_probe = probe_residual_of(M, p, x);
  }
  const int  dmax  = std::max(depth(M, true), depth(M, false));
  const bool small = max_row(M) <= 200;
  CsrMatrix  LI, UI;
  if (small) isai_reference(M, LI, UI);
  std::vector<double> isai_ref(n), y(n);
  if (small) {
    csr_spmv_host(LI.view(), 1.0, b.data(), 0.0, y.data());
    csr_spmv_host(UI.view(), 1.0, y.data(), 0.0, isai_ref.data());
  }
  int nf = 0;
  const FormatOps *const *formats = all_formats(&nf);
  std::vector<double> exact_t(n); // (L U)^T exact_t == b
  trisolve::lu_solve_transpose_host(M.view(), b.data(), exact_t.data());
  {
    std::vector<double> r(n, 0.0), lt(exact_t); // r = U^T (L^T x)
    for (int32_t i = 0; i < n; ++i)
      for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1] && M.colidx[k] < i; ++k) lt[M.colidx[k]] += M.values[k] * exact_t[i];
    for (int32_t i = 0; i < n; ++i)
      for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; ++k)
        if (M.colidx[k] >= i) r[M.colidx[k]] += M.values[k] * lt[i];
    check(rel_error(r, b, n) <= 1e-10, "trisolve.lu_solve_transpose_host." + name, std::to_string(rel_error(r, b, n)));
  }
  // FP32 values: the exact solve of M with its off-diagonal entries rounded to float
  CsrMatrix M32 = M;
  for (int32_t i = 0; i < n; ++i)
    for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; ++k)
      if (M.colidx[k] != i) M32.values[k] = (double)(float)M.values[k];
  std::vector<double> exact32(n), exact32_t(n);
  trisolve::lu_solve_host(M32.view(), b.data(), exact32.data());
  trisolve::lu_solve_transpose_host(M32.view(), b.data(), exact32_t.data());
  for (Backend be : backends) {
    const std::string bn = be == Backend::host ? "host" : "cuda";
    // exact: every schedule (the host runs levels either way) and precision, against the host solves
    // tiles: the default shape, and a small one (2 levels, chunks of one reach, 7 rows, 5 staged
    // slots, the order by band + chunk) that cuts every matrix into many tiles read across and
    // leaves most tiles' slots in global memory; with FP32 values too; and tiles that cannot fit
    // a block's shared memory (a 1-byte limit): both triangles solved sync-free, and -ksp_view says so
    // lines: the plan as found, with FP32 values, lines of 3 rows in blocks of one warp whose
    // starts spread 2 and a ring of 2 steps (every matrix in lines, many blocks read across), and
    // lines of 5 in blocks of 8 warps with no ring (every read from global memory)
    for (int v = 0; v < 12; ++v) {
      trisolve::ExactOptions o{v == 3 || v == 6 || v == 9, v == 1 ? trisolve::Schedule::levels : v == 2 ? trisolve::Schedule::graph : v >= 8 ? trisolve::Schedule::lines : v >= 4 ? trisolve::Schedule::tiles : trisolve::Schedule::sync_free};
      if (v == 5 || v == 6) o.tile_levels = 2, o.tile_chunk = 1, o.tile_rows = 7, o.tile_slots = 5, o.tile_kb = 1, o.tile_kc = 1;
      if (v == 7) o.tile_smem = 1;
      if (v == 10) o.lines_chunk = 3, o.lines_warps = 1, o.lines_spread = 2, o.lines_ring = 2;
      if (v == 11) o.lines_chunk = 5, o.lines_warps = 8, o.lines_spread = 1000, o.lines_ring = 1;
      static const char *const     names[] = {".fp64_syncfree", ".fp64_levels", ".fp64_graph", ".fp32_syncfree", ".fp64_tiles", ".fp64_small_tiles", ".fp32_small_tiles", ".fp64_tiles_too_large", ".fp64_lines", ".fp32_lines", ".fp64_short_lines", ".fp64_lines_no_ring"};
      const std::string            tag = bn + names[v] + "." + name;
      try {
        trisolve::TriangularApply T(M.view(), Mode::levelset, 0, *formats[0], be, nullptr, o);
        const std::vector<double> x = run_apply(T, be, M.values, b), xt = run_apply(T, be, M.values, b, false, nullptr, true);
        const std::vector<double> &want = o.single ? exact32 : exact, &want_t = o.single ? exact32_t : exact_t;
        check(rel_error(x, want, n) <= 1e-10, "trisolve.exact." + tag, std::to_string(rel_error(x, want, n)));
        check(rel_error(xt, want_t, n) <= 1e-10, "trisolve.exact_transpose." + tag, std::to_string(rel_error(xt, want_t, n)));
        check(T.levels(false) == depth(M, true) && T.levels(true) == depth(M, false), "trisolve.exact_levels." + tag, std::to_string(T.levels(false)) + "/" + std::to_string(T.levels(true)) + " levels, depths " + std::to_string(depth(M, true)) + "/" + std::to_string(depth(M, false)));
        if (!o.single) {
          const double q = run_probe(T, be, M.values);
          check(q <= std::max(1e-12, 1e3 * exact_probe), "trisolve.probe_exact_solve." + tag, sci(q) + ", the host's " + sci(exact_probe));
        }
        check(T.products() == 0 && (n == 0 || T.apply_bytes() > 0) && T.apply_flops() == 2.0 * (double)(M.values.size() - n) + n, "trisolve.exact_cost." + tag, std::to_string(T.apply_flops()));
        if (o.schedule == trisolve::Schedule::tiles && n > 0) {
          std::vector<LayoutStat> lines;
          T.describe(lines);
          int untiled = 0;
          for (const LayoutStat &l : lines)
            if ((l.key == "L tiles" || l.key == "U tiles") && l.value.find("solved sync-free") != std::string::npos) ++untiled;
          check(untiled == (v == 7 ? 2 : 0), "trisolve.exact_tiles_fit." + tag, std::to_string(untiled) + " of 2 triangles solved sync-free");
        }
        if (o.schedule == trisolve::Schedule::lines && n > 0) { // lines where the plan takes the triangle, tiles where not
          std::vector<LayoutStat> stats;
          T.describe(stats);
          int         lined = 0, refused = 0, chunked = 0;
          std::string why;
          for (const LayoutStat &l : stats) {
            if (l.key != "L lines" && l.key != "U lines") continue;
            lined += l.value.rfind("lines of ", 0) == 0;
            chunked += l.value.rfind("lines of " + std::to_string(lines_chunk) + " rows,", 0) == 0;
            const bool no = l.value.rfind("none: ", 0) == 0 && l.value.find("solved in tiles") != std::string::npos;
            refused += no;
            if (no) why += "; " + l.key + " " + l.value;
          }
          const int want = v == 10 || v == 11 ? -1 : lines_expect; // short lines: wide rows and long plans refused
          if (v == 10) short_lines[0] += lined, short_lines[1] += 2;
          check(lined + refused == 2 && (want < 0 || lined == want), "trisolve.exact_lines_taken." + tag, std::to_string(lined) + " of 2 triangles in lines, " + std::to_string(refused) + " refused, " + std::to_string(want) + " expected" + why);
          if (lines_chunk > 0 && v == 8) check(chunked == lined, "trisolve.exact_lines_chunk." + tag, std::to_string(chunked) + " of " + std::to_string(lined) + " triangles in lines of " + std::to_string(lines_chunk) + " rows");
        }
      } catch (const Error &e) {
        check(false, "trisolve.exact." + tag, std::string("threw: ") + e.what());
      }
    }
    for (int f = 0; f < nf; ++f) {
      const std::string tag = bn + "." + formats[f]->root + "." + name;
      try {
        { // K = 0: Jacobi on the factors, x = D^-1 b
          trisolve::TriangularApply T(M.view(), Mode::sweeps, 0, *formats[f], be, nullptr);
          const std::vector<double> x = run_apply(T, be, M.values, b);
          std::vector<double>       want(n);
          for (int32_t i = 0; i < n; ++i) want[i] = b[i] / entry(M, i, i);
          check(rel_error(x, want, n) <= 1e-14, "trisolve.sweeps0." + tag, std::to_string(rel_error(x, want, n)));
          check(T.apply_flops() == (double)n, "trisolve.sweeps0_flops." + tag, std::to_string(T.apply_flops()));
        }
        if (dmax <= 300) { // as many sweeps as the deeper triangle: the exact solve
          trisolve::TriangularApply T(M.view(), Mode::sweeps, dmax, *formats[f], be, nullptr);
          const std::vector<double> x = run_apply(T, be, M.values, b);
          check(rel_error(x, exact, n) <= 1e-10, "trisolve.sweeps_depth_exact." + tag, "K " + std::to_string(dmax) + ": " + std::to_string(rel_error(x, exact, n)));
          // as small as the exact solve's own residual allows (qh882's factors span many decades)
          const double q = run_probe(T, be, M.values);
          check(q <= std::max(1e-12, 1e3 * exact_probe), "trisolve.probe_exact." + tag, sci(q) + ", the exact solve's " + sci(exact_probe));
        }
        if (n > 0) { // fewer sweeps: the error against the exact solve shrinks
          double e[2];
          for (int s = 0; s < 2; ++s) {
            trisolve::TriangularApply T(M.view(), Mode::sweeps, s ? 3 : 1, *formats[f], be, nullptr);
            e[s] = rel_error(run_apply(T, be, M.values, b), exact, n);
          }
          check(e[1] <= e[0] * (1 + 1e-12) + 1e-15, "trisolve.sweeps_converge." + tag, "K=1 " + std::to_string(e[0]) + ", K=3 " + std::to_string(e[1]));
          trisolve::TriangularApply T(M.view(), Mode::sweeps, 1, *formats[f], be, nullptr);
          const double q = run_probe(T, be, M.values), want = probe_reference(T, be, M);
          check(std::fabs(q - want) <= 1e-10 * std::max(1.0, want) && (dmax <= 2 || q > 0), "trisolve.probe_sweeps1." + tag, sci(q) + " against " + sci(want));
        }
        if (small) {
          trisolve::TriangularApply T(M.view(), Mode::isai, 0, *formats[f], be, nullptr);
          const std::vector<double> x = run_apply(T, be, M.values, b);
          check(rel_error(x, isai_ref, n) <= 1e-11, "trisolve.isai." + tag, std::to_string(rel_error(x, isai_ref, n)));
          check(T.products() == 2 && (n == 0 || T.apply_bytes() > 0), "trisolve.isai_cost." + tag);
          const double q = run_probe(T, be, M.values), want = probe_reference(T, be, M);
          check(std::fabs(q - want) <= 1e-10 * std::max(1.0, want), "trisolve.probe_isai." + tag, sci(q) + " against " + sci(want));
          check(T.apply_flops() == 2.0 * ((double)LI.colidx.size() + (double)UI.colidx.size()), "trisolve.isai_flops." + tag, std::to_string(T.apply_flops()));
        }
        if (be == Backend::cuda && f == 0) { // cuSPARSE's ILU(0) against the host's
          trisolve::TriangularApply T(M.view(), Mode::isai, 0, *formats[f], be, nullptr);
          std::vector<double>       factored;
          const std::vector<double> x = run_apply(T, be, A.values, b, true, &factored);
          check(rel_error(factored, M.values, M.values.size()) <= 1e-12, "trisolve.ilu0_cuda." + name, std::to_string(rel_error(factored, M.values, M.values.size())));
          if (small) check(rel_error(x, isai_ref, n) <= 1e-10, "trisolve.ilu0_cuda_isai." + name, std::to_string(rel_error(x, isai_ref, n)));
        }
      } catch (const Error &e) {
        check(false, "trisolve." + tag, std::string("threw: ") + e.what());
      }
    }
  }
}

// ILU(k)'s pattern by the dense definition (KIJ): lev(i, j) = 0 on A's pattern, and eliminating
// pivot p makes lev(i, j) = min(lev(i, j), lev(i, p) + lev(p, j) + 1) for j > p where lev(i, p) <= k.
void test_iluk(const std::string &name, const CsrMatrix &A0)
{
  const CsrMatrix A = dominant(A0);
  const int32_t   n = A.nrows;
  const int       kInf = 1 << 28;
  std::vector<int> all_levels{0, 1, 2, 3};
  if (n > 3) all_levels.push_back(n);
  for (int levels : all_levels) {
    const trisolve::FillPattern P = trisolve::iluk_pattern(A.view(), levels);
    const std::string           tag = name + ".k" + (levels == n && n > 3 ? std::string("n") : std::to_string(levels));
    bool                        ok  = (int32_t)P.rowptr.size() == n + 1 && (int64_t)P.a_to_m.size() == (int64_t)A.colidx.size();
    for (std::size_t k = 0; ok && k < P.a_to_m.size(); ++k) {
      const int32_t i = (int32_t)(std::upper_bound(A.rowptr.begin(), A.rowptr.end(), (int32_t)k) - A.rowptr.begin()) - 1;
      ok = P.a_to_m[k] >= P.rowptr[i] && P.a_to_m[k] < P.rowptr[i + 1] && P.colidx[P.a_to_m[k]] == A.colidx[k] && (levels != 0 || P.a_to_m[k] == (int32_t)k);
    }
    if (n <= 400) { // the pattern against the dense definition
      std::vector<int> lev((std::size_t)n * n, kInf);
      for (int32_t i = 0; i < n; ++i)
        for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) lev[(std::size_t)i * n + A.colidx[k]] = 0;
      for (int32_t p = 0; p < n; ++p)
        for (int32_t i = p + 1; i < n; ++i) {
          const int lip = lev[(std::size_t)i * n + p];
          if (lip > levels) continue;
          for (int32_t j = p + 1; j < n; ++j) lev[(std::size_t)i * n + j] = std::min(lev[(std::size_t)i * n + j], lip + lev[(std::size_t)p * n + j] + 1);
        }
      std::vector<int32_t> colidx;
      std::vector<int32_t> rowptr{0};
      for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j)
          if (lev[(std::size_t)i * n + j] <= levels) colidx.push_back(j);
        rowptr.push_back((int32_t)colidx.size());
      }
      check(ok && rowptr == P.rowptr && colidx == P.colidx, "trisolve.iluk_pattern." + tag, std::to_string(P.nnz()) + " entries, the definition's " + std::to_string(colidx.size()));
    } else {
      check(ok, "trisolve.iluk_pattern." + tag, std::to_string(P.nnz()) + " entries");
    }
    if (levels == n) { // complete fill: the ILU(0) of A in it is A's LU, whose solves are exact
      CsrMatrix M;
      M.nrows = M.ncols = n;
      M.rowptr = P.rowptr, M.colidx = P.colidx, M.values.assign(P.colidx.size(), 0.0);
      for (std::size_t k = 0; k < P.a_to_m.size(); ++k) M.values[P.a_to_m[k]] = A.values[k];
      trisolve::ilu0_host(M.view(), M.values.data());
      std::vector<double> b(n), x(n), r(n);
      for (int32_t i = 0; i < n; ++i) b[i] = std::cos(0.37 * i);
      trisolve::lu_solve_host(M.view(), b.data(), x.data());
      double err = 0, scale = 0; // backward stable: rounding times |A| |x|
      for (int32_t i = 0; i < n; ++i) {
        double s = 0, a = 0;
        for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) s += A.values[k] * x[A.colidx[k]], a += std::fabs(A.values[k] * x[A.colidx[k]]);
        err = std::max(err, std::fabs(s - b[i])), scale = std::max(scale, a);
      }
      check(err <= 1e-10 * std::max(scale, 1.0), "trisolve.iluk_complete_is_lu." + name, "max |A x - b| " + std::to_string(err) + " against max |A| |x| " + std::to_string(scale));
    }
  }
}

template <class F>
void expect_bad_input(const std::string &name, F &&f)
{
  try {
    f();
    check(false, name, "no error");
  } catch (const Error &e) {
    check(e.kind == ErrorKind::bad_input, name, e.what());
  }
}

// Schedule::automatic, the default: lines where the plan gives lines::kAutoWidth rows a step per
// SM (a 64^3 grid: 1379 a step), tiles where not (a 256^2 grid: 128 a step), with the tiles' answers
void test_auto(const std::string &name, const CsrMatrix &A0, const std::vector<Backend> &backends, int expect)
{
  const CsrMatrix A = dominant(A0);
  const int32_t   n = A.nrows;
  CsrMatrix       M = A;
  trisolve::ilu0_host(A.view(), M.values.data());
  std::vector<double> b(n);
  for (int32_t i = 0; i < n; ++i) b[i] = 1.0 + 0.25 * (i % 7);
  const FormatOps &ev = *find_format("evchyb");
  for (Backend be : backends) {
    const std::string tag = std::string(be == Backend::host ? "host." : "cuda.") + name;
    try {
      trisolve::TriangularApply T(M.view(), Mode::levelset, 0, ev, be, nullptr), Tt(M.view(), Mode::levelset, 0, ev, be, nullptr, trisolve::ExactOptions{false, trisolve::Schedule::tiles});
      const std::vector<double> x = run_apply(T, be, M.values, b), xt = run_apply(Tt, be, M.values, b);
      check(rel_error(x, xt, n) <= 1e-12, "trisolve.auto_exact." + tag, std::to_string(rel_error(x, xt, n)));
      std::vector<LayoutStat> stats;
      T.describe(stats);
      int         lined = 0, narrow = 0;
      std::string what;
      for (const LayoutStat &l : stats)
        if (l.key == "L lines" || l.key == "U lines") {
          lined += l.value.rfind("lines of ", 0) == 0;
          narrow += l.value.find("rows a step, fewer than") != std::string::npos;
          what += "; " + l.key + " " + l.value;
        }
      check(lined == expect && narrow == 2 - expect, "trisolve.auto_lines." + tag, std::to_string(lined) + " of 2 triangles in lines, " + std::to_string(expect) + " expected" + what);
      // lines_required (the glue's ILU(k > 0) default): a refused plan throws, naming why; taken
      // ones give the same answer and still serve the transposed solve
      trisolve::ExactOptions req;
      req.lines_required = true;
      // the glue's check before the fill: refuses only what the plan refuses, and the 2D grid here
      const std::string early = trisolve::lines_refuse_every_fill(M.view());
      check(expect == 2 ? early.empty() : early.find("rows a step (the pattern's own") != std::string::npos, "trisolve.auto_refuse_every_fill." + tag, early.empty() ? "may take" : early);
      if (expect < 2) expect_bad_input("trisolve.auto_required_refuses." + tag, [&] { trisolve::TriangularApply R(M.view(), Mode::levelset, 0, ev, be, nullptr, req); });
      else {
        trisolve::TriangularApply R(M.view(), Mode::levelset, 0, ev, be, nullptr, req);
        const std::vector<double> xr = run_apply(R, be, M.values, b);
        check(rel_error(x, xr, n) == 0, "trisolve.auto_required_takes." + tag, std::to_string(rel_error(x, xr, n)));
        const std::vector<double> yr = run_apply(R, be, M.values, b, false, nullptr, true), yt = run_apply(Tt, be, M.values, b, false, nullptr, true);
        check(rel_error(yr, yt, n) <= 1e-12, "trisolve.auto_required_transpose." + tag, std::to_string(rel_error(yr, yt, n)));
      }
    } catch (const Error &e) {
      check(false, "trisolve.auto_exact." + tag, std::string("threw: ") + e.what());
    }
  }
}

// level_shape against a fixpoint (levels relaxed over the entries in reverse order until none
// changes: no topological pass), and exact_declines against its rule.
void test_level_shape(const std::string &name, const CsrMatrix &A)
{
  const int32_t n = A.nrows;
  for (int upper = 0; upper < 2; ++upper) {
    std::vector<int32_t> level(n, 0);
    for (bool changed = true; changed;) {
      changed = false;
      for (int32_t i = n - 1; i >= 0; --i)
        for (int32_t e = A.rowptr[i]; e < A.rowptr[i + 1]; ++e) {
          const int32_t j = A.colidx[e];
          if ((upper ? j > i : j < i) && level[j] + 1 > level[i]) level[i] = level[j] + 1, changed = true;
        }
    }
    std::map<int32_t, int64_t> longest;
    for (int32_t i = 0; i < n; ++i) {
      int64_t reads = 0;
      for (int32_t e = A.rowptr[i]; e < A.rowptr[i + 1]; ++e) reads += upper ? A.colidx[e] > i : A.colidx[e] < i;
      longest[level[i]] = std::max(longest[level[i]], reads);
    }
    int64_t serial = 0;
    for (const auto &l : longest) serial += l.second;
    const trisolve::LevelShape t = trisolve::level_shape(n, A.rowptr.data(), A.colidx.data(), upper);
    check(t.levels == (int32_t)longest.size() && t.serial_reads == serial, "trisolve.level_shape." + name + (upper ? ".U" : ".L"),
          std::to_string(t.levels) + " levels, " + std::to_string(t.serial_reads) + " serial reads; fixpoint " + std::to_string(longest.size()) + ", " + std::to_string(serial));
  }
}

// A lower and upper band of half-width k over n rows (each row reads its k neighbours on each side):
// n levels per triangle, the longest row of each reading min(i, k).
CsrMatrix band_of(int32_t n, int32_t k)
{
  CsrMatrix A;
  A.nrows = A.ncols = n;
  A.rowptr.assign(1, 0);
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = std::max(0, i - k); j <= std::min(n - 1, i + k); ++j) A.colidx.push_back(j), A.values.push_back(j == i ? 2.0 * k + 1 : -1.0);
    A.rowptr.push_back((int32_t)A.colidx.size());
  }
  return A;
}

} // namespace

int main(int argc, char **argv)
{
  int                  count = 0;
  std::vector<Backend> backends{Backend::host};
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) backends.push_back(Backend::cuda);
  cudaGetLastError();
  for (const NamedMatrix &m : edge_case_matrices(false))
    if (m.A.nrows == m.A.ncols && m.A.nrows <= 6000 && m.name != "mixed_1_to_600") test_matrix(m.name, m.A, backends);
  if (argc > 1)
    for (const NamedMatrix &m : real_matrices(argv[1]))
      if (m.A.nrows == m.A.ncols && m.A.nrows <= 20000) test_matrix(m.name, m.A, backends);
  // grids in lines (the plan as found: a line's length from the pattern), and one that is not
  test_matrix("lines_stencil7_10", stencil7(10), backends, 2);
  test_matrix("lines_stencil5_24x40", stencil5(24, 40), backends, 2);
  test_matrix("lines_stencil27_9", stencil27(9), backends, 2, 9);
  test_matrix("lines_box_8x96x6", grid_dofs(8, 96, 6, 1), backends, 2, 8);
  test_matrix("lines_grid_16x24_4dof", grid_dofs(16, 24, 1, 4), backends, 2, 64);
  test_matrix("lines_stencil7_8_wide_row", with_wide_row(stencil7(8), 100, 20), backends, 1);
  test_auto("stencil7_64", stencil7(64), backends, 2);
  test_auto("stencil5_256x256", stencil5(256, 256), backends, 0);
  // ILU(1)'s pattern (the glue's default takes ours where lines take both triangles): a 96^3 grid's
  // lines fill the SMs (a 64^3 grid's give 691 rows a step, fewer than 8 per SM), a 2D grid's do not
  const auto fill_of = [](const CsrMatrix &A, int k) {
    const trisolve::FillPattern P = trisolve::iluk_pattern(A.view(), k);
    CsrMatrix                   F;
    F.nrows = A.nrows, F.ncols = A.ncols, F.rowptr = P.rowptr, F.colidx = P.colidx;
    F.values.assign(P.colidx.size(), 0.0);
    for (std::size_t e = 0; e < P.a_to_m.size(); ++e) F.values[P.a_to_m[e]] = A.values[e];
    return F;
  };
  test_auto("stencil7_96_ilu1", fill_of(stencil7(96), 1), backends, 2);
  test_auto("stencil5_256x256_ilu1", fill_of(stencil5(256, 256), 1), backends, 0);
  check(short_lines[0] * 2 >= short_lines[1], "trisolve.exact_lines_coverage", std::to_string(short_lines[0]) + " of " + std::to_string(short_lines[1]) + " triangles in short lines");
  for (const NamedMatrix &m : edge_case_matrices(false))
    if (m.A.nrows == m.A.ncols && m.A.nrows <= 400) test_iluk(m.name, m.A);
  // the level shapes, and exact_declines' rule at its edges (a band: n levels of min(i, k) reads)
  for (const NamedMatrix &m : edge_case_matrices(false))
    if (m.A.nrows == m.A.ncols && m.A.nrows <= 6000) test_level_shape(m.name, m.A);
  test_level_shape("stencil5_30x40", stencil5(30, 40));
  if (argc > 1)
    for (const NamedMatrix &m : real_matrices(argv[1]))
      if (m.A.nrows == m.A.ncols && m.A.nrows <= 20000) test_level_shape(m.name, m.A);
  {
    const int32_t lv = trisolve::kThinLevelsMin, k = trisolve::kThinLevelReads;
    // serial reads of a band: sum over i < n of min(i, k) = n k - k (k + 1) / 2 against
    // the rule's total kThinLevelReads x levels (the reason shows the floor of the mean)
    const auto declines = [](const CsrMatrix &A) { return !trisolve::exact_declines(A.view()).empty(); };
    check(declines(band_of(lv + k + 1, k + 1)), "trisolve.exact_declines.thin_long_rows", trisolve::exact_declines(band_of(lv + k + 1, k + 1).view()));
    check(!declines(band_of(lv - 1, 4 * k)), "trisolve.exact_declines.few_levels", trisolve::exact_declines(band_of(lv - 1, 4 * k).view()));
    check(!declines(band_of(4 * lv, k - 1)), "trisolve.exact_declines.short_rows", trisolve::exact_declines(band_of(4 * lv, k - 1).view()));
    check(!declines(stencil7(24)) && !declines(stencil5(256, 256)), "trisolve.exact_declines.grids", "a grid's triangles declined");
    // a longest row the caller knows replaces the scan: one shorter than the rule's reads declines nothing
    const CsrMatrix thin = band_of(lv + k + 1, k + 1);
    check(!trisolve::exact_declines(thin.view(), k + 1).empty() && trisolve::exact_declines(thin.view(), k + 1) == trisolve::exact_declines(thin.view()) &&
            trisolve::exact_declines(thin.view(), k - 1).empty(),
          "trisolve.exact_declines.longest_row_given");
  }
  for (uint64_t seed = 1; seed <= 4; ++seed) test_iluk("random" + std::to_string(seed), uniform_rows(60 + 50 * (int32_t)seed, 60 + 50 * (int32_t)seed, 1, 1 + 2 * (int32_t)seed, seed));
  if (argc > 1)
    for (const NamedMatrix &m : real_matrices(argv[1]))
      if (m.A.nrows == m.A.ncols && m.A.nrows <= 1200) test_iluk(m.name, m.A);
  { // auto's model: the iterations scale as ln(rate_exact) / ln(rate_approx), times the time per iteration
    using trisolve::AutoProbe;
    using trisolve::predicted_time_ratio;
    const auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-14 * std::fabs(b); };
    check(predicted_time_ratio(AutoProbe{0.5, 0.5, 2e-3, 2e-3}) == 1.0, "trisolve.auto_model.same");
    check(near(predicted_time_ratio(AutoProbe{0.5, 0.25, 4.0, 1.0}), 0.5 * 0.25), "trisolve.auto_model.faster_and_stronger");
    check(near(predicted_time_ratio(AutoProbe{0.25, 0.5, 4.0, 1.0}), 2.0 * 0.25), "trisolve.auto_model.cheaper_but_weaker");
    check(predicted_time_ratio(AutoProbe{0.1, 0.9, 4.0, 1.0}) > 1, "trisolve.auto_model.much_weaker_loses");
    check(near(predicted_time_ratio(AutoProbe{1.0, 1.0, 4.0, 1.0}), 0.25), "trisolve.auto_model.both_stagnate_cheaper_wins");
    check(std::isinf(predicted_time_ratio(AutoProbe{0.5, 1.0, 4.0, 1.0})) == false && predicted_time_ratio(AutoProbe{0.5, 1.0, 4.0, 1.0}) > 1e6, "trisolve.auto_model.approx_stagnates");
    check(std::isinf(predicted_time_ratio(AutoProbe{NAN, 0.5, 4.0, 1.0})) && std::isinf(predicted_time_ratio(AutoProbe{0.5, NAN, 4.0, 1.0})) && std::isinf(predicted_time_ratio(AutoProbe{0.5, 0.5, 0.0, 1.0})),
          "trisolve.auto_model.not_measured");
    check(predicted_time_ratio(AutoProbe{0.0, 0.5, 4.0, 1.0}) > 10 && near(predicted_time_ratio(AutoProbe{0.0, 0.0, 4.0, 1.0}), 0.25), "trisolve.auto_model.exact_preconditioner");
    // the margins against the measured cases (trisolve.hpp: predicted ratio, levels, measured KSPSolve
    // of the sweeps over exact): never the sweeps where they were > 5% slower, always where >= 1.5x faster
    struct Case { double ratio; int levels; double measured; };
    const Case cases[] = {{0.040, 0, 0.05}, {0.050, 0, 0.06}, {0.277, 0, 0.59}, {0.278, 0, 0.56}, {0.299, 0, 0.56}, {0.363, 0, 0.56}, {0.392, 0, 0.43}, {0.441, 0, 1.27}, {0.526, 0, 2.9}, {2.14, 0, 9.0}, {127, 0, 65},
                          {0.031, 1, 0.04}, {0.174, 2, 0.42}, {0.201, 1, 0.46}, {0.209, 1, 0.35}, {0.249, 1, 0.46}, {0.388, 1, 2.5}, {0.986, 1, 0.93}, {1.62, 1, 6.0}};
    bool ok = true;
    for (const Case &c : cases) {
      const bool sweeps = c.ratio <= trisolve::auto_margin(c.levels);
      if (c.measured > 1.05 && sweeps) ok = false;
      if (c.measured <= 1.0 / 1.5 && !sweeps && c.levels == 0) ok = false; // k > 0: ani4's 2x is given up (trisolve.hpp)
    }
    check(ok, "trisolve.auto_margin.measured_cases");
  }
  // errors
  CsrMatrix nodiag = uniform_rows(4, 4, 1, 1, 3); // one entry per row, not all on the diagonal
  nodiag.colidx = {1, 0, 3, 2};
  const FormatOps &ev = *find_format("evchyb");
  expect_bad_input("trisolve.error.missing_diagonal", [&] { trisolve::TriangularApply T(nodiag.view(), Mode::isai, 0, ev, Backend::host, nullptr); });
  expect_bad_input("trisolve.error.exact_missing_diagonal", [&] { trisolve::TriangularApply T(nodiag.view(), Mode::levelset, 0, ev, Backend::host, nullptr); });
  expect_bad_input("trisolve.error.ilu0_missing_diagonal", [&] { trisolve::ilu0_host(nodiag.view(), nodiag.values.data()); });
  const CsrMatrix rect = uniform_rows(3, 5, 1, 2, 4);
  expect_bad_input("trisolve.error.not_square", [&] { trisolve::TriangularApply T(rect.view(), Mode::sweeps, 1, ev, Backend::host, nullptr); });
  expect_bad_input("trisolve.error.exact_not_square", [&] { trisolve::TriangularApply T(rect.view(), Mode::levelset, 0, ev, Backend::host, nullptr); });
  const CsrMatrix sq = dominant(uniform_rows(5, 5, 1, 3, 5));
  expect_bad_input("trisolve.error.negative_sweeps", [&] { trisolve::TriangularApply T(sq.view(), Mode::sweeps, -1, ev, Backend::host, nullptr); });
  CsrMatrix zero_pivot = sq;
  for (int32_t k = zero_pivot.rowptr[0]; k < zero_pivot.rowptr[1]; ++k) zero_pivot.values[k] = 0.0;
  expect_bad_input("trisolve.error.iluk_missing_diagonal", [&] { trisolve::iluk_pattern(nodiag.view(), 1); });
  expect_bad_input("trisolve.error.iluk_negative_levels", [&] { trisolve::iluk_pattern(sq.view(), -1); });
  expect_bad_input("trisolve.error.zero_pivot", [&] { trisolve::ilu0_host(zero_pivot.view(), zero_pivot.values.data()); });
  return finish();
}
