// Loads shared by the format kernels, compiled for the device and for the host (the tests run the
// same row functions on the host, where these are plain reads).
//   load_stream: the matrix is read once per product; evict-first (ld.global.cs) keeps L1/L2 for
//                x, which stencil, FEM and power-law rows re-read.
//   load_ro:     x and small metadata through the read-only (non-coherent) path, __ldg.
#pragma once
#include "hd.hpp"

namespace gpuformats {

template <class T>
GPUFORMATS_HD T load_stream(const T *p)
{
#ifdef __CUDA_ARCH__
  return __ldcs(p);
#else
  return *p;
#endif
}

template <class T>
GPUFORMATS_HD T load_ro(const T *p)
{
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

} // namespace gpuformats
