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
#include "formats/dia/dia.hpp"
#include "matgen/generators.hpp"
#include "formats/evchyb/evchyb.hpp"
#include "layout/layout.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
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

// y = A x + beta y from a y of known values, against the CSR reference.
double product_error_beta(const layout::Layout &L, const CsrMatrix &A, double beta)
{
  std::vector<double> x(A.ncols), y(A.nrows), want(A.nrows);
  for (int32_t j = 0; j < A.ncols; ++j) x[j] = 1.0 + 0.25 * (j % 7) - 0.1 * (j % 3);
  for (int32_t i = 0; i < A.nrows; ++i) y[i] = want[i] = 0.5 - 0.125 * (i % 5);
  L.fmt->spmv(1.0, x.data(), beta, y.data(), StreamSet{});
  csr_spmv_host(A.view(), 1.0, x.data(), beta, want.data());
  return gftest::rel_error(y, want, A.nrows);
}

// A with only the rows r % every == 0 kept (the rest empty): an off-process block's shape.
CsrMatrix keep_rows(const CsrMatrix &A, int32_t every)
{
  CsrMatrix B = A;
  B.rowptr.assign(1, 0), B.colidx.clear(), B.values.clear();
  for (int32_t i = 0; i < A.nrows; ++i) {
    if (i % every == 0)
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) B.colidx.push_back(A.colidx[k]), B.values.push_back(A.values[k]);
    B.rowptr.push_back((int32_t)B.colidx.size());
  }
  return B;
}

} // namespace

