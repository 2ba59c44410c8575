// Partitioned (partitioned.hpp): the parts' builds, the composed slot map, and the block.
#include "partitioned.hpp"

#include "../../core/text.hpp"

#include <algorithm>
#include <chrono>
#include <climits>

namespace gpuformats {
namespace partitioned {

void check_parts(const CsrView &A, const std::vector<Part> &parts)
{
  int32_t next = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    const Part &q = parts[p];
    if (!q.ops) throw Error(ErrorKind::bad_input, format("partitioned: part %zu has no format", p));
    if (q.first_row != next || q.rows < 1 || (int64_t)q.first_row + q.rows > A.nrows)
      throw Error(ErrorKind::bad_input, format("partitioned: part %zu holds rows %d-%lld; the parts must cover rows 0-%d in order, each at least one row", p, q.first_row, (long long)q.first_row + q.rows - 1, A.nrows - 1));
    next += q.rows;
  }
  if (next != A.nrows) throw Error(ErrorKind::bad_input, format("partitioned: the parts cover rows 0-%d of %d; they must cover every row", next - 1, A.nrows));
}

CsrView rows_view(const CsrView &A, int32_t first_row, int32_t rows, std::vector<int32_t> &rowptr)
{
  const int32_t e0 = A.rowptr[first_row];
  rowptr.resize((size_t)rows + 1);
  for (int32_t i = 0; i <= rows; ++i) rowptr[(size_t)i] = A.rowptr[first_row + i] - e0;
  return CsrView{rows, A.ncols, (int64_t)rowptr[(size_t)rows], rowptr.data(), A.colidx + e0, A.values + e0};
}

namespace {

// A refusal (or any failure) of one part, named.
[[noreturn]] void rethrow_for(size_t p, const Part &q, const Error &e)
{
  throw Error(e.kind, format("partitioned: part %zu (rows %d-%d, %s): ", p, q.first_row, q.first_row + q.rows - 1, q.ops->root) + e.what());
}

class PartitionedBlock final : public FormatBlock {
public:
  PartitionedBlock(std::vector<Part> spec, std::vector<std::unique_ptr<FormatBlock>> parts, bool concurrent) : spec_(std::move(spec)), parts_(std::move(parts))
  {
    concurrent_ = concurrent;
    for (const Part &q : spec_) concurrent_ = concurrent_ && q.ops->extra_streams == 0;
    for (const auto &b : parts_) offset_.push_back(nslots_), nslots_ += b->nslots;
    if (nslots_ > INT32_MAX) throw Error(ErrorKind::unsupported, format("partitioned: the parts hold %lld slots, more than 32-bit slot indices address; build one layout (-mat_gpuauto_partition off)", (long long)nslots_));
  }

  // values and slot_of_csr composed from the parts' (e: part p's first entry), on either backend.
  void compose_host(const CsrView &A)
  {
    int64_t e = 0;
    h_values_.resize((size_t)nslots_);
    h_slots_.resize((size_t)A.nnz);
    for (size_t p = 0; p < parts_.size(); ++p) {
      const FormatBlock &b = *parts_[p];
      std::copy(b.values, b.values + b.nslots, h_values_.data() + offset_[p]);
      for (int64_t k = 0; k < b.nnz; ++k) h_slots_[(size_t)(e + k)] = (int32_t)(offset_[p] + b.slot_of_csr[k]);
      e += b.nnz;
    }
    set_layout(Backend::host, A, h_values_.data(), nslots_, h_slots_.data());
  }
  void compose_cuda(const CsrView &A, cudaStream_t s)
  {
    int64_t e = 0;
    d_values_.resize((size_t)std::max<int64_t>(nslots_, 1));
    d_slots_.resize((size_t)std::max<int64_t>(A.nnz, 1));
    for (size_t p = 0; p < parts_.size(); ++p) {
      const FormatBlock &b = *parts_[p];
      if (b.nslots) GPUFORMATS_CUDA(cudaMemcpyAsync(d_values_.data() + offset_[p], b.values, sizeof(double) * (size_t)b.nslots, cudaMemcpyDeviceToDevice, s));
      offset_slots_cuda(b.slot_of_csr, b.nnz, (int32_t)offset_[p], d_slots_.data() + e, s);
      e += b.nnz;
    }
    set_layout(Backend::cuda, A, d_values_.data(), nslots_, d_slots_.data());
  }

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    const bool spread = concurrent_ && streams.count >= (int)parts_.size();
    for (size_t p = 0; p < parts_.size(); ++p) parts_[p]->spmv(alpha, x, beta, y + spec_[p].first_row, spread ? StreamSet{streams.streams + p, 1} : streams);
  }

  std::size_t bytes() const override
  {
    std::size_t b = 0;
    for (const auto &q : parts_) b += q->bytes();
    return b;
  }

