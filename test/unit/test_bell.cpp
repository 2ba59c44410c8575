// BELL's host layer (src/formats/bell/bell.hpp) against the CSR oracle:
//   block_dense   true on block matrices (generated blocks5 and hand-made: chain, 3D stencil,
//                 empty block rows, one long block row, explicit zeros, rectangular, 1 block, 0x0)
//                 for bs = 1..8; false, with the reason, and build_host refusing with Error, for a
//                 missing entry, a block held by some rows only, sizes not multiples of bs, a
//                 scalar 5-point stencil at bs = 2
//   layout        perm / slice_ptr / widths / padding block columns, the slot map (check_slot_map)
//   product       y = A x (y full of NaN), y += A x, y = a A x + b y; empty block rows ignore x;
//                 after a values-only refresh again; diagonal and point-block diagonal
//   bytes         fewer than CSR's for bs >= 2 (B/nnz of the 3D block stencils in the names)
//   bs = 1        every real matrix in test/matrices (argv[1]) and the edge cases: plain ELL
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "common/block_matrices.hpp"
#include "core/text.hpp"
#include "formats/bell/bell.hpp"
#include "matgen/generators.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;

// Dense bs x bs blocks at the block columns pattern(br) returns (sorted, distinct), random values
// (a block (br, br) gets a dominant diagonal), explicit zeros where zero_every divides the entry.
static CsrMatrix block_matrix(int32_t nbrows, int32_t nbcols, int32_t bs, uint64_t seed, const std::function<std::vector<int32_t>(int32_t)> &pattern, int zero_every = 0)
{
  std::mt19937_64                        rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  CsrMatrix                              A;
  A.nrows = nbrows * bs;
  A.ncols = nbcols * bs;
  for (int32_t br = 0; br < nbrows; ++br) {
    const std::vector<int32_t> bcols = pattern(br);
    for (int32_t a = 0; a < bs; ++a) {
      for (int32_t bc : bcols)
        for (int32_t b = 0; b < bs; ++b) {
          A.colidx.push_back(bc * bs + b);
          const bool zero = zero_every && A.values.size() % zero_every == 0;
          A.values.push_back(zero ? 0.0 : bc == br && a == b ? 10.0 + val(rng) : val(rng));
        }
      A.rowptr.push_back((int32_t)A.colidx.size());
    }
  }
  return A;
}

static CsrMatrix chain(int32_t nb, int32_t bs)
{
  return block_matrix(nb, nb, bs, 11, [=](int32_t br) {
    std::vector<int32_t> c;
    for (int32_t d = -1; d <= 1; ++d)
      if (br + d >= 0 && br + d < nb) c.push_back(br + d);
    return c;
  });
}

// 7-point stencil on an n^3 grid of points, bs unknowns per point.
static CsrMatrix stencil3d(int32_t n, int32_t bs)
{
  return block_matrix(n * n * n, n * n * n, bs, 12, [=](int32_t br) {
    const int32_t x = br % n, y = br / n % n, z = br / (n * n);
    std::vector<int32_t> c;
    if (z > 0) c.push_back(br - n * n);
    if (y > 0) c.push_back(br - n);
    if (x > 0) c.push_back(br - 1);
    c.push_back(br);
    if (x < n - 1) c.push_back(br + 1);
    if (y < n - 1) c.push_back(br + n);
    if (z < n - 1) c.push_back(br + n * n);
    return c;
  });
}

// Block row br: blocks {br - 2 .. br} minus a few; every third block row empty; block row `dense`
// holds every block column (0 for none).
static CsrMatrix irregular(int32_t nb, int32_t bs, bool empties, int32_t dense)
{
  return block_matrix(nb, nb, bs, 13, [=](int32_t br) {
    std::vector<int32_t> c;
    if (empties && br % 3 == 1) return c;
    if (dense && br == dense) {
      for (int32_t j = 0; j < nb; ++j) c.push_back(j);
      return c;
    }
    for (int32_t d = -2; d <= 0; ++d)
      if (br + d >= 0 && (br + d) % 4 != 3) c.push_back(br + d);
    return c;
  });
}

