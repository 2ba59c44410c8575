// Host references of the triangular apply (trisolve.hpp): ILU(0) and the exact solves.
#include "trisolve.hpp"

#include "../formats/slot_map.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpuformats {
namespace trisolve {

const char *mode_name(Mode m) { return m == Mode::sweeps ? "sweeps" : m == Mode::isai ? "isai" : "levelset"; }

double predicted_time_ratio(const AutoProbe &p)
{
  if (!std::isfinite(p.rate_exact) || !std::isfinite(p.rate_approx) || !(p.t_exact > 0) || !std::isfinite(p.t_approx) || !(p.t_approx >= 0)) return INFINITY;
  // an exact preconditioner converges in one iteration; no reduction at all in either: the same count
  const auto   clamp = [](double r) { return std::min(std::max(r, 1e-16), 1.0 - 1e-9); };
  const double its   = std::log(clamp(p.rate_exact)) / std::log(clamp(p.rate_approx));
  return its * p.t_approx / p.t_exact;
}

void ilu0_host(const CsrView &A, double *a)
{
  const std::vector<int32_t> diag = diagonal_of(A);
  std::vector<int32_t>       pos(A.ncols, -1); // column -> CSR position in row i
  for (int32_t i = 0; i < A.nrows; ++i) {
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) pos[A.colidx[k]] = k;
    for (int32_t k = A.rowptr[i]; k < diag[i]; ++k) { // l_ij = a_ij / u_jj; row i -= l_ij * row j (within the pattern)
      const int32_t j = A.colidx[k];
      a[k] /= a[diag[j]];
      for (int32_t q = diag[j] + 1; q < A.rowptr[j + 1]; ++q)
        if (pos[A.colidx[q]] >= 0) a[pos[A.colidx[q]]] -= a[k] * a[q];
    }
    if (a[diag[i]] == 0.0 || !std::isfinite(a[diag[i]])) throw Error(ErrorKind::bad_input, "ILU(0): zero pivot in row " + std::to_string(i));
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) pos[A.colidx[k]] = -1;
  }
}

void lu_solve_host(const CsrView &M, const double *b, double *x)
{
  const std::vector<int32_t> diag = diagonal_of(M);
  for (int32_t i = 0; i < M.nrows; ++i) { // L y = b, unit diagonal
    double s = b[i];
    for (int32_t k = M.rowptr[i]; k < diag[i]; ++k) s -= M.values[k] * x[M.colidx[k]];
    x[i] = s;
  }
  for (int32_t i = M.nrows - 1; i >= 0; --i) { // U x = y
    double s = x[i];
    for (int32_t k = diag[i] + 1; k < M.rowptr[i + 1]; ++k) s -= M.values[k] * x[M.colidx[k]];
    x[i] = s / M.values[diag[i]];
  }
}

void lu_solve_transpose_host(const CsrView &M, const double *b, double *x)
{
  const std::vector<int32_t> diag = diagonal_of(M);
  std::copy(b, b + M.nrows, x);
  for (int32_t i = 0; i < M.nrows; ++i) { // U^T z = b: z_i final once the rows above are subtracted
    x[i] /= M.values[diag[i]];
    for (int32_t k = diag[i] + 1; k < M.rowptr[i + 1]; ++k) x[M.colidx[k]] -= M.values[k] * x[i];
  }
  for (int32_t i = M.nrows - 1; i >= 0; --i) // L^T x = z, unit diagonal
    for (int32_t k = M.rowptr[i]; k < diag[i]; ++k) x[M.colidx[k]] -= M.values[k] * x[i];
}

Error missing_diagonal(int64_t row)
{
  return Error(ErrorKind::bad_input, "ILU(0) needs every diagonal entry in the nonzero pattern; row " + std::to_string(row) + " has none (insert an explicit zero, or use -mat_gpuformats_trisolve cusparse)");
}

std::vector<int32_t> diagonal_of(const CsrView &M)
{
  if (M.nrows != M.ncols) throw Error(ErrorKind::bad_input, "triangular factors of a non-square matrix (" + std::to_string(M.nrows) + " x " + std::to_string(M.ncols) + ")");
  std::vector<int32_t> diag = diagonal_positions(M);
  for (int32_t i = 0; i < M.nrows; ++i)
    if (diag[i] < 0) throw missing_diagonal(i);
  return diag;
}

