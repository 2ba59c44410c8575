// bench_partition: where a partitioned layout pays. For each matrix of a suite (default
// bench/suites/partition.txt), split at the block-diagonal boundary nearest its middle row (the
// middle row where there is none; a matrix with long rows: before its first long row), it times on
// the GPU, each with CUDA events (median of -reps products, model/measure_cuda.cu):
//   - every candidate (registered formats with defaults, cuSPARSE CSR) on the whole matrix;
//   - every candidate on each part alone (the part's rows, all columns);
//   - the partition built with each part's fastest candidate (formats/partitioned), its parts one
//     after another and at once (a stream each), checked against the host product;
//   - where the model's DP splits the matrix, its partition as gpuauto builds it (parts at once);
// and prints beside them the model's predictions for the same blocks and the DP's split
// (select/partition.hpp over this GPU's model), so measured and predicted gains sit side by side.
//
//   bin/bench_partition [-suite file] [-only a,b] [-reps 20] [-seed 1] [-json out.json] [-model file]
//
// Without a CUDA device it says so and exits 2.
#include "core/csr.hpp"
#include "core/text.hpp"
#include "formats/format.hpp"
#include "formats/partitioned/partitioned.hpp"
#include "matgen/generators.hpp"
#include "model/auto.hpp"
#include "model/model.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace gpuformats;
using Json = nlohmann::ordered_json;

namespace {

struct Entry {
  std::string label, spec;
};

std::vector<Entry> read_suite(const std::string &path, const std::string &only)
{
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::bad_input, "bench_partition: cannot read the suite " + path);
  std::vector<Entry> out;
  std::string        line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    Entry              e;
    if (!(ls >> e.label) || e.label[0] == '#' || !(ls >> e.spec)) continue;
    if (only.empty() || ("," + only + ",").find("," + e.label + ",") != std::string::npos) out.push_back(e);
  }
  return out;
}

// The row where rows above read only columns above and rows below only columns below, nearest the
// middle; else the first row of at least 16x the mean length (a dense row's own part); else the middle.
int32_t split_row(const CsrView &A, std::string *why)
{
  std::vector<int32_t> below_max(A.nrows + 1, -1), above_min(A.nrows + 1, std::numeric_limits<int32_t>::max());
  for (int32_t i = 0; i < A.nrows; ++i) below_max[i + 1] = std::max(below_max[i], A.rowptr[i + 1] > A.rowptr[i] ? A.colidx[A.rowptr[i + 1] - 1] : -1);
  for (int32_t i = A.nrows - 1; i >= 0; --i) above_min[i] = std::min(above_min[i + 1], A.rowptr[i + 1] > A.rowptr[i] ? A.colidx[A.rowptr[i]] : std::numeric_limits<int32_t>::max());
  int32_t best = -1;
  for (int32_t r = 1; r < A.nrows; ++r)
    if (below_max[r] < r && above_min[r] >= r && (best < 0 || std::abs(r - A.nrows / 2) < std::abs(best - A.nrows / 2))) best = r;
  if (best > 0) {
    *why = "block-diagonal boundary";
    return best;
  }
  const double mean = (double)A.nnz / std::max(A.nrows, 1);
  for (int32_t i = 0; i < A.nrows; ++i)
    if (A.row_length(i) >= 16 * mean && i > 0) {
      *why = "first long row";
      return i;
    }
  *why = "middle row";
  return A.nrows / 2;
}

// Median seconds, or NaN where the candidate refuses (why in *refused).
double timed(const CsrView &A, const std::string &name, int reps, std::string *refused)
{
  try {
    return model::measure_spmv(A, name, reps, 3, nullptr);
  } catch (const Error &e) {
    if (e.kind != ErrorKind::unsupported) throw;
    *refused = e.what();
    return std::numeric_limits<double>::quiet_NaN();
  }
}

const char *arg(int argc, char **argv, const char *name, const char *def)
{
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], name)) return argv[i + 1];
  return def;
}

} // namespace

