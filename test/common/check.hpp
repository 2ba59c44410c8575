// The one test harness: each test program prints "ok <name>" or "not ok <name>: why" per check
// (test/run.sh counts them) and exits non-zero if any check failed.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace gftest {

inline int &failures()
{
  static int n = 0;
  return n;
}

inline bool check(bool cond, const std::string &name, const std::string &why = "")
{
  if (cond) std::printf("ok %s\n", name.c_str());
  else {
    std::printf("not ok %s%s%s\n", name.c_str(), why.empty() ? "" : ": ", why.c_str());
    failures()++;
  }
  std::fflush(stdout);
  return cond;
}

// Relative error ||a - b|| / max(||b||, tiny)
template <class VecA, class VecB>
double rel_error(const VecA &a, const VecB &b, size_t n)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = a[i] - b[i];
    if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
    num += d * d;
    den += b[i] * b[i];
  }
  return std::sqrt(num) / std::max(std::sqrt(den), 1e-300);
}

inline int finish() { return failures() ? 1 : 0; }

} // namespace gftest
