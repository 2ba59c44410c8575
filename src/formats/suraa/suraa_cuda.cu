// SURAA on the GPU: the device builder (Thrust, from the CSR uploaded once; the same layout and plan
// as the host builder in suraa_host.cpp), the G3 sub-warp and G2 vector kernels, the host-launched G1
// kernel, and the product that launches them on the streams. The dynamic-parallelism G1 kernels
// are in suraa_dynamic_rdc.cu. Layout and rules: suraa.hpp.
#include "suraa.hpp"
#include "suraa_device.cuh"

#include "../../core/device_buffer.hpp"
#include "../../core/entry_rows.cuh"
#include "../../core/row_lengths.cuh"
#include "../../core/radix_sort.cuh"
#include "../../core/row_permutation.hpp"

#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <string>

namespace gpuformats {
namespace suraa {

namespace {

// ------------------------------------------------------------------------------------------------
// Kernels

// G3 (Algorithm 5, modernised: suraa.hpp), one thread's part: T consecutive lanes per row, lane t
// reads the row's entries t, t + T, ... (coalesced), the width-T butterfly adds the lanes'
// partials, lane 0 stores. The rows of a warp are consecutive positions, of (nearly) the same
// length: little divergence. No thread returns before the shuffle: lanes past `end` add 0 and store
// nothing. T = 1: one thread per row (row_dot), no shuffle. Lane 0 loads perm[p] beside the row
// pointers, so the store does not wait for one more load after the sum.
template <int T>
__device__ __forceinline__ void subwarp_row(SubwarpThread th, int64_t end, const DeviceView &v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const bool valid = th.p < end;
  double     sum   = 0;
  int32_t    row   = 0;
  if (valid) {
    const int32_t rs = load_ro(v.rowptr + th.p), re = load_ro(v.rowptr + th.p + 1);
    if (th.lane == 0) row = load_ro(v.perm + th.p);
    sum = subwarp_lane_dot<T>(rs, re, th.lane, v.colidx, v.values, x);
  }
  if constexpr (T > 1) sum = lane_group_sum<T>(sum); // every lane of the warp, valid or not (core/warp_sum.cuh)
  if (valid && th.lane == 0) store_at(row, sum, alpha, beta, y);
}

// One G3 launch of positions [begin, end) at T threads per row: kSubwarpBlockThreads / T rows per block.
template <int T>
__global__ void __launch_bounds__(kSubwarpBlockThreads) suraa_subwarp_rows(int32_t begin, int32_t end, DeviceView v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  subwarp_row<T>(subwarp_thread(begin, blockIdx.x, threadIdx.x, T), end, v, alpha, x, beta, y);
}

// G2 (Algorithm 6), one block's part: rows [first, first + rows) at Y threads per row (a multiple
// of 32), blockDim.x / Y rows per block (threads past them take part with 0). Each warp lies
// inside one row: shuffle reduction per warp, then the row's first thread adds its warps' sums
// from shared memory (`sh`: blockDim.x / 32 doubles; Alg. 6 l.14-19 reads only one neighbour: it
// means all of them). Y is uniform over the block, so the barriers are too. Run by the G2
// launches (suraa_vector_rows) and, inside tile blocks (Y <= 256), by the tiles.
__device__ __forceinline__ void vector_rows(int32_t first, int32_t rows, int32_t Y, double *sh, const DeviceView &v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t local = threadIdx.x / Y, lane = threadIdx.x - local * Y;
  const bool    valid = local < rows;
  const int32_t p     = first + local;
  double        sum   = 0;
  int32_t       row   = 0;
  if (valid) {
    const int32_t rs = load_ro(v.rowptr + p), re = load_ro(v.rowptr + p + 1);
    if (lane == 0) row = load_ro(v.perm + p);
    sum = strided_dot<2>((uint32_t)rs + (uint32_t)lane, (uint32_t)re, (uint32_t)Y, v.colidx, v.values, x); // ~2 entries per thread (Y ~ mean/2)
  }
  sum = warp_sum(sum);
  if (Y > kWarp) {
    const int32_t warp = threadIdx.x / kWarp;
    if ((threadIdx.x & (kWarp - 1)) == 0) sh[warp] = sum;
    __syncthreads();
    if (valid && lane == 0)
      for (int32_t w = 1; w < Y / kWarp; ++w) sum += sh[warp + w];
    __syncthreads(); // sh is read before the block's next tile writes it
  }
  if (valid && lane == 0) store_at(row, sum, alpha, beta, y);
}

// One G2 launch of positions [begin, end): blockDim.x / Y rows per block.
__global__ void __launch_bounds__(kMaxThreadsPerRow) suraa_vector_rows(int32_t begin, int32_t end, int32_t Y, DeviceView v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ double sh[kMaxThreadsPerRow / kWarp];
  const int32_t     per = (int32_t)blockDim.x / Y, first = begin + (int32_t)blockIdx.x * per; // < end: the grid is ceil((end - begin) / per)
  vector_rows(first, end - first < per ? end - first : per, Y, sh, v, alpha, x, beta, y);
}

// One tile block: rows [first, first + rows) at the tile's threads per row (uniform over the
// block, so the switch does not diverge). 0: empty rows, a row per thread, y = alpha 0 + beta y (as
// any row), nothing to do when beta == 1.
__device__ __forceinline__ void tile_block(int32_t first, int32_t info, double *sh, const DeviceView &v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t rows = tile_info_rows(info), threads = tile_info_threads(info);
  const int64_t end  = (int64_t)first + rows;
  switch (threads) {
  case 0:
    if (beta != 1.0 && (int32_t)threadIdx.x < rows) store_at(load_ro(v.perm + first + threadIdx.x), 0.0, alpha, beta, y);
    break;
  case 1: subwarp_row<1>(subwarp_thread(first, 0, threadIdx.x, 1), end, v, alpha, x, beta, y); break;
  case 2: subwarp_row<2>(subwarp_thread(first, 0, threadIdx.x, 2), end, v, alpha, x, beta, y); break;
  case 4: subwarp_row<4>(subwarp_thread(first, 0, threadIdx.x, 4), end, v, alpha, x, beta, y); break;
  case 8: subwarp_row<8>(subwarp_thread(first, 0, threadIdx.x, 8), end, v, alpha, x, beta, y); break;
  case 16: subwarp_row<16>(subwarp_thread(first, 0, threadIdx.x, 16), end, v, alpha, x, beta, y); break;
  default: vector_rows(first, rows, threads, sh, v, alpha, x, beta, y); break; // 32 .. 256
  }
}

// All tiles in one launch of persistent blocks that take tile blocks from a counter: block i runs
// tile block i, then the ones its thread 0 takes (gridDim.x + atomicAdd(taken, 1)), taking and
// loading the next one's (first, info) before running the current one, so that load is off the
// chain of dependent loads. Why, measured on an H100: a block per tile block paid that load every
// time (27-point stencil 11% slower than the per-T launch); persistent blocks striding by
// gridDim.x removed it but fixed each block's share, and on rows of mixed cost (empty-row blocks
// beside 16-lane ones) the unlucky blocks set the time (scaled CA-GrQc 114 -> 56 GFLOP/s). Taking
// from a counter keeps the hardware's balance (CA-GrQc 119). Taking 4 consecutive tile blocks per
// atomicAdd, a quarter of the atomics, lost again on the mixed rows (CA-GrQc 91, circuit 160 ->
// 135, R-MAT scale 24 99 -> 77) for +2-4% on FEM and random rows: one per take it is. The grid
// holds what fits on the device at once, so the tile blocks run about in order: window by window,
// the rows of a window, whatever their threads per row, at about the same time: their x and y stay
// in L2 (suraa.hpp). `taken` is 0 at the launch (the product clears it). The taken values
// alternate between two shared slots, so one barrier per tile block suffices.
__global__ void __launch_bounds__(kSubwarpBlockThreads) suraa_tiles(int32_t nblocks, const int32_t *__restrict__ block_first, const int32_t *__restrict__ block_info, unsigned *taken, DeviceView v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  __shared__ double  sh[kSubwarpBlockThreads / kWarp];
  __shared__ int32_t next_b[2], next_first[2], next_info[2];
  int32_t            first = load_ro(block_first + blockIdx.x), info = load_ro(block_info + blockIdx.x);
  for (int32_t k = 0;; k ^= 1) {
    int32_t b = 0, f = 0, i = 0;
    if (threadIdx.x == 0) {
      b = (int32_t)gridDim.x + (int32_t)atomicAdd(taken, 1u);
      if (b < nblocks) f = load_ro(block_first + b), i = load_ro(block_info + b);
    }
    tile_block(first, info, sh, v, alpha, x, beta, y);
    if (threadIdx.x == 0) next_b[k] = b, next_first[k] = f, next_info[k] = i;
    __syncthreads();
    if (next_b[k] >= nblocks) break; // block-uniform
    first = next_first[k], info = next_info[k];
  }
}

// Positions [begin, begin + n) of one G3 launch at T threads per row (T from the plan: a power of
// two in [1, 32]).
void launch_subwarp(int32_t T, int32_t begin, int32_t n, const DeviceView &v, double alpha, const double *x, double beta, double *y, cudaStream_t s)
{
  const unsigned blocks = (unsigned)subwarp_blocks(n, T);
  switch (T) {
  case 1: suraa_subwarp_rows<1><<<blocks, kSubwarpBlockThreads, 0, s>>>(begin, begin + n, v, alpha, x, beta, y); break;
  case 2: suraa_subwarp_rows<2><<<blocks, kSubwarpBlockThreads, 0, s>>>(begin, begin + n, v, alpha, x, beta, y); break;
  case 4: suraa_subwarp_rows<4><<<blocks, kSubwarpBlockThreads, 0, s>>>(begin, begin + n, v, alpha, x, beta, y); break;
  case 8: suraa_subwarp_rows<8><<<blocks, kSubwarpBlockThreads, 0, s>>>(begin, begin + n, v, alpha, x, beta, y); break;
  case 16: suraa_subwarp_rows<16><<<blocks, kSubwarpBlockThreads, 0, s>>>(begin, begin + n, v, alpha, x, beta, y); break;
  case 32: suraa_subwarp_rows<32><<<blocks, kSubwarpBlockThreads, 0, s>>>(begin, begin + n, v, alpha, x, beta, y); break;
  default: throw Error(ErrorKind::internal, "suraa: internal error: G3 threads per row " + std::to_string(T) + " is not a power of two in [1, 32]");
  }
}

// G1 without dynamic parallelism: one block per chunk of every G1 row; block b finds its row by
// binary search in g1_chunk_start (strictly increasing: every row has >= 1 chunk).
__global__ void __launch_bounds__(kG1BlockThreads) suraa_g1_blocks(int32_t g1_rows, DeviceView v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t b  = blockIdx.x;
  int32_t       lo = 0, hi = g1_rows; // largest r with g1_chunk_start[r] <= b
  while (hi - lo > 1) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (load_ro(v.g1_chunk_start + mid) <= b) lo = mid;
    else hi = mid;
  }
  g1_chunk<kG1ChunkEntries / kG1BlockThreads>(lo, b - load_ro(v.g1_chunk_start + lo), v, alpha, x, beta, y);
}

// ------------------------------------------------------------------------------------------------
// Builder functors

struct SlotOfEntry { // (k, row) -> slot of CSR entry k
  const int32_t *rowptr, *sorted_rowptr, *inv_perm;
  __device__ int32_t operator()(int32_t k, int32_t i) const { return sorted_rowptr[inv_perm[i]] + (k - rowptr[i]); }
};
struct Squared {
  __device__ int64_t operator()(int32_t l) const { return (int64_t)l * l; }
};
struct ChunksOf {
  __device__ int32_t operator()(int32_t l) const { return g1_chunks(l); }
};
struct IsEmpty {
  __device__ bool operator()(int32_t l) const { return l == 0; }
};
struct LongerThanChunk {
  __device__ bool operator()(int32_t l) const { return l > kG1ChunkEntries; }
};

// Tiles (tile_rows_cuda).
struct InPositions { // row i sits at a position of [begin, end)
  const int32_t *inv;
  int32_t        begin, end;
  __device__ bool operator()(int32_t i) const { return inv[i] >= begin && inv[i] < end; }
};
struct TileKeyOf { // row -> tile_key (window, T code of its sorted position)
  const int32_t *inv, *code;
  int32_t        begin, window;
  __device__ int32_t operator()(int32_t i) const { return (i / window) << kTileCodeBits | code[inv[i] - begin]; }
};
struct StartsTile { // j starts a run of equal keys
  const int32_t *key;
  __device__ bool operator()(int32_t j) const { return j == 0 || key[j] != key[j - 1]; }
};
struct BlocksOfTile {
  const int32_t *tile_start, *key;
  __device__ int32_t operator()(int32_t t) const
  {
    const int32_t per = tile_block_rows(key_threads(key[tile_start[t]]));
    return (tile_start[t + 1] - tile_start[t] + per - 1) / per;
  }
};
struct FillBlock { // block b: the tile holding it (largest t with block_start[t] <= b), its rows and T
  const int32_t *tile_start, *block_start, *key;
  int32_t        ntiles, begin;
  int32_t       *first, *info;
  __device__ void operator()(int32_t b) const
  {
    int32_t lo = 0, hi = ntiles;
    while (hi - lo > 1) {
      const int32_t mid = lo + (hi - lo) / 2;
      if (block_start[mid] <= b) lo = mid;
      else hi = mid;
    }
    const int32_t T = key_threads(key[tile_start[lo]]), per = tile_block_rows(T);
    const int32_t f = tile_start[lo] + (b - block_start[lo]) * per;
    first[b]        = begin + f;
    info[b]         = tile_info(min(per, tile_start[lo + 1] - f), T);
  }
};

// a[pos[j]] for a few positions, to the host (one gather, one copy).
std::vector<int32_t> gather_to_host(const int32_t *a, const std::vector<int32_t> &pos, cudaStream_t stream)
{
  std::vector<int32_t> out(pos.size());
  if (pos.empty()) return out;
  DeviceBuffer<int32_t> dpos(pos.size(), stream), dout(pos.size(), stream);
  dpos.upload(pos.data(), pos.size(), stream);
  thrust::gather(thrust::cuda::par_nosync.on(stream), dpos.data(), dpos.data() + pos.size(), a, dout.data());
  dout.download(out.data(), out.size(), stream);
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // out is read
  return out;
}

// ------------------------------------------------------------------------------------------------

class SuraaCudaBlock : public FormatBlock {
public:
  Plan                   plan;
  DeviceBuffer<int32_t>  rowptr, colidx, perm, slots, g1_chunk_start, block_first, block_info;
  DeviceBuffer<double>   vals, g1_partial;
  DeviceBuffer<unsigned> g1_count, tile_taken; // tile_taken: the tile launch's counter (suraa_tiles)
  int32_t                tile_grid = 0; // persistent tile blocks: as many as fit on the device at once

