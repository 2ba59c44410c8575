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

DeviceCsr upload_csr(const CsrView &A, cudaStream_t stream, const UploadContext &up)
{
  DeviceCsr d;
  d.nrows = A.nrows;
  d.ncols = A.ncols;
  d.nnz   = A.nnz;
  d.rowptr.resize((size_t)A.nrows + 1);
  d.colidx.resize((size_t)A.nnz);
  d.values.resize((size_t)A.nnz);
  if (up.timer) up.timer->upload_begin(stream);
  if (A.nrows > 0) d.rowptr.upload(A.rowptr, (size_t)A.nrows + 1, stream, 0, up.threads);
  else {
    const int32_t zero = 0;
    d.rowptr.upload(&zero, 1, stream);
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream)); // `zero` dies here
  }
  d.colidx.upload(A.colidx, (size_t)A.nnz, stream, 0, up.threads);
  d.values.upload(A.values, (size_t)A.nnz, stream, 0, up.threads);
  if (up.timer) up.timer->upload_end(stream);
  return d;
}

} // namespace gpuformats
