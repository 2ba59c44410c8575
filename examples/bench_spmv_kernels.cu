// The CUDA side of bench_spmv: device description, a copy-bandwidth kernel, and event timers on
// PETSc's stream. Plain C++ interface (bench_spmv_kernels.hpp) so the driver itself needs no CUDA
// headers; nothing here runs unless the driver was asked for a GPU type.
#include "bench_spmv_kernels.hpp"

#include <algorithm>
#include <cuda_runtime.h>
#include <string>
#include <vector>

namespace {

// Grid-stride copy with 16-byte loads and stores (double2): the access pattern a well-written
// streaming kernel gets, so its rate is the practical ceiling for a memory-bound SpMV.
constexpr int kCopyThreads = 256;

__global__ __launch_bounds__(kCopyThreads) void copy_double2(const double2 *__restrict__ src, double2 *__restrict__ dst, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}

__global__ void fill_double2(double2 *p, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = make_double2((double)i, 1.0);
}

std::string err(cudaError_t e, const char *what) { return std::string(what) + ": " + cudaGetErrorString(e); }

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

} // namespace

bool bench_gpu_info(BenchGpuInfo *info, std::string *why)
{
  int         n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? err(e, "cudaGetDeviceCount") : "no CUDA device";
    (void)cudaGetLastError();
    return false;
  }
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp p;
  if ((e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {
    if (why) *why = err(e, "cudaGetDeviceProperties");
    return false;
  }
  info->name          = p.name;
  info->device        = dev;
  info->devices       = n;
  info->cc_major      = p.major;
  info->cc_minor      = p.minor;
  info->sm_count      = p.multiProcessorCount;
  info->memory_bytes  = (double)p.totalGlobalMem;
  info->l2_bytes      = (double)p.l2CacheSize;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  info->driver_version  = driver;
  info->runtime_version = runtime;
  return true;
}

bool bench_copy_bandwidth(size_t bytes, int reps, BenchCopyResult *out, std::string *why)
{
  const size_t n = bytes / sizeof(double2);
  double2     *a = nullptr, *b = nullptr;
  cudaEvent_t  t0 = nullptr, t1 = nullptr;
  bool         ok = false;
  cudaError_t  e;
  std::vector<double> kernel_s, memcpy_s;
  int          blocks = 0, dev = 0;
  cudaDeviceProp p;
  if ((e = cudaMalloc(&a, n * sizeof(double2))) != cudaSuccess || (e = cudaMalloc(&b, n * sizeof(double2))) != cudaSuccess) {
    if (why) *why = err(e, "cudaMalloc for the copy buffers");
    goto done;
  }
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  blocks = p.multiProcessorCount * 8; // enough resident warps to saturate HBM, few enough to keep the loop long
  fill_double2<<<blocks, kCopyThreads>>>(a, n);
  fill_double2<<<blocks, kCopyThreads>>>(b, n);
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  for (int r = 0; r < reps + 2; ++r) { // two warm-up rounds, then reps timed ones
    float ms = 0;
    cudaEventRecord(t0);
    copy_double2<<<blocks, kCopyThreads>>>(a, b, n);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    cudaEventElapsedTime(&ms, t0, t1);
    if (r >= 2) kernel_s.push_back(ms * 1e-3);
    cudaEventRecord(t0);
    cudaMemcpyAsync(a, b, n * sizeof(double2), cudaMemcpyDeviceToDevice);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    cudaEventElapsedTime(&ms, t0, t1);
    if (r >= 2) memcpy_s.push_back(ms * 1e-3);
  }
  if ((e = cudaGetLastError()) != cudaSuccess) {
    if (why) *why = err(e, "copy kernel");
    goto done;
  }
  out->bytes      = (double)(n * sizeof(double2));
  out->kernel_gbs = 2.0 * out->bytes / median(kernel_s) / 1e9; // bytes read + bytes written
  out->memcpy_gbs = 2.0 * out->bytes / median(memcpy_s) / 1e9;
  ok              = true;
done:
  if (t0) cudaEventDestroy(t0);
  if (t1) cudaEventDestroy(t1);
  cudaFree(a);
  cudaFree(b);
  return ok;
}

bool bench_device_free_bytes(double *free_bytes)
{
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) return false;
  *free_bytes = (double)f;
  return true;
}

void bench_device_synchronize() { cudaDeviceSynchronize(); }

BenchEventTimer::BenchEventTimer()
{
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  start_ = a;
  stop_  = b;
}
BenchEventTimer::~BenchEventTimer()
{
  cudaEventDestroy((cudaEvent_t)start_);
  cudaEventDestroy((cudaEvent_t)stop_);
}
void   BenchEventTimer::start(void *stream) { cudaEventRecord((cudaEvent_t)start_, (cudaStream_t)stream); }
double BenchEventTimer::stop(void *stream)
{
  float ms = 0;
  cudaEventRecord((cudaEvent_t)stop_, (cudaStream_t)stream);
  cudaEventSynchronize((cudaEvent_t)stop_);
  cudaEventElapsedTime(&ms, (cudaEvent_t)start_, (cudaEvent_t)stop_);
  return ms * 1e-3;
}
