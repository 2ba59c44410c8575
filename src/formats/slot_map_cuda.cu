#include "slot_map.hpp"

#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

namespace gpuformats {

void refresh_values_cuda(FormatBlock &blk, const double *csr_values_host, DeviceBuffer<double> &staging, cudaStream_t stream, StageTimer *timer)
{
  if (blk.nnz == 0) return;
  if (staging.size() < (size_t)blk.nnz) staging.resize((size_t)blk.nnz);
  if (timer) timer->upload_begin(stream);
  staging.upload(csr_values_host, (size_t)blk.nnz, stream);
  if (timer) timer->upload_end(stream);
  thrust::scatter(thrust::cuda::par.on(stream), staging.data(), staging.data() + blk.nnz, blk.slot_of_csr, blk.values);
  GPUFORMATS_CUDA(cudaGetLastError());
}

void gather_csr_values_cuda(const FormatBlock &blk, double *d_out, cudaStream_t stream)
{
  if (blk.nnz == 0) return;
  thrust::gather(thrust::cuda::par.on(stream), blk.slot_of_csr, blk.slot_of_csr + blk.nnz, blk.values, d_out);
  GPUFORMATS_CUDA(cudaGetLastError());
}

__global__ static void gather_diagonal_kernel(const double *__restrict__ values, const int32_t *__restrict__ slot_of_csr, const int32_t *__restrict__ diag_pos, int32_t n, double *__restrict__ d)
{
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int32_t p = diag_pos[i];
    d[i]            = p >= 0 ? values[slot_of_csr[p]] : 0.0;
  }
}

void gather_diagonal_cuda(const FormatBlock &blk, const int32_t *d_diag_pos, int32_t n, double *d_out, cudaStream_t stream)
{
  if (n <= 0) return;
  constexpr int threads = 256;
  gather_diagonal_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(blk.values, blk.slot_of_csr, d_diag_pos, n, d_out);
  GPUFORMATS_CUDA(cudaGetLastError());
}

} // namespace gpuformats
