// Schedule::lines's plan: an exact triangular solve by lines of rows, one thread each, the lines
// pipelined so that a step of every block solves one row per thread (level_solve.cuh runs it).
// PETSc- and CUDA-free: built on the host from the pattern at the symbolic phase, per chunk, warp
// and block; the per-slot arrays are filled from its chunk map on the device (lines_solve.cuh).
//
// The triangle is read as a strict lower one (an upper one mirrored: row n-1-i reads n-1-j), so
// a row reads only earlier rows. C (a frequent distance of the pattern: a grid's line) cuts the
// rows in chunks of C consecutive rows; a thread solves its chunk's rows in order, one a step.
//
//   7-point grid, C = nx, chunk c = line (y, z):   S(c) = max over reads (row r of c reading row j
//   z=1: c4 c5 c6 c7   S: 1 2 3 4                  of chunk c' != c) of S(c') + pos(j) - pos(r) + 1
//   z=0: c0 c1 c2 c3   S: 0 1 2 3                  (pos: the row's index in its chunk), so row r,
//   warp = 32 consecutive chunks, starts spread    solved at step S(c) + pos(r), comes after every
//   at most `spread`; a lane's rows skewed by      row it reads. A 7-point grid's critical path is
//   its start: row = warp_row0 + step - smin      nx + ny + nz - 2 steps (its levels).
//
// Warps go into blocks of wpb warps along each warp's most-read predecessor (grid tiles of 32 lines
// by wpb planes); a block advances one step per barrier. A read of the same block at most R - 1
// steps back comes from a ring in shared memory (slot: the producer's step mod R); every other
// read from the work vector, polled (other blocks run by ticket in a topological order of the
// blocks' graph, fewer warps a block where it has a cycle; rows of more than kMaxReads reads, or
// more than twice the triangle's levels in steps, are refused).
//
// Invariants of a Plan, made on the host from the pattern (make_plan), and of the arrays the fill
// (lines_solve.cuh) derives from its chunk map on the solve's memory (index at = (warp_row0[w] +
// step - warp_smin[w]) * 32 + lane; row r of chunk c = r / C sits at chunk_at[c] + (r % C) * 32):
//   perm_row[at]  the row solved at `at` (in the given numbering), -1 padding; every row once
//   ref[(at/32 * K + m) * 32 + at%32]  read m: >= 0 the work vector's index of the row read,
//                 < 0 -(1 + t * R + slot) the ring of thread t of the block, INT32_MIN none
//   val_src       same shape: the read's value position (src), -1 none; diag_src[at]: the
//                 diagonal's position (-1: unit or padding)
//   a lane of warp w is active at steps [warp_smin + lane_off, + lane_len); a block's steps
//   [block_s0, block_s1); block b's warps block_warps[b * wpb + k] (-1: none); ring reads are at
//   distance 1..R-1 within a block (the fill checks), so a barrier per step orders them
#pragma once
#include "../core/hd.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpuformats {
namespace trisolve {
namespace lines {

constexpr int kMaxReads = 13; // the kernels' widest row (lines_solve.cuh instantiates 3, 7, 13; K rounds up to one)

struct Options {
  int chunk  = 0;  // C (0: the most frequent distance of 8 to 4096 rows, lines.cpp's chunk_of)
  int warps  = 0;  // warps per block, 1-8 (0: the fewest, at most 8, that give a block per SM)
  int spread = 40; // the most a warp's starts may spread (steps a lane idles), or C / 8 if more
  int ring   = 64; // R at most (a power of two; farther reads of a block go to the work vector)
  int sms    = 0;  // the device's SMs, for warps = 0 (0: 4 warps)
  int levels = 0;  // the triangle's levels: a found chunk taking more than twice as many steps is refused (0: none)
  int width  = 0;  // rows a step per SM a plan must give, else refused (0: any; sms = 0 counts 132)
  int threads = 1; // host threads for the passes over the entries (1-16; the plan is the same)
  bool required = false; // a refused plan throws Error(bad_input) with the reason, where the caller has no fallback it wants (else tiles)
};

// Schedule::automatic's width: snes ex19's 2D grid of 4 dofs gives 3.9 rows a step per SM and
// loses to tiles (1.06x against 1.43x aijcusparse's KSPSolve); ksp ex45 at 96^3 gives 23 and wins.
constexpr int kAutoWidth = 8;

struct Plan {
  int32_t              n = 0, C = 0, K = 0, R = 1, wpb = 1, nwarps = 0, nblocks = 0;
  int64_t              rows = 0, steps = 0; // rows per lane over all warps (at < rows * 32); the critical path
  std::vector<int32_t> block_warps, warp_smin, lane_off, lane_len, block_s0, block_s1;
  std::vector<int64_t> warp_row0;
  // the chunk map: chunk c's first row's step, index `at`, block, and thread in its block
  std::vector<int32_t> chunk_step, chunk_block, chunk_thread;
  std::vector<int64_t> chunk_at;
  int64_t              shared_refs = 0, global_refs = 0, cross_refs = 0; // the fill's: ring, work vector (same block, other blocks)
};

// A sorted CSR pattern with its diagonal positions (dp), and which strict triangle is solved:
// solve row r is row upper ? n-1-r : r, its reads mirrored likewise, so a row reads earlier rows.
// In host memory for make_plan, in the solve's for the fill (lines_solve.cuh).
struct Pattern {
  int32_t        n = 0;
  const int32_t *rp = nullptr, *ci = nullptr, *dp = nullptr;
  bool           upper = false;
  GPUFORMATS_HD int32_t row(int32_t r) const { return upper ? n - 1 - r : r; }
  GPUFORMATS_HD int32_t lo(int32_t i) const { return upper ? dp[i] + 1 : rp[i]; } // row i's strict entries [lo, hi)
  GPUFORMATS_HD int32_t hi(int32_t i) const { return upper ? rp[i + 1] : dp[i]; }
  GPUFORMATS_HD int32_t read(int32_t e) const { return upper ? n - 1 - ci[e] : ci[e]; } // entry e's row, in solve order
};

// The plan of T's triangle but R and the counts (the fill's). An empty string, or why it is refused.
std::string make_plan(const Pattern &T, const Options &o, Plan &P);

// Why make_plan under o (its width and sms) would refuse a triangle of every ILU(k) of the sorted
// CSR pattern (rp, ci) of n rows, from the levels of the pattern's own strict triangles: the fill
// only adds reads, so ILU(k)'s triangles have at least as many levels, and a plan at least as many
// steps. An empty string where it may take them. Host, one pass over the entries per triangle.
std::string refuses_every_fill(int32_t n, const int32_t *rp, const int32_t *ci, const Options &o);

} // namespace lines
} // namespace trisolve
} // namespace gpuformats
