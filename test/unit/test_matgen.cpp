// src/matgen: the Matrix Market reader (fields, symmetries, duplicates, errors), the round trip
// through the writer, and the generators (valid CSR, deterministic, sized as asked, the shapes
// they promise) and the scaling transform (row-length distribution kept).
#include "common/check.hpp"
#include "core/csr.hpp"
#include "core/row_stats.hpp"
#include "matgen/generators.hpp"
#include "matgen/matrix_market.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

using namespace gpuformats;
using gftest::check;

static double entry(const CsrMatrix &A, int32_t i, int32_t j)
{
  for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
    if (A.colidx[k] == j) return A.values[k];
  return NAN;
}

static bool throws(const std::string &text, ErrorKind kind, const std::string &word)
{
  try {
    parse_matrix_market(text, "t.mtx");
  } catch (const Error &e) {
    return e.kind == kind && std::string(e.what()).find(word) != std::string::npos;
  }
  return false;
}

// Whether the spec is refused with an Error whose message names `word`.
static bool bad(const std::string &spec, const std::string &word)
{
  try {
    generate_matrix(spec, 1);
  } catch (const Error &e) {
    return std::string(e.what()).find(word) != std::string::npos;
  }
  return false;
}

static void reader()
{
  const char *gen = "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 4\n1 1 2.5\n3 4 -1D+00\n1 1 0.5\n2 3 0\n";
  CsrMatrix   A   = parse_matrix_market(gen, "gen");
  check(A.nrows == 3 && A.ncols == 4 && A.view().nnz == 3, "mm.general.shape");
  check(entry(A, 0, 0) == 3.0 && entry(A, 2, 3) == -1.0 && entry(A, 1, 2) == 0.0, "mm.general.duplicates_summed_zeros_kept_fortran_exponent");

  CsrMatrix S = parse_matrix_market("%%MatrixMarket matrix coordinate integer symmetric\r\n3 3 3\r\n1 1 4\r\n3 1 2\r\n3 2 -5\r\n", "sym");
  check(S.view().nnz == 5 && entry(S, 0, 2) == 2.0 && entry(S, 2, 0) == 2.0 && entry(S, 1, 2) == -5.0, "mm.symmetric_integer_crlf.mirrored");
  CsrMatrix K = parse_matrix_market("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n", "skew");
  check(entry(K, 1, 0) == 3.0 && entry(K, 0, 1) == -3.0, "mm.skew_symmetric.negated");
  CsrMatrix P = parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", "pat");
  check(entry(P, 0, 1) == 1.0 && entry(P, 1, 0) == 1.0, "mm.pattern.ones");

  check(throws("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", ErrorKind::unsupported, "array"), "mm.error.array");
  check(throws("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", ErrorKind::unsupported, "complex"), "mm.error.complex");
  check(throws("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", ErrorKind::bad_input, "t.mtx"), "mm.error.zero_based_index");
  check(throws("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n", ErrorKind::bad_input, "t.mtx"), "mm.error.too_few_entries");
  check(throws("not a banner\n", ErrorKind::bad_input, "t.mtx"), "mm.error.banner");

  // Round trip through the writer: the same doubles.
  CsrMatrix   G    = generate_matrix("randrows:n=300,minlen=0,maxlen=20", 5);
  std::string path = "build/test-matgen-roundtrip.mtx";
  write_matrix_market(G.view(), path);
  CsrMatrix R = read_matrix_market(path);
  std::remove(path.c_str());
  check(R.rowptr == G.rowptr && R.colidx == G.colidx && R.values == G.values, "mm.write_read_roundtrip");
}

