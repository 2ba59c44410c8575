// Matrix generators (see generators.hpp for the spec language and the shapes).
//
// Determinism: row i of a row-wise generator draws from Rng(mix(seed, i)) only, and every value is
// hashed_value(seed, row, col); R-MAT draws edge chunk c from Rng(mix(seed, c)). So the matrix is
// a function of (spec, seed) alone, whatever the number of threads.
#include "matgen/generators.hpp"

#include "matgen/matgen_detail.hpp"
#include "matgen/matrix_market.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace gpuformats {

using namespace matgen_detail;

namespace {

// --- spec parsing -----------------------------------------------------------------------------

struct Spec {
  std::string                        text, name;
  std::map<std::string, std::string> kv;
};

std::string trim(const std::string &s)
{
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Spec parse_spec(const std::string &text)
{
  Spec         s;
  const size_t colon = text.find(':');
  s.text             = text;
  s.name             = trim(text.substr(0, colon));
  if (colon == std::string::npos) return s;
  std::stringstream rest(text.substr(colon + 1));
  for (std::string item; std::getline(rest, item, ',');) {
    item = trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error(ErrorKind::bad_input, "matrix spec '" + text + "': '" + item + "' is not key=value");
    const std::string key = trim(item.substr(0, eq));
    if (s.kv.count(key)) throw Error(ErrorKind::bad_input, "matrix spec '" + text + "': '" + key + "' given twice");
    s.kv[key] = trim(item.substr(eq + 1));
  }
  return s;
}

// 2e7, 20M, 1.5G, 64k, 0.25
bool parse_number(const std::string &v, double *out)
{
  if (v.empty()) return false;
  char  *end = nullptr;
  double x   = std::strtod(v.c_str(), &end);
  if (end == v.c_str()) return false;
  std::string suffix(end);
  if (suffix == "k" || suffix == "K") x *= 1e3;
  else if (suffix == "m" || suffix == "M") x *= 1e6;
  else if (suffix == "g" || suffix == "G") x *= 1e9;
  else if (!suffix.empty()) return false;
  if (!std::isfinite(x)) return false;
  *out = x;
  return true;
}

// A generator's parameters: rejects unknown keys, parses and range-checks values.
class Params {
public:
  Params(const Spec &s, std::initializer_list<const char *> keys) : s_(s)
  {
    std::set<std::string> known{"nnz", "seed", "blocksize", "symmetric"};
    for (const char *k : keys) known.insert(k);
    for (const auto &[k, v] : s.kv)
      if (!known.count(k)) {
        std::string list;
        for (const std::string &n : known) list += (list.empty() ? "" : ", ") + n;
        throw Error(ErrorKind::bad_input, "matrix spec '" + s.text + "': unknown parameter '" + k + "' for generator '" + s.name + "' (known: " + list + ")");
      }
  }
  bool   has(const char *k) const { return s_.kv.count(k) > 0; }
  double real(const char *k, double def, double lo, double hi) const
  {
    auto it = s_.kv.find(k);
    if (it == s_.kv.end()) return def;
    double x;
    if (!parse_number(it->second, &x)) throw Error(ErrorKind::bad_input, "matrix spec '" + s_.text + "': " + k + "=" + it->second + " is not a number");
    if (x < lo || x > hi) throw Error(ErrorKind::bad_input, "matrix spec '" + s_.text + "': " + k + "=" + it->second + " is outside [" + num(lo) + ", " + num(hi) + "]");
    return x;
  }
  int64_t integer(const char *k, int64_t def, int64_t lo, int64_t hi) const
  {
    const double x = real(k, (double)def, (double)lo, (double)hi);
    if (x != std::floor(x)) throw Error(ErrorKind::bad_input, "matrix spec '" + s_.text + "': " + k + " must be an integer");
    return (int64_t)x;
  }
  std::string str(const char *k) const
  {
    auto it = s_.kv.find(k);
    return it == s_.kv.end() ? std::string() : it->second;
  }
  [[noreturn]] void fail(const std::string &what) const { throw Error(ErrorKind::bad_input, "matrix spec '" + s_.text + "': " + what); }
  // The size: the parameter `k` if given, else derived from nnz= by `from_nnz`; one of them is required.
  template <class F>
  int64_t size(const char *k, int64_t lo, int64_t hi, F from_nnz) const
  {
    if (has(k) && has("nnz")) fail(std::string("give either ") + k + "= or nnz=, not both");
    if (has(k)) return integer(k, 0, lo, hi);
    if (!has("nnz")) fail(std::string("give the size: ") + k + "=... or nnz=...");
    const double  target = real("nnz", 0, 1, 1e12);
    const int64_t v      = (int64_t)std::llround(from_nnz(target));
    if (v > hi) fail("nnz=" + str("nnz") + " asks for " + k + "=" + std::to_string(v) + ", beyond the largest supported " + std::to_string(hi));
    return std::max(lo, v);
  }

private:
  static std::string num(double x)
  {
    std::ostringstream o;
    o.precision(12);
    o << x;
    return o.str();
  }
  const Spec &s_;
};

// --- row-wise construction ----------------------------------------------------------------------

struct Scratch {
  std::vector<uint64_t> bits;
  std::vector<int32_t>  tmp;
};

// Rows are produced in chunks of this many (the unit of work a thread takes).
constexpr int64_t kRowChunk = 2048;

// fn(row, rng, cols, scratch) appends row's columns to cols (any order, duplicates allowed: they
// are sorted and merged here). value(row, col) gives each entry's value.
template <class RowFn, class ValueFn>
CsrMatrix build_rows_valued(const std::string &what, int64_t nrows, int64_t ncols, uint64_t seed, RowFn fn, ValueFn value)
{
  if (nrows > INT32_MAX || ncols > INT32_MAX) throw Error(ErrorKind::unsupported, what + ": " + std::to_string(nrows) + " x " + std::to_string(ncols) + " exceeds 32-bit indices; ask for a smaller size");
  struct Chunk {
    std::vector<int32_t> len, cols;
  };
  const int64_t      nchunks = (nrows + kRowChunk - 1) / kRowChunk;
  std::vector<Chunk> out((size_t)nchunks);
  parallel_for(nchunks, 1, [&](int64_t b, int64_t e) {
    Scratch              scratch;
    std::vector<int32_t> cols;
    for (int64_t c = b; c < e; ++c) {
      Chunk &ch = out[(size_t)c];
      for (int64_t i = c * kRowChunk; i < std::min(nrows, (c + 1) * kRowChunk); ++i) {
        cols.clear();
        Rng rng(mix64(seed, (uint64_t)i));
        fn((int32_t)i, rng, cols, scratch);
        if (!std::is_sorted(cols.begin(), cols.end())) std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        if (!cols.empty() && (cols.front() < 0 || cols.back() >= ncols)) throw Error(ErrorKind::bad_input, what + ": generator produced a column out of range in row " + std::to_string(i) + " (a bug)");
        ch.len.push_back((int32_t)cols.size());
        ch.cols.insert(ch.cols.end(), cols.begin(), cols.end());
      }
    }
  });
  std::vector<int64_t> chunk_start((size_t)nchunks + 1, 0);
  for (int64_t c = 0; c < nchunks; ++c) chunk_start[c + 1] = chunk_start[c] + (int64_t)out[c].cols.size();
  check_nnz_fits(chunk_start[nchunks], what);
  CsrMatrix A;
  A.nrows = (int32_t)nrows;
  A.ncols = (int32_t)ncols;
  A.rowptr.assign((size_t)nrows + 1, 0);
  A.colidx.resize((size_t)chunk_start[nchunks]);
  A.values.resize((size_t)chunk_start[nchunks]);
  parallel_for(nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      Chunk  &ch = out[(size_t)c];
      int64_t k  = chunk_start[c];
      int64_t i  = c * kRowChunk;
      std::copy(ch.cols.begin(), ch.cols.end(), A.colidx.begin() + k);
      for (int32_t l : ch.len) {
        for (int32_t q = 0; q < l; ++q, ++k) A.values[k] = value(i, A.colidx[k]);
        A.rowptr[i + 1] = (int32_t)k;
        ++i;
      }
      std::vector<int32_t>().swap(ch.cols);
      std::vector<int32_t>().swap(ch.len);
    }
  });
  return A;
}

