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

double time_part_cuda(const FormatBlock &b, int reps)
{
  cudaStream_t s;
  GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  struct Guard { // the stream and events go whatever throws
    cudaStream_t s;
    cudaEvent_t  e[2] = {nullptr, nullptr};
    ~Guard()
    {
      for (cudaEvent_t x : e)
        if (x) cudaEventDestroy(x);
      cudaStreamDestroy(s);
    }
  } g{s};
  GPUFORMATS_CUDA(cudaEventCreate(&g.e[0]));
  GPUFORMATS_CUDA(cudaEventCreate(&g.e[1]));
  DeviceBuffer<double> x((size_t)std::max(b.ncols, 1)), y((size_t)std::max(b.nrows, 1));
  GPUFORMATS_CUDA(cudaMemsetAsync(x.data(), 0, sizeof(double) * x.size(), s)); // any finite x times the same
  const StreamSet one{&s, 1};
  b.spmv(1.0, x.data(), 0.0, y.data(), one); // warm-up
  GPUFORMATS_CUDA(cudaEventRecord(g.e[0], s));
  for (int k = 0; k < reps; ++k) b.spmv(1.0, x.data(), 0.0, y.data(), one);
  GPUFORMATS_CUDA(cudaEventRecord(g.e[1], s));
  GPUFORMATS_CUDA(cudaEventSynchronize(g.e[1]));
  float ms = 0;
  GPUFORMATS_CUDA(cudaEventElapsedTime(&ms, g.e[0], g.e[1]));
  return 1e-3 * ms / reps;
}

} // namespace partitioned
} // namespace gpuformats
