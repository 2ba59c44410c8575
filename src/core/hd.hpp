// GPUFORMATS_HD marks code that runs on the device and on the host: the formats' row functions and
// the helpers they share. nvcc compiles it for both (and inlines it: a call per entry would cost the
// kernels); the host compiler sees a plain inline function, which the tests run on the host.
#pragma once
#ifdef __CUDACC__
#define GPUFORMATS_HD __host__ __device__ __forceinline__
#else
#define GPUFORMATS_HD inline
#endif
