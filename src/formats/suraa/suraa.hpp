// SURAA (Muhammed, Mehmood, Alzahrani, Katib, Al-Zahrani: "SURAA: A Novel Method and Tool for
// Loadbalanced and Coalesced SpMV Computations on GPUs", section 4): rows sorted by length,
// longest first, kept as CSR; the sorted rows cut into Freedman-Diaconis segments; segments put in
// three groups by their mean row length, each group run by its own kernel:
//
//   position p (perm[p] = original row; core sorted_row_permutation, RowOrder::longest_first)
//   0 .............. g1_end ........................ g2_end ............................ nrows
//   | G1: segments of  | G2: segments of mean >= 32   | G3: segments of mean < 32           |
//   | mean >= 32, at   | vector kernel, Y threads per | sub-warp kernel, T threads per row  |
//   | most max_child_  | row (Y a multiple of 32, per | (T a power of two in 1..16, per     |
//   | threads rows     | segment from its mean)       |  segment from its mean; the paper's |
//   | one child grid   |                              |  scalar kernel is T = 1). Empty     |
//   | per row          |                              |  rows last: beta*y, or 0 if beta 0  |
//   |<- S ->|<- S ->|..|<- S ->|<- S ->|<- S ->| ....  |<- S ->|<- S ->| .... |<- S ->|<-S'->|  (S' <= S: last)
//
//   Stored arrays (no padding: nslots == nnz):
//     rowptr[p]    (nrows + 1) CSR row pointer of the SORTED rows ("rearrange A_csr using perm")
//     colidx[k], values[k]     the entries of the sorted rows, each row's entries in CSR order
//     perm[p]      original row of position p; y[perm[p]] is written (the paper's permuted store)
//     slot_of_csr[k] = rowptr[inv[i]] + (k - A.rowptr[i]) for CSR entry k of row i
//   Tiles (-mat_suraa_window W > 0, the default W = 4096): the plan above is made on the sorted
//     order; then the G3 rows and the G2 rows of Y <= 256 (a suffix of G2: positions [tile_begin,
//     nrows)) move, each keeping its segment's T or Y, into tiles:
//
//       tile_begin ................................................................. nrows
//       | window 0 (matrix rows 0..W-1)                     | window 1 (rows W..2W-1)   | ...
//       | Y=64 rows | T=16 rows | T=4 rows          | empty | Y=32 | T=8 | T=2 | empty | ...
//       |  a tile   |  a tile   |  a tile           | tile  |   (each: matrix order)    |
//       | blk | blk | blk | blk | blk | blk | blk   | blk   |  blocks of <= 256/T rows (256 empty)
//
//     block_first[b], block_info[b] = rows << 10 | T (or Y; 0: empty rows): one launch runs every
//     tile block at its T or Y (suraa_tiles: persistent blocks taking tile blocks from a counter).
//     Why: a launch per T over the sorted order sweeps x and y once per length class (1.7-2.9x
//     EVC-HYB's bytes, docs/formats/suraa.md); inside a window x and y stay in L2. Rows of
//     Y > 256 (mean >= ~480) keep their vector launches.
//   G1 metadata: g1_chunk_start[r] (g1_end + 1 entries): row r of G1 is cut into
//     g1_chunks(length) chunks of kG1ChunkEntries entries, one thread block each; its chunks'
//     partial sums live in g1_partial[g1_chunk_start[r] ..], g1_count[r] counts finished chunks
//     (the last chunk's block adds the partials in chunk order and resets the count: deterministic).
//
// The method (paper, Algorithms 1-6) and the rules this implementation had to choose:
//   * Sort (Alg. 2 l.4): descending by nonzeros per row, ties by first column then row index: the
//     core permutation, identical on host and device.
//   * Segment size (equation 1, Seg_size = 2 * IQR(nprv) / cbrt(m)). The quartiles are read from
//     the sorted lengths in O(1) (linear interpolation, as core/row_stats.cpp and numpy). Equation 1
//     is the Freedman-Diaconis bin WIDTH, in nonzeros per row, not a row count (taken as rows it is
//     below one row for almost every matrix: m = 10^6, IQR = 20 gives 0.4). So, as the paper says
//     the rule yields "the optimal size of the segments as well as the number of segments":
//         h = 2 IQR / cbrt(m)                 FD width (nonzeros per row)
//         B = ceil((max - min) / h)           FD number of bins = number of segments
//         S = ceil(m / B) rows per segment,   segments [s*S, (s+1)*S), the last one shorter.
//     Degenerate cases (not defined by the paper):
//         max == min (every row the same length, IQR = 0 too): one bin -> one segment of m rows.
//         IQR == 0 < max - min (most rows one length plus outliers, e.g. a stencil with shorter
//           boundary rows, or short rows plus a few huge ones): FD's width is 0; fall back to
//           Scott's rule h = 3.49 sigma / cbrt(m), the normal-reference rule FD is the robust
//           version of (sigma > 0 here). A few huge rows give a large (max - min) and so short
//           segments, which keeps those rows out of a segment whose mean hides them.
//         S below a warp (B > m/32, the usual case for power-law rows) -> S is rounded UP to a
//           multiple of 32 (so at least 32; every FD-derived S is): a segment is at least a warp
//           of rows, and G1's row budget is spent in warp-sized steps.
//         S > m -> S = m.
//     -mat_suraa_segment_rows N > 0 overrides S exactly (no rounding).
//   * Groups (section 4.1 text; Alg. 2 l.10 compares npr with max_child_threads, a slip): from the
//     first (longest) segment, segments go to G1 while their mean length is >= 32 and G1 would hold
//     at most max_child_threads rows (whole segments only); the following segments of mean >= 32
//     go to G2, the rest to G3. Means are non-increasing, so the groups are position ranges.
//   * G2 threads per row (Alg. 1 l.7-9, Y = ((nnz(s) >> 1) + 31) >> 5 << 5): nnz(s) read as the
//     segment's mean row length (its total would give absurd thread counts); Y capped at 1024
//     (a block): a multiple of 32 in [32, 1024], ~2 entries per thread, rows of a block aligned on
//     warps so the shuffle reduction (Alg. 6 l.11 steps by >> 2: it means >> 1, 16 8 4 2 1) stays
//     inside a row, then one shared-memory step across the row's warps.
//   * G1 child grids (Alg. 3/4): the parent thread of row r launches, into the fire-and-forget
//     stream (CUDA 13 / CDP2: no device-side synchronize; the parent grid completes only after
//     its children), g1_chunks(len) blocks of g1_child_threads(len) = clamp(((len >> 1) + 31) >>
//     5 << 5, 32, 1024) threads (the paper's one block of len/2 threads, which exceeds the 1024
//     limit beyond 2048 entries: longer rows get a block per 2048-entry chunk). Alg. 4 writes y[0]
//     and reads perm[tid]: the row's result goes to y[perm[r]]. If a device launch fails (pending
//     launch pool full), the parent thread computes the row itself.
//     Without dynamic parallelism (-mat_suraa_dynamic 0): one host-launched kernel with one block
//     of kG1BlockThreads per chunk of every G1 row, same chunks, same partials.
//   * G3 threads per row: a documented modernisation of the paper. Its G3 is a scalar kernel (Alg.
//     5, one thread per row), uncoalesced (stencils 0.21-0.43x of aijcusparse, docs/formats/suraa.md).
//     Here each G3 segment runs T consecutive
//     lanes of a warp per row: lane t reads entries rs + t, rs + t + T, ... (consecutive lanes,
//     consecutive addresses: coalesced), a width-T shuffle butterfly inside the lane group adds
//     the T partials, lane 0 of the group stores y[perm[p]]. The rule is G2's (Alg. 1 l.7-9: ~2 entries
//     per thread) on powers of two instead of multiples of 32:
//         T = subwarp_threads(nnz(s), rows(s)) = smallest power of two with 2 T >= mean(s)
//     (2 = E, -mat_suraa_subwarp_entries, measured best: docs/formats/suraa.md),
//     clamped to [1, 32] (G3's mean < 32 gives T <= 16). A power of two dividing 32 keeps a row's
//     lanes inside one warp, aligned on T: the groups a width-T shuffle adds over. For T > 1 the
//     rule gives T < mean <= 2 T, so a row of the mean length gives each lane 1 or 2 entries: no
//     idle lane (one entry per lane, T >= mean, idles up to half of them: mean 9 -> 16 lanes),
//     2 independent loads in flight per lane (strided_dot<2>), log2(T) shuffle steps. The sorted
//     rows of a segment are close to its mean, and a longer row just takes more strides.
//     T = 1 (mean <= 2) keeps the paper's one-thread row (row_dot, paired 16-byte loads): rows of
//     1-2 entries lie next to each other, so adjacent lanes already read adjacent addresses, and a
//     shuffle would only cost. Blocks of kSubwarpBlockThreads = 256 threads hold 256 / T rows;
//     every lane of a warp, with a row or past the launch's end, takes part in the shuffle (full
//     mask).
//   * Empty rows sort last, so they are the tail of G3 (a row with no entries sums to 0 for any T;
//     lane 0 stores beta*y, or 0 when beta == 0); with beta == 1 the cuda product skips them.
//   * Tiles (above): a documented departure from the paper's per-segment launches; with
//     -mat_suraa_window 0 the G3 and G2 launches below run on the sorted order, as the paper does.
//   * Launch order and streams (Alg. 1): G3, then G2, then G1 (paper order). Consecutive segments
//     that run the same kernel with the same configuration (G3 segments of equal T, G2 segments
//     of equal Y) are ONE launch: the same work in the same order as per-segment launches on one
//     stream, at a fraction of the launch cost (an R-MAT graph has ~10^5 segments of 32 rows).
//     Segment means do not increase along the positions, so T and Y do not either: at most one
//     G3 launch per T (<= 5). The G3 launches and the G2 launches, in that order, go round-robin
//     on the `streams` extra streams (StreamSet.streams[1..]), G1 on PETSc's stream; the glue
//     joins them.
#pragma once
#include "../../core/hd.hpp"
#include "../format.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace gpuformats {

