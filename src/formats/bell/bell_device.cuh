// BELL's device builder and product thread body, generic over where they run: the body is
// __host__ __device__ and the builder is templated on a system (core/thrust_system.cuh), so
// bell_cuda.cu runs them on the GPU and test_bell_build runs the very same code on thrust::host
// against the host builder (bell_host.cpp). Layout and invariants: bell.hpp.
//
// The build, all in Thrust (no hand-written sort or scan):
//   1. block_dense: one candidate per CSR entry (EntryViolation), the smallest (block row, block
//      column) wins; its bs rows come back to the host for build_host's message
//   2. the block pattern (browptr[br] = rowptr[br*bs] / bs^2, bcol from every bs-th entry of the
//      block row's first row) and core's permutation of it (sys.row_permutation: the host's order)
//   3. widths (the longest block row of each slice), slice_ptr = exclusive scan of widths * h_s
//      (64-bit: the overflow refusal is decided before the big allocations)
//   4. block_col per slot (its slice by binary search of slice_ptr), slot_of_csr per entry (its
//      row from core's entry_rows, its position from the inverse permutation), values scattered
//   5. empty block rows marked ~br in perm
#pragma once
#include "bell.hpp"

#include "../../core/entry_rows.cuh"
#include "../../core/loads.cuh"
#include "../../core/thrust_system.cuh"

#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuformats {
namespace bell {

// 8 warps per CTA: 8 slices of the default geometry.
constexpr int kThreads = 256;

// Slots loaded together by one lane before any x load: a lane's bs values of kSteps slots and
// their block columns in flight at once (bs = 1: a row of <= 8 blocks costs one round trip).
template <int BS>
constexpr int kSteps = BS == 1 ? 8 : BS == 2 ? 4 : BS < 8 ? 2 : 1; // bs = 8: 8 values per slot already (2 slots took 126 registers on sm_90)

struct KernelArgs {
  int32_t        nbrows, nslices, slice, lanes; // lanes: lanes_per_slice(slice, bs)
  const int32_t *perm, *slice_ptr, *block_col;
  const double  *values;
};

// One lane of slice s: scalar row a of the block row at position r of the slice, l = r*BS + a
// (lanes >= h_s*BS idle). Its values of slot j, entry b sit at value_index: for one b the slice's
// lanes read h_s*BS consecutive doubles, a coalesced load. Lanes of one block row read the same
// block column and the same x entries (broadcast).
template <int BS>
GPUFORMATS_HD void slice_lane(const KernelArgs &k, int32_t s, int32_t l, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  constexpr int U = kSteps<BS>;
  const int32_t h = k.nbrows - s * k.slice < k.slice ? k.nbrows - s * k.slice : k.slice;
  if (l >= h * BS) return;
  const int32_t r = l / BS, a = l - r * BS;
  const int32_t pr = load_ro(k.perm + s * k.slice + r), first = load_ro(k.slice_ptr + s);
  double        sum = 0;
  if (pr >= 0) { // an empty block row reads nothing (x may hold Inf there)
    const int32_t  w    = (load_ro(k.slice_ptr + s + 1) - first) / h;
    const int32_t *bcp  = k.block_col + first + r;              // slot j: bcp[j*h]
    const double  *vp   = k.values + (int64_t)first * BS * BS + l; // entry (j, b): vp[(j*BS + b) * h*BS]
    const int64_t  step = (int64_t)h * BS;
    for (int32_t j = 0; j < w; j += U) {
      int32_t bc[U];
      double  v[U][BS], xv[U][BS];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const bool in = j + u < w;
        bc[u]         = in ? load_stream(bcp + (int64_t)(j + u) * h) : 0;
#pragma unroll
        for (int b = 0; b < BS; ++b) v[u][b] = in ? load_stream(vp + ((int64_t)(j + u) * BS + b) * step) : 0.0;
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int b = 0; b < BS; ++b) xv[u][b] = j + u < w ? load_ro(x + (int64_t)bc[u] * BS + b) : 0.0; // all x loads before any use
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int b = 0; b < BS; ++b) sum += v[u][b] * xv[u][b];
    }
  }
  const int32_t row = (pr < 0 ? ~pr : pr) * BS + a;
  y[row]            = beta == 0.0 ? alpha * sum : fma(beta, y[row], alpha * sum); // beta == 0: y write-only
}

// ------------------------------------------------------------------------------------------------
// Builder functors (host+device so the build also runs on thrust::host in tests).

