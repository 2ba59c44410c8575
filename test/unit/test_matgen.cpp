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

static void generators()
{
  const char *specs[] = {"stencil2d5:n=30", "stencil3d7:n=9", "stencil27:n=7", "fem:rows=2000,min=10,max=80", "rmat:scale=10,ef=8", "randrows:n=1000,minpct=1,maxpct=5", "longrows:n=5000,k=2,share=0.2", "blocks5:n=500", "circuit:n=5000", "banded:n=1000,bw=5", "scaled:file=test/matrices/crack.mtx,target_nnz=100k"};
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
  auto bad = [](const std::string &spec, const std::string &word) {
    try {
      generate_matrix(spec, 1);
    } catch (const Error &e) {
      return std::string(e.what()).find(word) != std::string::npos;
    }
    return false;
  };
  check(bad("fem:rows=100,nonsense=3", "nonsense"), "gen.error.unknown_parameter");
  check(bad("nosuchgen:n=3", "nosuchgen"), "gen.error.unknown_generator");
}

int main()
{
  try {
    reader();
    generators();
  } catch (const Error &e) {
    check(false, "matgen.unexpected_error", e.what());
  }
  return gftest::finish();
}
