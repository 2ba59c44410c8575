// gpuauto: the choice of a block's layout by the model (auto.hpp).
#include "model/auto.hpp"

#include "core/device_buffer.hpp"
#include "core/text.hpp"
#include "formats/csr/csr.hpp"
#include "formats/partitioned/partitioned.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>

namespace gpuformats::model {

namespace {

// Streams the glue prepares for a gpuauto block: the most any format may use; a partition
// of up to 1 + that many parts runs them at once where no part uses streams of its own (measured on
// an H100, bench_partition, the parts at once against one after another: scalar parts 0.98-1.01x,
// geomean 0.996x, bench/results/h100/partitions; a stencil part in DIA 1.00-1.03x,
// bench/results/h100/partitions-stencil-part).
constexpr int  kAutoExtraStreams = kMaxExtraStreams;
constexpr bool kPartsAtOnce      = true;

// The partition margin (partition_gain_pct), scored on one H100 by bench_partition (the DP's own
// partition against gpuauto's one layout, medians of 20 products, bench/results/h100/
// partitions-stencil-part, three runs with two models):
//   predicted gain   matrices                                  measured
//   15.7-29.1%       7-point 70/85% + R-MAT, 5-point + circuit  1.14-1.27x
//   8.2-11.4%        7-point 50% + R-MAT, 27-point + circuit,   1.08-1.18x
//                    5-point + long rows, 5-point 30% + rows
//   3.1-6.1%         random rows + 27-point, 5-point + rows,    1.09-1.18x
//                    5-point + long rows
//   0.8-1.8%         long_2x20 (evchyb + suraa)                 0.96-0.97x   <- not built at 3%
// The model under-predicts the stencil parts' gains, and every partition predicted 3% or more
// faster measured at least 1.08x; the default suite's splits are predicted at most 1.8% (host,
// both committed models), so 3% builds none there.
const FormatParam kAutoParams[] = {
  {"strip_rows", "Rows per strip of the model's features and of the DP (0: the model's, SMs x threads per SM)", 0, 0, 2147483647},
  {"partition_gain_pct", "Least gain, in percent of the product's predicted time, for which -mat_gpuauto_partition auto builds the DP's partition", 3, 0, 1000},
};

double seconds_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

// Builds the candidates of plan.order in turn until one does not refuse; build(ops, params) makes
// the layout.
template <class Build>
std::unique_ptr<FormatBlock> build_in_order(const AutoPlan &plan, AutoReport &report, Build &&build)
{
  for (size_t k = 0; k < plan.order.size(); ++k) {
    const Candidate &c   = plan.model.candidates[plan.order[k]];
    const FormatOps *ops = candidate_ops(c.name);
    try {
      std::vector<int64_t> params = default_params(*ops);
      auto                 blk    = build(*ops, params.data());
      report.chosen               = c.name;
      for (size_t i = 0; i < report.names.size(); ++i)
        if (report.names[i] == c.name) report.chosen_predicted = report.predicted[i];
      return blk;
    } catch (const Error &e) {
      if (e.kind != ErrorKind::unsupported || k + 1 == plan.order.size()) throw;
      report.refused.push_back(c.name + ": " + e.what());
    }
  }
  throw Error(ErrorKind::internal, "gpuauto: no candidate to build");
}

// The DP's partition as parts (rows of its strips, formats of its blocks), built by `build` where
// the settings take it; null (report.partition_note says why) where one format is built instead.
template <class BuildParts>
std::unique_ptr<FormatBlock> try_partition(const AutoSettings &s, AutoReport &r, BuildParts &&build)
{
  const select::Partition &p = r.partition;
  if (!p.partitioned()) return nullptr;
  const double gain = p.single.time / std::max(p.time, 1e-30) - 1;
  if (s.partition == PartitionMode::off) {
    r.partition_note = "not built (-mat_gpuauto_partition off)";
    return nullptr;
  }
  if (s.partition == PartitionMode::automatic && gain < s.partition_gain) {
    r.partition_note = format("not built: %.1f%% faster is below the %.0f%% margin (-mat_gpuauto_partition_gain_pct; -mat_gpuauto_partition force builds it)", 100 * gain, 100 * s.partition_gain);
    return nullptr;
  }
  try {
    auto blk             = build(partition_parts(p, r.strips, r.names));
    r.partition_built    = true;
    r.chosen             = "partition";
    r.chosen_predicted   = p.time;
    return blk;
  } catch (const Error &e) {
    if (e.kind != ErrorKind::unsupported) throw;
    r.partition_note = std::string("not built: ") + e.what();
    return nullptr;
  }
}

std::unique_ptr<FormatBlock> ops_build_host(const CsrView &A, const int64_t *params) { return build_auto_host(A, with_params({}, params), nullptr); }
std::unique_ptr<FormatBlock> ops_build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up) { return build_auto_cuda(A, with_params({}, params), stream, up, nullptr); }

// The settings with their model (this GPU's where none was given) and strip size resolved, as the
// features need them before plan_auto.
AutoSettings resolved(const AutoSettings &s)
{
  AutoSettings r = s;
  if (!r.model) r.model = model_for_this_gpu(&r.source, &r.message);
  if (r.strip_rows <= 0) r.strip_rows = r.model->strip_rows;
  return r;
}

// m's candidates that the settings allow (restrict_candidates) and this build can lay out: a model
// file may name a candidate this build has no layout for (a newer library's), and the offset layout
// is none under -mat_gpuformats_stencil off.
Model allowed_candidates(const Model &m, const AutoSettings &s)
{
  Model r = restrict_candidates(m, s.candidates);
  r.candidates.erase(std::remove_if(r.candidates.begin(), r.candidates.end(),
                                    [&](const Candidate &c) { return !candidate_ops(c.name) || (!s.offset_layout && candidate_ops(c.name) == offset_shape_format()); }),
                     r.candidates.end());
  return r;
}

// Whether the offset layout is among the choice's candidates: the strips' offset view is computed
// only then.
bool offset_candidate(const AutoSettings &s)
{
  const FormatOps *o       = offset_shape_format();
  const Model      allowed = allowed_candidates(*s.model, s);
  return o && std::any_of(allowed.candidates.begin(), allowed.candidates.end(), [&](const Candidate &c) { return candidate_ops(c.name) == o; });
}

// The choice from the strips `features` computes (host or device), then `build` of the candidates in
// order; *report (may be null) filled.
template <class Features, class Build, class BuildParts>
std::unique_ptr<FormatBlock> choose_and_build(const CsrView &A, const AutoSettings &s, bool on_device, AutoReport *report, Features &&features, Build &&build, BuildParts &&build_parts)
{
  AutoReport  local;
  AutoReport &r      = report ? *report : local;
  r                  = AutoReport{};
  const auto    t0   = std::chrono::steady_clock::now();
  const auto    rs   = resolved(s);
  const int32_t k    = sector_stride(A.nnz);
  const AutoPlan plan = plan_auto(rs, features(rs.strip_rows, k, offset_candidate(rs)), r);
  r.features_on_device = on_device;
  r.sector_stride      = k;
  r.choice_seconds     = seconds_since(t0);
  if (auto blk = try_partition(rs, r, build_parts)) return blk;
  return build_in_order(plan, r, build);
}

} // namespace

