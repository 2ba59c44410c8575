// The layout decision (layout.hpp): the block layout first, then the stencil layout, then gpuauto
// or the type's format.
#include "layout.hpp"

#include "../formats/bell/bell.hpp"
#include "../formats/dia/dia.hpp"
#include "compressed_rows.hpp"

namespace gpuformats::layout {

const FormatOps *const *types(int *count)
{
  static const std::vector<const FormatOps *> list = [] {
    int                           n;
    const FormatOps *const       *all = all_formats(&n);
    std::vector<const FormatOps *> l(all, all + n);
    l.push_back(&model::gpuauto_ops);
    return l;
  }();
  *count = (int)list.size();
  return list.data();
}

namespace {

enum AutoOption { kModel, kCandidates, kPartition };

} // namespace

Settings::Settings(const FormatOps &type)
{
  if (&type == &model::gpuauto_ops) auto_.emplace();
}

std::vector<StringOption> Settings::options() const
{
  if (!auto_) return {};
  return {{"model", "Model file to choose with (JSON written by bin/gpuformats_calibrate; default: share/gpuformats/models/<this GPU's name>.json beside the library, or in $GPUFORMATS_MODEL_DIR)", false},
          {"candidates", "Candidates gpuauto may choose, comma-separated (default: all the model has: evchyb, pjds, pellr, suraa, cusparse_csr, and dia, the stencil layout, where calibrated)", true},
          {"partition", "Build the model's partition of a block into row ranges, each in its own format: auto (where predicted faster by -mat_gpuauto_partition_gain_pct), off, force (wherever it splits)", false}};
}

std::string Settings::value(size_t option) const
{
  if (!auto_) return "";
  if (option == kModel) return auto_->model ? auto_->source : "";
  if (option == kPartition) return model::partition_mode_name(auto_->partition);
  std::string v;
  for (const std::string &c : auto_->candidates) v += (v.empty() ? "" : ",") + c;
  return v;
}

bool Settings::set(size_t option, const std::vector<std::string> &values)
{
  if (!auto_ || option > kPartition) throw Error(ErrorKind::internal, "layout: an option this type does not have");
  model::AutoSettings &as = *auto_;
  if (option == kPartition) {
    const std::string v = values.empty() ? "" : values.front();
    model::PartitionMode m;
    if (v == "auto") m = model::PartitionMode::automatic;
    else if (v == "off") m = model::PartitionMode::off;
    else if (v == "force") m = model::PartitionMode::force;
    else throw Error(ErrorKind::bad_input, "-mat_gpuauto_partition takes auto, off or force, not \"" + v + "\"");
    if (m == as.partition) return false;
    as.partition = m;
    return true;
  }
  if (option == kModel) {
    const std::string path = values.empty() ? "" : values.front();
    if (path.empty()) throw Error(ErrorKind::bad_input, "-mat_gpuauto_model needs a file name (a model written by bin/gpuformats_calibrate)");
    if (as.model && as.source == path) return false;
    as.model  = model::model_from_file(path);
    as.source = path;
    as.message.clear();
    return true;
  }
  std::shared_ptr<const model::Model> m = as.model;
  std::string                         src, msg;
  if (!m) m = model::model_for_this_gpu(&src, &msg);
  model::restrict_candidates(*m, values); // an unknown name fails here, not at the first product
  if (values == as.candidates) return false;
  as.candidates = values;
  return true;
}

namespace {

// gpuauto's settings for a build: the type's, with the values of its FormatOps parameters.
std::optional<model::AutoSettings> auto_settings(const Request &rq)
{
  if (!rq.settings || !rq.settings->autosel()) return std::nullopt;
  model::AutoSettings s = model::with_params(*rq.settings->autosel(), rq.params);
  s.offset_layout       = rq.stencil_mode != select::StencilMode::off; // off: no DIA, not even for a part
  return s;
}

// The block layout's build: BELL where the decision says block, the decision revised where it
// refuses (auto: scalar with the builder's reason; block: the refusal is thrown).
template <class Build>
std::unique_ptr<FormatBlock> try_block(select::BlockDecision &d, const Request &rq, Build &&build)
{
  if (!d.block) return nullptr;
  try {
    const int64_t bs = d.bs;
    return build(&bs);
  } catch (const Error &e) {
    if (e.kind != ErrorKind::unsupported) throw;
    d = select::refused_block_layout(e, rq.block_size, rq.block_mode);
    return nullptr;
  }
}

// DIA's parameters: the request's, or its defaults.
const int64_t *stencil_params(const Request &rq)
{
  static const std::vector<int64_t> defaults = default_params(dia::ops);
  return rq.stencil_params ? rq.stencil_params : defaults.data();
}

// The stencil layout's build: DIA where the decision says stencil, the decision revised where it
// refuses (auto: the type's layout with the builder's reason; on: the refusal is thrown).
template <class Build>
std::unique_ptr<FormatBlock> try_stencil(select::StencilDecision &d, const Request &rq, Build &&build)
{
  if (!d.stencil) return nullptr;
  try {
    return build(stencil_params(rq));
  } catch (const Error &e) {
    if (e.kind != ErrorKind::unsupported) throw;
    d = select::refused_stencil_layout(e, rq.stencil_mode);
    return nullptr;
  }
}

select::StencilDecision stencil_decision(const CsrView &A, const Request &rq, const select::BlockDecision &b)
{
  if (b.block) return {};
  const dia::Limits lim = dia::read_params(stencil_params(rq));
  return select::choose_stencil_layout(A, rq.stencil_mode, lim.max_diags, lim.max_pad_pct);
}

Layout finish(std::unique_ptr<FormatBlock> fmt, const select::BlockDecision &d, const select::StencilDecision &st, const FormatOps *ops, const Request &rq, std::unique_ptr<model::AutoReport> report)
{
  Layout L;
  L.fmt         = std::move(fmt);
  L.ops         = ops;
  L.block_bs    = d.block ? d.bs : 0;
  L.reason      = d.block || st.reason.empty() ? d.reason : d.reason + "; " + st.reason;
  L.derived_ops = report ? ops : rq.ops;
  if (d.block) L.name = std::string(ops->root) + " (block layout, bs " + std::to_string(d.bs) + ")";
  else if (ops == &dia::ops) L.name = std::string(ops->root) + " (stencil layout)";
  else if (report && report->partition_built) L.name = "partition of " + std::to_string(report->partition.blocks.size()) + " parts (chosen by gpuauto)";
  else if (report) L.name = report->chosen + " (chosen by gpuauto)";
  else L.name = ops->root;
  if (report) L.info = model::info_lines(*report), L.view = model::view_lines(*report);
  L.report = std::move(report);
  return L;
}

// A's layout over its nonempty rows where compress_rows takes it (compressed_rows.hpp), from
// `build` of the view it gives (A's own otherwise).
template <class Build>
Layout maybe_compressed(const CsrView &A, const Request &rq, Backend backend, cudaStream_t stream, Build &&build)
{
  const std::unique_ptr<CompressedRows> c = rq.compress_rows ? compress_rows(A) : nullptr;
  if (!c) return build(A, nullptr);
  Layout L = build(c->view, c.get());
  L.fmt    = with_compressed_rows(std::move(L.fmt), A, *c, backend, stream);
  L.reason += "; compressed rows: " + std::to_string(c->rows.size()) + " of " + std::to_string(A.nrows) + " rows have entries, the product runs on those (-mat_gpuformats_compressed_rows)";
  return L;
}

} // namespace

const FormatOps &stencil_ops() { return dia::ops; }

Layout build_host(const CsrView &A, const Request &rq)
{
  select::BlockDecision d = select::choose_block_layout(A, rq.block_size, rq.block_mode);
  if (auto fmt = try_block(d, rq, [&](const int64_t *p) { return bell::ops.build_host(A, p); })) return finish(std::move(fmt), d, {}, &bell::ops, rq, nullptr);
  return maybe_compressed(A, rq, Backend::host, nullptr, [&](const CsrView &B, const CompressedRows *) {
    select::StencilDecision st = stencil_decision(B, rq, d);
    if (auto fmt = try_stencil(st, rq, [&](const int64_t *p) { return dia::ops.build_host(B, p); })) return finish(std::move(fmt), d, st, &dia::ops, rq, nullptr);
    if (const auto as = auto_settings(rq)) {
      auto report = std::make_unique<model::AutoReport>();
      auto fmt    = model::build_auto_host(B, *as, report.get());
      const FormatOps *chosen = model::built_ops(*report); // before report moves
      return finish(std::move(fmt), d, st, chosen, rq, std::move(report));
    }
    return finish(rq.ops->build_host(B, rq.params), d, st, rq.ops, rq, nullptr);
  });
}

Layout build_cuda(const CsrView &A, const Request &rq, cudaStream_t stream, const UploadContext &up, const std::function<void(const DeviceCsr &)> &uploaded)
{
  select::BlockDecision d = select::choose_block_layout(A, rq.block_size, rq.block_mode);
  const auto as = auto_settings(rq);
  if (!as && !rq.ops->build_uploaded) throw Error(ErrorKind::internal, std::string("layout: format ") + rq.ops->root + " has no build_uploaded");
  DeviceCsr dev = upload_csr(A, stream, up);
  if (uploaded) uploaded(dev);
  if (auto fmt = try_block(d, rq, [&](const int64_t *p) { return bell::ops.build_uploaded(A, dev, p, stream); })) return finish(std::move(fmt), d, {}, &bell::ops, rq, nullptr);
  return maybe_compressed(A, rq, Backend::cuda, stream, [&](const CsrView &B, const CompressedRows *c) {
    DeviceCsr  devc;
    DeviceCsr &D = c ? devc : dev;
    if (c) { // the compressed rows' pointers uploaded; the entries are A's, already there
      devc.nrows = B.nrows, devc.ncols = B.ncols, devc.nnz = B.nnz;
      devc.rowptr.resize(c->rowptr.size());
      devc.rowptr.upload(c->rowptr.data(), c->rowptr.size(), stream);
      devc.colidx = std::move(dev.colidx);
      devc.values = std::move(dev.values);
    }
    select::StencilDecision st = stencil_decision(B, rq, d);
    if (auto fmt = try_stencil(st, rq, [&](const int64_t *p) { return dia::ops.build_uploaded(B, D, p, stream); })) return finish(std::move(fmt), d, st, &dia::ops, rq, nullptr);
    if (as) {
      auto report = std::make_unique<model::AutoReport>();
      auto fmt    = model::build_auto_uploaded(B, D, *as, stream, report.get());
      const FormatOps *chosen = model::built_ops(*report); // before report moves
      return finish(std::move(fmt), d, st, chosen, rq, std::move(report));
    }
    return finish(rq.ops->build_uploaded(B, D, rq.params, stream), d, st, rq.ops, rq, nullptr);
  });
}

} // namespace gpuformats::layout
