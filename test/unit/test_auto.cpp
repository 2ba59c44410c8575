// gpuauto's choice (src/model/auto.hpp) on the host backend: the candidates' layouts, the choice
// equal to the least prediction (the committed H100 and H200 models and a synthetic one), a refusal
// moving to the next candidate, the candidate list and its errors, the report (predictions, DP
// partition, strips), and products against the CSR reference. Host only.
#include "common/format_checks.hpp"
#include "formats/csr/csr.hpp"
#include "model/auto.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace gpuformats;
using namespace gpuformats::model;
using gftest::check;
using gftest::edge_case_matrices;
using gftest::NamedMatrix;
using gftest::real_matrices;

namespace {

// A model whose candidate `cheap` costs 1 per nonzero and every other 2 (so the choice is known).
std::shared_ptr<const Model> synthetic(const std::string &cheap, const std::vector<std::string> &names)
{
  Model m;
  m.gpu                = "synthetic";
  m.sm_count           = 1;
  m.max_threads_per_sm = 4096;
  m.strip_rows         = 4096;
  m.l2_bytes           = 1 << 20;
  for (const std::string &n : names) {
    Candidate c;
    c.name = n;
    c.coef = {1e-6, 0, n == cheap ? 1e-9 : 2e-9, 0, 0, 0};
    m.candidates.push_back(c);
  }
  return std::make_shared<const Model>(m);
}

const std::vector<std::string> kAll = {"evchyb", "pjds", "pellr", "suraa", kCusparseCsr};

// The block's product against the CSR reference (alpha 1.5, beta -0.5 and beta 0).
void check_products(const FormatBlock &blk, const CsrView &A, const std::string &name)
{
  const std::vector<double> x = gftest::test_vector(A.ncols, 7), y0 = gftest::test_vector(A.nrows, 8);
  for (double beta : {0.0, -0.5}) {
    std::vector<double> got = y0, want = y0;
    blk.spmv(1.5, x.data(), beta, got.data(), StreamSet{});
    csr_spmv_host(A, 1.5, x.data(), beta, want.data());
    std::string why;
    check(gftest::close_products(A, x, got, want, 1.5, beta, y0, why), name + ".product.beta" + std::to_string(beta), why);
  }
}

} // namespace

