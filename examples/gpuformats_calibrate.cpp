// gpuformats_calibrate: the instrumenting phase of Guo, Wang, Chen (section 3) on this GPU, writing
// the model file the gpuauto selection reads (src/model/model.hpp gives the model and the file).
//
//   bin/gpuformats_calibrate [-o file.json] [-quick] [-reps 30] [-seed 1] [-max_nnz 7e7]
//
//   1. strip size S = SMs x max threads per SM (section 3.1, from cudaGetDeviceProperties);
//   2. benchmark matrices (3.2) of R = S x I rows (square), I in {1, 2, 4, 8} (-quick: {1, 3}), with
//      P in {4, 16, 64} nonzeros per row (-quick: {4, 32}) and, beyond the paper, a row-length shape
//        const    every row P (the paper's)
//        varied   uniform in [1, 2P - 1]
//        longrows P/2, and every 4096th row 64 P (the max_row term)
//        hubs     P, and every 65536th row 131072 (graphs' and circuits' dense rows: the first H200
//                 calibration, without them, extrapolated max_row from 4096 to 200000 and
//                 predicted 2.3 ms for a 0.15 ms product)
//      and a column shape (the x terms)
//        band     columns in a window of 2P around the diagonal (x read in order)
//        stencil  three runs of P/3 around i - R^(2/3), i, i + R^(2/3) (a 3D mesh numbering; the
//                 columns outside the matrix dropped, so every row lies on the offsets of the
//                 longest rows, as a grid's boundary rows do: DIA holds them)
//        window   random in a window of 65536 columns around the diagonal (x in the L2, sectors not)
//        random   random over all columns (x beyond the L2 for large R)
//      (all four column shapes with const rows; varied, longrows and hubs on band and random;
//      -quick: const and varied on band and random, hubs on random); a matrix over
//      -max_nnz nonzeros is left out;
//      and, beyond those, stencils of the 7- and 27-point lengths (every I; and P = 4 at x twice
//      the L2), the shape the stencil layout holds;
//   3. each candidate (every registered format with its default parameters, cuSPARSE CSR, and the
//      layouts that are no type of their own: DIA, which refuses all but the stencils) built
//      on the device and its product y = A x timed with CUDA events, median of -reps after warm-up
//      (3.3: the paper's difference of two means removes the start-up too), and checked against
//      the host product;
//      plus, at P = 4, matrices whose x is twice the L2 (the L2-miss term);
//   4. the model fitted per candidate (non-negative least squares, relative residuals) and written
//      to -o (default: share/gpuformats/models/<gpu>.json beside bin/), with the fit error printed;
//   5. a held-back check: each candidate fitted again without every fifth of its matrices, and its
//      error on those printed (the model written is the fit on all of them). An error there far
//      above the fit's says the terms do not carry to matrices the fit has not seen.
//
// Calibrating a new GPU: run it there (a few minutes), then point gpuauto at the file it writes
// (-mat_gpuauto_model <file>, GPUFORMATS_MODEL_DIR=<dir>, or commit it to share/gpuformats/models/
// with its log in logs/, as share/gpuformats/models/README.md lists the others).
//
// Without a CUDA device it says so and exits 2 (it measures nothing on the host). -list <strip rows>
// only generates the benchmark set for that strip size and prints each matrix's features (no GPU).
// -refit <calibration log> fits again, on the host, from the timings a run printed (its stdout, as
// share/gpuformats/models/logs/<gpu>.calibrate.txt keeps it): the same matrices are generated (same
// seed, same GPU properties, read from the log's first line), their features computed by this
// build, the logged times fitted. It serves a change of the model's features (versions 2 and 3 of
// the model file were made so from the calibration logs) without the GPU.
#include "core/csr.hpp"
#include "formats/format.hpp"
#include "model/model.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <sstream>
#include <map>
#include <fstream>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace gpuformats;

