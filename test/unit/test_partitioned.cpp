// src/formats/partitioned/: a block whose row ranges each run in their own layout (gpuauto builds
// the model's partition with it). Every pair of part formats (every registered format and cuSPARSE
// CSR) on a matrix of unlike halves, three parts and one-row parts: the product against the CSR
// reference for beta 0, 1 and -0.5, the composed slot map, a values change through it; the parts'
// checks and a part's refusal; gpuauto's -mat_gpuauto_partition auto|off|force and its margin.
// Host only.
#include "common/check.hpp"
#include "common/test_matrices.hpp"
#include "formats/csr/csr.hpp"
#include "formats/dia/dia.hpp"
#include "formats/evchyb/evchyb.hpp"
#include "formats/partitioned/partitioned.hpp"
#include "layout/layout.hpp"
#include "matgen/generators.hpp"
#include "model/auto.hpp"
#include "model/model.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

using namespace gpuformats;
using gftest::check;

namespace {

// y = alpha A x + beta y from a y of known values, against the CSR reference.
double product_error(const FormatBlock &blk, const CsrView &A, double beta)
{
  std::vector<double> x(A.ncols), y(A.nrows), want(A.nrows);
  for (int32_t j = 0; j < A.ncols; ++j) x[j] = 1.0 + 0.25 * (j % 7) - 0.1 * (j % 3);
  for (int32_t i = 0; i < A.nrows; ++i) y[i] = want[i] = 0.5 - 0.125 * (i % 5);
  blk.spmv(1.5, x.data(), beta, y.data(), StreamSet{});
  csr_spmv_host(A, 1.5, x.data(), beta, want.data());
  return gftest::rel_error(y, want, A.nrows);
}

bool slots_hold(const FormatBlock &blk, const CsrMatrix &A)
{
  if (blk.nnz != (int64_t)A.values.size() || blk.nrows != A.nrows || blk.ncols != A.ncols) return false;
  for (size_t k = 0; k < A.values.size(); ++k)
    if (blk.values[blk.slot_of_csr[k]] != A.values[k]) return false;
  return true;
}

// The checks of one partitioned block of A: slots, products, then new values written through the
// slot map (as a refresh does) reach the parts.
void check_block(FormatBlock &blk, const CsrMatrix &A, const std::string &tag)
{
  check(slots_hold(blk, A), "partitioned.slots." + tag);
  for (double beta : {0.0, 1.0, -0.5}) {
    const double e = product_error(blk, A.view(), beta);
    check(e <= 1e-13, "partitioned.product." + tag + ".beta" + std::to_string(beta), std::to_string(e));
  }
  CsrMatrix B = A;
  for (size_t k = 0; k < B.values.size(); ++k) B.values[k] = 0.5 * B.values[k] + 0.01 * (double)(k % 11);
  for (size_t k = 0; k < B.values.size(); ++k) blk.values[blk.slot_of_csr[k]] = B.values[k];
  blk.values_changed(nullptr);
  const double e = product_error(blk, B.view(), 1.0);
  check(e <= 1e-13, "partitioned.values_changed." + tag, std::to_string(e));
}

template <class Fn>
bool throws(ErrorKind kind, const std::string &words, Fn &&fn, std::string &why)
{
  try {
    fn();
  } catch (const Error &e) {
    why = e.what();
    return e.kind == kind && why.find(words) != std::string::npos;
  }
  why = "no error";
  return false;
}

// gpuauto's settings with a model of two candidates (the H100's file with these names and
// coefficients), read from a file as -mat_gpuauto_model reads it.
layout::Settings two_candidate_settings(std::pair<std::string, std::array<double, model::kTerms>> a, std::pair<std::string, std::array<double, model::kTerms>> b)
{
  model::Model m = model::read_model("share/gpuformats/models/nvidia-h100-80gb-hbm3.json");
  m.candidates.resize(2);
  m.candidates[0].name = a.first, m.candidates[0].coef = a.second;
  m.candidates[1].name = b.first, m.candidates[1].coef = b.second;
  static int        made = 0;
  const std::string file = "/tmp/gpuformats_test_partitioned_" + std::to_string(::getpid()) + "_" + std::to_string(made++) + ".json";
  model::write_model(m, file);
  layout::Settings s(model::gpuauto_ops);
  s.set(0, {file});
  std::remove(file.c_str());
  return s;
}

} // namespace

