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

// The cuSPARSE BSR baseline (-types cusparse:bsr, cusparse:bsrmv): the best PETSc could do with a
// BSR type. The host CSR (block size bs dividing both sizes) is uploaded and converted on the device
// by cusparseXcsr2bsrNnz + cusparseDcsr2bsr (row-major blocks; a block holding any entry is stored
// whole, zeros filled in), then y = A x by cusparseSpMV with CUSPARSE_SPMV_BSR_ALG1 (legacy = false)
// or cusparseDbsrmv (legacy = true), on the stream given (PETSc's, so bench_spmv's timers apply).
// Every call returns false with the reason on a CUDA or cuSPARSE error; the object then only frees.
class BenchBsr {
public:
  BenchBsr(void *stream, bool legacy);
  ~BenchBsr();
  BenchBsr(const BenchBsr &)            = delete;
  BenchBsr &operator=(const BenchBsr &) = delete;
  // Upload and conversion, synchronized (the setup a BSR type would do).
  bool setup(int nrows, int ncols, int bs, const int *rowptr, const int *colidx, const double *values, int nx, std::string *why);
  // Values-only change: upload new CSR values, convert again (numeric phase only), synchronized.
  bool refresh(const double *values, std::string *why);
  bool set_x(int k, const double *x, std::string *why); // x_k, ncols entries, synchronized
  bool multiply(int k, std::string *why);               // y = A x_k, queued on the stream
  bool get_y(double *y, std::string *why);              // nrows entries, synchronized
  long long nnzb() const { return nnzb_; }
  double    bytes() const; // read per product: nnzb (8 bs^2 + 4) + 4 (rows/bs + 1)

private:
  struct Impl;
  Impl     *d_;
  long long nnzb_ = 0;
};
