// Mode::levelset's triangles (trisolve.hpp): one triangle of a CSR pattern, its rows in level order,
// stored as sliced ELL (or in tiles: Schedule::tiles, further below), built and solved on a Thrust
// system (core/thrust_system.cuh): the host in CI, the GPU otherwise, the same code.
//
//   T (5 rows, lower)   levels   level order   slices of 32 (column-major: slot = base + j*32 + lane)
//   r0: .               0        r0 r2         lane:  0   1   2   3   4
//   r1: x               1        r1 r3         j=0:   -   -   c0  c2  c3 ...
//   r2: .               0        r4            j=1:   -   -   -   -   c1
//   r3: x x  (r0, r2)   1                      (rows r0 r2 | r1 r3 | r4; '-' padding, column -1)
//   r4: . x x (r1, r3)  2
//
// Invariants: perm is the rows sorted by level, stably (a level's rows by index); every row
// reads only rows of earlier levels; a row's slots hold its strict entries in CSR order, then
// padding (column -1, value 0) to the slice's width; src[slot] is the entry's position in M (the
// values' array), diag[k] that of row perm[k]'s diagonal (non-unit triangles).
#pragma once
#include "../core/radix_sort.cuh"
#include "../core/thrust_system.cuh"
#include "lines_solve.cuh"

