// model-refit: does a distinct-sector feature fix the model's over-prediction of clustered
// matrices (x_ca_grqc, x_powergrid, rmat_s24, ...)? Host only (no GPU): refits the SpMV time model
// of src/model/model.hpp on the committed calibration timings with extra x terms and scores every
// variant on the default suite, which is held out (never fitted).
//
//   bin/experiments/refit <model.txt> <calibrate.txt> <suite.tsv> [three more per GPU ...]
//   (suite.tsv: extract.py spmv-default-<gpu>.json > suite.tsv; run.sh does both GPUs)
//       [-sample K]   use every K-th calibration matrix only (default 1: all)
//       [-only a,b]   suite labels to score (default all)
//
// Per strip s: the model's features (as model::strips_of, exact x_sectors; recomputed here) and
//   D_s = distinct 32-byte sectors of x (column >> 2) touched by the whole strip.
// Variants (terms 0..4 are always launch, rows, nnz, max_row, x_sectors; m = miss(col_span) =
// max(0, 1 - L2 / (8 span)), mD = max(0, 1 - L2 / (32 D_s))):
//   V0 current   + x_sectors * m
//   V1 split     + D_s * m + (x_sectors - D_s) * mD            (one coefficient)
//   V2 D         + D_s
//   V3 two       + D_s * m, + x_sectors * mD                   (two coefficients)
//   V4 Dm        + D_s * m
// The calibration set is regenerated exactly as examples/gpuformats_calibrate.cpp does (its
// generate() copied below; the seed of a matrix is seed + I*131 + P*7 + shape*3 + columns), matched
// to the log's timings by name. The suite with matgen's generate_matrix(spec, seed 1) as bench_spmv.
#include "core/csr.hpp"
#include "matgen/generators.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace gpuformats;