// The same with values hashed from (seed, row, col).
template <class RowFn>
CsrMatrix build_rows(const std::string &what, int64_t nrows, int64_t ncols, uint64_t seed, RowFn fn)
{
  return build_rows_valued(what, nrows, ncols, seed, fn, [seed](int64_t row, int32_t col) { return hashed_value(seed, row, col); });
}

// Appends min(L, hi-lo+1) distinct columns uniform in [lo, hi], sorted.
void sample_uniform(Rng &rng, int64_t lo, int64_t hi, int64_t L, std::vector<int32_t> &cols, Scratch &s)
{
  const int64_t range = hi - lo + 1;
  L                   = std::min(L, range);
  if (L <= 0) return;
  if (L == range) {
    for (int64_t c = lo; c <= hi; ++c) cols.push_back((int32_t)c);
    return;
  }
  if (L * 32 < range) { // sparse: draw, sort, merge duplicates, draw the missing ones again
    std::vector<int32_t> &t = s.tmp;
    t.clear();
    while ((int64_t)t.size() < L) {
      for (int64_t k = (int64_t)t.size(); k < L; ++k) t.push_back((int32_t)(lo + (int64_t)rng.below((uint64_t)range)));
      std::sort(t.begin(), t.end());
      t.erase(std::unique(t.begin(), t.end()), t.end());
    }
    cols.insert(cols.end(), t.begin(), t.end());
    return;
  }
  // dense: a bitmap of the range; mark L (or clear range-L when L is most of it), then scan
  const bool    mark  = L <= range / 2;
  const int64_t want  = mark ? L : range - L;
  const size_t  words = (size_t)((range + 63) / 64);
  s.bits.assign(words, mark ? 0ULL : ~0ULL);
  if (!mark && range % 64) s.bits.back() = (1ULL << (range % 64)) - 1;
  for (int64_t done = 0; done < want;) {
    const uint64_t b = rng.below((uint64_t)range);
    uint64_t      &w = s.bits[b / 64];
    const uint64_t m = 1ULL << (b % 64);
    if (((w & m) != 0) != mark) {
      w ^= m;
      ++done;
    }
  }
  for (size_t w = 0; w < words; ++w)
    for (uint64_t x = s.bits[w]; x; x &= x - 1) cols.push_back((int32_t)(lo + (int64_t)(w * 64 + __builtin_ctzll(x))));
}

