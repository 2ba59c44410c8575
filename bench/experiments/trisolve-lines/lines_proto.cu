// Prototype: an exact lower-triangular solve scheduled by lines (chunks of C consecutive rows, one
// thread each, solved in row order), the chunks' start steps found from the dependencies, chunks of
// equal start packed into warps, warps into blocks that advance one row per thread per barrier.
// Reads of chunks in the same block come from a shared-memory ring, of other blocks from global
// memory, polled (an unsolved value holds a NaN payload). Standalone: no PETSc.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 lines_proto.cu -o lines_proto
//   ./lines_proto N stencil(7|27) C(0: auto) warps_per_block       (run.sh runs every variant)
// Environment: LINES_VARIANT (plan `levels`): 0 no prefetch, 4/8/16 slots loaded that many steps
// ahead into registers, 183/164/166/168 staged through shared memory (DS, DX in the digits);
// LINES_PLAN2=spread selects plan `chains` (warps of 32 consecutive chunks whose starts spread at
// most that), with LINES_MODE 0-2 (how x is read and written), 3 (no read-ahead of other blocks'
// values), 4 (no loads at all: the per-step floor, wrong answers).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <map>
#include <vector>

#define CK(x)                                                                                            \
  do {                                                                                                   \
    cudaError_t e_ = (x);                                                                                \
    if (e_ != cudaSuccess) {                                                                             \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                         \
      exit(1);                                                                                           \
    }                                                                                                    \
  } while (0)

static constexpr uint64_t kPending = 0xFFF8DEADBEEF0001ull;

struct Csr {
  int32_t              n;
  std::vector<int32_t> rp, ci; // strict lower part
  std::vector<double>  v, dinv;
};

// Strict lower part of a 7- or 27-point stencil on an N^3 grid, natural order, diagonally dominant.
static Csr stencil_lower(int N, int pts)
{
  Csr L;
  L.n = N * N * N;
  L.rp.push_back(0);
  uint64_t h = 12345;
  auto     rnd = [&]() { h = h * 6364136223846793005ull + 1442695040888963407ull; return ((h >> 33) & 0xFFFF) / 65536.0; };
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) {
        int r = i + N * (j + N * k);
        for (int dk = -1; dk <= 0; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              if (pts == 7 && std::abs(di) + std::abs(dj) + std::abs(dk) != 1) continue;
              int ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= N || jj >= N) continue;
              int c = ii + N * (jj + N * kk);
              if (c >= r) continue;
              L.ci.push_back(c);
              L.v.push_back(-(0.5 + 0.5 * rnd()) / pts);
            }
        L.rp.push_back((int32_t)L.ci.size());
        L.dinv.push_back(1.0 / (1.0 + 0.1 * rnd()));
      }
  return L;
}

static void solve_host(const Csr &L, const double *b, double *x)
{
  for (int32_t r = 0; r < L.n; ++r) {
    double acc = b[r];
    for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) acc -= L.v[e] * x[L.ci[e]];
    x[r] = acc * L.dinv[r];
  }
}

struct Plan {
  int32_t              C = 0, K = 0, R = 0, wpb = 0, nwarps = 0, nblocks = 0;
  int64_t              steps_total = 0; // the critical path in steps (static)
  std::vector<int32_t> lane_start;      // per warp*32+lane: start step, -1 empty
  std::vector<int32_t> lane_len;
  std::vector<int32_t> block_s0, block_s1;
  std::vector<int32_t> perm_row;        // permuted index -> row (-1 padding)
  std::vector<int32_t> ref;             // [warp][pos][m][lane]; >=0 global permuted index, <0 -(1+shared index), INT32_MIN none
  std::vector<int32_t> val_src;         // same shape: the strict entry's CSR position, -1 none
  int64_t              shared_refs = 0, global_refs = 0, cross_refs = 0;
};