struct Case {
  std::string name;
  CsrMatrix   A;
  int32_t     bs;
  bool        padded = false; // a long block row pads its slice: no byte saving expected
};

static std::vector<Case> block_cases()
{
  std::vector<Case> cs;
  for (int32_t bs = 1; bs <= bell::kMaxBlockSize; ++bs) {
    const std::string b = "_bs" + std::to_string(bs);
    cs.push_back({"blocks5" + b, generate_matrix("blocks5:n=" + std::to_string(600 * bs) + ",bs=" + std::to_string(bs), 1 + bs), bs});
    cs.push_back({"blocks5_wide" + b, generate_matrix("blocks5:n=" + std::to_string(300 * bs) + ",bs=" + std::to_string(bs) + ",minb=1,maxb=30", 20 + bs), bs});
    cs.push_back({"chain" + b, chain(50, bs), bs});
    cs.push_back({"stencil3d_4" + b, stencil3d(4, bs), bs});
    cs.push_back({"empty_brows" + b, irregular(70, bs, true, 0), bs});
    cs.push_back({"long_brow" + b, irregular(90, bs, false, 37), bs, true});
    cs.push_back({"explicit_zeros" + b, block_matrix(40, 40, bs, 14, [](int32_t br) { return std::vector<int32_t>{br}; }, 3), bs});
    cs.push_back({"rect_30x7" + b, block_matrix(30, 7, bs, 15, [](int32_t br) {
                    const int32_t c0 = br % 7, c1 = (br * 3 + 2) % 7 == c0 ? (c0 + 1) % 7 : (br * 3 + 2) % 7;
                    return std::vector<int32_t>{std::min(c0, c1), std::max(c0, c1)};
                  }),
                  bs});
    cs.push_back({"one_block" + b, block_matrix(1, 1, bs, 16, [](int32_t) { return std::vector<int32_t>{0}; }), bs});
    cs.push_back({"all_empty" + b, block_matrix(5, 5, bs, 17, [](int32_t) { return std::vector<int32_t>{}; }), bs});
    cs.push_back({"0x0" + b, CsrMatrix{}, bs});
  }
  return cs;
}

// perm, slice_ptr, widths and the padding blocks as bell.hpp says.
static bool check_invariants(const CsrView &A, const bell::Layout &L, std::string &why)
{
  const int32_t bs = L.bs;
  if (L.nbrows * bs != A.nrows || L.nbcols * bs != A.ncols || L.nnz != A.nnz) return why = "shape", false;
  if ((int32_t)L.perm.size() != L.nbrows || (int32_t)L.slice_ptr.size() != L.nslices + 1 || (int32_t)L.widths.size() != L.nslices) return why = "array sizes", false;
  if ((int64_t)L.block_col.size() != L.nslots || (int64_t)L.values.size() != L.nslots * bs * bs || L.slice_ptr[L.nslices] != L.nslots) return why = "slot counts", false;
  if (L.slice < 1 || L.window % L.slice) return why = "window " + std::to_string(L.window) + " not a multiple of the slice " + std::to_string(L.slice), false;
  if (L.nslices != (L.nbrows + L.slice - 1) / L.slice) return why = "slices", false;
  std::vector<char> seen(L.nbrows, 0);
  int32_t           empty = 0;
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    if (L.slice_ptr[s + 1] - L.slice_ptr[s] != L.widths[s] * h) return why = "slice " + std::to_string(s) + " size", false;
    int32_t widest = 0;
    for (int32_t r = 0; r < h; ++r) {
      const int32_t pr = L.perm[s * L.slice + r], br = pr < 0 ? ~pr : pr;
      if (br >= L.nbrows || seen[br]++) return why = "perm is no permutation at " + std::to_string(s * L.slice + r), false;
      const int32_t n = A.row_length(br * bs) / bs;
      if ((n == 0) != (pr < 0)) return why = "block row " + std::to_string(br) + ": empty iff ~br", false;
      empty += n == 0;
      widest = std::max(widest, n);
      for (int32_t j = 0; j < L.widths[s]; ++j) {
        const int32_t slot = L.slice_ptr[s] + j * h + r, bc = L.block_col[slot];
        const int32_t want = n == 0 ? 0 : A.colidx[A.rowptr[br * bs] + std::min(j, n - 1) * bs] / bs;
        if (bc != want) return why = "block column of slot " + std::to_string(slot) + ": " + std::to_string(bc) + " want " + std::to_string(want), false;
      }
    }
    if (widest != L.widths[s]) return why = "width of slice " + std::to_string(s), false;
  }
  if (empty != L.empty_brows) return why = "empty block rows", false;
  // Sorted longest first inside each window.
  for (int32_t p = 1; p < L.nbrows; ++p) {
    const int32_t a = L.perm[p - 1] < 0 ? ~L.perm[p - 1] : L.perm[p - 1], b = L.perm[p] < 0 ? ~L.perm[p] : L.perm[p];
    const bool    same_window = L.window == 0 || a / L.window == b / L.window;
    if (same_window && A.row_length(a * bs) < A.row_length(b * bs)) return why = "not sorted at position " + std::to_string(p), false;
    if (L.window && a / L.window > b / L.window) return why = "windows out of order at position " + std::to_string(p), false;
  }
  return true;
}

