// SURAA on the GPU: the device builder (suraa_build.cuh, run here on CudaOrderedSystem from the CSR
// uploaded once; the same layout and plan as the host builder in suraa_host.cpp), the G3 sub-warp
// and G2 vector kernels, the host-launched G1 kernel, and the product that launches them on the
// streams. The dynamic-parallelism G1 kernels are in suraa_dynamic_rdc.cu. Layout and rules: suraa.hpp.
#include "suraa.hpp"
#include "suraa_build.cuh"
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

} // namespace

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  read_params(params); // bad parameters fail before any upload
  check_size(A);
  DeviceCsr d = upload_csr(A, stream, up);
  return build_uploaded(A, d, params, stream);
}

std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream)
{
  const Params P = read_params(params);
  check_size(A);
  auto                                    blk = std::make_unique<SuraaCudaBlock>();
  build_detail::Arrays<CudaOrderedSystem> a;
  build_detail::build_arrays(CudaOrderedSystem{{stream}}, A, d.rowptr.data(), d.colidx.data(), d.values.data(), P, a);
  blk->plan           = std::move(a.plan);
  blk->rowptr         = std::move(a.rowptr);
  blk->colidx         = std::move(a.colidx);
  blk->perm           = std::move(a.perm);
  blk->slots          = std::move(a.slots);
  blk->g1_chunk_start = std::move(a.g1_chunk_start);
  blk->block_first    = std::move(a.block_first);
  blk->block_info     = std::move(a.block_info);
  blk->vals           = std::move(a.vals);
  const Plan &pl      = blk->plan;
  if (pl.g1_end) { // the G1 product's partial sums and chunk counters
    blk->g1_partial.resize(pl.g1_chunks);
    blk->g1_count.resize(pl.g1_end);
    GPUFORMATS_CUDA(cudaMemsetAsync(blk->g1_count.data(), 0, (size_t)pl.g1_end * sizeof(unsigned), stream));
    if (P.dynamic) reserve_child_launches(pl.g1_end);
  }
  if (pl.tile_blocks) { // persistent tile blocks: as many as fit on the device at once
    int per_sm = 0, sms = 0;
    GPUFORMATS_CUDA(sm_count_of_current_device(&sms));
    GPUFORMATS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, suraa_tiles, kSubwarpBlockThreads, 0));
    blk->tile_grid = std::max(1, per_sm * sms);
    blk->tile_taken.resize(1);
  }
  GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
  blk->set_layout(Backend::cuda, A, blk->vals.data(), A.nnz, blk->slots.data()); // no padding: a slot per nonzero
  return blk;
}

} // namespace suraa
} // namespace gpuformats