static bool make_plan(const Csr &L, int32_t C, int wpb, int Rmax, Plan &P)
{
  const int32_t n = L.n, nch = (n + C - 1) / C;
  std::vector<int64_t> S(nch, 0);
  int                  K = 0;
  for (int32_t c = 0; c < nch; ++c) {
    int64_t s = 0;
    for (int32_t r = c * C; r < std::min(n, (c + 1) * C); ++r) {
      K = std::max(K, L.rp[r + 1] - L.rp[r]);
      for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
        int32_t j = L.ci[e], cj = j / C;
        if (cj == c) continue;
        s = std::max(s, S[cj] + (j % C) - (r % C) + 1);
      }
    }
    S[c] = s;
  }
  std::vector<int32_t> order(nch);
  for (int32_t c = 0; c < nch; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return S[a] < S[b]; });
  // warps: a run of equal starts, cut at 32 lanes (lanes of a warp share their start: coalesced)
  std::vector<int32_t> warp_of(nch), lane_of(nch);
  std::vector<std::vector<int32_t>> warps;
  for (int32_t q = 0; q < nch; ++q) {
    int32_t c = order[q];
    if (warps.empty() || warps.back().size() == 32 || S[warps.back()[0]] != S[c]) warps.push_back({});
    warp_of[c] = (int32_t)warps.size() - 1;
    lane_of[c] = (int32_t)warps.back().size();
    warps.back().push_back(c);
  }
  P.C = C, P.K = K, P.wpb = wpb, P.nwarps = (int32_t)warps.size();
  P.nblocks = (P.nwarps + wpb - 1) / wpb;
  const int32_t padw = P.nblocks * wpb;
  P.lane_start.assign((size_t)padw * 32, -1);
  P.lane_len.assign((size_t)padw * 32, 0);
  P.perm_row.assign((size_t)padw * 32 * C, -1);
  for (int32_t w = 0; w < P.nwarps; ++w)
    for (int32_t l = 0; l < (int32_t)warps[w].size(); ++l) {
      int32_t c = warps[w][l];
      P.lane_start[w * 32 + l] = (int32_t)S[c];
      P.lane_len[w * 32 + l]   = std::min(n, (c + 1) * C) - c * C;
      for (int32_t p = 0; p < P.lane_len[w * 32 + l]; ++p) P.perm_row[((int64_t)w * C + p) * 32 + l] = c * C + p;
      P.steps_total = std::max(P.steps_total, S[c] + P.lane_len[w * 32 + l]);
    }
  P.block_s0.assign(P.nblocks, INT32_MAX);
  P.block_s1.assign(P.nblocks, 0);
  for (int32_t w = 0; w < P.nwarps; ++w) {
    int b = w / wpb;
    for (int32_t l = 0; l < 32; ++l)
      if (P.lane_start[w * 32 + l] >= 0) {
        P.block_s0[b] = std::min(P.block_s0[b], P.lane_start[w * 32 + l]);
        P.block_s1[b] = std::max(P.block_s1[b], P.lane_start[w * 32 + l] + P.lane_len[w * 32 + l]);
      }
  }
  // ring depth: the largest step distance of a same-block read, capped at Rmax (longer ones global)
  int need = 1;
  for (int32_t r = 0; r < n; ++r) {
    int32_t c = r / C;
    for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
      int32_t j = L.ci[e], cj = j / C;
      if (warp_of[cj] / wpb != warp_of[c] / wpb) continue;
      int64_t d = (S[c] + r % C) - (S[cj] + j % C);
      if (d <= 0) { fprintf(stderr, "bad schedule\n"); return false; }
      if (d < Rmax) need = std::max<int>(need, (int)d + 1);
    }
  }
  int R = 1;
  while (R < need) R *= 2;
  P.R = R;
  const size_t slots = (size_t)padw * C * K * 32;
  P.ref.assign(slots, INT32_MIN);
  P.val_src.assign(slots, -1);
  for (int32_t r = 0; r < n; ++r) {
    int32_t c = r / C, w = warp_of[c], l = lane_of[c], p = r % C;
    int     m = 0;
    for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e, ++m) {
      int32_t j = L.ci[e], cj = j / C, wj = warp_of[cj], lj = lane_of[cj], pj = j % C;
      size_t  at = (((size_t)w * C + p) * K + m) * 32 + l;
      P.val_src[at] = e;
      int64_t d     = (S[c] + p) - (S[cj] + pj);
      if (wj / wpb == w / wpb && d < R) {
        int32_t tj = (wj % wpb) * 32 + lj; // thread in block
        P.ref[at]  = -(1 + (tj * R + (pj % R)));
        P.shared_refs++;
      } else {
        P.ref[at] = (int32_t)(((int64_t)wj * C + pj) * 32 + lj);
        if (wj / wpb == w / wpb) P.global_refs++;
        else P.cross_refs++;
      }
    }
  }
  return true;
}

__device__ __forceinline__ double poll(const double *p)
{
  double v = *(volatile const double *)p;
  while (__double_as_longlong(v) == (long long)kPending) v = *(volatile const double *)p;
  return v;
}

template <int K>
__global__ void lines_kernel(int C, int R, const int32_t *lane_start, const int32_t *lane_len, const int32_t *bs0, const int32_t *bs1, const int32_t *ref, const double *val, const double *dinv, const double *b, double *x, uint32_t *ticket)
{
  extern __shared__ double ring[];
  __shared__ uint32_t      blk;
  if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  const int32_t wpb = blockDim.x / 32, lane = threadIdx.x % 32;
  const int32_t w  = blk * wpb + threadIdx.x / 32;
  const int32_t S  = lane_start[w * 32 + lane], len = lane_len[w * 32 + lane];
  const int32_t s0 = bs0[blk], s1 = bs1[blk];
  double       *mine = ring + threadIdx.x * R;
  for (int32_t s = s0; s < s1; ++s) {
    const int32_t p = s - S;
    if (S >= 0 && p >= 0 && p < len) {
      const int64_t at  = ((int64_t)w * C + p);
      double        acc = b[at * 32 + lane];
#pragma unroll
      for (int m = 0; m < K; ++m) {
        const int64_t q  = (at * K + m) * 32 + lane;
        const int32_t rf = ref[q];
        const double  v  = val[q];
        if (rf == INT32_MIN) continue;
        const double xj = rf < 0 ? ring[-(rf + 1)] : poll(x + rf);
        acc -= v * xj;
      }
      double r = acc * dinv[at * 32 + lane];
      if (__double_as_longlong(r) == (long long)kPending) r = __longlong_as_double(0x7FF8000000000000ll);
      mine[p & (R - 1)]                        = r;
      *(volatile double *)(x + at * 32 + lane) = r;
    }
    __syncthreads();
  }
}


