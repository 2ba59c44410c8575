// Compressed rows (compressed_rows.hpp): the row list, and the block that runs its inner layout
// over the nonempty rows.
#include "compressed_rows.hpp"

#include "../core/device_buffer.hpp"

#include <string>

namespace gpuformats::layout {

std::unique_ptr<CompressedRows> compress_rows(const CsrView &A)
{
  int64_t nonempty = 0;
  for (int32_t i = 0; i < A.nrows; ++i) nonempty += A.rowptr[i + 1] > A.rowptr[i];
  if (nonempty == 0 || (double)nonempty > kCompressRowsShare * (double)A.nrows) return nullptr;
  auto c = std::make_unique<CompressedRows>();
  c->rows.reserve((size_t)nonempty);
  c->rowptr.reserve((size_t)nonempty + 1);
  c->rowptr.push_back(A.rowptr[0]);
  for (int32_t i = 0; i < A.nrows; ++i)
    if (A.rowptr[i + 1] > A.rowptr[i]) c->rows.push_back(i), c->rowptr.push_back(A.rowptr[i + 1]);
  // positions stay A's: a CsrView's rowptr starts at 0, as A's does
  c->view = CsrView{(int32_t)nonempty, A.ncols, A.nnz, c->rowptr.data(), A.colidx, A.values};
  return c;
}

namespace {

class CompressedBlock final : public FormatBlock {
public:
  CompressedBlock(std::unique_ptr<FormatBlock> inner, const CsrView &A, const CompressedRows &c, Backend b, cudaStream_t stream) : inner_(std::move(inner)), k_((int32_t)c.rows.size())
  {
    set_layout(b, A, inner_->values, inner_->nslots, inner_->slot_of_csr);
    if (b == Backend::cuda) {
      d_rows_.resize((size_t)k_);
      d_rows_.upload(c.rows.data(), (size_t)k_, stream);
      d_t_.resize((size_t)k_);
    } else {
      rows_ = c.rows;
      t_.resize((size_t)k_);
    }
  }
  ~CompressedBlock() override
  {
    for (cudaEvent_t e : joins_) cudaEventDestroy(e);
  }

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (backend == Backend::host) {
      inner_->spmv(alpha, x, 0.0, t_.data(), streams);
      if (beta != 1.0)
        for (int32_t i = 0; i < nrows; ++i) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
      for (int32_t i = 0; i < k_; ++i) y[rows_[(size_t)i]] += t_[(size_t)i];
      return;
    }
    inner_->spmv(alpha, x, 0.0, d_t_.data(), streams);
    // the inner layout's work on the extra streams ends before the rows are added on the main one
    for (int s = 1; s < streams.count; ++s) {
      if (joins_.size() < (size_t)s) {
        cudaEvent_t e;
        GPUFORMATS_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        joins_.push_back(e);
      }
      GPUFORMATS_CUDA(cudaEventRecord(joins_[(size_t)s - 1], streams.streams[s]));
      GPUFORMATS_CUDA(cudaStreamWaitEvent(streams.main(), joins_[(size_t)s - 1], 0));
    }
    compressed_rows_add_cuda(d_rows_.data(), k_, d_t_.data(), beta, y, nrows, streams.main());
  }

  std::size_t bytes() const override { return inner_->bytes() + (size_t)k_ * (sizeof(int32_t) + 2 * sizeof(double)); }

  void describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"compressed rows", std::to_string(k_) + " of " + std::to_string(nrows) + " rows have entries: the product runs on those only"});
    inner_->describe(out);
  }

  void values_changed(cudaStream_t s) override { inner_->values_changed(s); }

private:
  std::unique_ptr<FormatBlock>     inner_;
  int32_t                          k_;
  std::vector<int32_t>             rows_; // host backend
  mutable std::vector<double>      t_;
  DeviceBuffer<int32_t>            d_rows_; // cuda backend
  mutable DeviceBuffer<double>     d_t_;
  mutable std::vector<cudaEvent_t> joins_;
};

} // namespace

std::unique_ptr<FormatBlock> with_compressed_rows(std::unique_ptr<FormatBlock> inner, const CsrView &A, const CompressedRows &c, Backend backend, cudaStream_t stream)
{
  if (!inner || inner->nrows != (int32_t)c.rows.size() || inner->nnz != A.nnz) throw Error(ErrorKind::internal, "layout: compressed rows: the inner layout is not the compressed CSR's");
  return std::make_unique<CompressedBlock>(std::move(inner), A, c, backend, stream);
}

} // namespace gpuformats::layout