extern const FormatOps suraa_ops;

namespace suraa {

constexpr int32_t kWarp = 32;
// Segment mean length from which a segment is "long" (G1/G2): a warp (paper, figure 5).
constexpr int32_t kLongMean = 32;
// Extra streams the product may use (FormatOps::extra_streams), round-robin over the G3 runs (one
// per T: at most 5) and the G2 runs (one per Y).
constexpr int32_t kMaxStreams = 4;
// Sub-warp (G3) kernel: 256 threads per block (paper 4.2.2's scalar kernel: (segment_size + 256 - 1)
// / 256 blocks), 256 / T rows per block.
constexpr int32_t kSubwarpBlockThreads = 256;
// Entries per thread the sub-warp kernel keeps in flight (strided_dot<kSubwarpUnroll>): T ~ mean/2.
constexpr int32_t kSubwarpUnroll = 2;
// Vector kernel: blocks of max(Y, 256) threads, 256 / Y rows each: 8 warps keep the grid tail short.
constexpr int32_t kVectorBlockThreads = 256;
// Threads per row of the vector kernel and of a child block: the CUDA block limit.
constexpr int32_t kMaxThreadsPerRow = 1024;
// Entries of a G1 row per block: the child's 1024 threads x the paper's ~2 entries per thread.
constexpr int32_t kG1ChunkEntries = 2 * kMaxThreadsPerRow;
// Host-launched G1 kernel: 256 threads per chunk block, 8 entries each (loads in flight per thread).
constexpr int32_t kG1BlockThreads = 256;
// Dynamic parent kernel: one thread per G1 row; small blocks spread the device launches over SMs.
constexpr int32_t kParentThreads = 64;

// Parameter order of suraa_ops.params.
enum Param { param_segment_rows = 0, param_max_child_threads = 1, param_dynamic = 2, param_streams = 3, param_subwarp_entries = 4, param_window = 5, nparams = 6 };

// Tiles (-mat_suraa_window W > 0): the rows of G2 with Y <= kTileMaxThreads and of G3, keyed by
// the window of the original row, then threads per row descending (codes 0..7: Y = 256, 224, ..,
// 32; 8..12: T = 16, 8, 4, 2, 1), then the empty rows (kEmptyCode, "0 threads"); the key's low
// kTileCodeBits hold the code. A tile block has kSubwarpBlockThreads threads, so Y <= 256.
constexpr int32_t kTileMaxThreads = kSubwarpBlockThreads;
constexpr int32_t kTileCodeBits   = 4;
constexpr int32_t kEmptyCode      = 13;
// A tile block's info word: rows << kTileRowsShift | threads per row (<= 256: 9 bits; rows <= 256).
constexpr int32_t kTileRowsShift = 10;
constexpr int32_t kMinWindow     = 32; // a window holds at least a warp of rows

struct Params {
  int64_t segment_rows      = 0;    // 0: Freedman-Diaconis
  int32_t max_child_threads = 2048; // G1 holds at most this many rows (0: no G1)
  bool    dynamic           = false;
  int32_t streams           = 3;
  int32_t subwarp_entries   = 2; // G3: entries per lane E in T = smallest power of two with E T >= mean
  int32_t window            = 4096; // tiles: rows per window of the matrix order (0: per-T/Y launches, the paper's order)
};

enum class SegmentRule { none, single_length, freedman_diaconis, scott, override_rows };
enum class Kernel { subwarp, vector, g1 };

// One kernel launch of the product: positions [begin, end), `segments` consecutive segments
// starting at first_segment. threads_per_row: T (G3 sub-warp), Y (G2 vector), 0 (G1: per row).
struct Launch {
  Kernel  kernel;
  int32_t begin, end;
  int32_t first_segment, segments;
  int32_t threads_per_row;
  int64_t nnz;
  int32_t order; // non-G1 launches: 0, 1, 2... -> extra stream 1 + order % streams; G1: -1 (main)
};

struct Plan {
  Params      params;
  int32_t     nrows = 0, ncols = 0;
  int64_t     nnz = 0;
  int32_t     max_length = 0, min_length = 0;
  int32_t     empty_rows = 0;                      // filled by the builders
  double      q1 = 0, q3 = 0, iqr = 0, stddev = 0; // of the row lengths; stddev only for Scott
  double      width = 0;                           // bin width h (nonzeros per row)
  int64_t     bins  = 0;                           // B
  SegmentRule rule  = SegmentRule::none;
  int32_t     segment_rows = 0, segments = 0;
  int32_t     g1_end = 0, g2_end = 0;
  int32_t     g1_segments = 0, g2_segments = 0, g3_segments = 0;
  int64_t     g1_nnz = 0, g2_nnz = 0, g3_nnz = 0;
  int32_t     g1_chunks = 0;          // total chunk blocks of G1 (filled by the builders)
  int32_t     g1_multi_chunk_rows = 0; // G1 rows longer than one chunk
  int32_t     tile_begin = 0, tiles = 0, tile_blocks = 0; // tiles (window > 0; filled by the builders): positions [tile_begin, nrows)
  std::vector<Launch> launches;       // G3 runs of equal T, G2 runs of equal Y, G1 (the paper's order)
};

// What make_plan reads from a builder's sorted layout (host vectors or device arrays).
struct SortedRows {
  std::function<std::vector<int32_t>(const std::vector<int32_t> &)> lengths_at; // length of the rows at these positions
  std::function<std::vector<int32_t>(const std::vector<int32_t> &)> rowptr_at;  // sorted rowptr at these positions (0..nrows)
  std::function<int64_t()>                                          sum_of_squared_lengths;
};

// Rows of a G3 launch the cuda product runs, from l.begin: all of them, except with beta == 1,
// where the empty rows (sorted last: the tail of G3) keep y as it is and are left out.
inline int32_t subwarp_launch_rows(const Launch &l, int32_t nrows, int32_t empty_rows, double beta)
{
  const int32_t end = beta == 1.0 && nrows - empty_rows < l.end ? nrows - empty_rows : l.end;
  return end > l.begin ? end - l.begin : 0;
}

// Code of a tile key from the threads per row (a multiple of 32 up to 256, a power of two below
// 32, or 0 for an empty row); descending threads give ascending codes.
GPUFORMATS_HD int32_t tile_code(int32_t threads)
{
  if (threads == 0) return kEmptyCode;
  if (threads >= kWarp) return 8 - threads / kWarp;
  int32_t c = 12;
  while (threads > 1) threads >>= 1, --c;
  return c;
}
GPUFORMATS_HD int32_t code_threads(int32_t code) { return code < 8 ? (8 - code) * kWarp : code == kEmptyCode ? 0 : 16 >> (code - 8); }
// Threads per row of a tile key (its code, the low kTileCodeBits).
GPUFORMATS_HD int32_t key_threads(int32_t key) { return code_threads(key & ((1 << kTileCodeBits) - 1)); }
// Rows of a full tile block: 256 / threads (Y = 96: 2 rows, 64 threads idle); an empty-row block
// takes a row per thread.
GPUFORMATS_HD int32_t tile_block_rows(int32_t threads) { return kSubwarpBlockThreads / (threads > 0 ? threads : 1); }
// Sort key of a tiled row: its window of the original order, then its code (the key order is
// window, threads descending; ties keep the original row order). W >= kMinWindow keeps it < 2^31.
GPUFORMATS_HD int32_t tile_key(int32_t row, int32_t window, int32_t threads) { return (row / window) << kTileCodeBits | tile_code(threads); }
// A tile block: rows [first, first + rows) at `threads` per row, rows <= tile_block_rows(threads);
// 0 threads: empty rows (y = beta y, or 0 with beta == 0; nothing with beta == 1).
GPUFORMATS_HD int32_t tile_info(int32_t rows, int32_t threads) { return rows << kTileRowsShift | threads; }
GPUFORMATS_HD int32_t tile_info_rows(int32_t info) { return info >> kTileRowsShift; }
GPUFORMATS_HD int32_t tile_info_threads(int32_t info) { return info & ((1 << kTileRowsShift) - 1); }

// The tiled rows, positions [tile_begin, nrows), in tile order, and their blocks.
struct Tiles {
  std::vector<int32_t> block_first, block_info; // per block: first position, tile_info(rows, T)
  int32_t              tiles = 0;
};
// The launches tiles replace: every G3 launch and the G2 launches of Y <= kTileMaxThreads (a
// suffix of G2: Y does not increase along the positions).
inline bool is_tiled(const Launch &l) { return l.kernel == Kernel::subwarp || (l.kernel == Kernel::vector && l.threads_per_row <= kTileMaxThreads); }
// First position of the tiled launches (nrows when none).
int32_t tiled_begin(const Plan &plan);
// Host: reorders perm over [tiled_begin, nrows) by (tile_key, original row) and cuts each run of
// equal key (a tile) into blocks of at most tile_block_rows rows. Nothing when window == 0. The
// empty rows (sorted last) get 0 threads. Sets plan.tile_begin, tiles, tile_blocks.
Tiles tile_rows(Plan &plan, std::vector<int32_t> &perm);
// End of the rows with entries (empty rows sort last).
inline int32_t nonempty_end_of(const Plan &pl) { return pl.nrows - pl.empty_rows; }

// Reads and checks the parameters (Error(bad_input)).
Params read_params(const int64_t *params);
// Segments, groups and launches (everything but the G1 chunk counts). Same on host and device.
// G3: one launch per run of consecutive segments of equal subwarp_threads.
Plan make_plan(const Params &params, int32_t nrows, int32_t ncols, int64_t nnz, const SortedRows &rows);
std::size_t bytes(const Plan &plan);
void        describe(const Plan &plan, std::vector<LayoutStat> &out);
// Refuses what the int32 layout cannot address (Error(unsupported)).
void        check_size(const CsrView &A);

// Threads of a child block for a G1 row of `len` entries (paper Alg. 3 l.8-10, clamped to [32, 1024]).
GPUFORMATS_HD int32_t g1_child_threads(int32_t len)
{
  const int32_t t = (((len >> 1) + 31) >> 5) << 5;
  return t < kWarp ? kWarp : (t > kMaxThreadsPerRow ? kMaxThreadsPerRow : t);
}
// Chunks (blocks) of a G1 row of `len` entries: at least one (an empty row still writes beta*y).
GPUFORMATS_HD int32_t g1_chunks(int32_t len) { return len <= kG1ChunkEntries ? 1 : (int32_t)(((int64_t)len + kG1ChunkEntries - 1) / kG1ChunkEntries); }
// G2 threads per row of a segment of mean length `mean` (Alg. 1 l.7-9, capped at a block).
GPUFORMATS_HD int32_t vector_threads(int64_t mean)
{
  const int64_t t = (((mean >> 1) + 31) >> 5) << 5;
  return (int32_t)(t < kWarp ? kWarp : (t > kMaxThreadsPerRow ? kMaxThreadsPerRow : t));
}
// G3 threads per row T of a segment of `nnz` entries in `rows` rows: the smallest power of two
// with E T >= nnz / rows (the exact mean, no rounding), in [1, 32] (rows <= 0: 1). E = 2 (default,
// -mat_suraa_subwarp_entries): G2's ~2 entries per thread on powers of two (header comment: why).
GPUFORMATS_HD int32_t subwarp_threads(int64_t nnz, int64_t rows, int32_t entries = 2)
{
  int32_t t = 1;
  while (t < kWarp && (int64_t)entries * t * rows < nnz) t <<= 1;
  return t;
}
// Sub-warp kernel: blocks of a launch of `rows` rows at T threads per row.
GPUFORMATS_HD int64_t subwarp_blocks(int64_t rows, int32_t T)
{
  const int32_t per_block = kSubwarpBlockThreads / T;
  return (rows + per_block - 1) / per_block;
}
// Sub-warp kernel: thread `thread` of block `block` of a launch starting at position `begin` works
// on position p (possibly >= the launch's end in its last block: no row, but it still shuffles) as
// lane `lane` of its row's T lanes. T divides 32, so the T lanes of a row are consecutive lanes of
// one warp, aligned on T (the groups a width-T shuffle uses). int64: begin + block * (256 / T)
// may pass 2^31 in the last block.
struct SubwarpThread {
  int64_t p;
  int32_t lane;
};
GPUFORMATS_HD SubwarpThread subwarp_thread(int32_t begin, uint32_t block, uint32_t thread, int32_t T)
{
  return {(int64_t)begin + (int64_t)block * (kSubwarpBlockThreads / T) + (int64_t)(thread / (uint32_t)T), (int32_t)(thread & (uint32_t)(T - 1))};
}

// The arrays a kernel reads, as plain pointers (device memory on the cuda backend).
struct DeviceView {
  const int32_t *rowptr;         // nrows + 1, sorted rows
  const int32_t *colidx;         // nnz
  const double  *values;         // nnz
  const int32_t *perm;           // nrows
  const int32_t *g1_chunk_start; // g1_end + 1
  double        *g1_partial;     // g1_chunks
  unsigned      *g1_count;       // g1_end, zero between products
};

// The host block: arrays in host memory (test_suraa_build compares the device builder's with them).
class SuraaHostBlock : public FormatBlock {
public:
  Plan                 plan;
  std::vector<int32_t> rowptr, colidx, perm, slots, g1_chunk_start, block_first, block_info;
  std::vector<double>  vals;

