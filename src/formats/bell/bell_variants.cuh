// BELL product kernels as tuning policies (CUB's style): every policy is a thread body over the
// same layout (bell.hpp; no builder change) plus its launch shape, so bell_cuda.cu picks one per
// block size in a table (ProductPolicy) and bench_bell times them all side by side. The bodies are
// __host__ __device__: test_bell_variants runs each one on the host, thread by thread, against
// spmv_host. Each thread writes only its own rows of y, so any order of threads gives the product.
//
// Why variants: the current body (slice_lane, policy::Current) reaches 57-70% of copy bandwidth
// on block 7-point stencils where the scalar EVC-HYB kernel reaches 96-98%. Per step of kSteps
// slots a lane waits twice (block column, then x) with only that step's values in flight; EVC-HYB
// keeps 8 entries (16-byte value loads) in flight per thread at 1024 threads per SM. The knobs:
//   D      value doubles a lane loads per batch: U = clamp(D / bs, 1, 8) slots (more bytes in
//          flight per round trip)
//   C      0: block columns per batch (two dependent round trips per batch, as Current);
//          C > 0: the block columns of C slots (rounded up to a multiple of U) first, in one round
//          trip, then their batches of values and x: a 7-point block row (w = 7 <= 8) waits for
//          its columns once, and the values of every batch depend on nothing
//   X2     x read as double2 where bs is even (bs/2 16-byte loads per block instead of bs)
//   RO     block columns through __ldg (read-only path) instead of the streaming load
//   CH     full slices (h == 32 / bs) run with h a compile-time constant: the value strides become
//          immediate offsets (EVC-HYB's SC trick: fewer address registers for loads in flight)
//   MINB   __launch_bounds__(256, MINB): MINB blocks of 256 per SM (4: <= 64 registers, 1024
//          threads; 2: <= 128)
// BlockRow policies assign a block row per thread instead of a scalar row per lane (bs accumulators,
// x read once per block, values at stride bs between threads: bs times the L1 wavefronts of a
// lane's coalesced read, the same DRAM sectors; 16-byte value loads where bs is even).
#pragma once
#include "bell_device.cuh"

#include <cstdint>
#include <string>
#include <tuple>

