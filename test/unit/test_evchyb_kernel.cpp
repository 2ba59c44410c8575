// EVC-HYB's product kernel emulated on the host: every block of the single launch, every thread of
// it, with the kernel's own band search, work mapping and row functions (evchyb_rows.cuh), over the
// host builder's arrays (identical to the cuda builder's: the GPU suite checks that). Catches a
// plan that leaves a row out, writes one twice or hands a thread the wrong slots, without a GPU.
#include "common/evchyb_variants.hpp"
#include "common/format_checks.hpp"
#include "formats/evchyb/evchyb.hpp"
#include "formats/evchyb/evchyb_rows.cuh"

#include <tuple>

using namespace gftest;
using namespace gpuformats::evchyb;

namespace {

struct Emulated {
  std::vector<double> y;
  std::vector<int>    writes; // per row
};

Emulated emulate(const HostBlock &b, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  const Shape         &sh = b.sh;
  const int32_t        B  = sh.prm.block_threads;
  std::vector<double>  partial(sh.nsplit_blocks);
  std::vector<int32_t> counter(sh.nsplit_blocks, 0);
  int32_t          grid;
  const KernelArgs a = make_kernel_args(sh, {b.vals.data(), b.colidx.data(), b.perm.data(), b.slice_ptr.data(), b.csr_row_start.data(), b.col16.data(), b.slice_col_base.data(), b.split.data(), partial.data(), counter.data(), b.col_hi16.data(), b.csr_col16.data(), b.csr_col_base.data()}, alpha, x.data(), beta, y.data(), grid);

  Emulated out;
  out.writes.assign(sh.nrows, 0);
  auto store = [&](int32_t row, double sum) {
    y[row] = beta == 0.0 ? alpha * sum : std::fma(beta, y[row], alpha * sum);
    ++out.writes[row];
  };
  auto store_empty = [&](int32_t row) {
    y[row] = beta == 0.0 ? 0.0 : beta * y[row];
    ++out.writes[row];
  };
  struct HostSink {
    decltype(store) &row_fn;
    decltype(store_empty) &empty_fn;
    void             row(int32_t out, double sum) { row_fn(out, sum); }
    void             empty(int32_t out) { empty_fn(out); }
  } sink{store, store_empty};
  const int32_t S = 1 << a.log2_slice;
  for (int32_t grid_blk = 0; grid_blk < grid; ++grid_blk) {
    const int32_t blk  = grid_blk + a.block_offset;
    const Band    band = a.bands[band_of_block(a, blk)];
    switch (band.kind) {
    case band_ell:
      for (int32_t tid = 0; tid < B; ++tid) {
        const int32_t warp = tid >> 5, lane = tid & 31;
        for (int32_t k = 0; k < band.param; ++k) {
          const int64_t e0 = ell_run_first(band, blk, B, warp, k);
          if (e0 >= band.end) break;
          const int32_t e = (int32_t)e0 + lane;
          if (e >= band.end) break;
          if (a.narrow) { // the kernel's own choice of row function
            if (S == 1) ell_lane<0, true>(a, e, sink);
            else if (S == 32) ell_lane<32, true>(a, e, sink);
            else ell_lane<1, true>(a, e, sink);
          } else {
            if (S == 1) ell_lane<0, false>(a, e, sink);
            else if (S == 32) ell_lane<32, false>(a, e, sink);
            else ell_lane<1, false>(a, e, sink);
          }
        }
      }
      break;
    case band_csr_team:
      for (int32_t tid = 0; tid < B; tid += band.param) {
        const int64_t c = csr_team_row(band, blk, B, tid);
        if (c >= band.end) continue;
        double sum = 0.0;
        for (int32_t t = 0; t < band.param; ++t) sum += a.csr_narrow ? csr_range<true>(a, (int32_t)c, a.csr_row_start[c], a.csr_row_start[c + 1], t, band.param) : csr_range<false>(a, (int32_t)c, a.csr_row_start[c], a.csr_row_start[c + 1], t, band.param);
        store(a.perm[a.csr_first + c], sum);
      }
      break;
    case band_csr_split: {
      const int32_t     j  = split_entry(band, blk);
      const SplitBlock &sb = a.split[j];
      int32_t           start, end;
      split_range(a, sb, start, end);
      double sum = 0.0;
      for (int32_t t = 0; t < B; ++t) sum += a.csr_narrow ? csr_range<true>(a, sb.row, start, end, t, band.param) : csr_range<false>(a, sb.row, start, end, t, band.param);
      partial[j] = sum;
      if (++counter[sb.first] == sb.nchunks) {
        double v = 0.0;
        for (int32_t i = 0; i < sb.nchunks; ++i) v += partial[sb.first + i];
        store(a.perm[a.csr_first + sb.row], v);
        counter[sb.first] = 0;
      }
      break;
    }
    default:
      for (int32_t tid = 0; tid < B; ++tid)
        for (int32_t k = 0; k < kEmptyRowsPerThread; ++k) {
          const int64_t pos = empty_row(band, blk, B, tid, k);
          if (pos < band.end) store_empty(a.perm[pos]);
        }
    }
  }
  for (int32_t c : counter) check(c == 0, "evchyb.emulate.split_counters_reset");
  out.y = y;
  return out;
}

void check_on(const std::vector<int64_t> &params, const std::string &tag, const NamedMatrix &m)
{
  const CsrView     A    = m.A.view();
  const std::string name = "evchyb_kernel" + tag + "." + m.name;
  std::unique_ptr<FormatBlock> fb;
  try {
    fb = evchyb_ops.build_host(A, params.data());
  } catch (const Error &e) {
    check_refusal(evchyb_ops, e, name + ".build", A, params.data()); // EVC-HYB declares none: a throw fails
    return;
  }
  const HostBlock          &b = static_cast<const HostBlock &>(*fb);
  const std::vector<double> x = test_vector(A.ncols, 5), y0 = test_vector(A.nrows, 6);
  for (const ProductCase &pc : product_cases()) {
    std::vector<double> want = y0;
    csr_spmv_host(A, pc.alpha, x.data(), pc.beta, want.data());
    const Emulated got = emulate(b, pc.alpha, x, pc.beta, pc.beta == 0.0 ? std::vector<double>(A.nrows, NAN) : y0);
    std::string    why;
    check(close_products(A, x, got.y, want, pc.alpha, pc.beta, y0, why), name + "." + pc.name, why);
    bool once = true;
    for (int32_t i = 0; i < A.nrows; ++i)
      once = once && got.writes[i] == (pc.beta == 1.0 && A.row_length(i) == 0 ? 0 : 1);
    check(once, name + "." + pc.name + ".each_row_written_once");
  }
  // Empty rows give 0 even where x holds Inf: their padding (in a slice shared with longer rows)
  // reads x[0], and 0.0 * Inf is NaN unless the lane discards its sum.
  if (b.sh.ell_empty && A.ncols) {
    std::vector<double> xi = x;
    xi[0]                  = INFINITY;
    const Emulated got     = emulate(b, 1.0, xi, 0.0, std::vector<double>(A.nrows, NAN));
    bool           zero    = true;
    for (int32_t i = 0; i < A.nrows; ++i) zero = zero && (A.row_length(i) || got.y[i] == 0.0);
    check(zero, name + ".empty_rows_ignore_inf_in_x");
  }
  // The windowed layout: windows in order, even windows' ELL rows in ascending length, odd ones'
  // in descending length; empty rows among them, marked ~row, and only they.
  auto row_of = [](int32_t p) { return p < 0 ? ~p : p; };
  bool marks = true;
  for (int32_t e = 0; e < b.sh.nrows; ++e)
    marks = marks && (b.perm[e] < 0) == (b.sh.window > 0 && e >= b.sh.ell_first && e < b.sh.csr_first && A.row_length(row_of(b.perm[e])) == 0);
  check(marks, name + ".empty_rows_marked");
  check(b.sh.window > 0 ? b.sh.nempty == 0 && b.sh.ell_empty == (int32_t)std::count_if(b.perm.begin(), b.perm.end(), [](int32_t p) { return p < 0; }) : b.sh.ell_empty == 0, name + ".empty_rows_counted");
  if (b.sh.window > 0)
    for (int32_t e = b.sh.ell_first + 1; e < b.sh.csr_first; ++e) {
      const int32_t p = row_of(b.perm[e - 1]), q = row_of(b.perm[e]), wp = p / b.sh.window, wq = q / b.sh.window;
      const bool    up = A.row_length(p) <= A.row_length(q), down = A.row_length(p) >= A.row_length(q);
      if (wp > wq || (wp == wq && !((wp & 1) ? down : up))) {
        check(false, name + ".window_order", "at position " + std::to_string(e));
        break;
      }
    }
}

} // namespace

