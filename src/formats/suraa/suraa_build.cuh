// SURAA's device builder, generic over where it runs (core/thrust_system.cuh): suraa_cuda.cu runs it
// on the GPU (CudaOrderedSystem: Thrust without its optional synchronisations, temporaries
// stream-ordered, the build being dozens of short steps) and test_suraa_build runs the very same
// code on thrust::host (HostSystem) against the host builder (suraa_host.cpp), array by array. The
// same layout and plan as the host builder: sort, the plan from a few values read back, G1 chunks,
// tiles, the CSR rearranged. Layout and rules: suraa.hpp.
#pragma once
#include "suraa.hpp"

#include "../../core/entry_rows.cuh"
#include "../../core/radix_sort.cuh"
#include "../../core/row_lengths.cuh"
#include "../../core/thrust_system.cuh"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <vector>

namespace gpuformats {
namespace suraa {
namespace build_detail {

// ------------------------------------------------------------------------------------------------
// Builder functors (host+device)

struct SlotOfEntry { // (k, row) -> slot of CSR entry k
  const int32_t *rowptr, *sorted_rowptr, *inv_perm;
  GPUFORMATS_HD int32_t operator()(int32_t k, int32_t i) const { return sorted_rowptr[inv_perm[i]] + (k - rowptr[i]); }
};
struct Squared {
  GPUFORMATS_HD int64_t operator()(int32_t l) const { return (int64_t)l * l; }
};
struct ChunksOf {
  GPUFORMATS_HD int32_t operator()(int32_t l) const { return g1_chunks(l); }
};
struct IsEmpty {
  GPUFORMATS_HD bool operator()(int32_t l) const { return l == 0; }
};
struct LongerThanChunk {
  GPUFORMATS_HD bool operator()(int32_t l) const { return l > kG1ChunkEntries; }
};

// Tiles (tile_rows_arrays).
struct InPositions { // row i sits at a position of [begin, end)
  const int32_t *inv;
  int32_t        begin, end;
  GPUFORMATS_HD bool operator()(int32_t i) const { return inv[i] >= begin && inv[i] < end; }
};
struct TileKeyOf { // row -> tile_key (window, T code of its sorted position)
  const int32_t *inv, *code;
  int32_t        begin, window;
  GPUFORMATS_HD int32_t operator()(int32_t i) const { return (i / window) << kTileCodeBits | code[inv[i] - begin]; }
};
struct StartsTile { // j starts a run of equal keys
  const int32_t *key;
  GPUFORMATS_HD bool operator()(int32_t j) const { return j == 0 || key[j] != key[j - 1]; }
};
struct BlocksOfTile {
  const int32_t *tile_start, *key;
  GPUFORMATS_HD int32_t operator()(int32_t t) const
  {
    const int32_t per = tile_block_rows(key_threads(key[tile_start[t]]));
    return (tile_start[t + 1] - tile_start[t] + per - 1) / per;
  }
};
struct FillBlock { // block b: the tile holding it (largest t with block_start[t] <= b), its rows and T
  const int32_t *tile_start, *block_start, *key;
  int32_t        ntiles, begin;
  int32_t       *first, *info;
  GPUFORMATS_HD void operator()(int32_t b) const
  {
    int32_t lo = 0, hi = ntiles;
    while (hi - lo > 1) {
      const int32_t mid = lo + (hi - lo) / 2;
      if (block_start[mid] <= b) lo = mid;
      else hi = mid;
    }
    const int32_t T = key_threads(key[tile_start[lo]]), per = tile_block_rows(T);
    const int32_t f = tile_start[lo] + (b - block_start[lo]) * per, left = tile_start[lo + 1] - f;
    first[b]        = begin + f;
    info[b]         = tile_info(per < left ? per : left, T);
  }
};

// a[pos[j]] for a few positions, to the host (one gather, one copy).
template <class Sys>
std::vector<int32_t> gather_to_host(const Sys &sys, const int32_t *a, const std::vector<int32_t> &pos)
{
  std::vector<int32_t> out(pos.size());
  if (pos.empty()) return out;
  auto dpos = sys.template temp<int32_t>(pos.size()), dout = sys.template temp<int32_t>(pos.size());
  sys.to_system(dpos.data(), pos.data(), pos.size());
  thrust::gather(sys.policy(), dpos.data(), dpos.data() + pos.size(), a, dout.data());
  sys.to_host(out.data(), dout.data(), out.size()); // out is read
  return out;
}

// The layout's arrays in the system's memory (named as the host block's), and its plan.
template <class Sys>
struct Arrays {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  Plan         plan;
  buf<int32_t> rowptr, colidx, perm, slots, g1_chunk_start, block_first, block_info;
  buf<double>  vals;
};

// The host's tile_rows: the tiled rows, taken in matrix order, stably sorted by tile_key (so ties
// keep the row order, as the host's (key, row) sort), written to perm over their positions; then
// the runs of equal keys (tiles) cut into blocks. false: no tiles.
template <class Sys>
bool tile_rows_arrays(const Sys &sys, Arrays<Sys> &out, int32_t m)
{
  using thrust::counting_iterator;
  Plan         &pl = out.plan;
  const int32_t W = pl.params.window, begin = tiled_begin(pl), n = m - begin, nonempty = nonempty_end_of(pl) - begin;
  if (W <= 0 || n <= 0) return false;
  const auto                       pol = sys.policy();
  const counting_iterator<int32_t> zero(0);
  auto code = sys.template temp<int32_t>(n), inv = sys.template temp<int32_t>(m), rows = sys.template temp<int32_t>(n), key_in = sys.template temp<int32_t>(n), key = sys.template temp<int32_t>(n), tile_start = sys.template temp<int32_t>((size_t)n + 1);
  for (const Launch &l : pl.launches) // code of every position, from its launch; empty rows (last): 0 threads
    if (is_tiled(l) && l.begin < begin + nonempty) thrust::fill(pol, code.data() + (l.begin - begin), code.data() + (std::min(l.end, begin + nonempty) - begin), tile_code(l.threads_per_row));
  if (nonempty < n) thrust::fill(pol, code.data() + std::max(nonempty, 0), code.data() + n, kEmptyCode);
  thrust::scatter(pol, zero, zero + m, out.perm.data(), inv.data());
  thrust::copy_if(pol, zero, zero + m, rows.data(), InPositions{inv.data(), begin, begin + n});
  thrust::transform(pol, rows.data(), rows.data() + n, key_in.data(), TileKeyOf{inv.data(), code.data(), begin, W});
  sys.sort_pairs(key_in.data(), key.data(), rows.data(), out.perm.data() + begin, n, std::max(1, bits_for((uint32_t)tile_key(m - 1, W, 0))));

  int32_t      *ts = tile_start.data();
  const int32_t nt = (int32_t)(thrust::copy_if(pol, zero, zero + n, ts, StartsTile{key.data()}) - ts);
  thrust::fill(pol, ts + nt, ts + nt + 1, n);
  auto     block_start = sys.template temp<int32_t>((size_t)nt + 1);
  int32_t *bs          = block_start.data();
  thrust::transform(pol, zero, zero + nt, bs, BlocksOfTile{ts, key.data()});
  thrust::fill(pol, bs + nt, bs + nt + 1, 0);
  thrust::exclusive_scan(pol, bs, bs + nt + 1, bs);
  const int32_t nb = gather_to_host(sys, bs, {nt})[0];
  out.block_first.resize(nb);
  out.block_info.resize(nb);
  thrust::for_each(pol, zero, zero + nb, FillBlock{ts, bs, key.data(), nt, begin, out.block_first.data(), out.block_info.data()});
  pl.tile_begin  = begin;
  pl.tiles       = nt;
  pl.tile_blocks = nb;
  sys.sync(); // the temporaries die here
  return true;
}

// The layout of the CSR rowptr / colidx_in / values_in (in the system's memory; A gives the sizes).
template <class Sys>
void build_arrays(const Sys &sys, const CsrView &A, const int32_t *rowptr, const int32_t *colidx_in, const double *values_in, const Params &P, Arrays<Sys> &out)
{
  using thrust::counting_iterator;
  const int32_t                    m   = A.nrows;
  const int64_t                    nnz = A.nnz;
  const auto                       pol = sys.policy();
  const counting_iterator<int32_t> zero(0);

  // Sort (Algorithm 2 l.4): the core's permutation.
  out.perm.resize(m);
  if (m) sys.row_permutation(rowptr, colidx_in, m, A.ncols, RowOrder::longest_first, 0, 0, out.perm.data());

  // Lengths and row pointers of the rows in perm's order (exclusive scan over m + 1 entries).
  auto len = sys.template temp<int32_t>(m);
  out.rowptr.resize((size_t)m + 1);
  int32_t *rp        = out.rowptr.data();
  auto     rearrange = [&] {
    if (m) thrust::transform(pol, zero, zero + m, len.data(), StoredLength{rowptr, out.perm.data()});
    if (m) thrust::copy(pol, len.data(), len.data() + m, rp);
    thrust::fill(pol, rp + m, rp + m + 1, 0);
    thrust::exclusive_scan(pol, rp, rp + m + 1, rp);
  };
  rearrange();

  // Segments, groups, launches (l.6-17): the host's plan from a few values read back.
  SortedRows rows;
  rows.lengths_at             = [&](const std::vector<int32_t> &pos) { return gather_to_host(sys, len.data(), pos); };
  rows.rowptr_at              = [&](const std::vector<int32_t> &pos) { return gather_to_host(sys, rp, pos); };
  rows.sum_of_squared_lengths = [&] { return thrust::transform_reduce(pol, len.data(), len.data() + m, Squared{}, (int64_t)0, thrust::plus<int64_t>()); };
  Plan &pl                    = out.plan;
  pl                          = make_plan(P, m, A.ncols, nnz, rows);
  pl.empty_rows               = m ? (int32_t)thrust::count_if(pol, len.data(), len.data() + m, IsEmpty{}) : 0;

  // G1 chunks: exclusive scan of chunks per row over g1_end + 1 entries.
  if (pl.g1_end) {
    const int32_t g = pl.g1_end;
    out.g1_chunk_start.resize((size_t)g + 1);
    int32_t *cs = out.g1_chunk_start.data();
    thrust::transform(pol, len.data(), len.data() + g, cs, ChunksOf{});
    thrust::fill(pol, cs + g, cs + g + 1, 0);
    thrust::exclusive_scan(pol, cs, cs + g + 1, cs);
    pl.g1_chunks           = gather_to_host(sys, cs, {g})[0];
    pl.g1_multi_chunk_rows = (int32_t)thrust::count_if(pol, len.data(), len.data() + g, LongerThanChunk{});
  }

  // Tiles (the host's tile_rows), then the rows' lengths and pointers in the final order.
  if (tile_rows_arrays(sys, out, m)) rearrange();

  // slot_of_csr (Algorithm 2 l.5, "rearrange A_csr using perm"), and the entries scattered to their slots.
  out.slots.resize(nnz);
  out.colidx.resize(nnz);
  out.vals.resize(nnz);
  if (nnz) {
    auto inv = sys.template temp<int32_t>(m);
    thrust::scatter(pol, zero, zero + m, out.perm.data(), inv.data());
    int32_t *sl = out.slots.data();
    entry_rows(pol, rowptr, m, nnz, sl); // the row of each entry (core), then its slot
    thrust::transform(pol, zero, zero + (int32_t)nnz, sl, sl, SlotOfEntry{rowptr, rp, inv.data()});
    thrust::scatter(pol, values_in, values_in + nnz, sl, out.vals.data());
    thrust::scatter(pol, colidx_in, colidx_in + nnz, sl, out.colidx.data());
  }
  sys.sync(); // the temporaries die here
}

} // namespace build_detail
} // namespace suraa
} // namespace gpuformats
