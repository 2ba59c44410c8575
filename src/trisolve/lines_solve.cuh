// Schedule::lines's solve (the plan: lines.hpp), on a Thrust system (core/thrust_system.cuh): the
// device kernel, or on the host the same steps in the blocks' ticket order, lockstep within a
// block, so that CI runs the plan's every read. Level::Triangle holds one per triangle.
//
// The kernel (the prototype's best, bench/experiments/trisolve-lines/): a block takes a ticket (its
// rank in the plan's topological order), then runs its steps one barrier apart. A step's slots
// (reads, values, the right-hand side, D^-1) are loaded D steps ahead into registers, and the work
// vector's values read D/2 steps ahead; a value still pending is polled at its use. The work
// vector (the plan's order) starts all-ones bits (kPendingBits: a NaN no arithmetic makes; a
// result with those bits is stored as the canonical NaN), set by one memset before each solve.
#pragma once
#include "../core/csr.hpp"
#include "../core/host_upload.hpp"
#include "../core/thrust_system.cuh"
#include "lines.hpp"

#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace gpuformats {
namespace trisolve {
namespace lines {

constexpr uint64_t kPendingBits = ~0ull;

__host__ __device__ inline long long bits_of(double v)
{
#ifdef __CUDA_ARCH__
  return __double_as_longlong(v);
#else
  long long b;
  std::memcpy(&b, &v, sizeof b);
  return b;
#endif
}
__host__ __device__ inline double from_bits(long long b)
{
#ifdef __CUDA_ARCH__
  return __longlong_as_double(b);
#else
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
#endif
}

// The caller's vectors (level_solve.cuh's SolveRow semantics): out[i] = the row's result; mark[i]
// and, with consume, rhs[i] set to `marker` (the other schedules' pending value) once read.
template <class V>
struct Args {
  const int32_t *block_warps, *warp_smin, *lane_off, *lane_len, *bs0, *bs1, *ref, *perm_row;
  const int64_t *warp_row0;
  const V       *val;
  const double  *dinv;
  double        *rhs, *out, *mark, *x;
  bool           consume;
  int            R, wpb;
  long long      marker;
  // the result stored: never either pending value
  __host__ __device__ double result(double acc, double d) const
  {
    const double r = acc * d;
    const long long b = bits_of(r);
    return b == (long long)kPendingBits || b == marker ? from_bits(0x7ff8000000000000ll) : r;
  }
  __host__ __device__ void publish(int32_t i, double r) const
  {
    out[i] = r;
    if (mark) mark[i] = from_bits(marker);
    if (consume) rhs[i] = from_bits(marker);
  }
};

template <int K, int D, class V>
__global__ void __launch_bounds__(256) lines_kernel(Args<V> a, uint32_t *ticket, uint32_t *next_ticket)
{
  extern __shared__ double ring[];
  __shared__ uint32_t      blk;
  if (threadIdx.x == 0) {
    blk = atomicAdd(ticket, 1u);
    if (blk == 0) *next_ticket = 0; // the other triangle's, for its launch after this one
  }
  __syncthreads();
  const int32_t lane = threadIdx.x % 32, R = a.R;
  const int32_t w    = a.block_warps[blk * a.wpb + threadIdx.x / 32];
  const int32_t off  = w >= 0 ? a.lane_off[w * 32 + lane] : 0, len = w >= 0 ? a.lane_len[w * 32 + lane] : 0;
  const int32_t sm   = w >= 0 ? a.warp_smin[w] : 0;
  const int64_t r0   = w >= 0 ? a.warp_row0[w] : 0;
  const int32_t s0 = a.bs0[blk], s1 = a.bs1[blk];
  double       *mine = ring + threadIdx.x * R;
  int32_t       rf[D][K], row[D];
  V             v[D][K];
  double        bb[D], di[D], xg[D][K];
  const auto    load = [&](int u, int32_t t) {
    const int32_t p = t - sm - off;
    if (p >= 0 && p < len) {
      const int64_t at = (r0 + t - sm) * 32 + lane;
      row[u]           = a.perm_row[at];
      bb[u]            = a.rhs[row[u]];
      di[u]            = a.dinv ? a.dinv[at] : 1.0;
#pragma unroll
      for (int m = 0; m < K; ++m) rf[u][m] = __ldg(a.ref + (r0 + t - sm) * (K * 32) + m * 32 + lane), v[u][m] = __ldg(a.val + (r0 + t - sm) * (K * 32) + m * 32 + lane);
    } else {
#pragma unroll
      for (int m = 0; m < K; ++m) rf[u][m] = INT32_MIN;
    }
  };
  const auto xpre = [&](int u) {
#pragma unroll
    for (int m = 0; m < K; ++m) xg[u][m] = rf[u][m] >= 0 ? *(volatile const double *)(a.x + rf[u][m]) : 0.0;
  };
#pragma unroll
  for (int u = 0; u < D; ++u) load(u, s0 + u);
#pragma unroll
  for (int u = 0; u < D / 2; ++u) xpre(u);
  for (int32_t t0 = s0; t0 < s1; t0 += D) {
#pragma unroll
    for (int u = 0; u < D; ++u) {
      const int32_t t = t0 + u, p = t - sm - off;
      xpre((u + D / 2) % D);
      if (t < s1 && p >= 0 && p < len) {
        double acc = bb[u];
#pragma unroll
        for (int m = 0; m < K; ++m) {
          const int32_t r = rf[u][m];
          if (r == INT32_MIN) continue;
          double xj;
          if (r < 0) xj = ring[-(r + 1)];
          else {
            xj = xg[u][m];
            while (__double_as_longlong(xj) == (long long)kPendingBits) xj = *(volatile const double *)(a.x + r);
          }
          acc -= (double)v[u][m] * xj;
        }
        const double res = a.result(acc, di[u]);
        mine[t & (R - 1)] = res;
        *(volatile double *)(a.x + (r0 + t - sm) * 32 + lane) = res;
        a.publish(row[u], res);
      }
      load(u, t + D);
      __syncthreads();
    }
  }
}

// The fill of a plan's per-slot arrays (lines.hpp's invariants) from its chunk map, a row per
// thread, reading M's pattern where it lies (Sys memory): a tally first (the farthest ring read,
// so R; the reads' counts; reads of a row not solved earlier, the plan's own check), then the fill.
struct RowMap {
  Pattern        T;   // M's pattern and the triangle
  const int32_t *pos; // M's values' positions (null: the identity)
  const int32_t *step, *block, *thread;
  const int64_t *at;
  int32_t        C, R, ring;
  __host__ __device__ int32_t step_of(int32_t r) const { return step[r / C] + r % C; }
  __host__ __device__ int64_t at_of(int32_t r) const { return at[r / C] + (int64_t)(r % C) * 32; }
  // the ring holds it: a read of the block at most ring - 1 steps back (R covers them all)
  __host__ __device__ bool in_ring(int32_t r, int32_t j) const { return block[j / C] == block[r / C] && step_of(r) - step_of(j) < ring; }
};

struct Tally {
  int64_t need = 1, shared = 0, global = 0, cross = 0, bad = 0; // the farthest ring read + 1
};
struct TallySum {
  __host__ __device__ Tally operator()(const Tally &a, const Tally &b) const
  {
    return {a.need > b.need ? a.need : b.need, a.shared + b.shared, a.global + b.global, a.cross + b.cross, a.bad + b.bad};
  }
};
struct TallyRow {
  RowMap m;
  __host__ __device__ Tally operator()(int32_t r) const
  {
    Tally         t;
    const int32_t i = m.T.row(r);
    for (int32_t e = m.T.lo(i); e < m.T.hi(i); ++e) {
      const int32_t j = m.T.read(e), d = m.step_of(r) - m.step_of(j);
      if (d <= 0) ++t.bad;
      if (m.in_ring(r, j)) t.need = t.need > d + 1 ? t.need : d + 1, ++t.shared;
      else ++(m.block[j / m.C] == m.block[r / m.C] ? t.global : t.cross);
    }
    return t;
  }
};
struct FillRow {
  RowMap   m;
  int32_t  K;
  bool     unit;
  int32_t *perm_row, *ref, *val_src, *diag_src;
  __host__ __device__ void operator()(int32_t r) const
  {
    const int64_t at = m.at_of(r), row = at / 32;
    const int32_t i = m.T.row(r), l = (int32_t)(at % 32);
    perm_row[at] = i;
    if (!unit) diag_src[at] = m.pos ? m.pos[m.T.dp[i]] : m.T.dp[i];
    for (int32_t e = m.T.lo(i), k = 0; e < m.T.hi(i); ++e, ++k) {
      const int32_t j = m.T.read(e);
      const int64_t q = (row * K + k) * 32 + l;
      val_src[q]      = m.pos ? m.pos[e] : e;
      ref[q]          = m.in_ring(r, j) ? -(1 + m.thread[j / m.C] * m.R + m.step_of(j) % m.R) : (int32_t)m.at_of(j);
    }
  }
};

template <class V>
struct GatherValues {
  const double  *m;
  const int32_t *src;
  V             *out;
  __host__ __device__ void operator()(int64_t q) const { out[q] = src[q] >= 0 ? (V)m[src[q]] : V(0); }
};
struct GatherInverse {
  const double  *m;
  const int32_t *src;
  double        *out;
  __host__ __device__ void operator()(int64_t q) const { out[q] = src[q] >= 0 ? 1.0 / m[src[q]] : 0.0; }
};

// One triangle's plan in the memory of Sys, its values and work vector.
template <class Sys>
struct Lines {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  buf<int32_t>   block_warps, warp_smin, lane_off, lane_len, bs0, bs1, ref, perm_row, val_src, diag_src;
  buf<int64_t>   warp_row0;
  buf<double>    v64, dinv;
  buf<float>     v32;
  mutable buf<double> x;
  Plan           stats; // the plan's figures (its arrays emptied once uploaded)
  bool           unit = true, single = false;
  double         ms_plan = 0, ms_fill = 0; // the host plan; the upload and the fill

