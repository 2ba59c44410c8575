// The SpMV performance model: a calibrated time per candidate format for any
// block of row strips, the model file that holds it per GPU, and the DP cost callback built from it.
//
// Guo, Wang, Chen, "A Performance Modeling and Optimization Analysis Tool for Sparse Matrix-Vector
// Multiplication on GPUs", sections 3-4. What we keep, and what we change and why:
//
//  * Strip size (3.1). One strip = the rows a full load of the GPU holds at one row per thread:
//    S = N_SM x max threads per SM (the paper's S_ELL; H100 132 x 2048 = 270336 rows). The paper's
//    S_CSR (one warp per row) is not used: every candidate here sorts rows and adapts the threads
//    per row, and the DP needs one strip set shared by all candidates.
//
//  * Benchmark matrices (3.2): R = S x I rows, I strips, P_NZ per row, as the paper; we add a
//    row-length spread and a column spread per matrix (examples/gpuformats_calibrate.cpp).
//
//  * The parameterised relationship (3.5). The paper's ELL fit is T = f(I) x P_NZ + g(I) with f, g
//    linear in I (its Fig. 5c, 6). With rows = S x I and nnz = rows x P_NZ that is
//        T = c0 + c1 x rows + c2 x nnz (+ a term in I x P_NZ, which nnz already is),
//    so the paper's model is the first three terms below. Our measurements need three more, each
//    summed over the block's strips s (the block's time is the sum of its strips' work plus one
//    launch cost; the sum keeps every term additive, so a block of strips i..j costs O(1) with
//    prefix sums and no strip is counted twice):
//
//        t(block) = c[0]                                  launch: one set of kernels per block
//                 + c[1] x sum_s rows_s                   per-row work (row pointers, y)
//                 + c[2] x sum_s nnz_s                    the matrix stream (values + columns)
//                 + c[3] x sum_s max_row_s                a strip's longest row, done by one
//                                                         thread/warp: the paper's ELL P_NZ = max
//                                                         row length, per strip (I x P_NZ)
//                 + c[4] x sum_s x_sectors_s              the gather of x: 32-byte sectors fetched
//                 + c[5] x sum_s x_footprint_s            ... the distinct ones, read from DRAM
//
//    Why the two x terms: on the C2050 of the paper the matrix stream bounded SpMV, so nonzeros per
//    row and strips explained the time. On the H100/H200 the gather of x bounds irregular matrices
//    (bench/experiments/gather-bound: on graphs, circuits and random rows the reads of x take
//    75-86% of a CSR product's time, for every type), and neither P_NZ nor I sees it: in the H100
//    calibration (share/gpuformats/models/logs/) 69 M nonzeros of 64 per row over 4 strips take
//    247 us for evchyb with banded columns, 380 us with columns random in a 65536-wide window and
//    614 us random over all columns. Two features explain it:
//      x_sectors   the traffic from the L2 to the SMs: over each group of kSectorGroupRows
//                  consecutive rows (the rows one warp of a row-per-thread kernel gathers for at
//                  once), the distinct 32-byte sectors of x (4 doubles: column / 4) its entries touch,
//                  summed over the strip's groups. A banded row group reads about (rows + band) / 4
//                  sectors, a stencil a few contiguous runs, a random one a sector per entry.
//      x_footprint the traffic from DRAM: the distinct sectors of x the whole strip touches, each
//                  brought into the L2 once while the strip runs (a strip is all the rows in flight
//                  at once). Version 1 of the model charged x_sectors x miss(col_span) instead, the
//                  share of a column span wider than the L2; the span cannot tell columns clustered
//                  in windows (graphs scaled from small ones, circuits, R-MAT: footprint 0.1-0.5 of
//                  x_sectors) from columns uniform over the span (the calibration's random matrices,
//                  about 0.9): it over-predicted those matrices by 50-240% for every format. Refitted
//                  on the same calibration timings, the footprint halved the error on the held-out
//                  default suite (35% to 12% mean on the H100, 28% to 14% on the H200;
//                  bench/results/h200-h100/gpuauto/refit.md).
//    Mean row length is nnz / rows: the c[1] and c[2] terms together are the paper's linear
//    relationship in P_NZ at fixed I.
//
//    Two more terms belong to the one format that declares how its product spends lanes and warps
//    on rows (FormatOps::row_cost, formats/row_cost.hpp), and are fitted for its candidate alone
//    (term_applies); the model counts them from that declaration, never from the format's name:
//
//                 + c[6] x sum_s row_lanes_s              lanes its rows occupy: t x ceil(len / t)
//                 + c[7] x sum_s row_warps_s              warps of its launches: per window, rows of
//                                                         a class share blocks; a wide row its own
//
//    Why, and why for one candidate only: docs/gpuauto.md ("The format's own terms").
//
//    A last term counts the entries of long rows (long_row, below), for every candidate:
//
//                 + c[8] x sum_s long_nnz_s               entries of the strip's long rows: more
//                                                         than kLongRowEntries and kLongRowMeanFactor
//                                                         x the strip's mean (long_row)
//
//    Why: max_row charges a strip's longest row as if one thread or warp read it in turn, but
//    formats cut long rows into pieces that run in parallel (pJDS's long rows and wide blocks, one
//    warp per 1024 entries): pJDS was over-predicted by 40-75% on two rows of millions of entries
//    (long_2x20, long_2x25), and the calibration's hub rows (4 per strip) fitted max_row at about 4
//    times what one row costs. Counting the long rows' entries, refitted on the same calibration
//    timings, brought pJDS's mean error on the held-out default suite from 11.3% to 7.8% (H100) and
//    13.6% to 8.8% (H200), none off by more than 25% (bench/experiments/model-long-rows). "Long"
//    is relative to the strip (long_row): rows of 3000 entries that all rows hold are no outliers,
//    pJDS keeps them in its diagonals, and counting them over-predicted it by 113%.
//
//  * Fitting: least squares on the calibration's timings, each sample weighted by 1/t (relative
//    residuals: times span 10 us to 10 ms and a fit on absolute ones would ignore the small
//    matrices), with every coefficient >= 0 (each term is a cost; a negative one would make a
//    prediction fall as work grows and the DP would split to exploit it). Non-negativity by active
//    set: fit, fix the most negative coefficient at 0, refit the rest, until none is negative.
//
//  * The DP (4, Fig. 11; select/partition.hpp): E[i, j] = min over candidates of t(block i..j);
//    c[0] is the overhead that makes a split pay for itself.
//
// Lower layers never include this header (it sits above core/, formats/ and select/).
#pragma once
#include "core/csr.hpp"
#include "core/hd.hpp"
#include "formats/format.hpp"
#include "formats/partitioned/partitioned.hpp"
#include "select/partition.hpp"

