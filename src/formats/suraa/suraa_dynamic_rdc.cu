// SURAA's G1 by dynamic parallelism (Algorithms 3 and 4), CUDA 13's model (CDP2): relocatable
// device code (this file is built with -rdc=true and device-linked with -lcudadevrt), child grids
// launched into the fire-and-forget stream, no device-side synchronisation: the parent grid does
// not complete before its children, so work queued after it on the host stream sees y complete.
#include "suraa.hpp"
#include "suraa_device.cuh"

#include "../../core/device_buffer.hpp"

namespace gpuformats {
namespace suraa {

namespace {

// Algorithm 4: the blocks of one G1 row, one per chunk of kG1ChunkEntries entries; each thread
// takes ~2 entries (the parent sizes the block by the paper's (len >> 1) rounded to a warp).
// The paper's child writes y[0]: here the row's sum goes to y[perm[r]] (store_row).
__global__ void __launch_bounds__(kMaxThreadsPerRow) suraa_g1_child(int32_t r, DeviceView v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  g1_chunk<2>(r, blockIdx.x, v, alpha, x, beta, y);
}

// Algorithm 3: one thread per G1 row launches that row's child grid. Fire-and-forget children run
// concurrently (the per-block implicit stream would serialise the children of a parent block).
// A launch that fails (pending-launch pool exhausted) leaves the row to this thread.
__global__ void __launch_bounds__(kParentThreads) suraa_g1_parent(int32_t g1_rows, DeviceView v, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int32_t r = blockIdx.x * kParentThreads + threadIdx.x;
  if (r >= g1_rows) return;
  const int32_t rs = load_ro(v.rowptr + r), re = load_ro(v.rowptr + r + 1);
  const int32_t nchunks = load_ro(v.g1_chunk_start + r + 1) - load_ro(v.g1_chunk_start + r);
  suraa_g1_child<<<nchunks, g1_child_threads(re - rs), 0, cudaStreamFireAndForget>>>(r, v, alpha, x, beta, y);
  if (cudaGetLastError() != cudaSuccess) store_row(v, r, row_dot(rs, re, v.colidx, v.values, x), alpha, beta, y);
}

} // namespace

void launch_g1_dynamic(int32_t g1_rows, const DeviceView &v, double alpha, const double *x, double beta, double *y, cudaStream_t stream)
{
  if (g1_rows <= 0) return;
  suraa_g1_parent<<<(unsigned)((g1_rows + kParentThreads - 1) / kParentThreads), kParentThreads, 0, stream>>>(g1_rows, v, alpha, x, beta, y);
  GPUFORMATS_CUDA(cudaGetLastError());
}

void reserve_child_launches(int32_t launches)
{
  size_t current = 0;
  if (cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount) != cudaSuccess) {
    cudaGetLastError(); // not fatal: the parent computes rows whose launch fails
    return;
  }
  if (current >= (size_t)launches) return;
  if (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, (size_t)launches) != cudaSuccess) cudaGetLastError();
}

} // namespace suraa
} // namespace gpuformats
