// Checks every format must pass, on any backend: the product against the CSR oracle for several
// (alpha, beta), the slot map, padding, values-only refresh and the diagonal. The host test runs
// them on build_host; the GPU test on build_cuda (through download helpers).
#pragma once
#include "check.hpp"
#include "core/row_stats.hpp"
#include "formats/slot_map.hpp"
#include "formats/format.hpp"
#include "recipe_format.hpp"
#include "test_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <limits>
#include <string>
#include <vector>

namespace gftest {

using namespace gpuformats;

// The refusals a format documents, decided here from the matrix alone (not by the format's code),
// so that a format refusing what it should hold fails: PELLR's fill rule (pellr.hpp): the longest
// row times the stored rows (rows with entries when permuted) above max_fill x nnz; DIA's (below);
// the test-only rowpad's (recipe_format.hpp). No other format declares refusals; out-of-memory
// refusals do not arise at the tests' sizes.
inline bool dia_refusal_expected(const CsrView &A, int64_t max_diags, int64_t max_pad_pct);
inline bool refusal_expected(const FormatOps &ops, const CsrView &A, const int64_t *params)
{
  auto param = [&](const char *n) {
    for (int i = 0; i < ops.nparams; ++i)
      if (std::string(ops.params[i].name) == n) return params[i];
    return (int64_t)-1;
  };
  if (std::string(ops.root) == "dia") return dia_refusal_expected(A, param("max_diags"), param("max_pad_pct"));
  if (std::string(ops.root) == "rowpad") return rowpad::refusal_expected(A, param("max_row"));
  if (std::string(ops.root) != "pellr") return false;
  int64_t width = 0, stored = 0;
  for (int32_t i = 0; i < A.nrows; ++i) {
    const int64_t len = A.rowptr[i + 1] - A.rowptr[i];
    width             = std::max(width, len);
    stored += len > 0 || param("permute") == 0;
  }
  return width * stored > param("max_fill") * A.nnz;
}

// DIA's rule (dia.hpp), from the set of all offsets j - i: a stencil holds at most max_diags of
// them, every row of the greatest length holds them all (so the first does), and the padding
// (offsets x rows - nnz) is at most max_pad_pct % of nnz. An empty matrix builds.
inline bool dia_refusal_expected(const CsrView &A, int64_t max_diags, int64_t max_pad_pct)
{
  if (A.nrows == 0 || A.nnz == 0) return false;
  std::vector<int64_t> offs;
  int64_t              longest = 0;
  for (int32_t i = 0; i < A.nrows; ++i) {
    longest = std::max<int64_t>(longest, A.row_length(i));
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) offs.push_back((int64_t)A.colidx[k] - i);
  }
  std::sort(offs.begin(), offs.end());
  const int64_t distinct = std::unique(offs.begin(), offs.end()) - offs.begin();
  return distinct > longest || longest > max_diags || (longest * A.nrows - A.nnz) * 100 > max_pad_pct * A.nnz;
}

// A build that threw: a pass only where refusal_expected says so, with a refusal (unsupported)
// whose message names the formats that fit.
inline bool check_refusal(const FormatOps &ops, const Error &e, const std::string &name, const CsrView &A, const int64_t *params)
{
  const bool ok = refusal_expected(ops, A, params) && ops.may_refuse && e.kind == ErrorKind::unsupported && std::string(e.what()).find(kFitsHint) != std::string::npos;
  return check(ok, name + ".refusal", std::string(refusal_expected(ops, A, params) ? "" : "a refusal where the format's documented rule expects none: ") + e.what());
}

inline std::vector<double> test_vector(size_t n, uint64_t seed)
{
  std::mt19937_64                        rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double>                    v(n);
  for (double &e : v) e = d(rng);
  return v;
}