// convdiff3d: the 7-point pattern, symmetric without convection, an M-matrix (off-diagonals <= 0,
// row sums >= 0: weakly dominant inside, strictly at the boundary), non-symmetric with it, the
// upwind entries where the wind says.
static void convdiff3d()
{
  CsrMatrix c = generate_matrix("convdiff3d:nx=6,ny=5,nz=4,pe=10", 1);
  check(c.nrows == 120 && c.ncols == 120 && c.view().nnz == 7 * 120 - 2 * (5 * 4 + 6 * 4 + 6 * 5), "gen.convdiff3d.count", std::to_string(c.view().nnz));
  auto symmetric = [](const CsrMatrix &A) {
    for (int32_t i = 0; i < A.nrows; ++i)
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
        if (entry(A, A.colidx[k], i) != A.values[k]) return false;
    return true;
  };
  auto m_matrix = [](const CsrMatrix &A, bool *strict_somewhere) {
    bool ok = true;
    *strict_somewhere = false;
    for (int32_t i = 0; i < A.nrows; ++i) {
      double d = 0, off = 0;
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
        if (A.colidx[k] == i) d = A.values[k];
        else {
          ok = ok && A.values[k] < 0;
          off += std::abs(A.values[k]);
        }
      ok = ok && d > 0 && d - off >= -1e-12 * d; // row sum >= 0 (rounding aside), dominant diagonal
      *strict_somewhere = *strict_somewhere || d - off > 0.5;
    }
    return ok;
  };
  bool      strict = false;
  CsrMatrix c0 = generate_matrix("convdiff3d:n=8,pe=0", 1);
  check(symmetric(c0) && entry(c0, 0, 0) == 6.0 && entry(c0, 0, 1) == -1.0, "gen.convdiff3d.pe0_symmetric_laplacian");
  check(m_matrix(c0, &strict) && strict, "gen.convdiff3d.pe0_dominant");
  for (const char *spec : {"convdiff3d:n=8", "convdiff3d:n=8,pe=100", "convdiff3d:nx=5,ny=6,nz=7,pe=2,wx=-1,wy=3,wz=-0.5"}) {
    CsrMatrix A = generate_matrix(spec, 1);
    check(!symmetric(A), std::string("gen.convdiff3d.nonsymmetric.") + spec);
    check(m_matrix(A, &strict) && strict, std::string("gen.convdiff3d.m_matrix_row_sums.") + spec);
  }
  // Default wind (1, .5, .25)/|w|, pe = 10: row 9*9+9+1 (interior point (1,1,1) of n=9) takes the
  // extra -pe*w_d from its lower neighbours (x-1, y-1, z-1) only, and the diagonal 6 + pe*sum w.
  CsrMatrix   A   = generate_matrix("convdiff3d:n=9", 1);
  const double nw = std::sqrt(1 + 0.25 + 0.0625), wx = 10 / nw, wy = 5 / nw, wz = 2.5 / nw;
  const int32_t r = 81 + 9 + 1;
  check(std::abs(entry(A, r, r) - (6 + wx + wy + wz)) < 1e-12 && std::abs(entry(A, r, r - 1) + 1 + wx) < 1e-12 && entry(A, r, r + 1) == -1.0 &&
          std::abs(entry(A, r, r - 9) + 1 + wy) < 1e-12 && entry(A, r, r + 9) == -1.0 && std::abs(entry(A, r, r - 81) + 1 + wz) < 1e-12 && entry(A, r, r + 81) == -1.0,
        "gen.convdiff3d.upwind_values");
  // A negative wind component puts the extra weight on the neighbour above.
  CsrMatrix B = generate_matrix("convdiff3d:n=5,pe=4,wx=-1,wy=0,wz=0", 1);
  check(entry(B, 31, 32) == -5.0 && entry(B, 31, 30) == -1.0 && entry(B, 31, 36) == -1.0 && entry(B, 31, 31) == 10.0, "gen.convdiff3d.negative_wind");
  // A flat grid (ny = 1: the y and z strides coincide) takes the z wind on its z neighbours.
  CsrMatrix F = generate_matrix("convdiff3d:nx=4,ny=1,nz=4,pe=4,wx=0,wy=0,wz=1", 1);
  check(entry(F, 5, 1) == -5.0 && entry(F, 5, 9) == -1.0 && entry(F, 5, 4) == -1.0 && entry(F, 5, 5) == 10.0, "gen.convdiff3d.flat_grid_wind");
  CsrMatrix sized = generate_matrix("convdiff3d:nnz=7000", 1);
  check(sized.nrows == 1000, "gen.convdiff3d.sized_by_nnz", std::to_string(sized.nrows));
}

