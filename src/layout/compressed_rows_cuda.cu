// Compressed rows (compressed_rows.hpp): the product's last step on the device.
#include "compressed_rows.hpp"

namespace gpuformats::layout {

namespace {

__global__ void scale_all(double *y, double beta, int32_t n)
{
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i]; // beta == 0: y may hold NaN
}

__global__ void add_rows(const int32_t *__restrict__ rows, int32_t k, const double *__restrict__ t, double *__restrict__ y)
{
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k) y[rows[i]] += t[i];
}

constexpr int kThreads = 256;

} // namespace

void compressed_rows_add_cuda(const int32_t *rows, int32_t k, const double *t, double beta, double *y, int32_t n, cudaStream_t stream)
{
  if (beta != 1.0 && n > 0) scale_all<<<(unsigned)((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(y, beta, n);
  if (k > 0) add_rows<<<(unsigned)((k + kThreads - 1) / kThreads), kThreads, 0, stream>>>(rows, k, t, y);
  GPUFORMATS_CUDA(cudaGetLastError());
}

} // namespace gpuformats::layout
