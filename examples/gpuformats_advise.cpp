// gpuformats_advise: what the model says about one matrix (the paper's "optimization analysis",
// section 4): its strip features, every candidate's predicted product time, the single best, and
// the DP's partition of the strips with a format per block.
//
//   bin/gpuformats_advise <file.mtx | generator spec> [-model file.json | -gpu name] [-measure] [-reps 30] [-strips 20]
//
// The model: -model <file>; else the one for -gpu <name> (a cudaDeviceProp::name: advice for that
// GPU on a machine without it) or this GPU's name among model::model_dirs()
// ($GPUFORMATS_MODEL_DIR, share/gpuformats/models beside bin/); else (no GPU, or a GPU without a
// model) the default model, cuSPARSE CSR everywhere, with a message saying how to calibrate.
// -measure (GPU only): times every candidate on the whole matrix (src/model measure_spmv: median of
// -reps, checked against the host product) and prints measured beside predicted and the error.
// -strips N: how many strips to list one per line (the rest are summarised).
//
// The strip features here are computed on the host from the CSR read (model::strips_of). The PETSc
// glue (gpuauto) computes them on the device from the build's upload (src/model/features_device.cuh).
#include "core/csr.hpp"
#include "matgen/generators.hpp"
#include "matgen/matrix_market.hpp"
#include "model/model.hpp"
#include "select/partition.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gpuformats;

namespace {

bool ends_with(const std::string &s, const std::string &t) { return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0; }

int usage(const char *argv0, int rc)
{
  std::fprintf(rc ? stderr : stdout,
               "usage: %s <file.mtx | generator spec> [-model file.json | -gpu \"NVIDIA H100 80GB HBM3\"] [-measure] [-reps 30] [-strips 20] [-seed 1]\n"
               "generator specs:\n%s",
               argv0, generator_help().c_str());
  return rc;
}

} // namespace

