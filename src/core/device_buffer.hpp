// Owning device allocations and the CUDA error check used below the PETSc glue.
// Allocation failure throws Error(out_of_memory) so the glue can leave the AIJ matrix usable.
#pragma once
#include "csr.hpp"
#include "host_upload.hpp"

#include <cuda_runtime_api.h>
#include <utility>

namespace gpuformats {

// Throws Error(device) (or out_of_memory) with the call site when a CUDA call fails.
void cuda_check(cudaError_t err, const char *what, const char *file, int line);
#define GPUFORMATS_CUDA(call) ::gpuformats::cuda_check((call), #call, __FILE__, __LINE__)

// The current device's multiprocessor count, for grids sized to the device. The error is returned,
// not thrown: some callers fall back to a default instead.
inline cudaError_t sm_count_of_current_device(int *sms)
{
  int               dev = 0;
  const cudaError_t err = cudaGetDevice(&dev);
  return err != cudaSuccess ? err : cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
}

// Owning device memory. Two kinds, fixed at construction:
//   DeviceBuffer<T> b(n)          cudaMalloc / cudaFree (a layout's arrays: they outlive the build)
//   DeviceBuffer<T> b(n, stream)  stream-ordered, cudaMallocAsync / cudaFreeAsync on `stream` (the
//                                 default pool): a temporary of a device build, whose free does
//                                 not synchronise the device as cudaFree does. Every use must be
//                                 on that stream (or synchronised with it).
template <class T>
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  DeviceBuffer(std::size_t n, cudaStream_t s) : stream_(s), ordered_(true) { resize(n); }
  DeviceBuffer(const DeviceBuffer &)            = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)), stream_(o.stream_), ordered_(o.ordered_) {}
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept
  {
    std::swap(ptr_, o.ptr_);
    std::swap(size_, o.size_);
    std::swap(stream_, o.stream_);
    std::swap(ordered_, o.ordered_);
    return *this;
  }
  ~DeviceBuffer() { release(); }

  // Discards the contents. n == 0 frees.
  void resize(std::size_t n)
  {
    release();
    if (!n) return;
    void *p = nullptr;
    if (ordered_) GPUFORMATS_CUDA(cudaMallocAsync(&p, n * sizeof(T), stream_));
    else GPUFORMATS_CUDA(cudaMalloc(&p, n * sizeof(T)));
    ptr_  = static_cast<T *>(p);
    size_ = n;
  }
  void release() noexcept
  {
    if (ptr_) ordered_ ? cudaFreeAsync(ptr_, stream_) : cudaFree(ptr_);
    ptr_  = nullptr;
    size_ = 0;
  }
  // From pageable or pinned host memory (core/host_upload.hpp: staged by `threads` host threads);
  // `host` may change once this returns.
  void upload(const T *host, std::size_t n, cudaStream_t s, std::size_t offset = 0, int threads = 1) { host_to_device(ptr_ + offset, host, n * sizeof(T), s, threads); }
  void download(T *host, std::size_t n, cudaStream_t s) const
  {
    if (n) GPUFORMATS_CUDA(cudaMemcpyAsync(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost, s));
  }
  T          *data() { return ptr_; }
  const T    *data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

private:
  T           *ptr_    = nullptr;
  std::size_t  size_   = 0;
  cudaStream_t stream_ = nullptr; // ordered_: the stream of the allocation and of the free
  bool         ordered_ = false;
};

// A CSR block uploaded once; device builders start from this.
struct DeviceCsr {
  int32_t               nrows = 0, ncols = 0;
  int64_t               nnz   = 0;
  DeviceBuffer<int32_t> rowptr, colidx;
  DeviceBuffer<double>  values;
};
// The copies staged and timed as `up` says (the timer marks the copies, not the allocations).
DeviceCsr upload_csr(const CsrView &A, cudaStream_t stream, const UploadContext &up = {});

} // namespace gpuformats