  double row_sum(int32_t first, int32_t end, const double *x) const
  {
    double s = 0;
    for (int32_t k = first; k < end; ++k) s += vals[k] * x[colidx[k]];
    return s;
  }
  void store(int32_t p, double sum, double alpha, double beta, double *y) const
  {
    const int32_t row = perm[p];
    y[row]            = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[row]; // beta == 0: y write-only
  }

  // The launches in the paper's order, each with the arithmetic of its kernel: G3 and G2 a row at a
  // time (a plain sequential row sum, whatever T or Y the cuda kernels use: the independent
  // oracle), G1 by chunks of kG1ChunkEntries whose partial sums are added in chunk order.
  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override
  {
    for (const Launch &l : plan.launches) {
      for (int32_t p = l.begin; p < l.end; ++p) {
        const int32_t rs = rowptr[p], re = rowptr[p + 1];
        if (l.kernel != Kernel::g1) {
          store(p, row_sum(rs, re, x), alpha, beta, y);
          continue;
        }
        double sum = 0;
        for (int32_t c = 0; c < g1_chunk_start[p + 1] - g1_chunk_start[p]; ++c) {
          const int32_t first = rs + c * kG1ChunkEntries;
          sum += row_sum(first, re - first < kG1ChunkEntries ? re : first + kG1ChunkEntries, x);
        }
        store(p, sum, alpha, beta, y);
      }
    }
  }
  std::size_t bytes() const override { return suraa::bytes(plan); }
  void        describe(std::vector<LayoutStat> &out) const override { suraa::describe(plan, out); }
};

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up);
std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream); // build_cuda after its upload

// suraa_dynamic_rdc.cu (relocatable device code, device runtime): the parent kernel, one thread
// per G1 row, each launching its row's child grid. Asynchronous on `stream`.
void launch_g1_dynamic(int32_t g1_rows, const DeviceView &v, double alpha, const double *x, double beta, double *y, cudaStream_t stream);
// Raises cudaLimitDevRuntimePendingLaunchCount to at least `launches` when it is lower (best
// effort: if it cannot, the parent falls back to computing a row itself when a launch fails).
void reserve_child_launches(int32_t launches);

} // namespace suraa
} // namespace gpuformats