int main(int argc, char **argv)
{
  try {
    model::DeviceInfo dev;
    std::string       why;
    if (!model::device_info(&dev, &why)) {
      std::fprintf(stderr, "bench_partition: no CUDA device (%s); it measures on the GPU only\n", why.c_str());
      return 2;
    }
    const int          reps   = std::atoi(arg(argc, argv, "-reps", "20"));
    const uint64_t     seed   = (uint64_t)std::atoll(arg(argc, argv, "-seed", "1"));
    const std::string  suite  = arg(argc, argv, "-suite", "bench/suites/partition.txt");
    const std::string  mfile  = arg(argc, argv, "-model", "");
    std::string        msource, mmsg;
    const model::Model M      = mfile.empty() ? *model::model_for_this_gpu(&msource, &mmsg) : *model::model_from_file(mfile);
    if (!mfile.empty()) msource = mfile;
    std::vector<std::string> names;
    for (const model::Candidate &c : M.candidates)
      if (model::candidate_ops(c.name)) names.push_back(c.name);
    Json out = {{"gpu", dev.name}, {"device", dev.device}, {"model", msource}, {"reps", reps}, {"seed", seed}, {"matrices", Json::array()}};
    std::printf("bench_partition on %s (device %d); model %s; median of %d products\n", dev.name.c_str(), dev.device, msource.c_str(), reps);
    for (const Entry &e : read_suite(suite, arg(argc, argv, "-only", ""))) {
      const CsrMatrix A = generate_matrix(e.spec, seed);
      const CsrView   V = A.view();
      std::string     how;
      const int32_t   r = split_row(V, &how);
      std::vector<int32_t> rp0, rp1;
      const CsrView   P[2] = {partitioned::rows_view(V, 0, r, rp0), partitioned::rows_view(V, r, A.nrows - r, rp1)};
      std::printf("\n[%s] %s: %d rows, %lld nonzeros; parts: rows 0-%d (%lld nonzeros) and %d-%d (%lld), split at the %s\n", e.label.c_str(), e.spec.c_str(), A.nrows, (long long)V.nnz, r - 1, (long long)P[0].nnz, r, A.nrows - 1, (long long)P[1].nnz, how.c_str());
      const int32_t k = model::sector_stride(V.nnz);
      std::vector<model::Strip> sw = model::strips_of(V, M.strip_rows, k), s0 = model::strips_of(P[0], M.strip_rows, k), s1 = model::strips_of(P[1], M.strip_rows, k);
      Json m = {{"label", e.label}, {"spec", e.spec}, {"rows", A.nrows}, {"nnz", V.nnz}, {"split_row", r}, {"split", how}, {"candidates", Json::array()}};
      std::printf("  %-14s %12s %12s %12s   %12s %12s %12s (us; predicted)\n", "candidate", "whole", "part 0", "part 1", "whole", "part 0", "part 1");
      double best_whole = std::numeric_limits<double>::infinity(), best_part[2] = {best_whole, best_whole};
      int    arg_whole = -1, arg_part[2] = {-1, -1};
      for (size_t c = 0; c < names.size(); ++c) {
        const int   mc = model::find_candidate(M, names[c]);
        std::string refused;
        const double t[3] = {timed(V, names[c], reps, &refused), timed(P[0], names[c], reps, &refused), timed(P[1], names[c], reps, &refused)};
        const double p[3] = {model::predict(M, mc, sw), model::predict(M, mc, s0), model::predict(M, mc, s1)};
        std::printf("  %-14s %12.1f %12.1f %12.1f   %12.1f %12.1f %12.1f\n", names[c].c_str(), 1e6 * t[0], 1e6 * t[1], 1e6 * t[2], 1e6 * p[0], 1e6 * p[1], 1e6 * p[2]);
        Json jc = {{"name", names[c]}, {"measured_us", Json::array()}, {"predicted_us", Json::array()}};
        for (int i = 0; i < 3; ++i) {
          jc["measured_us"].push_back(t[i] == t[i] ? Json(1e6 * t[i]) : Json(nullptr));
          jc["predicted_us"].push_back(1e6 * p[i]);
        }
        if (!refused.empty()) jc["refused"] = refused;
        m["candidates"].push_back(jc);
        if (t[0] < best_whole) best_whole = t[0], arg_whole = (int)c;
        for (int h = 0; h < 2; ++h)
          if (t[h + 1] < best_part[h]) best_part[h] = t[h + 1], arg_part[h] = (int)c;
      }
      if (arg_whole < 0 || arg_part[0] < 0 || arg_part[1] < 0) {
        std::printf("  every candidate refused a block: no comparison\n");
        out["matrices"].push_back(m);
        continue;
      }
      const std::vector<partitioned::Part> parts{{0, r, model::candidate_ops(names[arg_part[0]])}, {r, A.nrows - r, model::candidate_ops(names[arg_part[1]])}};
      double       err = 0, errc = 0;
      const double tp  = model::measure_partitioned(V, parts, false, reps, 3, &err);
      const double tc  = model::measure_partitioned(V, parts, true, reps, 3, &errc);
      const auto   dp  = select::partition_strips((int)sw.size(), model::dp_cost(M, sw));
      std::printf("  best one format: %s %.1f us; parts' best: %s + %s = %.1f us apart; their partition: %.1f us one after another, %.1f us at once (rel. errors %.1e, %.1e): %.3fx, %.3fx the best one format\n", names[arg_whole].c_str(), 1e6 * best_whole, names[arg_part[0]].c_str(), names[arg_part[1]].c_str(), 1e6 * (best_part[0] + best_part[1]), 1e6 * tp, 1e6 * tc, err, errc, best_whole / tp, best_whole / tc);
      std::printf("  the model's DP over %zu strips: %s (predicted %.1f us against %.1f us for one format)\n", sw.size(), dp.partitioned() ? format("%zu blocks", dp.blocks.size()).c_str() : "one block", 1e6 * dp.time, 1e6 * dp.single.time);
      m["best_whole"]          = {{"name", names[arg_whole]}, {"us", 1e6 * best_whole}};
      m["best_parts"]          = {{"names", {names[arg_part[0]], names[arg_part[1]]}}, {"us_apart", 1e6 * (best_part[0] + best_part[1])}};
      m["partition_us"]        = 1e6 * tp;
      m["partition_rel_error"] = err;
      m["partition_gain"]      = best_whole / tp;
      m["concurrent_us"]       = 1e6 * tc;
      m["concurrent_rel_error"] = errc;
      m["concurrent_gain"]     = best_whole / tc;
      m["dp"]                  = {{"blocks", dp.blocks.size()}, {"predicted_us", 1e6 * dp.time}, {"single_predicted_us", 1e6 * dp.single.time}};
      if (dp.partitioned()) { // gpuauto's partition as it builds it (parts at once), against its prediction
        std::vector<std::string> all; // the DP indexes the model's candidates
        for (const model::Candidate &c : M.candidates) all.push_back(c.name);
        const std::vector<partitioned::Part> dparts = model::partition_parts(dp, sw, all);
        std::string                          words;
        for (const partitioned::Part &q : dparts) words += format("%s%s rows %d-%d", words.empty() ? "" : ", ", q.ops->root, q.first_row, q.first_row + q.rows - 1);
        double       derr = 0;
        const double td   = model::measure_partitioned(V, dparts, true, reps, 3, &derr);
        std::printf("  the DP's partition (%s): %.1f us measured (rel. error %.1e), %.1f predicted (%+.1f%%): %.3fx the best one format\n", words.c_str(), 1e6 * td, derr, 1e6 * dp.time, 100 * (dp.time / td - 1), best_whole / td);
        m["dp"]["parts"]       = words;
        m["dp"]["measured_us"] = 1e6 * td;
        m["dp"]["rel_error"]   = derr;
        m["dp"]["gain"]        = best_whole / td;
      }
      out["matrices"].push_back(m);
      std::fflush(stdout);
    }
    const std::string json = arg(argc, argv, "-json", "");
    if (!json.empty()) std::ofstream(json) << out.dump(1) << "\n";
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_partition: %s\n", e.what());
    return 1;
  }
}