  void describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"partition", format("%zu parts, each in its own layout, run %s (the values held twice: the parts' and the slot map's)", parts_.size(), concurrent_ ? "at once, a stream each" : "one after another")});
    for (size_t p = 0; p < parts_.size(); ++p) {
      const Part &q = spec_[p];
      std::string v = format("rows %d-%d (%d rows, %lld nonzeros), %s", q.first_row, q.first_row + q.rows - 1, q.rows, (long long)parts_[p]->nnz, q.ops->root);
      if (q.predicted > 0) v += format(", predicted %.1f us", 1e6 * q.predicted);
      if (q.ops->extra_streams == 0) v += format(", measured %.1f us%s", 1e6 * time_part(*parts_[p]), backend == Backend::host ? " (host product)" : "");
      out.push_back({format("part %zu", p), v});
      std::vector<LayoutStat> inner;
      parts_[p]->describe(inner);
      for (LayoutStat &st : inner) out.push_back({format("part %zu ", p) + st.key, st.value});
    }
  }

  // One part's product time, for the view (partitioned.hpp).
  double time_part(const FormatBlock &b) const
  {
    constexpr int kReps = 10;
    if (backend == Backend::cuda) return time_part_cuda(b, kReps);
    std::vector<double> x((size_t)std::max(b.ncols, 1), 0.0), y((size_t)std::max(b.nrows, 1));
    const auto          t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kReps; ++k) b.spmv(1.0, x.data(), 0.0, y.data(), StreamSet{});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kReps;
  }

  // The writers changed values: each part's range goes to the part's own array.
  void values_changed(cudaStream_t s) override
  {
    for (size_t p = 0; p < parts_.size(); ++p) {
      FormatBlock &b = *parts_[p];
      if (!b.nslots) continue;
      if (backend == Backend::host) std::copy(values + offset_[p], values + offset_[p] + b.nslots, b.values);
      else GPUFORMATS_CUDA(cudaMemcpyAsync(b.values, values + offset_[p], sizeof(double) * (size_t)b.nslots, cudaMemcpyDeviceToDevice, s));
      b.values_changed(s);
    }
  }

private:
  std::vector<Part>                         spec_;
  std::vector<std::unique_ptr<FormatBlock>> parts_;
  std::vector<int64_t>                      offset_; // part p's first slot in values
  int64_t                                   nslots_ = 0; // the parts' slots, all
  bool                                      concurrent_ = false;
  std::vector<double>                       h_values_;
  std::vector<int32_t>                      h_slots_;
  DeviceBuffer<double>                      d_values_;
  DeviceBuffer<int32_t>                     d_slots_;
};

} // namespace

int extra_streams(const std::vector<Part> &parts, bool concurrent)
{
  int most = 0;
  for (const Part &q : parts) most = std::max(most, q.ops ? q.ops->extra_streams : 0);
  return concurrent && most == 0 ? std::max(0, (int)parts.size() - 1) : most;
}

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const std::vector<Part> &parts, bool concurrent)
{
  check_parts(A, parts);
  std::vector<std::unique_ptr<FormatBlock>> built;
  std::vector<int32_t>                      rowptr;
  for (size_t p = 0; p < parts.size(); ++p) {
    const Part          &q      = parts[p];
    std::vector<int64_t> params = default_params(*q.ops);
    try {
      built.push_back(q.ops->build_host(rows_view(A, q.first_row, q.rows, rowptr), params.data()));
    } catch (const Error &e) {
      rethrow_for(p, q, e);
    }
  }
  auto blk = std::make_unique<PartitionedBlock>(parts, std::move(built), concurrent);
  blk->compose_host(A);
  return blk;
}

std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, const DeviceCsr &d, const std::vector<Part> &parts, cudaStream_t stream, bool concurrent)
{
  check_parts(A, parts);
  std::vector<std::unique_ptr<FormatBlock>> built;
  for (size_t p = 0; p < parts.size(); ++p) {
    const Part          &q      = parts[p];
    std::vector<int64_t> params = default_params(*q.ops);
    if (!q.ops->build_uploaded) throw Error(ErrorKind::internal, std::string("partitioned: the format ") + q.ops->root + " has no build_uploaded");
    std::vector<int32_t> rowptr;
    const CsrView        v = rows_view(A, q.first_row, q.rows, rowptr);
    try {
      DeviceCsr part = slice_rows_cuda(d, q.first_row, q.rows, A.rowptr[q.first_row], A.rowptr[q.first_row + q.rows], stream);
      built.push_back(q.ops->build_uploaded(v, part, params.data(), stream));
      GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the part's CSR is freed here
    } catch (const Error &e) {
      rethrow_for(p, q, e);
    }
  }
  auto blk = std::make_unique<PartitionedBlock>(parts, std::move(built), concurrent);
  blk->compose_cuda(A, stream);
  return blk;
}

} // namespace partitioned
} // namespace gpuformats
