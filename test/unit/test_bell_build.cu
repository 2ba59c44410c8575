// BELL's device builder and product thread body (bell_device.cuh) on the host, without a GPU: the
// very template the GPU build runs, instantiated on thrust::host with std::vector buffers, against
// the host builder (bell_host.cpp), and the kernel emulated lane by lane from its thread body.
//   layout    every array (perm, slice_ptr, widths, block_col, values bit for bit, slot_of_csr)
//             and every size equal to build_host's, for bs = 1..8 on random block-dense
//             matrices (empty block rows, one block row, a partial last slice, rectangular,
//             windows 0, one slice, small, default, slices of one block row and of more than a
//             warp's lanes), the real matrices of test/matrices at bs = 1 and expanded to blocks
//             (Kronecker product with a dense bs x bs block), and any bs they are block-dense for
//   product   slice_lane for every lane of every slice against the CSR product, y = A x (y full
//             of NaN), y += A x, y = a A x + b y; empty block rows ignore x (Inf)
//   blocks    make_block_host's product, the generic diagonal through its slot map, and the
//             point-block diagonal of the device arrays and of the host block against the CSR's
//   refusal   matrices that are not block-dense: the device builder throws build_host's
//             Error(unsupported) with the same message (the same first block); bad bs / options:
//             Error(bad_input) as the host
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "common/block_matrices.hpp"
#include "formats/bell/bell_device.cuh"
#include "formats/slot_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;

// A (x) D for a dense random bs x bs D: every entry of A becomes a dense block.
static CsrMatrix kron_dense(const CsrMatrix &A, int32_t bs, uint64_t seed)
{
  std::mt19937_64                        rng(seed);
  std::uniform_real_distribution<double> val(0.5, 1.5);
  std::vector<double>                    D(bs * bs);
  for (double &d : D) d = val(rng);
  CsrMatrix K;
  K.nrows = A.nrows * bs, K.ncols = A.ncols * bs;
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t a = 0; a < bs; ++a) {
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
        for (int32_t b = 0; b < bs; ++b) K.colidx.push_back(A.colidx[k] * bs + b), K.values.push_back(A.values[k] * D[a * bs + b]);
      K.rowptr.push_back((int32_t)K.colidx.size());
    }
  return K;
}

// Every lane of every slice, as the kernel's grid runs them (each lane writes its own row of y).
template <int BS>
static void emulate_lanes(const bell::KernelArgs &k, double alpha, const double *x, double beta, double *y)
{
  for (int32_t s = 0; s < k.nslices; ++s)
    for (int32_t l = 0; l < k.lanes; ++l) bell::slice_lane<BS>(k, s, l, alpha, x, beta, y);
}
static std::vector<double> emulated_product(const bell::Arrays<HostSystem> &a, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  const bell::KernelArgs k = a.kernel_args();
  switch (a.bs) {
  case 1: emulate_lanes<1>(k, alpha, x.data(), beta, y.data()); break;
  case 2: emulate_lanes<2>(k, alpha, x.data(), beta, y.data()); break;
  case 3: emulate_lanes<3>(k, alpha, x.data(), beta, y.data()); break;
  case 4: emulate_lanes<4>(k, alpha, x.data(), beta, y.data()); break;
  case 5: emulate_lanes<5>(k, alpha, x.data(), beta, y.data()); break;
  case 6: emulate_lanes<6>(k, alpha, x.data(), beta, y.data()); break;
  case 7: emulate_lanes<7>(k, alpha, x.data(), beta, y.data()); break;
  case 8: emulate_lanes<8>(k, alpha, x.data(), beta, y.data()); break;
  }
  return y;
}

