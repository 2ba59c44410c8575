// The layout decision (layout.hpp): the block layout first, then gpuauto or the type's format.
#include "layout.hpp"

#include "../formats/bell/bell.hpp"

namespace gpuformats::layout {

namespace {

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

Layout finish(std::unique_ptr<FormatBlock> fmt, const select::BlockDecision &d, const FormatOps *ops, std::unique_ptr<model::AutoReport> report)
{
  Layout L;
  L.fmt      = std::move(fmt);
  L.ops      = ops;
  L.block_bs = d.block ? d.bs : 0;
  L.reason   = d.reason;
  L.report   = std::move(report);
  return L;
}

} // namespace

Layout build_host(const CsrView &A, const Request &rq)
{
  select::BlockDecision d = select::choose_block_layout(A, rq.block_size, rq.block_mode);
  if (auto fmt = try_block(d, rq, [&](const int64_t *p) { return bell::ops.build_host(A, p); })) return finish(std::move(fmt), d, &bell::ops, nullptr);
  if (rq.autosel) {
    auto report = std::make_unique<model::AutoReport>();
    auto fmt    = model::build_auto_host(A, *rq.autosel, report.get());
    const FormatOps *chosen = model::candidate_ops(report->chosen); // before report moves
    return finish(std::move(fmt), d, chosen, std::move(report));
  }
  return finish(rq.ops->build_host(A, rq.params), d, rq.ops, nullptr);
}

Layout build_cuda(const CsrView &A, const Request &rq, cudaStream_t stream, const UploadContext &up, const std::function<void(const DeviceCsr &)> &uploaded)
{
  select::BlockDecision d = select::choose_block_layout(A, rq.block_size, rq.block_mode);
  if (!rq.autosel && !rq.ops->build_uploaded) throw Error(ErrorKind::internal, std::string("layout: format ") + rq.ops->root + " has no build_uploaded");
  DeviceCsr dev = upload_csr(A, stream, up);
  if (uploaded) uploaded(dev);
  if (auto fmt = try_block(d, rq, [&](const int64_t *p) { return bell::ops.build_uploaded(A, dev, p, stream); })) return finish(std::move(fmt), d, &bell::ops, nullptr);
  if (rq.autosel) {
    auto report = std::make_unique<model::AutoReport>();
    auto fmt    = model::build_auto_uploaded(A, dev, *rq.autosel, stream, report.get());
    const FormatOps *chosen = model::candidate_ops(report->chosen); // before report moves
    return finish(std::move(fmt), d, chosen, std::move(report));
  }
  return finish(rq.ops->build_uploaded(A, dev, rq.params, stream), d, rq.ops, nullptr);
}

} // namespace gpuformats::layout