// Draws until cols holds `want` distinct entries; draw() returns a column or -1 (rejected). Gives up
// after a bounded number of rounds (the row is then shorter), so it always ends.
template <class Draw>
void fill_distinct(std::vector<int32_t> &cols, size_t want, Draw draw)
{
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  for (int round = 0; cols.size() < want && round < 64; ++round) {
    const size_t missing = want - cols.size();
    for (size_t k = 0; k < missing; ++k) {
      const int64_t c = draw();
      if (c >= 0) cols.push_back((int32_t)c);
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  }
}

// Columns of a mesh-like row: near `center`, or near center -+ plane (the neighbouring layer of a
// 3D numbering); `half` = half-width of each window.
int64_t draw_mesh_column(Rng &rng, int64_t center, int64_t plane, int64_t half, int64_t n)
{
  const uint64_t which = rng.below(4); // half the neighbours in the own layer, a quarter in each other
  const int64_t  c     = (which < 2 ? center : which == 2 ? center - plane : center + plane) + rng.between(-half, half);
  return (c >= 0 && c < n) ? c : -1;
}

// k distinct rows of [0, n) chosen by a seeded draw, sorted.
std::vector<int32_t> special_rows(uint64_t seed, uint64_t tag, int64_t k, int64_t n)
{
  Rng                  rng(mix64(seed, tag));
  Scratch              s;
  std::vector<int32_t> rows;
  sample_uniform(rng, 0, n - 1, k, rows, s);
  return rows;
}

bool contains(const std::vector<int32_t> &sorted, int32_t v) { return std::binary_search(sorted.begin(), sorted.end(), v); }

// --- the generators -----------------------------------------------------------------------------

constexpr int64_t kMaxDim = INT32_MAX;

CsrMatrix gen_stencil2d5(const Params &p, uint64_t seed, const std::string &what)
{
  int64_t nx, ny;
  if (p.has("nx") || p.has("ny")) {
    nx = p.integer("nx", 0, 1, kMaxDim);
    ny = p.integer("ny", nx, 1, kMaxDim);
    if (!p.has("nx")) p.fail("give nx= with ny=");
  } else nx = ny = p.size("n", 1, 46340, [](double nnz) { return std::sqrt(nnz / 5.0); });
  if (nx * ny > kMaxDim) p.fail("the grid has more than 2^31-1 points");
  return build_rows(what, nx * ny, nx * ny, seed, [=](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &) {
    const int64_t x = row % nx, y = row / nx;
    if (y > 0) cols.push_back(row - (int32_t)nx);
    if (x > 0) cols.push_back(row - 1);
    cols.push_back(row);
    if (x < nx - 1) cols.push_back(row + 1);
    if (y < ny - 1) cols.push_back(row + (int32_t)nx);
  });
}

// A 3D grid's size: nx= (ny=, nz= default to it), or n= / nnz= for a cube of per_row entries a row;
// refused beyond 2^31-1 points or nonzeros, before any time is spent on it.
void grid3d(const Params &p, double per_row, const std::string &what, int64_t &nx, int64_t &ny, int64_t &nz)
{
  if (p.has("nx") || p.has("ny") || p.has("nz")) {
    if (!p.has("nx")) p.fail("give nx= with ny=, nz=");
    nx = p.integer("nx", 0, 1, kMaxDim);
    ny = p.integer("ny", nx, 1, kMaxDim);
    nz = p.integer("nz", nx, 1, kMaxDim);
  } else nx = ny = nz = p.size("n", 1, 1290, [=](double nnz) { return std::cbrt(nnz / per_row); });
  if (nx * ny > kMaxDim || nx * ny * nz > kMaxDim) p.fail("the grid has more than 2^31-1 points");
  check_nnz_fits((int64_t)(per_row * (double)(nx * ny * nz)) - 1, what);
}

// Appends the columns of `row` of a 3D stencil on an nx x ny x nz grid, ascending: width 1
// neighbourhoods, either the 6 faces (7-point) or all 26 (27-point); returns how many.
int stencil3d_row(int64_t nx, int64_t ny, int64_t nz, bool full, int64_t row, std::vector<int32_t> &cols)
{
  const int64_t plane = nx * ny, x = row % nx, y = (row / nx) % ny, z = row / plane;
  int           k = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (!full && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
        if (x + dx < 0 || x + dx >= nx || y + dy < 0 || y + dy >= ny || z + dz < 0 || z + dz >= nz) continue;
        cols.push_back((int32_t)(row + dz * plane + dy * nx + dx)); // ascending: z, then y, then x
        ++k;
      }
  return k;
}

// 3D stencils: width 1 neighbourhoods, either the 6 faces (7-point) or all 26 (27-point).
CsrMatrix gen_stencil3d(const Params &p, uint64_t seed, const std::string &what, bool full)
{
  const double per_row = full ? 27.0 : 7.0;
  int64_t      nx, ny, nz;
  grid3d(p, per_row, what, nx, ny, nz);
  return build_rows(what, nx * ny * nz, nx * ny * nz, seed, [=](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &) { stencil3d_row(nx, ny, nz, full, row, cols); });
}

// KKT-like saddle point [H B^T; B -delta I] of an equality-constrained problem: H the 7-point
// stencil on a k^3 grid (k = round(cbrt(n)), n = k^3 the unknowns), B m x n with clen distinct
// uniform random columns a row, B^T its exact transpose (the pattern is symmetric), the m x m block
// only its diagonal -delta (no row empty). Off-diagonal values hashed from (seed, row, col); H's
// diagonal is its row's length in the whole matrix (H and the top rows strictly diagonally dominant).
CsrMatrix gen_kkt(const Params &p, uint64_t seed, const std::string &what)
{
  if (p.has("m") && p.has("ratio")) p.fail("give either m= or ratio=, not both");
  const int64_t clen  = p.integer("clen", 4, 1, 1 << 20);
  const double  ratio = p.real("ratio", 0.25, 0, 1e3);
  const double  delta = p.real("delta", 1e-3, 0, 1e12);
  // nnz ~ 7 n (H) + m (2 clen + 1) (B, B^T, the diagonal), m = ratio n unless m= is given
  const int64_t m_given = p.has("m") ? p.integer("m", 0, 0, kMaxDim) : -1;
  const int64_t n_asked = p.size("n", 1, (int64_t)1290 * 1290 * 1290, [=](double nnz) {
    const double per_c = (double)(2 * clen + 1);
    return m_given >= 0 ? std::max(1.0, (nnz - (double)m_given * per_c) / 7.0) : nnz / (7.0 + ratio * per_c);
  });
  const int64_t k = std::clamp<int64_t>(std::llround(std::cbrt((double)n_asked)), 1, 1290);
  const int64_t n = k * k * k, m = m_given >= 0 ? m_given : std::llround(ratio * (double)n);
  if (n + m > kMaxDim) p.fail("n + m = " + std::to_string(n + m) + " rows exceed 2^31-1");
  check_nnz_fits(7 * n + m * (2 * std::min(clen, n) + 1), what);
  // B's rows (each from a stream of its own), then B^T by a counting transpose (rows ascending)
  const CsrMatrix B = build_rows_valued(what, m, n, mix64(seed, 0x6b6bULL), [=](int32_t, Rng &rng, std::vector<int32_t> &cols, Scratch &s) { sample_uniform(rng, 0, n - 1, clen, cols, s); },
                                        [](int64_t, int32_t) { return 0.0; });
  std::vector<int32_t> tptr((size_t)n + 1, 0), tcol(B.colidx.size());
  for (int32_t c : B.colidx) ++tptr[(size_t)c + 1];
  for (int64_t i = 0; i < n; ++i) tptr[i + 1] += tptr[i];
  {
    std::vector<int32_t> pos(tptr.begin(), tptr.end() - 1);
    for (int32_t j = 0; j < (int32_t)m; ++j)
      for (int32_t q = B.rowptr[j]; q < B.rowptr[j + 1]; ++q) tcol[(size_t)pos[B.colidx[q]]++] = j;
  }
  auto value = [&, n, delta, k, seed](int64_t row, int32_t col) {
    if (row != col) return hashed_value(seed, row, col);
    if (row >= n) return -delta;
    const int64_t x = row % k, y = (row / k) % k, z = row / (k * k);
    const int     h = 1 + (x > 0) + (x < k - 1) + (y > 0) + (y < k - 1) + (z > 0) + (z < k - 1);
    return (double)(h + tptr[row + 1] - tptr[row]);
  };
  return build_rows_valued(what, n + m, n + m, seed, [&, n, k](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &) {
    if (row < n) { // [H B^T]: the stencil, then the constraints holding this unknown
      stencil3d_row(k, k, k, false, row, cols);
      for (int32_t q = tptr[row]; q < tptr[row + 1]; ++q) cols.push_back((int32_t)(n + tcol[q]));
    } else { // [B -delta]: the constraint's unknowns, then its diagonal
      const int64_t j = row - n;
      cols.insert(cols.end(), B.colidx.begin() + B.rowptr[j], B.colidx.begin() + B.rowptr[j + 1]);
      cols.push_back(row);
    }
  }, value);
}

// 3D convection-diffusion -Lap(u) + w . grad(u), 7-point, first-order upwind, Dirichlet boundaries
// eliminated (boundary rows just have fewer entries), scaled by h^2: -1 per neighbour, and for
// each direction d the upwind neighbour (x_d - 1 where w_d > 0, x_d + 1 where w_d < 0) another
// -pe*|w_d|; the diagonal 6 + pe*sum|w_d| everywhere (strictly dominant at the boundary). w is
// (wx,wy,wz) normalised, pe the cell Peclet number. An M-matrix, non-symmetric for pe > 0; values
// deterministic (no seed).
CsrMatrix gen_convdiff3d(const Params &p, uint64_t seed, const std::string &what)
{
  int64_t nx, ny, nz;
  grid3d(p, 7.0, what, nx, ny, nz);
  const double pe = p.real("pe", 10, 0, 1e12);
  double       w[3] = {p.real("wx", 1, -1e12, 1e12), p.real("wy", 0.5, -1e12, 1e12), p.real("wz", 0.25, -1e12, 1e12)};
  const double norm = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  if (norm == 0 && pe > 0) p.fail("the wind (wx,wy,wz) is zero; give a direction or pe=0");
  double conv[3], diag = 6; // conv[d] = pe*|w_d|, added to the upwind neighbour (negated) and the diagonal
  for (int d = 0; d < 3; ++d) {
    w[d]    = norm > 0 ? w[d] / norm : 0;
    conv[d] = pe * std::abs(w[d]);
    diag += conv[d];
  }
  const int64_t plane = nx * ny, stride[3] = {1, nx, plane};
  auto value = [=](int64_t row, int32_t col) {
    const int64_t off = (int64_t)col - row;
    if (off == 0) return diag;
    for (int d = 2; d >= 0; --d) // z first: strides coincide only where the lower direction has extent 1 (no neighbours)
      if (off == stride[d] || off == -stride[d]) {
        const bool upwind = (w[d] > 0 && off < 0) || (w[d] < 0 && off > 0);
        return upwind ? -1.0 - conv[d] : -1.0;
      }
    return 0.0; // not reached: only the 7-point neighbourhood is stored
  };
  return build_rows_valued(what, nx * ny * nz, nx * ny * nz, seed, [=](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &) {
    const int64_t x = row % nx, y = (row / nx) % ny, z = row / plane;
    if (z > 0) cols.push_back((int32_t)(row - plane));
    if (y > 0) cols.push_back((int32_t)(row - nx));
    if (x > 0) cols.push_back(row - 1);
    cols.push_back(row);
    if (x < nx - 1) cols.push_back(row + 1);
    if (y < ny - 1) cols.push_back((int32_t)(row + nx));
    if (z < nz - 1) cols.push_back((int32_t)(row + plane));
  }, value);
}

CsrMatrix gen_fem(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t lo = p.integer("min", 10, 1, 1 << 20), hi = p.integer("max", 80, lo, 1 << 20);
  const int64_t n  = p.size("rows", 1, kMaxDim, [=](double nnz) { return nnz / (0.5 * (double)(lo + hi)); });
  const int64_t plane = p.integer("plane", std::max<int64_t>(1, std::llround(std::pow((double)n, 2.0 / 3.0))), 1, kMaxDim);
  return build_rows(what, n, n, seed, [=](int32_t row, Rng &rng, std::vector<int32_t> &cols, Scratch &) {
    const int64_t L = std::min<int64_t>(rng.between(lo, hi), n);
    cols.push_back(row);
    fill_distinct(cols, (size_t)L, [&] { return draw_mesh_column(rng, row, plane, L, n); });
  });
}

CsrMatrix gen_blocks(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t bs = p.integer("bs", 5, 1, 64);
  const int64_t lo = p.integer("minb", 4, 1, 1 << 16), hi = p.integer("maxb", 12, lo, 1 << 16);
  int64_t       n  = p.size("n", 1, kMaxDim, [=](double nnz) { return nnz / ((double)bs * 0.5 * (double)(lo + hi)); });
  const int64_t nb = (n + bs - 1) / bs; // block rows
  n                = nb * bs;
  if (n > kMaxDim) p.fail("too many rows");
  const int64_t plane = std::max<int64_t>(1, std::llround(std::pow((double)nb, 2.0 / 3.0)));
  return build_rows(what, n, n, seed, [=](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &s) {
    // the pattern belongs to the block row: every row of it draws the same block columns
    const int64_t br = row / bs;
    Rng           brng(mix64(seed, 0xb10c5ULL, (uint64_t)br));
    const int64_t L     = std::min<int64_t>(brng.between(lo, hi), nb);
    auto         &bcols = s.tmp;
    bcols.assign(1, (int32_t)br);
    fill_distinct(bcols, (size_t)L, [&] { return draw_mesh_column(brng, br, plane, L, nb); });
    for (int32_t bc : bcols)
      for (int64_t q = 0; q < bs; ++q) cols.push_back((int32_t)(bc * bs + q));
  });
}

// The diagonal entry of the block generators: the row's length, more than the sum of the row's
// other |values| (each below 1), so the matrix is strictly diagonally dominant (a solver's test
// matrix as much as SpMV's).

// 3D 7-point stencil over points with bs unknowns each: every coupling of two points (and of a
// point with itself) a dense bs x bs block, as a multi-component PDE discretised point by point.
CsrMatrix gen_blockstencil3d(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t bs = p.integer("bs", 3, 1, 64);
  int64_t       nx, ny, nz;
  if (p.has("nx") || p.has("ny") || p.has("nz")) {
    if (!p.has("nx")) p.fail("give nx= with ny=, nz=");
    if (p.has("n") || p.has("nnz")) p.fail("give nx=,ny=,nz= or n= or nnz=, not several");
    nx = p.integer("nx", 0, 1, kMaxDim);
    ny = p.integer("ny", nx, 1, kMaxDim);
    nz = p.integer("nz", nx, 1, kMaxDim);
  } else
    nx = ny = nz = p.size("n", 1, 1290, [=](double nnz) {
      // the n whose exact count bs^2 (7 n^3 - 6 n^2) (the boundary points lack neighbours) is nearest
      const auto    count = [=](double n) { return (double)(bs * bs) * (7 * n * n * n - 6 * n * n); };
      const int64_t n0    = std::max<int64_t>(1, (int64_t)std::cbrt(nnz / (7.0 * (double)(bs * bs))));
      int64_t       best  = n0;
      for (int64_t n = std::max<int64_t>(1, n0 - 1); n <= n0 + 2; ++n)
        if (std::abs(count((double)n) - nnz) < std::abs(count((double)best) - nnz)) best = n;
      return (double)best;
    });
  const int64_t points = nx * ny * nz, plane = nx * ny;
  if (nx * ny > kMaxDim || points > kMaxDim / bs) p.fail("the grid times bs has more than 2^31-1 rows");
  check_nnz_fits(7 * bs * bs * points, what);
  const auto neighbours = [=](int64_t pt, int64_t *out) { // ascending point indices, the point itself included
    const int64_t x = pt % nx, y = (pt / nx) % ny, z = pt / plane;
    int           k = 0;
    if (z > 0) out[k++] = pt - plane;
    if (y > 0) out[k++] = pt - nx;
    if (x > 0) out[k++] = pt - 1;
    out[k++] = pt;
    if (x < nx - 1) out[k++] = pt + 1;
    if (y < ny - 1) out[k++] = pt + nx;
    if (z < nz - 1) out[k++] = pt + plane;
    return k;
  };
  auto value = [=](int64_t row, int32_t col) {
    int64_t nb[7];
    return row == col ? (double)(neighbours(row / bs, nb) * bs) : hashed_value(seed, row, col);
  };
  CsrMatrix A = build_rows_valued(what, points * bs, points * bs, seed, [=](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &) {
    int64_t   nb[7];
    const int k = neighbours(row / bs, nb);
    for (int j = 0; j < k; ++j)
      for (int64_t q = 0; q < bs; ++q) cols.push_back((int32_t)(nb[j] * bs + q));
  }, value);
  A.block_size = (int32_t)bs;
  return A;
}

// FEM-like block matrix: an unstructured-looking mesh graph of n nodes with bs unknowns each, every
// coupling a dense bs x bs block. Node i links to k_i nodes ahead of it (k_i uniform in
// [min/2, ceil(max/2)]), half within 2*ceil(max/2) nodes of it (its layer of a 3D numbering), half
// within +-ceil(max/2) of i + plane (the next layer); the graph is then made symmetric, as a mesh's
// is: a node's degree averages about (min+max)/2 and spreads wider, the first and last layer
// have fewer links (a boundary).
CsrMatrix gen_blockfem(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t bs = p.integer("bs", 3, 1, 64);
  const int64_t mn = p.integer("min", 10, 0, 1 << 16), mx = p.integer("max", 30, mn, 1 << 16);
  const int64_t klo = mn / 2, khi = (mx + 1) / 2;
  const double  blocks_per_row = 1.0 + (double)(klo + khi); // the node itself + 2 * mean(k)
  const int64_t n     = p.size("n", 1, kMaxDim / bs, [=](double nnz) { return nnz / ((double)(bs * bs) * blocks_per_row); });
  const int64_t plane = p.integer("plane", std::max<int64_t>(1, std::llround(std::pow((double)n, 2.0 / 3.0))), 1, kMaxDim);
  check_nnz_fits((int64_t)(blocks_per_row * (double)(n * bs * bs)), what);
  // the links ahead of each node (a node-level matrix: its pattern only)
  const CsrMatrix ahead = build_rows_valued(what, n, n, seed, [=](int32_t i, Rng &rng, std::vector<int32_t> &cols, Scratch &) {
    const int64_t k = std::min<int64_t>(rng.between(klo, khi), n - 1 - i);
    fill_distinct(cols, (size_t)std::max<int64_t>(0, k), [&] {
      const int64_t c = rng.below(2) ? i + rng.between(1, 2 * std::max<int64_t>(1, khi)) : i + plane + rng.between(-khi, khi);
      return (c > i && c < n) ? c : -1;
    });
  }, [](int64_t, int32_t) { return 0.0; });
  // symmetric node graph, the diagonal included
  const int64_t        nlinks = (int64_t)ahead.colidx.size();
  std::vector<int32_t> r((size_t)(2 * nlinks + n)), c((size_t)(2 * nlinks + n));
  parallel_for(n, 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      r[(size_t)(2 * nlinks + i)] = c[(size_t)(2 * nlinks + i)] = (int32_t)i;
      for (int32_t k = ahead.rowptr[i]; k < ahead.rowptr[i + 1]; ++k) {
        r[2 * k] = c[2 * k + 1] = (int32_t)i;
        c[2 * k] = r[2 * k + 1] = ahead.colidx[k];
      }
    }
  });
  std::vector<double> zeros(r.size(), 0.0);
  const CsrMatrix     G = csr_from_triplets((int32_t)n, (int32_t)n, std::move(r), std::move(c), std::move(zeros));
  auto value = [&G, seed, bs](int64_t row, int32_t col) {
    const int64_t node = row / bs;
    return row == col ? (double)((G.rowptr[node + 1] - G.rowptr[node]) * bs) : hashed_value(seed, row, col);
  };
  CsrMatrix A = build_rows_valued(what, n * bs, n * bs, seed, [&G, bs](int32_t row, Rng &, std::vector<int32_t> &cols, Scratch &) {
    const int64_t node = row / bs;
    for (int32_t k = G.rowptr[node]; k < G.rowptr[node + 1]; ++k)
      for (int64_t q = 0; q < bs; ++q) cols.push_back((int32_t)(G.colidx[k] * bs + q));
  }, value);
  A.block_size = (int32_t)bs;
  return A;
}

