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
  const double  *values;
};

inline KernelArgs kernel_args(const Geometry &g, const double *values)
{
  KernelArgs k{g.nrows, g.ndiag, g.stride, g.nupper, g.diag, {}, {}, {}, values};
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

// Mirrored reads, for symmetric values: row i's sum from the diagonal and the upper offsets, its
// lower entries the upper ones of rows i - o, read first (ascending columns: the CSR order, the
// same sum bit for bit). The values are read through the cache (their second read, o rows later,
// hits L2).
GPUFORMATS_HD double row_sum_mirrored(const KernelArgs &k, int32_t i, const double *__restrict__ x)
{
  double sum = 0.0;
  for (int32_t u = k.nupper - 1; u >= 0; --u) {
    const int32_t j = i - k.offsets[k.upper[u]];
    if (j >= 0) {
      const double v = load_ro(k.values + (int64_t)k.upper[u] * k.stride + j);
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

// y[i] = alpha * (row i of A) x + beta * y[i]: full or mirrored reads.
GPUFORMATS_HD void row_product(const KernelArgs &k, int32_t i, bool mirrored, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const double s = alpha * (mirrored ? row_sum_mirrored(k, i, x) : row_sum(k, i, x));
  y[i]           = beta == 0.0 ? s : s + beta * y[i];
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

} // namespace dia
} // namespace gpuformats