int main(int argc, char **argv)
{
  std::string spec, model_path, gpu_name;
  bool        measure = false;
  int         reps = 30, list = 20;
  uint64_t    seed = 1;
  for (int a = 1; a < argc; ++a) {
    const std::string o = argv[a];
    if (o == "-model" && a + 1 < argc) model_path = argv[++a];
    else if (o == "-gpu" && a + 1 < argc) gpu_name = argv[++a];
    else if (o == "-measure") measure = true;
    else if (o == "-reps" && a + 1 < argc) reps = std::max(3, atoi(argv[++a]));
    else if (o == "-strips" && a + 1 < argc) list = std::max(0, atoi(argv[++a]));
    else if (o == "-seed" && a + 1 < argc) seed = strtoull(argv[++a], nullptr, 10);
    else if (o == "-h" || o == "-help") return usage(argv[0], 0);
    else if (o[0] != '-' && spec.empty()) spec = o;
    else return usage(argv[0], 1);
  }
  if (spec.empty()) return usage(argv[0], 1);

  try {
    // --- the model ---
    model::DeviceInfo dev;
    std::string       why;
    const bool        gpu = model::device_info(&dev, &why);
    model::Model      m;
    if (!model_path.empty()) m = model::read_model(model_path);
    else if (gpu || !gpu_name.empty()) {
      std::string msg;
      m = model::model_or_default(gpu_name.empty() ? dev.name : gpu_name, model::model_dirs(), &msg);
      if (!msg.empty()) std::printf("# %s\n", msg.c_str());
    } else {
      m = model::default_model();
      std::printf("# no CUDA device (%s) and no -model: the default model (cuSPARSE CSR everywhere). %s\n", why.c_str(), model::kCalibrateHint);
    }
    if (measure && !gpu) {
      std::fprintf(stderr, "gpuformats_advise: -measure needs a CUDA GPU (%s)\n", why.c_str());
      return 2;
    }
    if (gpu && !m.is_default && model::model_file_name(m.gpu) != model::model_file_name(dev.name))
      std::printf("# note: the model was calibrated on \"%s\", this GPU is \"%s\"\n", m.gpu.c_str(), dev.name.c_str());
    std::printf("model: %s (%s; strips of %d rows, L2 %.0f MB)%s\n", m.gpu.c_str(), model_path.empty() ? (gpu_name.empty() ? "by device name" : "by -gpu") : model_path.c_str(), m.strip_rows, m.l2_bytes / 1048576.0,
                m.is_default ? " [default, uncalibrated]" : "");

    // --- the matrix and its strips ---
    const CsrMatrix G = ends_with(spec, ".mtx") ? read_matrix_market(spec) : generate_matrix(spec, seed);
    const CsrView   A = G.view();
    const std::vector<model::Strip> strips = model::strips_of(A, m.strip_rows);
    int64_t         sectors = 0, maxrow = 0;
    for (const auto &s : strips) sectors += s.x_sectors, maxrow = std::max<int64_t>(maxrow, s.f.max_row);
    std::printf("matrix: %s: %d x %d, %lld nonzeros, mean row %.2f, max row %lld, %zu strips, x sectors %lld (%.3f per nonzero)\n", spec.c_str(), A.nrows, A.ncols, (long long)A.nnz,
                A.nrows ? (double)A.nnz / A.nrows : 0.0, (long long)maxrow, strips.size(), (long long)sectors, A.nnz ? (double)sectors / (double)A.nnz : 0.0);
    if (strips.empty()) {
      std::printf("no rows: nothing to advise\n");
      return 0;
    }
    std::printf("%6s %10s %8s %12s %8s %8s %12s %10s %10s %12s %10s\n", "strip", "first_row", "rows", "nnz", "mean", "max_row", "col_span", "sectors", "footprint", model::term_name(6), model::term_name(7));
    for (size_t k = 0; k < strips.size(); ++k) {
      if ((int)k == list && strips.size() > (size_t)list + 1) {
        std::printf("%6s (%zu more strips; -strips N lists more)\n", "...", strips.size() - k - 1);
        k = strips.size() - 1;
      }
      const auto &s = strips[k];
      std::printf("%6zu %10d %8d %12lld %8.2f %8d %12lld %10lld %10lld %12lld %10lld\n", k, s.f.first_row, s.f.rows, (long long)s.f.nnz, s.f.rows ? (double)s.f.nnz / s.f.rows : 0.0, s.f.max_row,
                  (long long)s.f.col_span, (long long)s.x_sectors, (long long)s.x_footprint, (long long)s.row_lanes, (long long)s.row_warps);
    }

    // --- predictions, the single best, the partition ---
    std::printf("\n%-14s %14s", "candidate", "predicted_us");
    if (measure) std::printf(" %12s %9s %10s", "measured_us", "error", "check");
    std::printf("\n");
    int    best = 0;
    double best_t = INFINITY;
    double worst_err = 0;
    int    best_measured = -1;
    double best_measured_t = INFINITY;
    for (int c = 0; c < (int)m.candidates.size(); ++c) {
      const double t = model::predict(m, c, strips);
      if (t < best_t) best_t = t, best = c;
      if (std::isfinite(t)) std::printf("%-14s %14.2f", m.candidates[c].name.c_str(), 1e6 * t);
      else std::printf("%-14s %14s", m.candidates[c].name.c_str(), "refuses"); // its rule (DIA's offsets)
      if (measure) {
        try {
          double       err = 0;
          const double mt  = model::measure_spmv(A, m.candidates[c].name, reps, 3, &err);
          const double rel = (t - mt) / mt;
          worst_err        = std::max(worst_err, std::fabs(rel));
          if (mt < best_measured_t) best_measured_t = mt, best_measured = c;
          std::printf(" %12.2f %+8.1f%% %10.1e", 1e6 * mt, 100 * rel, err);
        } catch (const Error &e) {
          std::printf(" %12s   (%s)", e.kind == ErrorKind::unsupported ? "refused" : "error", e.what());
        }
      }
      std::printf("\n");
    }
    std::printf("\nsingle best (predicted): %s, %.2f us\n", m.candidates[best].name.c_str(), 1e6 * best_t);
    if (measure && best_measured >= 0)
      std::printf("single best (measured):  %s, %.2f us; the predicted choice measured %s; worst prediction error %.1f%%\n", m.candidates[best_measured].name.c_str(), 1e6 * best_measured_t,
                  best == best_measured ? "the same" : "slower", 100 * worst_err);

    const select::Partition p = select::partition_strips((int)strips.size(), model::dp_cost(m, strips));
    std::printf("partition (DP over %zu strips): %s, predicted %.2f us", strips.size(), p.partitioned() ? "split" : "one block", 1e6 * p.time);
    if (p.partitioned()) std::printf(" against %.2f us as one block in %s", 1e6 * p.single.time, m.candidates[p.single.format].name.c_str());
    std::printf("\n");
    for (const select::Block &b : p.blocks) {
      const int32_t r0 = strips[b.first_strip].f.first_row, r1 = strips[b.last_strip].f.first_row + strips[b.last_strip].f.rows;
      std::printf("  strips [%d, %d] rows [%d, %d): %s, %.2f us\n", b.first_strip, b.last_strip, r0, r1, m.candidates[b.format].name.c_str(), 1e6 * b.time);
    }
  } catch (const Error &e) {
    std::fprintf(stderr, "gpuformats_advise: %s\n", e.what());
    return 1;
  }
  return 0;
}