  // The triangle of a sorted CSR pattern (Sys memory: rowptr, colidx, dpos its diagonal
  // positions; pos: the values' positions, null for the identity), mirrored if upper; "" or why
  // the plan refuses it. host: the same pattern in host memory, if the caller has it (else copied).
  std::string build(const Sys &sys, int32_t n, const int32_t *rowptr, const int32_t *colidx, const int32_t *dpos, const int32_t *pos, bool upper, bool is_unit, bool fp32, Options o, const Pattern *host = nullptr)
  {
    unit = is_unit, single = fp32;
    const auto           t0 = std::chrono::steady_clock::now();
    std::vector<int32_t> rp, ci, dp;
    Pattern              T = host ? *host : Pattern{};
    if (!host) {
      rp.resize(n + 1), dp.resize(n);
      sys.to_host(rp.data(), rowptr, rp.size());
      ci.resize(rp[n]);
      sys.to_host(ci.data(), colidx, ci.size());
      sys.to_host(dp.data(), dpos, dp.size());
      T = Pattern{n, rp.data(), ci.data(), dp.data()};
    }
    T.upper   = upper;
    o.threads = std::clamp(usable_cpus(), 1, 8); // the passes' own arrays per thread: a few at most
    if constexpr (!std::is_same_v<Sys, HostSystem>) {
      if (o.sms <= 0) GPUFORMATS_CUDA(sm_count_of_current_device(&o.sms));
    }
    Plan              P;
    const std::string why = make_plan(T, o, P);
    const auto        t1  = std::chrono::steady_clock::now();
    ms_plan               = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (!why.empty()) return why;
    put(sys, block_warps, P.block_warps), put(sys, warp_smin, P.warp_smin), put(sys, lane_off, P.lane_off), put(sys, lane_len, P.lane_len);
    put(sys, bs0, P.block_s0), put(sys, bs1, P.block_s1), put(sys, warp_row0, P.warp_row0);
    buf<int32_t> cstep, cblock, cthread;
    buf<int64_t> cat;
    put(sys, cstep, P.chunk_step), put(sys, cblock, P.chunk_block), put(sys, cthread, P.chunk_thread), put(sys, cat, P.chunk_at);
    RowMap     m{Pattern{n, rowptr, colidx, dpos, upper}, pos, cstep.data(), cblock.data(), cthread.data(), cat.data(), P.C, 1, o.ring};
    const auto r0 = thrust::make_counting_iterator<int32_t>(0);
    const Tally t = thrust::transform_reduce(sys.policy(), r0, r0 + n, TallyRow{m}, Tally{}, TallySum{});
    if (t.bad) return "a read of a row not solved at an earlier step (the plan's own check)";
    while (P.R < t.need) P.R *= 2;
    P.shared_refs = t.shared, P.global_refs = t.global, P.cross_refs = t.cross;
    m.R           = P.R;
    const std::size_t slots = (std::size_t)P.rows * 32;
    perm_row.resize(slots), ref.resize(slots * P.K), val_src.resize(slots * P.K);
    thrust::fill(sys.policy(), perm_row.data(), perm_row.data() + slots, -1);
    thrust::fill(sys.policy(), ref.data(), ref.data() + slots * P.K, INT32_MIN);
    thrust::fill(sys.policy(), val_src.data(), val_src.data() + slots * P.K, -1);
    if (!unit) {
      diag_src.resize(slots), dinv.resize(slots);
      thrust::fill(sys.policy(), diag_src.data(), diag_src.data() + slots, -1);
    }
    thrust::for_each(sys.policy(), r0, r0 + n, FillRow{m, P.K, unit, perm_row.data(), ref.data(), val_src.data(), unit ? nullptr : diag_src.data()});
    if (single) v32.resize(slots * P.K);
    else v64.resize(slots * P.K);
    x.resize(slots);
    sys.sync(); // the chunk map goes
    for (auto *a : {&P.block_warps, &P.warp_smin, &P.lane_off, &P.lane_len, &P.block_s0, &P.block_s1, &P.chunk_step, &P.chunk_block, &P.chunk_thread}) *a = {};
    P.warp_row0 = {}, P.chunk_at = {};
    stats       = std::move(P);
    ms_fill     = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    return "";
  }

