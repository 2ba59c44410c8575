// Partitioned (partitioned.hpp): the device steps of its build.
#include "partitioned.hpp"

#include <thrust/execution_policy.h>
#include <thrust/transform.h>

namespace gpuformats {
namespace partitioned {

namespace {

struct Shift {
  int32_t by;
  __host__ __device__ int32_t operator()(int32_t v) const { return v + by; }
};

} // namespace

DeviceCsr slice_rows_cuda(const DeviceCsr &d, int32_t r0, int32_t rows, int64_t e0, int64_t e1, cudaStream_t stream)
{
  DeviceCsr s;
  s.nrows = rows;
  s.ncols = d.ncols;
  s.nnz   = e1 - e0;
  s.rowptr.resize((size_t)rows + 1);
  s.colidx.resize((size_t)std::max<int64_t>(s.nnz, 1));
  s.values.resize((size_t)std::max<int64_t>(s.nnz, 1));
  thrust::transform(thrust::cuda::par.on(stream), d.rowptr.data() + r0, d.rowptr.data() + r0 + rows + 1, s.rowptr.data(), Shift{(int32_t)-e0});
  if (s.nnz) {
    GPUFORMATS_CUDA(cudaMemcpyAsync(s.colidx.data(), d.colidx.data() + e0, sizeof(int32_t) * (size_t)s.nnz, cudaMemcpyDeviceToDevice, stream));
    GPUFORMATS_CUDA(cudaMemcpyAsync(s.values.data(), d.values.data() + e0, sizeof(double) * (size_t)s.nnz, cudaMemcpyDeviceToDevice, stream));
  }
  return s;
}

void offset_slots_cuda(const int32_t *in, int64_t n, int32_t offset, int32_t *out, cudaStream_t stream)
{
  if (n > 0) thrust::transform(thrust::cuda::par.on(stream), in, in + n, out, Shift{offset});
}

} // namespace partitioned
} // namespace gpuformats