// Tolerance for FP64 products summed in another order: relative to the row sums of |a||x|.
inline bool close_products(const CsrView &A, const std::vector<double> &x, const std::vector<double> &got, const std::vector<double> &want, double alpha, double beta, const std::vector<double> &y0, std::string &why)
{
  for (int32_t i = 0; i < A.nrows; ++i) {
    double scale = std::abs(beta * (beta != 0.0 ? y0[i] : 0.0));
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) scale += std::abs(alpha * A.values[k] * x[A.colidx[k]]);
    const double tol = 1e-13 * (A.row_length(i) + 4) * std::max(scale, 1e-300);
    if (!(std::abs(got[i] - want[i]) <= tol)) {
      why = "row " + std::to_string(i) + ": got " + std::to_string(got[i]) + " want " + std::to_string(want[i]);
      return false;
    }
  }
  return true;
}

// The (values, slot_of_csr) contract, read from host copies of the two arrays.
inline bool check_slot_map(const CsrView &A, const std::vector<double> &values, const std::vector<int32_t> &slot_of_csr, std::string &why)
{
  if ((int64_t)slot_of_csr.size() != A.nnz) return why = "slot map size", false;
  std::vector<char> used(values.size(), 0);
  for (int64_t k = 0; k < A.nnz; ++k) {
    const int32_t s = slot_of_csr[k];
    if (s < 0 || (size_t)s >= values.size()) return why = "slot out of range at " + std::to_string(k), false;
    if (used[s]) return why = "slot used twice: " + std::to_string(s), false;
    used[s] = 1;
    if (values[s] != A.values[k]) return why = "value of CSR entry " + std::to_string(k) + " not at its slot", false;
  }
  for (size_t s = 0; s < values.size(); ++s)
    if (!used[s] && values[s] != 0.0) return why = "padding slot " + std::to_string(s) + " is not zero", false;
  return true;
}

// (alpha, beta) cases; beta == 0 runs with y full of NaN (y must be write-only then).
struct ProductCase {
  double      alpha, beta;
  const char *name;
};
inline const std::vector<ProductCase> &product_cases()
{
  static const std::vector<ProductCase> c = {{1.0, 0.0, "mult"}, {1.0, 1.0, "multadd"}, {-2.5, 0.5, "axpby"}};
  return c;
}

// A device builder run on the host (core/thrust_system.cuh: its arrays) against the host builder's
// block: the same nslots, every CSR entry at the same slot, the same values (exactly), and the same
// -mat_view lines and bytes (`describe`, `bytes`: the device build's, from its info).
template <class Arrays>
inline void check_layout_as_host(const std::string &name, const FormatBlock &host, int64_t nnz, const Arrays &a, const std::vector<LayoutStat> &describe, std::size_t bytes)
{
  bool        same = a.nslots == host.nslots && (int64_t)a.values.size() == a.nslots;
  std::string why  = same ? "" : "nslots " + std::to_string(a.nslots) + " vs host " + std::to_string(host.nslots);
  for (int64_t k = 0; same && k < nnz; ++k)
    if (a.slot_of_csr[k] != host.slot_of_csr[k]) same = false, why = "slot of entry " + std::to_string(k);
  for (int64_t s = 0; same && s < a.nslots; ++s)
    if (a.values[s] != host.values[s]) same = false, why = "value at slot " + std::to_string(s);
  check(same, name + ".layout_as_host", why);
  auto text = [](const std::vector<LayoutStat> &st) {
    std::string s;
    for (const LayoutStat &l : st) s += l.key + ": " + l.value + "\n";
    return s;
  };
  std::vector<LayoutStat> dh;
  host.describe(dh);
  check(text(dh) == text(describe) && bytes == host.bytes(), name + ".describe_as_host", text(describe) + "vs host\n" + text(dh));
}

// A device builder's arrays named as its host block's (vals, slots: EVC-HYB's and SURAA's), for
// check_layout_as_host.
struct LayoutArrays {
  int64_t                     nslots;
  const std::vector<double>  &values;
  const std::vector<int32_t> &slot_of_csr;
};

// The host builder's block and the device builder run on the host (device(): fills its arrays), for
// a format that refuses nothing: both must build. The host block, or null when either threw.
template <class DeviceBuild>
inline std::unique_ptr<FormatBlock> build_both(const FormatOps &ops, const CsrView &A, const int64_t *params, DeviceBuild &&device, const std::string &name)
{
  std::unique_ptr<FormatBlock> host;
  std::string                  host_err, dev_err;
  try {
    host = ops.build_host(A, params);
  } catch (const Error &e) {
    host_err = e.what();
  }
  try {
    device();
  } catch (const Error &e) {
    dev_err = e.what();
  }
  check(host_err.empty() && dev_err.empty(), name + ".built", "host '" + host_err + "', device '" + dev_err + "'");
  return dev_err.empty() ? std::move(host) : nullptr;
}