namespace {

// ---- copied from examples/gpuformats_calibrate.cpp (keep in step) --------------------------------
enum class Lengths { constant, varied, longrows, hubs };
enum class Columns { band, stencil, window, random };

void pick_columns(int64_t lo, int64_t w, int32_t len, std::mt19937_64 &rng, std::vector<int32_t> &cols)
{
  const size_t start = cols.size();
  if ((int64_t)len * 4 >= w) {
    int32_t need = len;
    for (int64_t c = 0; c < w && need; ++c)
      if ((int64_t)(rng() % (uint64_t)(w - c)) < need) cols.push_back((int32_t)(lo + c)), --need;
    return;
  }
  while ((int32_t)(cols.size() - start) < len) {
    while ((int32_t)(cols.size() - start) < len) cols.push_back((int32_t)(lo + (int64_t)(rng() % (uint64_t)w)));
    std::sort(cols.begin() + start, cols.end());
    cols.erase(std::unique(cols.begin() + start, cols.end()), cols.end());
  }
}

int32_t row_length(Lengths shape, int32_t P, int32_t row, std::mt19937_64 &rng)
{
  if (shape == Lengths::constant) return P;
  if (shape == Lengths::varied) return 1 + (int32_t)(rng() % (uint64_t)(2 * P - 1));
  if (shape == Lengths::longrows) return row % 4096 == 7 ? 64 * P : std::max(1, P / 2);
  return row % 65536 == 11 ? 131072 : P;
}

CsrMatrix generate(int32_t R, int32_t P, Lengths shape, Columns cols, uint64_t seed)
{
  const int32_t chunk = 1 << 16, nchunks = (R + chunk - 1) / chunk;
  std::vector<std::vector<int32_t>> ccols(nchunks), clen(nchunks);
  const int64_t plane = std::max<int64_t>(2, (int64_t)std::llround(std::pow((double)R, 2.0 / 3.0)));
  auto          work  = [&](int c) {
    std::mt19937_64 rng(seed * 1000003u + (uint64_t)c);
    std::vector<int32_t> &out = ccols[c];
    for (int32_t i = c * chunk; i < std::min(R, (c + 1) * chunk); ++i) {
      const int32_t len0 = std::min<int64_t>(row_length(shape, P, i, rng), R);
      const size_t  before = out.size();
      auto          window = [&](int64_t center, int64_t w, int32_t len) {
        w                 = std::min<int64_t>(std::max<int64_t>(w, len), R);
        const int64_t lo  = std::clamp<int64_t>(center - w / 2, 0, R - w);
        pick_columns(lo, w, len, rng, out);
      };
      if (cols == Columns::band) window(i, 2LL * len0, len0);
      else if (cols == Columns::window) window(i, 65536, len0);
      else if (cols == Columns::random) window(0, R, len0);
      else {
        const int32_t        a = len0 / 3, b = len0 - 2 * a;
        std::vector<int32_t> row;
        for (auto [center, len] : {std::pair<int64_t, int32_t>{i - plane, a}, {i, b}, {i + plane, a}}) {
          const int64_t lo = std::clamp<int64_t>(center - len / 2, 0, R - len);
          for (int32_t k = 0; k < len; ++k) row.push_back((int32_t)(lo + k));
        }
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        out.insert(out.end(), row.begin(), row.end());
      }
      clen[c].push_back((int32_t)(out.size() - before));
    }
  };
  std::vector<std::thread> threads;
  const int                nt = (int)std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  for (int t = 0; t < nt; ++t)
    threads.emplace_back([&, t] {
      for (int c = t; c < nchunks; c += nt) work(c);
    });
  for (auto &t : threads) t.join();
  CsrMatrix A;
  A.nrows = A.ncols = R;
  A.rowptr.reserve((size_t)R + 1);
  for (int c = 0; c < nchunks; ++c) {
    for (int32_t l : clen[c]) A.rowptr.push_back(A.rowptr.back() + l);
    A.colidx.insert(A.colidx.end(), ccols[c].begin(), ccols[c].end());
    std::vector<int32_t>().swap(ccols[c]);
  }
  A.values.assign(A.colidx.size(), 1.0); // values do not enter the features
  return A;
}
// ---- end of the copy ---------------------------------------------------------------------------

// A strip's features: the model's plus D (distinct sectors of the whole strip).
struct SF {
  double rows, nnz, max_row, span, xs, D;
};

// The model's strip features as src/model/model.cpp (committed version) defines them: rows, nnz,
// max_row, col_span (largest - smallest column + 1), x_sectors (distinct col>>2 per group of 32
// consecutive rows, summed, exact), computed here so the experiment does not depend on src/model.
std::vector<SF> features(const CsrMatrix &A, int32_t S)
{
  std::vector<uint8_t> seen(((size_t)A.ncols >> 2) + 1, 0);
  std::vector<int32_t> touched, sec;
  std::vector<SF>      out;
  for (int64_t r0 = 0; r0 < A.nrows; r0 += S) {
    const int64_t r1 = std::min<int64_t>(r0 + S, A.nrows);
    SF            f{(double)(r1 - r0), (double)(A.rowptr[r1] - A.rowptr[r0]), 0, 0, 0, 0};
    int64_t       lo = INT64_MAX, hi = -1, xs = 0;
    for (int64_t i = r0; i < r1; ++i) {
      f.max_row = std::max<double>(f.max_row, A.rowptr[i + 1] - A.rowptr[i]);
      if (A.rowptr[i + 1] > A.rowptr[i]) lo = std::min<int64_t>(lo, A.colidx[A.rowptr[i]]), hi = std::max<int64_t>(hi, A.colidx[A.rowptr[i + 1] - 1]);
    }
    f.span = hi >= 0 ? (double)(hi - lo + 1) : 0;
    for (int64_t g = r0; g < r1; g += 32) {
      const int64_t ge = std::min<int64_t>(g + 32, r1);
      sec.clear();
      for (int64_t e = A.rowptr[g]; e < A.rowptr[ge]; ++e) sec.push_back(A.colidx[e] >> 2);
      std::sort(sec.begin(), sec.end());
      xs += std::unique(sec.begin(), sec.end()) - sec.begin();
    }
    f.xs = (double)xs;
    touched.clear();
    for (int64_t e = A.rowptr[r0]; e < A.rowptr[r1]; ++e) {
      const int32_t q = A.colidx[e] >> 2;
      if (!seen[q]) seen[q] = 1, touched.push_back(q);
    }
    f.D = (double)touched.size();
    for (int32_t q : touched) seen[q] = 0;
    out.push_back(f);
  }
  return out;
}

struct ModelFile { // extract.py -model
  int32_t                             strip_rows = 0;
  double                              l2_bytes   = 0;
  std::string                         gpu;
  std::map<std::string, std::vector<double>> coef;          // 6 coefficients
  std::map<std::string, std::string>  fit;                   // samples rms max, as text
};
ModelFile read_model_file(const std::string &path)
{
  std::ifstream in(path);
  ModelFile     m;
  if (!in || !(in >> m.strip_rows >> m.l2_bytes >> m.gpu)) throw std::runtime_error("cannot read " + path);
  std::string name;
  while (in >> name) {
    std::vector<double> c(6);
    for (double &v : c) in >> v;
    double n, r, x;
    in >> n >> r >> x;
    m.coef[name] = c;
    char buf[96];
    std::snprintf(buf, sizeof buf, "n=%.0f rms %.1f%% max %.1f%%", n, 100 * r, 100 * x);
    m.fit[name] = buf;
  }
  return m;
}

constexpr int kMaxTerms = 8;
using Row = std::array<double, kMaxTerms>;
struct Variant {
  const char *name;
  int         terms;
};
const Variant kVariants[] = {{"V0 current", 6}, {"V1 split", 6}, {"V2 D", 6}, {"V3 two", 7}, {"V4 Dm", 6}};
constexpr int kNV = sizeof(kVariants) / sizeof(kVariants[0]);

Row terms(int v, const std::vector<SF> &strips, double L2)
{
  Row t{};
  t[0] = 1;
  for (const SF &s : strips) {
    const double m  = s.span > 0 ? std::max(0.0, 1.0 - L2 / (8.0 * s.span)) : 0.0;
    const double mD = s.D > 0 ? std::max(0.0, 1.0 - L2 / (32.0 * s.D)) : 0.0;
    t[1] += s.rows, t[2] += s.nnz, t[3] += s.max_row, t[4] += s.xs;
    if (v == 0) t[5] += s.xs * m;
    else if (v == 1) t[5] += s.D * m + (s.xs - s.D) * mD;
    else if (v == 2) t[5] += s.D;
    else if (v == 3) t[5] += s.D * m, t[6] += s.xs * mD;
    else t[5] += s.D * m;
  }
  return t;
}

// Non-negative least squares, Lawson-Hanson active set, on columns scaled to unit norm, rows
// weighted by w (relative residuals). Normal equations in long double, as model.cpp.
std::vector<double> nnls(const std::vector<Row> &X, const std::vector<double> &y, const std::vector<double> &w, int n)
{
  std::vector<std::vector<long double>> G(n, std::vector<long double>(n, 0));
  std::vector<long double>              b(n, 0);
  for (size_t s = 0; s < X.size(); ++s) {
    const long double ww = (long double)w[s] * w[s];
    for (int a = 0; a < n; ++a) {
      b[a] += ww * X[s][a] * y[s];
      for (int c = 0; c < n; ++c) G[a][c] += ww * X[s][a] * X[s][c];
    }
  }
  std::vector<long double> sc(n, 1);
  for (int a = 0; a < n; ++a) sc[a] = G[a][a] > 0 ? 1 / std::sqrt(G[a][a]) : 0;
  for (int a = 0; a < n; ++a) {
    b[a] *= sc[a];
    for (int c = 0; c < n; ++c) G[a][c] *= sc[a] * sc[c];
  }
  auto solve = [&](const std::vector<bool> &P) { // unconstrained on the passive set P
    std::vector<int> idx;
    for (int a = 0; a < n; ++a)
      if (P[a]) idx.push_back(a);
    const int                             k = (int)idx.size();
    std::vector<std::vector<long double>> M(k, std::vector<long double>(k + 1));
    for (int a = 0; a < k; ++a) {
      for (int c = 0; c < k; ++c) M[a][c] = G[idx[a]][idx[c]];
      M[a][k] = b[idx[a]];
      M[a][a] += 1e-15L;
    }
    for (int col = 0; col < k; ++col) {
      int piv = col;
      for (int r = col + 1; r < k; ++r)
        if (std::fabs(M[r][col]) > std::fabs(M[piv][col])) piv = r;
      std::swap(M[col], M[piv]);
      if (M[col][col] == 0) continue;
      for (int r = 0; r < k; ++r)
        if (r != col) {
          const long double f = M[r][col] / M[col][col];
          for (int c = col; c <= k; ++c) M[r][c] -= f * M[col][c];
        }
    }
    std::vector<long double> z(n, 0);
    for (int a = 0; a < k; ++a) z[idx[a]] = M[a][a] != 0 ? M[a][k] / M[a][a] : 0;
    return z;
  };
  std::vector<bool>        P(n, false);
  std::vector<long double> x(n, 0);
  for (int it = 0; it < 100; ++it) {
    std::vector<long double> g(n); // gradient b - G x
    for (int a = 0; a < n; ++a) {
      g[a] = b[a];
      for (int c = 0; c < n; ++c) g[a] -= G[a][c] * x[c];
    }
    int t = -1;
    for (int a = 0; a < n; ++a)
      if (!P[a] && sc[a] > 0 && g[a] > 1e-13L && (t < 0 || g[a] > g[t])) t = a;
    if (t < 0) break;
    P[t] = true;
    for (int inner = 0; inner < 100; ++inner) {
      std::vector<long double> z = solve(P);
      bool                     ok = true;
      for (int a = 0; a < n; ++a)
        if (P[a] && z[a] <= 0) ok = false;
      if (ok) {
        x = z;
        break;
      }
      long double alpha = 1;
      for (int a = 0; a < n; ++a)
        if (P[a] && z[a] <= 0) alpha = std::min(alpha, x[a] / (x[a] - z[a]));
      for (int a = 0; a < n; ++a) x[a] += alpha * (z[a] - x[a]);
      for (int a = 0; a < n; ++a)
        if (P[a] && x[a] <= 1e-18L) P[a] = false, x[a] = 0;
    }
  }
  std::vector<double> c(n);
  for (int a = 0; a < n; ++a) c[a] = (double)(x[a] * sc[a]);
  return c;
}

double dot(const std::vector<double> &c, const Row &t)
{
  double s = 0;
  for (size_t k = 0; k < c.size(); ++k) s += c[k] * t[k];
  return s;
}

const char *const kCands[5] = {"evchyb", "pjds", "pellr", "suraa", "cusparse_csr"};
const char *const kTypes[5] = {"evchyb", "pjds", "pellr", "suraa", "aijcusparse:alg1"};

struct CalRow {
  std::string name;
  double      t[5]; // seconds, 0 = refused/failed
};

std::vector<CalRow> read_log(const std::string &path)
{
  std::ifstream       in(path);
  std::string         line;
  std::vector<CalRow> out;
  if (!in) throw std::runtime_error("cannot read " + path);
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != 'I') continue;
    std::istringstream ss(line);
    CalRow             r;
    std::string        nnz, strips;
    ss >> r.name >> nnz >> strips;
    for (int c = 0; c < 5; ++c) {
      std::string v;
      ss >> v;
      r.t[c] = (v.empty() || v == "refused" || v == "error" || v.find('!') != std::string::npos) ? 0 : std::atof(v.c_str()) * 1e-6;
    }
    out.push_back(r);
  }
  return out;
}