int main()
{
  int                     nf  = 0;
  const FormatOps *const *fmt = all_formats(&nf);
  std::vector<const FormatOps *> kinds(fmt, fmt + nf);
  kinds.push_back(&cusparse_csr_ops);

  // unlike halves: a 2D stencil, then random rows of 3..40 entries
  const CsrMatrix J = generate_matrix("joined:first=stencil2d5,second=randrows,share=0.5,nnz=12000", 7);
  const int32_t   h = J.nrows / 2;
  for (const FormatOps *a : kinds)
    for (const FormatOps *b : kinds) {
      std::vector<partitioned::Part> parts{{0, h, a}, {h, J.nrows - h, b}};
      const std::string              tag = std::string(a->root) + "+" + b->root;
      try {
        auto blk = partitioned::build_host(J.view(), parts);
        check_block(*blk, J, tag);
      } catch (const Error &e) {
        // a format may refuse its part (PELLR's fill rule): named, with the part
        const std::string why = e.what();
        check(e.kind == ErrorKind::unsupported && a->may_refuse + b->may_refuse > 0 && why.find("partitioned: part ") != std::string::npos, "partitioned.refusal_named." + tag, why);
      }
    }

  // three parts, one-row parts, a single part, empty rows and an empty part's rows
  const CsrMatrix R = gftest::uniform_rows(97, 80, 0, 9, 3);
  for (auto [name, parts] : {std::pair<std::string, std::vector<partitioned::Part>>{"three", {{0, 30, &evchyb_ops}, {30, 40, &cusparse_csr_ops}, {70, 27, fmt[nf - 1]}}},
                             {"one_row_parts", {{0, 1, fmt[0]}, {1, 95, &cusparse_csr_ops}, {96, 1, fmt[1 % nf]}}},
                             {"single", {{0, 97, &evchyb_ops}}}}) {
    auto blk = partitioned::build_host(R.view(), parts);
    check_block(*blk, R, name);
    std::vector<LayoutStat> st;
    blk->describe(st);
    check(!st.empty() && st[0].key == "partition" && st.size() > parts.size(), "partitioned.describe." + name, st.empty() ? "" : st[0].value);
  }
  // at once where no part has streams of its own (the host backend runs them in turn either way)
  for (bool with_suraa : {false, true}) {
    const FormatOps *last = with_suraa ? find_format("suraa") : &cusparse_csr_ops;
    auto             blk  = partitioned::build_host(R.view(), {{0, 50, &evchyb_ops}, {50, 47, last}}, true);
    check_block(*blk, R, std::string("concurrent.") + last->root);
    std::vector<LayoutStat> st;
    blk->describe(st);
    const bool at_once = st[0].value.find("at once") != std::string::npos;
    check(at_once == !with_suraa && partitioned::extra_streams({{0, 50, &evchyb_ops}, {50, 47, last}}, true) == (with_suraa ? last->extra_streams : 1), std::string("partitioned.concurrent_when_no_part_streams.") + last->root, st[0].value);
  }
  const CsrMatrix Z = gftest::uniform_rows(40, 40, 0, 0, 1); // no entries at all
  {
    auto blk = partitioned::build_host(Z.view(), {{0, 20, &evchyb_ops}, {20, 20, &cusparse_csr_ops}});
    check(blk->nnz == 0 && product_error(*blk, Z.view(), 0.0) == 0, "partitioned.no_entries");
  }

  // the parts must cover the rows in order; a stencil-only layout refuses a random part, named
  std::string why;
  for (auto [name, parts] : {std::pair<std::string, std::vector<partitioned::Part>>{"gap", {{0, 30, &evchyb_ops}, {31, 66, &evchyb_ops}}},
                             {"overlap", {{0, 30, &evchyb_ops}, {29, 68, &evchyb_ops}}},
                             {"short", {{0, 30, &evchyb_ops}}},
                             {"empty_part", {{0, 0, &evchyb_ops}, {0, 97, &evchyb_ops}}},
                             {"no_format", {{0, 97, nullptr}}}})
    check(throws(ErrorKind::bad_input, "partitioned: part", [&] { partitioned::build_host(R.view(), parts); }, why) || throws(ErrorKind::bad_input, "must cover every row", [&] { partitioned::build_host(R.view(), parts); }, why), "partitioned.bad_parts." + name, why);
  check(throws(ErrorKind::unsupported, "part 1 (rows", [&] { partitioned::build_host(J.view(), {{0, h, &dia::ops}, {h, J.nrows - h, &dia::ops}}); }, why), "partitioned.part_refusal", why);

  // gpuauto with a model whose evchyb pays for a strip's longest row and whose cuSPARSE CSR pays
  // more per nonzero: its DP splits a stencil from long rows. force and auto under the margin build
  // the split; off and a margin above the predicted gain do not, and say why
  {
    const CsrMatrix      K = generate_matrix("joined:first=stencil3d7,second=longrows,share=0.5,nnz=60000", 5);
    layout::Settings     s = two_candidate_settings({"evchyb", {1e-7, 1e-10, 1e-11, 1e-9, 0, 0, 0, 0}}, {model::kCusparseCsr, {1e-7, 1e-10, 3e-11, 0, 0, 0, 0, 0}});
    std::vector<int64_t> params = default_params(model::gpuauto_ops);
    params[model::kAutoParamStripRows] = 256;
    check(s.set(2, {"force"}) && !s.set(2, {"force"}) && s.value(2) == "force", "partitioned.setting_force");
    check(throws(ErrorKind::bad_input, "auto, off or force", [&] { s.set(2, {"sometimes"}); }, why), "partitioned.setting_bad", why);
    const layout::Layout F = layout::build_host(K.view(), {&model::gpuauto_ops, params.data(), &s});
    const bool           split = F.report && F.report->partition.partitioned();
    std::string view;
    for (const std::string &l : F.view) view += l + " | ";
    check(split, "partitioned.dp_splits_unlike_halves", view);
    if (split) {
      check(F.report->partition_built && F.name.find("partition of") == 0 && F.ops == &model::gpuauto_ops, "partitioned.force_built", F.name);
      check(slots_hold(*F.fmt, K) && product_error(*F.fmt, K.view(), 1.0) <= 1e-13, "partitioned.force_product");
      bool said = false;
      for (const std::string &l : F.view) said = said || (l.find("partition: the DP predicts") != std::string::npos && l.find("built (the layout") != std::string::npos);
      check(said, "partitioned.force_view");
    }
    s.set(2, {"off"});
    const layout::Layout O = layout::build_host(K.view(), {&model::gpuauto_ops, params.data(), &s});
    check(O.report && !O.report->partition_built && (!split || O.report->partition_note.find("off") != std::string::npos) && O.name.find("partition") == std::string::npos, "partitioned.off", O.report ? O.report->partition_note : "");
    s.set(2, {"auto"});
    params[model::kAutoParamPartitionGainPct] = 1000;
    const layout::Layout M = layout::build_host(K.view(), {&model::gpuauto_ops, params.data(), &s});
    check(M.report && !M.report->partition_built && (!split || M.report->partition_note.find("below the 1000% margin") != std::string::npos), "partitioned.auto_below_margin", M.report ? M.report->partition_note : "");
    params[model::kAutoParamPartitionGainPct] = 0;
    const layout::Layout Y = layout::build_host(K.view(), {&model::gpuauto_ops, params.data(), &s});
    check(Y.report && Y.report->partition_built == split, "partitioned.auto_at_zero_margin", Y.name);
  }

  // The offset layout (DIA) as a model candidate: a 3D stencil beside random rows, with a model
  // whose DIA streams its slots at half evchyb's price. The DP takes DIA for the stencil strips
  // (none for the strip where the parts meet) and the product is AIJ's; with the stencil layout
  // off (-mat_gpuformats_stencil off) DIA is no candidate, for a part either.
  {
    const CsrMatrix      K = generate_matrix("joined:first=stencil3d7,second=randrows,share=0.6,nnz=200000", 9);
    layout::Settings     s = two_candidate_settings({"evchyb", {1e-7, 1e-10, 2e-11, 0, 0, 0, 0, 0}}, {dia::ops.root, {1e-7, 1e-10, 1e-11, 0, 0, 0, 0, 0}});
    std::vector<int64_t> params = default_params(model::gpuauto_ops);
    params[model::kAutoParamStripRows] = 1024;
    layout::Request      rq{&model::gpuauto_ops, params.data(), &s};
    const layout::Layout F = layout::build_host(K.view(), rq);
    std::string          parts;
    bool                 dia_part = false;
    if (F.report)
      for (const select::Block &b : F.report->partition.blocks) {
        parts += F.report->names[(size_t)b.format] + " ";
        dia_part = dia_part || F.report->names[(size_t)b.format] == dia::ops.root;
      }
    check(F.report && F.report->partition_built && dia_part && F.report->partition.blocks.size() >= 2, "partitioned.dia_part_chosen", parts + F.name);
    bool refuses = false; // the whole matrix is no stencil: DIA's prediction says so, not "inf"
    for (const std::string &l : F.view) refuses = refuses || (l.find("predicted us per product: evchyb ") != std::string::npos && l.find(", dia refuses") != std::string::npos);
    check(refuses, "partitioned.view_dia_refuses_the_whole");
    if (F.report && F.report->partition_built) {
      check(slots_hold(*F.fmt, K) && product_error(*F.fmt, K.view(), 1.0) <= 1e-13 && product_error(*F.fmt, K.view(), 0.0) <= 1e-13, "partitioned.dia_part_product");
      std::vector<LayoutStat> st;
      F.fmt->describe(st);
      bool timed = st.size() > 1;
      for (const LayoutStat &l : st)
        if (l.key.rfind("part ", 0) == 0 && l.key.find(' ', 5) == std::string::npos) timed = timed && l.value.find("predicted") != std::string::npos && l.value.find("measured") != std::string::npos;
      check(timed, "partitioned.view_predicted_and_measured", st.size() > 1 ? st[1].value : "");
      // a change of the values reaches the DIA part's arrays (values_changed)
      CsrMatrix K2 = K;
      for (size_t k = 0; k < K2.values.size(); ++k) K2.values[k] = 0.5 * K.values[k] + 0.001 * (double)(k % 13);
      for (size_t k = 0; k < K2.values.size(); ++k) F.fmt->values[F.fmt->slot_of_csr[k]] = K2.values[k];
      F.fmt->values_changed(nullptr);
      check(product_error(*F.fmt, K2.view(), 0.0) <= 1e-13, "partitioned.dia_part_values_changed");
    }
    rq.stencil_mode        = select::StencilMode::off;
    const layout::Layout O = layout::build_host(K.view(), rq);
    bool                 none = O.report != nullptr;
    if (O.report)
      for (const std::string &n : O.report->names) none = none && n != dia::ops.root;
    check(none, "partitioned.stencil_off_no_dia_candidate", O.name);
    // the strips' offset view is computed where DIA is a candidate, and skipped where it is not
    auto views = [](const layout::Layout &L) {
      int n = 0;
      if (L.report)
        for (const model::Strip &st : L.report->strips) n += st.ndiag >= 0;
      return n;
    };
    check(views(F) > 0 && O.report && !O.report->strips.empty() && views(O) == 0, "partitioned.offset_view_only_for_dia", std::to_string(views(F)) + " and " + std::to_string(views(O)) + " strips with an offset view");
  }
  return gftest::finish();
}