// Prefetched: each step's slots (refs, values, b, D^-1) loaded D steps ahead into registers, the
// reads of other blocks' values D/2 steps ahead (re-polled at use if still unsolved then).
template <int K, int D>
__global__ void lines_kernel2(int C, int R, const int32_t *lane_start, const int32_t *lane_len, const int32_t *bs0, const int32_t *bs1, const int32_t *__restrict__ ref, const double *__restrict__ val, const double *__restrict__ dinv, const double *__restrict__ b, double *x, uint32_t *ticket)
{
  extern __shared__ double ring[];
  __shared__ uint32_t      blk;
  if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  const int32_t wpb = blockDim.x / 32, lane = threadIdx.x % 32;
  const int32_t w  = blk * wpb + threadIdx.x / 32;
  const int32_t S  = lane_start[w * 32 + lane], len = S >= 0 ? lane_len[w * 32 + lane] : 0;
  const int32_t s0 = bs0[blk], s1 = bs1[blk];
  double       *mine = ring + threadIdx.x * R;
  int32_t       rf[D][K];
  double        v[D][K], bb[D], di[D], xg[D][K];
  auto load = [&](int u, int32_t t) {
    const int32_t p = t - S;
    if (p >= 0 && p < len) {
      const int64_t at = (int64_t)w * C + p;
      bb[u]            = __ldg(b + at * 32 + lane);
      di[u]            = __ldg(dinv + at * 32 + lane);
#pragma unroll
      for (int m = 0; m < K; ++m) {
        const int64_t q = (at * K + m) * 32 + lane;
        rf[u][m]        = __ldg(ref + q);
        v[u][m]         = __ldg(val + q);
      }
    } else {
#pragma unroll
      for (int m = 0; m < K; ++m) rf[u][m] = INT32_MIN;
    }
  };
  auto xpre = [&](int u) {
#pragma unroll
    for (int m = 0; m < K; ++m) xg[u][m] = rf[u][m] >= 0 ? *(volatile const double *)(x + rf[u][m]) : 0.0;
  };
#pragma unroll
  for (int u = 0; u < D; ++u) load(u, s0 + u);
#pragma unroll
  for (int u = 0; u < D / 2; ++u) xpre(u);
  for (int32_t t0 = s0; t0 < s1; t0 += D) {
#pragma unroll
    for (int u = 0; u < D; ++u) {
      const int32_t t = t0 + u, p = t - S;
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
            if (__double_as_longlong(xj) == (long long)kPending) xj = poll(x + r);
          }
          acc -= v[u][m] * xj;
        }
        double res = acc * di[u];
        if (__double_as_longlong(res) == (long long)kPending) res = __longlong_as_double(0x7FF8000000000000ll);
        mine[p & (R - 1)] = res;
        *(volatile double *)(x + ((int64_t)w * C + p) * 32 + lane) = res;
      }
      load(u, t + D);
      __syncthreads();
    }
  }
}


__device__ __forceinline__ void cp4(void *dst, const void *src)
{
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp8(void *dst, const void *src)
{
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// Staged: each thread copies its own slots (refs, values, b, D^-1) DS - 1 steps ahead into shared
// memory (asynchronous copies, one group per step), and issues its reads of other blocks' values DX
// steps ahead into registers (re-polled at use if still unsolved then).
template <int K, int DS, int DX>
__global__ void lines_kernel3(int C, int R, const int32_t *lane_start, const int32_t *lane_len, const int32_t *bs0, const int32_t *bs1, const int32_t *__restrict__ ref, const double *__restrict__ val, const double *__restrict__ dinv, const double *__restrict__ b, double *x, uint32_t *ticket, unsigned long long *prof)
{
  constexpr int U = DX + 1;
  extern __shared__ double smem[];
  __shared__ uint32_t      blk;
  const int32_t            nt = blockDim.x, tid = threadIdx.x;
  double                  *ring = smem, *sv = ring + nt * R, *sbd = sv + DS * K * nt;
  int32_t                 *sr = (int32_t *)(sbd + DS * 2 * nt);
  if (tid == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  unsigned long long tstart;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tstart));
  const int32_t wpb = nt / 32, lane = tid % 32;
  const int32_t w  = blk * wpb + tid / 32;
  const int32_t S  = lane_start[w * 32 + lane], len = S >= 0 ? lane_len[w * 32 + lane] : 0;
  const int32_t s0 = bs0[blk], s1 = bs1[blk];
  double       *mine = ring + tid * R;
  auto stage = [&](int32_t t) {
    const int32_t p = t - S, sl = t & (DS - 1);
    if (p >= 0 && p < len) {
      const int64_t at = (int64_t)w * C + p;
      cp8(sbd + (sl * 2 + 0) * nt + tid, b + at * 32 + lane);
      cp8(sbd + (sl * 2 + 1) * nt + tid, dinv + at * 32 + lane);
#pragma unroll
      for (int m = 0; m < K; ++m) {
        const int64_t q = (at * K + m) * 32 + lane;
        cp4(sr + (sl * K + m) * nt + tid, ref + q);
        cp8(sv + (sl * K + m) * nt + tid, val + q);
      }
    }
    cp_commit();
  };
  double xg[U][K];
  auto   xpre = [&](int u, int32_t t) {
    const int32_t p = t - S, sl = t & (DS - 1);
    if (p >= 0 && p < len) {
#pragma unroll
      for (int m = 0; m < K; ++m) {
        const int32_t r = sr[(sl * K + m) * nt + tid];
        xg[u][m]        = r >= 0 ? *(volatile const double *)(x + r) : 0.0;
      }
    }
  };
  for (int i = 0; i < DS - 1; ++i) stage(s0 + i);
  cp_wait<DS - 1 - DX>();
#pragma unroll
  for (int u = 0; u < DX; ++u) xpre(u, s0 + u);
  for (int32_t t0 = s0; t0 < s1; t0 += U) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int32_t t = t0 + u, p = t - S, sl = t & (DS - 1);
      stage(t + DS - 1);
      cp_wait<DS - 1 - DX>();
      xpre((u + DX) % U, t + DX);
      if (t < s1 && p >= 0 && p < len) {
        double acc = sbd[(sl * 2) * nt + tid];
#pragma unroll
        for (int m = 0; m < K; ++m) {
          const int32_t r = sr[(sl * K + m) * nt + tid];
          if (r == INT32_MIN) continue;
          double xj;
          if (r < 0) xj = ring[-(r + 1)];
          else {
            xj = xg[u][m];
            if (__double_as_longlong(xj) == (long long)kPending) xj = poll(x + r);
          }
          acc -= sv[(sl * K + m) * nt + tid] * xj;
        }
        double res = acc * sbd[(sl * 2 + 1) * nt + tid];
        if (__double_as_longlong(res) == (long long)kPending) res = __longlong_as_double(0x7FF8000000000000ll);
        mine[p & (R - 1)] = res;
        *(volatile double *)(x + ((int64_t)w * C + p) * 32 + lane) = res;
      }
      __syncthreads();
    }
  }
  cp_wait<0>();
  if (prof && tid == 0) {
    unsigned long long tend;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tend));
    prof[2 * blk] = tstart, prof[2 * blk + 1] = tend;
  }
}