CsrMatrix calib_matrix(const std::string &tag, int32_t S)
{
  int         I, P;
  char        ls[32], cs[32];
  std::string t = tag;
  for (char &c : t)
    if (c == '.') c = ' ';
  if (std::sscanf(t.c_str(), "I%d P%d %31s %31s", &I, &P, ls, cs) != 4) throw std::runtime_error("bad tag " + tag);
  const std::string l = ls, c = cs;
  const Lengths     L = l == "const" ? Lengths::constant : l == "varied" ? Lengths::varied : l == "longrows" ? Lengths::longrows : Lengths::hubs;
  const Columns     C = c == "band" ? Columns::band : c == "stencil" ? Columns::stencil : c == "window" ? Columns::window : Columns::random;
  const int32_t     R = (int32_t)std::min<int64_t>((int64_t)S * I, 0x7fffffff);
  return generate(R, P, L, C, 1 + (uint64_t)(I * 131 + P * 7 + (int)L * 3 + (int)C));
}

struct SuiteRow {
  std::string label, spec;
  double      t[5]  = {0, 0, 0, 0, 0};  // measured median seconds, 0 = not measured
  double      pj[5] = {0, 0, 0, 0, 0};  // the JSON's predicted_us per candidate (feature check)
};

// The suite's measurements, as extract.py writes them from the bench JSON (one matrix a line).
std::vector<SuiteRow> read_results(const std::string &path)
{
  std::ifstream         in(path);
  std::string           line;
  std::vector<SuiteRow> out;
  if (!in) throw std::runtime_error("cannot read " + path);
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    SuiteRow           m;
    if (!(ss >> m.label >> m.spec)) continue;
    for (double &t : m.t) ss >> t;
    for (double &p : m.pj) ss >> p;
    out.push_back(m);
  }
  return out;
}