  void set_values(const Sys &sys, const double *m)
  {
    const auto q0 = thrust::make_counting_iterator<int64_t>(0);
    const auto nv = (int64_t)val_src.size();
    if (single) thrust::for_each(sys.policy(), q0, q0 + nv, GatherValues<float>{m, val_src.data(), v32.data()});
    else thrust::for_each(sys.policy(), q0, q0 + nv, GatherValues<double>{m, val_src.data(), v64.data()});
    if (!unit) thrust::for_each(sys.policy(), q0, q0 + (int64_t)diag_src.size(), GatherInverse{m, diag_src.data(), dinv.data()});
  }

  void solve(const Sys &sys, double *rhs, double *out, double *mark, bool consume, long long marker, uint32_t *ticket, uint32_t *next_ticket) const
  {
    if (single) solve_v(sys, v32.data(), rhs, out, mark, consume, marker, ticket, next_ticket);
    else solve_v(sys, v64.data(), rhs, out, mark, consume, marker, ticket, next_ticket);
  }

  template <class V>
  void solve_v(const Sys &sys, const V *val, double *rhs, double *out, double *mark, bool consume, long long marker, uint32_t *ticket, uint32_t *next_ticket) const
  {
    const Plan &P = stats;
    Args<V>     a{block_warps.data(), warp_smin.data(), lane_off.data(), lane_len.data(), bs0.data(), bs1.data(), ref.data(), perm_row.data(), warp_row0.data(), val, unit ? nullptr : dinv.data(), rhs, out, mark, x.data(), consume, P.R, P.wpb, marker};
    if constexpr (std::is_same_v<Sys, HostSystem>) {
      std::fill(x.begin(), x.end(), from_bits((long long)kPendingBits));
      std::vector<double> ring((std::size_t)P.wpb * 32 * P.R);
      for (int32_t b = 0; b < P.nblocks; ++b) {
        std::fill(ring.begin(), ring.end(), from_bits((long long)kPendingBits));
        for (int32_t t = bs0[b]; t < bs1[b]; ++t)
          for (int32_t tid = 0; tid < P.wpb * 32; ++tid) {
            const int32_t w = block_warps[(std::size_t)b * P.wpb + tid / 32], lane = tid % 32;
            if (w < 0) continue;
            const int32_t p = t - warp_smin[w] - lane_off[w * 32 + lane];
            if (p < 0 || p >= lane_len[w * 32 + lane]) continue;
            const int64_t row = warp_row0[w] + t - warp_smin[w], at = row * 32 + lane;
            double        acc = rhs[perm_row[at]];
            for (int m = 0; m < P.K; ++m) {
              const int32_t r = ref[(row * P.K + m) * 32 + lane];
              if (r == INT32_MIN) continue;
              const double xj = r < 0 ? ring[-(r + 1)] : x[r];
              if (bits_of(xj) == (long long)kPendingBits)
                throw Error(ErrorKind::internal, "trisolve lines: row " + std::to_string(perm_row[at]) + " read a row not yet solved (" + (r < 0 ? "the ring" : "another block") + "): the plan's order is wrong");
              acc -= (double)val[(row * P.K + m) * 32 + lane] * xj;
            }
            const double res = a.result(acc, unit ? 1.0 : dinv[at]);
            ring[(std::size_t)tid * P.R + (t & (P.R - 1))] = res;
            x[at] = res;
            a.publish(perm_row[at], res);
          }
      }
    } else {
      GPUFORMATS_CUDA(cudaMemsetAsync(x.data(), 0xff, sizeof(double) * x.size(), sys.stream));
      if (P.K == 3) launch<3, 8>(sys, a, ticket, next_ticket);
      else if (P.K == 7) launch<7, 4>(sys, a, ticket, next_ticket);
      else launch<13, 2>(sys, a, ticket, next_ticket);
    }
  }

