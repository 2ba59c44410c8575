// Mode::levelset's triangles (trisolve.hpp): one triangle of a CSR pattern, its rows in level order,
// stored as sliced ELL, built and solved on a Thrust system (core/thrust_system.cuh): the host in
// CI, the GPU otherwise, the same code. The device solve's two schedules are below.
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

#include <cuda/atomic>
#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

#include <cstring>
#include <type_traits>
#include <vector>

namespace gpuformats {
namespace trisolve {
namespace level {

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

constexpr int kSlice = 32;  // rows per slice: one warp
constexpr int kBlock = 128; // threads per block of the device solves (a ticket's rows)
constexpr int kBatch = 4;   // entries of a row whose read rows are awaited together

// Row i's strict entries: [rowptr[i], dpos[i]) below the diagonal, (dpos[i], rowptr[i+1]) above.
struct Strict {
  const int32_t *rowptr, *dpos;
  bool           upper;
  __host__ __device__ int32_t lo(int32_t i) const { return upper ? dpos[i] + 1 : rowptr[i]; }
  __host__ __device__ int32_t hi(int32_t i) const { return upper ? rowptr[i + 1] : dpos[i]; }
};

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

// Levels on the device: one thread per row, rows taken in dependency order by a block ticket;
// a row waits for the rows it reads (done[j]), then publishes its level.
__global__ void __launch_bounds__(kBlock) levels_kernel(int32_t n, Strict s, const int32_t *colidx, int32_t *level, int32_t *done, uint32_t *ticket)
{
  __shared__ uint32_t t;
  if (threadIdx.x == 0) t = atomicAdd(ticket, 1u);
  __syncthreads();
  const int64_t k = (int64_t)t * kBlock + threadIdx.x;
  if (k >= n) return;
  const int32_t i = s.upper ? (int32_t)(n - 1 - k) : (int32_t)k;
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
      const int32_t i = s.upper ? n - 1 - k : k;
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

struct Stored {
  __host__ __device__ bool operator()(int32_t src) const { return src >= 0; }
};

template <class V>
struct GatherSlots {
  const double  *m;
  const int32_t *src;
  V             *out;
  __host__ __device__ void operator()(int64_t q) const { out[q] = src[q] >= 0 ? (V)m[src[q]] : V(0); }
};

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
  int32_t              n = 0;
  int64_t              nnz = 0, slots = 0;
  bool                 unit = true, single = false;

  // The strict upper or lower triangle of a sorted CSR pattern (rowptr, colidx, dpos: its
  // diagonal positions, all in Sys memory); unit: no diagonal division.
  void build(const Sys &sys, int32_t nrows, const int32_t *rowptr, const int32_t *colidx, const int32_t *dpos, const int32_t *pos, bool upper, bool is_unit, bool fp32)
  {
    n = nrows, unit = is_unit, single = fp32;
    const Strict s{rowptr, dpos, upper};
    const auto   it0 = thrust::make_counting_iterator<int32_t>(0);
    auto         level = sys.template temp<int32_t>(n), sorted = sys.template temp<int32_t>(n), rows = sys.template temp<int32_t>(n);
    perm.resize(n);
    levels_of(sys, n, s, colidx, level.data());
    const int32_t top = n ? thrust::reduce(sys.policy(), level.data(), level.data() + n, 0, thrust::maximum<int32_t>()) : -1;
    thrust::sequence(sys.policy(), rows.data(), rows.data() + n);
    if (n > 0) sys.sort_pairs(level.data(), sorted.data(), rows.data(), perm.data(), n, std::max(1, bits_for((uint32_t)top)));
    auto starts = sys.template temp<int32_t>(top + 2);
    thrust::lower_bound(sys.policy(), sorted.data(), sorted.data() + n, it0, it0 + top + 2, starts.data());
    level_ptr.resize(top + 2);
    sys.to_host(level_ptr.data(), starts.data(), level_ptr.size());
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
    sys.sync();
  }

  void set_values(const Sys &sys, const double *m)
  {
    const auto q0 = thrust::make_counting_iterator<int64_t>(0);
    if (single) thrust::for_each(sys.policy(), q0, q0 + slots, GatherSlots<float>{m, src.data(), v32.data()});
    else thrust::for_each(sys.policy(), q0, q0 + slots, GatherSlots<double>{m, src.data(), v64.data()});
    const auto k0 = thrust::make_counting_iterator<int32_t>(0);
    if (!unit) thrust::for_each(sys.policy(), k0, k0 + n, GatherDiagonal{m, diag.data(), dval.data()});
  }

  // out = T^-1 rhs (the head's SolveRow for mark and consume); device: the sync-free tickets.
  void solve(const Sys &sys, double *rhs, double *out, double *mark, bool consume, const ExactOptions &o, uint32_t *ticket, uint32_t *next_ticket) const
  {
    if (single) solve_v(sys, v32.data(), rhs, out, mark, consume, o, ticket, next_ticket);
    else solve_v(sys, v64.data(), rhs, out, mark, consume, o, ticket, next_ticket);
  }

  template <class V>
  void solve_v(const Sys &sys, const V *v, double *rhs, double *out, double *mark, bool consume, const ExactOptions &o, uint32_t *ticket, uint32_t *next_ticket) const
  {
    if (n == 0) return;
    const auto row = [&](auto wait) { return SolveRow<V, decltype(wait)::value>{perm.data(), cols.data(), slice_ptr.data(), v, unit ? nullptr : dval.data(), rhs, out, mark, consume, (uint32_t)o.backoff_ns}; };
    if constexpr (std::is_same_v<Sys, HostSystem>) {
      // each level's rows last to first: a row that read another of its level would read it unwritten
      const auto r = row(std::false_type{});
      for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l)
        for (int32_t k = level_ptr[l + 1] - 1; k >= level_ptr[l]; --k) r(k);
    } else if (o.schedule == Schedule::sync_free) {
      int64_t grid = (n + kBlock - 1) / kBlock;
      if (o.blocks_per_sm > 0) {
        int dev = 0, sms = 0;
        GPUFORMATS_CUDA(cudaGetDevice(&dev));
        GPUFORMATS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
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

  int32_t     levels() const { return level_ptr.empty() ? 0 : (int32_t)level_ptr.size() - 1; }
  std::size_t bytes() const
  {
    // slots (column and value), the permutation, the slice pointers, the diagonal; per row the
    // right-hand side read, the result written and a pending mark written
    return (std::size_t)slots * (4 + (single ? 4 : 8)) + (std::size_t)n * (4 + (unit ? 0 : 8) + 24) + sizeof(int64_t) * (std::size_t)(n / kSlice + 2);
  }
};

} // namespace level
} // namespace trisolve
} // namespace gpuformats