static std::vector<double> csr_diagonal(const CsrView &A)
{
  std::vector<double>        d(A.nrows, 0.0);
  const std::vector<int32_t> pos = diagonal_positions(A);
  for (int32_t i = 0; i < A.nrows; ++i)
    if (pos[i] >= 0) d[i] = A.values[pos[i]];
  return d;
}

static std::vector<double> run_product(const bell::Layout &L, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  bell::spmv_host(L, alpha, x.data(), beta, y.data());
  return y;
}

// Everything the host layer promises, on one block-dense matrix. Returns the layout (for bytes).
static bell::Layout check_matrix(const std::string &name, const CsrMatrix &M, int32_t bs, const bell::Options &opt = {}, bool padded = false)
{
  const CsrView A = M.view();
  std::string   why;
  check(bell::block_dense(A, bs, &why), name + ".block_dense", why);
  bell::Layout L;
  try {
    L = bell::build_host(A, bs, opt);
  } catch (const Error &e) {
    check(false, name + ".built", e.what());
    return L;
  }
  check(check_invariants(A, L, why), name + ".invariants", why);
  check(check_slot_map(A, L.values, L.slot_of_csr, why), name + ".slots", why);
  check_emulated_products(name, A, [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) { return run_product(L, alpha, x, beta, std::move(y)); });
  check(empty_rows_ignore_x(A, [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) { return run_product(L, alpha, x, beta, std::move(y)); }, why), name + ".empty_rows_ignore_x", why);

  // Values-only refresh: new values, same pattern; products, diagonals of the new values.
  CsrMatrix B = M;
  for (size_t k = 0; k < B.values.size(); ++k) B.values[k] = 0.25 * B.values[k] + 0.001 * (double)(k % 17);
  bell::refresh_values(L, B.values.data());
  check(check_slot_map(B.view(), L.values, L.slot_of_csr, why), name + ".refresh.slots", why);
  check_emulated_products(name + ".refresh", B.view(), [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) { return run_product(L, alpha, x, beta, std::move(y)); });
  std::vector<double> d(A.nrows, NAN), pbd((size_t)A.nrows * bs, NAN);
  bell::diagonal_host(L, d.data());
  bell::point_block_diagonal_host(L, pbd.data());
  check(d == csr_diagonal(B.view()), name + ".diagonal");
  check(pbd == csr_block_diagonal(B.view(), bs), name + ".point_block_diagonal");

  if (bs >= 2 && A.nnz > 0) {
    const double csr = csr_bytes(A.nnz, A.nrows) + 8.0 * (A.nrows + A.ncols);
    if (!padded && (opt.window == 0 || opt.window >= bell::kWindow)) // (windows of one slice pad their empty block rows)
      check((double)bell::bytes(L) < csr && (double)bell::stored_bytes(L) < csr_bytes(A.nnz, A.nrows), name + ".bytes_below_csr", std::to_string(bell::bytes(L)) + " vs CSR " + std::to_string(csr));
    else if (padded) { // the long block row pads only its own slice
      const int32_t widest = *std::max_element(L.widths.begin(), L.widths.end());
      check(L.nslots - L.nblocks <= (int64_t)(L.slice - 1) * widest + 2 * L.nbrows, name + ".padding_confined", std::to_string(L.nslots - L.nblocks) + " padding blocks");
    }
  }
  return L;
}