int main()
{
  int                     nf  = 0;
  const FormatOps *const *fmt = all_formats(&nf);
  const CsrMatrix         grid = gftest::stencil7(6);
  const CsrMatrix         st7 = gftest::stencil7(12), st5 = generate_matrix("stencil2d5:n=30", 1);
  // a stencil with one entry moved off the offsets (row 500's last entry to column 3): not a stencil
  CsrMatrix off = st7;
  off.colidx[off.rowptr[501] - 1] = 3;
  std::sort(off.colidx.begin() + off.rowptr[500], off.colidx.begin() + off.rowptr[501]);
  // every layout has the one-upload builder the device path needs
  for (int f = 0; f < nf; ++f) check(fmt[f]->build_uploaded != nullptr, std::string("layout.build_uploaded.") + fmt[f]->root);
  check(bell::ops.build_uploaded && dia::ops.build_uploaded && cusparse_csr_ops.build_uploaded && model::gpuauto_ops.build_uploaded, "layout.build_uploaded.bell_dia_csr_gpuauto");

  for (int f = 0; f < nf; ++f) {
    const FormatOps           &ops    = *fmt[f];
    const std::vector<int64_t> params = default_params(ops);
    const std::string          root   = ops.root;
    { // no block size, stencil off: the type's own layout
      const layout::Layout L = layout::build_host(grid.view(), {&ops, params.data(), nullptr, 1, select::BlockMode::automatic, select::StencilMode::off});
      check(L.ops == &ops && L.block_bs == 0 && !L.report && L.fmt && L.name == root && L.derived_ops == &ops, "layout.scalar." + root, L.ops ? L.ops->root : "none");
      check(product_error(L, grid) <= 1e-13, "layout.scalar_product." + root);
    }
    // stencils: DIA in auto and on, the type's layout with off; derived matrices take the type's
    for (const auto &[tag, M] : {std::pair<std::string, const CsrMatrix *>{"st7", &st7}, {"st5", &st5}})
      for (auto mode : {select::StencilMode::automatic, select::StencilMode::on, select::StencilMode::off}) {
        const layout::Layout L    = layout::build_host(M->view(), {&ops, params.data(), nullptr, 1, select::BlockMode::automatic, mode});
        const bool           want = mode != select::StencilMode::off;
        const std::string    name = root + "." + tag + "." + select::kStencilModeNames[(int)mode];
        check((L.ops == &dia::ops) == want && L.derived_ops == &ops && (L.name == root) == !want && !L.reason.empty(), "layout.stencil." + name, L.name + ": " + L.reason);
        check(product_error(L, *M) <= 1e-13, "layout.stencil_product." + name);
      }
    { // an entry off the offsets: auto says why, on refuses
      const layout::Layout L = layout::build_host(off.view(), {&ops, params.data()});
      check(L.ops == &ops && L.reason.find("not stencil: dia: entry (500, 3)") != std::string::npos, "layout.not_stencil." + root, L.reason);
      check(product_error(L, off) <= 1e-13, "layout.not_stencil_product." + root);
      bool refused = false;
      try {
        layout::build_host(off.view(), {&ops, params.data(), nullptr, 1, select::BlockMode::automatic, select::StencilMode::on});
      } catch (const Error &e) {
        refused = e.kind == ErrorKind::unsupported && std::string(e.what()).find("-mat_gpuformats_stencil on") != std::string::npos;
      }
      check(refused, "layout.stencil_on_refuses." + root);
      // too much padding for the cheap check: the 6^3 grid pads 16.7% of its nonzeros
      const layout::Layout G = layout::build_host(grid.view(), {&ops, params.data()});
      check(G.ops == &ops && G.reason.find("not stencil: rows of 7 entries would pad 16.7%") != std::string::npos, "layout.stencil_padding." + root, G.reason);
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
    const layout::Settings     as(model::gpuauto_ops);
    const std::vector<int64_t> params = default_params(model::gpuauto_ops);
    const layout::Layout       L      = layout::build_host(grid.view(), {&model::gpuauto_ops, params.data(), &as});
    check(L.report && L.ops && L.ops == model::candidate_ops(L.report->chosen) && L.block_bs == 0, "layout.gpuauto", L.report ? L.report->chosen : "no report");
    check(product_error(L, grid) <= 1e-13, "layout.gpuauto_product");
    // the choice in words for -info and -mat_view (the glue prints them as given)
    const auto has = [](const std::vector<std::string> &lines, const std::string &start) {
      return std::any_of(lines.begin(), lines.end(), [&](const std::string &l) { return l.rfind(start, 0) == 0; });
    };
    check(L.report && has(L.info, "gpuauto chose " + L.report->chosen + " (predicted") && has(L.view, "gpuauto: predicted us per product: ") && has(L.view, "gpuauto: partition: ") && has(L.view, "gpuauto: features (host): "),
          "layout.gpuauto_words", L.info.empty() ? "no info" : L.info.front());
    const CsrMatrix      B  = gftest::random_blocks(40, 40, 3, 5, 0, 7);
    const layout::Layout LB = layout::build_host(B.view(), {&model::gpuauto_ops, params.data(), &as, 3, select::BlockMode::automatic});
    check(LB.ops == &bell::ops && LB.block_bs == 3 && !LB.report, "layout.gpuauto_block_first");
    const layout::Layout LS = layout::build_host(st7.view(), {&model::gpuauto_ops, params.data(), &as});
    check(LS.ops == &dia::ops && !LS.report && LS.derived_ops == &model::gpuauto_ops && LS.info.empty() && LS.view.empty(), "layout.gpuauto_stencil_first", LS.name);
    // a block-dense stencil with a block size stays in BELL
    const CsrMatrix      BS = generate_matrix("blockstencil3d:n=8,bs=2", 1);
    const layout::Layout LBS = layout::build_host(BS.view(), {&evchyb_ops, default_params(evchyb_ops).data(), nullptr, 2});
    check(LBS.ops == &bell::ops && LBS.block_bs == 2, "layout.block_before_stencil", LBS.name);
  }

  // the types and their own options: a fixed format has none; gpuauto's model and candidates are
  // checked when given, change the build, and belong to one copy of the settings
  {
    int                     n;
    const FormatOps *const *types = layout::types(&n);
    int                     nf;
    all_formats(&nf);
    check(n == nf + 1 && types[n - 1] == &model::gpuauto_ops, "layout.types", std::to_string(n));
    check(layout::Settings(evchyb_ops).options().empty() && layout::Settings().options().empty(), "layout.settings_fixed_format_none");
    layout::Settings s(model::gpuauto_ops);
    const auto       opts = s.options();
    check(opts.size() == 3 && std::string(opts[0].name) == "model" && !opts[0].list && std::string(opts[1].name) == "candidates" && opts[1].list && std::string(opts[2].name) == "partition" && !opts[2].list && s.value(2) == "auto",
          "layout.settings_gpuauto_options");
    const auto throws_bad_input = [&](size_t i, const std::vector<std::string> &v) {
      try {
        s.set(i, v);
      } catch (const Error &e) {
        return e.kind == ErrorKind::bad_input;
      }
      return false;
    };
    check(throws_bad_input(0, {""}) && throws_bad_input(0, {"/no/such/model.json"}), "layout.settings_bad_model");
    check(throws_bad_input(1, {"pjds", "csr5"}) && s.value(1).empty(), "layout.settings_unknown_candidate", s.value(1));
    // the committed H100 model (the run's directory is the repository's root): the default model
    // without a calibration for this machine has cuSPARSE CSR only
    check(s.set(0, {"share/gpuformats/models/nvidia-h100-80gb-hbm3.json"}) && !s.set(0, {"share/gpuformats/models/nvidia-h100-80gb-hbm3.json"}), "layout.settings_model_set_once", s.value(0));
    const layout::Settings before = s;
    check(s.set(1, {"pjds"}) && !s.set(1, {"pjds"}) && s.value(1) == "pjds" && before.value(1).empty() && !before.value(0).empty(), "layout.settings_candidates_set_once", s.value(1));
    const CsrMatrix            R      = generate_matrix("randrows:n=300,minlen=5,maxlen=12", 3);
    const std::vector<int64_t> params = default_params(model::gpuauto_ops);
    const layout::Layout       L      = layout::build_host(R.view(), {&model::gpuauto_ops, params.data(), &s});
    check(L.report && L.report->chosen == "pjds" && L.ops == model::candidate_ops("pjds"), "layout.settings_candidates_build", L.name);
    check(product_error(L, R) <= 1e-13, "layout.settings_candidates_product");
  }

  // compressed rows: a block with at most half its rows nonempty runs its layout over those rows
  // (every format, the stencil layout, gpuauto), with the slot map of the whole block; more than
  // half, or compress_rows off: the whole block
  {
    const CsrMatrix R = generate_matrix("randrows:n=600,minlen=3,maxlen=20", 5);
    std::vector<const FormatOps *> types;
    for (int f = 0; f < nf; ++f) types.push_back(fmt[f]);
    types.push_back(&model::gpuauto_ops);
    const layout::Settings autos(model::gpuauto_ops);
    for (const FormatOps *ops : types) {
      const std::vector<int64_t> params = default_params(*ops);
      const layout::Settings    *set    = ops == &model::gpuauto_ops ? &autos : nullptr;
      for (auto [every, src, want] : {std::tuple<int32_t, const CsrMatrix *, bool>{20, &R, true}, {2, &R, true}, {1, &R, false}, {7, &st7, true}}) {
        const CsrMatrix      B   = keep_rows(*src, every);
        const std::string    tag = std::string(ops->root) + ".every" + std::to_string(every) + (src == &st7 ? ".st7" : "");
        const layout::Layout L   = layout::build_host(B.view(), {ops, params.data(), set});
        const bool           compressed = L.reason.find("compressed rows: ") != std::string::npos;
        check(compressed == want && L.fmt->nrows == B.nrows && L.fmt->nnz == (int64_t)B.values.size(), "layout.compressed_rows_taken." + tag, L.reason);
        bool slots = true;
        for (size_t k = 0; k < B.values.size(); ++k) slots = slots && L.fmt->values[L.fmt->slot_of_csr[k]] == B.values[k];
        check(slots, "layout.compressed_rows_slots." + tag);
        for (double beta : {0.0, 1.0, -0.5}) check(product_error_beta(L, B, beta) <= 1e-13, "layout.compressed_rows_product." + tag + ".beta" + std::to_string(beta), std::to_string(product_error_beta(L, B, beta)));
        layout::Request off{ops, params.data(), set};
        off.compress_rows = false;
        const layout::Layout W = layout::build_host(B.view(), off);
        check(W.reason.find("compressed rows") == std::string::npos && product_error_beta(W, B, 1.0) <= 1e-13, "layout.compressed_rows_off." + tag, W.reason);
      }
    }
    // the stencil's kept rows are a stencil again: DIA over them
    const CsrMatrix      S = keep_rows(st7, 7);
    const layout::Layout L = layout::build_host(S.view(), {&evchyb_ops, default_params(evchyb_ops).data()});
    check(L.ops == &dia::ops || L.reason.find("not stencil") != std::string::npos, "layout.compressed_rows_then_stencil_decided", L.reason);
  }
  return gftest::finish();
}