CsrMatrix gen_rmat(const Params &p, uint64_t seed, const std::string &what)
{
  const double a = p.real("a", 0.57, 0, 1), b = p.real("b", 0.19, 0, 1), c = p.real("c", 0.19, 0, 1);
  if (a + b + c > 1.0 + 1e-12) p.fail("a + b + c must be at most 1 (d = 1 - a - b - c)");
  const double ef    = p.real("ef", 16, 1e-3, 1e6);
  const bool   perm  = p.integer("perm", 1, 0, 1) != 0;
  int64_t      scale = 0, edges = 0;
  if (p.has("scale") && p.has("nnz")) p.fail("give either scale= or nnz=, not both");
  if (p.has("scale")) {
    scale = p.integer("scale", 0, 1, 30);
    edges = (int64_t)std::llround(ef * (double)(1LL << scale));
  } else if (p.has("nnz")) {
    edges = (int64_t)std::llround(p.real("nnz", 0, 1, 1e12));
    scale = std::clamp<int64_t>(std::llround(std::log2(std::max(2.0, (double)edges / ef))), 1, 30);
  } else p.fail("give the size: scale=... or nnz=...");
  check_nnz_fits(edges, what);
  const int64_t  n    = 1LL << scale;
  const uint64_t mask = (uint64_t)n - 1;
  // Quadrant thresholds on 32-bit uniforms: two levels per 64-bit draw.
  const uint64_t ta = (uint64_t)(a * 4294967296.0), tab = (uint64_t)((a + b) * 4294967296.0), tabc = (uint64_t)((a + b + c) * 4294967296.0);
  // Vertex relabelling (Graph500 scrambles ids): a bijection of [0, 2^scale) built from
  // multiplications by odd numbers and xor-shifts, both invertible modulo 2^scale.
  const uint64_t m1 = mix64(seed, 0x5c7a1ULL) | 1, m2 = mix64(seed, 0x5c7a2ULL) | 1, add = mix64(seed, 0x5c7a3ULL);
  const int      sh = std::max<int>(1, (int)scale / 2);
  auto           relabel = [=](uint64_t v) {
    if (!perm) return v;
    v = (v * m1 + add) & mask;
    v ^= v >> sh;
    v = (v * m2) & mask;
    v ^= v >> sh;
    return v;
  };
  constexpr int64_t    kEdgeChunk = 1 << 16;
  std::vector<int32_t> rows((size_t)edges), cols((size_t)edges);
  parallel_for((edges + kEdgeChunk - 1) / kEdgeChunk, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t ch = cb; ch < ce; ++ch) {
      Rng rng(mix64(seed, 0x7a7ULL, (uint64_t)ch));
      for (int64_t k = ch * kEdgeChunk; k < std::min(edges, (ch + 1) * kEdgeChunk); ++k) {
        uint64_t r = 0, col = 0, bits = 0;
        for (int64_t level = 0; level < scale; ++level) {
          if ((level & 1) == 0) bits = rng.next();
          const uint64_t u = (level & 1) ? (bits >> 32) : (bits & 0xffffffffULL);
          const uint64_t qr = u >= tab, qc = (u >= ta && u < tab) || u >= tabc;
          r   = (r << 1) | qr;
          col = (col << 1) | qc;
        }
        rows[k] = (int32_t)relabel(r);
        cols[k] = (int32_t)relabel(col);
      }
    }
  });
  std::vector<double> vals((size_t)edges, 0.0);
  CsrMatrix           A = csr_from_triplets((int32_t)n, (int32_t)n, std::move(rows), std::move(cols), std::move(vals));
  parallel_for(A.nrows, 4096, [&](int64_t rb, int64_t re) {
    for (int64_t i = rb; i < re; ++i)
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) A.values[k] = hashed_value(seed, i, A.colidx[k]);
  });
  return A;
}