// A matrix that is not block-dense: block_dense false with a reason holding `expect`, and
// build_host refusing with Error(unsupported) whose message carries the reason and kFitsHint.
static void check_refused(const std::string &name, const CsrMatrix &M, int32_t bs, const std::string &expect)
{
  std::string why;
  const bool  dense = bell::block_dense(M.view(), bs, &why);
  check(!dense && why.find(expect) != std::string::npos, name + ".not_block_dense", why + " (expected '" + expect + "')");
  try {
    bell::build_host(M.view(), bs);
    check(false, name + ".refused", "built");
  } catch (const Error &e) {
    const std::string msg = e.what();
    check(e.kind == ErrorKind::unsupported && msg.find(why) != std::string::npos && msg.find(kFitsHint) != std::string::npos, name + ".refused", msg);
  }
}

// The example drawn in bell.hpp (bs = 2, S = 2), array by array; values 1..24 in CSR order.
static void check_drawn_example()
{
  CsrMatrix M;
  M.nrows = M.ncols = 6;
  M.rowptr = {0, 4, 8, 14, 20, 22, 24};
  M.colidx = {0, 1, 4, 5, 0, 1, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 4, 5, 4, 5};
  for (int v = 1; v <= 24; ++v) M.values.push_back(v);
  const bell::Layout L = bell::build_host(M.view(), 2, {bell::kWindow, 2});
  const std::vector<double> values = {9, 15, 1, 5, 10, 16, 2, 6, 11, 17, 3, 7, 12, 18, 4, 8, 13, 19, 0, 0, 14, 20, 0, 0, 21, 23, 22, 24};
  const std::vector<int32_t> slots01(L.slot_of_csr.begin(), L.slot_of_csr.begin() + 8);
  check(L.perm == std::vector<int32_t>{1, 0, 2} && L.slice_ptr == std::vector<int32_t>{0, 6, 7} && L.widths == std::vector<int32_t>{3, 1} && L.block_col == std::vector<int32_t>{0, 0, 1, 2, 2, 2, 2} && L.values == values &&
          slots01 == std::vector<int32_t>{2, 6, 10, 14, 3, 7, 11, 15},
        "bell.drawn_example");
}