namespace {

enum class Lengths { constant, varied, longrows, hubs };
enum class Columns { band, stencil, window, random };
const char *name_of(Lengths l) { return l == Lengths::constant ? "const" : l == Lengths::varied ? "varied" : l == Lengths::longrows ? "longrows" : "hubs"; }
const char *name_of(Columns c) { return c == Columns::band ? "band" : c == Columns::stencil ? "stencil" : c == Columns::window ? "window" : "random"; }

// `len` distinct sorted columns in [lo, lo + w) (w >= len), appended to cols.
void pick_columns(int64_t lo, int64_t w, int32_t len, std::mt19937_64 &rng, std::vector<int32_t> &cols)
{
  const size_t start = cols.size();
  if ((int64_t)len * 4 >= w) { // dense in the window: selection sampling, already sorted
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
  return row % 65536 == 11 ? 131072 : P; // hubs: the dense rows of graphs and circuits
}

// The benchmark matrix: R x R, rows generated in parallel chunks (each its own seeded stream, so
// the matrix does not depend on the thread count).
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
      else { // stencil: three runs at fixed offsets, those outside the columns dropped (a grid's
             // boundary rows), so every row's columns are offsets of the longest rows' (DIA holds it)
        const int32_t        a = len0 / 3, b = len0 - 2 * a;
        std::vector<int32_t> row;
        for (auto [center, len] : {std::pair<int64_t, int32_t>{i - plane, a}, {i, b}, {i + plane, a}})
          for (int64_t c = center - len / 2; c < center - len / 2 + len; ++c)
            if (c >= 0 && c < R) row.push_back((int32_t)c);
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
  A.values.resize(A.colidx.size());
  std::mt19937_64 rng(seed);
  for (double &v : A.values) v = 0.1 + 0.9 * (double)(rng() >> 11) * 0x1p-53;
  return A;
}

double parse_number(const char *s)
{
  char  *end = nullptr;
  double v   = std::strtod(s, &end);
  if (end && (*end == 'k' || *end == 'K')) v *= 1e3;
  if (end && (*end == 'M')) v *= 1e6;
  if (end && (*end == 'G')) v *= 1e9;
  return v;
}

} // namespace

// -refit: a calibration run's printed table. First line
//   # <gpu name>: <SMs> SMs x <threads> threads: strips of S = <S> rows; L2 <MB> MB; cc <x.y>
// then "matrix nnz strips <candidate>_us ..." and a row per matrix (microseconds, "refused", "error").
struct Logged {
  std::vector<std::string>                            cands;
  std::map<std::string, std::vector<double>>          times; // seconds; <= 0: none
};

bool read_log(const std::string &path, model::DeviceInfo *dev, Logged *lg)
{
  std::ifstream in(path);
  std::string   line;
  if (!in || !std::getline(in, line) || line.rfind("# ", 0) != 0 || line.find(": ") == std::string::npos) {
    std::fprintf(stderr, "gpuformats_calibrate: %s is not a calibration log (its first line names the GPU)\n", path.c_str());
    return false;
  }
  const size_t colon = line.find(": ");
  dev->name          = line.substr(2, colon - 2);
  double l2_mb       = 0;
  if (std::sscanf(line.c_str() + colon + 2, "%d SMs x %d threads: strips of S = %*d rows; L2 %lf MB; cc %d.%d", &dev->sm_count, &dev->max_threads_per_sm, &l2_mb, &dev->cc_major, &dev->cc_minor) != 5) {
    std::fprintf(stderr, "gpuformats_calibrate: %s: cannot read the GPU's properties from \"%s\"\n", path.c_str(), line.c_str());
    return false;
  }
  dev->l2_bytes = (int64_t)std::llround(l2_mb * 1048576.0); // printed in whole MB: the H100's 50, the H200's 60
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string        first;
    ls >> first;
    if (first == "matrix") {
      std::string nnz, strips, c;
      ls >> nnz >> strips;
      while (ls >> c) lg->cands.push_back(c.size() > 3 && c.compare(c.size() - 3, 3, "_us") == 0 ? c.substr(0, c.size() - 3) : c);
      continue;
    }
    if (first.empty() || first[0] == '#' || lg->cands.empty() || lg->times.count(first)) continue; // a table printed twice keeps its first rows
    std::string nnz, strips, v;
    ls >> nnz >> strips;
    std::vector<double> t;
    while (ls >> v && t.size() < lg->cands.size()) t.push_back(std::isdigit((unsigned char)v[0]) && v.find('(') == std::string::npos ? 1e-6 * std::atof(v.c_str()) : -1);
    if (t.size() == lg->cands.size()) lg->times[first] = t;
  }
  if (lg->times.empty()) {
    std::fprintf(stderr, "gpuformats_calibrate: %s holds no timings\n", path.c_str());
    return false;
  }
  return true;
}