#include <cuda_runtime_api.h> // cudaStream_t (strips_of_device); the header stays plain C++

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpuformats::model {

constexpr int kTerms = 9;
// The format whose FormatOps::row_cost terms 6 and 7 count (null: none, and those terms are 0).
const FormatOps *row_cost_format();
// Term k's name (0 <= k < kTerms): launch rows nnz max_row x_sectors x_footprint, then
// row_cost_format()'s two (own_lanes own_warps without one), then long_nnz. The model file lists
// them and reading checks them.
const char *term_name(int k);
std::vector<std::string> term_names(); // all kTerms of them, in order
// Terms 6 and 7 are fitted for row_cost_format()'s candidate alone (every other candidate's
// coefficients there are 0).
bool term_applies(const std::string &candidate, int term);
// Rows per group in the x_sectors count (one warp of a row-per-thread kernel).
constexpr int32_t kSectorGroupRows = 32;
// A row is long (the long_nnz term) when it holds more than kLongRowEntries entries and more than
// kLongRowMeanFactor times its strip's mean row: pJDS takes such rows out of its diagonals (its
// auto plan, where their padding would be large: rows about as long as their neighbours pad little
// and stay), and one thread reads at most kLongRowEntries entries of a row in turn.
constexpr int32_t kLongRowEntries    = 256;
constexpr int64_t kLongRowMeanFactor = 8;
constexpr bool    long_row(int64_t len, int64_t strip_rows, int64_t strip_nnz) // constexpr: the device's too
{
  return len > kLongRowEntries && len * strip_rows > kLongRowMeanFactor * strip_nnz;
}
constexpr int kModelVersion = 4; // 4: term 8 long_nnz; 3: the row-cost terms 6-7; 2: term 5 is x_footprint (1: x_sectors x miss(col_span))
// The cuSPARSE candidate: cusparseSpMV CSR (CUSPARSE_SPMV_CSR_ALG1) on the plain CSR, which is
// what aijcusparse runs for MatMult.
constexpr const char *kCusparseCsr = "cusparse_csr";

struct Candidate {
  std::string                  name;            // a registered format root ("evchyb") or kCusparseCsr
  std::array<double, kTerms>   coef{};          // seconds per unit of each term, >= 0
  int                          samples = 0;     // calibration timings fitted
  double                       rms_rel_error = 0, max_rel_error = 0; // of the fit, on those timings
};

struct Model {
  int                    version = kModelVersion;
  std::string            gpu;                   // cudaDeviceProp::name at calibration
  int                    sm_count = 0, max_threads_per_sm = 0;
  int64_t                l2_bytes = 0;          // the GPU's L2 (recorded: the terms do not use it since version 2)
  int32_t                strip_rows = 0;        // S = sm_count x max_threads_per_sm
  std::string            note;                  // free text (how it was made); may be empty
  bool                   is_default = false;    // default_model(): not calibrated
  std::vector<Candidate> candidates;            // unique names, at least one
};

// The strip size of section 3.1 for a GPU (>= 1).
int32_t strip_rows_for(int sm_count, int max_threads_per_sm);

// A strip as the model reads it: select's features (rows, nnz, max_row, col_span; mean row length
// nnz / rows) plus the x traffic.
struct Strip {
  select::StripFeatures f;
  int64_t               x_sectors = 0;   // see above
  int64_t               x_footprint = 0; // distinct sectors of x the whole strip touches (below)
  int64_t               row_lanes = 0;   // row_cost_format()'s lanes over the strip's rows (row_lanes)
  int64_t               row_warps = 0;   // its warps: windows from the strip's first row (class_warps, wide_row_warps)
  int64_t               long_nnz = 0;    // entries of the strip's long rows (long_row)
  // offset_shape_format()'s view (format.hpp's OffsetShape): where every entry of the strip lies on
  // the offsets j - i of its first longest row and that row has at most kMaxOffsets entries, ndiag
  // is their count (= f.max_row) and offsets[0..ndiag) the offsets, ascending; else -1 (also where
  // no format declares an OffsetShape, or the strips were computed without the view).
  int32_t                          ndiag = -1;
  std::array<int32_t, kMaxOffsets> offsets{};
};

// The format with one value array per column offset (FormatOps::offset_shape; null: none), and the
// offsets a block of strips takes there by its rule: its block's first longest row's offsets, all
// entries on them, at most max_diags of them and padding at most max_pad_pct % of nnz (the format's
// default parameters). Its product streams ndiag x rows slots, so for its candidate the model's nnz
// term counts those slots; a block it refuses is predicted +inf (never chosen, never fitted).
const FormatOps *offset_shape_format();
// Grows a block one strip at a time (i, then i + 1, ...): ndiag() after each add is that block's.
class OffsetBlock {
public:
  OffsetBlock(); // the limits of offset_shape_format()'s defaults (none: every block refused)
  void    add(const Strip &s);
  int32_t ndiag() const;                   // -1: refused
  bool    refused_for_good() const { return broken_; } // refused, and so is every larger block

private:
  int32_t max_diags_ = 0, max_pad_pct_ = 0, n_ = 0, longest_ = 0;
  bool    broken_ = true;
  int64_t rows_ = 0, nnz_ = 0;
  std::array<int32_t, kMaxOffsets> union_{};
};
// ndiag of the block strips[0..count) (OffsetBlock over them).
int32_t block_diags(const Strip *strips, int count);

// x_footprint: the strip's x working set in 32-byte sectors. x_sectors counts a sector once per
// 32-row group that reads it; the footprint once per strip. Their ratio is the reuse the L2 can
// serve: columns clustered in windows (graphs scaled from small ones, circuits) have a footprint far
// below x_sectors, columns uniform over a span wider than the L2 about the same (bench/results/h200-h100/gpuauto/).
// Counted on the sectors whose hash falls in 1 of footprint_stride(sector_stride) buckets and scaled
// by it: sampling by value keeps a distinct count unbiased (sampling entries would not); exact at 1.
constexpr uint32_t sector_hash(uint32_t s) // constexpr: nvcc runs it on the device too
{
  s ^= s >> 16; // murmur3's finaliser: every input bit moves the low bits the sample reads
  s *= 0x85ebca6bu;
  s ^= s >> 13;
  s *= 0xc2b2ae35u;
  s ^= s >> 16;
  return s;
}
// The power of two at least sector_stride (1 stays 1): the footprint is sampled at about x_sectors' rate.
constexpr int32_t footprint_stride(int32_t sector_stride)
{
  int32_t k = 1;
  while (k < sector_stride && k < (1 << 30)) k <<= 1;
  return k;
}

// x_sectors on a sample of the groups. A strip's groups are heavy where they hold more than
// kHeavyGroupFactor times the strip's mean entries per group (heavy_group), light otherwise. Heavy
// groups are counted every one, exactly; light ones are numbered k = 0, 1, ... in row order within
// the strip and only those with k % stride == 0 are counted, their sum scaled by light groups /
// sampled light groups (rounded down). Stride 1 counts every group (exact).
// Why: the exact count sorts every entry, which on a 100 M-nonzero matrix would cost a good part of
// a build, while a few hundred groups per strip estimate it closely (test_model_features: 0.1% at
// stride 8, 0.3% at 24 on a banded matrix of two H100 strips). A group holding a rare long row
// would count stride times or not at all (a 5-point stencil beside 2 rows of 2.5 M entries: the
// whole matrix's evchyb time predicted 340 us sampled that way, 297 exact, 296 measured), so heavy
// groups are never sampled: they are few (at most 1 / kHeavyGroupFactor of a strip's groups) and
// their entries are those a sample must not miss. A structure that repeats every stride x 32 rows
// exactly can bias the light sample; matrices rarely do. Entries counted for x_sectors stay around
// kSectorSampleEntries (4 M) plus the heavy groups' entries.
constexpr int64_t kSectorSampleEntries = int64_t(1) << 22;
constexpr int64_t kHeavyGroupFactor    = 4;
// The stride for a matrix of nnz entries: max(1, ceil(nnz / kSectorSampleEntries)).
int32_t sector_stride(int64_t nnz);
// Whether a group of `entries` is heavy in a strip of `groups` groups and strip_nnz entries
// (entries <= 2^31, groups <= 2^26: no overflow).
constexpr bool heavy_group(int64_t entries, int64_t groups, int64_t strip_nnz)
{
  return entries * groups > kHeavyGroupFactor * strip_nnz;
}
// A strip's x_sectors from the distinct sectors summed over its heavy groups and over its sampled
// light groups, and its count of light groups (stride >= 1). The one definition of the scaling,
// for strips_of and the device template (features_device.cuh): constexpr, so nvcc
// (--expt-relaxed-constexpr) runs it on the device too.
constexpr int64_t sampled_x_sectors(int64_t heavy_sum, int64_t light_sum, int64_t light_groups, int32_t stride)
{
  const int64_t sampled = (light_groups + stride - 1) / stride; // k = 0, stride, 2 stride, ... < light_groups
  return heavy_sum + (sampled > 0 ? light_sum * light_groups / sampled : 0); // <= nnz x 2^26: no overflow
}

// The strips of A, strip_rows rows each (the last may be shorter), computed on the host; x_sectors
// on every sector_stride-th group (1: all, exact). strip_rows >= 1, sector_stride >= 1, else
// Error(bad_input). offset_view false skips the offset layout's view (ndiag -1 everywhere): a choice
// without that layout among its candidates saves its pass over the entries.
std::vector<Strip> strips_of(const CsrView &A, int32_t strip_rows, int32_t sector_stride = 1, bool offset_view = true);
// The same strips, equal field by field, from a CSR in device memory (rowptr: nrows + 1 entries,
// colidx: nnz, columns sorted within each row as CsrView guarantees), with Thrust on `stream`
// (features_device.cuh, features_cuda.cu): the features of a matrix being built come from the CSR
// already uploaded for the build, in O(nrows) plus the sampled entries (a sort of those only).
// Synchronises the stream before returning. Throws Error: bad_input (strip_rows or sector_stride
// < 1), out_of_memory, device (any other CUDA or Thrust failure).
std::vector<Strip> strips_of_device(const int32_t *rowptr, const int32_t *colidx, int32_t nrows, int32_t ncols, int64_t nnz, int32_t strip_rows, int32_t sector_stride, cudaStream_t stream, bool offset_view = true);

// The kTerms terms of a block, summed over its strips (l2_bytes >= 0).
std::array<double, kTerms> block_terms(const Strip *strips, int count, int64_t l2_bytes);
// The terms candidate `name` is predicted from: block_terms, but for offset_shape_format() the nnz
// term holds its slots; false where that format refuses the block.
bool candidate_terms(const std::string &name, const Strip *strips, int count, int64_t l2_bytes, std::array<double, kTerms> &terms);
// t(block) for model.candidates[candidate] over strips[0..count); +inf where its rule refuses the
// block (offset_shape_format()).
double predict(const Model &m, int candidate, const Strip *strips, int count);
inline double predict(const Model &m, int candidate, const std::vector<Strip> &strips)
{
  return predict(m, candidate, strips.data(), (int)strips.size());
}
// Index of a candidate by name, -1 if the model has none of that name.
int find_candidate(const Model &m, const std::string &name);

// The cost callback of select::partition_strips over `strips` (copied into prefix sums): cost(i, j, &fmt) = min over candidates of t(strips i..j), fmt its candidate index
// (ties: the lower index). O(candidates) per call after an O(strips) prefix sum here.
std::function<double(int, int, int *)> dp_cost(const Model &m, const std::vector<Strip> &strips);

// --- fitting --------------------------------------------------------------------------------------

// Least squares min_c sum_k w_k^2 (X_k . c - y_k)^2 subject to c >= 0 (see above), by normal
// equations in long double over the kTerms columns (a column that is all zero gets 0). Needs at
// least one sample; throws Error(bad_input) when X, y, w disagree in size or hold non-finite values.
std::array<double, kTerms> fit_nonnegative(const std::vector<std::array<double, kTerms>> &X, const std::vector<double> &y, const std::vector<double> &w);

// One calibration timing: the matrix's strips and the measured seconds of one product.
struct Sample {
  std::vector<Strip> strips;
  double             seconds = 0;
};
// Fits a candidate on its samples (weights 1/t) and sets coef, samples and the relative errors;
// samples whose block the candidate's rule refuses are left out (samples counts those fitted).
Candidate fit_candidate(const std::string &name, const std::vector<Sample> &samples, int64_t l2_bytes);

// --- the model file ---------------------------------------------------------------------------------
//
//   { "kind": "gpuformats-spmv-model", "version": 4, "gpu": "NVIDIA H100 80GB HBM3",
//     "sm_count": 132, "max_threads_per_sm": 2048, "l2_bytes": 52428800, "strip_rows": 270336,
//     "note": "...", "terms": ["launch", "rows", "nnz", "max_row", "x_sectors", "x_footprint",
//     <term_name(6)>, <term_name(7)>, "long_nnz"],
//     "candidates": [ { "name": "evchyb", "coef": [9 numbers, seconds per unit], "samples": 48,
//                       "rms_rel_error": 0.08, "max_rel_error": 0.3 }, ... ] }
//
// Numbers are written with 17 significant digits, so a read gives back the same doubles.
std::string to_json(const Model &m);
void        write_model(const Model &m, const std::string &path); // Error(bad_input) if it cannot write
// Error(bad_input) naming the file (`name`) and what is wrong: not JSON, another kind, a version
// other than kModelVersion, a missing or mistyped field, terms other than term_name's, a coefficient
// count other than kTerms, a negative or non-finite coefficient, no candidates, a duplicate name,
// strip_rows not sm_count x max_threads_per_sm.
Model from_json(const std::string &text, const std::string &name);
Model read_model(const std::string &path);

// --- picking a model per GPU ------------------------------------------------------------------------
//
// Files live in <dir>/<model_file_name(gpu)>; the committed ones in share/gpuformats/models/ of the
// source tree (installed as <prefix>/share/gpuformats/models/).

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3.json": lower case, runs of anything but
// letters and digits -> '-', no leading or trailing '-'.
std::string model_file_name(const std::string &gpu_name);
// The directories searched, in order: $GPUFORMATS_MODEL_DIR if set, then share/gpuformats/models
// beside the binary holding this code (<dir of the .so or executable>/../share/gpuformats/models).
std::vector<std::string> model_dirs();

// The uncalibrated fallback: one candidate, cuSPARSE CSR (so never slower than aijcusparse), with
// nominal coefficients (a launch of 5 us, 12 bytes per nonzero and 8 per row at 2 TB/s); with one
// candidate and a launch cost the DP never splits. is_default = true.
Model default_model();

// The model for `gpu_name`: the first <dir>/<model_file_name> found in `dirs` (read_model: a bad
// file is an error, never silently replaced). None found: Error(unsupported) whose message names
// the GPU, the files looked for and how to calibrate (kCalibrateHint).
// *path (if not null): the file read.
Model find_model(const std::string &gpu_name, const std::vector<std::string> &dirs, std::string *path = nullptr);
// find_model, but for an unknown GPU default_model() with that message in *message (else cleared).
// *path as find_model's (cleared for the default).
Model model_or_default(const std::string &gpu_name, const std::vector<std::string> &dirs, std::string *message, std::string *path = nullptr);
constexpr const char *kCalibrateHint = "calibrate this GPU with `bin/gpuformats_calibrate -o <dir>/<file>` (a minute or two) "
                                       "and point -mat_gpuauto_model <file> or GPUFORMATS_MODEL_DIR=<dir> at it";

// --- the device (src/model/measure_cuda.cu) ---------------------------------------------------------

struct DeviceInfo {
  std::string name;
  int         device = 0, sm_count = 0, max_threads_per_sm = 0, cc_major = 0, cc_minor = 0;
  int64_t     l2_bytes = 0, memory_bytes = 0;
};
// False with the reason (no driver, no device, a CUDA error) when no CUDA device can be used.
bool device_info(DeviceInfo *info, std::string *why);

// Median seconds of `reps` products y = A x (after `warmup` untimed ones) of candidate `name` (a
// registered format root with its default parameters, or kCusparseCsr) built on the device from A,
// timed with CUDA events on one stream. *max_rel_error (if not null): ||y - y_host|| / ||y_host||
// against csr_spmv_host, x fixed and non-trivial. Throws Error (unsupported where the format
// refuses the matrix, device on CUDA/cuSPARSE errors, bad_input for an unknown name).
double measure_spmv(const CsrView &A, const std::string &name, int reps, int warmup, double *rel_error);
// The same for A partitioned into `parts` (formats/partitioned), each in its format, the parts one
// after another or at once.
double measure_partitioned(const CsrView &A, const std::vector<partitioned::Part> &parts, bool concurrent, int reps, int warmup, double *rel_error);

} // namespace gpuformats::model
