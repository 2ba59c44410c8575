// Owning device allocations and the CUDA error check used below the PETSc glue.
// Allocation failure throws Error(out_of_memory) so the glue can leave the AIJ matrix usable.
#pragma once
#include "csr.hpp"

#include <cuda_runtime_api.h>
#include <utility>

namespace gpuformats {

// Throws Error(device) (or out_of_memory) with the call site when a CUDA call fails.
void cuda_check(cudaError_t err, const char *what, const char *file, int line);
#define GPUFORMATS_CUDA(call) ::gpuformats::cuda_check((call), #call, __FILE__, __LINE__)

template <class T>
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  DeviceBuffer(const DeviceBuffer &)            = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept
  {
    std::swap(ptr_, o.ptr_);
    std::swap(size_, o.size_);
    return *this;
  }
  ~DeviceBuffer() { release(); }

  // Discards the contents. n == 0 frees.
  void resize(std::size_t n)
  {
    release();
    if (!n) return;
    void *p = nullptr;
    GPUFORMATS_CUDA(cudaMalloc(&p, n * sizeof(T)));
    ptr_  = static_cast<T *>(p);
    size_ = n;
  }
  void release() noexcept
  {
    if (ptr_) cudaFree(ptr_);
    ptr_  = nullptr;
    size_ = 0;
  }
  void upload(const T *host, std::size_t n, cudaStream_t s, std::size_t offset = 0)
  {
    if (n) GPUFORMATS_CUDA(cudaMemcpyAsync(ptr_ + offset, host, n * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  void download(T *host, std::size_t n, cudaStream_t s) const
  {
    if (n) GPUFORMATS_CUDA(cudaMemcpyAsync(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost, s));
  }
  T          *data() { return ptr_; }
  const T    *data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

private:
  T          *ptr_  = nullptr;
  std::size_t size_ = 0;
};

// A temporary of a device build: stream-ordered (cudaMallocAsync / cudaFreeAsync on the build's
// stream, from the device's default pool), so neither taking nor returning it synchronises the
// device, as cudaFree does. Every use must be on that stream (or synchronised with it).
template <class T>
class StreamBuffer {
public:
  StreamBuffer(std::size_t n, cudaStream_t s) : stream_(s)
  {
    if (!n) return;
    void *p = nullptr;
    GPUFORMATS_CUDA(cudaMallocAsync(&p, n * sizeof(T), s));
    ptr_  = static_cast<T *>(p);
    size_ = n;
  }
  StreamBuffer(const StreamBuffer &)            = delete;
  StreamBuffer &operator=(const StreamBuffer &) = delete;
  ~StreamBuffer()
  {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
  }
  T          *data() { return ptr_; }
  const T    *data() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

private:
  T           *ptr_  = nullptr;
  std::size_t  size_ = 0;
  cudaStream_t stream_;
};

// A CSR block uploaded once; device builders start from this.
struct DeviceCsr {
  int32_t               nrows = 0, ncols = 0;
  int64_t               nnz   = 0;
  DeviceBuffer<int32_t> rowptr, colidx;
  DeviceBuffer<double>  values;
};
// Inside an UploadTimerScope (core/stage_timer.hpp) the copies are marked on its timer.
DeviceCsr upload_csr(const CsrView &A, cudaStream_t stream);

} // namespace gpuformats
