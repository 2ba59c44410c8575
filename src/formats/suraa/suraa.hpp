// SURAA (Muhammed, Mehmood, Alzahrani, Katib, Al-Zahrani: "SURAA: A Novel Method and Tool for
// Loadbalanced and Coalesced SpMV Computations on GPUs", section 4): rows sorted by length,
// longest first, kept as CSR; the sorted rows cut into Freedman-Diaconis segments; segments put in
// three groups by their mean row length, each group run by its own kernel:
//
//   position p (perm[p] = original row; core sorted_row_permutation, RowOrder::longest_first)
//   0 .............. g1_end ........................ g2_end ............................ nrows
//   | G1: segments of  | G2: segments of mean >= 32   | G3: segments of mean < 32           |
//   | mean >= 32, at   | vector kernel, Y threads per | scalar kernel, one thread per row   |
//   | most max_child_  | row (Y a multiple of 32, per | (empty rows last: they get beta*y,  |
//   | threads rows     | segment from its mean)       |  or 0 when beta == 0)               |
//   | one child grid   |                              |                                     |
//   | per row          |                              |                                     |
//   |<- S ->|<- S ->|..|<- S ->|<- S ->|<- S ->| ....  |<- S ->|<- S ->| .... |<- S ->|<-S'->|  (S' <= S: last)
//
//   Stored arrays (no padding: nslots == nnz):
//     rowptr[p]    (nrows + 1) CSR row pointer of the SORTED rows ("rearrange A_csr using perm")
//     colidx[k], values[k]     the entries of the sorted rows, each row's entries in CSR order
//     perm[p]      original row of position p; y[perm[p]] is written (the paper's permuted store)
//     slot_of_csr[k] = rowptr[inv[i]] + (k - A.rowptr[i]) for CSR entry k of row i
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
//           multiple of 32 (so at least 32; every FD-derived S is): a warp of the scalar kernel
//           never straddles two segments, and G1's row budget is spent in warp-sized steps.
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
//   * Empty rows sort last, so they are the tail of G3 (the scalar kernel stores beta*y, or 0
//     when beta == 0); with beta == 1 the cuda product skips them.
//   * Launch order and streams (Alg. 1): G3, then G2, then G1 (paper order). Consecutive segments
//     that run the same kernel with the same configuration (all of G3; G2 segments of equal Y)
//     are ONE launch: the same work in the same order as per-segment launches on one stream, at a
//     fraction of the launch cost (an R-MAT graph has ~10^5 segments of 32 rows). The G3 launch
//     and the G2 launches go round-robin on the `streams` extra streams (StreamSet.streams[1..]),
//     G1 on PETSc's stream; the glue joins them.
#pragma once
#include "../format.hpp"

#include <cstdint>
#include <functional>
#include <vector>

#ifdef __CUDACC__
#define SURAA_HD __host__ __device__ __forceinline__
#else
#define SURAA_HD inline
#endif

namespace gpuformats {

extern const FormatOps suraa_ops;

namespace suraa {

constexpr int32_t kWarp = 32;
// Segment mean length from which a segment is "long" (G1/G2): a warp (paper, figure 5).
constexpr int32_t kLongMean = 32;
// Extra streams the product may use (FormatOps::extra_streams): G3 + a few G2 runs rarely need more.
constexpr int32_t kMaxStreams = 4;
// Scalar kernel: 256 threads per block (paper 4.2.2: (segment_size + 256 - 1) / 256 blocks).
constexpr int32_t kScalarThreads = 256;
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
enum Param { param_segment_rows = 0, param_max_child_threads = 1, param_dynamic = 2, param_streams = 3, nparams = 4 };

struct Params {
  int64_t segment_rows      = 0;    // 0: Freedman-Diaconis
  int32_t max_child_threads = 2048; // G1 holds at most this many rows (0: no G1)
  bool    dynamic           = false;
  int32_t streams           = 3;
};

enum class SegmentRule { none, single_length, freedman_diaconis, scott, override_rows };
enum class Kernel { scalar, vector, g1 };

// One kernel launch of the product: positions [begin, end), `segments` consecutive segments
// starting at first_segment. threads_per_row: 1 (scalar), Y (vector), 0 (G1: per row).
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
  std::vector<Launch> launches;       // G3, G2 runs, G1 (the paper's order)
};

// What make_plan reads from a builder's sorted layout (host vectors or device arrays).
struct SortedRows {
  std::function<std::vector<int32_t>(const std::vector<int32_t> &)> lengths_at; // length of the rows at these positions
  std::function<std::vector<int32_t>(const std::vector<int32_t> &)> rowptr_at;  // sorted rowptr at these positions (0..nrows)
  std::function<int64_t()>                                          sum_of_squared_lengths;
};

// Reads and checks the parameters (Error(bad_input)).
Params read_params(const int64_t *params);
// Segments, groups and launches (everything but the G1 chunk counts). Same on host and device.
Plan make_plan(const Params &params, int32_t nrows, int32_t ncols, int64_t nnz, const SortedRows &rows);
std::size_t bytes(const Plan &plan);
void        describe(const Plan &plan, std::vector<LayoutStat> &out);
// Refuses what the int32 layout cannot address (Error(unsupported)).
void        check_size(const CsrView &A);

// Threads of a child block for a G1 row of `len` entries (paper Alg. 3 l.8-10, clamped to [32, 1024]).
SURAA_HD int32_t g1_child_threads(int32_t len)
{
  const int32_t t = (((len >> 1) + 31) >> 5) << 5;
  return t < kWarp ? kWarp : (t > kMaxThreadsPerRow ? kMaxThreadsPerRow : t);
}
// Chunks (blocks) of a G1 row of `len` entries: at least one (an empty row still writes beta*y).
SURAA_HD int32_t g1_chunks(int32_t len) { return len <= kG1ChunkEntries ? 1 : (int32_t)(((int64_t)len + kG1ChunkEntries - 1) / kG1ChunkEntries); }
// G2 threads per row of a segment of mean length `mean` (Alg. 1 l.7-9, capped at a block).
SURAA_HD int32_t vector_threads(int64_t mean)
{
  const int64_t t = (((mean >> 1) + 31) >> 5) << 5;
  return (int32_t)(t < kWarp ? kWarp : (t > kMaxThreadsPerRow ? kMaxThreadsPerRow : t));
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

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream);

// suraa_dynamic_rdc.cu (relocatable device code, device runtime): the parent kernel, one thread
// per G1 row, each launching its row's child grid. Asynchronous on `stream`.
void launch_g1_dynamic(int32_t g1_rows, const DeviceView &v, double alpha, const double *x, double beta, double *y, cudaStream_t stream);
// Raises cudaLimitDevRuntimePendingLaunchCount to at least `launches` when it is lower (best
// effort: if it cannot, the parent falls back to computing a row itself when a launch fails).
void reserve_child_launches(int32_t launches);

} // namespace suraa
} // namespace gpuformats
