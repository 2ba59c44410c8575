#include "device_buffer.hpp"
#include "stage_timer.hpp"

namespace gpuformats {

void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
  if (err == cudaSuccess) return;
  cudaGetLastError(); // clear a sticky-free error so the next call does not see it
  const std::string msg = std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  throw Error(err == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::device, msg);
}

DeviceCsr upload_csr(const CsrView &A, cudaStream_t stream)
{
  DeviceCsr d{A.nrows, A.ncols, A.nnz, StreamBuffer<int32_t>((size_t)A.nrows + 1, stream), StreamBuffer<int32_t>((size_t)A.nnz, stream), StreamBuffer<double>((size_t)A.nnz, stream)};
  StageTimer *timer = UploadTimerScope::current(); // marks the copies only, not the allocations
  if (timer) timer->upload_begin(stream);
  if (A.nrows > 0) GPUFORMATS_CUDA(cudaMemcpyAsync(d.rowptr.data(), A.rowptr, d.rowptr.bytes(), cudaMemcpyHostToDevice, stream));
  else GPUFORMATS_CUDA(cudaMemsetAsync(d.rowptr.data(), 0, sizeof(int32_t), stream));
  if (A.nnz) GPUFORMATS_CUDA(cudaMemcpyAsync(d.colidx.data(), A.colidx, d.colidx.bytes(), cudaMemcpyHostToDevice, stream));
  if (A.nnz) GPUFORMATS_CUDA(cudaMemcpyAsync(d.values.data(), A.values, d.values.bytes(), cudaMemcpyHostToDevice, stream));
  if (timer) timer->upload_end(stream);
  return d;
}

} // namespace gpuformats