// block_dense, per CSR entry k (row i of block row br, position e in its row): the block column
// of a violation this entry shows, as (br << 32 | bc), or UINT64_MAX. Violations:
//   own grouping  entry e lies in the block of its group's first entry (groups: bs positions,
//                 aligned) and its group lies inside the row (bs sorted columns of one block are
//                 the whole block)
//   first row     row i differs from the block row's first row r0 at position e (or one of them
//                 ends before e: r0's entries check the other rows' lengths)
// The smallest candidate of a block row is build_host's first violating block column (the first
// partial block or the first difference with r0, whichever comes first): entries before it are
// whole aligned blocks equal to r0's, and entries after it have larger columns.
struct EntryViolation {
  const int32_t *rowptr, *colidx, *row;
  int32_t        bs;
  __host__ __device__ uint64_t operator()(int32_t k) const
  {
    const int32_t i = row[k], br = i / bs, r0 = br * bs, e = k - rowptr[i], n = rowptr[i + 1] - rowptr[i];
    const int32_t c = colidx[k], cg = colidx[k - e % bs] / bs;
    int32_t       bad = INT32_MAX;
    if (c / bs != cg || e - e % bs + bs > n) bad = cg; // bs sorted columns of one block: the whole block
    if (i != r0) {
      if (e >= rowptr[r0 + 1] - rowptr[r0]) bad = c / bs < bad ? c / bs : bad;
      else {
        const int32_t c0 = colidx[rowptr[r0] + e];
        if (c0 != c) bad = (c < c0 ? c : c0) / bs < bad ? (c < c0 ? c : c0) / bs : bad;
      }
    } else
      for (int32_t a = 1; a < bs; ++a)
        if (e >= rowptr[r0 + a + 1] - rowptr[r0 + a]) {
          bad = c / bs < bad ? c / bs : bad;
          break;
        }
    return bad == INT32_MAX ? UINT64_MAX : ((uint64_t)br << 32) | (uint32_t)bad;
  }
};
struct BlockRowPtr { // blocks before block row br: its first row's offset / bs^2 (block-dense)
  const int32_t *rowptr;
  int32_t        bs;
  __host__ __device__ int32_t operator()(int32_t br) const { return rowptr[br * bs] / (bs * bs); }
};
struct FillBlockColumns { // bcol from entry k when it starts a block of a block row's first row
  const int32_t *rowptr, *colidx, *row;
  int32_t        bs;
  int32_t       *bcol;
  __host__ __device__ void operator()(int32_t k) const
  {
    const int32_t i = row[k], e = k - rowptr[i];
    if (i % bs == 0 && e % bs == 0) bcol[rowptr[i] / (bs * bs) + e / bs] = colidx[k] / bs;
  }
};
struct SliceGeometry {
  int32_t nbrows, slice;
  __host__ __device__ int32_t height(int32_t s) const { return nbrows - s * slice < slice ? nbrows - s * slice : slice; }
};
struct SliceWidth { // the longest block row of slice s
  const int32_t *browptr, *perm;
  SliceGeometry  g;
  __host__ __device__ int32_t operator()(int32_t s) const
  {
    int32_t w = 0;
    for (int32_t r = 0, h = g.height(s); r < h; ++r) {
      const int32_t br = perm[s * g.slice + r], n = browptr[br + 1] - browptr[br];
      w = n > w ? n : w;
    }
    return w;
  }
};
struct SliceSlots { // widths[s] * h_s (s == nslices: 0, the scan's total)
  const int32_t *widths;
  SliceGeometry  g;
  int32_t        nslices;
  __host__ __device__ int64_t operator()(int32_t s) const { return s < nslices ? (int64_t)widths[s] * g.height(s) : 0; }
};
struct ToInt32 {
  __host__ __device__ int32_t operator()(int64_t v) const { return (int32_t)v; }
};
struct SlotBlockColumn { // block_col[slot]: the j-th block of its block row, padding its last (0: empty)
  const int32_t *slice_ptr, *perm, *browptr, *bcol;
  SliceGeometry  g;
  int32_t        nslices;
  __host__ __device__ int32_t operator()(int32_t slot) const
  {
    const int32_t s   = (int32_t)(thrust::upper_bound(thrust::seq, slice_ptr, slice_ptr + nslices + 1, slot) - slice_ptr) - 1;
    const int32_t off = slot - slice_ptr[s], h = g.height(s), j = off / h, r = off - j * h;
    const int32_t br = perm[s * g.slice + r], n = browptr[br + 1] - browptr[br];
    return n ? bcol[browptr[br] + (j < n - 1 ? j : n - 1)] : 0;
  }
};
struct ValueOfEntry { // slot_of_csr[k] = value_index of CSR entry k
  const int32_t *rowptr, *row, *inv_perm, *slice_ptr;
  SliceGeometry  g;
  int32_t        bs;
  __host__ __device__ int32_t operator()(int32_t k) const
  {
    const int32_t i = row[k], br = i / bs, a = i - br * bs, e = k - rowptr[i];
    const int32_t p = inv_perm[br], s = p / g.slice, r = p - s * g.slice;
    return (int32_t)value_index(bs, slice_ptr[s], g.height(s), e / bs, r, a, e % bs);
  }
};
struct MarkEmpty { // br -> ~br for an empty block row
  const int32_t *browptr;
  __host__ __device__ int32_t operator()(int32_t br) const { return browptr[br + 1] == browptr[br] ? ~br : br; }
};
struct IsEmptyBlockRow {
  const int32_t *browptr;
  __host__ __device__ bool operator()(int32_t br) const { return browptr[br + 1] == browptr[br]; }
};
// The point-block diagonal, one block row position p per call (bell.hpp's Block).
struct DiagonalBlockOf {
  const int32_t *perm, *slice_ptr, *block_col;
  const double  *values;
  SliceGeometry  g;
  int32_t        bs;
  double        *blocks;
  __host__ __device__ void operator()(int32_t p) const
  {
    const int32_t s = p / g.slice, r = p - s * g.slice, h = g.height(s), pr = perm[p], br = pr < 0 ? ~pr : pr;
    const int32_t w  = (slice_ptr[s + 1] - slice_ptr[s]) / h;
    int32_t       jd = -1;
    for (int32_t j = 0; pr >= 0 && j < w && jd < 0; ++j) // the first match is real: padding repeats the last column
      if (block_col[slice_ptr[s] + j * h + r] == br) jd = j;
    for (int32_t a = 0; a < bs; ++a)
      for (int32_t b = 0; b < bs; ++b) blocks[((int64_t)br * bs + a) * bs + b] = jd >= 0 ? values[value_index(bs, slice_ptr[s], h, jd, r, a, b)] : 0.0;
  }
};