int main(int argc, char **argv)
{
  std::string out;
  bool        quick = false;
  int         reps = 30;
  uint64_t    seed = 1;
  double      max_nnz = 7e7;
  int32_t     list_strip_rows = 0; // -list: generate and describe only (no GPU needed)
  std::string refit;               // -refit <log>: the logged timings instead of measuring
  for (int a = 1; a < argc; ++a) {
    const std::string o = argv[a];
    if (o == "-o" && a + 1 < argc) out = argv[++a];
    else if (o == "-quick") quick = true;
    else if (o == "-reps" && a + 1 < argc) reps = std::max(3, atoi(argv[++a]));
    else if (o == "-seed" && a + 1 < argc) seed = strtoull(argv[++a], nullptr, 10);
    else if (o == "-max_nnz" && a + 1 < argc) max_nnz = parse_number(argv[++a]);
    else if (o == "-list" && a + 1 < argc) list_strip_rows = std::max(1, atoi(argv[++a]));
    else if (o == "-refit" && a + 1 < argc) refit = argv[++a];
    else {
      std::fprintf(stderr, "usage: %s [-o file.json] [-quick] [-reps 30] [-seed 1] [-max_nnz 7e7] [-list strip_rows] [-refit calibration.log]\n", argv[0]);
      return o == "-h" || o == "-help" ? 0 : 1;
    }
  }
  model::DeviceInfo dev;
  std::string       why;
  Logged            logged;
  if (!refit.empty()) {
    if (!read_log(refit, &dev, &logged)) return 1;
  } else if (list_strip_rows) { // the benchmark set for a strip size, without timing: a check of the generator
    dev.name = "(listing only)", dev.sm_count = 1, dev.max_threads_per_sm = list_strip_rows, dev.l2_bytes = 50 << 20;
  } else if (!model::device_info(&dev, &why)) {
    std::fprintf(stderr, "gpuformats_calibrate: needs a CUDA GPU to time the products on, and found none (%s).\n"
                         "Run it on the GPU machine; it writes the model file for that GPU.\n", why.c_str());
    return 2;
  }
  model::Model m;
  m.gpu                = dev.name;
  m.sm_count           = dev.sm_count;
  m.max_threads_per_sm = dev.max_threads_per_sm;
  m.l2_bytes           = dev.l2_bytes;
  m.strip_rows         = model::strip_rows_for(dev.sm_count, dev.max_threads_per_sm);
  if (out.empty()) { // $GPUFORMATS_MODEL_DIR, else share/gpuformats/models beside bin/
    const std::vector<std::string> dirs = model::model_dirs();
    out = (dirs.empty() ? std::string(".") : dirs[0]) + "/" + model::model_file_name(dev.name);
  }
  {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(out).parent_path(), ec); // an error shows at the write
  }
  const int32_t S = m.strip_rows;
  std::printf("# %s: %d SMs x %d threads: strips of S = %d rows; L2 %.0f MB; cc %d.%d\n", dev.name.c_str(), dev.sm_count, dev.max_threads_per_sm, S, dev.l2_bytes / 1048576.0, dev.cc_major, dev.cc_minor);

  std::vector<std::string> cands;
  {
    int                     n;
    const FormatOps *const *all = all_formats(&n);
    for (int i = 0; i < n; ++i) cands.push_back(all[i]->root);
    cands.push_back(model::kCusparseCsr);
    const FormatOps *const *only = layout_only_formats(&n); // DIA: fitted on the band and stencil matrices it holds
    for (int i = 0; i < n; ++i) cands.push_back(only[i]->root);
  }
  const std::vector<int>     strips  = quick ? std::vector<int>{1, 3} : std::vector<int>{1, 2, 4, 8};
  const std::vector<int32_t> lengths = quick ? std::vector<int32_t>{4, 32} : std::vector<int32_t>{4, 16, 64};
  // The shapes: every column shape with constant rows; the other row shapes on band and random.
  std::vector<std::pair<Lengths, Columns>> shapes = {{Lengths::constant, Columns::band}, {Lengths::constant, Columns::random}, {Lengths::varied, Columns::band}, {Lengths::varied, Columns::random}};
  if (!quick)
    for (auto sh : {std::pair{Lengths::constant, Columns::stencil}, {Lengths::constant, Columns::window}, {Lengths::longrows, Columns::band}, {Lengths::longrows, Columns::random}, {Lengths::hubs, Columns::band}})
      shapes.push_back(sh);
  shapes.push_back({Lengths::hubs, Columns::random});

  std::vector<std::vector<model::Sample>> samples(cands.size());
  const auto t0 = std::chrono::steady_clock::now();
  std::printf("%-34s %10s %6s", "matrix", "nnz", "strips");
  for (const auto &c : cands) std::printf(" %12s", (c + "_us").c_str());
  std::printf("\n");
  int bad = 0;
  struct Config {
    int     I;
    int32_t P;
    Lengths ls;
    Columns cs;
  };
  std::vector<Config> configs;
  for (int I : strips)
    for (int32_t P : lengths)
      for (auto [ls, cs] : shapes) configs.push_back({I, P, ls, cs});
  // x beyond the L2: the sets above stop at 8 strips (x of 17 MB on an H100, inside its 50 MB L2),
  // where the x_sectors_l2_miss term is 0 and cannot be fitted. A few matrices of x = 2 x the L2.
  const int big = (int)std::min<int64_t>(4096, (2 * m.l2_bytes / 8 + S - 1) / S);
  for (auto [ls, cs] : {std::pair{Lengths::constant, Columns::random}, {Lengths::constant, Columns::band}, {Lengths::varied, Columns::random}, {Lengths::constant, Columns::window}}) configs.push_back({big, 4, ls, cs});
  // The stencils' own lengths (7 and 27 points), for every candidate and for DIA, which holds only
  // the stencil shape: its fit needs more than the lengths above give it.
  if (!quick) {
    for (int I : strips)
      for (int32_t P : {7, 27}) configs.push_back({I, P, Lengths::constant, Columns::stencil});
    configs.push_back({big, 4, Lengths::constant, Columns::stencil});
  }
  for (auto [I, P, ls, cs] : configs) {
          const int32_t R = (int32_t)std::min<int64_t>((int64_t)S * I, 0x7fffffff);
          if ((double)R * P > max_nnz) continue;
          const CsrMatrix A = generate(R, P, ls, cs, seed + (uint64_t)(I * 131 + P * 7 + (int)ls * 3 + (int)cs));
          if ((double)A.colidx.size() > 2e9) continue;
          const std::string tag = "I" + std::to_string(I) + ".P" + std::to_string(P) + "." + name_of(ls) + "." + name_of(cs);
          std::printf("%-34s %10zu %6d", tag.c_str(), A.colidx.size(), I);
          std::fflush(stdout);
          const std::vector<model::Strip> st = model::strips_of(A.view(), S);
          if (list_strip_rows) {
            int64_t sec = 0, mr = 0, span = 0;
            for (const auto &x : st) sec += x.x_sectors, mr = std::max<int64_t>(mr, x.f.max_row), span = std::max(span, x.f.col_span);
            std::printf("  max_row %lld, max col_span %lld, x sectors per nonzero %.3f\n", (long long)mr, (long long)span, (double)sec / std::max<size_t>(A.colidx.size(), 1));
            validate_csr(A.view());
            continue;
          }
          if (!refit.empty()) { // the logged times
            const auto row = logged.times.find(tag);
            if (row == logged.times.end()) {
              std::printf("  not in the log: left out\n");
              continue;
            }
            for (size_t c = 0; c < cands.size(); ++c) {
              const auto col = std::find(logged.cands.begin(), logged.cands.end(), cands[c]);
              const double t = col == logged.cands.end() ? -1 : row->second[col - logged.cands.begin()];
              if (t > 0) samples[c].push_back({st, t}), std::printf(" %12.1f", 1e6 * t);
              else std::printf(" %12s", "-");
            }
            std::printf("\n");
            continue;
          }
          for (size_t c = 0; c < cands.size(); ++c) {
            try {
              double      err = 0;
              const double t  = model::measure_spmv(A.view(), cands[c], reps, 3, &err);
              if (!(err < 1e-10)) {
                std::printf(" %9.1f(!)", 1e6 * t);
                std::fprintf(stderr, "\n%s on %s: product differs from the host's (relative error %.3g): not fitted\n", cands[c].c_str(), tag.c_str(), err);
                ++bad;
              } else {
                std::printf(" %12.1f", 1e6 * t);
                samples[c].push_back({st, t});
              }
            } catch (const Error &e) {
              std::printf(" %12s", e.kind == ErrorKind::unsupported ? "refused" : "error");
              if (e.kind != ErrorKind::unsupported) std::fprintf(stderr, "\n%s on %s: %s\n", cands[c].c_str(), tag.c_str(), e.what()), ++bad;
            }
            std::fflush(stdout);
          }
          std::printf("\n");
        }
  if (list_strip_rows) return 0;
  std::printf("# measured in %.0f s\n\n%-14s %8s %10s %10s  coefficients (%s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), "candidate", "samples", "rms_err", "max_err",
              model::term_name(0));
  for (int k = 1; k < model::kTerms; ++k) std::printf(", %s", model::term_name(k));
  std::printf(")\n");
  for (size_t c = 0; c < cands.size(); ++c) {
    if (samples[c].size() < (size_t)model::kTerms) {
      std::printf("%-14s %8zu  too few timings to fit: left out of the model\n", cands[c].c_str(), samples[c].size());
      continue;
    }
    const model::Candidate k = model::fit_candidate(cands[c], samples[c], m.l2_bytes);
    std::printf("%-14s %8d %9.1f%% %9.1f%% ", k.name.c_str(), k.samples, 100 * k.rms_rel_error, 100 * k.max_rel_error);
    for (double v : k.coef) std::printf(" %.3e", v);
    std::printf("\n");
    m.candidates.push_back(k);
  }
  // The held-back check: every fifth matrix of a candidate left out of a second fit, then predicted.
  std::printf("\nheld-back check: fitted without every fifth matrix, those predicted\n%-14s %8s %12s %12s\n", "candidate", "held", "mean |err|", "max |err|");
  for (size_t c = 0; c < cands.size(); ++c) {
    std::vector<model::Sample> fit, held;
    for (size_t k = 0; k < samples[c].size(); ++k) (k % 5 == 4 ? held : fit).push_back(samples[c][k]);
    if (fit.size() < (size_t)model::kTerms || held.empty()) {
      std::printf("%-14s %8zu  too few timings\n", cands[c].c_str(), held.size());
      continue;
    }
    model::Model one;
    one.l2_bytes   = m.l2_bytes;
    one.candidates = {model::fit_candidate(cands[c], fit, m.l2_bytes)};
    double sum = 0, worst = 0;
    int    n   = 0;
    for (const model::Sample &h : held) {
      const double p = model::predict(one, 0, h.strips);
      if (!std::isfinite(p)) continue; // the candidate's rule refuses it
      const double e = std::fabs(p - h.seconds) / h.seconds;
      sum += e, worst = std::max(worst, e), ++n;
    }
    std::printf("%-14s %8d %11.1f%% %11.1f%%\n", cands[c].c_str(), n, n ? 100 * sum / n : 0.0, 100 * worst);
  }
  if (m.candidates.empty()) {
    std::fprintf(stderr, "gpuformats_calibrate: no candidate could be fitted; no model written\n");
    return 1;
  }
  m.note = std::string("bin/gpuformats_calibrate") + (quick ? " -quick" : "") + ", reps " + std::to_string(reps) + ", seed " + std::to_string(seed);
  if (!refit.empty()) m.note = "bin/gpuformats_calibrate -refit " + std::filesystem::path(refit).filename().string() + " (the timings of that run, the features of model version " + std::to_string(model::kModelVersion) + "), seed " + std::to_string(seed);
  try {
    model::write_model(m, out);
  } catch (const Error &e) {
    std::fprintf(stderr, "gpuformats_calibrate: %s\n", e.what());
    return 1;
  }
  std::printf("\nwrote %s%s\n", out.c_str(), bad ? " (some products failed: see above)" : "");
  return bad ? 1 : 0;
}
