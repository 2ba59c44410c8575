// The halo's device pack and unpack: a gather and a scatter on the halo's stream (no host wait).
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include <cstddef>
#include <cstdint>

namespace gpuformats {

void halo_pack_cuda(const int32_t *idx, std::size_t n, const double *x, double *out, cudaStream_t s)
{
  thrust::gather(thrust::cuda::par_nosync.on(s), idx, idx + n, x, out);
}

void halo_unpack_cuda(const double *in, std::size_t n, const int32_t *slot, double *ghost, cudaStream_t s)
{
  if (n) thrust::scatter(thrust::cuda::par_nosync.on(s), in, in + n, slot, ghost);
}

} // namespace gpuformats