static std::string geometry_diff(const bell::Geometry &d, const bell::Geometry &h)
{
  std::string why;
  auto        cmp = [&](const char *what, int64_t a, int64_t b) {
    if (a != b && why.empty()) why = std::string(what) + " " + std::to_string(a) + " vs host " + std::to_string(b);
  };
  cmp("nrows", d.nrows, h.nrows), cmp("ncols", d.ncols, h.ncols), cmp("bs", d.bs, h.bs), cmp("nbrows", d.nbrows, h.nbrows), cmp("nbcols", d.nbcols, h.nbcols), cmp("nnz", d.nnz, h.nnz);
  cmp("window", d.window, h.window), cmp("slice", d.slice, h.slice), cmp("nslices", d.nslices, h.nslices), cmp("nblocks", d.nblocks, h.nblocks), cmp("nslots", d.nslots, h.nslots), cmp("empty_brows", d.empty_brows, h.empty_brows);
  return why;
}

static int64_t g_cases = 0;

// The device builder on thrust::host against build_host, then the products and diagonals.
static void check_case(const std::string &name, const CsrMatrix &M, int32_t bs, const bell::Options &opt = {})
{
  ++g_cases;
  const CsrView A = M.view();
  bell::Layout  L;
  bell::Arrays<HostSystem> a;
  try {
    L = bell::build_host(A, bs, opt);
    bell::build_arrays(HostSystem{}, M.rowptr.data(), M.colidx.data(), M.values.data(), A.nrows, A.ncols, A.nnz, bs, opt, a);
  } catch (const Error &e) {
    check(false, name + ".built", e.what());
    return;
  }
  std::string why = geometry_diff(a, L);
  const bool  same = why.empty() && same_array(a.perm, L.perm, "perm", why) && same_array(a.slice_ptr, L.slice_ptr, "slice_ptr", why) && same_array(a.widths, L.widths, "widths", why) && same_array(a.block_col, L.block_col, "block_col", why) &&
                    same_array(a.values, L.values, "values", why) && same_array(a.slot_of_csr, L.slot_of_csr, "slot_of_csr", why);
  check(same, name + ".layout_as_host", why);
  check_emulated_products(name + ".lanes", A, [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) { return emulated_product(a, alpha, x, beta, std::move(y)); });
  check(empty_rows_ignore_x(A, [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) { return emulated_product(a, alpha, x, beta, std::move(y)); }, why), name + ".lanes.empty_rows_ignore_x", why);

  const std::vector<double> want_pbd = csr_block_diagonal(A, bs);
  std::vector<double>       pbd((size_t)A.nrows * bs, NAN);
  bell::point_block_diagonal(thrust::host, a, pbd.data());
  check(pbd == want_pbd, name + ".point_block_diagonal");

  // The host block: its product, the generic diagonal through the slot map, its point-block diagonal.
  std::unique_ptr<bell::Block> blk = bell::make_block_host(A, bs, opt);
  check_emulated_products(name + ".host_block", A, [&](double alpha, const std::vector<double> &x, double beta, std::vector<double> y) {
    blk->spmv(alpha, x.data(), beta, y.data(), {});
    return y;
  });
  const std::vector<int32_t> pos = diagonal_positions(A);
  std::vector<double>        d(A.nrows, NAN), want_d(A.nrows, 0.0);
  for (int32_t i = 0; i < A.nrows; ++i) want_d[i] = pos[i] >= 0 ? A.values[pos[i]] : 0.0;
  gather_diagonal_host(*blk, pos.data(), A.nrows, d.data());
  std::vector<double> hpbd((size_t)A.nrows * bs, NAN);
  blk->point_block_diagonal(hpbd.data(), nullptr);
  check(d == want_d && hpbd == want_pbd && blk->nslots == (int64_t)L.values.size() && blk->bytes() == bell::stored_bytes(L), name + ".host_block.diagonals");
}

