// Interface between bench_spmv.cpp (PETSc driver, no CUDA headers) and bench_spmv_kernels.cu.
#pragma once
#include <cstddef>
#include <string>

struct BenchGpuInfo {
  std::string name;
  int         device = 0, devices = 0, cc_major = 0, cc_minor = 0, sm_count = 0;
  int         driver_version = 0, runtime_version = 0; // e.g. 13000 = 13.0
  double      memory_bytes = 0, l2_bytes = 0;
};

struct BenchCopyResult {
  double bytes      = 0; // size of one buffer
  double kernel_gbs = 0; // our copy kernel, (read + written) bytes / median time
  double memcpy_gbs = 0; // cudaMemcpy device to device, same accounting
};

// False (with the reason) when no CUDA device can be used.
bool bench_gpu_info(BenchGpuInfo *info, std::string *why);
// Copies a buffer of `bytes` reps times (after warm-up); false with the reason on failure.
bool bench_copy_bandwidth(std::size_t bytes, int reps, BenchCopyResult *out, std::string *why);
bool bench_device_free_bytes(double *free_bytes);
void bench_device_synchronize();

// A pair of CUDA events recorded on a given stream (a cudaStream_t passed as void*).
class BenchEventTimer {
public:
  BenchEventTimer();
  ~BenchEventTimer();
  BenchEventTimer(const BenchEventTimer &)            = delete;
  BenchEventTimer &operator=(const BenchEventTimer &) = delete;
  void   start(void *stream);
  double stop(void *stream); // records the stop event, waits for it, returns the seconds between
private:
  void *start_, *stop_;
};
