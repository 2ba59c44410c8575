// The CSR layout on the host backend (reference product) and the ops table.
#include "csr.hpp"

#include <numeric>
#include <vector>

namespace gpuformats {
namespace csr {
namespace {

struct HostBlock final : FormatBlock {
  std::vector<int32_t> rowptr, colidx, slots;
  std::vector<double>  vals;
  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override
  {
    CsrView v;
    v.nrows  = nrows;
    v.ncols  = ncols;
    v.nnz    = nnz;
    v.rowptr = rowptr.data();
    v.colidx = colidx.data();
    v.values = vals.data();
    csr_spmv_host(v, alpha, x, beta, y);
  }
  std::size_t bytes() const override { return (std::size_t)csr_bytes(nnz, nrows); }
  void        describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"backend", "host"});
    out.push_back({"layout", "CSR (cusparseSpMV CSR_ALG1 on the GPU)"});
  }
};

} // namespace

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *)
{
  auto blk = std::make_unique<HostBlock>();
  blk->rowptr.assign(A.rowptr, A.rowptr + A.nrows + 1);
  blk->colidx.assign(A.colidx, A.colidx + A.nnz);
  blk->vals.assign(A.values, A.values + A.nnz);
  blk->slots.resize(A.nnz);
  std::iota(blk->slots.begin(), blk->slots.end(), 0);
  blk->set_layout(Backend::host, A, blk->vals.data(), A.nnz, blk->slots.data());
  return blk;
}

} // namespace csr

extern const FormatOps cusparse_csr_ops = {
  "cusparse_csr",
  "cuSPARSE CSR (cusparseSpMV CSR_ALG1, as aijcusparse): gpuauto's baseline candidate",
  nullptr,
  0,
  0,
  csr::build_host,
  csr::build_cuda,
  false,
  csr::build_uploaded,
};

} // namespace gpuformats
