#include "device_buffer.hpp"
#include "stage_timer.hpp"

#include <mutex>
#include <string>

namespace gpuformats {

void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
  if (err == cudaSuccess) return;
  cudaGetLastError(); // clear a sticky-free error so the next call does not see it
  const std::string msg = std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  throw Error(err == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::device, msg);
}

namespace {
std::mutex    pools_mutex;
cudaMemPool_t pools[64] = {};
} // namespace

cudaMemPool_t build_pool()
{
  int dev = 0;
  GPUFORMATS_CUDA(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) throw Error(ErrorKind::device, "gpuformats: device index " + std::to_string(dev) + " beyond the 64 build pools");
  std::lock_guard<std::mutex> lock(pools_mutex);
  if (!pools[dev]) {
    cudaMemPoolProps props{};
    props.allocType     = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id   = dev;
    cudaMemPool_t pool  = nullptr;
    GPUFORMATS_CUDA(cudaMemPoolCreate(&pool, &props));
    uint64_t keep = UINT64_MAX;
    GPUFORMATS_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    pools[dev] = pool;
  }
  return pools[dev];
}

void trim_build_pool() noexcept
{
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return;
  std::lock_guard<std::mutex> lock(pools_mutex);
  if (pools[dev]) cudaMemPoolTrimTo(pools[dev], 0);
}

char *BuildPoolAllocator::allocate(std::ptrdiff_t n)
{
  void *p = nullptr;
  GPUFORMATS_CUDA(cudaMallocFromPoolAsync(&p, (std::size_t)n, build_pool(), stream));
  return static_cast<char *>(p);
}

void BuildPoolAllocator::deallocate(char *p, std::size_t) noexcept { cudaFreeAsync(p, stream); }

DeviceCsr upload_csr(const CsrView &A, cudaStream_t stream)
{
  DeviceCsr d;
  d.nrows = A.nrows;
  d.ncols = A.ncols;
  d.nnz   = A.nnz;
  d.rowptr.resize((size_t)A.nrows + 1);
  d.colidx.resize((size_t)A.nnz);
  d.values.resize((size_t)A.nnz);
  StageTimer *timer = UploadTimerScope::current(); // marks the copies only, not the allocations
  if (timer) timer->upload_begin(stream);
  if (A.nrows > 0) d.rowptr.upload(A.rowptr, (size_t)A.nrows + 1, stream);
  else {
    const int32_t zero = 0;
    d.rowptr.upload(&zero, 1, stream);
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // `zero` dies here
  }
  d.colidx.upload(A.colidx, (size_t)A.nnz, stream);
  d.values.upload(A.values, (size_t)A.nnz, stream);
  if (timer) timer->upload_end(stream);
  return d;
}

} // namespace gpuformats
