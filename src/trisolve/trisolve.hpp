// The triangular solves of incomplete factors: exact, level-scheduled solves of our own, or the
// solves replaced by Jacobi sweeps or incomplete sparse approximate inverses run as sparse products
// in our formats.
//
// M = L + U - I holds A ~ L U in A's pattern (cuSPARSE's csrilu02 and PETSc's device ILU(0) store
// it so): L unit lower (diagonal not stored), U upper with its diagonal D. The symbolic phase splits
// M's pattern; each numeric phase fills the operators from M's values on the backend:
//
//   M (4 rows)          Ls (strict lower)   Us' = D^-1 (strict upper)   LI (lower + I)   UI (upper)
//   r0: d0 u01          .                   u01/d0                      1                m00 m01
//   r1: l10 d1 u12      l10                 u12/d1                      m10 1            m11 m12
//   r2: l21 d2 u23      l21                 u23/d2                      m21 1            m22 m23
//   r3: l30 l32 d3      l30 l32             .                           m30 m32 1        m33
//
// sweeps K  Jacobi sweeps on each triangle (Chow and Patel 2015; Anzt, Chow and Dongarra 2015):
//           y_0 = b, y_{k+1} = b - Ls y_k;  c = D^-1 y_K, x_0 = c, x_{k+1} = c - Us' x_k.
//           K products with each strict triangle: K = 0 is Jacobi (x = D^-1 b); K >= the depth
//           of a triangle's dependency graph is its exact solve (the Neumann series ends).
// levelset  the exact solves themselves, level-scheduled (Anderson and Saad 1989; Naumov 2011):
//           row i's level is 1 + the largest level of the rows it reads (L: j < i, U: j > i),
//           found on the backend at construction. Schedule::tiles groups the rows
//           in tiles of a band of levels by a chunk of rows (level_solve.cuh): one launch per
//           triangle, a block solving a tile's levels one barrier apart in shared memory and
//           reading other tiles' rows from global memory, fetched ahead. Schedule::sync_free
//           stores the rows in level order as sliced ELL and solves them in one launch whose rows
//           wait on the values they read (Liu, Li, Hou and Vinter 2016); Schedule::levels
//           launches a kernel per level, Schedule::graph those launches from a captured CUDA
//           graph (the schedules measured, tuning table in trisolve_cuda.cu). Schedule::lines
//           (lines.hpp) gives a thread a line of rows and pipelines the lines, one row a step,
//           one launch per triangle; a triangle whose plan it refuses (no line length in its
//           pattern, rows of over 13 reads, blocks depending in a cycle) gets tiles.
//           Schedule::automatic (the default) refuses also lines that give fewer than
//           lines::kAutoWidth rows a step per SM (2D grids). The values may be
//           stored in FP32 (arithmetic and vectors in FP64). apply_transpose solves
//           (L U)^T x = b: U^T then L^T, the triangles of M^T built at its first call. The answer
//           is the host reference's up to the order of each row's sum. The glue's default
//           (docs/factorizations.md: faster per apply than cuSPARSE's solves on every case
//           measured, with a cheaper setup than the cusparse package's, whose analyses it skips).
//           A triangle whose largest tile cannot fit a block's shared memory is solved sync-free.
// isai      incomplete sparse approximate inverses (Anzt, Huckle, Braeckle and Dongarra 2018):
//           LI ~ L^-1 on L's pattern with the diagonal, UI ~ U^-1 on U's; x = UI (LI b), 2 products.
//           Row i of LI, J its columns (i last): (LI L)(i, j) = delta_ij for j in J, the |J| x |J|
//           triangular system L(J, J)^T m = e_i, solved by one thread per row in place (UI alike,
//           i first). Exact where L^-1 and U^-1 have L's and U's patterns (a bidiagonal L, ...).
//
// Invariants: every row of M stores its diagonal (the constructor checks: Error(bad_input) naming
// the row); the operators are layouts of `format` (default parameters; evchyb where it refuses)
// on the backend of construction; set_values and apply run on that backend, asynchronous on
// `stream`, without host round trips (the device numeric phase never copies to the host).
#pragma once
#include "../formats/format.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpuformats {
namespace trisolve {

enum class Mode { sweeps, isai, levelset };
// How Mode::levelset's device solve is scheduled (the host runs level by level in every case).
// automatic: lines where a triangle's plan takes it and gives lines::kAutoWidth rows a step per SM
// (a 3D grid's ILU(k)), else tiles (2D grids, unstructured patterns).
enum class Schedule { sync_free, levels, graph, tiles, lines, automatic };
// Mode::levelset's options: the factor's values in FP32 (FP64 arithmetic), and the schedule.
struct ExactOptions {
  bool     single   = false;
  Schedule schedule = Schedule::automatic;
  // sync_free: resident blocks per SM taking row blocks in turn (0: one block per row block; 1
  // measured best, trisolve_cuda.cu), and
  // the longest sleep between two polls of a row not yet solved (0: none)
  // tiles: blocks per SM sharing its shared memory
  int blocks_per_sm = 1, backoff_ns = 0;
  // tiles (level_solve.cuh): levels per band and chunk width in the triangle's reaches (0: chosen
  // from the triangle's levels and reach), rows per tile at most, threads per block (256 or 512),
  // staged slots per tile at most (0: what shared memory holds), the tiles' order band * kb + chunk * kc
  int tile_levels = 0, tile_chunk = 0, tile_rows = 2048, tile_threads = 256, tile_slots = 0, tile_kb = 2, tile_kc = 1;
  // tiles: shared memory a block may use, bytes (0: the device's limit; the host: none); a triangle
  // whose largest tile needs more (many rows read across tiles) is solved sync-free instead
  int64_t tile_smem = 0;
  // lines (lines.hpp's Options): the line's rows C (0: found in the pattern), warps per block (0:
  // from the SMs), the most a warp's starts spread, the ring's steps at most
  int lines_chunk = 0, lines_warps = 0, lines_spread = 40, lines_ring = 64;
  // automatic: a triangle whose lines plan is refused makes the construction throw Error(bad_input)
  // with the reason, instead of taking tiles (the glue's ILU(k > 0) default: cuSPARSE's solves then);
  // the transposes, built later, still fall back to tiles
  bool lines_required = false;
};

// The auto mode's choice between the approximate apply and the exact solves. The glue runs, at a
// numeric phase with both built, kAutoIterations of right-preconditioned GMRES from a probe with
// each, and measures the residual's reduction per iteration (rate) and the time per iteration. The
// iterations to a tolerance scale as ln(rate_exact) / ln(rate_approx), so predicted_time_ratio, the
// approximate solve's predicted time over the exact one's, is that times t_approx / t_exact; +inf
// where a rate is not finite. The sweeps are taken where it is at most auto_margin(k)
// (-mat_gpuformats_trisolve_auto_margin overrides). 10 iterations see the first phase of GMRES only, so the
// ratio is optimistic where exact ILU(0) is strong and gets stronger (convection-diffusion): the
// margin absorbs that. Predicted ratio, then the measured KSPSolve of the sweeps over the exact
// solves' (H200, bench/results/h200/trisolve-auto/verify2.json):
//   sweeps faster:  ex19 512^2 0.040 (0.05x), ex19 Re 100 0.050 (0.06x), ex45 128^3 0.277 (0.59x),
//                   ex14 128^3 0.278 (0.56x), ICC ex14 0.299 (0.56x), Peclet 1 0.363 (0.56x),
//                   arc130 0.36, ani4 0.392 (0.43x), fidapm05 0.462 (0.93x), ex45 256^3 0.651
//                   (0.84x), ex14 256^3 0.652 (0.87x)
//   exact faster:   Peclet 100 against the numbering 0.441 (1.27x), Peclet 10 0.526 (2.9x),
//                   Peclet 100 2.14 (9x), olm1000 127 (65x)
// 0.4 takes the sweeps wherever they were faster by 1.5x or more and never where they were slower;
// it leaves 7-19% on fidapm05 and the 256^3 Laplacians (-mat_gpuformats_trisolve sweeps takes it).
// ILU(1) (and ILU(2) on ex14), KSPSolve of the sweeps over the exact solves' (H200,
// bench/results/h200/iluk/measure2.json): the stronger factor makes exact relatively
// better where it is nearly direct, so kAutoMarginFill = 0.3 for k > 0:
//   sweeps faster:  ex19 256^2 0.031 (0.04x), ILU(2) ex14 128^3 0.174 (0.42x), ex14 128^3 0.201
//                   (0.46x), ex45 128^3 0.209 (0.35x), Peclet 1 0.249 (0.46x), arc130 0.362 (1 it),
//                   ani4 0.398 (0.50x)
//   exact faster:   Peclet 100 against the numbering 0.281 (1.06x), Peclet 10 0.388 (2.5x),
//                   fidapm05 0.986, Peclet 100 1.62 (6x)
// 0.3 gives up ani4's 2x to avoid Peclet 10's 2.5x loss (0.4 took it); Peclet 100 reversed stays
// within 5% of exact. Known failure: ex19 256^2 at lid velocity 100, Grashof 100, ILU(1): the sweeps
// (ratio 0.031 at the first Newton step) stall at the third (10000 iterations) where exact needed
// ~150-170 per step: the choice is made once, at the first numeric phase.
//   Why not the probe residual alone: it orders the applies, not the solves: ex19 512^2 (probe 3.3)
//   solved 20x faster with the sweeps (an iteration with cuSPARSE's solves took 29x one with them), while
//   convection-diffusion at Peclet 10-100 (probe 0.22-0.34) took 7-23x the iterations of an almost
//   exact ILU(0). Nor 3 Richardson steps r <- r - A P r: they diverge on ex19 and ani4 (rates
//   1.2-1.6 for both, where GMRES converges), and at Peclet 10 they gave 1.6x the iterations for 7.4x.
struct AutoProbe {
  double rate_exact, rate_approx; // residual reduction per GMRES iteration
  double t_exact, t_approx;       // seconds per GMRES iteration
};
double        predicted_time_ratio(const AutoProbe &p);
constexpr int kAutoIterations = 10;
constexpr double kAutoMargin     = 0.4; // ILU(0), ICC(0)
constexpr double kAutoMarginFill = 0.3; // ILU(k), ICC(k), k > 0
inline double    auto_margin(int levels) { return levels > 0 ? kAutoMarginFill : kAutoMargin; }
const char *mode_name(Mode m);

class TriangularApply {
public:
  // pattern: M's host CSR (values not read). sweeps: K of mode sweeps.
  // levelset: `format` unused (the solve keeps its own sliced layout).
  TriangularApply(const CsrView &pattern, Mode mode, int sweeps, const FormatOps &format, Backend backend, cudaStream_t stream, ExactOptions exact = {});
  ~TriangularApply();
  TriangularApply(const TriangularApply &)            = delete;
  TriangularApply &operator=(const TriangularApply &) = delete;