// A matrix that is not block-dense at bs (or bad arguments): the device builder throws what
// build_host throws, kind and message.
static void check_refusal_as_host(const std::string &name, const CsrMatrix &M, int32_t bs, const bell::Options &opt = {}, ErrorKind want = ErrorKind::unsupported)
{
  ++g_cases;
  std::string host_msg = "(built)", dev_msg = "(built)";
  ErrorKind   host_kind = ErrorKind::internal, dev_kind = ErrorKind::internal;
  try {
    bell::build_host(M.view(), bs, opt);
  } catch (const Error &e) {
    host_msg = e.what(), host_kind = e.kind;
  }
  try {
    bell::Arrays<HostSystem> a;
    bell::build_arrays(HostSystem{}, M.rowptr.data(), M.colidx.data(), M.values.data(), M.nrows, M.ncols, (int64_t)M.colidx.size(), bs, opt, a);
  } catch (const Error &e) {
    dev_msg = e.what(), dev_kind = e.kind;
  }
  check(host_kind == want && dev_kind == want && dev_msg == host_msg && (want != ErrorKind::unsupported || dev_msg.find(kFitsHint) != std::string::npos), name + ".refused_as_host", "device '" + dev_msg + "' vs host '" + host_msg + "'");
}

// M with CSR entry k removed / with column c inserted into row i (kept sorted; must be absent).
static CsrMatrix without_entry(CsrMatrix M, int64_t k)
{
  M.colidx.erase(M.colidx.begin() + k), M.values.erase(M.values.begin() + k);
  for (size_t i = 1; i < M.rowptr.size(); ++i)
    if (M.rowptr[i] > k) --M.rowptr[i];
  return M;
}
static CsrMatrix with_entry(CsrMatrix M, int32_t i, int32_t c)
{
  const auto at = std::lower_bound(M.colidx.begin() + M.rowptr[i], M.colidx.begin() + M.rowptr[i + 1], c) - M.colidx.begin();
  M.colidx.insert(M.colidx.begin() + at, c), M.values.insert(M.values.begin() + at, 1.0);
  for (size_t r = i + 1; r < M.rowptr.size(); ++r) ++M.rowptr[r];
  return M;
}