template <class Sys>
struct Arrays : Geometry {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  buf<int32_t> perm, slice_ptr, widths, block_col, slot_of_csr;
  buf<double>  values;

  KernelArgs kernel_args() const { return {nbrows, nslices, slice, lanes_per_slice(slice, bs), perm.data(), slice_ptr.data(), block_col.data(), values.data()}; }
};

// block_dense on the system: throws build_host's refusal (the same message) at the first
// violation. row: the row of each entry (entry_rows).
template <class Sys>
void check_block_dense(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, const int32_t *row, int32_t nrows, int32_t ncols, int64_t nnz, int32_t bs)
{
  const std::string shape = shape_violation(nrows, ncols, bs);
  if (!shape.empty()) throw not_block_dense_error(bs, shape);
  const thrust::counting_iterator<int32_t> zero(0);
  const uint64_t first = thrust::transform_reduce(sys.policy(), zero, zero + (int32_t)nnz, EntryViolation{rowptr, colidx, row, bs}, UINT64_MAX, thrust::minimum<uint64_t>());
  if (first == UINT64_MAX) return;
  // The violating block row's bs rows, on the host, for build_host's description of the block.
  const int32_t        br = (int32_t)(first >> 32), bc = (int32_t)(first & 0xffffffffu);
  std::vector<int32_t> rp(bs + 1);
  sys.to_host(rp.data(), rowptr + (int64_t)br * bs, bs + 1);
  std::vector<int32_t> cols(rp[bs] - rp[0]);
  sys.to_host(cols.data(), colidx + rp[0], cols.size());
  for (int32_t a = bs; a >= 0; --a) rp[a] -= rp[0];
  throw not_block_dense_error(bs, describe_block(CsrView{bs, ncols, (int64_t)cols.size(), rp.data(), cols.data(), nullptr}, bs, br, bc));
}