double now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int main(int argc, char **argv)
{
  std::vector<std::string> files;
  int                      sample = 1;
  std::string              only;
  for (int a = 1; a < argc; ++a) {
    const std::string o = argv[a];
    if (o == "-sample" && a + 1 < argc) sample = std::max(1, atoi(argv[++a]));
    else if (o == "-only" && a + 1 < argc) only = "," + std::string(argv[++a]) + ",";
    else files.push_back(o);
  }
  if (files.empty() || files.size() % 3) {
    std::fprintf(stderr, "usage: %s <model.txt> <calibrate.txt> <suite.tsv> [...] [-sample K] [-only labels]\n", argv[0]);
    return 1;
  }
  const double t0 = now();
  // Features are cached by (strip rows, name): the H100 and H200 share S = 270336.
  std::map<std::pair<int32_t, std::string>, std::vector<SF>> cache;
  for (size_t g = 0; g < files.size(); g += 3) {
    const ModelFile                   M   = read_model_file(files[g]);
    const std::vector<CalRow>         cal = read_log(files[g + 1]);
    const std::vector<SuiteRow>       res = read_results(files[g + 2]);
    const int32_t                     S   = M.strip_rows;
    const double                      L2  = (double)M.l2_bytes;
    std::printf("\n==== %s: strips of %d rows, L2 %.0f MB; calibration %s (%zu matrices, every %d-th used); suite %s\n", M.gpu.c_str(), S, L2 / 1048576, files[g + 1].c_str(), cal.size(), sample, files[g + 2].c_str());
    // --- calibration features
    std::vector<const CalRow *> used;
    for (size_t k = 0; k < cal.size(); k += sample) {
      const CalRow &r   = cal[k];
      auto          key = std::make_pair(S, r.name);
      if (!cache.count(key)) {
        const double    a = now();
        const CsrMatrix A = calib_matrix(r.name, S);
        cache[key]        = features(A, S);
        std::fprintf(stderr, "  calib %-26s %10zu nnz  %.1f s\n", r.name.c_str(), A.colidx.size(), now() - a);
      }
      used.push_back(&r);
    }
    // --- fits
    std::vector<double> coef[kNV][5];
    std::printf("\nfit on the calibration (rms / max relative error; coefficients in ps per unit, launch in us)\n");
    for (int v = 0; v < kNV; ++v)
      for (int c = 0; c < 5; ++c) {
        std::vector<Row>    X;
        std::vector<double> y, w;
        for (const CalRow *r : used)
          if (r->t[c] > 0) X.push_back(terms(v, cache[{S, r->name}], L2)), y.push_back(r->t[c]), w.push_back(1 / r->t[c]);
        coef[v][c] = nnls(X, y, w, kVariants[v].terms);
        double sq = 0, mx = 0;
        for (size_t k = 0; k < X.size(); ++k) {
          const double e = std::fabs(dot(coef[v][c], X[k]) - y[k]) / y[k];
          sq += e * e, mx = std::max(mx, e);
        }
        std::printf("  %-11s %-13s n=%3zu rms %5.1f%% max %5.1f%%  [%.2f", kVariants[v].name, kCands[c], X.size(), 100 * std::sqrt(sq / X.size()), 100 * mx, coef[v][c][0] * 1e6);
        for (int k = 1; k < kVariants[v].terms; ++k) std::printf(" %.3g", coef[v][c][k] * 1e12);
        std::printf("]\n");
        if (v == 0) { // the sanity check: the committed model's coefficients
          if (M.coef.count(kCands[c])) {
            const std::vector<double> &k0 = M.coef.at(kCands[c]);
            std::printf("  %-11s %-13s committed         [%.2f", "", "", k0[0] * 1e6);
            for (int k = 1; k < 6; ++k) std::printf(" %.3g", k0[k] * 1e12);
            std::printf("]  (committed fit: %s)\n", M.fit.at(kCands[c]).c_str());
          }
        }
      }
    // --- the suite (held out)
    // variants 0..kNV-1 refitted here, kNV = the committed model itself
    const int            NV = kNV + 1;
    std::vector<double>  sumerr(NV * 5, 0);
    std::vector<int>     nerr(NV * 5, 0), over25(NV * 5, 0);
    std::vector<double>  ratio_sum(NV, 0), worst_ratio(NV, 1), min_cusp(NV, 1e9);
    std::vector<int>     within5(NV, 0), nchoice(NV, 0);
    std::vector<std::string> per_matrix;
    std::printf("\nsuite, per matrix: D/x_sectors, then prediction error %% per candidate (evchyb pjds pellr suraa cusparse) for V1..V4 and the committed model (cur)\n");
    for (const SuiteRow &m : res) {
      if (!only.empty() && only.find("," + m.label + ",") == std::string::npos) continue;
      auto key = std::make_pair(S, "suite:" + m.spec);
      if (!cache.count(key)) {
        const double    a = now();
        const CsrMatrix A = generate_matrix(m.spec, 1);
        cache[key]        = features(A, S);
        std::fprintf(stderr, "  suite %-12s %10zu nnz  %.1f s\n", m.label.c_str(), A.colidx.size(), now() - a);
      }
      const std::vector<SF> &f = cache[key];
      double                 xs = 0, D = 0;
      for (const SF &s : f) xs += s.xs, D += s.D;
      std::printf("  %-12s %3zu strips D/xs %.2f |", m.label.c_str(), f.size(), D / xs);
      double best = 1e9;
      for (int c = 0; c < 5; ++c)
        if (m.t[c] > 0) best = std::min(best, m.t[c]);
      for (int v = 0; v < NV; ++v) {
        double pred[5];
        for (int c = 0; c < 5; ++c) {
          if (v == kNV) {
            pred[c] = dot(M.coef.at(kCands[c]), terms(0, f, L2));
            if (m.pj[c] > 0 && std::fabs(pred[c] * 1e6 / m.pj[c] - 1) > 0.01)
              std::fprintf(stderr, "  feature check: %s %s predicted %.1f us here, %.1f us in the JSON\n", m.label.c_str(), kCands[c], pred[c] * 1e6, m.pj[c]);
          } else pred[c] = dot(coef[v][c], terms(v, f, L2));
          if (m.t[c] > 0) {
            const double e = pred[c] / m.t[c] - 1;
            sumerr[v * 5 + c] += std::fabs(e), nerr[v * 5 + c]++;
            if (std::fabs(e) > 0.25) over25[v * 5 + c]++;
          }
        }
        if (v == kNV || v >= 1) {
          std::printf(" %s", v == kNV ? "cur" : kVariants[v].name + 0);
          for (int c = 0; c < 5; ++c) m.t[c] > 0 ? std::printf(" %+4.0f", 100 * (pred[c] / m.t[c] - 1)) : std::printf("    -");
          std::printf(" |");
        }
        int pick = -1;
        for (int c = 0; c < 5; ++c)
          if (m.t[c] > 0 && (pick < 0 || pred[c] < pred[pick])) pick = c;
        if (pick >= 0) {
          const double r = m.t[pick] / best;
          ratio_sum[v] += r, nchoice[v]++;
          worst_ratio[v] = std::max(worst_ratio[v], r);
          if (r <= 1.05) within5[v]++;
          if (m.t[4] > 0) min_cusp[v] = std::min(min_cusp[v], m.t[4] / m.t[pick]);
        }
      }
      std::printf("\n");
    }
    std::printf("\n%s, default suite (held out): mean |prediction error| per candidate (count > 25%%), choice quality\n", M.gpu.c_str());
    std::printf("  %-16s", "variant");
    for (int c = 0; c < 5; ++c) std::printf(" %16s", kCands[c]);
    std::printf("  %8s %8s %9s %9s\n", "all", ">25%", "choice/best", "within5%  min cusparse/choice");
    for (int v = 0; v < NV; ++v) {
      const int vv = v == 0 ? kNV : v - 1; // the committed model first
      std::printf("  %-16s", vv == kNV ? "committed" : (std::string(kVariants[vv].name) + (vv == 0 ? " (refit)" : "")).c_str());
      double all = 0;
      int    n = 0, o = 0;
      for (int c = 0; c < 5; ++c) {
        const int k = vv * 5 + c;
        std::printf("    %6.1f%% (%2d)", nerr[k] ? 100 * sumerr[k] / nerr[k] : 0.0, over25[k]);
        all += sumerr[k], n += nerr[k], o += over25[k];
      }
      std::printf("  %7.1f%% %8d   %6.3f (max %.2f)  %2d/%-2d  %.2f\n", 100 * all / std::max(n, 1), o, ratio_sum[vv] / std::max(nchoice[vv], 1), worst_ratio[vv], within5[vv], nchoice[vv], min_cusp[vv]);
    }
  }
  std::fprintf(stderr, "done in %.0f s\n", now() - t0);
  return 0;
}