__global__ void fill_pending(double *x, int64_t n)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) x[i] = __longlong_as_double((long long)kPending);
}

// A CSR product of the full symmetric stencil (the reference cost: "products")
__global__ void csr_spmv(int32_t n, const int32_t *rp, const int32_t *ci, const double *v, const double *x, double *y)
{
  int32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  double acc = 0;
  for (int32_t e = rp[r]; e < rp[r + 1]; ++e) acc += v[e] * __ldg(x + ci[e]);
  y[r] = acc;
}

template <class T>
static T *up(const std::vector<T> &h)
{
  T *d;
  CK(cudaMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}


// Plan 2: warps of 32 consecutive chunks (cut where their starts spread more than max_spread), each
// lane's rows stored skewed by its start (row = position + start - the warp's least start), so a
// warp's lanes read one row of the warp's array at each step; blocks by chains: a warp joins the
// block of the warp it reads most, if that warp ended its block's chain and the block has room.
struct Plan2 {
  int32_t              C = 0, K = 0, R = 0, wpb = 0, nwarps = 0, nblocks = 0;
  int64_t              steps_total = 0, rows_total = 0;
  std::vector<int32_t> block_warps;           // [block][wpb] warp, -1 none
  std::vector<int32_t> warp_smin;             // per warp
  std::vector<int64_t> warp_row0;             // per warp: its first row
  std::vector<int32_t> lane_off, lane_len;    // per warp*32+lane
  std::vector<int32_t> block_s0, block_s1;
  std::vector<int32_t> perm_row;              // per row*32+lane: the matrix row, -1 padding
  std::vector<int32_t> ref, val_src;          // [row][m][lane]
  int64_t              shared_refs = 0, global_refs = 0, cross_refs = 0, max_spread_seen = 0;
};

static bool make_plan2(const Csr &L, int32_t C, int wpb, int Rmax, int max_spread, Plan2 &P)
{
  const int32_t n = L.n, nch = (n + C - 1) / C;
  std::vector<int64_t> S(nch, 0);
  int                  K = 0;
  for (int32_t c = 0; c < nch; ++c) {
    int64_t s = 0;
    for (int32_t r = c * C; r < std::min(n, (c + 1) * C); ++r) {
      K = std::max(K, L.rp[r + 1] - L.rp[r]);
      for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
        int32_t j = L.ci[e], cj = j / C;
        if (cj != c) s = std::max(s, S[cj] + (j % C) - (r % C) + 1);
      }
    }
    S[c] = s;
  }
  // warps
  std::vector<int32_t> warp_of(nch), lane_of(nch);
  std::vector<int32_t> wfirst;
  {
    int32_t c = 0;
    while (c < nch) {
      int64_t lo = S[c], hi = S[c];
      int32_t e = c + 1;
      while (e < nch && e - c < 32 && std::max(hi, S[e]) - std::min(lo, S[e]) <= max_spread) lo = std::min(lo, S[e]), hi = std::max(hi, S[e]), ++e;
      for (int32_t q = c; q < e; ++q) warp_of[q] = (int32_t)wfirst.size(), lane_of[q] = q - c;
      wfirst.push_back(c);
      P.max_spread_seen = std::max(P.max_spread_seen, hi - lo);
      c = e;
    }
    wfirst.push_back(nch);
  }
  const int32_t nw = (int32_t)wfirst.size() - 1;
  // each warp's most-read other warp (an earlier one)
  std::vector<int32_t> pred(nw, -1);
  for (int32_t w = 0; w < nw; ++w) {
    std::map<int32_t, int64_t> cnt;
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c)
      for (int32_t r = c * C; r < std::min(n, (c + 1) * C); ++r)
        for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
          int32_t wj = warp_of[L.ci[e] / C];
          if (wj != w) cnt[wj]++;
        }
    int64_t best = 0;
    for (auto &kv : cnt)
      if (kv.second > best) best = kv.second, pred[w] = kv.first;
  }
  std::vector<int32_t> blk_of(nw, -1), tail, fill;
  for (int32_t w = 0; w < nw; ++w) {
    int32_t pb = pred[w] >= 0 ? blk_of[pred[w]] : -1;
    if (pb >= 0 && tail[pb] == pred[w] && fill[pb] < wpb) blk_of[w] = pb, tail[pb] = w, fill[pb]++;
    else blk_of[w] = (int32_t)tail.size(), tail.push_back(w), fill.push_back(1);
  }
  int32_t nb = (int32_t)tail.size();
  // block DAG, topological order by least start
  std::vector<int64_t> bmin(nb, INT64_MAX);
  for (int32_t c = 0; c < nch; ++c) bmin[blk_of[warp_of[c]]] = std::min(bmin[blk_of[warp_of[c]]], S[c]);
  std::vector<std::vector<int32_t>> succ(nb);
  std::vector<int32_t>              indeg(nb, 0);
  {
    std::vector<std::pair<int32_t, int32_t>> edges;
    for (int32_t r = 0; r < n; ++r) {
      int32_t b = blk_of[warp_of[r / C]];
      for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
        int32_t bj = blk_of[warp_of[L.ci[e] / C]];
        if (bj != b) edges.push_back({bj, b});
      }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    for (auto &e : edges) succ[e.first].push_back(e.second), indeg[e.second]++;
  }
  std::vector<int32_t> border;
  {
    std::vector<std::pair<int64_t, int32_t>> heap;
    for (int32_t b = 0; b < nb; ++b)
      if (!indeg[b]) heap.push_back({-bmin[b], b});
    std::make_heap(heap.begin(), heap.end());
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end());
      int32_t b = heap.back().second;
      heap.pop_back();
      border.push_back(b);
      for (int32_t q : succ[b])
        if (--indeg[q] == 0) heap.push_back({-bmin[q], q}), std::push_heap(heap.begin(), heap.end());
    }
  }
  if ((int32_t)border.size() != nb) { fprintf(stderr, "block graph has a cycle\n"); return false; }
  std::vector<int32_t> rank(nb);
  for (int32_t i = 0; i < nb; ++i) rank[border[i]] = i;
  P.C = C, P.K = K, P.wpb = wpb, P.nwarps = nw, P.nblocks = nb;
  P.block_warps.assign((size_t)nb * wpb, -1);
  std::vector<int32_t> slot_in_block(nw);
  {
    std::vector<int32_t> f(nb, 0);
    for (int32_t w = 0; w < nw; ++w) {
      int32_t b = rank[blk_of[w]];
      slot_in_block[w] = f[b];
      P.block_warps[(size_t)b * wpb + f[b]++] = w;
    }
  }
  P.warp_smin.assign(nw, 0), P.warp_row0.assign(nw + 1, 0);
  P.lane_off.assign((size_t)nw * 32, 0), P.lane_len.assign((size_t)nw * 32, 0);
  for (int32_t w = 0; w < nw; ++w) {
    int64_t lo = INT64_MAX, rows = 0;
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) lo = std::min(lo, S[c]);
    P.warp_smin[w] = (int32_t)lo;
    for (int32_t c = wfirst[w]; c < wfirst[w + 1]; ++c) {
      int32_t l = c - wfirst[w], len = std::min(n, (c + 1) * C) - c * C;
      P.lane_off[w * 32 + l] = (int32_t)(S[c] - lo), P.lane_len[w * 32 + l] = len;
      rows = std::max<int64_t>(rows, S[c] - lo + len);
      P.steps_total = std::max(P.steps_total, S[c] + len);
    }
    P.warp_row0[w + 1] = P.warp_row0[w] + rows;
  }
  P.rows_total = P.warp_row0[nw];
  P.block_s0.assign(nb, INT32_MAX), P.block_s1.assign(nb, 0);
  for (int32_t c = 0; c < nch; ++c) {
    int32_t b = rank[blk_of[warp_of[c]]], len = std::min(n, (c + 1) * C) - c * C;
    P.block_s0[b] = std::min<int64_t>(P.block_s0[b], S[c]);
    P.block_s1[b] = std::max<int64_t>(P.block_s1[b], S[c] + len);
  }
  auto rowidx = [&](int32_t r) { // permuted index of matrix row r
    int32_t c = r / C, w = warp_of[c], l = lane_of[c];
    return (P.warp_row0[w] + (S[c] - P.warp_smin[w]) + r % C) * 32 + l;
  };
  int need = 1;
  for (int32_t r = 0; r < n; ++r)
    for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
      int32_t j = L.ci[e], c = r / C, cj = j / C;
      if (rank[blk_of[warp_of[cj]]] != rank[blk_of[warp_of[c]]]) continue;
      int64_t d = (S[c] + r % C) - (S[cj] + j % C);
      if (d <= 0) { fprintf(stderr, "bad schedule\n"); return false; }
      if (d < Rmax) need = std::max<int>(need, (int)d + 1);
    }
  int R = 1;
  while (R < need) R *= 2;
  P.R = R;
  P.perm_row.assign((size_t)P.rows_total * 32, -1);
  P.ref.assign((size_t)P.rows_total * 32 * K, INT32_MIN);
  P.val_src.assign((size_t)P.rows_total * 32 * K, -1);
  for (int32_t r = 0; r < n; ++r) {
    const int64_t pr = rowidx(r), row = pr / 32, l = pr % 32;
    P.perm_row[pr]   = r;
    int32_t c = r / C, b = rank[blk_of[warp_of[c]]], m = 0;
    for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e, ++m) {
      int32_t j = L.ci[e], cj = j / C, wj = warp_of[cj], bj = rank[blk_of[wj]];
      size_t  at    = ((size_t)row * K + m) * 32 + l;
      P.val_src[at] = e;
      int64_t d     = (S[c] + r % C) - (S[cj] + j % C);
      if (bj == b && d < R) {
        int32_t tj = slot_in_block[wj] * 32 + lane_of[cj];
        P.ref[at]  = -(1 + (tj * R + (int32_t)((S[cj] + j % C) % R)));
        P.shared_refs++;
      } else {
        P.ref[at] = (int32_t)rowidx(j);
        if (bj == b) P.global_refs++;
        else P.cross_refs++;
      }
    }
  }
  return true;
}


