// src/layout/: the one place a block's layout is decided and built, on the host backend. Every
// registered format as the type's format (its own layout, its product against the CSR reference);
// block-dense matrices (bs 2..4) into BELL in the auto and block modes, the same with one entry
// dropped into the scalar layout with the builder's reason (auto) or the refusal (block); the
// scalar mode; gpuauto's choice with its report, and the block layout before it; every layout with
// the device's one-upload builder (build_uploaded). Host only.
#include "common/block_matrices.hpp"
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "formats/bell/bell.hpp"
#include "formats/csr/csr.hpp"
#include "layout/layout.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace gpuformats;
using gftest::check;

namespace {

// A without its entry k (no longer block-dense).
CsrMatrix drop(const CsrMatrix &A, int64_t k)
{
  CsrMatrix B = A;
  B.colidx.erase(B.colidx.begin() + k), B.values.erase(B.values.begin() + k);
  for (int32_t i = 1; i <= B.nrows; ++i)
    if (B.rowptr[i] > k) --B.rowptr[i];
  return B;
}

double product_error(const layout::Layout &L, const CsrMatrix &A)
{
  std::vector<double> x(A.ncols), y(A.nrows, 0.0), want(A.nrows, 0.0);
  for (int32_t j = 0; j < A.ncols; ++j) x[j] = 1.0 + 0.25 * (j % 7) - 0.1 * (j % 3);
  L.fmt->spmv(1.0, x.data(), 0.0, y.data(), StreamSet{});
  csr_spmv_host(A.view(), 1.0, x.data(), 0.0, want.data());
  return gftest::rel_error(y, want, A.nrows);
}

} // namespace

int main()
{
  int                     nf  = 0;
  const FormatOps *const *fmt = all_formats(&nf);
  const CsrMatrix         grid = gftest::stencil7(6);
  // every layout has the one-upload builder the device path needs
  for (int f = 0; f < nf; ++f) check(fmt[f]->build_uploaded != nullptr, std::string("layout.build_uploaded.") + fmt[f]->root);
  check(bell::ops.build_uploaded && cusparse_csr_ops.build_uploaded && model::gpuauto_ops.build_uploaded, "layout.build_uploaded.bell_csr_gpuauto");

  for (int f = 0; f < nf; ++f) {
    const FormatOps           &ops    = *fmt[f];
    const std::vector<int64_t> params = default_params(ops);
    const std::string          root   = ops.root;
    { // no block size: the type's own layout
      const layout::Layout L = layout::build_host(grid.view(), {&ops, params.data()});
      check(L.ops == &ops && L.block_bs == 0 && !L.report && L.fmt, "layout.scalar." + root, L.ops ? L.ops->root : "none");
      check(product_error(L, grid) <= 1e-13, "layout.scalar_product." + root);
    }
    for (int32_t bs = 2; bs <= 4; ++bs) {
      const CsrMatrix   B   = gftest::random_blocks(40, 40, bs, 5, 0, 100 + bs);
      const std::string tag = root + ".bs" + std::to_string(bs);
      for (auto mode : {select::BlockMode::automatic, select::BlockMode::block}) {
        const layout::Layout L = layout::build_host(B.view(), {&ops, params.data(), nullptr, bs, mode});
        check(L.ops == &bell::ops && L.block_bs == bs && std::string(L.ops->root) == "bell" && !L.reason.empty(), "layout.block." + tag + "." + select::kBlockModeNames[(int)mode], L.ops ? L.ops->root : "none");
        check(product_error(L, B) <= 1e-13, "layout.block_product." + tag + "." + select::kBlockModeNames[(int)mode]);
      }
      {
        const layout::Layout L = layout::build_host(B.view(), {&ops, params.data(), nullptr, bs, select::BlockMode::scalar});
        check(L.ops == &ops && L.block_bs == 0, "layout.scalar_mode." + tag);
      }
      // one entry dropped (the second of the first row holding any: a row of at least bs entries),
      // so its block row's lengths differ; auto takes the scalar layout and says why
      const CsrMatrix      C = drop(B, 1);
      const layout::Layout L = layout::build_host(C.view(), {&ops, params.data(), nullptr, bs, select::BlockMode::automatic});
      check(L.ops == &ops && L.block_bs == 0 && !L.reason.empty(), "layout.not_block_dense." + tag, L.reason);
      check(product_error(L, C) <= 1e-13, "layout.not_block_dense_product." + tag);
      bool refused = false;
      try {
        layout::build_host(C.view(), {&ops, params.data(), nullptr, bs, select::BlockMode::block});
      } catch (const Error &e) {
        refused = e.kind == ErrorKind::unsupported;
      }
      check(refused, "layout.block_mode_refuses." + tag);
    }
  }

  // gpuauto: the model's choice, its report, and the layout that built it
  {
    model::AutoSettings        as;
    const std::vector<int64_t> params = default_params(model::gpuauto_ops);
    const layout::Layout       L      = layout::build_host(grid.view(), {&model::gpuauto_ops, params.data(), &as});
    check(L.report && L.ops && L.ops == model::candidate_ops(L.report->chosen) && L.block_bs == 0, "layout.gpuauto", L.report ? L.report->chosen : "no report");
    check(product_error(L, grid) <= 1e-13, "layout.gpuauto_product");
    const CsrMatrix      B  = gftest::random_blocks(40, 40, 3, 5, 0, 7);
    const layout::Layout LB = layout::build_host(B.view(), {&model::gpuauto_ops, params.data(), &as, 3, select::BlockMode::automatic});
    check(LB.ops == &bell::ops && LB.block_bs == 3 && !LB.report, "layout.gpuauto_block_first");
  }
  return gftest::finish();
}