// Every bs x bs block of A holding an entry holds all bs^2 (BELL's block_dense), rows and columns
// multiples of bs.
static bool every_block_dense(const CsrMatrix &A, int32_t bs, std::string *why)
{
  if (A.nrows % bs || A.ncols % bs) return *why = "size not a multiple of bs", false;
  for (int32_t br = 0; br < A.nrows / bs; ++br) {
    std::map<int32_t, int32_t> count; // block column -> entries in this block row
    for (int32_t a = 0; a < bs; ++a)
      for (int32_t k = A.rowptr[br * bs + a]; k < A.rowptr[br * bs + a + 1]; ++k) count[A.colidx[k] / bs]++;
    for (const auto &[bc, n] : count)
      if (n != bs * bs) return *why = "block (" + std::to_string(br) + ", " + std::to_string(bc) + ") holds " + std::to_string(n), false;
  }
  return true;
}

// |a_ii| > sum_{j != i} |a_ij| in every row.
static bool strictly_dominant(const CsrMatrix &A)
{
  for (int32_t i = 0; i < A.nrows; ++i) {
    double d = 0, off = 0;
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) (A.colidx[k] == i ? d : off) += std::abs(A.values[k]);
    if (!(d > off)) return false;
  }
  return true;
}

static bool symmetric_pattern(const CsrMatrix &A)
{
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k)
      if (std::isnan(entry(A, A.colidx[k], i))) return false;
  return true;
}

static void block_generators()
{
  for (int32_t bs : {1, 2, 3, 4, 5}) {
    const std::string b = std::to_string(bs);
    // 7-point on 5 x 4 x 3 points: 7 per point minus the missing neighbours of the faces
    const CsrMatrix S = generate_matrix("blockstencil3d:nx=5,ny=4,nz=3,bs=" + b, 3);
    const int64_t   couplings = 7 * 60 - 2 * (4 * 3 + 5 * 3 + 5 * 4);
    check(S.nrows == 60 * bs && S.ncols == 60 * bs && S.view().nnz == couplings * bs * bs && S.block_size == bs, "gen.blockstencil3d.size.bs" + b, std::to_string(S.view().nnz));
    std::string why;
    check(every_block_dense(S, bs, &why), "gen.blockstencil3d.blocks_dense.bs" + b, why);
    check(strictly_dominant(S), "gen.blockstencil3d.diagonally_dominant.bs" + b);
    // point 0 couples to points 0, 1, 5 (x, y neighbours) and 20 (z): block columns 0, 1, 5, 20
    check(!std::isnan(entry(S, 0, 20 * bs + bs - 1)) && std::isnan(entry(S, 0, 2 * bs)) && entry(S, bs - 1, bs - 1) == 4.0 * bs, "gen.blockstencil3d.couplings.bs" + b);
    const CsrMatrix F = generate_matrix("blockfem:n=3000,bs=" + b, 3);
    check(F.nrows == 3000 * bs && F.block_size == bs, "gen.blockfem.size.bs" + b);
    check(every_block_dense(F, bs, &why), "gen.blockfem.blocks_dense.bs" + b, why);
    check(strictly_dominant(F), "gen.blockfem.diagonally_dominant.bs" + b);
    check(symmetric_pattern(F), "gen.blockfem.symmetric_pattern.bs" + b);
    // node degrees (block row lengths - 1): mean near (min+max)/2 = 20, and a spread
    const RowStats st = compute_row_stats(F.view());
    const double   mean_deg = st.mean / bs - 1;
    check(mean_deg > 17 && mean_deg < 21 && st.min_length / bs - 1 < 15 && st.max_length / bs - 1 > 25, "gen.blockfem.degrees.bs" + b,
          "mean " + std::to_string(mean_deg) + " min " + std::to_string(st.min_length / bs - 1) + " max " + std::to_string(st.max_length / bs - 1));
  }
  // sized by nnz= within the 10 % the other generators meet, at the suite's block sizes
  for (const char *g : {"blockstencil3d", "blockfem"})
    for (int bs : {3, 4, 5}) {
      const std::string spec = std::string(g) + ":nnz=300k,bs=" + std::to_string(bs);
      const CsrMatrix   A    = generate_matrix(spec, 5);
      check(std::abs(A.view().nnz / 3e5 - 1.0) < 0.1 && A.block_size == bs, "gen.sized_by_nnz." + spec, std::to_string(A.view().nnz));
    }
  // deterministic for a seed, different for another
  const CsrMatrix a = generate_matrix("blockfem:n=500,bs=3", 11), c = generate_matrix("blockfem:n=500,bs=3", 12);
  check(a.colidx != c.colidx, "gen.blockfem.seed_changes_pattern");
  // blocksize= on any generator: carried, checked against the size and bs=
  check(generate_matrix("stencil27:n=6,blocksize=3", 1).block_size == 3 && generate_matrix("stencil27:n=6", 1).block_size == 1, "gen.blocksize.carried");
  check(generate_matrix("blocks5:n=500,blocksize=5", 1).block_size == 5 && generate_matrix("blocks5:n=500", 1).block_size == 1, "gen.blocksize.blocks5");
  check(generate_matrix("blockstencil3d:n=3,bs=4,blocksize=4", 1).block_size == 4, "gen.blocksize.same_as_bs");
  check(bad("stencil27:n=5,blocksize=3", "does not divide"), "gen.error.blocksize_not_dividing");
  // symmetric=1: A == A^T exactly, the pattern kept; a generator whose pattern is not symmetric refused
  for (const char *spec : {"stencil27:n=7,symmetric=1", "stencil2d5:n=20,symmetric=1", "convdiff3d:n=6,pe=10,symmetric=1"}) {
    const CsrMatrix S = generate_matrix(spec, 3), P = generate_matrix(std::string(spec).substr(0, std::string(spec).find(",symmetric")), 3);
    bool            sym = S.colidx == P.colidx && S.rowptr == P.rowptr;
    for (int32_t i = 0; i < S.nrows && sym; ++i)
      for (int32_t k = S.rowptr[i]; k < S.rowptr[i + 1] && sym; ++k) {
        const int32_t j = S.colidx[k], *f = S.colidx.data() + S.rowptr[j], *l = S.colidx.data() + S.rowptr[j + 1], *t = std::lower_bound(f, l, i);
        sym = t != l && *t == i && S.values[t - S.colidx.data()] == S.values[k];
      }
    check(sym, std::string("gen.symmetric.") + spec);
  }
  check(bad("rmat:scale=8,ef=4,symmetric=1", "symmetric pattern"), "gen.error.symmetric_pattern");
  check(bad("stencil27:n=5,symmetric=2", "symmetric must be 0 or 1"), "gen.error.symmetric_value");
  check(bad("blockfem:n=10,bs=3,blocksize=2", "contradicts"), "gen.error.blocksize_contradicts_bs");
  check(bad("blockstencil3d:n=3,blocksize=0", "blocksize"), "gen.error.blocksize_range");
  check(bad("blockstencil3d:n=3,nx=4", "not several"), "gen.error.blockstencil3d_two_sizes");
  check(read_matrix_market("test/matrices/crack.mtx").block_size == 1, "mm.block_size_1");
}