  // The operators from M's values (nnz, CSR order, backend memory).
  void set_values(const double *m_values, cudaStream_t stream);
  // x ~ U^-1 L^-1 b, b and x distinct, n entries each in backend memory.
  void apply(const double *b, double *x, cudaStream_t stream) const;
  // levelset: x = L^-T U^-T b from the values of the last set_values (whose array must still hold
  // them); its triangles are built at the first call. Error(unsupported) for the other modes.
  void apply_transpose(const double *b, double *x, cudaStream_t stream) const;
  // levelset: the levels of L's and U's schedules (0 for the other modes).
  int32_t levels(bool upper) const;
  // levelset: L's rows sorted by level (backend memory) and where each level starts (*level_ptr,
  // levels + 1 entries); null for the other modes. Ilu0 takes them instead of finding them again.
  const int32_t *lower_level_order(const std::vector<int32_t> **level_ptr) const;
  // How far the apply is from the exact solve: ||b - L U x|| / ||b|| for x the apply of the probe
  // b = probe_vector(n), L U from M's values (backend memory, those given to set_values): 0 where
  // the apply is exact (sweeps K >= the triangles' depths) and for n = 0, +inf where x is not
  // finite. Synchronises. The glue reports it and its auto mode compares it with a threshold.
  double probe_residual(const double *m_values, cudaStream_t stream) const;