template <int MODE>
__device__ __forceinline__ double ld_x(const double *p)
{
  if constexpr (MODE == 0) return *(volatile const double *)p;
  else {
    double v;
    asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(p) : "memory");
    return v;
  }
}
template <int MODE>
__device__ __forceinline__ void st_x(double *p, double v)
{
  if constexpr (MODE == 0) *(volatile double *)p = v;
  else if constexpr (MODE == 1) asm volatile("st.relaxed.gpu.global.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory");
  else __stcg(p, v);
}
template <int MODE>
__device__ __forceinline__ double poll_x(const double *p)
{
  double v = ld_x<MODE>(p);
  while (__double_as_longlong(v) == (long long)kPending) v = ld_x<MODE>(p);
  return v;
}

// Plan 2's solve: the ring is indexed by the producer's step (step % R), the skewed rows read one
// row per warp per step; slots loaded D steps ahead, other blocks' values D/2 steps ahead.
template <int K, int D, int MODE>
__global__ void lines_kernel5(int R, const int32_t *block_warps, const int32_t *warp_smin, const int64_t *warp_row0, const int32_t *lane_off, const int32_t *lane_len, const int32_t *bs0, const int32_t *bs1, const int32_t *__restrict__ ref, const double *__restrict__ val, const double *__restrict__ dinv, const double *__restrict__ b, double *x, uint32_t *ticket, unsigned long long *prof)
{
  extern __shared__ double ring[];
  __shared__ uint32_t      blk;
  if (threadIdx.x == 0) blk = atomicAdd(ticket, 1u);
  __syncthreads();
  unsigned long long tstart;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tstart));
  const int32_t wpb = blockDim.x / 32, lane = threadIdx.x % 32;
  const int32_t w   = block_warps[blk * wpb + threadIdx.x / 32];
  const int32_t off = w >= 0 ? lane_off[w * 32 + lane] : 0, len = w >= 0 ? lane_len[w * 32 + lane] : 0;
  const int32_t sm  = w >= 0 ? warp_smin[w] : 0;
  const int64_t r0  = w >= 0 ? warp_row0[w] : 0;
  const int32_t s0 = bs0[blk], s1 = bs1[blk];
  double       *mine = ring + threadIdx.x * R;
  int32_t       rf[D][K];
  double        v[D][K], bb[D], di[D], xg[D][K];
  // step t: this lane's position t - sm - off, its slots at row r0 + t - sm
  auto load = [&](int u, int32_t t) {
    const int32_t p = t - sm - off;
    if (MODE == 4 && p >= 0 && p < len) {
      bb[u] = 1.0, di[u] = 1.0;
#pragma unroll
      for (int m = 0; m < K; ++m) rf[u][m] = -(1 + (int32_t)threadIdx.x * R), v[u][m] = 0.01;
    } else if (p >= 0 && p < len) {
      const int64_t at = (r0 + t - sm) * 32 + lane;
      bb[u]            = __ldg(b + at);
      di[u]            = __ldg(dinv + at);
#pragma unroll
      for (int m = 0; m < K; ++m) rf[u][m] = __ldg(ref + (r0 + t - sm) * (K * 32) + m * 32 + lane), v[u][m] = __ldg(val + (r0 + t - sm) * (K * 32) + m * 32 + lane);
    } else {
#pragma unroll
      for (int m = 0; m < K; ++m) rf[u][m] = INT32_MIN;
    }
  };
  auto xpre = [&](int u) {
    if (MODE >= 3) return;
#pragma unroll
    for (int m = 0; m < K; ++m) xg[u][m] = rf[u][m] >= 0 ? ld_x<(MODE > 2 ? 1 : MODE)>(x + rf[u][m]) : 0.0;
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
            xj = MODE >= 3 ? ld_x<1>(x + r) : xg[u][m];
            if (__double_as_longlong(xj) == (long long)kPending) xj = poll_x<(MODE > 2 ? 1 : MODE)>(x + r);
          }
          acc -= v[u][m] * xj;
        }
        double res = acc * di[u];
        if (__double_as_longlong(res) == (long long)kPending) res = __longlong_as_double(0x7FF8000000000000ll);
        mine[t & (R - 1)] = res;
        st_x<(MODE > 2 ? 1 : MODE)>(x + (r0 + t - sm) * 32 + lane, res);
      }
      load(u, t + D);
      __syncthreads();
    }
  }
  if (prof && threadIdx.x == 0) {
    unsigned long long tend;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tend));
    prof[2 * blk] = tstart, prof[2 * blk + 1] = tend;
  }
}