// kkt: [H B^T; B -delta I], H the 7-point stencil on k^3, B clen distinct columns a row, B^T its
// exact transpose; every row non-empty, sorted and unique; sized by nnz=; a function of the seed.
static void kkt()
{
  const CsrMatrix K = generate_matrix("kkt:n=1000", 4); // k = 10, m = 250
  const int32_t   n = 1000, m = 250;
  check(K.nrows == n + m && K.ncols == n + m, "gen.kkt.dimensions", std::to_string(K.nrows) + " x " + std::to_string(K.ncols));
  bool rows_ok = true, h_ok = true, b_ok = true, c_ok = true;
  std::string why;
  for (int32_t i = 0; i < K.nrows; ++i) {
    const int32_t b = K.rowptr[i], e = K.rowptr[i + 1];
    if (e <= b) rows_ok = false, why = "row " + std::to_string(i) + " empty";
    for (int32_t k = b + 1; k < e; ++k)
      if (K.colidx[k - 1] >= K.colidx[k]) rows_ok = false, why = "row " + std::to_string(i) + " not sorted unique";
    if (i < n) { // [H B^T]: the 7-point stencil below n, constraint columns above
      int32_t h = 0;
      for (int32_t k = b; k < e; ++k) h += K.colidx[k] < n;
      const int32_t x = i % 10, y = i / 10 % 10, z = i / 100;
      h_ok = h_ok && h == 1 + (x > 0) + (x < 9) + (y > 0) + (y < 9) + (z > 0) + (z < 9) && entry(K, i, i) == (double)(e - b);
    } else { // [B -delta]: clen = 4 unknowns, then the diagonal alone in the lower-right block
      b_ok = b_ok && e - b == 5 && K.colidx[e - 2] < n && K.colidx[e - 1] == i && entry(K, i, i) == -1e-3;
    }
  }
  check(rows_ok && h_ok && b_ok, "gen.kkt.blocks", why + (h_ok ? "" : " H") + (b_ok ? "" : " B"));
  check(symmetric_pattern(K), "gen.kkt.pattern_symmetric_bt_is_transpose");
  check(strictly_dominant(generate_matrix("kkt:n=1000,delta=100", 4)) && !strictly_dominant(K), "gen.kkt.h_dominant");
  // B^T's columns: exactly the constraints whose row holds the unknown
  int64_t bt = 0;
  for (int32_t i = 0; i < n; ++i)
    for (int32_t k = K.rowptr[i]; k < K.rowptr[i + 1]; ++k)
      if (K.colidx[k] >= n) ++bt, c_ok = c_ok && !std::isnan(entry(K, K.colidx[k], i));
  check(c_ok && bt == 4 * m, "gen.kkt.bt_count", std::to_string(bt));
  // parameters, nnz= sizing, seeds
  const CsrMatrix M = generate_matrix("kkt:n=200,m=30,clen=7,delta=0.5", 4);
  check(M.nrows == 216 + 30 && M.rowptr[M.nrows] - M.rowptr[216] == 30 * 8 && entry(M, 216, 216) == -0.5, "gen.kkt.params_m_clen_delta");
  check(generate_matrix("kkt:n=1000,ratio=0.1", 4).nrows == 1100, "gen.kkt.ratio");
  const std::pair<const char *, double> sized[] = {{"kkt:nnz=1M", 1e6}, {"kkt:nnz=300k,m=5000", 3e5}, {"kkt:nnz=200k,clen=20", 2e5}};
  for (const auto &[spec, target] : sized) {
    const CsrMatrix A = generate_matrix(spec, 5);
    check(std::abs(A.view().nnz / target - 1.0) < 0.1, std::string("gen.kkt.sized_by_nnz.") + spec, std::to_string(A.view().nnz));
  }
  const CsrMatrix a = generate_matrix("kkt:n=1000", 4), c = generate_matrix("kkt:n=1000", 5), d = generate_matrix("kkt:n=1000,seed=4", 99);
  check(a.rowptr == K.rowptr && a.colidx == K.colidx && a.values == K.values, "gen.kkt.deterministic");
  check(a.colidx != c.colidx, "gen.kkt.seed_changes_pattern");
  check(d.colidx == a.colidx && d.values == a.values, "gen.kkt.seed_parameter_overrides"); // seed=4 in the spec wins over the argument 99
  bool sym_ok = false; // symmetric=1 accepts the pattern (it checks every entry's mirror): a truly symmetric KKT
  try {
    const CsrMatrix S = generate_matrix("kkt:n=1000,symmetric=1", 4);
    sym_ok            = S.colidx == K.colidx;
    for (int32_t i = 0; i < S.nrows && sym_ok; ++i)
      for (int32_t k = S.rowptr[i]; k < S.rowptr[i + 1]; ++k) sym_ok = sym_ok && entry(S, S.colidx[k], i) == S.values[k];
  } catch (const Error &e) {
    why = e.what();
  }
  check(sym_ok, "gen.kkt.symmetric_values", why);
  check(bad("kkt:n=1000,m=10,ratio=0.1", "either m= or ratio="), "gen.error.kkt_m_and_ratio");
  check(bad("kkt:n=1000,nonsense=1", "nonsense"), "gen.error.kkt_unknown_parameter");
}