CsrMatrix gen_randrows(const Params &p, uint64_t seed, const std::string &what)
{
  const bool by_len = p.has("minlen") || p.has("maxlen");
  if (by_len && (p.has("minpct") || p.has("maxpct"))) p.fail("give minlen=/maxlen= or minpct=/maxpct=, not both");
  const double  pl = p.real("minpct", 1, 0, 100), ph = p.real("maxpct", 5, pl, 100);
  const int64_t ll = p.integer("minlen", 1, 0, kMaxDim), lh = p.integer("maxlen", by_len ? 300 : 0, ll, kMaxDim);
  const int64_t n  = p.size("n", 1, kMaxDim, [=](double nnz) { return by_len ? nnz / (0.5 * (double)(ll + lh)) : std::sqrt(nnz / (0.5 * (pl + ph) / 100.0)); });
  const int64_t lo = by_len ? ll : std::max<int64_t>(1, std::llround(pl / 100.0 * (double)n));
  const int64_t hi = by_len ? lh : std::max<int64_t>(lo, std::llround(ph / 100.0 * (double)n));
  return build_rows(what, n, n, seed, [=](int32_t, Rng &rng, std::vector<int32_t> &cols, Scratch &s) { sample_uniform(rng, 0, n - 1, rng.between(lo, hi), cols, s); });
}

