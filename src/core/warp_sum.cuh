// Shuffle sums shared by the format kernels (device code only).
#pragma once

namespace gpuformats {

#ifdef __CUDACC__
// Sum over each aligned group of T lanes (T a power of two <= 32) by a shuffle butterfly of width
// T: a source lane outside the group returns the caller's own value, so groups never mix. Lane 0
// of each group holds its group's sum. Every lane of the warp must call it (full mask).
template <int T>
__device__ __forceinline__ double lane_group_sum(double v)
{
  static_assert(T >= 1 && T <= 32 && (T & (T - 1)) == 0, "T: a power of two that divides a warp");
#pragma unroll
  for (int offset = T / 2; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset, T);
  return v;
}

// The whole warp's sum, in lane 0 (shuffles, not a shared-memory tree).
__device__ __forceinline__ double warp_sum(double v) { return lane_group_sum<32>(v); }
#endif

} // namespace gpuformats