// The choice from a CSR on the device: features from it, then the chosen builder takes it.
std::unique_ptr<FormatBlock> build_auto_uploaded(const CsrView &A, DeviceCsr &d, const AutoSettings &s, cudaStream_t stream, AutoReport *report)
{
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the upload done: the choice's time is its own
  return choose_and_build(
    A, s, true, report, [&](int32_t strip, int32_t k, bool offsets) { return strips_of_device(d.rowptr.data(), d.colidx.data(), A.nrows, A.ncols, A.nnz, strip, k, stream, offsets); },
    [&](const FormatOps &ops, const int64_t *params) {
      // build_uploaded is required of a format (CONTRIBUTING.md); a missing one is a clear error, not a crash
      if (!ops.build_uploaded) throw Error(ErrorKind::internal, std::string("gpuauto: the format ") + ops.root + " has no build_uploaded; every format must provide it");
      return ops.build_uploaded(A, d, params, stream);
    },
    [&](const std::vector<partitioned::Part> &parts) { return partitioned::build_uploaded(A, d, parts, stream, kPartsAtOnce); });
}

namespace {

std::unique_ptr<FormatBlock> ops_build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream) { return build_auto_uploaded(A, d, with_params({}, params), stream, nullptr); }

} // namespace

extern const FormatOps gpuauto_ops = {
  "gpuauto",
  "the layout the SpMV performance model predicts fastest for each block (a format of this library or cuSPARSE CSR), from the GPU's calibrated model",
  kAutoParams,
  2,
  kAutoExtraStreams,
  ops_build_host,
  ops_build_cuda,
  false, // a candidate's refusal moves to the next
  ops_build_uploaded,
};

AutoSettings with_params(AutoSettings s, const int64_t *params)
{
  s.strip_rows     = (int32_t)checked_param(gpuauto_ops, params, kAutoParamStripRows);
  s.partition_gain = 0.01 * (double)checked_param(gpuauto_ops, params, kAutoParamPartitionGainPct);
  return s;
}

const FormatOps *built_ops(const AutoReport &r) { return r.partition_built ? &gpuauto_ops : candidate_ops(r.chosen); }

const char *partition_mode_name(PartitionMode m) { return m == PartitionMode::off ? "off" : m == PartitionMode::force ? "force" : "auto"; }

const FormatOps *candidate_ops(const std::string &name)
{
  if (name == kCusparseCsr) return &cusparse_csr_ops;
  return find_layout_format(name);
}

