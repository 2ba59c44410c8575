// SURAA device code shared by suraa_cuda.cu (sub-warp, vector and host-launched G1 kernels) and
// suraa_dynamic_rdc.cu (the dynamic-parallelism child kernel): loads, row sums, reductions, and
// the G1 chunk body both G1 variants run. Layout and rules: suraa.hpp. The row sums (strided_dot,
// row_dot, subwarp_lane_dot) also compile for the host (test/unit/test_suraa_g3.cpp emulates the
// G3 kernel with them); the rest only under nvcc.
#pragma once
#include "../../core/loads.cuh"
#include "../../core/warp_sum.cuh"
#include "suraa.hpp"

#include <cmath>

namespace gpuformats {
namespace suraa {

// Loads (core/loads.cuh): the matrix streamed (load_stream), x, perm and the row pointers
// read-only (load_ro); power-law rows gather x at random, so L2 is kept for it.

// sum of values[k] * x[colidx[k]] for k = first, first + stride, ... < end. kUnroll (value, column)
// pairs are loaded, then their kUnroll x entries, before any use: that many loads in flight per
// thread instead of one dependent chain. Unsigned: callers pass row start + lane, which may pass
// 2^31 - 1 (an empty row at nnz = 2^31 - 1); end <= 2^31 - 1 and kUnroll * stride <= 2^12, so
// no index below wraps past 2^32.
template <int kUnroll>
GPUFORMATS_HD double strided_dot(uint32_t first, uint32_t end, uint32_t stride, const int32_t *__restrict__ colidx, const double *__restrict__ values, const double *__restrict__ x)
{
  double         sum  = 0;
  uint32_t       k    = first;
  const uint32_t span = (uint32_t)(kUnroll - 1) * stride;
  for (; k + span < end; k += kUnroll * stride) { // all kUnroll entries exist
    int32_t c[kUnroll];
    double  v[kUnroll], xv[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      c[u] = load_stream(colidx + k + u * stride);
      v[u] = load_stream(values + k + u * stride);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) xv[u] = load_ro(x + c[u]);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum = fma(v[u], xv[u], sum);
  }
  for (; k < end; k += stride) sum = fma(load_stream(values + k), load_ro(x + load_stream(colidx + k)), sum);
  return sum;
}

// One thread's whole row [rs, re) (the sub-warp kernel at T = 1, the paper's scalar kernel, and a
// G1 row whose child launch failed). Rows of 1-2 entries (G3's T = 1) lie next to each other, so
// the lanes of a warp read adjacent addresses; for longer rows the 32 lanes read 32 different
// rows, every load its own memory transaction: after at most one entry that aligns k to an
// even index, entries go by pairs with 16-byte value loads (double2) and 8-byte column loads (int2),
// half the transactions of 8/4-byte loads; two pairs in flight. values and colidx come from
// cudaMalloc (256-byte aligned), so an even k is 16-byte aligned in values and 8-byte in colidx.
GPUFORMATS_HD double row_dot(int32_t rs, int32_t re, const int32_t *__restrict__ colidx, const double *__restrict__ values, const double *__restrict__ x)
{
  double  sum = 0;
  int32_t k   = rs;
  if ((k & 1) && k < re) {
    sum = fma(load_stream(values + k), load_ro(x + load_stream(colidx + k)), sum);
    ++k;
  }
  for (; k < re - 3; k += 4) { // k + 3 < re (re - 3 cannot overflow)
    const double2 v0 = load_stream(reinterpret_cast<const double2 *>(values + k)), v1 = load_stream(reinterpret_cast<const double2 *>(values + k + 2));
    const int2    c0 = load_stream(reinterpret_cast<const int2 *>(colidx + k)), c1 = load_stream(reinterpret_cast<const int2 *>(colidx + k + 2));
    const double  x0 = load_ro(x + c0.x), x1 = load_ro(x + c0.y), x2 = load_ro(x + c1.x), x3 = load_ro(x + c1.y);
    sum = fma(v0.x, x0, sum);
    sum = fma(v0.y, x1, sum);
    sum = fma(v1.x, x2, sum);
    sum = fma(v1.y, x3, sum);
  }
  if (k < re - 1) {
    const double2 v = load_stream(reinterpret_cast<const double2 *>(values + k));
    const int2    c = load_stream(reinterpret_cast<const int2 *>(colidx + k));
    const double  x0 = load_ro(x + c.x), x1 = load_ro(x + c.y);
    sum = fma(v.x, x0, sum);
    sum = fma(v.y, x1, sum);
    k += 2;
  }
  if (k < re) sum = fma(load_stream(values + k), load_ro(x + load_stream(colidx + k)), sum);
  return sum;
}

// Lane t (0 <= t < T) of the T lanes of row [rs, re) in the sub-warp kernel: the sum over entries
// rs + t, rs + t + T, ... < re (none when rs + t >= re: 0). The T partials add up to the row sum.
// T = 1: the whole row by row_dot. T and the unroll are compile-time (the kernel is a template on T).
template <int T>
GPUFORMATS_HD double subwarp_lane_dot(int32_t rs, int32_t re, int32_t t, const int32_t *__restrict__ colidx, const double *__restrict__ values, const double *__restrict__ x)
{
  static_assert(T >= 1 && T <= kWarp && (T & (T - 1)) == 0, "T: a power of two that divides a warp");
  if constexpr (T == 1) return row_dot(rs, re, colidx, values, x);
  else return strided_dot<kSubwarpUnroll>((uint32_t)rs + (uint32_t)t, (uint32_t)re, (uint32_t)T, colidx, values, x);
}

#ifdef __CUDACC__
// Sum over the whole block (blockDim.x a multiple of 32, <= 1024); thread 0 holds it. Every thread
// of the block must call it (it synchronises); `sh` holds 32 doubles and is free again on return.
__device__ __forceinline__ double block_sum(double v, double *sh)
{
  const int lane = threadIdx.x & (kWarp - 1), warp = threadIdx.x / kWarp, nwarps = blockDim.x / kWarp;
  v = warp_sum(v);
  if (nwarps == 1) return v;
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < nwarps ? sh[lane] : 0.0);
  __syncthreads(); // sh is read before anyone writes it again
  return v;
}

// y[row] = alpha * sum + beta * y[row]; beta == 0: y is write-only (may hold NaN).
__device__ __forceinline__ void store_at(int32_t row, double sum, double alpha, double beta, double *__restrict__ y) { y[row] = beta == 0.0 ? alpha * sum : fma(beta, y[row], alpha * sum); }
// The same at row perm[p].
__device__ __forceinline__ void store_row(const DeviceView &v, int32_t p, double sum, double alpha, double beta, double *__restrict__ y) { store_at(load_ro(v.perm + p), sum, alpha, beta, y); }

// Chunk c of G1 row r, by the whole block: its partial sum; the block that finishes a row's last
// chunk adds the row's partials in chunk order (deterministic) and writes y. A one-chunk row
// (<= kG1ChunkEntries entries) is written directly. kUnroll: entries per thread the caller's block
// size gives (child: ~2, host-launched: 8).
template <int kUnroll>
__device__ __forceinline__ void g1_chunk(int32_t r, int32_t c, const DeviceView &v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ double sh[kWarp];
  __shared__ int    last;
  const int32_t     rs = load_ro(v.rowptr + r), re = load_ro(v.rowptr + r + 1);
  const int32_t     c0 = load_ro(v.g1_chunk_start + r), nchunks = load_ro(v.g1_chunk_start + r + 1) - c0;
  const int32_t     first = rs + c * kG1ChunkEntries;
  const int32_t     end   = re - first < kG1ChunkEntries ? re : first + kG1ChunkEntries;
  double            sum   = block_sum(strided_dot<kUnroll>((uint32_t)first + threadIdx.x, (uint32_t)end, blockDim.x, v.colidx, v.values, x), sh);
  if (nchunks == 1) {
    if (threadIdx.x == 0) store_row(v, r, sum, alpha, beta, y);
    return;
  }
  if (threadIdx.x == 0) {
    v.g1_partial[c0 + c] = sum;
    __threadfence(); // the partial is visible device-wide before the count says so
    last = atomicAdd(v.g1_count + r, 1u) == (unsigned)(nchunks - 1);
  }
  __syncthreads();
  if (!last) return; // block-uniform
  __threadfence();
  double t = 0;
  for (int32_t i = threadIdx.x; i < nchunks; i += blockDim.x) t += __ldcg(v.g1_partial + c0 + i); // L2: other blocks' writes
  t = block_sum(t, sh);
  if (threadIdx.x == 0) {
    store_row(v, r, t, alpha, beta, y);
    v.g1_count[r] = 0; // ready for the next product (stream-ordered after this grid)
  }
}

#endif // __CUDACC__

} // namespace suraa
} // namespace gpuformats