  DeviceView view() const
  {
    return {rowptr.data(), colidx.data(), vals.data(), perm.data(), g1_chunk_start.data(), const_cast<double *>(g1_partial.data()), const_cast<unsigned *>(g1_count.data())};
  }

  // Algorithm 1: the G3 runs, then the G2 runs, on the extra streams round-robin, then G1 on
  // PETSc's. With tiles, one tile launch (on the first G3 run's stream) replaces the tiled runs.
  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (nrows == 0) return;
    const DeviceView v     = view();
    const int32_t    extra = std::max(0, std::min(plan.params.streams, streams.count - 1));
    bool             tiles = plan.tile_blocks > 0; // still to launch
    for (const Launch &l : plan.launches) {
      const cudaStream_t s = l.order >= 0 && extra ? streams.streams[1 + l.order % extra] : streams.main();
      int32_t            n = l.end - l.begin;
      if (plan.tile_blocks && is_tiled(l)) {
        if (tiles) {
          GPUFORMATS_CUDA(cudaMemsetAsync(const_cast<unsigned *>(tile_taken.data()), 0, sizeof(unsigned), s));
          suraa_tiles<<<(unsigned)std::min(plan.tile_blocks, tile_grid), kSubwarpBlockThreads, 0, s>>>(plan.tile_blocks, block_first.data(), block_info.data(), const_cast<unsigned *>(tile_taken.data()), v, alpha, x, beta, y);
        }
        tiles = false;
        GPUFORMATS_CUDA(cudaGetLastError());
        continue;
      }
      switch (l.kernel) {
      case Kernel::subwarp:
        // Empty rows sort last; with beta == 1 they keep y as it is (off-process blocks are mostly empty rows).
        n = subwarp_launch_rows(l, nrows, plan.empty_rows, beta);
        if (n) launch_subwarp(l.threads_per_row, l.begin, n, v, alpha, x, beta, y, s);
        break;
      case Kernel::vector: {
        const int32_t Y = l.threads_per_row, rows_per_block = std::max(1, kVectorBlockThreads / Y);
        suraa_vector_rows<<<(unsigned)((n + rows_per_block - 1) / rows_per_block), (unsigned)(Y * rows_per_block), 0, s>>>(l.begin, l.end, Y, v, alpha, x, beta, y);
        break;
      }
      case Kernel::g1:
        if (plan.params.dynamic) launch_g1_dynamic(n, v, alpha, x, beta, y, s);
        else suraa_g1_blocks<<<(unsigned)plan.g1_chunks, kG1BlockThreads, 0, s>>>(n, v, alpha, x, beta, y);
        break;
      }
      GPUFORMATS_CUDA(cudaGetLastError());
    }
  }
  std::size_t bytes() const override { return suraa::bytes(plan); }
  void        describe(std::vector<LayoutStat> &out) const override { suraa::describe(plan, out); }
};

// The host's tile_rows on the device: the tiled rows, taken in matrix order, stably
// radix-sorted by tile_key (so ties keep the row order, as the host's (key, row) sort), written to
// perm over their positions; then the runs of equal keys (tiles) cut into blocks. false: no tiles.
bool tile_rows_cuda(SuraaCudaBlock &blk, int32_t m, cudaStream_t stream)
{
  using thrust::counting_iterator;
  Plan         &pl = blk.plan;
  const int32_t W = pl.params.window, begin = tiled_begin(pl), n = m - begin, nonempty = nonempty_end_of(pl) - begin;
  if (W <= 0 || n <= 0) return false;
  const auto                       pol = thrust::cuda::par_nosync.on(stream);
  const counting_iterator<int32_t> zero(0);
  DeviceBuffer<int32_t>            code(n, stream), inv(m, stream), rows(n, stream), key_in(n, stream), key(n, stream), tile_start((size_t)n + 1, stream);
  for (const Launch &l : pl.launches) // code of every position, from its launch; empty rows (last): 0 threads
    if (is_tiled(l) && l.begin < begin + nonempty) thrust::fill(pol, code.data() + (l.begin - begin), code.data() + (std::min(l.end, begin + nonempty) - begin), tile_code(l.threads_per_row));
  if (nonempty < n) thrust::fill(pol, code.data() + std::max(nonempty, 0), code.data() + n, kEmptyCode);
  thrust::scatter(pol, zero, zero + m, blk.perm.data(), inv.data());
  thrust::copy_if(pol, zero, zero + m, rows.data(), InPositions{inv.data(), begin, begin + n});
  thrust::transform(pol, rows.data(), rows.data() + n, key_in.data(), TileKeyOf{inv.data(), code.data(), begin, W});
  radix_sort_pairs(key_in.data(), key.data(), rows.data(), blk.perm.data() + begin, n, std::max(1, bits_for((uint32_t)tile_key(m - 1, W, 0))), stream);

  int32_t *ts     = tile_start.data();
  const int32_t nt = (int32_t)(thrust::copy_if(pol, zero, zero + n, ts, StartsTile{key.data()}) - ts);
  thrust::fill(pol, ts + nt, ts + nt + 1, n);
  DeviceBuffer<int32_t> block_start((size_t)nt + 1, stream);
  int32_t              *bs = block_start.data();
  thrust::transform(pol, zero, zero + nt, bs, BlocksOfTile{ts, key.data()});
  thrust::fill(pol, bs + nt, bs + nt + 1, 0);
  thrust::exclusive_scan(pol, bs, bs + nt + 1, bs);
  const int32_t nb = gather_to_host(bs, {nt}, stream)[0];
  blk.block_first.resize(nb);
  blk.block_info.resize(nb);
  thrust::for_each(pol, zero, zero + nb, FillBlock{ts, bs, key.data(), nt, begin, blk.block_first.data(), blk.block_info.data()});
  pl.tile_begin  = begin;
  pl.tiles       = nt;
  pl.tile_blocks = nb;
  int per_sm = 0, sms = 0, dev = 0;
  GPUFORMATS_CUDA(cudaGetDevice(&dev));
  GPUFORMATS_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  GPUFORMATS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, suraa_tiles, kSubwarpBlockThreads, 0));
  blk.tile_grid = std::max(1, per_sm * sms);
  blk.tile_taken.resize(1);
  return true;
}

} // namespace

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  using thrust::counting_iterator;
  const Params P = read_params(params); // bad parameters fail before any upload
  check_size(A);
  auto                             blk = std::make_unique<SuraaCudaBlock>();
  const int32_t                    m   = A.nrows;
  const int64_t                    nnz = A.nnz;
  // Thrust without its optional synchronisations, its temporaries stream-ordered like ours
  // (DeviceBuffer(n, stream)): thrust::cuda::par synchronises after every algorithm and takes temporaries
  // with cudaMalloc / cudaFree, which synchronises the device; the build is dozens of short steps.
  const auto                       pol = thrust::cuda::par_nosync.on(stream);
  const counting_iterator<int32_t> zero(0);
  {
    DeviceCsr d = upload_csr(A, stream, up);

    // Sort (Algorithm 2 l.4): the core's device radix sort.
    blk->perm.resize(m);
    if (m) sorted_row_permutation_cuda(d.rowptr.data(), d.colidx.data(), m, A.ncols, RowOrder::longest_first, 0, blk->perm.data(), stream);

    // Lengths and row pointers of the rows in perm's order (exclusive scan over m + 1 entries).
    DeviceBuffer<int32_t> len(m, stream);
    blk->rowptr.resize((size_t)m + 1);
    int32_t *rp        = blk->rowptr.data();
    auto     rearrange = [&] {
      if (m) thrust::transform(pol, zero, zero + m, len.data(), StoredLength{d.rowptr.data(), blk->perm.data()});
      if (m) thrust::copy(pol, len.data(), len.data() + m, rp);
      GPUFORMATS_CUDA(cudaMemsetAsync(rp + m, 0, sizeof(int32_t), stream));
      thrust::exclusive_scan(pol, rp, rp + m + 1, rp);
    };
    rearrange();

    // Segments, groups, launches (l.6-17): the host's plan from a few values read back.
    SortedRows rows;
    rows.lengths_at             = [&](const std::vector<int32_t> &pos) { return gather_to_host(len.data(), pos, stream); };
    rows.rowptr_at              = [&](const std::vector<int32_t> &pos) { return gather_to_host(rp, pos, stream); };
    rows.sum_of_squared_lengths = [&] { return thrust::transform_reduce(pol, len.data(), len.data() + m, Squared{}, (int64_t)0, thrust::plus<int64_t>()); };
    Plan &pl                    = blk->plan;
    pl                          = make_plan(P, m, A.ncols, nnz, rows);
    pl.empty_rows               = m ? (int32_t)thrust::count_if(pol, len.data(), len.data() + m, IsEmpty{}) : 0;

    // G1 chunks: exclusive scan of chunks per row over g1_end + 1 entries.
    if (pl.g1_end) {
      const int32_t g = pl.g1_end;
      blk->g1_chunk_start.resize((size_t)g + 1);
      int32_t *cs = blk->g1_chunk_start.data();
      thrust::transform(pol, len.data(), len.data() + g, cs, ChunksOf{});
      GPUFORMATS_CUDA(cudaMemsetAsync(cs + g, 0, sizeof(int32_t), stream));
      thrust::exclusive_scan(pol, cs, cs + g + 1, cs);
      pl.g1_chunks           = gather_to_host(cs, {g}, stream)[0];
      pl.g1_multi_chunk_rows = (int32_t)thrust::count_if(pol, len.data(), len.data() + g, LongerThanChunk{});
      blk->g1_partial.resize(pl.g1_chunks);
      blk->g1_count.resize(g);
      GPUFORMATS_CUDA(cudaMemsetAsync(blk->g1_count.data(), 0, (size_t)g * sizeof(unsigned), stream));
      if (P.dynamic) reserve_child_launches(g);
    }

    // Tiles (the host's tile_rows), then the rows' lengths and pointers in the final order.
    if (tile_rows_cuda(*blk, m, stream)) rearrange();

    // slot_of_csr (Algorithm 2 l.5, "rearrange A_csr using perm"), and the entries scattered to their slots.
    blk->slots.resize(nnz);
    blk->colidx.resize(nnz);
    blk->vals.resize(nnz);
    if (nnz) {
      DeviceBuffer<int32_t> inv(m, stream);
      thrust::scatter(pol, zero, zero + m, blk->perm.data(), inv.data());
      int32_t *sl = blk->slots.data();
      entry_rows(pol, d.rowptr.data(), m, nnz, sl); // the row of each entry (core), then its slot
      thrust::transform(pol, zero, zero + (int32_t)nnz, sl, sl, SlotOfEntry{d.rowptr.data(), rp, inv.data()});
      thrust::scatter(pol, d.values.data(), d.values.data() + nnz, sl, blk->vals.data());
      thrust::scatter(pol, d.colidx.data(), d.colidx.data() + nnz, sl, blk->colidx.data());
    }
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // the uploaded CSR dies here (cudaFree; the temporaries are stream-ordered)
  }
  blk->set_layout(Backend::cuda, A, blk->vals.data(), A.nnz, blk->slots.data()); // no padding: a slot per nonzero
  return blk;
}

} // namespace suraa
} // namespace gpuformats