// Whether a device-built array equals the host builder's, bit for bit; else why names it.
template <class T>
inline bool same_array(const std::vector<T> &dev, const std::vector<T> &host, const std::string &what, std::string &why)
{
  if (dev.size() != host.size()) return why = what + ": size " + std::to_string(dev.size()) + " vs host " + std::to_string(host.size()), false;
  for (size_t k = 0; k < dev.size(); ++k)
    if (std::memcmp(&dev[k], &host[k], sizeof(T)) != 0) return why = what + " at " + std::to_string(k), false;
  return true;
}

// One parameter off its default: the tests' variants of a format's parameters.
struct ParamVariant {
  const char *tag;   // "" for the defaults
  int         param; // index into the format's params (its Param enum)
  int64_t     value;
};
inline std::vector<int64_t> with_variant(std::vector<int64_t> def, const ParamVariant &v)
{
  def[v.param] = v.value;
  return def;
}

// An emulated product, emulate(alpha, x, beta, y_in) -> y, against the CSR product, for every
// product case (beta == 0: y_in full of NaN).
template <class Emulate>
inline void check_emulated_products(const std::string &name, const CsrView &A, Emulate &&emulate)
{
  const std::vector<double> x = test_vector(A.ncols, 5), y0 = test_vector(A.nrows, 6);
  for (const ProductCase &pc : product_cases()) {
    std::vector<double> yin = y0;
    if (pc.beta == 0.0) yin.assign(A.nrows, std::numeric_limits<double>::quiet_NaN());
    const std::vector<double> got = emulate(pc.alpha, x, pc.beta, yin);
    std::vector<double>       want(A.nrows);
    for (int32_t i = 0; i < A.nrows; ++i) {
      double s = 0;
      for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) s += A.values[k] * x[A.colidx[k]];
      want[i] = pc.alpha * s + (pc.beta != 0.0 ? pc.beta * y0[i] : 0.0);
    }
    std::string why;
    check(close_products(A, x, got, want, pc.alpha, pc.beta, y0, why), name + ".product." + pc.name, why);
  }
}

// Rows without entries never read x: with x all +Inf they give exactly 0 (beta == 0, y full of NaN
// before) and beta * y0 (beta == 0.5). A layout that pads such a row (EVC-HYB's windowed slices)
// would give NaN from 0.0 * Inf. run(alpha, x, beta, y_in) returns the product.
template <class Run>
inline bool empty_rows_ignore_x(const CsrView &A, Run &&run, std::string &why)
{
  const std::vector<double> xinf(A.ncols, INFINITY), y0 = test_vector(A.nrows, 7);
  for (double beta : {0.0, 0.5}) {
    const std::vector<double> got = run(1.0, xinf, beta, beta == 0.0 ? std::vector<double>(A.nrows, NAN) : y0);
    for (int32_t i = 0; i < A.nrows; ++i)
      if (A.row_length(i) == 0 && got[i] != beta * y0[i]) return why = "empty row " + std::to_string(i) + " gave " + std::to_string(got[i]) + " with beta " + std::to_string(beta) + " and x = Inf", false;
  }
  return true;
}

// Values a parameter is tested at beyond its range ends: a sort window's two layouts (0: global,
// 64: many small windows) besides -1 (auto, the default) and INT32_MAX (one window); pJDS long
// rows off (0) and at thresholds the small test matrices cross (3, 40) besides -1 and 256.
inline std::vector<int64_t> extra_param_values(const FormatParam &p)
{
  if (std::string(p.name) == "sort_window") return {0, 64};
  if (std::string(p.name) == "long_row") return {0, 3, 40};
  if (std::string(p.name) == "window") return {32, 1000}; // suraa: the smallest window, and one that is no power of two
  return {};
}

} // namespace gftest