// Builds every array of bell.hpp from a CSR in the system's memory: the host builder's arrays,
// or its exceptions (Error(bad_input) for bs / options, Error(unsupported) for a matrix that is
// not block-dense or a layout beyond the int32 slot map).
template <class Sys>
void build_arrays(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, const double *csr_values, int32_t nrows, int32_t ncols, int64_t nnz, int32_t bs, const Options &opt, Arrays<Sys> &out)
{
  using thrust::counting_iterator;
  auto pol                                     = sys.policy();
  static_cast<Geometry &>(out)                 = plan(nrows, ncols, nnz, bs, opt);
  const int32_t                  nb            = out.nbrows, ns = out.nslices, bs2 = bs * bs;
  const SliceGeometry            g{nb, out.slice};
  const counting_iterator<int32_t> zero(0);

  typename Sys::template buffer<int32_t> row(nnz), browptr(nb + 1), bcol(out.nblocks), inv(nb);
  entry_rows(pol, rowptr, nrows, nnz, row.data());
  check_block_dense(sys, rowptr, colidx, row.data(), nrows, ncols, nnz, bs);

  // The block pattern and its permutation.
  thrust::transform(pol, zero, zero + nb + 1, browptr.data(), BlockRowPtr{rowptr, bs});
  thrust::for_each_n(pol, zero, (int32_t)nnz, FillBlockColumns{rowptr, colidx, row.data(), bs, bcol.data()});
  out.perm.resize(nb);
  sys.row_permutation(browptr.data(), bcol.data(), nb, out.nbcols, RowOrder::longest_first, out.window, 0, out.perm.data());

  // Slices: widths, then slot counts scanned in 64 bits (the refusal before the allocations).
  out.widths.resize(ns);
  thrust::transform(pol, zero, zero + ns, out.widths.data(), SliceWidth{browptr.data(), out.perm.data(), g});
  {
    typename Sys::template buffer<int64_t> ptr64(ns + 1);
    thrust::transform(pol, zero, zero + ns + 1, ptr64.data(), SliceSlots{out.widths.data(), g, ns});
    thrust::exclusive_scan(pol, ptr64.data(), ptr64.data() + ns + 1, ptr64.data());
    out.nslots = sys.get(ptr64.data() + ns);
    if (out.nslots * bs2 > INT32_MAX) throw slot_overflow_error();
    out.slice_ptr.resize(ns + 1);
    thrust::transform(pol, ptr64.data(), ptr64.data() + ns + 1, out.slice_ptr.data(), ToInt32{});
    sys.sync(); // ptr64 dies here
  }
  const int32_t nslots = (int32_t)out.nslots;

  out.block_col.resize(nslots);
  thrust::transform(pol, zero, zero + nslots, out.block_col.data(), SlotBlockColumn{out.slice_ptr.data(), out.perm.data(), browptr.data(), bcol.data(), g, ns});

  // Entries: value index of CSR entry k from its row, its block row's position and its place.
  thrust::scatter(pol, zero, zero + nb, out.perm.data(), inv.data());
  out.slot_of_csr.resize(nnz);
  thrust::transform(pol, zero, zero + (int32_t)nnz, out.slot_of_csr.data(), ValueOfEntry{rowptr, row.data(), inv.data(), out.slice_ptr.data(), g, bs});
  out.values.resize((int64_t)nslots * bs2);
  thrust::fill(pol, out.values.data(), out.values.data() + (int64_t)nslots * bs2, 0.0);
  thrust::scatter(pol, csr_values, csr_values + nnz, out.slot_of_csr.data(), out.values.data());

  out.empty_brows = (int32_t)thrust::count_if(pol, zero, zero + nb, IsEmptyBlockRow{browptr.data()});
  thrust::transform(pol, out.perm.data(), out.perm.data() + nb, out.perm.data(), MarkEmpty{browptr.data()});
  sys.sync(); // row, browptr, bcol, inv die here
}

// blocks (nbrows * bs^2, the arrays' memory) = the point-block diagonal of the arrays, on a
// Thrust policy of that memory.
template <class Policy, class Sys>
void point_block_diagonal(const Policy &pol, const Arrays<Sys> &a, double *blocks)
{
  const thrust::counting_iterator<int32_t> zero(0);
  thrust::for_each_n(pol, zero, a.nbrows, DiagonalBlockOf{a.perm.data(), a.slice_ptr.data(), a.block_col.data(), a.values.data(), SliceGeometry{a.nbrows, a.slice}, a.bs, blocks});
}

} // namespace bell
} // namespace gpuformats