  // M's pattern in backend memory (the device numeric phase factors in it).
  const int32_t *rowptr() const;
  const int32_t *colidx() const;
  int32_t        nrows() const;
  int64_t        nnz() const;
  Mode           mode() const;
  // Bytes one apply reads (the operators' layouts and the vectors), and the products it runs.
  std::size_t apply_bytes() const;
  int         products() const;
  double      apply_flops() const; // the products' multiply-adds (2 per stored entry) and sweeps' D^-1 scaling
  void        describe(std::vector<LayoutStat> &out) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

// The probe of probe_residual: entries in [-1, 1) from a hash of the index (no smooth or constant
// vector, which favours the sweeps on Laplacians), the same on both backends.
std::vector<double> probe_vector(int32_t n);

// Host references (the tests' oracle): ILU(0) of A in place (A's values, every row with its
// diagonal; Error(bad_input) at a zero pivot), and the exact solves x = U^-1 L^-1 b with M = L\U.
void ilu0_host(const CsrView &A, double *values);
void lu_solve_host(const CsrView &M, const double *b, double *x);
// (L U)^T x = b: U^T z = b, then L^T x = z, column by column.
void lu_solve_transpose_host(const CsrView &M, const double *b, double *x);
// CSR position of each row's diagonal entry; Error(bad_input) naming a row without one.
std::vector<int32_t> diagonal_of(const CsrView &M);
// The one error for a row of M without its diagonal entry (every check above throws it).
Error missing_diagonal(int64_t row);

// ILU(k)'s pattern: A's, with the fill of level <= levels, levels counted as PETSc's
// MatILUFactorSymbolic_SeqAIJ counts them (Saad, Iterative Methods, 10.3.3): A's entries have
// level 0; eliminating pivot p < i from row i makes (i, j), j > p in U's row p, of level
// lev(i, p) + lev(p, j) + 1, the least over the pivots. The ILU(0) of A scattered into it (zeros at
// the fill) is A's ILU(k), so Ilu0 factors it as ILU(0), and for a symmetric A
// its upper part is ICC(k)'s. Rows sorted; a_to_m[k] is where A's entry k sits in the pattern
// (levels 0: the identity). Error(bad_input) for a non-square A or a row without its diagonal.
struct FillPattern {
  std::vector<int32_t> rowptr, colidx, a_to_m;
  int64_t              nnz() const { return (int64_t)colidx.size(); }
};
FillPattern iluk_pattern(const CsrView &A, int levels);
// m[a_to_m[k]] = a[k] for k < nnz_a, every other entry of m (nnz_m) 0: A's values into the pattern
// (device memory, asynchronous on stream).
void scatter_to_pattern_cuda(const double *a, int64_t nnz_a, const int32_t *a_to_m, double *m, int64_t nnz_m, cudaStream_t stream);
// Why Schedule::automatic with ExactOptions::lines_required would refuse every ILU(k) of A (host
// pattern) on the current device, known from A's own triangles' levels before any fill is made
// (lines.hpp's refuses_every_fill), or "" where it may take one.
std::string lines_refuse_every_fill(const CsrView &A);

// A strict triangle's shape as the level-set solves meet it (L: row i reads j < i; U: j > i), from
// a sorted CSR pattern of n rows on the host (columns >= n, beyond the square, are not read), one
// pass over the entries: its levels, and the reads on its critical path, the sum over the levels
// of each level's longest row (the reads one thread of Schedule::tiles or sync_free makes in turn,
// a level after another).
struct LevelShape {
  int32_t levels = 0;
  int64_t serial_reads = 0;
};
LevelShape level_shape(int32_t n, const int32_t *rowptr, const int32_t *colidx, bool upper);
// Why ILU(0)'s exact solves of ours would be slower than cuSPARSE's on A's pattern, or "" where
// they are not predicted slower (the glue then takes cuSPARSE's; not for ICC(0), whose cuSPARSE
// solves stalled: docs/factorizations.md). Our schedules pay each level's longest row in turn,
// where cuSPARSE's spread a row over a warp: a mesh graph in its natural order gives triangles of
// thousands of levels of a few long rows each, and there ours were 4-6x slower (the rule and its
// evidence below). longest_row: A's longest row where the caller knows it (PETSc's assembly counts
// it), else <= 0 (a scan of the row pointers); rows all shorter than kThinLevelReads need no pass
// over the entries.
std::string exact_declines(const CsrView &A, int64_t longest_row = 0);
// The rule: a triangle of at least kThinLevelsMin levels whose longest rows read kThinLevelReads
// entries or more each, on average over its levels (r = serial_reads / levels). cuSPARSE's solves
// cost 1.3-2.0 us a level on every case below; ours (tiles, a thread a row) cost about 0.6 us a
// level at r = 2 and grow with r: 1.2 at 9.5, 1.6 at 13, 6.2 at 40. Per-apply times, GMRES +
// ILU(0), one H100 (bench/results/h100/trisolve-thin-levels/):
//   matrix                         levels    r   ours      cuSPARSE's  ours faster
//   2D grid 32 x 32768              32799    2    38.8 ms   113 ms      2.91x
//   2D grid 128 x 8192               8319    2    11.2 ms   32.1 ms     2.87x
//   3D grid 64^3, 3x3 blocks          570   10    2.16 ms   2.32 ms     1.07x
//   snes ex19 512^2 (4 dof)          4092  9.5    10.1 ms   15.4 ms     1.52x (docs/factorizations.md)
//   mesh graph, 1.5 M nonzeros      18257   13    58.7 ms   54.1 ms     0.92x
//   mesh graph, 3x3 blocks, 1.5 M    6165   40    76.4 ms   17.8 ms     0.23x
//   the same, 10 M                  40581   40     506 ms    124 ms     0.24x
//   3D grid + mesh graph, 10 M       6183   40    94.6 ms   16.1 ms     0.17x
// Our numeric ILU(0) (a thread a row, a launch a level) is slower there too: PCSetUp 1.2-19 s
// against cuSPARSE's 0.2-1.0 s on the mesh graphs. kThinLevelsMin keeps small factors (ani4,
// fidapm05: 183 and 16 levels, r 3-7, ours 1.2-2.0x faster) and thick 3D grids (382-766 levels) ours.
constexpr int32_t kThinLevelsMin  = 1000;
constexpr int32_t kThinLevelReads = 12;

// ILU(0) of M's pattern in place, on a backend: the numeric phase of the applies above (for k > 0
// the ILU(k) of A, as the ILU(0) of its fill pattern). Row i eliminates with the rows k < i of its
// lower part, each once final (L's dependencies, so L's levels order the rows), in ilu0_host's
// arithmetic and order: the host, which runs this code in CI, gives ilu0_host's values bit for bit.
// The schedules (-mat_gpuformats_trisolve_factor; measured in ilu0_cuda.cu):
//   levels     L's levels found at construction (level_solve.cuh), then a launch per level
//   graph      those launches from a CUDA graph captured at the first factor (the host: levels)
//   sync_free  one launch, no analysis: a thread a row, rows taken in index order by block
//              tickets, each waiting for the rows it reads (the host: the rows in order)
//   cusparse   cuSPARSE's csrilu02, its analysis at construction (the cuda backend only)
enum class Ilu0Schedule { levels, graph, sync_free, cusparse };
constexpr Ilu0Schedule kIlu0Schedule = Ilu0Schedule::levels; // the default (ilu0_cuda.cu's table)
const char            *ilu0_schedule_name(Ilu0Schedule s);
class Ilu0 {
public:
  // M's pattern in backend memory, rows sorted; Error(bad_input) naming a row without its diagonal
  // (unsupported: cusparse on the host backend). levels, graph: L's level order where known
  // (TriangularApply::lower_level_order, referenced: it must outlive this), else found here.
  // Synchronises.
  Ilu0(int32_t n, int64_t nnz, const int32_t *rowptr, const int32_t *colidx, Backend backend, cudaStream_t stream, Ilu0Schedule schedule = kIlu0Schedule, const int32_t *level_order = nullptr, const std::vector<int32_t> *level_ptr = nullptr);
  ~Ilu0();
  Ilu0(const Ilu0 &)            = delete;
  Ilu0 &operator=(const Ilu0 &) = delete;
  // values (CSR order, backend memory) factored in place; returns the first row whose pivot is
  // zero (or not finite), or -1. Synchronises.
  int32_t      factor(double *values, cudaStream_t stream);
  Ilu0Schedule schedule() const;
  int32_t      levels() const; // levels, graph: L's levels (0 for the others)

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace trisolve
} // namespace gpuformats
