// PELLR's product body and device builder, generic over where they run: the thread body is
// __host__ __device__ and the builder is templated on a system (core/thrust_system.cuh), so
// pellr_cuda.cu runs them on the GPU and test_pellr_build runs the very same code on thrust::host
// against the host builder (pellr_host.cpp). Layout and invariants: pellr.hpp.
#pragma once
#include "pellr.hpp"

#include "../../core/entry_rows.cuh"
#include "../../core/loads.cuh"
#include "../../core/row_lengths.cuh"
#include "../../core/thrust_system.cuh"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

namespace gpuformats {
namespace pellr {

// Loads (core/loads.cuh): the matrix streamed (load_stream), x and rl read-only (load_ro).

// Columns loaded together by one thread: 8 (value, column) pairs, then 8 x loads, in flight at
// once, so a row of <= 8 entries costs one round trip for the matrix and one for x.
constexpr int kUnroll = 8;
// 8 warps per CTA: short grid tail, and at <= 64 registers 4+ CTAs per SM keep HBM busy.
constexpr int kThreads = 256;

// sum_{j < L} values[j*S + p] * x[colidx[j*S + p]], stopping at the first padding slot.
__host__ __device__ inline double row_sum(int32_t p, int32_t S, int32_t L, const int32_t *__restrict__ colidx, const double *__restrict__ values, const double *__restrict__ x)
{
  double sum = 0;
  for (int32_t j = 0; j < L; j += kUnroll) {
    int32_t c[kUnroll];
    double  v[kUnroll], xv[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      c[u] = -1;
      v[u] = 0;
      if (j + u < L) {
        const int32_t slot = (j + u) * S + p;
        c[u]               = load_stream(colidx + slot);
        v[u]               = load_stream(values + slot);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) xv[u] = c[u] >= 0 ? load_ro(x + c[u]) : 0.0; // all x loads before any use
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += v[u] * xv[u]; // padding adds 0 * 0
    if (c[kUnroll - 1] < 0) break;                         // padding is a suffix of the row
  }
  return sum;
}

// Thread body (host+device: the tests run it on the host): one thread per stored row.
// kPerWarp: rl[] per warp; kPermuted: y through perm[].
template <bool kPerWarp, bool kPermuted>
__host__ __device__ inline void row_thread(int32_t p, int32_t stored, int32_t S, const int32_t *__restrict__ rl, const int32_t *__restrict__ perm, const int32_t *__restrict__ colidx, const double *__restrict__ values, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t L   = p < stored ? load_ro(rl + (kPerWarp ? p / kWarp : p)) : 0; // empty rows: not stored
  const double  sum = row_sum(p, S, L, colidx, values, x);
  const int32_t row = kPermuted ? load_ro(perm + p) : p;
  y[row]            = beta == 0.0 ? alpha * sum : fma(beta, y[row], alpha * sum); // beta == 0: y write-only
}

// ------------------------------------------------------------------------------------------------
// Builder functors (host+device so the build also runs on thrust::host in tests).
struct WarpOf {
  __host__ __device__ int32_t operator()(int32_t p) const { return p / kWarp; }
};
struct EveryWarpFirst { // sorted_desc[32 w]: the longest row of warp w of a sorted order
  const int32_t *sorted_desc;
  __host__ __device__ int64_t operator()(int64_t w) const { return sorted_desc[w * kWarp]; }
};
struct SlotOfEntry { // (k, row) -> slot of CSR entry k
  const int32_t *rowptr, *inv_perm; // inv_perm null: identity
  int32_t        S;
  __host__ __device__ int32_t operator()(int32_t k, int32_t i) const
  {
    return (k - rowptr[i]) * S + (inv_perm ? inv_perm[i] : i);
  }
};

template <class Sys>
struct Arrays {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  Info         info;
  int64_t      nslots = 0;
  buf<int32_t> perm, rl, colidx, slot_of_csr;
  buf<double>  values;
};

// N_iter (equation 1) of the lengths given in order: sum over warps of the warp's maximum.
template <class Sys, class LengthIt>
int64_t iterations(const Sys &sys, LengthIt len, int32_t nrows, int64_t n_warps)
{
  typename Sys::template buffer<int32_t> wmax(n_warps);
  thrust::reduce_by_key(sys.policy(), thrust::make_transform_iterator(thrust::counting_iterator<int32_t>(0), WarpOf{}), thrust::make_transform_iterator(thrust::counting_iterator<int32_t>(nrows), WarpOf{}), len, thrust::make_discard_iterator(), wmax.data(), thrust::equal_to<int32_t>(),
                        thrust::maximum<int32_t>());
  const int64_t n = thrust::transform_reduce(sys.policy(), wmax.data(), wmax.data() + n_warps, ToInt64{}, (int64_t)0, thrust::plus<int64_t>());
  sys.sync(); // wmax dies here
  return n;
}

template <class Sys>
void build_arrays(const Sys &sys, const int32_t *rowptr, const int32_t *colidx, const double *csr_values, int32_t nrows, int32_t ncols, int64_t nnz, const int64_t *params, Arrays<Sys> &out)
{
  using thrust::counting_iterator;
  auto  pol = sys.policy();
  Info &in  = out.info;
  in        = read_params(params);
  const counting_iterator<int32_t> zero(0);
  const auto                       natural = thrust::make_transform_iterator(zero, RowLength{rowptr});

  in.width      = thrust::reduce(pol, natural, natural + nrows, (int32_t)0, thrust::maximum<int32_t>());
  in.empty_rows = (int32_t)thrust::count_if(pol, natural, natural + nrows, IsZero{});
  check_fill(in, nrows, nnz, sys.free_bytes()); // before the padded allocation
  const int32_t S      = in.stride;
  const int64_t nslots = (int64_t)in.width * S;
  out.nslots           = nslots;

  if (in.permuted) {
    out.perm.resize(nrows);
    sys.row_permutation(rowptr, colidx, nrows, ncols, RowOrder::longest_first, 0, 0, out.perm.data());
  }
  const int32_t *perm   = in.permuted ? out.perm.data() : nullptr;
  const auto     stored = thrust::make_transform_iterator(zero, StoredLength{rowptr, perm});

  const int64_t rl_n = rl_entries(in);
  out.rl.resize(rl_n);
  if (in.rl_per_warp)
    thrust::reduce_by_key(pol, thrust::make_transform_iterator(zero, WarpOf{}), thrust::make_transform_iterator(zero + in.stored, WarpOf{}), stored, thrust::make_discard_iterator(), out.rl.data(), thrust::equal_to<int32_t>(), thrust::maximum<int32_t>());
  else thrust::copy(pol, stored, stored + in.stored, out.rl.data());

  // The paper's counts, for both orders (warps of empty rows count 0).
  const int64_t all_warps = ((int64_t)nrows + kWarp - 1) / kWarp;
  in.n_iter_natural       = iterations(sys, natural, nrows, all_warps);
  in.n_iter               = in.permuted ? iterations(sys, stored, in.stored, in.n_warps) : in.n_iter_natural;
  if (in.permuted) in.n_iter_sorted = in.n_iter;
  else {
    typename Sys::template buffer<int32_t> sorted(nrows);
    thrust::copy(pol, natural, natural + nrows, sorted.data());
    thrust::sort(pol, sorted.data(), sorted.data() + nrows, thrust::greater<int32_t>());
    in.n_iter_sorted = thrust::transform_reduce(pol, counting_iterator<int64_t>(0), counting_iterator<int64_t>(all_warps), EveryWarpFirst{sorted.data()}, (int64_t)0, thrust::plus<int64_t>());
    sys.sync();
  }
  in.n_p        = 2 * nnz - (nrows - in.empty_rows);

  out.values.resize(nslots);
  out.colidx.resize(nslots);
  thrust::fill(pol, out.values.data(), out.values.data() + nslots, 0.0);
  thrust::fill(pol, out.colidx.data(), out.colidx.data() + nslots, -1);
  {
    typename Sys::template buffer<int32_t> inv(in.permuted ? nrows : 0);
    if (in.permuted) thrust::scatter(pol, zero, zero + nrows, out.perm.data(), inv.data());
    out.slot_of_csr.resize(nnz);
    int32_t *sl = out.slot_of_csr.data();
    entry_rows(pol, rowptr, nrows, nnz, sl); // the row of each entry (core), then its slot
    thrust::transform(pol, zero, zero + (int32_t)nnz, sl, sl, SlotOfEntry{rowptr, in.permuted ? inv.data() : nullptr, S});
    thrust::scatter(pol, csr_values, csr_values + nnz, sl, out.values.data());
    thrust::scatter(pol, colidx, colidx + nnz, sl, out.colidx.data());
    sys.sync(); // inv dies here
  }
}

} // namespace pellr
} // namespace gpuformats