int main(int argc, char **argv)
{
  check_drawn_example();
  for (const Case &c : block_cases()) check_matrix("bell." + c.name, c.A, c.bs, {}, c.padded);

  // Options: one global sort, small windows, one block row per slice, odd slice heights.
  for (int32_t bs : {2, 3, 5})
    for (bell::Options o : {bell::Options{0, 0}, bell::Options{3, 0}, bell::Options{7, 1}, bell::Options{1024, 7}}) {
      const std::string tag = ".w" + std::to_string(o.window) + "_s" + std::to_string(o.slice);
      check_matrix("bell.empty_brows_bs" + std::to_string(bs) + tag, irregular(70, bs, true, 0), bs, o);
      check_matrix("bell.blocks5_bs" + std::to_string(bs) + tag, generate_matrix("blocks5:n=" + std::to_string(400 * bs) + ",bs=" + std::to_string(bs) + ",minb=1,maxb=20", 3), bs, o);
    }
  // A bs = 4 matrix is bs = 2 block-dense too.
  check_matrix("bell.stencil3d_4_bs4_as_bs2", stencil3d(4, 4), 2);

  // The byte saving of a 3D block stencil (20^3 points), per nonzero, against CSR's.
  for (int32_t bs : {2, 3, 4, 5, 8}) {
    const CsrMatrix    M = stencil3d(20, bs);
    const bell::Layout L = bell::build_host(M.view(), bs);
    const double       nnz = (double)M.colidx.size(), csr = csr_bytes(M.colidx.size(), M.nrows), xy = 8.0 * (M.nrows + M.ncols);
    check((double)bell::bytes(L) < csr + xy,
          "bell.bytes.stencil3d_20_bs" + std::to_string(bs) + " # " + format_number((double)bell::stored_bytes(L) / nnz) + " B/nnz stored vs CSR " + format_number(csr / nnz) + "; with x, y: " + format_number((double)bell::bytes(L) / nnz) + " vs " + format_number((csr + xy) / nnz) +
            "; padding " + format_number(100.0 * (double)(L.nslots - L.nblocks) / (double)L.nblocks, "%.1f") + "%");
  }

  // Refusals.
  {
    CsrMatrix M = generate_matrix("blocks5:n=900,bs=3", 4);
    const int32_t r = 4, k = M.rowptr[r] + 1; // row 4 loses its second entry
    const int32_t col = M.colidx[k];
    M.colidx.erase(M.colidx.begin() + k);
    M.values.erase(M.values.begin() + k);
    for (size_t i = r + 1; i < M.rowptr.size(); ++i) --M.rowptr[i];
    check_refused("bell.missing_entry", M, 3, "first missing: row 4, column " + std::to_string(col));
    check_refused("bell.missing_entry_block", M, 3, "block row 1, block column " + std::to_string(col / 3) + " ");
  }
  {
    CsrMatrix M; // 4 x 4, bs = 2: row 1 holds block (0, 1), row 0 does not
    M.nrows = M.ncols = 4;
    M.rowptr = {0, 2, 6, 8, 10};
    M.colidx = {0, 1, 0, 1, 2, 3, 2, 3, 2, 3};
    M.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    check_refused("bell.block_in_some_rows", M, 2, "block row 0, block column 1 (rows 0..1) stores 2 of its 4 entries (first missing: row 0, column 2)");
  }
  check_refused("bell.nrows_not_multiple", chain(5, 2), 3, "rows not a multiple of 3");
  {
    CsrMatrix M = block_matrix(3, 3, 2, 5, [](int32_t br) { return std::vector<int32_t>{br}; });
    M.ncols     = 7;
    check_refused("bell.ncols_not_multiple", M, 2, "columns not a multiple of 2");
  }
  check_refused("bell.stencil2d5_bs2", generate_matrix("stencil2d5:n=8", 1), 2, "block row 0, block column 1 (rows 0..1) stores 1 of its 4");
  {
    std::string why;
    check(!bell::block_dense(chain(3, 2).view(), 0, &why) && why.find("block size 0") != std::string::npos, "bell.bs0_not_block_dense", why);
    bool bad = false;
    try {
      bell::build_host(chain(3, 2).view(), 9);
    } catch (const Error &e) {
      bad = e.kind == ErrorKind::bad_input;
    }
    check(bad, "bell.bs9_bad_input");
    bad = false;
    try {
      bell::build_host(chain(3, 2).view(), 2, {-1, 0});
    } catch (const Error &e) {
      bad = e.kind == ErrorKind::bad_input;
    }
    check(bad, "bell.negative_window_bad_input");
  }

  // bs = 1: plain sliced ELL; every matrix builds.
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  check(real.size() >= 10, "bell.real_matrices_found");
  ms.insert(ms.end(), real.begin(), real.end());
  for (const NamedMatrix &m : ms) check_matrix("bell.bs1." + m.name, m.A, 1);
  return finish();
}
