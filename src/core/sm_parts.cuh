// Blocks handed out by SM, so that neighbouring work runs on one SM (device code; the take rule
// also compiles for the host, where the tests run it).
//
//   logical blocks 0 .. G-1 (a launch's work, in layout order: neighbouring rows, neighbouring x)
//   | part 0            | part 1            | ...   | part P-1          |   P = number of SMs
//     ^ counters[0]       ^ counters[1]               ^ counters[P-1]       taken so far in a part
//   counters[P]: parts run out;  counters[P + 1]: the stealers' cursor
//
// A launch of G blocks: each block, wherever the hardware starts it, takes the next logical block
// of the part of its SM (%smid mod P); when that part has run out it steals: the next part from a
// cursor that all stealers share, so a part that is done is passed over once by all of them, not
// once by each. G takes hand out each logical block exactly once: a part's counter hands out 0, 1,
// 2, ..., and the taker that sees the part's size counts the part as run out; -1 (all run out)
// only after every block has been handed out.
//
// Why: a plain launch deals consecutive blocks to different SMs, so the rows an SM holds at once
// come from as many places of the matrix as it holds blocks, and the x they share is found in L2,
// not in the SM's L1. The L2's request rate, not DRAM, then bounds the graphs and scaled real
// matrices (ncu, H100, EVC-HYB on the scaled power grid: L2 94% busy, DRAM 68%).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define SM_PARTS_HD __host__ __device__ __forceinline__
#else
#define SM_PARTS_HD inline
#endif

namespace gpuformats {

// Counters a launch of P parts needs (zeroed before each launch).
SM_PARTS_HD int32_t sm_parts_counters(int32_t nparts) { return nparts + 2; }
// First logical block of part p of G blocks in P parts (p = P: G).
SM_PARTS_HD int32_t sm_part_first(int32_t blocks, int32_t nparts, int32_t p) { return (int32_t)((int64_t)blocks * p / nparts); }

// The next logical block for a taker working in part `home` (first its SM's), or -1 when all are
// taken; home becomes the part it came from (a taker that loops stays with the part it found). add(p, v):
// atomic add on counters[p] returning the old value; load(p): a fresh read of counters[p].
template <class Add, class Load>
SM_PARTS_HD int32_t sm_parts_take(int32_t blocks, int32_t nparts, int32_t &home, Add add, Load load)
{
  int32_t p = home;
  for (;;) {
    const int32_t first = sm_part_first(blocks, nparts, p), size = sm_part_first(blocks, nparts, p + 1) - first;
    const int32_t k     = add(p, 1);
    if (k < size) return home = p, first + k;
    if (k == size && add(nparts, 1) + 1 == nparts) return -1; // this taker saw part p run out: the last one
    if (load(nparts) >= nparts) return -1;
    p = add(nparts + 1, 1) % nparts; // steal
  }
}

#if defined(__CUDACC__)
// The part of the SM this block runs on.
__device__ __forceinline__ int32_t sm_parts_home(int32_t nparts)
{
  uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  return (int32_t)(smid % (uint32_t)nparts);
}
// The device's take: thread 0 of a block calls it; counters in global memory.
__device__ __forceinline__ int32_t sm_parts_take_device(int32_t *counters, int32_t blocks, int32_t nparts, int32_t &home)
{
  return sm_parts_take(
    blocks, nparts, home, [counters](int32_t p, int32_t v) { return atomicAdd(counters + p, v); }, [counters](int32_t p) { return *(volatile int32_t *)(counters + p); });
}
#endif

} // namespace gpuformats