  template <int K, int D, class V>
  void launch(const Sys &sys, const Args<V> &a, uint32_t *ticket, uint32_t *next_ticket) const
  {
    const Plan       &P    = stats;
    const std::size_t smem = sizeof(double) * (std::size_t)P.wpb * 32 * P.R;
    static const bool sized = [] { // the instance's shared-memory limit, once: the device's
      int dev = 0, optin = 0;
      GPUFORMATS_CUDA(cudaGetDevice(&dev));
      GPUFORMATS_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
      GPUFORMATS_CUDA(cudaFuncSetAttribute(lines_kernel<K, D, V>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 1024));
      return true;
    }();
    (void)sized;
    lines_kernel<K, D, V><<<(unsigned)P.nblocks, (unsigned)P.wpb * 32, smem, sys.stream>>>(a, ticket, next_ticket);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw Error(ErrorKind::device, "trisolve lines: the launch of " + std::to_string(P.nblocks) + " blocks of " + std::to_string(P.wpb) + " warps and " + std::to_string(smem) + " bytes of shared memory failed: " + cudaGetErrorString(e));
  }

  std::size_t bytes() const
  {
    // per slot a read, a value; per row position its row, D^-1, the work vector, the right-hand
    // side read and the result written (and a mark or a consumed right-hand side)
    const std::size_t slots = (std::size_t)stats.rows * 32 * stats.K, rows = (std::size_t)stats.rows * 32;
    return slots * (4 + (single ? 4 : 8)) + rows * (4 + (unit ? 0 : 8) + 8 + 24);
  }

  template <class T>
  static void put(const Sys &sys, buf<T> &b, const std::vector<T> &h)
  {
    b.resize(h.size());
    sys.to_system(b.data(), h.data(), h.size());
  }
};

} // namespace lines
} // namespace trisolve
} // namespace gpuformats
