// Matrix Market reader and writer (see matrix_market.hpp for what is accepted).
#include "matgen/matrix_market.hpp"

#include "matgen/matgen_detail.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace gpuformats {

using matgen_detail::csr_from_triplets;

namespace {

std::string lower(std::string s)
{
  for (char &c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

// A cursor over the file text that knows its line number, for error messages.
class Cursor {
public:
  Cursor(const std::string &text, const std::string &name) : p_(text.c_str()), end_(text.c_str() + text.size()), name_(name) {}

  bool at_end() const { return p_ >= end_; }
  long line() const { return line_; }
  [[noreturn]] void fail(const std::string &what) const { throw Error(ErrorKind::bad_input, name_ + ":" + std::to_string(line_) + ": " + what); }

  // The rest of the current line (without the newline and a trailing CR); moves to the next line.
  std::string take_line()
  {
    const char *s = p_;
    while (p_ < end_ && *p_ != '\n') ++p_;
    const char *e = p_;
    if (e > s && e[-1] == '\r') --e;
    if (p_ < end_) {
      ++p_;
      ++line_;
    }
    return std::string(s, e);
  }
  // Skips blank lines and '%' comment lines; false at the end of the file.
  bool skip_to_data()
  {
    for (;;) {
      const char *q = p_;
      while (q < end_ && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
      if (q >= end_) {
        p_ = q;
        return false;
      }
      if (*q == '\n' || *q == '%') {
        take_line();
        continue;
      }
      p_ = q;
      return true;
    }
  }
  void skip_blanks()
  {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
  }
  // An unsigned decimal integer (an optional '+'), on the current line.
  int64_t integer(const char *what)
  {
    skip_blanks();
    if (p_ < end_ && *p_ == '+') ++p_;
    if (p_ >= end_ || !std::isdigit((unsigned char)*p_)) fail(std::string("expected ") + what);
    int64_t v = 0;
    while (p_ < end_ && std::isdigit((unsigned char)*p_)) {
      v = v * 10 + (*p_ - '0');
      if (v > INT64_MAX / 16) fail(std::string(what) + " is too large");
      ++p_;
    }
    if (p_ < end_ && !std::isspace((unsigned char)*p_)) fail(std::string("malformed ") + what);
    return v;
  }
  // A real number (also Fortran's 1.0D+00 and integers), on the current line.
  double real(const char *what)
  {
    skip_blanks();
    const char *s = p_;
    while (p_ < end_ && !std::isspace((unsigned char)*p_)) ++p_;
    if (p_ == s) fail(std::string("expected ") + what);
    std::string tok(s, p_);
    for (char &c : tok)
      if (c == 'd' || c == 'D') c = 'e';
    char  *stop = nullptr;
    errno       = 0;
    double v    = std::strtod(tok.c_str(), &stop);
    if (stop != tok.c_str() + tok.size()) fail(std::string("malformed ") + what + " '" + std::string(s, p_) + "'");
    return v;
  }
  // Only blanks may follow on this line; moves to the next line.
  void end_line(const char *expected)
  {
    skip_blanks();
    if (p_ < end_ && *p_ == '\r') ++p_;
    if (p_ < end_ && *p_ != '\n') fail(std::string("unexpected text after the entry (expected '") + expected + "' on each line)");
    if (p_ < end_) {
      ++p_;
      ++line_;
    }
  }

private:
  const char        *p_, *end_;
  const std::string &name_;
  long               line_ = 1;
};

} // namespace

CsrMatrix parse_matrix_market(const std::string &text, const std::string &name)
{
  Cursor cur(text, name);
  if (cur.at_end()) throw Error(ErrorKind::bad_input, name + ": empty file, not a Matrix Market matrix");

  // Banner: %%MatrixMarket matrix coordinate <field> <symmetry>
  const std::string        banner = cur.take_line();
  std::istringstream       bs(banner);
  std::vector<std::string> tok;
  for (std::string t; bs >> t;) tok.push_back(lower(t));
  if (tok.empty() || tok[0] != "%%matrixmarket")
    throw Error(ErrorKind::bad_input, name + ":1: not a Matrix Market file (the first line must begin with %%MatrixMarket, it is '" + banner.substr(0, 60) + "')");
  if (tok.size() < 5) throw Error(ErrorKind::bad_input, name + ":1: incomplete banner '" + banner + "' (expected: %%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>)");
  if (tok[1] != "matrix") throw Error(ErrorKind::unsupported, name + ":1: object '" + tok[1] + "' is not supported (only 'matrix')");
  if (tok[2] == "array") throw Error(ErrorKind::unsupported, name + ":1: dense 'array' Matrix Market files are not supported (only sparse 'coordinate')");
  if (tok[2] != "coordinate") throw Error(ErrorKind::bad_input, name + ":1: unknown format '" + tok[2] + "' (expected coordinate)");
  const std::string &field = tok[3], &sym = tok[4];
  if (field == "complex") throw Error(ErrorKind::unsupported, name + ":1: complex matrices are not supported (gpuformats stores real doubles)");
  if (field != "real" && field != "integer" && field != "pattern" && field != "double")
    throw Error(ErrorKind::bad_input, name + ":1: unknown field '" + field + "' (expected real, integer or pattern)");
  const bool pattern = field == "pattern";
  enum { general, symmetric, skew } kind;
  if (sym == "general") kind = general;
  else if (sym == "symmetric" || sym == "hermitian") kind = symmetric;
  else if (sym == "skew-symmetric") kind = skew;
  else throw Error(ErrorKind::bad_input, name + ":1: unknown symmetry '" + sym + "' (expected general, symmetric, skew-symmetric)");
  if (pattern && kind == skew) throw Error(ErrorKind::bad_input, name + ":1: a pattern matrix cannot be skew-symmetric");

  // Size line: M N NNZ
  if (!cur.skip_to_data()) cur.fail("missing the size line 'rows cols nonzeros'");
  const int64_t M = cur.integer("number of rows"), N = cur.integer("number of columns"), nz = cur.integer("number of nonzeros");
  cur.end_line("rows cols nonzeros");
  if (M > INT32_MAX || N > INT32_MAX) cur.fail("dimensions " + std::to_string(M) + " x " + std::to_string(N) + " exceed 32-bit indices");
  if (kind != general && M != N) cur.fail("a " + sym + " matrix must be square, this one is " + std::to_string(M) + " x " + std::to_string(N));
  if (nz > M * N) cur.fail(std::to_string(nz) + " nonzeros do not fit a " + std::to_string(M) + " x " + std::to_string(N) + " matrix");
  matgen_detail::check_nnz_fits(kind == general ? nz : 2 * nz, name);

  const size_t         cap = (size_t)(kind == general ? nz : 2 * nz);
  std::vector<int32_t> rows, cols;
  std::vector<double>  vals;
  rows.reserve(cap);
  cols.reserve(cap);
  vals.reserve(cap);
  for (int64_t k = 0; k < nz; ++k) {
    if (!cur.skip_to_data()) cur.fail("the file ends after " + std::to_string(k) + " of the " + std::to_string(nz) + " entries the size line announces");
    const std::string at = name + ":" + std::to_string(cur.line()) + ": ";
    const int64_t     i = cur.integer("row index"), j = cur.integer("column index");
    const double  v = pattern ? 1.0 : cur.real("value");
    cur.end_line(pattern ? "row col" : "row col value");
    if (i < 1 || i > M || j < 1 || j > N)
      throw Error(ErrorKind::bad_input, at + "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") outside 1.." + std::to_string(M) + " x 1.." + std::to_string(N) +
                                          (i == 0 || j == 0 ? " (Matrix Market indices are 1-based; this file looks 0-based)" : ""));
    const int32_t r = (int32_t)(i - 1), c = (int32_t)(j - 1);
    if (kind == skew && r == c) {
      if (v != 0.0) throw Error(ErrorKind::bad_input, at + "a skew-symmetric matrix has a nonzero diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) + ")");
      continue;
    }
    rows.push_back(r);
    cols.push_back(c);
    vals.push_back(v);
    if (kind != general && r != c) {
      rows.push_back(c);
      cols.push_back(r);
      vals.push_back(kind == skew ? -v : v);
    }
  }
  if (cur.skip_to_data()) cur.fail("more entries than the " + std::to_string(nz) + " the size line announces");
  return csr_from_triplets((int32_t)M, (int32_t)N, std::move(rows), std::move(cols), std::move(vals));
}

CsrMatrix read_matrix_market(const std::string &path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::bad_input, "cannot open Matrix Market file '" + path + "'");
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(ErrorKind::bad_input, "cannot read Matrix Market file '" + path + "'");
  text.resize((size_t)size);
  in.seekg(0);
  in.read(text.data(), size);
  if (!in) throw Error(ErrorKind::bad_input, "cannot read Matrix Market file '" + path + "'");
  return parse_matrix_market(text, path);
}

void write_matrix_market(const CsrView &A, const std::string &path)
{
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(ErrorKind::bad_input, "cannot write Matrix Market file '" + path + "'");
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A.nrows, A.ncols, (long long)A.nnz);
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) std::fprintf(f, "%d %d %.17g\n", i + 1, A.colidx[k] + 1, A.values[k]);
  const bool ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok) throw Error(ErrorKind::bad_input, "error writing Matrix Market file '" + path + "'");
}

} // namespace gpuformats
