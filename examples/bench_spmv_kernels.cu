// The CUDA side of bench_spmv: device description, a copy-bandwidth kernel, and event timers on
// PETSc's stream. Plain C++ interface (bench_spmv_kernels.hpp) so the driver itself needs no CUDA
// headers; nothing here runs unless the driver was asked for a GPU type.
#include "bench_spmv_kernels.hpp"

#include <algorithm>
#include <cuda_runtime.h>
// csr2bsr is marked deprecated in CUDA 13 (no generic replacement for the conversion yet); it is
// what an aijcusparse-like BSR type would call
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
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

// --- the cuSPARSE BSR baseline ---------------------------------------------------------------

struct BenchBsr::Impl {
  cudaStream_t          stream = nullptr;
  bool                  legacy = false;
  cusparseHandle_t      h      = nullptr;
  cusparseMatDescr_t    dcsr = nullptr, dbsr = nullptr;
  cusparseSpMatDescr_t  mat  = nullptr;
  cusparseDnVecDescr_t  vy   = nullptr;
  std::vector<cusparseDnVecDescr_t> vx;
  int                   m = 0, n = 0, bs = 1, mb = 0, nb = 0;
  long long             nnz = 0;
  int                  *csr_rp = nullptr, *csr_ci = nullptr, *bsr_rp = nullptr, *bsr_ci = nullptr;
  double               *csr_v = nullptr, *bsr_v = nullptr, *y = nullptr, *x = nullptr;
  void                 *buf = nullptr;
};

namespace {
bool cu_ok(cudaError_t e, const char *what, std::string *why)
{
  if (e == cudaSuccess) return true;
  if (why) *why = err(e, what);
  (void)cudaGetLastError();
  return false;
}
bool sp_ok(cusparseStatus_t e, const char *what, std::string *why)
{
  if (e == CUSPARSE_STATUS_SUCCESS) return true;
  if (why) *why = std::string(what) + ": " + cusparseGetErrorString(e);
  return false;
}
} // namespace

BenchBsr::BenchBsr(void *stream, bool legacy) : d_(new Impl)
{
  d_->stream = (cudaStream_t)stream;
  d_->legacy = legacy;
}

BenchBsr::~BenchBsr()
{
  Impl &d = *d_;
  if (d.stream) cudaStreamSynchronize(d.stream);
  for (cusparseDnVecDescr_t v : d.vx) cusparseDestroyDnVec(v);
  if (d.vy) cusparseDestroyDnVec(d.vy);
  if (d.mat) cusparseDestroySpMat(d.mat);
  if (d.dcsr) cusparseDestroyMatDescr(d.dcsr);
  if (d.dbsr) cusparseDestroyMatDescr(d.dbsr);
  if (d.h) cusparseDestroy(d.h);
  for (void *p : {(void *)d.csr_rp, (void *)d.csr_ci, (void *)d.csr_v, (void *)d.bsr_rp, (void *)d.bsr_ci, (void *)d.bsr_v, (void *)d.x, (void *)d.y, d.buf}) cudaFree(p);
  (void)cudaGetLastError();
  delete d_;
}

double BenchBsr::bytes() const { return (double)nnzb_ * (8.0 * d_->bs * d_->bs + 4.0) + 4.0 * (d_->mb + 1); }