namespace gpuformats {
namespace bell {

GPUFORMATS_HD void store_row(double *y, int32_t row, double alpha, double beta, double sum)
{
  y[row] = beta == 0.0 ? alpha * sum : fma(beta, y[row], alpha * sum); // beta == 0: y write-only
}

template <int BS, int D>
constexpr int kBatchSlots = D / BS < 1 ? 1 : D / BS > 8 ? 8 : D / BS;

// x[bc*BS + b] for b < BS; X2 (BS even, x 16-byte aligned: checked by the caller): double2 loads.
template <int BS, bool X2>
GPUFORMATS_HD void load_x_block(const double *__restrict__ x, int32_t bc, double (&xv)[BS])
{
  const double *p = x + (int64_t)bc * BS;
  if constexpr (X2 && BS % 2 == 0) {
#pragma unroll
    for (int b = 0; b < BS; b += 2) {
      const double2 t = load_ro(reinterpret_cast<const double2 *>(p) + b / 2);
      xv[b] = t.x, xv[b + 1] = t.y;
    }
  } else {
#pragma unroll
    for (int b = 0; b < BS; ++b) xv[b] = load_ro(p + b);
  }
}

// A lane's row sum over w slots: slot j's block column at bcp[j*h], its value of entry b at
// vp[(j*BS + b) * h*BS]. HC: h at compile time (0: h_rt). Offsets are int32: a slice's values lie
// below nslots*bs^2 <= INT32_MAX (bell.hpp's overflow refusal).
template <int BS, int U, int C, bool X2, bool RO, int HC>
GPUFORMATS_HD double lane_sum(const int32_t *bcp, const double *vp, int32_t h_rt, int32_t w, const double *__restrict__ x)
{
  const int32_t h    = HC ? HC : h_rt;
  const int32_t step = h * BS;
  auto          bcol = [&](int32_t j) { return RO ? load_ro(bcp + j * h) : load_stream(bcp + j * h); };
  double        sum  = 0.0;
  if constexpr (C == 0) {
#pragma unroll 1 // the batch is the unit (unrolled further, ptxas hoists loads and spills)
    for (int32_t j = 0; j < w; j += U) {
      int32_t bc[U];
      double  v[U][BS], xv[U][BS];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const bool in = j + u < w;
        bc[u]         = in ? bcol(j + u) : 0;
#pragma unroll
        for (int b = 0; b < BS; ++b) v[u][b] = in ? load_stream(vp + ((j + u) * BS + b) * step) : 0.0;
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (j + u < w) load_x_block<BS, X2>(x, bc[u], xv[u]);
        else
#pragma unroll
          for (int b = 0; b < BS; ++b) xv[u][b] = 0.0;
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int b = 0; b < BS; ++b) sum = fma(v[u][b], xv[u][b], sum);
    }
  } else {
    constexpr int CC = (C + U - 1) / U * U; // whole batches
#pragma unroll 1
    for (int32_t j0 = 0; j0 < w; j0 += CC) {
      int32_t bc[CC];
#pragma unroll
      for (int c = 0; c < CC; ++c) bc[c] = j0 + c < w ? bcol(j0 + c) : 0; // one round trip
      // Batches in a loop that is not unrolled: unrolled, ptxas hoists every batch's loads above
      // the first use and spills (400-900 bytes at 64 registers). bc rotates by U per batch so
      // it stays in registers (constant indices).
#pragma unroll 1
      for (int32_t j = j0; j < w && j < j0 + CC; j += U) {
        double v[U][BS], xv[U][BS];
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int b = 0; b < BS; ++b) v[u][b] = j + u < w ? load_stream(vp + ((j + u) * BS + b) * step) : 0.0;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (j + u < w) load_x_block<BS, X2>(x, bc[u], xv[u]);
          else
#pragma unroll
            for (int b = 0; b < BS; ++b) xv[u][b] = 0.0;
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int b = 0; b < BS; ++b) sum = fma(v[u][b], xv[u][b], sum);
#pragma unroll
        for (int c = 0; c + U < CC; ++c) bc[c] = bc[c + U];
      }
    }
  }
  return sum;
}

GPUFORMATS_HD bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

// One lane per scalar row (slice_lane's mapping and empty-row rule) with lane_sum's knobs.
template <int BS, int U, int C, bool X2, bool RO, bool CH>
GPUFORMATS_HD void lane_thread(const KernelArgs &k, int32_t s, int32_t l, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t h = k.nbrows - s * k.slice < k.slice ? k.nbrows - s * k.slice : k.slice;
  if (l >= h * BS) return;
  const int32_t r = l / BS, a = l - r * BS;
  const int32_t pr = load_ro(k.perm + s * k.slice + r), first = load_ro(k.slice_ptr + s);
  double        sum = 0.0;
  if (pr >= 0) { // an empty block row reads nothing (x may hold Inf there)
    const int32_t  w   = (load_ro(k.slice_ptr + s + 1) - first) / h;
    const int32_t *bcp = k.block_col + first + r;
    const double  *vp  = k.values + (int64_t)first * BS * BS + l;
    constexpr int  kS  = kWarp / BS < 1 ? 1 : kWarp / BS;
    constexpr bool kX2 = X2 && BS % 2 == 0;
    const bool     x2  = kX2 && aligned16(x); // uniform: a misaligned x (a placed array) reads scalars
    if (CH && h == kS) sum = x2 ? lane_sum<BS, U, C, kX2, RO, kS>(bcp, vp, h, w, x) : lane_sum<BS, U, C, false, RO, kS>(bcp, vp, h, w, x);
    else sum = x2 ? lane_sum<BS, U, C, kX2, RO, 0>(bcp, vp, h, w, x) : lane_sum<BS, U, C, false, RO, 0>(bcp, vp, h, w, x);
  }
  store_row(y, (pr < 0 ? ~pr : pr) * BS + a, alpha, beta, sum);
}