CsrMatrix gen_longrows(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t k     = p.integer("k", 2, 0, 1 << 20);
  const double  share = p.real("share", 0.2, 0, 0.99);
  const int64_t lo = p.integer("minlen", 1, 1, 1 << 20), hi = p.integer("maxlen", 10, lo, 1 << 20);
  const int64_t bw    = p.integer("bw", 32, 0, kMaxDim);
  const double  avg   = 0.5 * (double)(lo + hi);
  const int64_t n     = p.size("n", std::max<int64_t>(1, k), kMaxDim, [=](double nnz) { return nnz * (1.0 - share) / avg; });
  // the long rows together hold `share` of all nonzeros: share / (1 - share) of the short ones
  const int64_t long_len = k ? std::min<int64_t>(n, std::llround(share / (1.0 - share) * (double)(n - k) * avg / (double)k)) : 0;
  const std::vector<int32_t> longs = special_rows(seed, 0x10f6ULL, k, n);
  return build_rows(what, n, n, seed, [=, &longs](int32_t row, Rng &rng, std::vector<int32_t> &cols, Scratch &s) {
    if (contains(longs, row)) {
      cols.push_back(row);
      sample_uniform(rng, 0, n - 1, long_len, cols, s);
      return;
    }
    const int64_t L = std::min<int64_t>(rng.between(lo, hi), 2 * bw + 1);
    cols.push_back(row);
    fill_distinct(cols, (size_t)L, [&] {
      const int64_t c = row + rng.between(-bw, bw);
      return (c >= 0 && c < n) ? c : -1;
    });
  });
}

CsrMatrix gen_circuit(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t nd_asked  = p.integer("ndense", 4, 0, 1 << 20);
  const double  densefrac = p.real("densefrac", 0.05, 0, 1);
  const int64_t lo = p.integer("minlen", 2, 1, 1 << 20), hi = p.integer("maxlen", 6, lo, 1 << 20);
  const double  pdense = p.real("pdense", 0.2, 0, 1), plocal = p.real("plocal", 0.8, 0, 1);
  const int64_t bw     = p.integer("bw", 64, 1, kMaxDim);
  const int64_t n      = p.size("n", 1, kMaxDim, [=](double nnz) { return nnz / (0.5 * (double)(lo + hi) + pdense + (double)nd_asked * densefrac); });
  const int64_t nd     = std::min(nd_asked, n);
  const int64_t dense_len          = std::llround(densefrac * (double)n);
  const std::vector<int32_t> dense = special_rows(seed, 0xc1c0ULL, nd, n);
  return build_rows(what, n, n, seed, [=, &dense](int32_t row, Rng &rng, std::vector<int32_t> &cols, Scratch &s) {
    cols.push_back(row);
    if (contains(dense, row)) { // a supply net: touches a fraction of all nodes
      sample_uniform(rng, 0, n - 1, dense_len, cols, s);
      return;
    }
    fill_distinct(cols, (size_t)std::min<int64_t>(rng.between(lo, hi), n), [&] {
      const int64_t c = rng.unit() < plocal ? row + rng.between(-bw, bw) : (int64_t)rng.below((uint64_t)n);
      return (c >= 0 && c < n) ? c : -1;
    });
    if (!dense.empty() && rng.unit() < pdense) cols.push_back(dense[rng.below(dense.size())]);
  });
}

CsrMatrix gen_banded(const Params &p, uint64_t seed, const std::string &what)
{
  const int64_t bw   = p.integer("bw", 20, 0, kMaxDim);
  const double  fill = p.real("fill", 1.0, 1e-6, 1.0);
  const int64_t n    = p.size("n", 1, kMaxDim, [=](double nnz) { return nnz / ((double)(2 * bw + 1) * fill); });
  return build_rows(what, n, n, seed, [=](int32_t row, Rng &rng, std::vector<int32_t> &cols, Scratch &) {
    for (int64_t c = std::max<int64_t>(0, row - bw); c <= std::min<int64_t>(n - 1, row + bw); ++c)
      if (c == row || fill >= 1.0 || rng.unit() < fill) cols.push_back((int32_t)c);
  });
}