int main(int argc, char **argv)
{
  const std::string        dir = argc > 1 ? argv[1] : "test/matrices";
  std::vector<NamedMatrix> ms  = edge_case_matrices(true), real = real_matrices(dir);
  ms.insert(ms.end(), real.begin(), real.end());
  const std::vector<int64_t> def = default_params(evchyb_ops);
  const std::vector<ParamVariant> variants = evchyb_variants(def);
  for (const ParamVariant &v : variants)
    for (const NamedMatrix &m : ms) check_on(with_variant(def, v), v.tag, m);
  // Auto refusing every window (kAutoWindows): one row of 128 entries per 8192 rows, the rest empty.
  // Every window pads its long rows' slices with empty rows, while the global layout carries the
  // few long rows to the vCSR part; the builder must then restore the global order and lengths.
  {
    const NamedMatrix sparse_long{"one_long_row_per_8192", random_rows(140000, 140000, 23, [](std::mt19937_64 &, int32_t i) { return i % 8192 == 0 ? 128 : 0; })};
    const auto        fb = evchyb_ops.build_host(sparse_long.A.view(), def.data());
    const Shape      &sh = static_cast<const HostBlock &>(*fb).sh;
    check(sh.auto_window && sh.window == 0 && sh.auto_tried.size() == std::size(kAutoWindows), "evchyb_kernel.auto_refuses_every_window", std::to_string(sh.window));
    check_on(def, "[auto_all_refused]", sparse_long);
  }
  // Narrow columns: chosen exactly when every slice spans at most kNarrowSpan columns. Rows of two
  // entries {i, i + d}: one slice of 32 rows spans 31 + d columns. The product runs the narrow
  // kernel path (emulated) on both sides of the limit, and with slices of 1 and 4 rows.
  for (int32_t d : {1000, kNarrowSpan - 31, kNarrowSpan - 30}) {
    const NamedMatrix m{"span_" + std::to_string(31 + d), two_diagonals(32 * 40, d)};
    const auto  fb = evchyb_ops.build_host(m.A.view(), def.data());
    const auto &hb = static_cast<const HostBlock &>(*fb);
    check(hb.sh.widest_span == 31 + d && hb.sh.narrow == (31 + d <= kNarrowSpan), "evchyb_kernel.narrow_decision." + m.name, std::to_string(hb.sh.widest_span));
    check(!hb.sh.narrow || (hb.col16.size() == (size_t)hb.sh.ell_slots && hb.colidx.size() == (size_t)(hb.sh.nslots - hb.sh.csr_base)), "evchyb_kernel.narrow_arrays." + m.name);
    for (const ParamVariant &v : variants)
      if (v.param == 1 || v.param == 4 || !v.tag[0]) check_on(with_variant(def, v), v.tag, m);
  }
  // Narrow columns per slice: an eighth of the 32-row slices too wide keeps the narrow layout with
  // those slices split into 16-bit halves (the product runs both row functions; narrow_mixed is
  // also an edge case of every suite); fitting slices holding three quarters of the slots (below kNarrowMinShare) stay 32-bit.
  const std::vector<std::tuple<std::string, CsrMatrix, bool>> per_slice = {{"narrow_mixed", two_diagonals_mixed(32 * 40, 100, 70000, 8), true}, {"narrow_minority", two_diagonals_mixed(32 * 40, 100, 70000, 4), false}};
  for (const auto &[name, A, narrow] : per_slice) {
    const auto   fb = evchyb_ops.build_host(A.view(), def.data());
    const auto  &hb = static_cast<const HostBlock &>(*fb);
    const Shape &sh = hb.sh;
    check(sh.narrow == narrow && (!narrow || (sh.split_slots > 0 && sh.fitting_slots == 7 * sh.split_slots && hb.col_hi16.size() == hb.col16.size())), "evchyb_kernel.narrow_per_slice." + name,
          "narrow " + std::to_string(sh.narrow) + ", fitting " + std::to_string(sh.fitting_slots) + ", split " + std::to_string(sh.split_slots));
    for (const ParamVariant &v : variants)
      if (v.param == 1 || v.param == 4 || !v.tag[0]) check_on(with_variant(def, v), v.tag, {name, A});
  }
  // The bytes of a narrow layout: 2 per ELL column instead of 4, plus a base per slice; a split
  // slice's columns cost what they cost in the 32-bit layout.
  {
    const CsrMatrix      A   = two_diagonals_mixed(32 * 40, 100, 70000, 8);
    std::vector<int64_t> off = def;
    off[param_narrow_columns] = 0;
    const auto   fn = evchyb_ops.build_host(A.view(), def.data()), fw = evchyb_ops.build_host(A.view(), off.data());
    const Shape &sn = static_cast<const HostBlock &>(*fn).sh;
    check(sn.narrow && fw->bytes() - fn->bytes() == (size_t)sn.fitting_slots * 2 - (size_t)sn.nslices * 4, "evchyb_kernel.narrow_bytes_split", std::to_string(fw->bytes()) + " vs " + std::to_string(fn->bytes()));
  }
  {
    const NamedMatrix m{"stencil7_12", stencil7(12)};
    std::vector<int64_t> off = def;
    off[param_narrow_columns] = 0;
    const auto fn = evchyb_ops.build_host(m.A.view(), def.data()), fw = evchyb_ops.build_host(m.A.view(), off.data());
    const Shape &sn = static_cast<const HostBlock &>(*fn).sh, &sw = static_cast<const HostBlock &>(*fw).sh;
    check(sn.narrow && !sw.narrow && fw->bytes() - fn->bytes() == (size_t)sn.ell_slots * 2 - (size_t)sn.nslices * 4, "evchyb_kernel.narrow_bytes", std::to_string(fw->bytes()) + " vs " + std::to_string(fn->bytes()));
  }
  // vCSR narrow columns: rows longer than ell_max_row whose columns all lie within kNarrowSpan of
  // the row's smallest take 16-bit offsets (the emulated team and split bands read them: the
  // edge cases long_rows_gt128 and mixed_1_to_600 above); one row spanning more keeps the part
  // 32-bit; the bytes drop by 2 per vCSR slot and grow by a base per vCSR row.
  {
    std::vector<int64_t> off = def;
    off[param_narrow_columns] = 0;
    for (const NamedMatrix &m : ms) {
      if (m.name != "long_rows_gt128" && m.name != "one_dense_row" && m.name != "mixed_1_to_600") continue;
      const auto   fn = evchyb_ops.build_host(m.A.view(), def.data()), fw = evchyb_ops.build_host(m.A.view(), off.data());
      const auto  &hn = static_cast<const HostBlock &>(*fn);
      const Shape &sn = hn.sh;
      const bool   want = m.name != "one_dense_row"; // its dense row spans 99999 columns
      check(sn.csr_rows > 0 && sn.csr_narrow == want && (!want || (hn.csr_col16.size() == (size_t)(sn.nslots - sn.csr_base) && hn.csr_col_base.size() == (size_t)sn.csr_rows)), "evchyb_kernel.csr_narrow_decision." + m.name,
            std::to_string(sn.csr_widest_span));
      const size_t saved = sn.csr_narrow ? (size_t)(sn.nslots - sn.csr_base) * 2 - (size_t)sn.csr_rows * 4 : 0;
      const size_t ell_saved = sn.narrow ? (size_t)(sn.ell_slots - sn.split_slots) * 2 - (size_t)sn.nslices * 4 : 0;
      check(fw->bytes() - fn->bytes() == saved + ell_saved, "evchyb_kernel.csr_narrow_bytes." + m.name, std::to_string(fw->bytes()) + " vs " + std::to_string(fn->bytes()));
    }
  }
  // Windowed with tiny slices and windows on the mixed shapes.
  for (const NamedMatrix &m : ms)
    if (m.name == "mixed_1_to_600" || m.name == "empty_rows_mixed" || m.name == "powerlaw") check_on({def[param_ell_max_row], 2, 64, 7, def[param_narrow_columns]}, "[slice_rows=2,sort_window=7]", m);
  return gftest::finish();
}