// One thread per block row (position p): bs accumulators; entry (a, b) of slot j at
// vp[(j*BS + b) * h*BS + a], the BS entries of one b contiguous (double2 where V2 and BS even:
// the values array is cudaMalloc'd and every block row's run starts at an even index then).
template <int BS, int U, bool V2, bool X2>
GPUFORMATS_HD void brow_sums(const int32_t *bcp, const double *vp, int32_t h, int32_t w, const double *__restrict__ x, double (&sum)[BS])
{
  const int32_t step = h * BS;
#pragma unroll 1
  for (int32_t j = 0; j < w; j += U) {
    int32_t bc[U];
#pragma unroll
    for (int u = 0; u < U; ++u) bc[u] = j + u < w ? load_ro(bcp + (j + u) * h) : 0;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool in = j + u < w;
      double     xv[BS];
      if (in) load_x_block<BS, X2>(x, bc[u], xv);
      else
#pragma unroll
        for (int b = 0; b < BS; ++b) xv[b] = 0.0;
#pragma unroll
      for (int b = 0; b < BS; ++b) {
        const double *p = vp + ((j + u) * BS + b) * step;
        double        v[BS];
        if constexpr (V2 && BS % 2 == 0) {
#pragma unroll
          for (int a = 0; a < BS; a += 2) {
            const double2 t = in ? load_stream(reinterpret_cast<const double2 *>(p) + a / 2) : double2{0.0, 0.0};
            v[a] = t.x, v[a + 1] = t.y;
          }
        } else {
#pragma unroll
          for (int a = 0; a < BS; ++a) v[a] = in ? load_stream(p + a) : 0.0;
        }
#pragma unroll
        for (int a = 0; a < BS; ++a) sum[a] = fma(v[a], xv[b], sum[a]);
      }
    }
  }
}

template <int BS, int U, bool V2>
GPUFORMATS_HD void brow_thread(const KernelArgs &k, int32_t p, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  if (p >= k.nbrows) return;
  const int32_t s = p / k.slice, r = p - s * k.slice;
  const int32_t h = k.nbrows - s * k.slice < k.slice ? k.nbrows - s * k.slice : k.slice;
  const int32_t pr = load_ro(k.perm + p), first = load_ro(k.slice_ptr + s);
  double        sum[BS];
#pragma unroll
  for (int a = 0; a < BS; ++a) sum[a] = 0.0;
  if (pr >= 0) {
    const int32_t  w   = (load_ro(k.slice_ptr + s + 1) - first) / h;
    const int32_t *bcp = k.block_col + first + r;
    const double  *vp  = k.values + (int64_t)first * BS * BS + r * BS;
    if (BS % 2 == 0 && aligned16(x)) brow_sums<BS, U, V2, true>(bcp, vp, h, w, x, sum);
    else brow_sums<BS, U, V2, false>(bcp, vp, h, w, x, sum);
  }
  const int32_t row0 = (pr < 0 ? ~pr : pr) * BS;
#pragma unroll
  for (int a = 0; a < BS; ++a) store_row(y, row0 + a, alpha, beta, sum[a]);
}