CsrMatrix gen_scaled(const Params &p, uint64_t seed)
{
  const std::string file = p.str("file");
  if (file.empty()) p.fail("give the matrix to scale: file=path.mtx");
  if (p.has("nnz") && p.has("target_nnz")) p.fail("give either nnz= or target_nnz=");
  const char *key = p.has("target_nnz") ? "target_nnz" : "nnz";
  if (!p.has(key)) p.fail("give the size: target_nnz=...");
  const double target = p.real(key, 0, 1, 1e12);
  return scale_matrix(read_matrix_market(file), (int64_t)std::llround(target), seed, p.integer("shuffle", 1, 0, 1) != 0);
}

// Block-diagonal: `first`'s matrix, then `second`'s, each generated with its share of nnz (their
// other parameters at their defaults) from seeds of its own; square (both parts must be).
CsrMatrix gen_joined(const Params &p, uint64_t seed, const std::string &what)
{
  const std::string first = p.str("first").empty() ? "stencil3d7" : p.str("first"), second = p.str("second").empty() ? "rmat" : p.str("second");
  const double      share = p.real("share", 0.5, 0.01, 0.99);
  const double      nnz   = p.real("nnz", 1e6, 2, 4e9);
  for (const std::string &g : {first, second})
    if (g == "joined" || g == "scaled" || !is_generator_spec(g)) p.fail("first= and second= name generators (not joined or scaled), not '" + g + "'");
  const CsrMatrix A = generate_matrix(first + ":nnz=" + std::to_string(std::llround(share * nnz)), mix64(seed, 1)), B = generate_matrix(second + ":nnz=" + std::to_string(std::llround((1 - share) * nnz)), mix64(seed, 2));
  if (A.nrows != A.ncols || B.nrows != B.ncols) p.fail("both parts must be square");
  if ((int64_t)A.nrows + B.nrows > kMaxDim || (int64_t)A.colidx.size() + (int64_t)B.colidx.size() > INT32_MAX) throw Error(ErrorKind::unsupported, "matrix spec '" + what + "': the joined matrix does not fit 32-bit indices");
  CsrMatrix J;
  J.nrows = J.ncols = A.nrows + B.nrows;
  J.rowptr = A.rowptr, J.colidx = A.colidx, J.values = A.values;
  for (int32_t i = 0; i < B.nrows; ++i) J.rowptr.push_back((int32_t)A.colidx.size() + B.rowptr[(size_t)i + 1]);
  for (int32_t c : B.colidx) J.colidx.push_back(c + A.nrows);
  J.values.insert(J.values.end(), B.values.begin(), B.values.end());
  return J;
}

struct GeneratorInfo {
  const char *name, *help;
};
const GeneratorInfo kGenerators[] = {
  {"stencil2d5", "stencil2d5:n=2000           2D 5-point stencil, n x n grid (or nx=,ny=)"},
  {"stencil3d7", "stencil3d7:n=200            3D 7-point stencil, n^3 grid (or nx=,ny=,nz=); alias stencil7"},
  {"stencil7", nullptr},
  {"stencil27", "stencil27:n=128             3D 27-point stencil, n^3 grid; alias stencil3d27"},
  {"stencil3d27", nullptr},
  {"convdiff3d", "convdiff3d:n=100,pe=10      3D convection-diffusion, 7-point upwind, n^3 grid (or nx=,ny=,nz=); wind wx=1,wy=0.5,wz=0.25"},
  {"fem", "fem:rows=1e6,min=10,max=80  FEM-like rows of min..max local columns (plane=)"},
  {"rmat", "rmat:scale=21,ef=16         R-MAT power law, Graph500 a=.57,b=.19,c=.19 (perm=0: unscrambled)"},
  {"randrows", "randrows:n=4e4,minpct=1,maxpct=5  random columns, lengths in % of n (or minlen=,maxlen=)"},
  {"longrows", "longrows:n=8e6,k=2,share=0.2  short banded rows + k rows with share of the nonzeros (minlen,maxlen,bw)"},
  {"blocks5", "blocks5:n=1e6               dense 5x5 blocks (bs=), minb=4..maxb=12 per block row"},
  {"circuit", "circuit:n=1e7               short rows + ndense=4 dense rows/columns (densefrac,pdense,minlen,maxlen,bw,plocal)"},
  {"banded", "banded:n=1e6,bw=20          band of half-width bw (fill=1)"},
  {"kkt", "kkt:n=1e6,m=2.5e5,clen=4     KKT saddle point [H B^T; B -delta I]: H 7-point on round(cbrt(n))^3, B clen random columns a row (ratio=0.25 or m=, delta=1e-3)"},
  {"scaled", "scaled:file=X.mtx,target_nnz=5e7  a real matrix replicated with shuffled column blocks (shuffle=1)"},
  {"joined", "joined:first=stencil3d7,second=rmat,share=0.5,nnz=1e6  block-diagonal: two generators' matrices, share of nnz in the first"},
  {"blockstencil3d", "blockstencil3d:n=100,bs=3   3D 7-point stencil of dense bs x bs blocks, n^3 points (or nx=,ny=,nz=); block size bs, diagonally dominant"},
  {"blockfem", "blockfem:n=4e5,bs=3         FEM-like symmetric mesh graph of n nodes, min=10..max=30 neighbours (plane=), dense bs x bs blocks; block size bs, diagonally dominant"},
};

CsrMatrix generate_by_name(const Spec &s, uint64_t seed, const std::string &spec_text)
{
  const std::string &g = s.name;
  if (g == "stencil2d5") return gen_stencil2d5(Params(s, {"n", "nx", "ny"}), seed, spec_text);
  if (g == "stencil3d7" || g == "stencil7") return gen_stencil3d(Params(s, {"n", "nx", "ny", "nz"}), seed, spec_text, false);
  if (g == "stencil27" || g == "stencil3d27") return gen_stencil3d(Params(s, {"n", "nx", "ny", "nz"}), seed, spec_text, true);
  if (g == "convdiff3d") return gen_convdiff3d(Params(s, {"n", "nx", "ny", "nz", "pe", "wx", "wy", "wz"}), seed, spec_text);
  if (g == "fem") return gen_fem(Params(s, {"rows", "min", "max", "plane"}), seed, spec_text);
  if (g == "rmat") return gen_rmat(Params(s, {"scale", "ef", "a", "b", "c", "perm"}), seed, spec_text);
  if (g == "randrows") return gen_randrows(Params(s, {"n", "minpct", "maxpct", "minlen", "maxlen"}), seed, spec_text);
  if (g == "longrows") return gen_longrows(Params(s, {"n", "k", "share", "minlen", "maxlen", "bw"}), seed, spec_text);
  if (g == "blocks5") return gen_blocks(Params(s, {"n", "bs", "minb", "maxb"}), seed, spec_text);
  if (g == "circuit") return gen_circuit(Params(s, {"n", "ndense", "densefrac", "minlen", "maxlen", "pdense", "plocal", "bw"}), seed, spec_text);
  if (g == "banded") return gen_banded(Params(s, {"n", "bw", "fill"}), seed, spec_text);
  if (g == "kkt") return gen_kkt(Params(s, {"n", "m", "ratio", "clen", "delta"}), seed, spec_text);
  if (g == "scaled") return gen_scaled(Params(s, {"file", "target_nnz", "shuffle"}), seed);
  if (g == "joined") return gen_joined(Params(s, {"first", "second", "share", "nnz"}), seed, spec_text);
  if (g == "blockstencil3d") return gen_blockstencil3d(Params(s, {"n", "nx", "ny", "nz", "bs"}), seed, spec_text);
  if (g == "blockfem") return gen_blockfem(Params(s, {"n", "bs", "min", "max", "plane"}), seed, spec_text);
  std::string names;
  for (const GeneratorInfo &gi : kGenerators) names += (names.empty() ? "" : ", ") + std::string(gi.name);
  throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': unknown generator '" + g + "' (known: " + names + "; a file must end in .mtx, .petsc, .bin or .dat)");
}

} // namespace

