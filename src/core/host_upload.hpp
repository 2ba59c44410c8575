// Host -> device copies of large arrays from pageable host memory (the AIJ arrays PETSc allocates),
// staged through pinned buffers that host threads fill:
//
//   pageable src  | chunk 0 | chunk 1 | chunk 2 | chunk 3 | chunk 4 | ...
//                     |thread 0 |thread 1 |thread 0 |thread 1 |thread 0      (memcpy, T threads)
//                     v         v         v         v         v
//   pinned ring   [t0 a][t0 b][t1 a][t1 b]        two buffers per thread, reused after their copy
//                     |   cudaMemcpyAsync(chunk, stream): DMA at the link's speed
//                     v
//   device dst    | chunk 0 | chunk 1 | chunk 2 | ...
//
// Why: cudaMemcpyAsync from pageable memory stages through the driver's own pinned buffer with one
// host thread; on the H100 machine that is 7-8 GB/s, while a pinned source copies at 54 GB/s. With
// T threads filling pinned 8 MB chunks a 400 MB upload ran at 15 (T = 2), 28 (4) and 36 (8) GB/s
// (bench/experiments/staged-upload, output
// bench/results/h100/staged-upload/explore/staged-output.txt). The user's memory is
// never pinned or registered: only the ring is pinned, allocated at the first staged copy and kept
// for the process (release_upload_staging frees it; the glue calls it at PetscFinalize).
#pragma once
#include <cstddef>
#include <cuda_runtime_api.h>

namespace gpuformats {

// Bytes per staged chunk. A 400 MB upload with 4 threads: 2 MB 26.0 GB/s, 8 MB 27.6, 32 MB 18.9
// (staged-output.txt above). 2 MB, because the ring (2 chunks per thread) is pinned at the first
// staged upload, inside the first build: with 8 MB chunks (64 MB pinned) the first build of ex45
// 128^3 uploaded in 51-54 ms against 24-28 ms pageable; pinning a background ring instead slowed
// that build's device work from 15-20 to 37-45 ms
// (bench/results/h100/transpose/README.md).
constexpr std::size_t kUploadChunkBytes = std::size_t(2) << 20;

class StageTimer;

// How a build or refresh uploads: with `threads` host threads staging the copies (<= 1: direct),
// and with its copies marked on `timer` (core/stage_timer.hpp; null: not timed). The glue passes the
// matrix's -mat_gpuformats_upload_threads and the block's timer down to the builders.
struct UploadContext {
  int         threads = 1;
  StageTimer *timer   = nullptr;
};

// Copies `bytes` from host `src` to device `dst`, ordered on `stream` like cudaMemcpyAsync.
// Returns once every read of `src` is done (src may change then, as after a pageable
// cudaMemcpyAsync); the device copy completes in stream order. Staged with `threads` host threads
// when that is > 1 and the copy spans more than one chunk; a direct cudaMemcpyAsync otherwise, and
// also when `src` is already pinned or when pinned memory cannot be had (staging is an
// optimisation, never a new way to fail). Throws Error(device) on CUDA errors.
void host_to_device(void *dst, const void *src, std::size_t bytes, cudaStream_t stream, int threads = 1);

// Host threads per staged upload unless told otherwise: 4 (28 GB/s above; 8 gave 36 GB/s but takes
// more of the cores that MPI ranks sharing a node also use), fewer where the process may run on
// fewer cores. mpiexec binds a rank to one core by default (Open MPI, up to 2 ranks): the threads
// then share it and a staged upload ran at 6-7 GB/s in SNES ex14 256^3 (H100, bench/results/h100/transpose/), the speed of a
// pageable copy; so with one usable core the copy is direct. Give each rank cores for them
// (`mpiexec --bind-to none`, or `--map-by slot:PE=4`).
int           usable_cpus(); // in this process's CPU affinity mask
int           default_upload_threads();
constexpr int kMaxUploadThreads = 64;

// Frees the pinned ring (waits for copies still reading it). Safe to call at any time.
void release_upload_staging();

} // namespace gpuformats