#include <cuda/atomic>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/count.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace gpuformats {
namespace trisolve {
namespace level {

using lines::bits_of; // the double's bits and back (lines_solve.cuh)
using lines::from_bits;

constexpr int kSlice = 32;  // rows per slice: one warp
constexpr int kBlock = 128; // threads per block of the device solves (a ticket's rows)
constexpr int kBatch = 4;   // entries of a row whose read rows are awaited together

// Row i's strict entries [lo(i), hi(i)): [rowptr[i], dpos[i]) below the diagonal, (dpos[i],
// rowptr[i+1]) above; row(k) the k-th row in solve order (the lines plan's pattern, lines.hpp).
using Strict = lines::Pattern;

// Position of row i's diagonal in a sorted CSR row (-1: none).
struct DiagonalPosition {
  const int32_t *rowptr, *colidx;
  int32_t       *out;
  __host__ __device__ void operator()(int32_t i) const
  {
    int32_t lo = rowptr[i], hi = rowptr[i + 1];
    const int32_t end = hi;
    while (lo < hi) {
      const int32_t mid = lo + ((hi - lo) >> 1);
      if (colidx[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo < end && colidx[lo] == i ? lo : -1;
  }
};

// Each row's diagonal position into diag (n entries, the system's memory); the first row without
// one, or n.
template <class Sys>
int32_t find_diagonals(const Sys &sys, int32_t n, const int32_t *rowptr, const int32_t *colidx, int32_t *diag)
{
  const auto it0 = thrust::make_counting_iterator<int32_t>(0);
  thrust::for_each(sys.policy(), it0, it0 + n, DiagonalPosition{rowptr, colidx, diag});
  return (int32_t)(thrust::find(sys.policy(), diag, diag + n, -1) - diag);
}

// Levels on the device: one thread per row, rows taken in dependency order by a block ticket;
// a row waits for the rows it reads (done[j]), then publishes its level. More rows per thread (a
// ticket for rows x 128 rows, to hold more of a grid's planes in flight) measured 4-16x slower:
// 8 rows 291 / 672 ms for L / U at ksp ex45 256^3, 32 rows 132 / 303, one row 32 / 41 (H200,
// bench/results/h200/trisolve-level-rows/). Static: this header is in more than one file.
static __global__ void __launch_bounds__(kBlock) levels_kernel(int32_t n, Strict s, const int32_t *colidx, int32_t *level, int32_t *done, uint32_t *ticket)
{
  __shared__ uint32_t t;
  if (threadIdx.x == 0) t = atomicAdd(ticket, 1u);
  __syncthreads();
  const int64_t k = (int64_t)t * kBlock + threadIdx.x;
  if (k >= n) return;
  const int32_t i = s.row((int32_t)k);
  int32_t       l = 0;
  for (int32_t q = s.lo(i); q < s.hi(i); ++q) {
    const int32_t                                        j = colidx[q];
    cuda::atomic_ref<int32_t, cuda::thread_scope_device> f(done[j]);
    while (f.load(cuda::memory_order_acquire) == 0) {}
    const int32_t lj = __ldcg(level + j) + 1;
    l                = lj > l ? lj : l;
  }
  level[i] = l;
  cuda::atomic_ref<int32_t, cuda::thread_scope_device>(done[i]).store(1, cuda::memory_order_release);
}

template <class Sys>
void levels_of(const Sys &sys, int32_t n, const Strict &s, const int32_t *colidx, int32_t *level)
{
  if constexpr (std::is_same_v<Sys, HostSystem>) {
    for (int32_t k = 0; k < n; ++k) {
      const int32_t i = s.row(k);
      int32_t       l = 0;
      for (int32_t q = s.lo(i); q < s.hi(i); ++q) l = std::max(l, level[colidx[q]] + 1);
      level[i] = l;
    }
  } else {
    if (n == 0) return;
    DeviceBuffer<int32_t>  done(n, sys.stream);
    DeviceBuffer<uint32_t> ticket(1, sys.stream);
    GPUFORMATS_CUDA(cudaMemsetAsync(done.data(), 0, sizeof(int32_t) * n, sys.stream));
    GPUFORMATS_CUDA(cudaMemsetAsync(ticket.data(), 0, sizeof(uint32_t), sys.stream));
    levels_kernel<<<(unsigned)((n + kBlock - 1) / kBlock), kBlock, 0, sys.stream>>>(n, s, colidx, level, done.data(), ticket.data());
    GPUFORMATS_CUDA(cudaGetLastError());
  }
}

// Slice s's slots: kSlice x the longest strict row among its rows.
struct SliceSlots {
  const int32_t *perm;
  Strict         s;
  int32_t        n;
  int64_t       *slots; // slice_ptr + 1
  __host__ __device__ void operator()(int32_t sl) const
  {
    int32_t w = 0;
    for (int32_t k = sl * kSlice; k < n && k < (sl + 1) * kSlice; ++k) {
      const int32_t len = s.hi(perm[k]) - s.lo(perm[k]);
      w                 = len > w ? len : w;
    }
    slots[sl] = (int64_t)w * kSlice;
  }
};

// Row perm[k]'s slots: columns, M positions (pos: the pattern's entry -> M; null: the identity).
struct FillSlots {
  const int32_t *perm, *colidx, *pos, *dpos;
  const int64_t *slice_ptr;
  Strict         s;
  int32_t       *cols, *src, *diag;
  __host__ __device__ void operator()(int32_t k) const
  {
    const int32_t i = perm[k];
    int64_t       q = slice_ptr[k / kSlice] + (k % kSlice);
    for (int32_t e = s.lo(i); e < s.hi(i); ++e, q += kSlice) cols[q] = colidx[e], src[q] = pos ? pos[e] : e;
    if (diag) diag[k] = pos ? pos[dpos[i]] : dpos[i];
  }
};

struct MinusOne {
  __host__ __device__ int32_t operator()(int32_t v) const { return v - 1; }
};
struct NonZero {
  __host__ __device__ bool operator()(int32_t v) const { return v != 0; }
};

struct Stored {
  __host__ __device__ bool operator()(int32_t src) const { return src >= 0; }
};

template <class V>
using GatherSlots = lines::GatherValues<V>; // a slot's value from M (0: padding)

struct GatherDiagonal {
  const double  *m;
  const int32_t *diag;
  double        *out;
  __host__ __device__ void operator()(int32_t k) const { out[k] = m[diag[k]]; }
};

// A row not yet solved holds kPending: a NaN payload no arithmetic makes (a result with these bits
// is stored as the canonical NaN). The device solve waits on the values themselves, so a row's
// publication is one store and needs no flag or fence.
constexpr uint64_t kPending = 0xfff4000000dead01ull;
__host__ __device__ inline bool   pending(double v) { return bits_of(v) == (long long)kPending; }

// out[perm[k]] = (rhs - sum of the row's entries times out) / its diagonal (unit: none). The
// first triangle of an apply marks the second's output pending (mark), the second marks the
// first's, which is its right-hand side, once read (consume): every apply starts and ends with
// the intermediate vector pending. Wait: the device's sync-free solve, which polls the rows it reads.
template <class V, bool Wait>
struct SolveRow {
  const int32_t *perm, *cols;
  const int64_t *slice_ptr;
  const V       *vals;
  const double  *dval;
  double        *rhs, *out, *mark;
  bool           consume;
  uint32_t       backoff_ns; // Wait: the longest sleep between polls
  __host__ __device__ void operator()(int32_t k) const
  {
    const int32_t i = perm[k];
    const int64_t b = slice_ptr[k / kSlice] + (k % kSlice), w = (slice_ptr[k / kSlice + 1] - slice_ptr[k / kSlice]) / kSlice;
    double        s = rhs[i];
    if (consume) rhs[i] = from_bits((long long)kPending);
    // kBatch entries at a time: their columns and values, then every read row's value issued
    // before any is awaited, so a row ready to go costs one round trip, not one per entry
    for (int64_t j0 = 0; j0 < w; j0 += kBatch) {
      int32_t c[kBatch];
      double  v[kBatch], xc[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        c[u] = j0 + u < w ? cols[b + (j0 + u) * kSlice] : -1;
        v[u] = c[u] >= 0 ? (double)vals[b + (j0 + u) * kSlice] : 0.0;
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if constexpr (Wait) xc[u] = c[u] >= 0 ? *(volatile const double *)(out + c[u]) : 0.0;
        else xc[u] = c[u] >= 0 ? out[c[u]] : 0.0;
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (c[u] < 0) continue;
        if constexpr (Wait) {
#ifdef __CUDA_ARCH__
          for (uint32_t ns = 32; pending(xc[u]); ns = ns < backoff_ns ? 2 * ns : ns) {
            if (backoff_ns) __nanosleep(ns < backoff_ns ? ns : backoff_ns);
            xc[u] = *(volatile const double *)(out + c[u]);
          }
#endif
        }
        s -= v[u] * xc[u];
      }
    }
    double r = dval ? s / dval[k] : s;
    if (pending(r)) r = from_bits(0x7ff8000000000000ll);
    if constexpr (Wait) *(volatile double *)(out + i) = r;
    else out[i] = r;
    if (mark) mark[i] = from_bits((long long)kPending);
  }
};

// The sync-free solve: rows taken in level order by block tickets (a block waits only on rows of
// tickets taken earlier, by running blocks), each waiting on the rows it reads. Each block takes
// tickets until none is left (a grid of resident blocks polls less than one block per ticket).
// The block that takes ticket 0 resets the other triangle's ticket (it runs after this one ends).
template <class V>
__global__ void __launch_bounds__(kBlock) sync_free_kernel(int32_t n, SolveRow<V, true> r, uint32_t *ticket, uint32_t *next_ticket)
{
  __shared__ uint32_t t;
  const uint32_t      tickets = (uint32_t)((n + kBlock - 1) / kBlock);
  for (;;) {
    if (threadIdx.x == 0) {
      t = atomicAdd(ticket, 1u);
      if (t == 0) *next_ticket = 0;
    }
    __syncthreads();
    const uint32_t mine = t;
    __syncthreads(); // every thread has read t before thread 0 takes the next
    if (mine >= tickets) return;
    const int64_t k = (int64_t)mine * kBlock + threadIdx.x;
    if (k < n) r((int32_t)k);
  }
}

template <class V>
__global__ void __launch_bounds__(kBlock) level_kernel(int32_t begin, int32_t end, SolveRow<V, false> r)
{
  const int64_t k = begin + (int64_t)blockIdx.x * kBlock + threadIdx.x;
  if (k < end) r((int32_t)k);
}

// ---- Schedule::tiles: tiles of rows solved by one block each, levels inside a tile in shared memory.
//
// A level costs the sync-free solve one round trip through L2 (a row polls the values it reads);
// in a block, one __syncthreads. So the rows are grouped in tiles: band = level / h, chunk = (solve
// order index) / W, W a multiple of the triangle's reach (how far back a row reads: a 3D grid's
// plane in the natural ordering), and a tile is the rows of one (band, chunk), at most rows_cap of
// them (a larger one is cut in level order). A block takes tiles by ticket, stages the tile's
// right-hand side, diagonal and slots in shared memory, and solves its levels (segments) one
// barrier apart: a read of a row of the tile comes from shared memory, of another tile from its
// halo (TileSolve), polled where still unsolved. A dependency never points to a later tile:
// it goes to a lower or equal band and chunk, and tiles are numbered by band * kb + chunk * kc
// (then chunk), which grows along every dependency; kb : kc (skew) orders the tiles by when their
// rows can start: a chunk's rows wait for the previous chunk's one round trip each band.
//
//   tile t: positions tile_ptr[t] .. tile_ptr[t + 1] of perm (levels ascending), segments
//   tile_seg[t] .. tile_seg[t + 1] (one level each: seg_ptr), segment s's slots seg_slot[s] ..
//   seg_slot[s + 1], ELL column-major (entry e of the segment's row r at seg_slot[s] + e * rows + r);
//   cols: an index into the tile's values in shared memory (ZIndex): its halo (the rows it reads
//   from other tiles), a zero for padding, its own rows. The shape (h, W) is chosen so a tile holds
//   kTileTarget rows on average: 8 levels by 2 planes on a 3D grid, taller and wider on a 2D one.
constexpr int kTileSegs   = 64;  // segments (levels) a tile holds at most: h <= kTileSegs
constexpr int kTileSmemSlack = 64; // bytes a tile's shared memory stays below a block's opt-in limit
constexpr int kTileTarget = 512; // rows a tile holds on average, where the shape is chosen

struct TileShape {
  int levels = 0;    // h: levels per band (1 .. kTileSegs; 0: chosen)
  int chunk  = 0;    // W in reaches of the triangle (a 3D grid's planes; 0: chosen)
  int rows   = 2048; // rows_cap
  int kb = 2, kc = 1; // the tiles' order: band * kb + chunk * kc
  // shared memory a block may use, bytes (0: the device's opt-in limit; the host: no limit). A
  // triangle whose largest tile (its rows and halo) needs more is solved sync-free instead.
  int64_t smem = 0;
};

inline int bits_for64(uint64_t v)
{
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

// How far back (in solve order) row i reads.
struct Reach {
  Strict         s;
  const int32_t *colidx;
  __host__ __device__ int64_t operator()(int32_t i) const
  {
    const int32_t lo = s.lo(i), hi = s.hi(i);
    if (lo == hi) return 0;
    return s.upper ? (int64_t)colidx[hi - 1] - i : (int64_t)i - colidx[lo];
  }
};

struct TileKey {
  const int32_t *perm, *level;
  int32_t        n, h;
  int64_t        width;
  uint64_t       nchunks, kb, kc;
  bool           upper;
  uint64_t      *key;
  __host__ __device__ void operator()(int32_t k) const
  {
    const int32_t  i = perm[k];
    const uint64_t idx = (uint64_t)(upper ? n - 1 - i : i), chunk = idx / (uint64_t)width, band = (uint64_t)(level[i] / h);
    key[k] = (band * kb + chunk * kc) * nchunks + chunk;
  }
};

struct RunStart {
  const uint64_t *key;
  int32_t        *out;
  __host__ __device__ void operator()(int32_t k) const { out[k] = k == 0 || key[k] != key[k - 1] ? k : 0; }
};

// Where tiles (a new key, or rows_cap rows into a run) and segments (a tile, or a new level) start.
struct TileFlags {
  const uint64_t *key;
  const int32_t  *run_start, *perm, *level;
  int32_t         cap;
  int32_t        *tile_flag, *seg_flag;
  __host__ __device__ void operator()(int32_t k) const
  {
    const bool t = k == 0 || key[k] != key[k - 1] || (k - run_start[k]) % cap == 0;
    tile_flag[k] = t;
    seg_flag[k]  = t || level[perm[k]] != level[perm[k - 1]];
  }
};

struct SegmentSlots {
  const int32_t *perm, *seg_ptr;
  Strict         s;
  int64_t       *slots; // seg_slot + 1
  __host__ __device__ void operator()(int32_t g) const
  {
    int32_t w = 0;
    for (int32_t k = seg_ptr[g]; k < seg_ptr[g + 1]; ++k) {
      const int32_t len = s.hi(perm[k]) - s.lo(perm[k]);
      w                 = len > w ? len : w;
    }
    slots[g] = (int64_t)w * (seg_ptr[g + 1] - seg_ptr[g]);
  }
};

struct TileSlots {
  const int32_t *perm, *colidx, *pos, *dpos, *posof, *tile_id, *seg_id, *tile_ptr, *seg_ptr;
  const int64_t *seg_slot;
  Strict         s;
  int32_t       *cols, *src, *diag;
  __host__ __device__ void operator()(int32_t k) const
  {
    const int32_t i = perm[k], g = seg_id[k], t = tile_id[k], rows = seg_ptr[g + 1] - seg_ptr[g];
    int64_t       q = seg_slot[g] + (k - seg_ptr[g]);
    for (int32_t e = s.lo(i); e < s.hi(i); ++e, q += rows) {
      const int32_t pj = posof[colidx[e]];
      cols[q]          = tile_id[pj] == t ? -(pj - tile_ptr[t] + 2) : colidx[e];
      src[q]           = pos ? pos[e] : e;
    }
    if (diag) diag[k] = pos ? pos[dpos[i]] : dpos[i];
  }
};

struct TileSlotCount {
  const int32_t *tile_seg;
  const int64_t *seg_slot;
  __host__ __device__ int64_t operator()(int32_t t) const { return seg_slot[tile_seg[t + 1]] - seg_slot[tile_seg[t]]; }
};

struct External {
  __host__ __device__ bool operator()(int32_t c) const { return c >= 0; }
};
struct FirstOf {
  const uint64_t *key;
  int32_t        *out;
  __host__ __device__ void operator()(int32_t e) const { out[e] = e == 0 || key[e] != key[e - 1]; }
};
struct LowBits31 {
  __host__ __device__ int32_t operator()(uint64_t k) const { return (int32_t)(k & 0x7fffffffull); }
};
struct Span {
  const int32_t *ptr;
  __host__ __device__ int64_t operator()(int32_t t) const { return ptr[t + 1] - ptr[t]; }
};
// The segment of each of segment g's slots (padding included).
struct SlotSegments {
  const int64_t *seg_slot;
  int32_t       *slot_seg;
  __host__ __device__ void operator()(int32_t g) const
  {
    for (int64_t q = seg_slot[g]; q < seg_slot[g + 1]; ++q) slot_seg[q] = g;
  }
};
// External slot e's key: its tile, then its row j.
struct HaloKey {
  const int32_t *eslot, *cols, *slot_seg, *seg_ptr, *tile_id;
  uint64_t      *key;
  __host__ __device__ void operator()(int32_t e) const
  {
    const int32_t q = eslot[e];
    key[e]          = ((uint64_t)tile_id[seg_ptr[slot_seg[q]]] << 32) | (uint32_t)cols[q];
  }
};
// A halo row's key: tile, local segment of its first reader, j.
struct HaloEntry {
  const uint64_t *skey;
  const int32_t  *sslot, *first, *grp, *slot_seg, *tile_seg;
  uint64_t       *hkey;
  __host__ __device__ void operator()(int32_t e) const
  {
    if (!first[e]) return;
    const uint64_t t = skey[e] >> 32, j = skey[e] & 0xffffffffull;
    const int32_t  g = slot_seg[sslot[e]];
    hkey[grp[e]]     = (t << 37) | ((uint64_t)(g - tile_seg[t]) << 31) | j;
  }
};
// Where tile t's halo starts (local < 0), or segment g's (its tile, local segment): a lower bound
// in the sorted halo keys.
struct HaloStart {
  const uint64_t *shkey;
  int64_t         nhalo;
  const int32_t  *tile_seg;
  int32_t         ntiles, nsegs, local;
  int32_t        *out;
  const int32_t  *tile_id = nullptr, *seg_ptr = nullptr;
  __host__ __device__ void operator()(int32_t x) const
  {
    uint64_t k;
    if (local < 0) k = (uint64_t)x << 37; // x a tile (ntiles: past the last)
    else if (x == nsegs) k = (uint64_t)ntiles << 37;
    else {
      const uint64_t t = (uint64_t)tile_id[seg_ptr[x]];
      k                = (t << 37) | ((uint64_t)(x - tile_seg[t]) << 31);
    }
    int64_t lo = 0, hi = nhalo;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (shkey[mid] < k) lo = mid + 1;
      else hi = mid;
    }
    out[x] = (int32_t)lo;
  }
};
// A slot's column as an index into the tile's Z (TileSolve::Stage): a halo row h at 2h + (j & 1)
// (its value's half of the fetched pair), padding at 2H (a zero), the tile's row lk at 2H + 2 + lk.
// HaloColumn: an external slot (sorted e, its column still the row j) to its halo row's index;
// ZIndex then the others (padding -1, the tile's row lk as -(lk + 2)).
struct HaloColumn {
  const int32_t *sslot, *grp, *place, *slot_seg, *seg_ptr, *tile_id, *tile_halo;
  int32_t       *cols;
  __host__ __device__ void operator()(int32_t e) const
  {
    const int32_t q = sslot[e], t = tile_id[seg_ptr[slot_seg[q]]];
    cols[q]         = 2 * (place[grp[e]] - tile_halo[t]) + (cols[q] & 1);
  }
};
struct ZIndex {
  const int32_t *slot_seg, *seg_ptr, *tile_id, *tile_halo;
  int32_t       *cols;
  __host__ __device__ void operator()(int32_t q) const
  {
    const int32_t t = tile_id[seg_ptr[slot_seg[q]]], H = tile_halo[t + 1] - tile_halo[t], c = cols[q];
    if (c < 0) cols[q] = c == -1 ? 2 * H : 2 * H + 2 + (-c - 2);
  }
};

// *dst = *src: on the device an asynchronous copy into shared memory (cp.async, sm_80 and later),
// complete at tile_wait().
template <class T>
__host__ __device__ inline void copy_async(T *dst, const T *src)
{
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4 or 8 bytes here");
#ifdef __CUDA_ARCH__
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  if constexpr (sizeof(T) == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
#else
  *dst = *src;
#endif
}
__device__ inline void tile_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// 16 bytes at src (16-aligned) into shared dst, through L2 only (a row's value in L1 may be stale).
__device__ inline void copy16_async(void *dst, const void *src)
{
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ inline void tile_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void tile_wait_prior() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// One tile, solved by one block (the device's threads) or by one host thread (each segment's rows
// last to first, and a read of a row not yet solved is an error: the tiles' order is checked).
// A row of another tile is read through the tile's halo: the rows it reads from other tiles, each
// once, in the order of the segment that first reads it (halo_rows, tile_halo, seg_halo). On the
// device each segment's halo is fetched kAhead segments before it runs (asynchronous copies through
// L2): a value already solved costs no round trip when the segment runs; one still pending is
// polled then. The staged arrays: xs (the tile's results), rs, ds, ps (its right-hand side,
// diagonal, rows), cs, vs (its slots, when they fit: staged), hr, xh (its halo's rows and the
// 16-byte pairs holding their values), seg, sq, sh (its segments' positions, slots and halo).
constexpr int kAhead = 3;

template <class V>
struct TileSolve {
  const int32_t *perm, *cols, *tile_ptr, *tile_seg, *seg_ptr, *halo_rows, *tile_halo, *seg_halo;
  const int64_t *seg_slot;
  const V       *vals;
  const double  *dval;
  double        *rhs, *out, *mark;
  bool           consume;
  int32_t        n, ntiles, rows_cap, halo_cap;
  int64_t        slots_cap;
  bool           prefetch;       // device: out is 16-byte aligned
  uint32_t       backoff_ns = 0; // device: a sleep between two polls
  uint64_t      *prof = nullptr; // device, GPUFORMATS_TILE_PROFILE: per tile its SM and the ns of its ticket, staging, first level and end

  // xh and xs are one array Z (the column indices of the slots point into it): the halo's H pairs,
  // a zero (padding's), one unused, then the tile's rows: place() sets xs and H for a tile.
  struct Stage {
    double  *xs, *rs, *ds, *xh;
    V       *vs;
    int32_t *ps, *cs, *hr, *seg, *sh; // seg, sh: segs + 1 entries
    int64_t *sq;
    int32_t  H;
  };
  __host__ __device__ void place(uint32_t t, Stage &st) const
  {
    st.H  = tile_halo[t + 1] - tile_halo[t];
    st.xs = st.xh + 2 * st.H + 2;
  }

  // Stage tile t's arrays (threads tid of nt); returns whether its slots are staged. On the device
  // the copies are asynchronous (cp.async: all of a tile's in flight at once, not one round trip
  // per thread and element), complete when stage returns (each thread's own; the caller's barrier
  // makes them everyone's). The right-hand side is marked consumed by row(), after it was read.
  __host__ __device__ bool stage(uint32_t t, const Stage &st, int tid, int nt) const
  {
    const int32_t k0 = tile_ptr[t], k1 = tile_ptr[t + 1], s0 = tile_seg[t], s1 = tile_seg[t + 1], h0 = tile_halo[t], h1 = tile_halo[t + 1];
    const int64_t q0 = seg_slot[s0], q1 = seg_slot[s1];
    const bool    staged = q1 - q0 <= slots_cap;
    // the rows first (the right-hand side is gathered through them), with everything else
    for (int32_t k = k0 + tid; k < k1; k += nt) {
      copy_async(st.ps + (k - k0), perm + k);
      if (dval) copy_async(st.ds + (k - k0), dval + k);
#ifndef __CUDA_ARCH__
      st.xs[k - k0] = from_bits((long long)kPending); // the host's check of the tiles' order
#endif
    }
    for (int32_t g = s0 + tid; g <= s1; g += nt) copy_async(st.seg + (g - s0), seg_ptr + g), copy_async(st.sq + (g - s0), seg_slot + g), copy_async(st.sh + (g - s0), seg_halo + g);
    for (int32_t h = h0 + tid; h < h1; h += nt) {
      copy_async(st.hr + (h - h0), halo_rows + h);
      st.xh[2 * (h - h0)] = st.xh[2 * (h - h0) + 1] = from_bits((long long)kPending);
    }
    if (tid == 0) st.xh[2 * st.H] = st.xh[2 * st.H + 1] = 0.0; // padding reads a zero
    if (staged)
      for (int64_t q = q0 + tid; q < q1; q += nt) copy_async(st.cs + (q - q0), cols + q), copy_async(st.vs + (q - q0), vals + q);
#ifdef __CUDA_ARCH__
    tile_wait(); // each thread gathers through the rows it copied itself
#endif
    for (int32_t k = k0 + tid; k < k1; k += nt) copy_async(st.rs + (k - k0), rhs + st.ps[k - k0]);
#ifdef __CUDA_ARCH__
    tile_wait();
#endif
    return staged;
  }

  // Device: the halo of local segment g (if the tile has it) fetched into xh by the threads that
  // staged its rows (h - h0 = tid mod nt), as one group of asynchronous copies.
  __device__ void fetch(int32_t g, int32_t segs, const Stage &st, int tid, int nt) const
  {
    if (prefetch && g < segs) {
      const int32_t a = st.sh[g] - st.sh[0], b = st.sh[g + 1] - st.sh[0];
      for (int32_t h = a + ((tid - a) % nt + nt) % nt; h < b; h += nt) {
        const int32_t j = st.hr[h];
        if ((j | 1) < n) copy16_async(st.xh + 2 * h, out + (j & ~1)); // the pair's other half exists
      }
    }
    tile_commit();
  }

  // Local segment g of the staged tile: its first position b, rows, first slot qs, width w.
  struct Segment {
    int32_t b, rows, w;
    int64_t qs;
  };
  __host__ __device__ static Segment segment(int32_t g, const Stage &st)
  {
    const int32_t b = st.seg[g], rows = st.seg[g + 1] - b;
    return {b, rows, (int32_t)(st.sq[g + 1] - st.sq[g]) / rows, st.sq[g]};
  }

  // Row k (position) of segment sg.
  template <bool Wait>
  __host__ __device__ void row(int32_t k, const Stage &st, bool staged, const Segment &sg) const
  {
    if (staged) {
      const int32_t off = (int32_t)(sg.qs - st.sq[0]) + (k - sg.b);
      row_from<Wait>(k, st, st.cs + off, st.vs + off, sg.rows, sg.w);
    } else {
      const int64_t q = sg.qs + (k - sg.b);
      row_from<Wait>(k, st, cols + q, vals + q, sg.rows, sg.w);
    }
  }
  // Row k from its slots C[e * rows], Vv[e * rows], e < w: C indexes Z (Stage).
  template <bool Wait>
  __host__ __device__ void row_from(int32_t k, const Stage &st, const int32_t *C, const V *Vv, int32_t rows, int32_t w) const
  {
    const int32_t lk = k - st.seg[0], pad = 2 * st.H;
    double        s  = st.rs[lk];
    for (int32_t j0 = 0; j0 < w; j0 += kBatch) {
      int32_t c[kBatch];
      double  v[kBatch], xc[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const bool in = j0 + u < w;
        c[u]          = in ? C[(j0 + u) * rows] : pad;
        v[u]          = in ? (double)Vv[(j0 + u) * rows] : 0.0;
      }
      // every read value issued before any is awaited; only a halo row's can be pending
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if constexpr (Wait) xc[u] = st.xh[c[u]];
        else {
#ifndef __CUDA_ARCH__
          // the host reads the row itself; the index must name its half of the device's fetched pair
          if (c[u] < pad && (c[u] & 1) != (st.hr[c[u] >> 1] & 1)) throw Error(ErrorKind::internal, "trisolve: a tile's halo index names the wrong half of row " + std::to_string(st.hr[c[u] >> 1]) + "'s pair");
#endif
          xc[u] = c[u] < pad ? out[st.hr[c[u] >> 1]] : st.xh[c[u]];
        }
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (pending(xc[u])) {
#ifdef __CUDA_ARCH__
          const int32_t j = st.hr[c[u] >> 1];
          while (pending(xc[u])) {
            if (backoff_ns) __nanosleep(backoff_ns);
            xc[u] = *(volatile const double *)(out + j);
          }
#else
          throw Error(ErrorKind::internal, "trisolve: a tile read row " + std::to_string(c[u] < pad ? st.hr[c[u] >> 1] : st.ps[c[u] - pad - 2]) + " before it was solved");
#endif
        }
        s -= v[u] * xc[u];
      }
    }
    double r = dval ? s / st.ds[lk] : s;
    if (pending(r)) r = from_bits(0x7ff8000000000000ll);
    st.xs[lk] = r;
    if constexpr (!Wait) publish(lk, st);
  }

  // Row lk of the tile into global memory: its value, the other triangle's output marked pending
  // (mark), the right-hand side consumed. On the device the block's writer warp does this, so the
  // solving warps' barriers never wait for a global store.
  __host__ __device__ void publish(int32_t lk, const Stage &st) const
  {
    const int32_t i = st.ps[lk];
#ifdef __CUDA_ARCH__
    *(volatile double *)(out + i) = st.xs[lk];
#else
    out[i] = st.xs[lk];
#endif
    if (mark) mark[i] = from_bits((long long)kPending);
    if (consume) rhs[i] = from_bits((long long)kPending);
  }

  // Shared memory of a block: rows_cap rows, slots_cap slots, halo_cap halo rows, kTileSegs + 1 segments.
  static std::size_t smem_bytes(int32_t rows_cap, int64_t slots_cap, int32_t halo_cap)
  {
    return (std::size_t)rows_cap * (3 * sizeof(double) + sizeof(int32_t)) + (std::size_t)halo_cap * (2 * sizeof(double) + sizeof(int32_t)) + (std::size_t)slots_cap * (sizeof(V) + sizeof(int32_t)) +
           (kTileSegs + 1) * (sizeof(int64_t) + 2 * sizeof(int32_t)) + 2 * sizeof(double) + 32;
  }
  __host__ __device__ Stage carve(unsigned char *p) const
  {
    Stage st;
    st.xh = (double *)p; // 16-byte aligned first
    st.H = halo_cap, st.xs = st.xh + 2 * halo_cap + 2, st.rs = st.xs + rows_cap, st.ds = st.rs + rows_cap;
    st.sq = (int64_t *)(st.ds + rows_cap);
    st.vs = (V *)(st.sq + kTileSegs + 1);
    st.ps = (int32_t *)(st.vs + slots_cap), st.cs = st.ps + rows_cap, st.hr = st.cs + slots_cap, st.seg = st.hr + halo_cap, st.sh = st.seg + kTileSegs + 1;
    return st;
  }
};

constexpr int kProfSegs = 16, kProf = 4 + kProfSegs; // the profile: SM, first row, ticket, segments' starts, end

// Threads solving warps and one writer warp: the solving warps meet at a named barrier per level
// and write results to shared memory only; the writer publishes each finished level to global
// memory (a barrier orders its participants' global stores too, which would cost each level a
// round trip to L2).
template <int Threads, class V>
__global__ void __launch_bounds__(Threads + 32) tile_kernel(TileSolve<V> a, uint32_t *ticket, uint32_t *next_ticket)
{
  extern __shared__ __align__(16) unsigned char tile_smem[];
  __shared__ uint32_t t;
  __shared__ int32_t  done; // levels of the tile solved
  auto                st     = a.carve(tile_smem);
  const bool          writer = threadIdx.x >= Threads;
  cuda::atomic_ref<int32_t, cuda::thread_scope_block> done_ref(done);
  for (;;) {
    if (threadIdx.x == 0) {
      t = atomicAdd(ticket, 1u);
      if (t == 0) *next_ticket = 0;
      done_ref.store(0, cuda::memory_order_relaxed);
    }
    __syncthreads();
    const uint32_t tile = t;
    if (tile >= (uint32_t)a.ntiles) return;
    uint64_t t0 = 0;
    if (a.prof && threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    bool staged = false;
    a.place(tile, st);
    if (!writer) staged = a.stage(tile, st, threadIdx.x, Threads);
    const int32_t segs = a.tile_seg[tile + 1] - a.tile_seg[tile];
    __syncthreads(); // staged; every thread has read t
    if (writer) {
      for (int32_t g = 0; g < segs; ++g) {
        while (done_ref.load(cuda::memory_order_acquire) <= g) {}
        for (int32_t k = st.seg[g] + (int32_t)threadIdx.x - Threads; k < st.seg[g + 1]; k += 32) a.publish(k - st.seg[0], st);
      }
    } else {
#pragma unroll
      for (int g = 0; g < kAhead; ++g) a.fetch(g, segs, st, threadIdx.x, Threads);
      for (int32_t g = 0; g < segs; ++g) {
        a.fetch(g + kAhead, segs, st, threadIdx.x, Threads);
        tile_wait_prior<kAhead>();                       // segment g's halo (this thread's part)
        asm volatile("bar.sync 1, %0;" ::"n"(Threads) : "memory"); // everyone's, and the previous level's results
        if (threadIdx.x == 0) {
          done_ref.store(g, cuda::memory_order_release);
          if (a.prof && g < kProfSegs) {
            uint64_t now, sm;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
            asm volatile("{.reg .u32 r; mov.u32 r, %%smid; cvt.u64.u32 %0, r;}" : "=l"(sm));
            if (g == 0) a.prof[kProf * tile] = sm, a.prof[kProf * tile + 1] = (uint64_t)st.ps[0], a.prof[kProf * tile + 2] = t0;
            a.prof[kProf * tile + 3 + g] = now;
          }
        }
        const auto sg = a.segment(g, st);
        for (int32_t k = sg.b + threadIdx.x; k < sg.b + sg.rows; k += Threads) a.template row<true>(k, st, staged, sg);
      }
      tile_wait_prior<0>();
      asm volatile("bar.sync 1, %0;" ::"n"(Threads) : "memory");
      if (threadIdx.x == 0) done_ref.store(segs, cuda::memory_order_release);
    }
    __syncthreads(); // the tile published; its staged arrays are read no more
    if (a.prof && threadIdx.x == 0) {
      uint64_t now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      a.prof[kProf * tile + 3 + (segs < kProfSegs ? segs : kProfSegs)] = now;
    }
  }
}

// The rows 0..n-1 sorted by level[], stably, into perm, and where each level starts in that order
// (level_ptr, on the host: levels + 1 entries, the last n); returns the top level (-1 for n = 0).
template <class Sys>
int32_t sort_by_level(const Sys &sys, int32_t n, const int32_t *level, int32_t *perm, std::vector<int32_t> &level_ptr)
{
  const auto    it0 = thrust::make_counting_iterator<int32_t>(0);
  const int32_t top = n ? thrust::reduce(sys.policy(), level, level + n, 0, thrust::maximum<int32_t>()) : -1;
  auto          sorted = sys.template temp<int32_t>(n), rows = sys.template temp<int32_t>(n);
  thrust::sequence(sys.policy(), rows.data(), rows.data() + n);
  if (n > 0) sys.sort_pairs(level, sorted.data(), rows.data(), perm, n, std::max(1, bits_for((uint32_t)top)));
  auto starts = sys.template temp<int32_t>(top + 2);
  thrust::lower_bound(sys.policy(), sorted.data(), sorted.data() + n, it0, it0 + top + 2, starts.data());
  level_ptr.resize(top + 2);
  sys.to_host(level_ptr.data(), starts.data(), level_ptr.size());
  return top;
}

// One triangle (the head's picture), in the memory of Sys.
template <class Sys>
struct Triangle {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  buf<int32_t>         perm, cols, src, diag;
  buf<int64_t>         slice_ptr;
  buf<double>          v64, dval;
  buf<float>           v32;
  std::vector<int32_t> level_ptr; // host: where each level starts in the level order, and n
  buf<int32_t>         order;     // build's keep_order: the rows in level order
  int32_t              n = 0;
  int64_t              nnz = 0, slots = 0;
  bool                 unit = true, single = false;
  // Schedule::tiles (perm in tile order, cols encoded, slots by segment; no slice_ptr)
  bool                 tiled = false;
  int64_t              untiled_smem = 0; // tiles asked for but solved sync-free: the shared memory a tile needed
  buf<int32_t>         tile_ptr, tile_seg, seg_ptr, halo_rows, tile_halo, seg_halo;
  buf<int64_t>         seg_slot;
  int32_t              ntiles = 0, nsegs = 0, rows_cap = 0, halo_cap = 0;
  int64_t              nhalo = 0;
  int64_t              max_slots = 0, width = 0;
  int32_t              band = 0; // levels per tile
  struct Launch { // device: the tile kernel's shared memory and grid, found at the first solve
    std::size_t smem = 0;
    int64_t     slots_cap = -1;
    int         grid = 0, threads = 0, calls = 0;
  };
  mutable Launch       launch;
  // Schedule::lines (lines_solve.cuh): the plan, or why it was refused (then tiles, as asked)
  bool                 lined = false;
  std::string          unlined;
  lines::Lines<Sys>    ln;
  // The build's stages in ms, each ended by a sync (-ksp_view's setup line): the levels, the rows
  // sorted by level, the slots (slices or tiles), the tiles' halos
  double ms_levels = 0, ms_order = 0, ms_slots = 0, ms_halo = 0;
  struct Lap {
    std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
    template <class S>
    double operator()(const S &sys)
    {
      sys.sync();
      const auto now = std::chrono::steady_clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - t).count();
      t = now;
      return ms;
    }
  };

  // The strict upper or lower triangle of a sorted CSR pattern (rowptr, colidx, dpos: its
  // diagonal positions, all in Sys memory); unit: no diagonal division.
  // tiles: Schedule::tiles's layout instead of the slices.
  // keep_order: the rows in level order kept in `order` (tiles reorder perm), for Ilu0.
  // lines_opt: Schedule::lines's plan first (the levels are kept: levels(), order); host_pattern:
  // the pattern in host memory for it, if the caller has one.
  void build(const Sys &sys, int32_t nrows, const int32_t *rowptr, const int32_t *colidx, const int32_t *dpos, const int32_t *pos, bool upper, bool is_unit, bool fp32, const TileShape *tiles = nullptr, bool keep_order = false, const lines::Options *lines_opt = nullptr, const lines::Pattern *host_pattern = nullptr)
  {
    n = nrows, unit = is_unit, single = fp32;
    const Strict s{nrows, rowptr, colidx, dpos, upper};
    const auto   it0 = thrust::make_counting_iterator<int32_t>(0);
    auto         level = sys.template temp<int32_t>(n);
    perm.resize(n);
    Lap lap;
    levels_of(sys, n, s, colidx, level.data());
    ms_levels = lap(sys);
    const int32_t top = sort_by_level(sys, n, level.data(), perm.data(), level_ptr);
    if (keep_order) order.resize(n), thrust::copy(sys.policy(), perm.data(), perm.data() + n, order.data());
    ms_order = lap(sys);
    if (lines_opt) {
      lines::Options lo = *lines_opt;
      lo.levels         = top + 1;
      unlined           = ln.build(sys, n, rowptr, colidx, dpos, pos, upper, is_unit, fp32, lo, host_pattern);
      ms_slots = lap(sys);
      if (!unlined.empty() && lo.required) throw Error(ErrorKind::bad_input, (upper ? "U: " : "L: ") + unlined);
      if (unlined.empty()) {
        lined = true;
        nnz   = ln.stats.shared_refs + ln.stats.global_refs + ln.stats.cross_refs;
        slots = ln.stats.rows * 32 * ln.stats.K;
        return;
      }
      ln = lines::Lines<Sys>{};
    }
    if (tiles) {
      build_tiles(sys, s, colidx, dpos, pos, level.data(), top, *tiles, lap);
      if (tiles_fit(*tiles)) return;
      // a tile too large for shared memory (many rows read across tiles): the sync-free slices
      const int64_t     need = (int64_t)tile_smem(0);
      const std::string why  = unlined;
      *this                  = Triangle{};
      build(sys, nrows, rowptr, colidx, dpos, pos, upper, is_unit, fp32, nullptr, keep_order);
      untiled_smem = need, unlined = why;
      return;
    }
    const int32_t nslices = (n + kSlice - 1) / kSlice;
    slice_ptr.resize(nslices + 1);
    thrust::fill(sys.policy(), slice_ptr.data(), slice_ptr.data() + 1, int64_t(0));
    thrust::for_each(sys.policy(), it0, it0 + nslices, SliceSlots{perm.data(), s, n, slice_ptr.data() + 1});
    thrust::inclusive_scan(sys.policy(), slice_ptr.data() + 1, slice_ptr.data() + nslices + 1, slice_ptr.data() + 1);
    slots = sys.get(slice_ptr.data() + nslices);
    cols.resize(slots), src.resize(slots);
    thrust::fill(sys.policy(), cols.data(), cols.data() + slots, -1);
    thrust::fill(sys.policy(), src.data(), src.data() + slots, -1);
    if (!unit) diag.resize(n), dval.resize(n);
    thrust::for_each(sys.policy(), it0, it0 + n, FillSlots{perm.data(), colidx, pos, dpos, slice_ptr.data(), s, cols.data(), src.data(), unit ? nullptr : diag.data()});
    nnz = thrust::count_if(sys.policy(), src.data(), src.data() + slots, Stored{});
    if (single) v32.resize(slots);
    else v64.resize(slots);
    ms_slots = lap(sys);
  }

  void build_tiles(const Sys &sys, const Strict &s, const int32_t *colidx, const int32_t *dpos, const int32_t *pos, const int32_t *level, int32_t top, const TileShape &ts, Lap &lap)
  {
    tiled = true;
    if (n == 0) return;
    const auto    it0   = thrust::make_counting_iterator<int32_t>(0);
    const int64_t reach = thrust::transform_reduce(sys.policy(), it0, it0 + n, Reach{s, colidx}, int64_t(0), thrust::maximum<int64_t>());
    // the shape: given, or (0) grown from 8 levels and 2 reaches until a tile holds kTileTarget
    // rows on average (h W / levels): a 3D grid keeps 8 and 2, a 2D one takes taller, wider tiles
    const int64_t r     = std::max<int64_t>(reach, 1);
    const auto    avg   = [&](int hh, int64_t mm) { return (double)hh * (double)std::min<int64_t>(n, mm * r) / (double)(top + 1); };
    int           h     = ts.levels > 0 ? std::min(ts.levels, kTileSegs) : 8;
    int64_t       m     = ts.chunk > 0 ? ts.chunk : 2;
    if (ts.levels <= 0)
      while (h < kTileSegs && avg(h, m) < kTileTarget) h *= 2;
    if (ts.chunk <= 0)
      while (m * r < n && avg(h, m) < kTileTarget) m *= 2;
    width = m * r, band = h;
    const uint64_t nchunks = (uint64_t)((n + width - 1) / width), nbands = (uint64_t)(top / h + 1);
    const uint64_t kb = (uint64_t)std::max(ts.kb, 1), kc = (uint64_t)std::max(ts.kc, 1);
    const uint64_t maxkey = ((nbands - 1) * kb + (nchunks - 1) * kc) * nchunks + nchunks - 1;
    auto           key = sys.template temp<uint64_t>(n), skey = sys.template temp<uint64_t>(n);
    auto           tperm = sys.template temp<int32_t>(n), run = sys.template temp<int32_t>(n), tflag = sys.template temp<int32_t>(n), sflag = sys.template temp<int32_t>(n);
    auto           tid = sys.template temp<int32_t>(n), sid = sys.template temp<int32_t>(n), posof = sys.template temp<int32_t>(n);
    thrust::for_each(sys.policy(), it0, it0 + n, TileKey{perm.data(), level, n, h, width, nchunks, kb, kc, s.upper, key.data()});
    sys.sort_pairs(key.data(), skey.data(), perm.data(), tperm.data(), n, std::max(1, bits_for64(maxkey))); // stable: levels ascending in a tile
    thrust::copy(sys.policy(), tperm.data(), tperm.data() + n, perm.data());
    thrust::for_each(sys.policy(), it0, it0 + n, RunStart{skey.data(), run.data()});
    thrust::inclusive_scan(sys.policy(), run.data(), run.data() + n, run.data(), thrust::maximum<int32_t>());
    thrust::for_each(sys.policy(), it0, it0 + n, TileFlags{skey.data(), run.data(), perm.data(), level, std::max(ts.rows, 1), tflag.data(), sflag.data()});
    thrust::inclusive_scan(sys.policy(), tflag.data(), tflag.data() + n, tid.data());
    thrust::inclusive_scan(sys.policy(), sflag.data(), sflag.data() + n, sid.data());
    ntiles = sys.get(tid.data() + n - 1), nsegs = sys.get(sid.data() + n - 1);
    thrust::transform(sys.policy(), tid.data(), tid.data() + n, tid.data(), MinusOne{});
    thrust::transform(sys.policy(), sid.data(), sid.data() + n, sid.data(), MinusOne{});
    tile_ptr.resize(ntiles + 1), seg_ptr.resize(nsegs + 1), tile_seg.resize(ntiles + 1), seg_slot.resize(nsegs + 1);
    thrust::copy_if(sys.policy(), it0, it0 + n, tflag.data(), tile_ptr.data(), NonZero{});
    thrust::copy_if(sys.policy(), it0, it0 + n, sflag.data(), seg_ptr.data(), NonZero{});
    thrust::fill(sys.policy(), tile_ptr.data() + ntiles, tile_ptr.data() + ntiles + 1, n);
    thrust::fill(sys.policy(), seg_ptr.data() + nsegs, seg_ptr.data() + nsegs + 1, n);
    thrust::gather(sys.policy(), tile_ptr.data(), tile_ptr.data() + ntiles, sid.data(), tile_seg.data());
    thrust::fill(sys.policy(), tile_seg.data() + ntiles, tile_seg.data() + ntiles + 1, nsegs);
    thrust::fill(sys.policy(), seg_slot.data(), seg_slot.data() + 1, int64_t(0));
    thrust::for_each(sys.policy(), it0, it0 + nsegs, SegmentSlots{perm.data(), seg_ptr.data(), s, seg_slot.data() + 1});
    thrust::inclusive_scan(sys.policy(), seg_slot.data() + 1, seg_slot.data() + nsegs + 1, seg_slot.data() + 1);
    slots = sys.get(seg_slot.data() + nsegs);
    thrust::scatter(sys.policy(), it0, it0 + n, perm.data(), posof.data());
    cols.resize(slots), src.resize(slots);
    thrust::fill(sys.policy(), cols.data(), cols.data() + slots, -1);
    thrust::fill(sys.policy(), src.data(), src.data() + slots, -1);
    if (!unit) diag.resize(n), dval.resize(n);
    thrust::for_each(sys.policy(), it0, it0 + n, TileSlots{perm.data(), colidx, pos, dpos, posof.data(), tid.data(), sid.data(), tile_ptr.data(), seg_ptr.data(), seg_slot.data(), s, cols.data(), src.data(), unit ? nullptr : diag.data()});
    nnz = thrust::count_if(sys.policy(), src.data(), src.data() + slots, Stored{});
    ms_slots = lap(sys);
    build_halo(sys, tid.data());
    const auto t0 = thrust::make_counting_iterator<int32_t>(0);
    rows_cap  = (int32_t)thrust::transform_reduce(sys.policy(), t0, t0 + ntiles, Span{tile_ptr.data()}, int64_t(0), thrust::maximum<int64_t>());
    max_slots = thrust::transform_reduce(sys.policy(), t0, t0 + ntiles, TileSlotCount{tile_seg.data(), seg_slot.data()}, int64_t(0), thrust::maximum<int64_t>());
    if (single) v32.resize(slots);
    else v64.resize(slots);
    ms_halo = lap(sys);
  }

  // Shared memory of the largest tile with `slots` staged slots.
  std::size_t tile_smem(int64_t slots) const { return single ? TileSolve<float>::smem_bytes(rows_cap, slots, halo_cap) : TileSolve<double>::smem_bytes(rows_cap, slots, halo_cap); }
  // Whether every tile fits a block's shared memory (as solve_tiles's launch checks)
  bool tiles_fit(const TileShape &ts) const
  {
    int64_t limit = ts.smem;
    if constexpr (!std::is_same_v<Sys, HostSystem>) {
      if (limit <= 0) {
        int dev = 0, optin = 0;
        GPUFORMATS_CUDA(cudaGetDevice(&dev));
        GPUFORMATS_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        limit = optin - kTileSmemSlack;
      }
    }
    return limit <= 0 || (int64_t)tile_smem(0) <= limit;
  }

  // The tiles' halos (TileSolve): the external slots (cols >= 0, a row j) by (tile, j), the first
  // of each pair a halo row (its first reader's segment the least: slots are in segment order);
  // halo rows by (tile, segment, j); then every slot's column its index into the tile's Z.
  void build_halo(const Sys &sys, const int32_t *tid)
  {
    const auto    q0 = thrust::make_counting_iterator<int32_t>(0);
    const int64_t ne = thrust::count_if(sys.policy(), cols.data(), cols.data() + slots, External{});
    tile_halo.resize(ntiles + 1), seg_halo.resize(nsegs + 1);
    auto slot_seg = sys.template temp<int32_t>(slots);
    thrust::for_each(sys.policy(), q0, q0 + nsegs, SlotSegments{seg_slot.data(), slot_seg.data()});
    auto eslot = sys.template temp<int32_t>(ne), sslot = sys.template temp<int32_t>(ne), grp = sys.template temp<int32_t>(ne), first = sys.template temp<int32_t>(ne);
    auto key = sys.template temp<uint64_t>(ne), skey = sys.template temp<uint64_t>(ne);
    thrust::copy_if(sys.policy(), q0, q0 + slots, cols.data(), eslot.data(), External{});
    thrust::for_each(sys.policy(), q0, q0 + (int32_t)ne, HaloKey{eslot.data(), cols.data(), slot_seg.data(), seg_ptr.data(), tid, key.data()});
    if (ne > 0) sys.sort_pairs(key.data(), skey.data(), eslot.data(), sslot.data(), (int32_t)ne, std::max(1, bits_for64(((uint64_t)ntiles << 32) | 0xffffffffull)));
    thrust::for_each(sys.policy(), q0, q0 + (int32_t)ne, FirstOf{skey.data(), first.data()});
    thrust::inclusive_scan(sys.policy(), first.data(), first.data() + ne, grp.data());
    nhalo = ne ? sys.get(grp.data() + ne - 1) : 0;
    thrust::transform(sys.policy(), grp.data(), grp.data() + ne, grp.data(), MinusOne{});
    // halo rows: (tile, local segment of the first reader, j), sorted
    auto hkey = sys.template temp<uint64_t>(nhalo), shkey = sys.template temp<uint64_t>(nhalo);
    auto hid = sys.template temp<int32_t>(nhalo), order = sys.template temp<int32_t>(nhalo), place = sys.template temp<int32_t>(nhalo);
    thrust::for_each(sys.policy(), q0, q0 + (int32_t)ne, HaloEntry{skey.data(), sslot.data(), first.data(), grp.data(), slot_seg.data(), tile_seg.data(), hkey.data()});
    thrust::sequence(sys.policy(), hid.data(), hid.data() + nhalo);
    if (nhalo > 0) sys.sort_pairs(hkey.data(), shkey.data(), hid.data(), order.data(), (int32_t)nhalo, std::max(1, bits_for64(((uint64_t)ntiles << 37) | ((uint64_t)kTileSegs << 31))));
    thrust::scatter(sys.policy(), q0, q0 + (int32_t)nhalo, order.data(), place.data());
    halo_rows.resize(nhalo);
    thrust::transform(sys.policy(), shkey.data(), shkey.data() + nhalo, halo_rows.data(), LowBits31{});
    const auto t0 = thrust::make_counting_iterator<int32_t>(0);
    thrust::for_each(sys.policy(), t0, t0 + ntiles + 1, HaloStart{shkey.data(), nhalo, tile_seg.data(), ntiles, nsegs, -1, tile_halo.data()});
    thrust::for_each(sys.policy(), t0, t0 + nsegs + 1, HaloStart{shkey.data(), nhalo, tile_seg.data(), ntiles, nsegs, 0, seg_halo.data(), tid, seg_ptr.data()});
    thrust::for_each(sys.policy(), q0, q0 + (int32_t)ne, HaloColumn{sslot.data(), grp.data(), place.data(), slot_seg.data(), seg_ptr.data(), tid, tile_halo.data(), cols.data()});
    halo_cap = (int32_t)thrust::transform_reduce(sys.policy(), t0, t0 + ntiles, Span{tile_halo.data()}, int64_t(0), thrust::maximum<int64_t>());
    thrust::for_each(sys.policy(), q0, q0 + (int32_t)slots, ZIndex{slot_seg.data(), seg_ptr.data(), tid, tile_halo.data(), cols.data()});
  }

  void set_values(const Sys &sys, const double *m)
  {
    if (lined) return ln.set_values(sys, m);
    const auto q0 = thrust::make_counting_iterator<int64_t>(0);
    if (single) thrust::for_each(sys.policy(), q0, q0 + slots, GatherSlots<float>{m, src.data(), v32.data()});
    else thrust::for_each(sys.policy(), q0, q0 + slots, GatherSlots<double>{m, src.data(), v64.data()});
    const auto k0 = thrust::make_counting_iterator<int32_t>(0);
    if (!unit) thrust::for_each(sys.policy(), k0, k0 + n, GatherDiagonal{m, diag.data(), dval.data()});
  }

  // out = T^-1 rhs (the head's SolveRow for mark and consume); device: the sync-free tickets.
  void solve(const Sys &sys, double *rhs, double *out, double *mark, bool consume, const ExactOptions &o, uint32_t *ticket, uint32_t *next_ticket) const
  {
    if (lined) return ln.solve(sys, rhs, out, mark, consume, (long long)kPending, ticket, next_ticket);
    if (single) solve_v(sys, v32.data(), rhs, out, mark, consume, o, ticket, next_ticket);
    else solve_v(sys, v64.data(), rhs, out, mark, consume, o, ticket, next_ticket);
  }

  template <class V>
  void solve_v(const Sys &sys, const V *v, double *rhs, double *out, double *mark, bool consume, const ExactOptions &o, uint32_t *ticket, uint32_t *next_ticket) const
  {
    if (n == 0) return;
    if (tiled) {
      solve_tiles(sys, v, rhs, out, mark, consume, o, ticket, next_ticket);
      return;
    }
    const auto row = [&](auto wait) { return SolveRow<V, decltype(wait)::value>{perm.data(), cols.data(), slice_ptr.data(), v, unit ? nullptr : dval.data(), rhs, out, mark, consume, (uint32_t)o.backoff_ns}; };
    if constexpr (std::is_same_v<Sys, HostSystem>) {
      // each level's rows last to first: a row that read another of its level would read it unwritten
      const auto r = row(std::false_type{});
      for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l)
        for (int32_t k = level_ptr[l + 1] - 1; k >= level_ptr[l]; --k) r(k);
    } else if (o.schedule == Schedule::sync_free || o.schedule == Schedule::tiles || o.schedule == Schedule::lines || o.schedule == Schedule::automatic) { // tiles: a triangle too large for them
      int64_t grid = (n + kBlock - 1) / kBlock;
      if (o.blocks_per_sm > 0) {
        int sms = 0;
        GPUFORMATS_CUDA(sm_count_of_current_device(&sms));
        grid = std::min<int64_t>(grid, (int64_t)sms * o.blocks_per_sm);
      }
      sync_free_kernel<V><<<(unsigned)grid, kBlock, 0, sys.stream>>>(n, row(std::true_type{}), ticket, next_ticket);
      GPUFORMATS_CUDA(cudaGetLastError());
    } else { // levels, graph (captured by the caller)
      const auto r = row(std::false_type{});
      for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
        const int32_t b = level_ptr[l], e = level_ptr[l + 1];
        level_kernel<V><<<(unsigned)((e - b + kBlock - 1) / kBlock), kBlock, 0, sys.stream>>>(b, e, r);
      }
      GPUFORMATS_CUDA(cudaGetLastError());
    }
  }

  template <class V>
  void solve_tiles(const Sys &sys, const V *v, double *rhs, double *out, double *mark, bool consume, const ExactOptions &o, uint32_t *ticket, uint32_t *next_ticket) const
  {
    TileSolve<V> a{perm.data(), cols.data(), tile_ptr.data(), tile_seg.data(), seg_ptr.data(), halo_rows.data(), tile_halo.data(), seg_halo.data(), seg_slot.data(), v, unit ? nullptr : dval.data(), rhs, out, mark, consume, n, ntiles, rows_cap, halo_cap, 0, ((uintptr_t)out & 15) == 0};
    if constexpr (std::is_same_v<Sys, HostSystem>) {
      // tile by tile in order, each segment's rows last to first (a read of a row not yet solved throws)
      a.slots_cap = o.tile_slots > 0 ? std::min<int64_t>(o.tile_slots, max_slots) : max_slots;
      std::vector<unsigned char> mem(TileSolve<V>::smem_bytes(rows_cap, a.slots_cap, halo_cap));
      auto                       st = a.carve(mem.data());
      for (int32_t t = 0; t < ntiles; ++t) {
        a.place((uint32_t)t, st);
        const bool    staged = a.stage((uint32_t)t, st, 0, 1);
        const int32_t segs   = tile_seg[t + 1] - tile_seg[t];
        for (int32_t g = 0; g < segs; ++g) {
          const auto sg = a.segment(g, st);
          for (int32_t k = sg.b + sg.rows - 1; k >= sg.b; --k) a.template row<false>(k, st, staged, sg);
        }
      }
    } else {
      const int threads = o.tile_threads >= 512 ? 512 : 256;
      auto      kernel  = threads == 512 ? tile_kernel<512, V> : tile_kernel<256, V>;
      if (launch.slots_cap < 0 || launch.threads != threads) {
        int dev = 0, sms = 0, per_sm = 0, optin = 0, occ = 0;
        GPUFORMATS_CUDA(cudaGetDevice(&dev));
        GPUFORMATS_CUDA(sm_count_of_current_device(&sms));
        GPUFORMATS_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
        GPUFORMATS_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        // the blocks per SM asked for share the SM's shared memory (1 KB reserved a block)
        const int64_t budget = std::min<int64_t>(optin, per_sm / std::max(o.blocks_per_sm, 1) - 1024) - 4096;
        const int64_t fixed  = (int64_t)TileSolve<V>::smem_bytes(rows_cap, 0, halo_cap);
        int64_t       cap    = std::max<int64_t>(0, std::min<int64_t>(max_slots, (budget - fixed) / (int64_t)(sizeof(V) + sizeof(int32_t))));
        if (o.tile_slots > 0) cap = std::min<int64_t>(cap, o.tile_slots);
        launch.slots_cap = cap, launch.threads = threads;
        launch.smem      = TileSolve<V>::smem_bytes(rows_cap, cap, halo_cap);
        if ((int64_t)launch.smem > optin - kTileSmemSlack) throw Error(ErrorKind::unsupported, "trisolve: a tile of " + std::to_string(rows_cap) + " rows and " + std::to_string(halo_cap) + " rows read from other tiles needs " + std::to_string(launch.smem) + " bytes of shared memory, more than a block has: lower -mat_gpuformats_trisolve_tile_rows");
        // the kernel's limit, shared by every triangle: the most a block may have
        cudaFuncAttributes fa{};
        GPUFORMATS_CUDA(cudaFuncGetAttributes(&fa, kernel));
        optin -= (int)fa.sharedSizeBytes;
        GPUFORMATS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        GPUFORMATS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads + 32, launch.smem));
        launch.grid = (int)std::max<int64_t>(1, std::min<int64_t>(ntiles, (int64_t)sms * std::max(occ, 1)));
      }
      a.slots_cap = launch.slots_cap;
      a.backoff_ns = (uint32_t)o.backoff_ns;
      // GPUFORMATS_TILE_PROFILE=prefix: the 8th solve of each triangle writes
      // prefix.<ntiles>.<grid>.<L|U>.bin (bench/experiments/trisolve-tiles/profile.py reads it)
      static const char *profile = std::getenv("GPUFORMATS_TILE_PROFILE");
      DeviceBuffer<uint64_t> prof;
      if (profile && *profile && ++launch.calls == 8) {
        prof.resize(kProf * (std::size_t)ntiles);
        GPUFORMATS_CUDA(cudaMemsetAsync(prof.data(), 0, prof.bytes(), sys.stream));
        a.prof = prof.data();
      }
      kernel<<<(unsigned)launch.grid, (unsigned)threads + 32, launch.smem, sys.stream>>>(a, ticket, next_ticket);
      const cudaError_t e = cudaGetLastError();
      if (e != cudaSuccess) throw Error(ErrorKind::device, std::string("trisolve: the tile kernel's launch (") + std::to_string(launch.grid) + " blocks of " + std::to_string(threads) + " threads, " + std::to_string(launch.smem) + " bytes of shared memory, " + std::to_string(rows_cap) + " rows and " + std::to_string(launch.slots_cap) + " slots a tile) failed: " + cudaGetErrorString(e));
      if (a.prof) {
        std::vector<uint64_t> h(kProf * (std::size_t)ntiles);
        sys.to_host(h.data(), prof.data(), h.size());
        const std::string f = std::string(profile) + "." + std::to_string(ntiles) + "." + std::to_string(launch.grid) + (unit ? ".L" : ".U") + ".bin";
        if (FILE *fp = std::fopen(f.c_str(), "wb")) std::fwrite(h.data(), sizeof(uint64_t), h.size(), fp), std::fclose(fp);
      }
    }
  }

  int32_t     levels() const { return level_ptr.empty() ? 0 : (int32_t)level_ptr.size() - 1; }
  std::size_t bytes() const
  {
    if (lined) return ln.bytes();
    // slots (column and value), the permutation, the slice pointers, the diagonal; per row the
    // right-hand side read, the result written and a pending mark written
    const std::size_t meta = tiled ? sizeof(int32_t) * (std::size_t)(3 * ntiles + 2 * nsegs + 5 + nhalo) + sizeof(int64_t) * (std::size_t)(nsegs + 1) : sizeof(int64_t) * (std::size_t)(n / kSlice + 2);
    return (std::size_t)slots * (4 + (single ? 4 : 8)) + (std::size_t)n * (4 + (unit ? 0 : 8) + 24) + meta;
  }
};

} // namespace level
} // namespace trisolve
} // namespace gpuformats