bool is_generator_spec(const std::string &spec)
{
  const std::string name = trim(spec.substr(0, spec.find(':')));
  for (const GeneratorInfo &g : kGenerators)
    if (name == g.name) return true;
  return false;
}

std::string generator_help()
{
  std::string s;
  for (const GeneratorInfo &g : kGenerators)
    if (g.help) s += std::string("  ") + g.help + "\n";
  s += "  (every generator also takes nnz=<target> instead of its size, seed=<s>, blocksize=<b>: the block size\n"
       "   the matrix carries to MatSetBlockSize (rows and columns multiples of b), and symmetric=1: entry (i, j)\n"
       "   off the diagonal takes the value of (min, max), for a square generator whose pattern is symmetric,\n"
       "   checked; numbers: 2e7, 20M, 64k)\n";
  return s;
}

CsrMatrix generate_matrix(const std::string &spec_text, uint64_t seed)
{
  const Spec        s = parse_spec(spec_text);
  const std::string &g = s.name;
  if (s.kv.count("seed")) {
    double x;
    if (!parse_number(s.kv.at("seed"), &x) || x < 0 || x != std::floor(x)) throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': seed must be a non-negative integer");
    seed = (uint64_t)x;
  }
  // Different generators draw unrelated streams (FNV-1a of the canonical name: portable, unlike std::hash).
  const std::string canon = g == "stencil7" ? "stencil3d7" : g == "stencil3d27" ? "stencil27" : g;
  uint64_t          h     = 0xcbf29ce484222325ULL;
  for (char ch : canon) h = (h ^ (unsigned char)ch) * 0x100000001b3ULL;
  seed = mix64(seed, h);
  CsrMatrix A = generate_by_name(s, seed, spec_text);
  if (s.kv.count("blocksize")) { // any matrix may carry a block size; it need not be block-dense
    double b;
    if (!parse_number(s.kv.at("blocksize"), &b) || b < 1 || b > 1024 || b != std::floor(b)) throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': blocksize must be an integer in [1, 1024]");
    if (A.block_size > 1 && A.block_size != (int32_t)b) throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': blocksize=" + s.kv.at("blocksize") + " contradicts bs=" + std::to_string(A.block_size));
    if (A.nrows % (int32_t)b || A.ncols % (int32_t)b)
      throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': blocksize=" + s.kv.at("blocksize") + " does not divide the " + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + " matrix");
    A.block_size = (int32_t)b;
  }
  if (s.kv.count("symmetric") && s.kv.at("symmetric") != "0") {
    if (s.kv.at("symmetric") != "1") throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': symmetric must be 0 or 1");
    if (A.nrows != A.ncols) throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': symmetric=1 needs a square matrix");
    std::atomic<int64_t> unpaired{-1};
    parallel_for(A.nrows, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
          const int32_t j = A.colidx[k];
          if (j == i) continue;
          const auto first = A.colidx.begin() + A.rowptr[j], last = A.colidx.begin() + A.rowptr[j + 1];
          if (!std::binary_search(first, last, (int32_t)i)) unpaired = k;
          A.values[k] = hashed_value(seed, std::min<int64_t>(i, j), std::max<int64_t>(i, j));
        }
    });
    if (unpaired >= 0) throw Error(ErrorKind::bad_input, "matrix spec '" + spec_text + "': symmetric=1 needs a symmetric pattern; entry " + std::to_string(unpaired.load()) + " has no mirror");
  }
  return A;
}

CsrMatrix scale_matrix(const CsrMatrix &base, int64_t target_nnz, uint64_t seed, bool shuffle)
{
  const int64_t nnz0 = (int64_t)base.colidx.size(), n0 = base.nrows, m0 = base.ncols;
  if (nnz0 == 0) throw Error(ErrorKind::bad_input, "scale_matrix: the base matrix has no nonzeros");
  const int64_t R = std::max<int64_t>(1, (target_nnz + nnz0 - 1) / nnz0);
  if (R * n0 > INT32_MAX || R * m0 > INT32_MAX)
    throw Error(ErrorKind::unsupported, "scale_matrix: " + std::to_string(R) + " copies of a " + std::to_string(n0) + " x " + std::to_string(m0) + " matrix exceed 32-bit indices; ask for fewer nonzeros");
  check_nnz_fits(R * nnz0, "scale_matrix");
  std::vector<int64_t> pi((size_t)R);
  std::iota(pi.begin(), pi.end(), 0);
  if (shuffle) { // Fisher-Yates with the seed
    Rng rng(mix64(seed, 0x5ca1eULL));
    for (int64_t i = R - 1; i > 0; --i) std::swap(pi[i], pi[rng.below((uint64_t)i + 1)]);
  }
  CsrMatrix A;
  A.nrows = (int32_t)(R * n0);
  A.ncols = (int32_t)(R * m0);
  A.rowptr.resize((size_t)(R * n0) + 1);
  A.colidx.resize((size_t)(R * nnz0));
  A.values.resize((size_t)(R * nnz0));
  A.rowptr[0] = 0;
  parallel_for(R, 1, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      for (int64_t i = 0; i < n0; ++i) A.rowptr[r * n0 + i + 1] = (int32_t)(r * nnz0 + base.rowptr[i + 1]);
      const int32_t off = (int32_t)(pi[r] * m0);
      for (int64_t k = 0; k < nnz0; ++k) A.colidx[r * nnz0 + k] = base.colidx[k] + off;
      std::copy(base.values.begin(), base.values.end(), A.values.begin() + r * nnz0);
    }
  });
  return A;
}

} // namespace gpuformats