// ------------------------------------------------------------------------------------------------
// Policies: kThreads, kMinBlocks (the launch bounds), threads(k) (the grid's threads), name(), and
// thread<BS>(k, t, ...) (the body of grid thread t).
namespace policy {

struct SliceLanes { // one lane per scalar row, lanes_per_slice lanes per slice
  static int64_t threads(const KernelArgs &k) { return (int64_t)k.nslices * k.lanes; }
};

// The kernel as first written: slice_lane<BS> (kSteps<BS> slots per step), 256 threads, no cap.
struct Current : SliceLanes {
  static constexpr int kThreads = bell::kThreads, kMinBlocks = 1;
  static std::string   name() { return "current"; }
  template <int BS>
  GPUFORMATS_HD static void thread(const KernelArgs &k, int64_t t, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
  {
    const int32_t s = (int32_t)(t / k.lanes), l = (int32_t)(t - (int64_t)s * k.lanes);
    if (s < k.nslices) slice_lane<BS>(k, s, l, alpha, x, beta, y);
  }
};

template <int D, int C, bool X2, bool RO, bool CH, int MINB>
struct Lane : SliceLanes {
  static constexpr int kThreads = bell::kThreads, kMinBlocks = MINB;
  static std::string   name()
  {
    return "lane_d" + std::to_string(D) + (C ? "_c" + std::to_string(C) : "") + (X2 ? "_x2" : "") + (RO ? "_ro" : "") + (CH ? "_ch" : "") + "_m" + std::to_string(MINB);
  }
  template <int BS>
  GPUFORMATS_HD static void thread(const KernelArgs &k, int64_t t, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
  {
    const int32_t s = (int32_t)(t / k.lanes), l = (int32_t)(t - (int64_t)s * k.lanes);
    if (s < k.nslices) lane_thread<BS, kBatchSlots<BS, D>, C, X2, RO, CH>(k, s, l, alpha, x, beta, y);
  }
};

template <int U, bool V2, int MINB>
struct BlockRow {
  static constexpr int kThreads = bell::kThreads, kMinBlocks = MINB;
  static std::string   name() { return "brow_u" + std::to_string(U) + (V2 ? "_v2" : "") + "_m" + std::to_string(MINB); }
  static int64_t       threads(const KernelArgs &k) { return k.nbrows; }
  template <int BS>
  GPUFORMATS_HD static void thread(const KernelArgs &k, int64_t t, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
  {
    if (t < k.nbrows) brow_thread<BS, U, V2>(k, (int32_t)t, alpha, x, beta, y);
  }
};

} // namespace policy

// Every policy bench_bell times and test_bell_variants checks (Current first). Adding one here
// adds it to both.
using AllPolicies = std::tuple<policy::Current,                              //
                               policy::Lane<8, 0, false, false, false, 4>,  // b: ~Current's batches, 64-register cap
                               policy::Lane<16, 0, false, false, false, 2>, // b: twice the slots per step, 128 registers
                               policy::Lane<8, 8, false, false, false, 4>,  // a: block columns first
                               policy::Lane<16, 8, false, false, false, 2>, // a + b
                               policy::Lane<24, 8, false, false, false, 2>, // a: a 7-point row in one batch (bs <= 3)
                               policy::Lane<8, 8, true, true, true, 4>,     // a + d + e (x double2, columns by __ldg, constant strides)
                               policy::Lane<16, 8, true, true, true, 2>,    // a + b + d + e
                               policy::Lane<16, 0, true, true, true, 2>,    // b + d + e
                               policy::BlockRow<1, true, 4>,                // c: a block row per thread
                               policy::BlockRow<2, true, 2>>;               // c: two slots per batch, 128 registers

template <class F, class... P>
void for_each_policy(F &&f, std::tuple<P...> *)
{
  (f(P{}), ...);
}
template <class F>
void for_each_policy(F &&f)
{
  for_each_policy(f, (AllPolicies *)nullptr);
}

#ifdef __CUDACC__
template <int BS, class P>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks) bell_spmv(KernelArgs k, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  P::template thread<BS>(k, (int64_t)blockIdx.x * P::kThreads + threadIdx.x, alpha, x, beta, y);
}

template <int BS, class P>
void launch_policy(const KernelArgs &k, double alpha, const double *x, double beta, double *y, cudaStream_t stream)
{
  const int64_t threads = P::threads(k);
  if (threads == 0) return;
  bell_spmv<BS, P><<<(unsigned)((threads + P::kThreads - 1) / P::kThreads), P::kThreads, 0, stream>>>(k, alpha, x, beta, y);
}

// bs (1..8) at run time -> launch_policy<bs, P>; false for a bs without a kernel.
template <class P>
bool launch_policy_bs(int32_t bs, const KernelArgs &k, double alpha, const double *x, double beta, double *y, cudaStream_t stream)
{
  switch (bs) {
  case 1: launch_policy<1, P>(k, alpha, x, beta, y, stream); return true;
  case 2: launch_policy<2, P>(k, alpha, x, beta, y, stream); return true;
  case 3: launch_policy<3, P>(k, alpha, x, beta, y, stream); return true;
  case 4: launch_policy<4, P>(k, alpha, x, beta, y, stream); return true;
  case 5: launch_policy<5, P>(k, alpha, x, beta, y, stream); return true;
  case 6: launch_policy<6, P>(k, alpha, x, beta, y, stream); return true;
  case 7: launch_policy<7, P>(k, alpha, x, beta, y, stream); return true;
  case 8: launch_policy<8, P>(k, alpha, x, beta, y, stream); return true;
  default: return false;
  }
}
#endif

} // namespace bell
} // namespace gpuformats