bool BenchBsr::setup(int nrows, int ncols, int bs, const int *rowptr, const int *colidx, const double *values, int nx, std::string *why)
{
  Impl &d = *d_;
  if (bs < 2 || nrows % bs || ncols % bs) {
    if (why) *why = "cuSPARSE BSR needs a block size of 2 or more dividing the matrix";
    return false;
  }
  d.m = nrows, d.n = ncols, d.bs = bs, d.mb = nrows / bs, d.nb = ncols / bs, d.nnz = rowptr[nrows];
  const size_t nz = (size_t)d.nnz;
  if (!sp_ok(cusparseCreate(&d.h), "cusparseCreate", why) || !sp_ok(cusparseSetStream(d.h, d.stream), "cusparseSetStream", why)) return false;
  if (!sp_ok(cusparseCreateMatDescr(&d.dcsr), "cusparseCreateMatDescr", why) || !sp_ok(cusparseCreateMatDescr(&d.dbsr), "cusparseCreateMatDescr", why)) return false;
  if (!cu_ok(cudaMalloc(&d.csr_rp, sizeof(int) * (nrows + 1)), "cudaMalloc (CSR)", why) || !cu_ok(cudaMalloc(&d.csr_ci, sizeof(int) * std::max<size_t>(nz, 1)), "cudaMalloc (CSR)", why) ||
      !cu_ok(cudaMalloc(&d.csr_v, sizeof(double) * std::max<size_t>(nz, 1)), "cudaMalloc (CSR)", why) || !cu_ok(cudaMalloc(&d.bsr_rp, sizeof(int) * (d.mb + 1)), "cudaMalloc (BSR)", why))
    return false;
  // pageable copies, as aijcusparse uploads
  if (!cu_ok(cudaMemcpyAsync(d.csr_rp, rowptr, sizeof(int) * (nrows + 1), cudaMemcpyHostToDevice, d.stream), "upload", why) || !cu_ok(cudaMemcpyAsync(d.csr_ci, colidx, sizeof(int) * nz, cudaMemcpyHostToDevice, d.stream), "upload", why) ||
      !cu_ok(cudaMemcpyAsync(d.csr_v, values, sizeof(double) * nz, cudaMemcpyHostToDevice, d.stream), "upload", why))
    return false;
  int nnzb = 0;
  if (!sp_ok(cusparseXcsr2bsrNnz(d.h, CUSPARSE_DIRECTION_ROW, nrows, ncols, d.dcsr, d.csr_rp, d.csr_ci, bs, d.dbsr, d.bsr_rp, &nnzb), "cusparseXcsr2bsrNnz", why)) return false;
  nnzb_ = nnzb;
  if (!cu_ok(cudaMalloc(&d.bsr_ci, sizeof(int) * std::max(nnzb, 1)), "cudaMalloc (BSR)", why) || !cu_ok(cudaMalloc(&d.bsr_v, sizeof(double) * std::max<size_t>((size_t)nnzb * bs * bs, 1)), "cudaMalloc (BSR)", why)) return false;
  if (!sp_ok(cusparseDcsr2bsr(d.h, CUSPARSE_DIRECTION_ROW, nrows, ncols, d.dcsr, d.csr_v, d.csr_rp, d.csr_ci, bs, d.dbsr, d.bsr_v, d.bsr_rp, d.bsr_ci), "cusparseDcsr2bsr", why)) return false;
  if (!cu_ok(cudaMalloc(&d.x, sizeof(double) * (size_t)ncols * nx), "cudaMalloc (x)", why) || !cu_ok(cudaMalloc(&d.y, sizeof(double) * nrows), "cudaMalloc (y)", why)) return false;
  if (!cu_ok(cudaMemsetAsync(d.x, 0, sizeof(double) * (size_t)ncols * nx, d.stream), "cudaMemset", why)) return false;
  if (!d.legacy) { // the generic API: descriptors and the work buffer belong to the setup
    const double one = 1, zero = 0;
    size_t       bytes = 0;
    if (!sp_ok(cusparseCreateBsr(&d.mat, d.mb, d.nb, nnzb, bs, bs, d.bsr_rp, d.bsr_ci, d.bsr_v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW), "cusparseCreateBsr", why)) return false;
    d.vx.assign(nx, nullptr);
    for (int k = 0; k < nx; ++k)
      if (!sp_ok(cusparseCreateDnVec(&d.vx[k], ncols, d.x + (size_t)k * ncols, CUDA_R_64F), "cusparseCreateDnVec", why)) return false;
    if (!sp_ok(cusparseCreateDnVec(&d.vy, nrows, d.y, CUDA_R_64F), "cusparseCreateDnVec", why)) return false;
    if (!sp_ok(cusparseSpMV_bufferSize(d.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d.mat, d.vx[0], &zero, d.vy, CUDA_R_64F, CUSPARSE_SPMV_BSR_ALG1, &bytes), "cusparseSpMV_bufferSize (BSR_ALG1)", why)) return false;
    if (bytes && !cu_ok(cudaMalloc(&d.buf, bytes), "cudaMalloc (SpMV buffer)", why)) return false;
  }
  return cu_ok(cudaStreamSynchronize(d.stream), "BSR setup", why);
}

bool BenchBsr::refresh(const double *values, std::string *why)
{
  Impl &d = *d_;
  if (!cu_ok(cudaMemcpyAsync(d.csr_v, values, sizeof(double) * (size_t)d.nnz, cudaMemcpyHostToDevice, d.stream), "upload", why)) return false;
  if (!sp_ok(cusparseDcsr2bsr(d.h, CUSPARSE_DIRECTION_ROW, d.m, d.n, d.dcsr, d.csr_v, d.csr_rp, d.csr_ci, d.bs, d.dbsr, d.bsr_v, d.bsr_rp, d.bsr_ci), "cusparseDcsr2bsr", why)) return false;
  return cu_ok(cudaStreamSynchronize(d.stream), "BSR refresh", why);
}

bool BenchBsr::set_x(int k, const double *x, std::string *why)
{
  Impl &d = *d_;
  return cu_ok(cudaMemcpyAsync(d.x + (size_t)k * d.n, x, sizeof(double) * d.n, cudaMemcpyHostToDevice, d.stream), "upload x", why) && cu_ok(cudaStreamSynchronize(d.stream), "upload x", why);
}

bool BenchBsr::multiply(int k, std::string *why)
{
  Impl        &d   = *d_;
  const double one = 1, zero = 0;
  if (d.legacy) return sp_ok(cusparseDbsrmv(d.h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, d.mb, d.nb, (int)nnzb_, &one, d.dbsr, d.bsr_v, d.bsr_rp, d.bsr_ci, d.bs, d.x + (size_t)k * d.n, &zero, d.y), "cusparseDbsrmv", why);
  return sp_ok(cusparseSpMV(d.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d.mat, d.vx[k], &zero, d.vy, CUDA_R_64F, CUSPARSE_SPMV_BSR_ALG1, d.buf), "cusparseSpMV (BSR_ALG1)", why);
}

bool BenchBsr::get_y(double *y, std::string *why)
{
  Impl &d = *d_;
  return cu_ok(cudaMemcpyAsync(y, d.y, sizeof(double) * d.m, cudaMemcpyDeviceToHost, d.stream), "download y", why) && cu_ok(cudaStreamSynchronize(d.stream), "download y", why);
}