static void run_plan2(const Csr &L, const std::vector<double> &b, const std::vector<double> &xh, int32_t C, int wpb, int max_spread, double spmv_ms, int reps)
{
  Plan2 P;
  auto  th0 = std::chrono::steady_clock::now();
  if (!make_plan2(L, C, wpb, 64, max_spread, P)) return;
  const double plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - th0).count();
  if (P.K != 3 && P.K != 13) { printf("K=%d unsupported\n", P.K); return; }
  std::vector<double> val(P.val_src.size(), 0.0), dinvp(P.perm_row.size(), 0.0), bp(P.perm_row.size(), 0.0);
  for (size_t q = 0; q < val.size(); ++q)
    if (P.val_src[q] >= 0) val[q] = L.v[P.val_src[q]];
  for (size_t q = 0; q < P.perm_row.size(); ++q)
    if (P.perm_row[q] >= 0) dinvp[q] = L.dinv[P.perm_row[q]], bp[q] = b[P.perm_row[q]];
  int32_t *dbw = up(P.block_warps), *dsm = up(P.warp_smin), *dlo = up(P.lane_off), *dll = up(P.lane_len), *ds0 = up(P.block_s0), *ds1 = up(P.block_s1), *dref = up(P.ref);
  int64_t *dr0 = up(P.warp_row0);
  double  *dval = up(val), *ddinv = up(dinvp), *db = up(bp), *dx;
  CK(cudaMalloc(&dx, bp.size() * sizeof(double)));
  uint32_t *tk;
  CK(cudaMalloc(&tk, 4));
  unsigned long long *dprof, *prof_on = nullptr;
  CK(cudaMalloc(&dprof, 16 * (size_t)P.nblocks));
  const size_t smem = (size_t)wpb * 32 * P.R * sizeof(double);
  const int    mode = getenv("LINES_MODE") ? atoi(getenv("LINES_MODE")) : 0;
  auto         kern = P.K == 3 ? (mode == 0 ? lines_kernel5<3, 8, 0> : mode == 1 ? lines_kernel5<3, 8, 1> : mode == 3 ? lines_kernel5<3, 8, 3> : mode == 4 ? lines_kernel5<3, 8, 4> : lines_kernel5<3, 8, 2>) : (mode == 0 ? lines_kernel5<13, 2, 0> : mode == 1 ? lines_kernel5<13, 2, 1> : lines_kernel5<13, 2, 2>);
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  auto run = [&]() {
    fill_pending<<<1024, 256>>>(dx, (int64_t)bp.size());
    CK(cudaMemsetAsync(tk, 0, 4));
    kern<<<P.nblocks, wpb * 32, smem>>>(P.R, dbw, dsm, dr0, dlo, dll, ds0, ds1, dref, dval, ddinv, db, dx, tk, prof_on);
  };
  run();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> xp(bp.size());
  CK(cudaMemcpy(xp.data(), dx, xp.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double err = 0, nrm = 0;
  for (size_t q = 0; q < xp.size(); ++q)
    if (P.perm_row[q] >= 0) err = std::max(err, std::fabs(xp[q] - xh[P.perm_row[q]])), nrm = std::max(nrm, std::fabs(xh[P.perm_row[q]]));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  for (int i = 0; i < reps; ++i) run();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  ms /= reps;
  prof_on = dprof;
  run();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> pr(2 * (size_t)P.nblocks);
  CK(cudaMemcpy(pr.data(), dprof, pr.size() * 8, cudaMemcpyDeviceToHost));
  unsigned long long t0 = UINT64_MAX, t1 = 0;
  for (int32_t q = 0; q < P.nblocks; ++q) t0 = std::min(t0, pr[2 * q]), t1 = std::max(t1, pr[2 * q + 1]);
  printf("{\"plan\": \"chains\", \"mode\": %d, \"C\": %d, \"K\": %d, \"R\": %d, \"warps_per_block\": %d, \"max_spread\": %d, \"spread_seen\": %lld, \"warps\": %d, \"blocks\": %d, \"rows_padding\": %.3f, \"critical_steps\": %lld, \"shared_refs\": %lld, \"global_refs\": %lld, \"cross_refs\": %lld, \"plan_s\": %.2f, \"max_rel_err\": %.3e, \"solve_ms\": %.4f, \"products\": %.2f, \"us_per_step\": %.4f, \"block0_us\": %.2f, \"block0_steps\": %d, \"kernel_span_us\": %.2f}\n", mode, P.C, P.K, P.R, wpb, max_spread, (long long)P.max_spread_seen, P.nwarps, P.nblocks, (double)P.rows_total * 32 / L.n - 1.0, (long long)P.steps_total, (long long)P.shared_refs, (long long)P.global_refs, (long long)P.cross_refs, plan_s, err / nrm, ms, ms / spmv_ms, 1000.0 * ms / P.steps_total, (pr[1] - pr[0]) / 1000.0, P.block_s1[0] - P.block_s0[0], (t1 - t0) / 1000.0);
  fflush(stdout);
  cudaFree(dbw), cudaFree(dsm), cudaFree(dlo), cudaFree(dll), cudaFree(ds0), cudaFree(ds1), cudaFree(dref), cudaFree(dr0), cudaFree(dval), cudaFree(ddinv), cudaFree(db), cudaFree(dx), cudaFree(tk), cudaFree(dprof);
}

int main(int argc, char **argv)
{
  int N = argc > 1 ? atoi(argv[1]) : 64, pts = argc > 2 ? atoi(argv[2]) : 7, Carg = argc > 3 ? atoi(argv[3]) : 0, wpb = argc > 4 ? atoi(argv[4]) : 8;
  int reps = 20;
  Csr L    = stencil_lower(N, pts);
  const int32_t n = L.n;
  std::vector<double> b(n), xh(n);
  for (int32_t i = 0; i < n; ++i) b[i] = std::sin(0.37 * i) + 0.1;
  solve_host(L, b.data(), xh.data());

  // candidate line lengths: the most frequent distances >= 8
  std::map<int32_t, int64_t> hist;
  for (int32_t r = 0; r < n; ++r)
    for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) hist[r - L.ci[e]]++;
  std::vector<int32_t> cands;
  if (Carg) cands.push_back(Carg);
  else
    for (auto &kv : hist)
      if (kv.first >= 8 && kv.second > n / 8) cands.push_back(kv.first);

  // full matrix for a product
  std::vector<int32_t> frp{0}, fci;
  std::vector<double>  fv;
  {
    std::vector<std::vector<std::pair<int32_t, double>>> rows(n);
    for (int32_t r = 0; r < n; ++r) {
      rows[r].push_back({r, 1.0});
      for (int32_t e = L.rp[r]; e < L.rp[r + 1]; ++e) {
        rows[r].push_back({L.ci[e], L.v[e]});
        rows[L.ci[e]].push_back({r, L.v[e]});
      }
    }
    for (auto &rw : rows) {
      std::sort(rw.begin(), rw.end());
      for (auto &pr : rw) fci.push_back(pr.first), fv.push_back(pr.second);
      frp.push_back((int32_t)fci.size());
    }
  }
  int32_t *drp = up(frp), *dci = up(fci);
  double  *dv = up(fv), *dxx = up(b), *dyy;
  CK(cudaMalloc(&dyy, n * sizeof(double)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) csr_spmv<<<(n + 255) / 256, 256>>>(n, drp, dci, dv, dxx, dyy);
  CK(cudaEventRecord(e0));
  for (int i = 0; i < reps; ++i) csr_spmv<<<(n + 255) / 256, 256>>>(n, drp, dci, dv, dxx, dyy);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float msp;
  CK(cudaEventElapsedTime(&msp, e0, e1));
  const double spmv_ms = msp / reps;
  printf("{\"N\": %d, \"stencil\": %d, \"rows\": %d, \"strict_nnz\": %zu, \"csr_product_ms\": %.4f}\n", N, pts, n, L.ci.size(), spmv_ms);

  if (getenv("LINES_PLAN2")) {
    const int spread = atoi(getenv("LINES_PLAN2"));
    for (int32_t C : cands) run_plan2(L, b, xh, C, wpb, spread, spmv_ms, reps);
    return 0;
  }
  for (int32_t C : cands) {
    Plan P;
    auto th0 = std::chrono::steady_clock::now();
    if (!make_plan(L, C, wpb, 64, P)) continue;
    const double plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - th0).count();
    fprintf(stderr, "plan %.2f s\n", plan_s);
    if (P.K != 3 && P.K != 13) { printf("K=%d unsupported\n", P.K); continue; }
    std::vector<double> val(P.val_src.size(), 0.0), dinvp(P.perm_row.size(), 0.0), bp(P.perm_row.size(), 0.0);
    for (size_t q = 0; q < val.size(); ++q)
      if (P.val_src[q] >= 0) val[q] = L.v[P.val_src[q]];
    for (size_t q = 0; q < P.perm_row.size(); ++q)
      if (P.perm_row[q] >= 0) dinvp[q] = L.dinv[P.perm_row[q]], bp[q] = b[P.perm_row[q]];
    int32_t *dls = up(P.lane_start), *dll = up(P.lane_len), *ds0 = up(P.block_s0), *ds1 = up(P.block_s1), *dref = up(P.ref);
    double  *dval = up(val), *ddinv = up(dinvp), *db = up(bp), *dx;
    CK(cudaMalloc(&dx, bp.size() * sizeof(double)));
    uint32_t *tk;
    CK(cudaMalloc(&tk, 4));
    const char  *var  = getenv("LINES_VARIANT");
    const int    vv   = var ? atoi(var) : 8;
    const int    DS   = vv >= 160 ? 16 : 8;
    const size_t smem = (size_t)wpb * 32 * P.R * sizeof(double) + (vv >= 100 ? (size_t)wpb * 32 * DS * (P.K * 12 + 16) : 0);
    auto         kern3 = P.K == 3 ? (vv == 164 ? lines_kernel3<3, 16, 4> : vv == 166 ? lines_kernel3<3, 16, 6> : vv == 168 ? lines_kernel3<3, 16, 8> : lines_kernel3<3, 8, 3>) : (vv == 164 ? lines_kernel3<13, 16, 4> : lines_kernel3<13, 8, 3>);
    auto         kern = vv >= 100 ? lines_kernel<3> :  P.K == 3 ? (vv == 0 ? lines_kernel<3> : vv == 4 ? lines_kernel2<3, 4> : vv == 16 ? lines_kernel2<3, 16> : lines_kernel2<3, 8>) : (vv == 0 ? lines_kernel<13> : vv == 4 ? lines_kernel2<13, 4> : lines_kernel2<13, 2>);
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CK(cudaFuncSetAttribute(kern3, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    unsigned long long *dprof, *prof_on = nullptr;
    CK(cudaMalloc(&dprof, 16 * (size_t)P.nblocks));
    auto run = [&]() {
      fill_pending<<<1024, 256>>>(dx, (int64_t)bp.size());
      CK(cudaMemsetAsync(tk, 0, 4));
      if (vv >= 100) kern3<<<P.nblocks, wpb * 32, smem>>>(P.C, P.R, dls, dll, ds0, ds1, dref, dval, ddinv, db, dx, tk, prof_on);
      else kern<<<P.nblocks, wpb * 32, smem>>>(P.C, P.R, dls, dll, ds0, ds1, dref, dval, ddinv, db, dx, tk);
    };
    run();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> xp(bp.size());
    CK(cudaMemcpy(xp.data(), dx, xp.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0, nrm = 0;
    for (size_t q = 0; q < xp.size(); ++q)
      if (P.perm_row[q] >= 0) err = std::max(err, std::fabs(xp[q] - xh[P.perm_row[q]])), nrm = std::max(nrm, std::fabs(xh[P.perm_row[q]]));
    CK(cudaEventRecord(e0));
    for (int i = 0; i < reps; ++i) run();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ms /= reps;
    printf("{\"variant\": %d, \"C\": %d, \"K\": %d, \"R\": %d, \"warps_per_block\": %d, \"warps\": %d, \"blocks\": %d, \"critical_steps\": %lld, \"shared_refs\": %lld, \"global_refs\": %lld, \"cross_refs\": %lld, \"max_rel_err\": %.3e, \"solve_ms\": %.4f, \"products\": %.2f, \"us_per_step\": %.4f}\n", vv, P.C, P.K, P.R, wpb, P.nwarps, P.nblocks, (long long)P.steps_total, (long long)P.shared_refs, (long long)P.global_refs, (long long)P.cross_refs, err / nrm, ms, ms / spmv_ms, 1000.0 * ms / P.steps_total);
    if (vv >= 100) {
      prof_on = dprof;
      run();
      CK(cudaDeviceSynchronize());
      prof_on = nullptr;
      std::vector<unsigned long long> pr(2 * (size_t)P.nblocks);
      CK(cudaMemcpy(pr.data(), dprof, pr.size() * 8, cudaMemcpyDeviceToHost));
      unsigned long long t0 = pr[0];
      double gap = 0, dur = 0;
      for (int32_t bq = 0; bq < P.nblocks; ++bq) dur += (pr[2 * bq + 1] - pr[2 * bq]) / 1000.0, gap += bq ? (double)(pr[2 * bq + 1] - pr[2 * bq - 1]) / 1000.0 : 0;
      printf("{\"block0_us\": %.2f, \"block0_steps\": %d, \"mean_block_us\": %.2f, \"mean_end_gap_us\": %.3f, \"last_end_us\": %.2f, \"first_blocks_end_us\": [", (pr[1] - pr[0]) / 1000.0, P.block_s1[0] - P.block_s0[0], dur / P.nblocks, gap / std::max(1, P.nblocks - 1), (pr[2 * P.nblocks - 1] - t0) / 1000.0);
      for (int32_t bq = 0; bq < std::min(P.nblocks, 12); ++bq) printf("%s%.2f", bq ? ", " : "", (pr[2 * bq + 1] - t0) / 1000.0);
      printf("]}\n");
    }
    fflush(stdout);
    cudaFree(dls), cudaFree(dll), cudaFree(ds0), cudaFree(ds1), cudaFree(dref), cudaFree(dval), cudaFree(ddinv), cudaFree(db), cudaFree(dx), cudaFree(tk);
  }
  return 0;
}
