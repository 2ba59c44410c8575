// DIA's row functions, compiled for the device and the host: the kernel's thread body (full and
// mirrored reads), the mirror check of one row, and what they read (KernelArgs). The host block
// and the tests run the very same functions. Layout and invariants: dia.hpp.
#pragma once
#include "dia.hpp"

#include "../../core/loads.cuh"

#include <algorithm>
#include <cstdint>

namespace gpuformats {
namespace dia {

// What a product reads, passed by value: the offsets travel in the kernel's parameters (the
// constant bank: one broadcast read per warp).
struct KernelArgs {
  int32_t        nrows, ndiag, stride, nupper, diag;
  int32_t        offsets[kMaxDiags];
  int32_t        upper[kMaxDiags], mirror[kMaxDiags];
  const double   *values;
  const uint32_t *unmirrored; // bit i: row i's lower entries differ from their mirrors; null: full reads
};

inline KernelArgs kernel_args(const Geometry &g, const double *values, const uint32_t *unmirrored)
{
  KernelArgs k{g.nrows, g.ndiag, g.stride, g.nupper, g.diag, {}, {}, {}, values, g.paired ? unmirrored : nullptr};
  std::copy(g.offsets, g.offsets + g.ndiag, k.offsets);
  std::copy(g.upper, g.upper + g.nupper, k.upper);
  std::copy(g.mirror, g.mirror + g.nupper, k.mirror);
  return k;
}

// Row i's sum from every offset, in CSR order; zeros (padding) never read x. The values stream
// (read once per product).
GPUFORMATS_HD double row_sum(const KernelArgs &k, int32_t i, const double *__restrict__ x)
{
  double sum = 0.0;
#ifdef __CUDA_ARCH__
#pragma unroll 8
#endif
  for (int32_t d = 0; d < k.ndiag; ++d) {
    const double v = load_stream(k.values + (int64_t)d * k.stride + i);
    if (v != 0.0) sum += v * load_ro(x + i + k.offsets[d]);
  }
  return sum;
}

// Whether row i is marked in unmirrored (its lower entries differ from their mirrors).
GPUFORMATS_HD bool row_marked(const KernelArgs &k, int32_t i) { return (load_ro(k.unmirrored + (i >> 5)) >> (i & 31)) & 1u; }

// Mirrored reads: row i's sum from the diagonal and the upper offsets, its lower entries the upper
// ones of rows i - o, read first (ascending columns: the CSR order, the same sum bit for bit). A
// marked row leaves its lower entries out (a select, not a branch: no divergence); add_own_lower
// adds them afterwards. The values are read through the cache (their second read, o rows later,
// hits L2).
GPUFORMATS_HD double row_sum_mirrored(const KernelArgs &k, int32_t i, const double *__restrict__ x)
{
  const bool own = row_marked(k, i);
  double     sum = 0.0;
  for (int32_t u = k.nupper - 1; u >= 0; --u) {
    const int32_t j = i - k.offsets[k.upper[u]];
    if (j >= 0) {
      const double v = own ? 0.0 : load_ro(k.values + (int64_t)k.upper[u] * k.stride + j);
      if (v != 0.0) sum += v * load_ro(x + j);
    }
  }
  if (k.diag >= 0) {
    const double v = load_ro(k.values + (int64_t)k.diag * k.stride + i);
    if (v != 0.0) sum += v * load_ro(x + i);
  }
  for (int32_t u = 0; u < k.nupper; ++u) {
    const double v = load_ro(k.values + (int64_t)k.upper[u] * k.stride + i);
    if (v != 0.0) sum += v * load_ro(x + i + k.offsets[k.upper[u]]);
  }
  return sum;
}

// y[i] = alpha * (row i of A) x + beta * y[i]: full reads (unmirrored null), or mirrored reads,
// after which every marked row needs add_own_lower.
GPUFORMATS_HD void row_product(const KernelArgs &k, int32_t i, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const double s = alpha * (k.unmirrored ? row_sum_mirrored(k, i, x) : row_sum(k, i, x));
  y[i]           = beta == 0.0 ? s : s + beta * y[i];
}

// y[i] += alpha * (row i's own lower entries) x, for a marked row after row_product.
GPUFORMATS_HD void add_own_lower(const KernelArgs &k, int32_t i, double alpha, const double *__restrict__ x, double *__restrict__ y)
{
  double sum = 0.0;
  for (int32_t d = 0; d < k.ndiag && k.offsets[d] < 0; ++d) {
    const double v = load_ro(k.values + (int64_t)d * k.stride + i);
    if (v != 0.0) sum += v * load_ro(x + i + k.offsets[d]);
  }
  y[i] += alpha * sum;
}

// The marked rows of word w: add_own_lower for each (the second kernel of a mirrored product).
GPUFORMATS_HD void add_own_lower_word(const KernelArgs &k, int64_t w, double alpha, const double *__restrict__ x, double *__restrict__ y)
{
  for (uint32_t bits = k.unmirrored[w]; bits; bits &= bits - 1) {
    int b = 0;
    while (!((bits >> b) & 1u)) ++b;
    add_own_lower(k, (int32_t)(w * 32 + b), alpha, x, y);
  }
}

// Row j's lower entries differ from their mirrors: A(j, j - o) != A(j - o, j) for an upper offset
// o with j - o >= 0 (bitwise ==: a NaN differs from itself, so its row reads its own entries).
GPUFORMATS_HD bool row_unmirrored(const KernelArgs &k, int32_t j)
{
  for (int32_t u = 0; u < k.nupper; ++u) {
    const int32_t i = j - k.offsets[k.upper[u]];
    if (i >= 0 && !(k.values[(int64_t)k.mirror[u] * k.stride + j] == k.values[(int64_t)k.upper[u] * k.stride + i])) return true;
  }
  return false;
}

// Words of the unmirrored bitmap: one bit per row.
inline int64_t unmirrored_words(int32_t nrows) { return ((int64_t)nrows + 31) / 32; }

} // namespace dia
} // namespace gpuformats