// M with row i's columns replaced by cols (sorted), values 1.
static CsrMatrix with_row(CsrMatrix M, int32_t i, const std::vector<int32_t> &cols)
{
  const int32_t b = M.rowptr[i], e = M.rowptr[i + 1], d = (int32_t)cols.size() - (e - b);
  M.colidx.erase(M.colidx.begin() + b, M.colidx.begin() + e), M.values.erase(M.values.begin() + b, M.values.begin() + e);
  M.colidx.insert(M.colidx.begin() + b, cols.begin(), cols.end()), M.values.insert(M.values.begin() + b, cols.size(), 1.0);
  for (size_t r = i + 1; r < M.rowptr.size(); ++r) M.rowptr[r] += d;
  return M;
}
// Row i's whole blocks edited, so that every row still holds whole aligned blocks and only the
// comparison with the block row's first row finds the violation: a block moved to a block column
// the row lacks (what = 0), one added (1), one dropped (2). Returns false when the row cannot.
static bool edit_blocks(const CsrMatrix &M, int32_t bs, int32_t i, int what, std::mt19937_64 &rng, CsrMatrix &out)
{
  std::vector<int32_t> blocks, absent;
  for (int32_t k = M.rowptr[i]; k < M.rowptr[i + 1]; k += bs) blocks.push_back(M.colidx[k] / bs);
  for (int32_t bc = 0; bc < M.ncols / bs; ++bc)
    if (!std::binary_search(blocks.begin(), blocks.end(), bc)) absent.push_back(bc);
  auto pick = [&](const std::vector<int32_t> &v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  if ((what != 1 && blocks.empty()) || (what != 2 && absent.empty())) return false;
  if (what != 1) blocks.erase(std::find(blocks.begin(), blocks.end(), pick(blocks)));
  if (what != 2) blocks.push_back(pick(absent));
  std::sort(blocks.begin(), blocks.end());
  std::vector<int32_t> cols;
  for (int32_t bc : blocks)
    for (int32_t b = 0; b < bs; ++b) cols.push_back(bc * bs + b);
  out = with_row(M, i, cols);
  return true;
}

// The same edit in every row of block row br, so that the rows agree and only their grouping into
// whole aligned blocks shows the violation: column c dropped (what = 0), added (1), or one of the
// row's blocks shifted right by one column when the next column is free (2).
static bool edit_all_rows(const CsrMatrix &M, int32_t bs, int32_t br, int what, std::mt19937_64 &rng, CsrMatrix &out)
{
  const int32_t        r0 = br * bs;
  std::vector<int32_t> cols(M.colidx.begin() + M.rowptr[r0], M.colidx.begin() + M.rowptr[r0 + 1]);
  auto                 has = [&](int32_t c) { return std::binary_search(cols.begin(), cols.end(), c); };
  if (what != 1 && cols.empty()) return false;
  if (what == 0) cols.erase(cols.begin() + std::uniform_int_distribution<size_t>(0, cols.size() - 1)(rng));
  else if (what == 1) {
    const int32_t c = std::uniform_int_distribution<int32_t>(0, M.ncols - 1)(rng);
    if (has(c)) return false;
    cols.insert(std::lower_bound(cols.begin(), cols.end(), c), c);
  } else {
    const int32_t first = (int32_t)(std::uniform_int_distribution<size_t>(0, cols.size() / bs - 1)(rng) * bs), last = cols[first + bs - 1];
    if (last + 1 >= M.ncols || has(last + 1)) return false;
    for (int32_t b = 0; b < bs; ++b) ++cols[first + b];
  }
  out = M;
  for (int32_t a = 0; a < bs; ++a) out = with_row(out, r0 + a, cols);
  return true;
}

int main(int argc, char **argv)
{
  // Random block-dense matrices, bs = 1..8.
  for (int32_t bs = 1; bs <= bell::kMaxBlockSize; ++bs) {
    const std::string b = ".bs" + std::to_string(bs);
    const int32_t     S = std::max(1, bell::kWarp / bs);
    check_case("bell_build.random_300" + b, random_blocks(300, 300, bs, 12, 0, 100 + bs), bs);
    check_case("bell_build.empty_brows" + b, random_blocks(257, 257, bs, 9, 3, 200 + bs), bs);
    check_case("bell_build.one_brow" + b, random_blocks(1, 40, bs, 20, 0, 300 + bs), bs);
    check_case("bell_build.partial_last_slice" + b, random_blocks(5 * S + S / 2 + 1, 90, bs, 7, 5, 400 + bs), bs);
    check_case("bell_build.rect_40x700" + b, random_blocks(40, 700, bs, 30, 4, 500 + bs), bs);
    check_case("bell_build.rect_500x9" + b, random_blocks(500, 9, bs, 9, 6, 600 + bs), bs);
    check_case("bell_build.all_empty" + b, random_blocks(70, 70, bs, 0, 0, 700 + bs), bs);
    check_case("bell_build.0x0" + b, CsrMatrix{}, bs);
    check_case("bell_build.no_columns" + b, random_blocks(33, 0, bs, 4, 0, 800 + bs), bs);
    for (bell::Options o : {bell::Options{0, 0}, bell::Options{1, 0}, bell::Options{3 * S, 0}, bell::Options{100, 0}, bell::Options{16, 1}, bell::Options{64, 5}, bell::Options{0, 33}}) {
      const std::string tag = ".w" + std::to_string(o.window) + "_s" + std::to_string(o.slice);
      check_case("bell_build.random_1100" + b + tag, random_blocks(1100, 1100, bs, 15, 7, 900 + bs), bs, o);
    }
  }

  // Real matrices: as they are (bs = 1, and any bs they happen to be block-dense for), and
  // expanded to dense blocks.
  const std::vector<NamedMatrix> real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  check(real.size() >= 10, "bell_build.real_matrices_found");
  for (size_t i = 0; i < real.size(); ++i) {
    const NamedMatrix &m = real[i];
    check_case("bell_build.real." + m.name + ".bs1", m.A, 1);
    for (int32_t bs = 2; bs <= bell::kMaxBlockSize; ++bs)
      if (bell::block_dense(m.A.view(), bs)) check_case("bell_build.real." + m.name + ".native_bs" + std::to_string(bs), m.A, bs);
    for (int32_t bs : {3, (int32_t)(2 + i % 7)}) check_case("bell_build.real." + m.name + ".kron_bs" + std::to_string(bs), kron_dense(m.A, bs, 31 + i), bs, i % 2 ? bell::Options{} : bell::Options{0, 0});
  }
  // A bs = 4 block matrix is bs = 2 block-dense too.
  check_case("bell_build.bs4_as_bs2", random_blocks(200, 200, 4, 10, 5, 77), 2);

  // Refusals: the same first violating block and message as the host, for entries removed from
  // and added to block-dense matrices at random places, rows and columns not multiples of bs, a
  // scalar stencil, and bad arguments.
  std::mt19937_64 rng(2027);
  for (int32_t bs = 2; bs <= bell::kMaxBlockSize; ++bs) {
    const std::string b = ".bs" + std::to_string(bs);
    const CsrMatrix   M = random_blocks(120, 120, bs, 8, 4, 1000 + bs);
    for (int t = 0; t < 6; ++t) {
      const int64_t k = std::uniform_int_distribution<int64_t>(0, (int64_t)M.colidx.size() - 1)(rng);
      check_refusal_as_host("bell_build.missing_entry_" + std::to_string(t) + b, without_entry(M, k), bs);
      int32_t i, c;
      do i = std::uniform_int_distribution<int32_t>(0, M.nrows - 1)(rng), c = std::uniform_int_distribution<int32_t>(0, M.ncols - 1)(rng);
      while (std::binary_search(M.colidx.begin() + M.rowptr[i], M.colidx.begin() + M.rowptr[i + 1], c));
      check_refusal_as_host("bell_build.extra_entry_" + std::to_string(t) + b, with_entry(M, i, c), bs);
    }
    for (int t = 0; t < 9; ++t) {
      CsrMatrix     E;
      const int32_t i = std::uniform_int_distribution<int32_t>(0, M.nrows - 1)(rng);
      if (edit_blocks(M, bs, t < 3 ? i - i % bs : i, t % 3, rng, E)) check_refusal_as_host("bell_build." + std::string(t % 3 == 0 ? "moved" : t % 3 == 1 ? "extra" : "dropped") + "_block_" + std::to_string(t) + (t < 3 ? "_first_row" : "") + b, E, bs);
    }
    for (int t = 0; t < 9; ++t) {
      CsrMatrix E;
      if (edit_all_rows(M, bs, std::uniform_int_distribution<int32_t>(0, M.nrows / bs - 1)(rng), t % 3, rng, E))
        check_refusal_as_host("bell_build." + std::string(t % 3 == 0 ? "dropped" : t % 3 == 1 ? "added" : "shifted") + "_in_all_rows_" + std::to_string(t) + b, E, bs);
    }
    // Two violations: the first block row's, even when a later one shows in more rows.
    check_refusal_as_host("bell_build.two_violations" + b, without_entry(without_entry(M, M.rowptr[M.nrows / 2] + 1), M.rowptr[bs * 3 + bs - 1]), bs);
    check_refusal_as_host("bell_build.last_entry_missing" + b, without_entry(M, (int64_t)M.colidx.size() - 1), bs);
    CsrMatrix R = random_blocks(30, 30, bs, 5, 0, 1100 + bs);
    R.ncols += 1;
    check_refusal_as_host("bell_build.ncols_not_multiple" + b, R, bs);
    check_refusal_as_host("bell_build.nrows_not_multiple" + b, random_blocks(31, 31, 1, 5, 0, 1200 + bs), bs);
    check_refusal_as_host("bell_build.stencil7" + b, stencil7(6), bs);
  }
  check_refusal_as_host("bell_build.bs0", random_blocks(10, 10, 2, 3, 0, 1), 0, {}, ErrorKind::bad_input);
  check_refusal_as_host("bell_build.bs9", random_blocks(10, 10, 2, 3, 0, 1), 9, {}, ErrorKind::bad_input);
  check_refusal_as_host("bell_build.negative_window", random_blocks(10, 10, 2, 3, 0, 1), 2, {-1, 0}, ErrorKind::bad_input);
  check_refusal_as_host("bell_build.negative_slice", random_blocks(10, 10, 2, 3, 0, 1), 2, {16, -2}, ErrorKind::bad_input);
  std::printf("# %lld cases\n", (long long)g_cases);
  return finish();
}
