#include "host_upload.hpp"
#include "device_buffer.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuformats {

namespace {


// The pinned ring: two chunk buffers per thread, each with the event recorded after the copy that
// last read it, so a buffer is refilled only once its previous copy (of this or an earlier upload)
// has left it.
struct Ring {
  std::mutex               lock; // one staged upload at a time
  int                      device = -1;
  std::vector<void *>      buf;
  std::vector<cudaEvent_t> done;

  void release()
  {
    for (cudaEvent_t e : done) {
      cudaEventSynchronize(e);
      cudaEventDestroy(e);
    }
    for (void *p : buf) cudaFreeHost(p);
    buf.clear();
    done.clear();
    device = -1;
  }
  // At least n buffers on `dev`; false when pinned memory cannot be had (the caller copies directly).
  bool reserve(std::size_t n, int dev)
  {
    if (device != dev) release();
    device = dev;
    while (buf.size() < n) {
      void       *p = nullptr;
      cudaEvent_t e = nullptr;
      GPUFORMATS_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      if (cudaHostAlloc(&p, kUploadChunkBytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError(); // not sticky; leave no error behind for the next call
        cudaEventDestroy(e);
        return buf.size() >= 4; // two threads' buffers still make a staged copy
      }
      buf.push_back(p);
      done.push_back(e);
    }
    return true;
  }
};

// Never destroyed: a static destructor would run after the CUDA runtime's own teardown at exit.
Ring &ring()
{
  static Ring *r = new Ring;
  return *r;
}

bool is_pinned(const void *p)
{
  cudaPointerAttributes at{};
  if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return at.type == cudaMemoryTypeHost;
}

} // namespace


int usable_cpus()
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return (int)std::max(std::thread::hardware_concurrency(), 1u);
}

int default_upload_threads() { return std::clamp(usable_cpus(), 1, 4); }

void release_upload_staging()
{
  Ring                       &r = ring();
  std::lock_guard<std::mutex> g(r.lock);
  r.release();
}

void host_to_device(void *dst, const void *src, std::size_t bytes, cudaStream_t stream, int threads)
{
  if (!bytes) return;
  const std::size_t nchunks = (bytes + kUploadChunkBytes - 1) / kUploadChunkBytes;
  const int         T       = (int)std::min<std::size_t>((std::size_t)std::max(threads, 1), nchunks);
  if (T <= 1 || is_pinned(src)) {
    GPUFORMATS_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  int dev = 0;
  GPUFORMATS_CUDA(cudaGetDevice(&dev));
  Ring                       &r = ring();
  std::lock_guard<std::mutex> g(r.lock);
  if (!r.reserve(2 * (std::size_t)T, dev)) {
    GPUFORMATS_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  const int   nt = std::min<int>(T, (int)(r.buf.size() / 2)); // fewer when pinned memory ran short
  std::mutex  err_lock;
  cudaError_t first_err = cudaSuccess;
  // Thread t copies chunks t, t + nt, ... through its buffers 2t and 2t + 1 in turn.
  auto work = [&](int t) {
    cudaError_t err = cudaSetDevice(dev); // a new thread starts on device 0
    std::size_t k   = 0;
    for (std::size_t c = (std::size_t)t; c < nchunks && err == cudaSuccess; c += (std::size_t)nt, ++k) {
      const std::size_t b = 2 * (std::size_t)t + (k & 1), off = c * kUploadChunkBytes, len = std::min(kUploadChunkBytes, bytes - off);
      err = cudaEventSynchronize(r.done[b]);
      if (err != cudaSuccess) break;
      std::memcpy(r.buf[b], static_cast<const char *>(src) + off, len);
      err = cudaMemcpyAsync(static_cast<char *>(dst) + off, r.buf[b], len, cudaMemcpyHostToDevice, stream);
      if (err == cudaSuccess) err = cudaEventRecord(r.done[b], stream);
    }
    if (err != cudaSuccess) {
      std::lock_guard<std::mutex> e(err_lock);
      if (first_err == cudaSuccess) first_err = err;
    }
  };
  std::vector<std::thread> helpers;
  std::vector<int>         inline_parts;
  for (int t = 1; t < nt; ++t) {
    try {
      helpers.emplace_back(work, t);
    } catch (const std::system_error &) { // no thread to be had: the caller copies that part too
      inline_parts.push_back(t);
    }
  }
  work(0);
  for (int t : inline_parts) work(t);
  for (std::thread &h : helpers) h.join();
  GPUFORMATS_CUDA(first_err);
}

} // namespace gpuformats