int main(int argc, char **argv)
{
  const std::string dir = argc > 1 ? argv[1] : "test/matrices";

  // every candidate name has a layout; nothing else does
  for (const std::string &n : kAll) check(candidate_ops(n) != nullptr, "candidate_ops." + n);
  check(candidate_ops("gpuauto") == nullptr && candidate_ops("bell") == nullptr && candidate_ops("") == nullptr, "candidate_ops.unknown");
  check(std::string(cusparse_csr_ops.root) == kCusparseCsr, "cusparse_csr.root");

  // the synthetic model picks its cheap candidate, on every edge case; the product is right
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(dir);
  ms.insert(ms.end(), real.begin(), real.end());
  for (const std::string &cheap : {std::string("pjds"), std::string(kCusparseCsr), std::string("evchyb")}) {
    for (const NamedMatrix &m : ms) {
      const CsrView A    = m.A.view();
      const std::string name = "synthetic_" + cheap + "." + m.name;
      AutoSettings s;
      s.model  = synthetic(cheap, kAll);
      s.source = "synthetic";
      AutoReport r;
      try {
        auto blk = build_auto_host(A, s, &r);
        check(r.chosen == (A.nnz ? cheap : kAll[0]), name + ".chosen", r.chosen); // no entries: a tie, the model's first
        check(r.names == kAll && r.predicted.size() == kAll.size(), name + ".predictions");
        check(r.model_source == "synthetic" && !r.features_on_device, name + ".report");
        int64_t nnz = 0;
        for (const Strip &st : r.strips) nnz += st.f.nnz;
        check(nnz == A.nnz && r.strip_rows == 4096 && (int)r.strips.size() == (A.nrows + 4095) / 4096, name + ".strips");
        check(!r.partition.partitioned() || A.nrows > 4096, name + ".partition"); // one strip cannot split
        check(blk->nnz == A.nnz && blk->nrows == A.nrows, name + ".shape");
        check_products(*blk, A, name);
      } catch (const Error &e) {
        check(false, name + ".build", e.what());
      }
    }
  }

  // a refusal (PELLR, padding beyond max_fill on one dense row) moves to the next prediction
  {
    const NamedMatrix *dense = nullptr;
    for (const NamedMatrix &m : ms)
      if (m.name == "one_dense_row") dense = &m;
    AutoSettings s;
    s.model = synthetic("pellr", {"pellr", "suraa", "evchyb"}); // suraa, evchyb tie: the earlier wins
    AutoReport r;
    auto       blk = build_auto_host(dense->A.view(), s, &r);
    check(r.chosen == "suraa" && r.refused.size() == 1 && r.refused[0].rfind("pellr: ", 0) == 0, "refusal.next", r.chosen);
    check_products(*blk, dense->A.view(), "refusal");
    // only PELLR allowed: its refusal is the error
    s.candidates = {"pellr"};
    bool refused = false;
    try {
      build_auto_host(dense->A.view(), s, nullptr);
    } catch (const Error &e) {
      refused = e.kind == ErrorKind::unsupported;
    }
    check(refused, "refusal.last_candidate_raises");
  }

  // the candidate list: a subset is kept in the model's order; an unknown name is an error naming it
  {
    const Model r = restrict_candidates(*synthetic("pjds", kAll), {kCusparseCsr, "pjds"});
    check(r.candidates.size() == 2 && r.candidates[0].name == "pjds" && r.candidates[1].name == kCusparseCsr, "restrict.order");
    std::string why;
    try {
      restrict_candidates(*synthetic("pjds", kAll), {"pjds", "csr5"});
    } catch (const Error &e) {
      why = e.what();
    }
    check(why.find("csr5") != std::string::npos && why.find("evchyb") != std::string::npos, "restrict.unknown", why);
    check(restrict_candidates(*synthetic("pjds", kAll), {}).candidates.size() == kAll.size(), "restrict.empty_is_all");
    AutoSettings s;
    s.model      = synthetic("evchyb", kAll);
    s.candidates = {"pjds", kCusparseCsr};
    AutoReport rep;
    build_auto_host(ms[10].A.view(), s, &rep);
    check(rep.chosen == "pjds" && rep.names.size() == 2, "restrict.chosen", rep.chosen);
  }

  // the committed models: the choice is the least prediction, and the predictions are predict()'s
  for (const char *file : {"share/gpuformats/models/nvidia-h100-80gb-hbm3.json", "share/gpuformats/models/nvidia-h200.json"}) {
    std::shared_ptr<const Model> m;
    try {
      m = model_from_file(file);
    } catch (const Error &e) {
      check(false, std::string("model_file.") + file, e.what());
      continue;
    }
    check(model_from_file(file) == m, std::string("model_file.cached.") + file);
    for (const NamedMatrix &nm : ms) {
      const CsrView A = nm.A.view();
      AutoSettings  s;
      s.model  = m;
      s.source = file;
      AutoReport r;
      auto       blk  = build_auto_host(A, s, &r);
      const std::string name = std::string(m->gpu) + "." + nm.name;
      const std::vector<Strip> strips = strips_of(A, m->strip_rows, sector_stride(A.nnz));
      bool   same = r.names.size() == m->candidates.size();
      double best = INFINITY;
      for (size_t c = 0; same && c < r.names.size(); ++c) {
        same = same && r.names[c] == m->candidates[c].name && r.predicted[c] == predict(*m, (int)c, strips);
        if (std::find_if(r.refused.begin(), r.refused.end(), [&](const std::string &w) { return w.rfind(r.names[c] + ": ", 0) == 0; }) == r.refused.end()) best = std::min(best, r.predicted[c]);
      }
      check(same, name + ".predictions");
      check(r.chosen_predicted == best, name + ".least_prediction", r.chosen);
      check_products(*blk, A, name);
    }
  }

  // strip_rows override: more strips, and a constructed matrix whose halves favour different
  // candidates makes the DP split (reported, not built: one layout per block)
  {
    // rows 0..4095: pjds cheap; rows 4096..8191: evchyb cheap (per-strip costs differ by half)
    Model m;
    m.gpu = "halves";
    m.sm_count = 1, m.max_threads_per_sm = 4096, m.strip_rows = 4096, m.l2_bytes = 1 << 20;
    Candidate a, b;
    a.name = "pjds", a.coef = {1e-7, 0, 1e-9, 0, 0, 0};         // per nonzero
    b.name = "evchyb", b.coef = {1e-7, 1e-8, 0, 0, 0, 0};       // per row
    m.candidates = {a, b};
    // first half: 1 entry per row (pjds 1e-9 x 4096 < evchyb 1e-8 x 4096); second: 40 per row
    CsrMatrix H = gftest::random_rows(8192, 8192, 3, [](std::mt19937_64 &, int32_t i) { return i < 4096 ? 1 : 40; });
    AutoSettings s;
    s.model = std::make_shared<const Model>(m);
    AutoReport r;
    auto       blk = build_auto_host(H.view(), s, &r);
    check(r.strips.size() == 2 && r.partition.partitioned() && r.partition.blocks.size() == 2, "halves.partitioned");
    check(r.partition.blocks.size() == 2 && r.names[r.partition.blocks[0].format] == "pjds" && r.names[r.partition.blocks[1].format] == "evchyb", "halves.formats");
    check(r.partition.time < r.partition.single.time, "halves.faster");
    check_products(*blk, H.view(), "halves");
    s.strip_rows = 1024;
    build_auto_host(H.view(), s, &r);
    check(r.strips.size() == 8 && r.strip_rows == 1024, "strip_rows_override");
  }
  return gftest::finish();
}