static void generators()
{
  const char *specs[] = {"stencil2d5:n=30", "stencil3d7:n=9", "stencil27:n=7", "fem:rows=2000,min=10,max=80", "rmat:scale=10,ef=8", "randrows:n=1000,minpct=1,maxpct=5", "longrows:n=5000,k=2,share=0.2", "blocks5:n=500", "circuit:n=5000", "banded:n=1000,bw=5", "convdiff3d:n=9,pe=10", "convdiff3d:nx=7,ny=1,nz=5,pe=3,wx=-1,wy=0,wz=2", "scaled:file=test/matrices/crack.mtx,target_nnz=100k", "blockstencil3d:n=6,bs=3", "blockfem:n=800,bs=4", "stencil3d7:n=6,blocksize=2",
                         // bench/suites/partition.txt's newer matrices, smaller
                         "joined:first=banded,second=longrows,share=0.7,nnz=200k", "joined:first=stencil3d7,second=rmat,share=0.7,nnz=200k", "joined:first=stencil27,second=circuit,share=0.6,nnz=200k", "kkt:nnz=200k"};
  for (const char *spec : specs) {
    CsrMatrix   A = generate_matrix(spec, 7), B = generate_matrix(spec, 7);
    std::string why;
    bool        sorted = true, valid = true;
    try {
      validate_csr(A.view());
    } catch (const Error &e) {
      valid = false;
      why   = e.what();
    }
    for (int32_t i = 0; i < A.nrows && sorted; ++i)
      for (int32_t k = A.rowptr[i] + 1; k < A.rowptr[i + 1]; ++k) sorted = sorted && A.colidx[k - 1] < A.colidx[k];
    check(valid && sorted && A.view().nnz > 0, std::string("gen.valid.") + spec, why);
    check(A.rowptr == B.rowptr && A.colidx == B.colidx && A.values == B.values, std::string("gen.deterministic.") + spec);
  }
  // Shapes the suite relies on.
  CsrMatrix s7 = generate_matrix("stencil3d7:n=10", 1);
  check(s7.nrows == 1000 && s7.view().nnz == 1000 * 7 - 6 * 100, "gen.stencil3d7.count");
  CsrMatrix s27 = generate_matrix("stencil27:n=5", 1);
  check(s27.view().nnz == 13 * 13 * 13, "gen.stencil27.count"); // (3n-2)^3
  convdiff3d();
  kkt();
  CsrMatrix lr   = generate_matrix("longrows:n=20000,k=2,share=0.2", 3);
  RowStats  st   = compute_row_stats(lr.view());
  std::vector<int32_t> len(lr.nrows);
  for (int32_t i = 0; i < lr.nrows; ++i) len[i] = lr.rowptr[i + 1] - lr.rowptr[i];
  std::sort(len.rbegin(), len.rend());
  check(std::abs((len[0] + len[1]) / (double)lr.view().nnz - 0.2) < 0.02, "gen.longrows.two_rows_hold_share", std::to_string((len[0] + len[1]) / (double)lr.view().nnz));
  check(st.max_length == len[0], "gen.longrows.stats");
  CsrMatrix sized = generate_matrix("fem:nnz=200k,min=10,max=80", 2);
  check(std::abs(sized.view().nnz / 2e5 - 1.0) < 0.1, "gen.sized_by_nnz", std::to_string(sized.view().nnz));
  // Scaling keeps the row-length distribution exactly (R copies of every length).
  CsrMatrix base = read_matrix_market("test/matrices/crack.mtx");
  CsrMatrix big  = scale_matrix(base, 5 * base.view().nnz, 9);
  std::map<int32_t, int64_t> hb, hg;
  for (int32_t i = 0; i < base.nrows; ++i) hb[base.rowptr[i + 1] - base.rowptr[i]] += 5;
  for (int32_t i = 0; i < big.nrows; ++i) hg[big.rowptr[i + 1] - big.rowptr[i]] += 1;
  check(big.nrows == 5 * base.nrows && big.ncols == 5 * base.ncols && hb == hg, "gen.scaled.keeps_row_lengths");
  // Bad specs: clear errors.
  check(bad("fem:rows=100,nonsense=3", "nonsense"), "gen.error.unknown_parameter");
  check(bad("nosuchgen:n=3", "nosuchgen"), "gen.error.unknown_generator");
  check(bad("convdiff3d:n=4,wx=0,wy=0,wz=0", "wind"), "gen.error.convdiff3d_zero_wind");
  check(bad("convdiff3d:n=4,pe=-1", "pe"), "gen.error.convdiff3d_negative_pe");
}

int main()
{
  try {
    reader();
    generators();
    block_generators();
  } catch (const Error &e) {
    check(false, "matgen.unexpected_error", e.what());
  }
  return gftest::finish();
}
