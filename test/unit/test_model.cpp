// src/model/: the model file round trip and its refusals, the non-negative least-squares fit on
// synthetic timings with known coefficients, predictions that grow with the work, the lookup by
// GPU name, and the DP driven by the model's cost on a matrix whose halves favour different
// candidates. Host only.
#include "formats/format.hpp"
#include "model/model.hpp"
#include "select/partition.hpp"

#include "common/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace gpuformats;
using namespace gpuformats::model;
using gftest::check;

namespace {

Model sample_model()
{
  Model m;
  m.gpu                = "NVIDIA H100 80GB HBM3";
  m.sm_count           = 132;
  m.max_threads_per_sm = 2048;
  m.l2_bytes           = 52428800;
  m.strip_rows         = strip_rows_for(132, 2048);
  m.note               = "test \"quoted\" \\ note\nline 2";
  Candidate a;
  a.name          = "evchyb";
  a.coef          = {4.1e-6, 1.0 / 3e12, 1.0 / 7.0e11, 2.5e-9, 3.3e-11, 1.234567890123e-11};
  a.samples       = 48;
  a.rms_rel_error = 0.0712;
  a.max_rel_error = 0.31;
  Candidate b     = a;
  b.name          = kCusparseCsr;
  b.coef          = {3e-6, 0, 1.0 / 6.5e11, 0, 4e-11, 2e-11};
  m.candidates    = {a, b};
  return m;
}

bool same(const Model &x, const Model &y)
{
  if (x.version != y.version || x.gpu != y.gpu || x.sm_count != y.sm_count || x.max_threads_per_sm != y.max_threads_per_sm || x.l2_bytes != y.l2_bytes ||
      x.strip_rows != y.strip_rows || x.note != y.note || x.candidates.size() != y.candidates.size())
    return false;
  for (size_t i = 0; i < x.candidates.size(); ++i) {
    const Candidate &a = x.candidates[i], &b = y.candidates[i];
    if (a.name != b.name || a.coef != b.coef || a.samples != b.samples || a.rms_rel_error != b.rms_rel_error || a.max_rel_error != b.max_rel_error) return false;
  }
  return true;
}

// from_json must throw Error(bad_input) whose message holds `needle`.
void check_rejects(const std::string &tag, const std::string &text, const std::string &needle)
{
  try {
    from_json(text, "t.json");
    check(false, "model.file.rejects." + tag, "accepted");
  } catch (const Error &e) {
    const std::string what = e.what();
    check(e.kind == ErrorKind::bad_input && what.find(needle) != std::string::npos && what.find("t.json") != std::string::npos, "model.file.rejects." + tag, what);
  }
}

std::string replaced(std::string s, const std::string &from, const std::string &to)
{
  const size_t p = s.find(from);
  if (p == std::string::npos) return "<" + from + " not in the file>";
  return s.replace(p, from.size(), to);
}

Strip strip(int32_t rows, int64_t nnz, int32_t max_row, int64_t span, int64_t sectors)
{
  Strip s;
  s.f.rows = rows, s.f.nnz = nnz, s.f.max_row = max_row, s.f.col_span = span, s.x_sectors = sectors;
  return s;
}

// A strip the offset layout may hold: ndiag offsets (ascending) over rows rows, nnz entries.
Strip offset_strip(int32_t rows, int64_t nnz, std::vector<int32_t> offsets)
{
  Strip s = strip(rows, nnz, (int32_t)offsets.size(), rows, rows / 4);
  s.ndiag = (int32_t)offsets.size();
  std::copy(offsets.begin(), offsets.end(), s.offsets.begin());
  return s;
}

} // namespace