FillPattern iluk_pattern(const CsrView &A, int levels)
{
  if (levels < 0) throw Error(ErrorKind::bad_input, "ILU(k) with k = " + std::to_string(levels) + " < 0");
  diagonal_of(A); // square, every diagonal stored
  const int32_t              n     = A.nrows;
  constexpr int32_t          kNone = INT32_MAX;
  FillPattern                P;
  std::vector<int32_t>       lev(n, kNone), udiag(n), ulev; // ulev: the level of each stored entry
  std::vector<int32_t>       row;                           // row i's columns, sorted
  P.rowptr.assign(1, 0);
  P.a_to_m.resize(A.nnz);
  for (int32_t i = 0; i < n; ++i) {
    row.assign(A.colidx + A.rowptr[i], A.colidx + A.rowptr[i + 1]);
    for (int32_t c : row) lev[c] = 0;
    // pivots in increasing order; fill of a pivot's U row lands after it, so a position walk sees it
    for (std::size_t q = 0; q < row.size() && row[q] < i; ++q) {
      const int32_t p = row[q];
      for (int32_t k = udiag[p] + 1; k < P.rowptr[p + 1]; ++k) {
        const int32_t j = P.colidx[k], l = lev[p] + ulev[k] + 1;
        if (l > levels) continue;
        if (lev[j] == kNone) row.insert(std::lower_bound(row.begin() + (std::ptrdiff_t)q + 1, row.end(), j), j);
        lev[j] = std::min(lev[j], l);
      }
    }
    const int32_t base = P.rowptr.back();
    for (int32_t c : row) {
      if (c == i) udiag[i] = (int32_t)P.colidx.size();
      P.colidx.push_back(c);
      ulev.push_back(lev[c]);
      lev[c] = kNone;
    }
    if (P.colidx.size() > (std::size_t)INT32_MAX) throw Error(ErrorKind::unsupported, "ILU(" + std::to_string(levels) + ")'s pattern has more than 2^31 - 1 entries");
    P.rowptr.push_back((int32_t)P.colidx.size());
    for (int32_t k = A.rowptr[i], q = base; k < A.rowptr[i + 1]; ++k) { // A's columns are a sorted subset of the row's
      while (P.colidx[q] != A.colidx[k]) ++q;
      P.a_to_m[k] = q;
    }
  }
  return P;
}

LevelShape level_shape(int32_t n, const int32_t *rp, const int32_t *ci, bool upper)
{
  LevelShape           shape;
  std::vector<int32_t> level(std::max(n, 0));
  std::vector<int32_t> longest; // per level: its longest row's reads
  for (int32_t r = 0; r < n; ++r) { // row i after every row it reads
    const int32_t i = upper ? n - 1 - r : r;
    int32_t       l = 0, reads = 0;
    for (int32_t e = rp[i]; e < rp[i + 1]; ++e)
      if (upper ? ci[e] > i && ci[e] < n : ci[e] < i) l = std::max(l, level[ci[e]] + 1), ++reads;
    level[i] = l;
    if (l >= (int32_t)longest.size()) longest.resize(l + 1, 0);
    longest[l] = std::max(longest[l], reads);
  }
  shape.levels = (int32_t)longest.size();
  for (int32_t m : longest) shape.serial_reads += m;
  return shape;
}

std::string exact_declines(const CsrView &A, int64_t longest)
{
  // a triangle's rows read fewer entries than their rows hold: rows all shorter than the rule's
  // reads (grids of 7 or fewer points) need no pass over the entries (ksp ex45 256^3: 0.4 s)
  if (longest <= 0)
    for (int32_t i = 0; i < A.nrows; ++i) longest = std::max<int64_t>(longest, A.rowptr[i + 1] - A.rowptr[i]);
  if (longest < kThinLevelReads) return "";
  for (int upper = 0; upper < 2; ++upper) {
    const LevelShape t = level_shape(A.nrows, A.rowptr, A.colidx, upper);
    if (t.levels >= kThinLevelsMin && t.serial_reads >= (int64_t)kThinLevelReads * t.levels)
      return std::string(upper ? "U" : "L") + ": " + std::to_string(t.levels) + " levels, each level's longest row " + std::to_string(t.serial_reads / t.levels) + " reads on average (" + std::to_string(kThinLevelReads) + " or more over " +
             std::to_string(kThinLevelsMin) + " or more levels)";
  }
  return "";
}

} // namespace trisolve
} // namespace gpuformats