std::vector<partitioned::Part> partition_parts(const select::Partition &p, const std::vector<Strip> &strips, const std::vector<std::string> &names)
{
  std::vector<partitioned::Part> parts;
  for (const select::Block &b : p.blocks) {
    const Strip &first = strips[(size_t)b.first_strip], &last = strips[(size_t)b.last_strip];
    parts.push_back({first.f.first_row, last.f.first_row + last.f.rows - first.f.first_row, candidate_ops(names[(size_t)b.format]), b.time});
  }
  return parts;
}

std::shared_ptr<const Model> model_for_this_gpu(std::string *source, std::string *message)
{
  struct Entry {
    std::shared_ptr<const Model> model;
    std::string                  source, message;
  };
  static std::map<int, Entry> cache; // per device ordinal (-1: none)
  DeviceInfo                  info;
  std::string                 why;
  const bool                  have = device_info(&info, &why);
  const int                   key  = have ? info.device : -1;
  auto                        it   = cache.find(key);
  if (it == cache.end()) {
    Entry e;
    if (have) {
      std::string msg;
      e.model = std::make_shared<const Model>(model_or_default(info.name, model_dirs(), &msg, &e.source));
      if (!msg.empty()) {
        e.source  = "default model (no calibrated model for " + info.name + ")";
        e.message = msg;
      }
    } else {
      e.model   = std::make_shared<const Model>(default_model());
      e.source  = "default model (" + why + ")";
      e.message = "no CUDA device to pick a model for (" + why + "): the default model takes cuSPARSE CSR; give -mat_gpuauto_model <file> to choose as on a calibrated GPU";
    }
    it = cache.emplace(key, std::move(e)).first;
  }
  if (source) *source = it->second.source;
  if (message) *message = it->second.message;
  return it->second.model;
}

std::shared_ptr<const Model> model_from_file(const std::string &path)
{
  static std::map<std::string, std::shared_ptr<const Model>> cache;
  auto                                                        it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, std::make_shared<const Model>(read_model(path))).first;
  return it->second;
}

Model restrict_candidates(const Model &m, const std::vector<std::string> &names)
{
  if (names.empty()) return m;
  std::string all;
  for (const Candidate &c : m.candidates) all += (all.empty() ? "" : ", ") + c.name;
  for (const std::string &n : names)
    if (find_candidate(m, n) < 0) throw Error(ErrorKind::bad_input, "gpuauto: -mat_gpuauto_candidates names \"" + n + "\", which the model (" + m.gpu + ") does not have; it has: " + all);
  Model r = m;
  r.candidates.clear();
  for (const Candidate &c : m.candidates)
    if (std::find(names.begin(), names.end(), c.name) != names.end()) r.candidates.push_back(c);
  return r;
}

AutoPlan plan_auto(const AutoSettings &s, std::vector<Strip> strips, AutoReport &r)
{
  AutoPlan plan;
  std::string source = s.source, message = s.message;
  std::shared_ptr<const Model> m = s.model ? s.model : model_for_this_gpu(&source, &message);
  plan.model                     = allowed_candidates(*m, s);
  if (plan.model.candidates.empty()) throw Error(ErrorKind::bad_input, "gpuauto: the model (" + m->gpu + ") has no candidate this library can build; recalibrate with bin/gpuformats_calibrate");
  r.model_source  = source;
  r.model_gpu     = m->gpu;
  r.model_message = message;
  r.strip_rows    = s.strip_rows > 0 ? s.strip_rows : m->strip_rows;
  r.strips        = std::move(strips);
  r.names.clear();
  r.predicted.clear();
  for (size_t c = 0; c < plan.model.candidates.size(); ++c) {
    r.names.push_back(plan.model.candidates[c].name);
    r.predicted.push_back(predict(plan.model, (int)c, r.strips));
  }
  plan.order.resize(r.names.size());
  std::iota(plan.order.begin(), plan.order.end(), 0);
  std::stable_sort(plan.order.begin(), plan.order.end(), [&](int a, int b) { return r.predicted[a] < r.predicted[b]; });
  r.partition = select::Partition{};
  if (!r.strips.empty()) r.partition = select::partition_strips((int)r.strips.size(), dp_cost(plan.model, r.strips));
  return plan;
}

std::unique_ptr<FormatBlock> build_auto_host(const CsrView &A, const AutoSettings &s, AutoReport *report)
{
  return choose_and_build(
    A, s, false, report, [&](int32_t strip, int32_t k, bool offsets) { return strips_of(A, strip, k, offsets); }, [&](const FormatOps &ops, const int64_t *params) { return ops.build_host(A, params); },
    [&](const std::vector<partitioned::Part> &parts) { return partitioned::build_host(A, parts, kPartsAtOnce); });
}

std::unique_ptr<FormatBlock> build_auto_cuda(const CsrView &A, const AutoSettings &s, cudaStream_t stream, const UploadContext &up, AutoReport *report)
{
  DeviceCsr d = upload_csr(A, stream, up);
  return build_auto_uploaded(A, d, s, stream, report);
}

} // namespace gpuformats::model