int main()
{
  // --- the offset layout's rule over strips (OffsetBlock), and its candidate's terms ---
  {
    const FormatOps *of = offset_shape_format();
    check(of && find_layout_format(of->root) == of && !find_format(of->root), "model.offsets.format_is_a_layout_only", of ? of->root : "none");
    const Strip five = offset_strip(1000, 4900, {-100, -1, 0, 1, 100}), three = offset_strip(1000, 2990, {-1, 0, 1}), sub = offset_strip(100, 299, {-1, 0, 1}), shifted = offset_strip(1000, 2990, {-2, 0, 2}),
                diag = offset_strip(1000, 1000, {0}), big = offset_strip(1000, 4900, {-101, -1, 0, 1, 101});
    Strip       random = strip(1000, 5000, 9, 100000, 5000); // ndiag -1
    auto diags = [](std::vector<Strip> v) { return block_diags(v.data(), (int)v.size()); };
    check(diags({five}) == 5 && diags({five, five, five}) == 5, "model.offsets.uniform_strips");
    check(diags({five, sub}) == 5 && diags({sub, five}) == 5, "model.offsets.subset_strip_either_side");
    check(diags({three, shifted}) == -1, "model.offsets.union_beyond_the_longest_row");
    check(diags({five, big}) == -1, "model.offsets.same_length_other_offsets");
    check(diags({five, random}) == -1 && diags({random}) == -1, "model.offsets.a_strip_off_its_offsets");
    // padding: 3 offsets over 2000 rows = 6000 slots for 3990 entries (50%) is above 15%
    check(diags({three, diag}) == -1 && diags({five, offset_strip(1000, 4400, {-100, -1, 0, 1})}) == 5, "model.offsets.padding_limit");
    Strip empty = strip(1000, 0, 0, 0, 0);
    empty.ndiag = 0;
    check(diags({empty}) == 0 && diags({empty, five}) == -1 && diags(std::vector<Strip>{five, five, five, five, five, five, five, five, five, five, empty}) == 5, "model.offsets.empty_strips", std::to_string(diags({empty, five})));
    // its candidate's nnz term is ndiag x rows; a refused block is predicted +inf
    Model mo;
    mo.gpu = "synthetic", mo.sm_count = 1, mo.max_threads_per_sm = 1000, mo.strip_rows = 1000, mo.l2_bytes = 1 << 20;
    Candidate c;
    c.name = of ? of->root : "dia";
    c.coef = {1e-6, 0, 1e-9, 0, 0, 0};
    mo.candidates = {c};
    const std::vector<Strip> ok{five, sub}, bad{three, shifted};
    check(std::fabs(predict(mo, 0, ok) - (1e-6 + 1e-9 * 5 * 1100)) < 1e-15 && std::isinf(predict(mo, 0, bad)), "model.offsets.predict_slots_or_inf", std::to_string(predict(mo, 0, ok)));
    // the fit leaves out the samples the rule refuses
    std::vector<Sample> smp;
    for (int k = 1; k <= 12; ++k) smp.push_back({std::vector<Strip>(k, five), 1e-6 + 1e-9 * 5000 * k});
    smp.push_back({bad, 1.0});
    const Candidate f = fit_candidate(c.name, smp, 1 << 20);
    check(f.samples == 12 && f.max_rel_error < 1e-6, "model.offsets.fit_skips_refused", std::to_string(f.samples) + " samples, max error " + std::to_string(f.max_rel_error));
  }
  // --- the file: round trip, bit for bit ---
  const Model m = sample_model();
  const std::string path = "/tmp/gpuformats_test_model_" + std::to_string(getpid()) + ".json";
  write_model(m, path);
  const Model r = read_model(path);
  check(same(m, r), "model.file.round_trip");
  check(same(from_json(to_json(r), "again"), m), "model.file.round_trip_twice");
  std::remove(path.c_str());
  check(same(from_json(to_json(default_model()), "default"), [] { Model d = default_model(); d.is_default = false; return d; }()), "model.file.default_round_trip");

  // --- bad files: each names what is wrong ---
  const std::string good = to_json(m);
  check_rejects("not_json", "{ \"kind\": ", "not valid JSON");
  check_rejects("trailing", good + "x", "expected end of input");
  check_rejects("top_array", "[1, 2]", "top level");
  check_rejects("kind", replaced(good, "gpuformats-spmv-model", "something-else"), "\"kind\"");
  const std::string version = "\"version\": " + std::to_string(kModelVersion);
  check_rejects("version", replaced(good, version, "\"version\": 3"), "version 3 is not the version this library reads");
  check_rejects("version_type", replaced(good, version, "\"version\": \"4\""), "\"version\" must be a number");
  check_rejects("missing_gpu", replaced(good, "\"gpu\":", "\"gpux\":"), "missing \"gpu\"");
  check_rejects("strip_rows", replaced(good, "\"strip_rows\": 270336", "\"strip_rows\": 1000"), "strip_rows");
  check_rejects("terms", replaced(good, "\"x_footprint\"", "\"x_other\""), "\"terms\"");
  check_rejects("coef_count", replaced(good, "\"coef\": [", "\"coef\": [1, "), "has 10 numbers");
  {
    std::string neg = good; // a minus sign before the first coefficient, wherever the writer breaks lines
    const size_t at = neg.find_first_of("0123456789", neg.find("\"coef\": ["));
    check_rejects("coef_negative", neg.insert(at, "-"), "must be a finite number >= 0");
  }
  check_rejects("no_candidates", good.substr(0, good.find("\"candidates\"")) + "\"candidates\": []}", "\"candidates\" is empty");
  {
    Model dup = m;
    dup.candidates[1].name = dup.candidates[0].name;
    check_rejects("duplicate", to_json(dup), "appears twice");
  }
  check_rejects("sm_count", replaced(good, "\"sm_count\": 132", "\"sm_count\": 13.5"), "\"sm_count\" must be an integer");
  try {
    read_model("/nonexistent/dir/x.json");
    check(false, "model.file.rejects.missing_file");
  } catch (const Error &e) {
    check(e.kind == ErrorKind::bad_input && std::string(e.what()).find("/nonexistent/dir/x.json") != std::string::npos, "model.file.rejects.missing_file", e.what());
  }

  // --- the fit: known coefficients back from noisy timings on strips like a calibration's ---
  {
    std::mt19937                      rng(20);
    std::normal_distribution<double>  noise(0.0, 0.01);
    const std::array<double, kTerms>  truth = {5e-6, 1e-11, 1.5e-12, 3e-9, 2e-11, 6e-12, 4e-12, 2e-11, 3e-12};
    const int32_t                     S     = strip_rows_for(132, 2048);
    const int64_t                     l2    = 50 << 20;
    std::vector<Sample>               samples;
    for (int I : {1, 2, 3, 5, 8})
      for (int P : {4, 16, 64})
        for (double spread : {1.0, 16.0, 1e3}) // x window: the strip's rows, 16x, 1000x
          for (int longrow : {1, 50}) {
            Sample s;
            // sectors: banded (a run per group), stencil-like, one per entry
            const int64_t nnz = (int64_t)S * P, sectors = spread == 1.0 ? S / 4 + S / 32 * P / 4 : spread == 16.0 ? nnz / 3 : nnz;
            // footprint: the strip's rows' worth of x (banded), a share of the sectors (clustered), all of them
            const int64_t footprint = spread == 1.0 ? S / 4 : spread == 16.0 ? sectors / (2 + P % 5) : sectors;
            for (int k = 0; k < I; ++k) {
              s.strips.push_back(strip(S, nnz, P * longrow, (int64_t)(S * spread), sectors));
              s.strips.back().x_footprint = footprint;
              // SURAA's lanes and warps: varied apart from the other terms
              s.strips.back().row_lanes  = (int64_t)((double)nnz * (1.0 + 0.1 * ((I + P + (int)spread) % 7)));
              s.strips.back().row_warps = (int64_t)S / 8 * (1 + (P / 4 + (spread == 16.0 ? 2 : 0) + (longrow == 50 ? 3 : 0)) % 5);
              // long rows' entries: none or a share of the strip's, varied apart from max_row
              s.strips.back().long_nnz = (int64_t)S * 4 * ((3 * I + P / 4 + (spread == 16.0 ? 1 : 0)) % 4);
            }
            s.seconds = 0;
            const auto t = block_terms(s.strips.data(), I, l2);
            for (int q = 0; q < kTerms; ++q) s.seconds += truth[q] * t[q];
            s.seconds *= 1 + noise(rng);
            samples.push_back(s);
          }
    const Candidate c = fit_candidate("suraa", samples, l2);
    bool            close = true;
    std::string     why;
    for (int q = 0; q < kTerms; ++q) {
      const double rel = std::fabs(c.coef[q] - truth[q]) / truth[q];
      if (rel > 0.1) close = false;
      why += std::string(term_name(q)) + " " + std::to_string(rel) + " ";
    }
    check(close, "model.fit.recovers_coefficients_1pct_noise", why);
    check(c.samples == (int)samples.size() && c.rms_rel_error > 0.003 && c.rms_rel_error < 0.02, "model.fit.residual_reflects_noise", std::to_string(c.rms_rel_error));
    check(c.max_rel_error >= c.rms_rel_error, "model.fit.max_at_least_rms");
    // SURAA's terms are fitted for SURAA alone: another candidate gets 0 there whatever the timings.
    const Candidate e = fit_candidate("evchyb", samples, l2);
    check(e.coef[6] == 0 && e.coef[7] == 0 && e.coef[2] > 0 && term_applies("suraa", 7) && !term_applies("evchyb", 6) && term_applies("evchyb", 5), "model.fit.suraa_terms_only_for_suraa",
          std::to_string(e.coef[6]) + " " + std::to_string(e.coef[7]));
    // long_nnz is every candidate's
    check(std::string(term_name(8)) == "long_nnz" && term_applies("evchyb", 8) && term_applies("suraa", 8) && e.coef[8] > 0, "model.fit.long_nnz_every_candidate", std::to_string(e.coef[8]));
    { // The terms 6-7 come from the one format that declares a valid RowCost, and carry its names.
      int                     n, declared = 0;
      bool                    valid = true;
      const FormatOps *const *all   = all_formats(&n);
      for (int i = 0; i < n; ++i)
        if (all[i]->row_cost) ++declared, valid = valid && row_cost_valid(*all[i]->row_cost);
      const FormatOps *f = row_cost_format();
      check(declared == 1 && valid && f && std::string(f->root) == "suraa" && std::string(term_name(6)) == "lane_slots" && std::string(term_name(7)) == "suraa_warps",
            "model.row_cost.one_valid_declaration", std::to_string(declared) + " declared");
    }

    // A term the timings do not contain comes out near 0 (within the 1% noise), never negative.
    std::array<double, kTerms> partial = truth;
    partial[3] = partial[5] = partial[6] = partial[7] = 0;
    for (Sample &s : samples) {
      const auto t = block_terms(s.strips.data(), (int)s.strips.size(), l2);
      s.seconds    = 0;
      for (int q = 0; q < kTerms; ++q) s.seconds += partial[q] * t[q];
      s.seconds *= 1 + noise(rng);
    }
    const Candidate p = fit_candidate("pellr", samples, l2);
    bool            nonneg = true;
    for (double v : p.coef) nonneg = nonneg && v >= 0;
    char buf[160];
    std::snprintf(buf, sizeof buf, "max_row %g scatter %g (truth %g %g) nonneg %d", p.coef[3], p.coef[5], truth[3], truth[5], (int)nonneg);
    check(nonneg && p.coef[3] < 0.05 * truth[3] && p.coef[5] < 0.05 * truth[5], "model.fit.absent_terms_zero_nonnegative", buf);
    check(std::fabs(p.coef[2] - truth[2]) / truth[2] < 0.1, "model.fit.absent_terms_keep_the_rest", std::to_string(p.coef[2]));

    // Plain least squares would give a negative coefficient here (y falls with the term): clamped.
    std::vector<std::array<double, kTerms>> X;
    std::vector<double>                     y, w;
    for (int k = 1; k <= 10; ++k) {
      std::array<double, kTerms> row{};
      row[0] = 1, row[2] = k;
      X.push_back(row), y.push_back(10.0 - k), w.push_back(1.0);
    }
    const auto f = fit_nonnegative(X, y, w);
    check(f[2] == 0 && std::fabs(f[0] - 4.5) < 1e-9, "model.fit.clamps_negative", std::to_string(f[0]) + " " + std::to_string(f[2]));
    try {
      fit_nonnegative(X, std::vector<double>(3, 1.0), w);
      check(false, "model.fit.rejects_size_mismatch");
    } catch (const Error &e) {
      check(e.kind == ErrorKind::bad_input, "model.fit.rejects_size_mismatch", e.what());
    }
  }

  // --- predictions grow with the work ---
  {
    const Strip base = strip(1000, 8000, 8, 1200, 400);
    const double                t0   = predict(m, 0, &base, 1);
    bool                        mono = true;
    std::string                 why;
    for (int k = 0; k < 5; ++k) {
      Strip more = base;
      if (k == 0) more.f.nnz *= 2;
      if (k == 1) more.f.rows *= 2;
      if (k == 2) more.f.max_row *= 10;
      if (k == 3) more.x_sectors *= 4;
      if (k == 4) more.x_footprint += 1000; // more of x from DRAM
      const double t = predict(m, 0, &more, 1);
      if (!(t > t0)) mono = false, why += "feature " + std::to_string(k) + " ";
    }
    check(mono, "model.predict.grows_with_each_feature", why);
    const std::vector<Strip> two = {base, base};
    check(std::fabs(predict(m, 0, two) - (2 * t0 - m.candidates[0].coef[0])) < 1e-15, "model.predict.strips_add_launch_once");
    // the terms are the features, summed (the footprint is the strip's own, the column span unused)
    Strip with_foot  = base;
    with_foot.x_footprint = 250;
    const auto t = block_terms(&with_foot, 1, m.l2_bytes);
    check(t[0] == 1 && t[1] == 1000 && t[2] == 8000 && t[3] == 8 && t[4] == 400 && t[5] == 250, "model.terms.values");
    Strip wide = with_foot;
    wide.f.col_span = (int64_t)1 << 40;
    check(block_terms(&wide, 1, m.l2_bytes) == t, "model.terms.span_unused");
  }

  // --- strips_of: the x sectors of a banded and of a scattered matrix ---
  {
    // 64 rows x 4096 columns, 8 entries a row: banded (columns i..i+7) and scattered (stride 512).
    CsrMatrix band, scat;
    band.nrows = scat.nrows = 64;
    band.ncols = scat.ncols = 4096;
    for (int i = 0; i < 64; ++i) {
      for (int k = 0; k < 8; ++k) {
        band.colidx.push_back(i + k), band.values.push_back(1);
        scat.colidx.push_back((k * 512 + i * 4) % 4096), scat.values.push_back(1);
      }
      std::sort(scat.colidx.end() - 8, scat.colidx.end());
      band.rowptr.push_back((int32_t)band.colidx.size()), scat.rowptr.push_back((int32_t)scat.colidx.size());
    }
    const std::vector<Strip> b = strips_of(band.view(), 40), sc = strips_of(scat.view(), 64);
    // banded: strip 0 rows 0..39 = groups 0..31 (cols 0..38: sectors 0..9) and 32..39 (cols 32..46:
    // 8..11); strip 1 rows 40..63 (cols 40..70: 10..17).
    check(b.size() == 2 && b[0].f.rows == 40 && b[0].x_sectors == 10 + 4 && b[1].x_sectors == 8 && b[0].f.nnz == 320 && b[0].f.col_span == 47,
          "model.strips.banded_sectors", b.size() == 2 ? std::to_string(b[0].x_sectors) + " " + std::to_string(b[1].x_sectors) : "");
    // scattered: every entry its own sector (column i*4 + k*512: distinct sectors i + 128 k).
    check(sc.size() == 1 && sc[0].x_sectors == 512 && sc[0].f.nnz == 512, "model.strips.scattered_sectors", sc.empty() ? "" : std::to_string(sc[0].x_sectors));
    // the footprint counts a sector once per strip: banded strip 0 cols 0..46 (sectors 0..11), strip 1
    // cols 40..70 (10..17); scattered: every sector once.
    check(b.size() == 2 && b[0].x_footprint == 12 && b[1].x_footprint == 8 && sc.size() == 1 && sc[0].x_footprint == 512, "model.strips.footprint",
          b.size() == 2 ? std::to_string(b[0].x_footprint) + " " + std::to_string(b[1].x_footprint) : "");
  }

  // --- names and lookup ---
  check(model_file_name("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3.json", "model.lookup.file_name", model_file_name("NVIDIA H100 80GB HBM3"));
  check(model_file_name("  NVIDIA H200 (x)  ") == "nvidia-h200-x.json", "model.lookup.file_name_trims");
  {
    const std::string dir = "/tmp/gpuformats_test_models_" + std::to_string(getpid());
    const std::string cmd = "mkdir -p " + dir;
    check(std::system(cmd.c_str()) == 0, "model.lookup.mkdir");
    write_model(m, dir + "/" + model_file_name(m.gpu));
    std::string found;
    check(same(find_model(m.gpu, {"/nonexistent", dir}, &found), m) && found == dir + "/" + model_file_name(m.gpu), "model.lookup.found_in_second_dir", found);
    try {
      find_model("Some Future GPU", {dir});
      check(false, "model.lookup.unknown_gpu_message");
    } catch (const Error &e) {
      const std::string w = e.what();
      check(e.kind == ErrorKind::unsupported && w.find("Some Future GPU") != std::string::npos && w.find("some-future-gpu.json") != std::string::npos &&
              w.find("gpuformats_calibrate") != std::string::npos,
            "model.lookup.unknown_gpu_message", w);
    }
    std::string msg;
    const Model d = model_or_default("Some Future GPU", {dir}, &msg);
    check(d.is_default && d.candidates.size() == 1 && d.candidates[0].name == kCusparseCsr && msg.find("gpuformats_calibrate") != std::string::npos, "model.lookup.default_is_cusparse", msg);
    const Model k = model_or_default(m.gpu, {dir}, &msg);
    check(!k.is_default && msg.empty(), "model.lookup.known_gpu_no_message");
    { // a broken file for a known GPU is an error, never the default in silence
      std::ofstream(dir + "/" + model_file_name(m.gpu)) << "{ broken";
      try {
        model_or_default(m.gpu, {dir}, &msg);
        check(false, "model.lookup.broken_file_is_error");
      } catch (const Error &e) {
        check(e.kind == ErrorKind::bad_input, "model.lookup.broken_file_is_error", e.what());
      }
    }
    std::system(("rm -rf " + dir).c_str());
    // the default model never splits (one candidate, a launch cost per block)
    std::vector<Strip>      strips(9, strip(1000, 5000, 9, 1000, 300));
    const select::Partition            p = select::partition_strips(9, dp_cost(default_model(), strips));
    check(p.blocks.size() == 1 && p.blocks[0].format == 0, "model.dp.default_never_splits");
  }

  // --- the committed models (share/gpuformats/models, found from bin/test/ as the library finds
  // them from bin/ or lib/): they read, and cover every registered format and cuSPARSE CSR ---
  for (const char *gpu : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const std::string tag = std::string("model.committed.") + model_file_name(gpu);
    try {
      const Model c = find_model(gpu, model_dirs());
      int         n;
      const FormatOps *const *all = all_formats(&n);
      bool                    every = find_candidate(c, kCusparseCsr) >= 0;
      for (int i = 0; i < n; ++i) every = every && find_candidate(c, all[i]->root) >= 0;
      check(c.gpu == gpu && every && c.strip_rows == strip_rows_for(c.sm_count, c.max_threads_per_sm), tag);
    } catch (const Error &e) {
      check(false, tag, e.what());
    }
  }

  // --- the DP with the model's cost: halves that favour different candidates ---
  {
    // "local": cheap stream, dear gathers (a sorted-ELL-like format on banded rows); "gather": a
    // dearer stream, cheap gathers. Strips 0..4 banded (span ~ rows), 5..9 scattered (span >> rows).
    Model two;
    two.gpu = "synthetic", two.sm_count = 1, two.max_threads_per_sm = 1000, two.strip_rows = 1000, two.l2_bytes = 1 << 20;
    Candidate local, gather;
    local.name  = "local";
    local.coef  = {1e-6, 1e-10, 1e-11, 0, 2e-10, 0};
    gather.name = "gather";
    gather.coef = {1e-6, 1e-10, 5e-11, 0, 1e-11, 0};
    two.candidates = {local, gather};
    std::vector<Strip> strips;
    for (int s = 0; s < 10; ++s) strips.push_back(s < 5 ? strip(1000, 20000, 20, 1010, 500) : strip(1000, 20000, 20, 100000, 20000));
    int                     calls = 0;
    auto                    cost  = dp_cost(two, strips);
    const select::Partition p     = select::partition_strips(10, [&](int i, int j, int *f) { ++calls; return cost(i, j, f); });
    check(p.blocks.size() == 2 && p.blocks[0].first_strip == 0 && p.blocks[0].last_strip == 4 && p.blocks[1].first_strip == 5 && p.blocks[1].last_strip == 9 && p.blocks[0].format == 0 &&
            p.blocks[1].format == 1,
          "model.dp.splits_between_halves", std::to_string(p.blocks.size()) + " blocks");
    check(calls == 55, "model.dp.one_prediction_per_block");
    // the callback's block cost equals predict() over the same strips
    int    f = -1;
    double worst = 0;
    for (int i = 0; i < 10; ++i)
      for (int j = i; j < 10; ++j) {
        const double c = cost(i, j, &f);
        const double d = std::min(predict(two, 0, strips.data() + i, j - i + 1), predict(two, 1, strips.data() + i, j - i + 1));
        worst          = std::max(worst, std::fabs(c - d) / d);
      }
    check(worst < 1e-12, "model.dp.cost_equals_predict", std::to_string(worst));
    // With the offset layout as a third candidate, cheap on its slots: stencil strips (0..3) take
    // it, the strip where the stencil meets the rest and those after do not; the cost still equals
    // predict() for every block, with the rule's refusals (asked in any order).
    {
      Model three = two;
      three.candidates[0].coef[0] = three.candidates[1].coef[0] = 1e-7;
      Candidate o;
      o.name = offset_shape_format()->root;
      o.coef = {1e-7, 1e-10, 1e-12, 0, 0, 0};
      three.candidates.push_back(o);
      std::vector<Strip> st = strips;
      for (int s = 0; s < 4; ++s) st[s] = offset_strip(1000, 5000, {-1000, -1, 0, 1, 1000});
      auto                    c3 = dp_cost(three, st);
      const select::Partition q  = select::partition_strips(10, c3);
      check(q.blocks.size() == 3 && q.blocks[0].last_strip == 3 && q.blocks[0].format == 2 && q.blocks[1].last_strip == 4 && q.blocks[1].format == 0 && q.blocks[2].format == 1,
            "model.dp.offset_layout_takes_the_stencil_strips", std::to_string(q.blocks.size()) + " blocks, first " + std::to_string(q.blocks[0].last_strip) + "/" + std::to_string(q.blocks[0].format) + ", then " + std::to_string(q.blocks.back().first_strip) + "/" + std::to_string(q.blocks.back().format));
      double w3 = 0;
      for (int j = 9; j >= 0; --j) // j descending: the callback's row cache recomputes
        for (int i = 0; i <= j; ++i) {
          double d = std::numeric_limits<double>::infinity();
          for (int k = 0; k < 3; ++k) d = std::min(d, predict(three, k, st.data() + i, j - i + 1));
          w3 = std::max(w3, std::fabs(c3(i, j, &f) - d) / d);
        }
      check(w3 < 1e-12, "model.dp.offset_cost_equals_predict", std::to_string(w3));
    }
    // With a launch cost larger than the gain, one block wins.
    two.candidates[0].coef[0] = two.candidates[1].coef[0] = 1.0;
    check(!select::partition_strips(10, dp_cost(two, strips)).partitioned(), "model.dp.launch_cost_prevents_split");
  }
  return gftest::finish();
}
