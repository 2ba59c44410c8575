// bench_spmv: the SpMV benchmark every performance claim of gpuformats is read from.
//
// For each matrix (a generator spec, a .mtx file or a PETSc binary file; one with -matrix or a list
// with -suite) it builds a host MATAIJ, then for each type asked for (-types):
//   setup    MatConvert(A, type, MAT_INITIAL_MATRIX, &B) + a first MatMult, synchronized
//            (= first conversion including upload), also in units of one SpMV
//   check    y = B x against the host AIJ product, relative 2-norm error
//   SpMV     MatMult timed with CUDA events on PETSc's stream after warm-up (host clock for host
//            types), median of -reps (>= 20), x rotating among -nx (>= 4) vectors; also the mean of
//            -reps back-to-back products
//   refresh  values-only change with the same pattern (new values written into B's host AIJ
//            arrays, or MatSetValues + assembly where B is not an AIJ), timed as
//            (refresh + MatMult) - median MatMult, also in SpMV units, and checked again
//   device   for gpuformats types on the GPU, setup and refresh split by the library's CUDA events
//            (MatGPUFormatsGetLastTimes) into the upload from host memory and the device work after
//            it (the build; the scatter through the slot map), the latter also in SpMV units
//   transp.  with -transpose, MatMultTranspose: the first one (it may build a transposed layout),
//            then timed like the SpMV (x fixed), checked against the host A^T x
//   bytes    device bytes of the stored format (MatGPUFormatsGetBytes for ours) vs CSR bytes
//            12*nnz + 4*(nrows+1)
//   model    with the SpMV model (-model <file>, else this GPU's found by name; one rank): per
//            matrix its strips, every candidate's predicted time and the DP partition; per type the
//            prediction for the candidate it runs (ours by name, aijcusparse = cuSPARSE CSR ALG1,
//            gpuauto = its choice, read from its view) and the error against the median
// Rates: GFLOP/s = 2*nnz/t; GB/s under the minimal CSR traffic model
// 12*nnz + 4*(nrows+1) + 8*ncols + 8*nrows; % of a copy kernel's bandwidth measured in the same run.
// Output: a table on stdout as it goes, and a JSON file (-json) rewritten after every matrix.
//
// Types: PETSc's (aij, aijcusparse, sellcuda, ...) and gpuformats' (evchyb, pjds, pellr, suraa, from
// the library this program links, or the plugin loaded with -dll_append). A type may carry options:
// aijcusparse:alg1 / aijcusparse:alg2 set -mat_cusparse_spmv_alg CSRMV_ALG1 / CSRMV_ALG2;
// type:-option=value[:-option=value] sets any option while that type is measured (applied with
// MatSetFromOptions after MatConvert, inside the setup time); ours take :scalar / :block / :auto for
// -mat_gpuformats_block (evchyb:scalar beside evchyb shows the block layout's gain on a matrix with
// a block size). A type that fails to convert or multiply is reported as "n/a: <reason>" and the
// run goes on.
//
// Block sizes: a generator's block size (blockstencil3d, blockfem, blocksize=) is set on the AIJ
// with MatSetBlockSize, so our types choose their block layout (BELL) as in an application; the
// JSON records it per matrix and, per gpuformats type, the layout taken (from -mat_view ::ascii_info).
// cusparse:bsr / cusparse:bsrmv, on a matrix with a block size of 2 or more and one rank: cuSPARSE's
// BSR (converted on the device by csr2bsr) multiplied by cusparseSpMV BSR_ALG1 / cusparseDbsrmv,
// raw library calls timed like the types (so without PETSc's MatMult overhead), checked alike.
//
// CUDA is touched only when a type other than PETSc's host types is asked for, so
// `-types aij` (and gpuformats types on their host backend) runs on a machine without a GPU.
#include "bench_spmv_kernels.hpp"
#include "formats/format.hpp"
#include "matgen/generators.hpp"
#include "matgen/matrix_market.hpp"
#include "model/model.hpp"
#include <nlohmann/json.hpp>
#include "../test/common/petsc_csr.hpp" // the matrix sources, shared with bin/test/ksp_matrix

#include <gpuformats.h>
#include <petscdevice_cuda.h>
#include <petscmat.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static_assert(sizeof(PetscInt) == sizeof(int32_t), "bench_spmv needs PETSc with 32-bit indices");
static_assert(sizeof(PetscScalar) == sizeof(double), "bench_spmv needs PETSc with real double scalars");

namespace {

// ---------------------------------------------------------------------------------------------
// small utilities

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v)
{
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
double mean(const std::vector<double> &v)
{
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / (double)v.size();
}
// The larger of two errors, NaN if either is (a NaN result must not hide behind a good one).
double worst(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

std::string trim(const std::string &s)
{
  const size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
bool starts_with(const std::string &s, const std::string &t) { return s.compare(0, t.size(), t) == 0; }

std::vector<std::string> split(const std::string &s, char sep)
{
  std::vector<std::string> out;
  std::stringstream        ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!trim(item).empty()) out.push_back(trim(item));
  return out;
}

// x entries: a pure function of (seed, vector, global index), in [-1, 1].
double x_value(uint64_t seed, int k, int64_t i)
{
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)k << 48) ^ (uint64_t)i;
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
}

// The values-only change used to time refreshes: a different factor for every entry (not one common
// factor), so stale, misplaced or partly refreshed values all show in the product.
double refreshed_value(double v) { return v * (1.25 - 0.25 * v); }

// The JSON output (nlohmann/json; members in the order added). NaN and Inf are null.
using Json = nlohmann::ordered_json;
Json jnum(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }
// {"k": v, ...}, built by chained add()s
struct JObj {
  Json  j = Json::object();
  JObj &add(const std::string &k, Json v)
  {
    j[k] = std::move(v);
    return *this;
  }
};

// The first PETSc error message while a type is measured (the error handler below records it).
std::string g_error;
PetscErrorCode record_error(MPI_Comm, int, const char *fun, const char *, PetscErrorCode n, PetscErrorType p, const char *mess, void *)
{
  if (p == PETSC_ERROR_INITIAL && g_error.empty()) {
    const char *text = nullptr;
    if (!mess || !*mess) PetscErrorMessage(n, &text, nullptr);
    g_error = std::string(mess && *mess ? mess : (text ? text : "PETSc error")) + " [in " + (fun ? fun : "?") + "]";
    for (char &c : g_error)
      if (c == '\n') c = ' ';
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// what to measure

struct TypeEntry {
  std::string                                      label, type;
  std::string                                      cusparse; // type "cusparse": "bsr" or "bsrmv"
  std::vector<std::pair<std::string, std::string>> options; // set while this type is measured
};

PetscErrorCode parse_types(const std::string &list, std::vector<TypeEntry> &out)
{
  PetscFunctionBegin;
  for (const std::string &item : split(list, ',')) {
    TypeEntry                t;
    std::vector<std::string> parts = split(item, ':');
    PetscCheck(!parts.empty(), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "empty type in -types");
    t.label = item;
    t.type  = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string &v = parts[i];
      if (t.type == "cusparse") {
        PetscCheck((v == "bsr" || v == "bsrmv") && parts.size() == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "'%s': the cuSPARSE baselines are cusparse:bsr (cusparseSpMV BSR_ALG1) and cusparse:bsrmv (cusparseDbsrmv)", item.c_str());
        t.cusparse = v;
      } else if (v == "alg1" || v == "alg2") t.options.emplace_back("-mat_cusparse_spmv_alg", v == "alg1" ? "CSRMV_ALG1" : "CSRMV_ALG2");
      else if (v == "scalar" || v == "block" || v == "auto") t.options.emplace_back("-mat_gpuformats_block", v);
      else if (starts_with(v, "-")) {
        const size_t eq = v.find('=');
        t.options.emplace_back(v.substr(0, eq), eq == std::string::npos ? std::string() : v.substr(eq + 1));
      } else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "type variant '%s' in '%s': use alg1, alg2, scalar, block, auto or -option=value", v.c_str(), item.c_str());
    }
    PetscCheck(t.type != "cusparse" || !t.cusparse.empty(), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "'cusparse' alone is not a type: cusparse:bsr or cusparse:bsrmv");
    out.push_back(t);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// PETSc's own host types: measured without ever touching CUDA.
bool is_host_type(const std::string &t)
{
  static const char *host[] = {"aij", "seqaij", "mpiaij", "sell", "seqsell", "mpisell", "baij", "seqbaij", "mpibaij", "aijperm", "seqaijperm", "mpiaijperm", "aijsell", "seqaijsell", "mpiaijsell", "aijmkl", "seqaijmkl", "mpiaijmkl"};
  for (const char *h : host)
    if (t == h) return true;
  return false;
}

struct MatrixEntry {
  std::string label, spec;
};

// Suite file: one matrix per line, "label spec" or just "spec"; '#' starts a comment.
PetscErrorCode read_suite(const std::string &path, std::vector<MatrixEntry> &out)
{
  std::ifstream in(path);

  PetscFunctionBegin;
  PetscCheck(in, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "cannot open suite file %s", path.c_str());
  for (std::string line; std::getline(in, line);) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const size_t sp = line.find_first_of(" \t");
    if (sp == std::string::npos) out.push_back({line, line});
    else out.push_back({line.substr(0, sp), trim(line.substr(sp))});
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// the matrix and its host reference

struct HostMatrix {
  Mat                               A = nullptr;
  int64_t                           nrows = 0, ncols = 0, nnz = 0;
  int64_t                           block_size = 1; // MatGetBlockSize of the AIJ
  int64_t                           row_min = 0, row_max = 0, empty_rows = 0;
  double                            row_mean = 0, row_std = 0;
  double                            load_s = 0, assemble_s = 0;
  std::string                       source; // generated / matrix market / petsc binary
  Vec                               xh = nullptr, yh = nullptr;
  std::vector<std::vector<double>>  yref;           // A x_k, local part
  std::vector<double>               yref_refreshed; // A' x_0, A' = refreshed values
  std::vector<double>               ytref;          // A^T x_0 (with -transpose)
  std::vector<std::vector<double>>  orig_values, new_values; // per AIJ block (seq: 1, mpi: diag, offd)
};

// The value arrays of a host AIJ (seq: itself; mpi: diagonal and off-diagonal blocks).
PetscErrorCode aij_blocks(Mat A, std::vector<Mat> &blocks)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  blocks.clear();
  if (size == 1) blocks.push_back(A);
  else {
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    blocks.push_back(Ad);
    blocks.push_back(Ao);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode set_aij_values(Mat A, const std::vector<std::vector<double>> &vals)
{
  std::vector<Mat> blocks;

  PetscFunctionBegin;
  PetscCall(aij_blocks(A, blocks));
  for (size_t b = 0; b < blocks.size(); ++b) {
    PetscScalar *a;
    PetscCall(MatSeqAIJGetArray(blocks[b], &a));
    std::copy(vals[b].begin(), vals[b].end(), a);
    PetscCall(MatSeqAIJRestoreArray(blocks[b], &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode fill_x(Vec x, uint64_t seed, int k)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt i = lo; i < hi; ++i) a[i - lo] = x_value(seed, k, i);
  PetscCall(VecRestoreArrayWrite(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Relative 2-norm error of y against a host reference (local parts; reduced over ranks).
PetscErrorCode rel_error(Vec y, const std::vector<double> &ref, double *err)
{
  const PetscScalar *a;
  PetscInt           n;
  double             loc[2] = {0, 0}, glob[2];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(y, &n));
  PetscCheck((size_t)n == ref.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference size mismatch");
  PetscCall(VecGetArrayRead(y, &a));
  for (PetscInt i = 0; i < n; ++i) {
    const double d = a[i] - ref[i];
    loc[0] += d * d;
    loc[1] += ref[i] * ref[i];
  }
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)y)));
  *err = glob[1] > 0 ? std::sqrt(glob[0] / glob[1]) : std::sqrt(glob[0]);
  if (std::isnan(glob[0])) *err = NAN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode load_matrix(const MatrixEntry &e, uint64_t seed, HostMatrix &M)
{
  const std::string &s = e.spec;
  double             t0 = now_s();

  PetscFunctionBegin;
  if (gftest::is_petsc_binary(s)) {
    PetscViewer v;
    M.source = "petsc binary";
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, s.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &M.A));
    PetscCall(MatSetType(M.A, MATAIJ));
    PetscCall(MatLoad(M.A, v));
    PetscCall(PetscViewerDestroy(&v));
    M.load_s = now_s() - t0;
  } else {
    gpuformats::CsrMatrix G;
    M.source = gftest::ends_with(s, ".mtx") ? "matrix market" : "generated";
    PetscCall(gftest::read_csr(s, seed, G));
    M.load_s = now_s() - t0;
    t0       = now_s();
    PetscCall(gftest::aij_from_csr(G, &M.A));
    M.assemble_s = now_s() - t0;
  }
  // sizes and row-length statistics from the assembled AIJ (whatever its source)
  PetscInt M_, N_, rstart, rend;
  MatInfo  info;
  PetscCall(MatGetSize(M.A, &M_, &N_));
  PetscCall(MatGetInfo(M.A, MAT_GLOBAL_SUM, &info));
  M.nrows = M_;
  M.ncols = N_;
  M.nnz   = (int64_t)info.nz_used;
  {
    PetscInt bs;
    PetscCall(MatGetBlockSize(M.A, &bs));
    M.block_size = bs;
  }
  PetscCall(MatGetOwnershipRange(M.A, &rstart, &rend));
  double loc[3] = {1e300, 0, 0}, glob[3], sum2 = 0, gsum2, empty = 0, gempty;
  for (PetscInt i = rstart; i < rend; ++i) {
    PetscInt nc;
    PetscCall(MatGetRow(M.A, i, &nc, NULL, NULL));
    empty += nc == 0;
    loc[0] = std::min(loc[0], (double)nc);
    loc[1] = std::max(loc[1], (double)nc);
    sum2 += (double)nc * nc;
    PetscCall(MatRestoreRow(M.A, i, &nc, NULL, NULL));
  }
  PetscCallMPI(MPIU_Allreduce(&loc[0], &glob[0], 1, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&loc[1], &glob[1], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&sum2, &gsum2, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&empty, &gempty, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  M.empty_rows = (int64_t)gempty;
  M.row_min  = M.nrows ? (int64_t)glob[0] : 0;
  M.row_max  = (int64_t)glob[1];
  M.row_mean = M.nrows ? (double)M.nnz / (double)M.nrows : 0;
  M.row_std  = M.nrows ? std::sqrt(std::max(0.0, gsum2 / (double)M.nrows - M.row_mean * M.row_mean)) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Host products A x_k, A^T x_0 (if asked), and A' x_0 with the refreshed values (A is left with its original values).
PetscErrorCode host_reference(HostMatrix &M, uint64_t seed, int nx, bool transpose)
{
  std::vector<Mat> blocks;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M.A, &M.xh, &M.yh));
  M.yref.assign(nx, {});
  for (int k = 0; k < nx; ++k) {
    const PetscScalar *a;
    PetscInt           n;
    PetscCall(fill_x(M.xh, seed, k));
    PetscCall(MatMult(M.A, M.xh, M.yh));
    PetscCall(VecGetLocalSize(M.yh, &n));
    PetscCall(VecGetArrayRead(M.yh, &a));
    M.yref[k].assign(a, a + n);
    PetscCall(VecRestoreArrayRead(M.yh, &a));
  }
  PetscCall(aij_blocks(M.A, blocks));
  M.orig_values.clear();
  M.new_values.clear();
  for (Mat b : blocks) {
    const PetscScalar *a;
    PetscInt           nz;
    MatInfo            info;
    PetscCall(MatGetInfo(b, MAT_LOCAL, &info));
    nz = (PetscInt)info.nz_used;
    PetscCall(MatSeqAIJGetArrayRead(b, &a));
    M.orig_values.emplace_back(a, a + nz);
    PetscCall(MatSeqAIJRestoreArrayRead(b, &a));
    std::vector<double> nv(M.orig_values.back());
    for (double &v : nv) v = refreshed_value(v);
    M.new_values.push_back(std::move(nv));
  }
  if (transpose) {
    Vec                xt, yt;
    const PetscScalar *a;
    PetscInt           n;
    PetscCall(MatCreateVecs(M.A, &yt, &xt));
    PetscCall(fill_x(xt, seed, 0));
    PetscCall(MatMultTranspose(M.A, xt, yt));
    PetscCall(VecGetLocalSize(yt, &n));
    PetscCall(VecGetArrayRead(yt, &a));
    M.ytref.assign(a, a + n);
    PetscCall(VecRestoreArrayRead(yt, &a));
    PetscCall(VecDestroy(&xt));
    PetscCall(VecDestroy(&yt));
  }
  PetscCall(set_aij_values(M.A, M.new_values));
  {
    const PetscScalar *a;
    PetscInt           n;
    PetscCall(fill_x(M.xh, seed, 0));
    PetscCall(MatMult(M.A, M.xh, M.yh));
    PetscCall(VecGetLocalSize(M.yh, &n));
    PetscCall(VecGetArrayRead(M.yh, &a));
    M.yref_refreshed.assign(a, a + n);
    PetscCall(VecRestoreArrayRead(M.yh, &a));
  }
  PetscCall(set_aij_values(M.A, M.orig_values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode destroy_host(HostMatrix &M)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&M.A));
  PetscCall(VecDestroy(&M.xh));
  PetscCall(VecDestroy(&M.yh));
  M = HostMatrix{};
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// one type on one matrix

struct Settings {
  int         reps = 20, host_reps = 20, warmup = 5, nx = 4, refresh_reps = 3;
  uint64_t    seed    = 1;
  double      tol     = 1e-10;
  bool        gpu     = false; // a CUDA device is in use for this run
  bool        transpose = false; // also time MatMultTranspose
  bool        halo_view = false; // print each mpi type's halo lines of -mat_view ::ascii_info after its timing
  double      copy_gbs = NAN, host_copy_gbs = NAN;
  PetscMPIInt size = 1, rank = 0;
};

struct TypeResult {
  std::string status = "n/a", reason, where, type_name, refresh_method, bytes_source;
  double      convert_s = NAN, first_mult_s = NAN, setup_s = NAN;
  double      relerr = NAN, relerr_refresh = NAN;
  double      spmv_median_s = NAN, spmv_min_s = NAN, spmv_max_s = NAN, spmv_mean_s = NAN, b2b_mean_s = NAN;
  double      refresh_s = NAN, refresh_total_s = NAN;
  double      setup_upload_s = NAN, setup_device_s = NAN, refresh_upload_s = NAN, refresh_device_s = NAN; // gpuformats on the GPU
  double      bytes = NAN;
  double      t_first_s = NAN, t_median_s = NAN, t_b2b_mean_s = NAN, relerr_t = NAN; // MatMultTranspose (-transpose)
  int         reps = 0, refresh_reps = 0;
  std::string layout, layout_reason;                                 // gpuformats types: block | scalar | mixed, and why
  std::string halo;                                                  // gpuformats mpi types: the halo exchange used
  double      halo_s = NAN, halo_local_s = NAN, halo_exposed_s = NAN; // per product, mean over ranks (-mat_gpuformats_halo_measure)
  std::string gpuauto_choice;                                        // gpuauto: the candidate it built (from its view)
  double      gpuauto_predicted_us = NAN;                            // ... and its own prediction
  double      gpuauto_choice_ms    = NAN;                            // ... and what the choice cost (features, predictions, DP; its view's "the choice took")
};

struct TypeObjects {
  Mat              B = nullptr;
  std::vector<Vec> x;
  Vec              y = nullptr;
  ~TypeObjects()
  {
    for (Vec &v : x) (void)VecDestroy(&v);
    (void)VecDestroy(&y);
    (void)MatDestroy(&B);
  }
};

// Times one action: CUDA events on PETSc's stream for device types, host clock otherwise; with
// several ranks every rank waits for the others first and the slowest rank's time is taken.
class Timer {
public:
  Timer(bool device, PetscMPIInt size) : device_(device), size_(size)
  {
    if (device_) ev_ = new BenchEventTimer;
  }
  ~Timer() { delete ev_; }
  PetscErrorCode start()
  {
    PetscFunctionBegin;
    if (size_ > 1) PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    if (device_) {
      cudaStream_t s;
      PetscCall(PetscGetCurrentCUDAStream(&s));
      ev_->start((void *)s);
    } else t0_ = now_s();
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode stop(double *t)
  {
    PetscFunctionBegin;
    if (device_) {
      cudaStream_t s;
      PetscCall(PetscGetCurrentCUDAStream(&s));
      *t = ev_->stop((void *)s);
    } else *t = now_s() - t0_;
    if (size_ > 1) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

private:
  bool             device_;
  PetscMPIInt      size_;
  BenchEventTimer *ev_ = nullptr;
  double           t0_ = 0;
};

// reps products timed one by one (times), then reps back to back (*b2b_mean: their mean).
// product(r) runs the r-th product.
template <class Product>
PetscErrorCode time_products(Timer &timer, int reps, Product product, std::vector<double> &times, double *b2b_mean)
{
  double t;

  PetscFunctionBegin;
  times.clear();
  for (int r = 0; r < reps; ++r) {
    PetscCall(timer.start());
    PetscCall(product(r));
    PetscCall(timer.stop(&t));
    times.push_back(t);
  }
  PetscCall(timer.start());
  for (int r = 0; r < reps; ++r) PetscCall(product(r));
  PetscCall(timer.stop(&t));
  *b2b_mean = t / reps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Waits until everything queued on the device is done (all streams), and for all ranks.
PetscErrorCode sync_all(const Settings &S)
{
  PetscFunctionBegin;
  if (S.gpu) bench_device_synchronize();
  if (S.size > 1) PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The upload and device parts of B's last build and refresh (MatGPUFormatsGetLastTimes, per rank:
// both blocks of an mpi type summed), the slowest rank's; NaN where not measured (host backend,
// or not a gpuformats type).
PetscErrorCode device_times(Mat B, double *build_upload, double *build_device, double *refresh_upload, double *refresh_device)
{
  PetscReal t[4] = {-1, -1, -1, -1};
  PetscBool ours;

  PetscFunctionBegin;
  PetscCall(MatGPUFormatsIsType(B, &ours));
  if (ours) PetscCall(MatGPUFormatsGetLastTimes(B, &t[0], &t[1], &t[2], &t[3]));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 4, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)B)));
  double *out[4] = {build_upload, build_device, refresh_upload, refresh_device};
  for (int i = 0; i < 4; ++i)
    if (out[i]) *out[i] = t[i] < 0 ? NAN : t[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

// True when B stores its values as a SeqAIJ (PETSc's AIJ subclasses, and gpuformats' seq types):
// then MatSeqAIJGetArray/RestoreArray is the cheapest values-only change.
PetscErrorCode is_seqaij_like(Mat B, PetscBool *flg)
{
  const char *name;
  PetscMPIInt size;
  PetscBool   ours;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  PetscCall(MatGetType(B, &name));
  PetscCall(MatGPUFormatsIsType(B, &ours));
  *flg = (size == 1 && (starts_with(name, "seqaij") || ours)) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Writes values `vals` (A's layout) into B: through B's AIJ arrays, or MatSetValues row by row
// (then the assembly, which may do the refresh, is left for the caller to time).
PetscErrorCode write_values(HostMatrix &M, Mat B, bool array_path, const std::vector<std::vector<double>> &vals)
{
  PetscFunctionBegin;
  if (array_path) {
    PetscScalar *a;
    PetscCall(MatSeqAIJGetArray(B, &a));
    std::copy(vals[0].begin(), vals[0].end(), a);
    PetscCall(MatSeqAIJRestoreArray(B, &a));
  } else {
    PetscInt rstart, rend;
    PetscCall(set_aij_values(M.A, vals)); // A carries the values for a moment; rows read back
    PetscCall(MatGetOwnershipRange(M.A, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; ++i) {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *v;
      PetscCall(MatGetRow(M.A, i, &nc, &cols, &v));
      PetscCall(MatSetValues(B, 1, &i, nc, cols, v, INSERT_VALUES));
      PetscCall(MatRestoreRow(M.A, i, &nc, &cols, &v));
    }
    PetscCall(set_aij_values(M.A, M.orig_values));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// B's -mat_view ::ascii_info text (rank 0 receives every rank's lines).
PetscErrorCode view_info(Mat B, std::string *out)
{
  char       *text = nullptr;
  size_t      len  = 0;
  FILE       *f    = open_memstream(&text, &len);
  PetscViewer v;

  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_SYS, "open_memstream failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(PetscObjectComm((PetscObject)B), f, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(B, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v)); // leaves f open (ASCIIOpenWithFILE)
  fclose(f);
  *out = text ? std::string(text, len) : std::string();
  free(text);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The layout a gpuformats matrix took, read from its view text (view_info): each built block
// prints one "... stored slots (...)" line, whose layout name is "bell (block layout, bs N)" for
// the block layout and "dia (stencil layout)" for the stencil layout; "block" or "stencil" when
// every block is, "scalar" when none is either, else "mixed". reason: the
// first "(-mat_gpuformats_block ...)" line, past its label.
void layout_of(const std::string &text, std::string *layout, std::string *reason)
{
  std::stringstream in(text);
  int               blocks = 0, block_layout = 0, stencil_layout = 0;
  reason->clear();
  for (std::string line; std::getline(in, line);) {
    if (line.find(" stored slots (") != std::string::npos) {
      ++blocks;
      if (line.find("(block layout, bs ") != std::string::npos) ++block_layout;
      if (line.find("(stencil layout)") != std::string::npos) ++stencil_layout;
    }
    if (reason->empty() && line.find("(-mat_gpuformats_block ") != std::string::npos) *reason = trim(line.substr(line.find(": ") == std::string::npos ? 0 : line.find(": ") + 2));
  }
  if (blocks == 0) *layout = "unknown";
  else if (block_layout == blocks) *layout = "block";
  else if (stencil_layout == blocks) *layout = "stencil";
  else *layout = block_layout + stencil_layout == 0 ? "scalar" : "mixed";
}

// What gpuauto chose, from its view text: every block it built prints
// "  gpuauto: chose <name> (predicted <x> us ...". *choice: the name, the names joined by '+' where
// the blocks differ, "" where no such line is; *predicted_us: gpuauto's own prediction (summed over
// the blocks), NaN where the line has none; *choice_ms: the choice's cost inside the build (summed).
void gpuauto_choice_of(const std::string &text, std::string *choice, double *predicted_us, double *choice_ms)
{
  std::stringstream        in(text);
  std::vector<std::string> names;
  double                   us = 0;
  bool                     have_us = false;
  double                   ms = 0;
  bool                     have_ms = false;
  const std::string        key = "gpuauto: chose ", took = "the choice took ";
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(key);
    if (at == std::string::npos) continue;
    std::string name = line.substr(at + key.size());
    name             = name.substr(0, name.find_first_of(" \t(,;"));
    if (name.empty()) continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    const size_t p = line.find("(predicted ", at);
    if (p != std::string::npos) {
      char        *end = nullptr;
      const char  *num = line.c_str() + p + 11;
      const double v   = std::strtod(num, &end);
      if (end != num && std::isfinite(v)) us += v, have_us = true;
    }
    const size_t q = line.find(took, at);
    if (q != std::string::npos) {
      char        *end = nullptr;
      const char  *num = line.c_str() + q + took.size();
      const double v   = std::strtod(num, &end);
      if (end != num && std::isfinite(v)) ms += v, have_ms = true;
    }
  }
  choice->clear();
  for (size_t i = 0; i < names.size(); ++i) *choice += (i ? "+" : "") + names[i];
  *predicted_us = have_us ? us : NAN;
  *choice_ms    = have_ms ? ms : NAN;
}

// The cuSPARSE BSR baseline (cusparse:bsr, cusparse:bsrmv): setup = upload + csr2bsr (+ the
// generic API's descriptors and buffer) + the first product; products timed on PETSc's stream like
// the types'; refresh = upload of the new CSR values + csr2bsr again + a product. One rank, a block
// size of 2 or more, a GPU; otherwise n/a with the reason.
PetscErrorCode measure_bsr(const Settings &S, HostMatrix &M, const TypeEntry &T, TypeResult &R)
{
  const bool         legacy = T.cusparse == "bsrmv";
  std::string        why;
  cudaStream_t       stream;
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           n;
  PetscBool          done;
  double             t0;
  std::vector<double> y((size_t)M.nrows), xk((size_t)M.ncols);

  PetscFunctionBegin;
  PetscCheck(S.gpu, PETSC_COMM_WORLD, PETSC_ERR_SUP, "cuSPARSE BSR needs a GPU");
  PetscCheck(S.size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "the cuSPARSE BSR baseline runs on one rank");
  PetscCheck(M.block_size >= 2, PETSC_COMM_WORLD, PETSC_ERR_SUP, "no block size (MatSetBlockSize) of 2 or more");
  R.type_name = legacy ? "cuSPARSE BSR, cusparseDbsrmv" : "cuSPARSE BSR, cusparseSpMV BSR_ALG1";
  R.where     = "gpu";
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  BenchBsr bsr((void *)stream, legacy);
  PetscCall(MatGetRowIJ(M.A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed");
  PetscCall(MatSeqAIJGetArrayRead(M.A, &va));
  PetscCall(sync_all(S));
  t0             = now_s();
  const bool set = bsr.setup((int)M.nrows, (int)M.ncols, (int)M.block_size, ia, ja, va, S.nx, &why);
  R.convert_s    = now_s() - t0;
  PetscCall(MatSeqAIJRestoreArrayRead(M.A, &va));
  PetscCall(MatRestoreRowIJ(M.A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(set, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", why.c_str());
  for (int k = 0; k < S.nx; ++k) {
    for (int64_t i = 0; i < M.ncols; ++i) xk[i] = x_value(S.seed, k, i);
    PetscCheck(bsr.set_x(k, xk.data(), &why), PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", why.c_str());
  }
  auto product = [&](int k) -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCheck(bsr.multiply(k, &why), PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", why.c_str());
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  auto error_of = [&](const std::vector<double> &ref, double *e) -> PetscErrorCode {
    double num = 0, den = 0;
    PetscFunctionBegin;
    PetscCheck(bsr.get_y(y.data(), &why), PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", why.c_str());
    for (size_t i = 0; i < y.size(); ++i) num += (y[i] - ref[i]) * (y[i] - ref[i]), den += ref[i] * ref[i];
    *e = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  t0 = now_s();
  PetscCall(product(0));
  PetscCall(sync_all(S));
  R.first_mult_s = now_s() - t0;
  R.setup_s      = R.convert_s + R.first_mult_s;
  PetscCall(error_of(M.yref[0], &R.relerr));

  Timer timer(true, S.size);
  for (int r = 0; r < S.warmup; ++r) PetscCall(product(r % S.nx));
  PetscCall(sync_all(S));
  R.reps = S.reps;
  std::vector<double> times;
  PetscCall(time_products(timer, R.reps, [&](int r) { return product(r % S.nx); }, times, &R.b2b_mean_s));
  R.spmv_median_s = median(times);
  R.spmv_min_s    = *std::min_element(times.begin(), times.end());
  R.spmv_max_s    = *std::max_element(times.begin(), times.end());
  R.spmv_mean_s   = mean(times);
  {
    double e = NAN;
    PetscCall(error_of(M.yref[(R.reps - 1) % S.nx], &e));
    R.relerr = worst(R.relerr, e);
  }
  R.bytes        = bsr.bytes();
  R.bytes_source = "BSR: " + std::to_string(bsr.nnzb()) + " blocks x (8 bs^2 + 4) + 4 (rows/bs + 1)";

  R.refresh_method = "upload of the CSR values + cusparseDcsr2bsr + product";
  std::vector<double> rtimes;
  for (int r = 0; r < S.refresh_reps; ++r) {
    const bool changed = r % 2 == 0;
    PetscCall(sync_all(S));
    t0 = now_s();
    PetscCheck(bsr.refresh((changed ? M.new_values : M.orig_values)[0].data(), &why), PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", why.c_str());
    PetscCall(product(0));
    PetscCall(sync_all(S));
    rtimes.push_back(now_s() - t0);
    double e = NAN;
    PetscCall(error_of(changed ? M.yref_refreshed : M.yref[0], &e));
    R.relerr_refresh = r == 0 ? e : worst(R.relerr_refresh, e);
  }
  if (!rtimes.empty()) {
    R.refresh_total_s = median(rtimes);
    R.refresh_s       = std::max(0.0, R.refresh_total_s - R.spmv_median_s);
  }
  R.refresh_reps = S.refresh_reps;
  const bool ok  = R.relerr <= S.tol && (S.refresh_reps == 0 || R.relerr_refresh <= S.tol);
  R.status       = ok ? "ok" : "wrong";
  if (!ok) R.reason = "relative error above " + std::to_string(S.tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode measure_type(const Settings &S, HostMatrix &M, const TypeEntry &T, TypeObjects &o, TypeResult &R)
{
  PetscBool device_vecs = PETSC_FALSE;
  double    t0, t;

  PetscFunctionBegin;
  // --- setup: conversion + first product ---
  for (const auto &[k, v] : T.options) PetscCall(PetscOptionsSetValue(NULL, k.c_str(), v.empty() ? NULL : v.c_str()));
  PetscCall(sync_all(S));
  t0 = now_s();
  if (T.type == "sellcuda" || T.type == "seqsellcuda" || T.type == "mpisellcuda") {
    // PETSc has no direct AIJ -> SELLCUDA converter: MatConvert would fall back to
    // MatConvert_Basic (MatSetValues without preallocation, minutes on these matrices). A user
    // converts through SELL (preallocated) and then to SELLCUDA in place; so do we, timed alike.
    PetscCall(MatConvert(M.A, MATSELL, MAT_INITIAL_MATRIX, &o.B));
    PetscCall(MatConvert(o.B, MATSELLCUDA, MAT_INPLACE_MATRIX, &o.B));
  } else PetscCall(MatConvert(M.A, T.type.c_str(), MAT_INITIAL_MATRIX, &o.B));
  if (!T.options.empty()) PetscCall(MatSetFromOptions(o.B));
  PetscCall(sync_all(S));
  R.convert_s = now_s() - t0;
  {
    const char *name;
    PetscCall(MatGetType(o.B, &name));
    R.type_name = name;
  }
  o.x.assign(S.nx, nullptr);
  PetscCall(MatCreateVecs(o.B, &o.x[0], &o.y));
  for (int k = 1; k < S.nx; ++k) PetscCall(VecDuplicate(o.x[0], &o.x[k]));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)o.x[0], &device_vecs, VECSEQCUDA, VECMPICUDA, ""));
  R.where = device_vecs ? "gpu" : "host";
  for (int k = 0; k < S.nx; ++k) {
    PetscReal nrm;
    PetscCall(fill_x(o.x[k], S.seed, k));
    PetscCall(VecNorm(o.x[k], NORM_2, &nrm)); // moves x to the device now, outside the timings
  }
  PetscCall(VecSet(o.y, 0.0));
  PetscCall(sync_all(S));
  t0 = now_s();
  PetscCall(MatMult(o.B, o.x[0], o.y));
  PetscCall(sync_all(S));
  R.first_mult_s = now_s() - t0;
  R.setup_s      = R.convert_s + R.first_mult_s;
  PetscCall(device_times(o.B, &R.setup_upload_s, &R.setup_device_s, nullptr, nullptr));
  PetscCall(rel_error(o.y, M.yref[0], &R.relerr));

  // --- SpMV: warm-up, then per-product times, then back-to-back ---
  Timer timer(device_vecs, S.size);
  for (int r = 0; r < S.warmup; ++r) PetscCall(MatMult(o.B, o.x[r % S.nx], o.y));
  PetscCall(sync_all(S));
  R.reps = device_vecs ? S.reps : S.host_reps;
  std::vector<double> times;
  PetscCall(time_products(timer, R.reps, [&](int r) { return MatMult(o.B, o.x[r % S.nx], o.y); }, times, &R.b2b_mean_s));
  R.spmv_median_s = median(times);
  R.spmv_min_s    = *std::min_element(times.begin(), times.end());
  R.spmv_max_s    = *std::max_element(times.begin(), times.end());
  R.spmv_mean_s   = mean(times);
  {
    double e; // the last product used x[(reps-1) % nx]: check it too (a format that drifts after many products)
    PetscCall(rel_error(o.y, M.yref[(R.reps - 1) % S.nx], &e));
    R.relerr = worst(R.relerr, e);
  }

  // --- MatMultTranspose (-transpose): the first one (which may build a transposed layout), then
  // timed ones like the SpMV's; x = x_0 every time, so the last result is checked too ---
  if (S.transpose) {
    Vec xt = nullptr, yt = nullptr;
    PetscCall(MatCreateVecs(o.B, &yt, &xt));
    PetscCall(fill_x(xt, S.seed, 0));
    PetscReal nrm;
    PetscCall(VecNorm(xt, NORM_2, &nrm)); // on the device now, outside the timings
    PetscCall(sync_all(S));
    t0 = now_s();
    PetscCall(MatMultTranspose(o.B, xt, yt));
    PetscCall(sync_all(S));
    R.t_first_s = now_s() - t0;
    PetscCall(rel_error(yt, M.ytref, &R.relerr_t));
    for (int r = 0; r < S.warmup; ++r) PetscCall(MatMultTranspose(o.B, xt, yt));
    std::vector<double> tt;
    PetscCall(time_products(timer, R.reps, [&](int) { return MatMultTranspose(o.B, xt, yt); }, tt, &R.t_b2b_mean_s));
    R.t_median_s = median(tt);
    double e;
    PetscCall(rel_error(yt, M.ytref, &e));
    R.relerr_t = worst(R.relerr_t, e);
    PetscCall(VecDestroy(&xt));
    PetscCall(VecDestroy(&yt));
  }

  // --- bytes the product reads ---
  {
    const double csr = gpuformats::csr_bytes(M.nnz, M.nrows);
    PetscBool    ours;
    PetscCall(MatGPUFormatsIsType(o.B, &ours));
    if (ours) {
      PetscInt64 b, g;
      PetscCall(MatGPUFormatsGetBytes(o.B, &b));
      PetscCallMPI(MPIU_Allreduce(&b, &g, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
      R.bytes        = (double)g;
      R.bytes_source = "MatGPUFormatsGetBytes";
      MatGPUFormatsHalo used;
      PetscInt          n;
      PetscReal         t[3];
      PetscCall(MatGPUFormatsGetHaloTimes(o.B, &used, &n, &t[0], &t[1], &t[2]));
      R.halo = MatGPUFormatsHalos[used];
      if (n > 0) {
        for (PetscReal &v : t) v /= (PetscReal)n;
        PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 3, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
        R.halo_s         = t[0] / S.size;
        R.halo_local_s   = t[1] / S.size;
        R.halo_exposed_s = t[2] / S.size;
      }
    } else if (strstr(R.type_name.c_str(), "aij")) {
      R.bytes        = csr;
      R.bytes_source = "CSR (AIJ layout)";
    } else if (strstr(R.type_name.c_str(), "sell")) {
      MatInfo info;
      PetscCall(MatGetInfo(o.B, MAT_GLOBAL_SUM, &info)); // nz_used counts SELL's padded slots
      R.bytes        = gpuformats::csr_bytes((int64_t)info.nz_used, M.nrows);
      R.bytes_source = "estimate: 12 B x stored slots (MatGetInfo, padding included) + 4 B x (rows+1)";
    } else R.bytes_source = "unknown";
  }

  // --- which layout ours took, and what gpuauto chose (the one just timed: the view builds
  // nothing new here) ---
  {
    PetscBool   ours;
    const bool  auto_type = T.type.find("gpuauto") != std::string::npos || R.type_name.find("gpuauto") != std::string::npos;
    std::string text;
    PetscCall(MatGPUFormatsIsType(o.B, &ours));
    if (ours || auto_type) PetscCall(view_info(o.B, &text));
    if (ours && S.halo_view && S.rank == 0) { // the exchange and, with -mat_gpuformats_halo_measure, where a product's time goes
      std::istringstream lines(text);
      for (std::string l; std::getline(lines, l);)
        if (l.find("gpuformats halo") != std::string::npos) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s: %s\n", T.label.c_str(), l.c_str()));
    }
    if (ours) layout_of(text, &R.layout, &R.layout_reason);
    if (auto_type) gpuauto_choice_of(text, &R.gpuauto_choice, &R.gpuauto_predicted_us, &R.gpuauto_choice_ms);
  }

  // --- values-only refresh: new values with the same pattern, then one product ---
  PetscBool array_path = PETSC_FALSE;
  PetscCall(is_seqaij_like(o.B, &array_path));
  R.refresh_method = array_path ? "MatSeqAIJGetArray/RestoreArray on B, then MatMult" : "MatSetValues (untimed) + MatAssemblyBegin/End + MatMult";
  std::vector<double> rtimes, rupload, rdevice;
  // MatSetValues row by row costs seconds per pass on large matrices: at most 2 passes there
  // (new values, then the original ones, both verified)
  const int nrefresh = array_path ? S.refresh_reps : std::min(S.refresh_reps, 2);
  for (int r = 0; r < nrefresh; ++r) {
    const bool changed = r % 2 == 0; // refreshed values, then back to the original ones, ...
    PetscCall(write_values(M, o.B, array_path, changed ? M.new_values : M.orig_values));
    PetscCall(sync_all(S));
    t0 = now_s();
    if (!array_path) {
      PetscCall(MatAssemblyBegin(o.B, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(o.B, MAT_FINAL_ASSEMBLY));
    }
    PetscCall(MatMult(o.B, o.x[0], o.y));
    PetscCall(sync_all(S));
    t = now_s() - t0;
    if (S.size > 1) PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    rtimes.push_back(t);
    double up, dev;
    PetscCall(device_times(o.B, nullptr, nullptr, &up, &dev));
    if (std::isfinite(dev)) {
      rupload.push_back(up);
      rdevice.push_back(dev);
    }
    double e;
    PetscCall(rel_error(o.y, changed ? M.yref_refreshed : M.yref[0], &e));
    R.relerr_refresh = r == 0 ? e : worst(R.relerr_refresh, e);
  }
  if (!rtimes.empty()) {
    R.refresh_total_s = median(rtimes);
    R.refresh_s       = std::max(0.0, R.refresh_total_s - R.spmv_median_s);
    R.refresh_upload_s = median(rupload);
    R.refresh_device_s = median(rdevice);
  }
  R.refresh_reps = nrefresh;
  const bool ok  = R.relerr <= S.tol && (nrefresh == 0 || R.relerr_refresh <= S.tol) && (!S.transpose || R.relerr_t <= S.tol);
  R.status      = ok ? "ok" : "wrong";
  if (!ok) R.reason = "relative error above " + std::to_string(S.tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Runs one type; PETSc errors become an "n/a" result with the reason, and the run goes on.
void run_type(const Settings &S, HostMatrix &M, const TypeEntry &T, TypeResult &R)
{
  g_error.clear();
  (void)PetscPushErrorHandler(record_error, NULL);
  PetscErrorCode ierr;
  {
    TypeObjects o;
    ierr = T.type == "cusparse" ? measure_bsr(S, M, T, R) : measure_type(S, M, T, o, R);
  } // destroys B and the vectors, also after an error, before the next type
  (void)PetscPopErrorHandler();
  for (const auto &kv : T.options) (void)PetscOptionsClearValue(NULL, kv.first.c_str());
  if (ierr) {
    R.status = "n/a";
    R.reason = g_error.empty() ? "PETSc error " + std::to_string((int)ierr) : g_error;
    if (S.gpu) bench_device_synchronize();
  }
  // one rank's failure is everyone's: agree on the status
  int bad = ierr ? 1 : 0, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  if (any && !ierr) {
    R.status = "n/a";
    R.reason = "failed on another rank";
  }
}

// ---------------------------------------------------------------------------------------------
// the SpMV model's predictions (src/model/model.hpp)
//
// Per matrix: its strips (model::strips_of on the host AIJ's CSR, exact x_sectors), every model
// candidate's predicted time of one product and the DP partition of the strips. Per type: the
// prediction for the candidate it runs beside the median measured here, so the model is checked on
// every benchmark run. One rank only: the model predicts the product of the whole matrix on one GPU.

struct ModelRun {
  bool                     have = false;
  gpuformats::model::Model m;
  std::string              file; // the file it was read from; empty for the default model
};

struct MatrixPrediction {
  bool                     have = false;
  std::vector<std::string> names; // the model's candidates
  std::vector<double>      us;    // their predicted product time, microseconds
  Json                     json;  // the matrix's "model" object
};

bool is_gpuauto(const TypeEntry &T, const TypeResult &R) { return T.type.find("gpuauto") != std::string::npos || R.type_name.find("gpuauto") != std::string::npos; }

// The model candidate a type's measurement is compared with, "" for none. Ours with their defaults
// run the candidate of their name, aijcusparse (CSR ALG1 by default, or :alg1) cuSPARSE CSR, gpuauto
// what it chose. None for variants (:scalar, :alg2, -option=...: the model covers the defaults
// only) and for the block layout (BELL is no candidate); *note then says why. PETSc's other types:
// "" without a note.
std::string candidate_for(const MatrixPrediction &P, const TypeEntry &T, const TypeResult &R, std::string *note)
{
  namespace gm = gpuformats::model;
  const auto has = [&](const std::string &n) { return std::find(P.names.begin(), P.names.end(), n) != P.names.end(); };
  const std::string root = starts_with(T.type, "seq") ? T.type.substr(3) : T.type;
  const bool        bell = R.layout == "block" || R.layout == "mixed";
  note->clear();
  if (is_gpuauto(T, R)) {
    if (R.gpuauto_choice.empty()) *note = "gpuauto's choice not found in its -mat_view ::ascii_info";
    else if (!has(R.gpuauto_choice)) *note = "gpuauto chose " + R.gpuauto_choice + ", which is no candidate of this model";
    else if (bell) *note = "block layout (BELL): not in the model";
    else return R.gpuauto_choice;
    return "";
  }
  if (root == "aijcusparse") {
    const bool alg1 = T.options.empty() || (T.options.size() == 1 && T.options[0].first == "-mat_cusparse_spmv_alg" && T.options[0].second == "CSRMV_ALG1");
    if (!has(gm::kCusparseCsr)) return "";
    if (alg1) return gm::kCusparseCsr;
    *note = "a variant: the model has cuSPARSE CSR ALG1 only";
    return "";
  }
  if (!has(root)) return "";
  if (!T.options.empty()) *note = "a variant (options): the model covers the defaults only";
  else if (bell) *note = "block layout (BELL): not in the model";
  else return root;
  return "";
}

// The strips, predictions and DP partition of M (one rank: M.A is a SeqAIJ); P.have = false
// without a model or rows. Errors of the model (Error) are PETSc errors here.
PetscErrorCode predict_matrix(const ModelRun &MR, const HostMatrix &M, MatrixPrediction &P)
{
  namespace gm = gpuformats::model;
  const PetscInt        *ia, *ja;
  const PetscScalar     *va;
  PetscInt               n;
  PetscBool              done;
  std::vector<gm::Strip> strips;
  std::string            why;

  PetscFunctionBegin;
  P = MatrixPrediction{};
  if (!MR.have || M.nrows == 0) PetscFunctionReturn(PETSC_SUCCESS);
  const gm::Model &m  = MR.m;
  const double     t0 = now_s();
  PetscCall(MatGetRowIJ(M.A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed");
  PetscCall(MatSeqAIJGetArrayRead(M.A, &va));
  gpuformats::CsrView A;
  A.nrows  = (int32_t)n;
  A.ncols  = (int32_t)M.ncols;
  A.nnz    = ia[n];
  A.rowptr = ia;
  A.colidx = ja;
  A.values = va;
  try {
    strips = gm::strips_of(A, m.strip_rows); // exact x_sectors: the benchmark can afford the sort
  } catch (const std::exception &e) {
    why = e.what();
  }
  PetscCall(MatSeqAIJRestoreArrayRead(M.A, &va));
  PetscCall(MatRestoreRowIJ(M.A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(why.empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "model strips: %s", why.c_str());
  const double strips_s = now_s() - t0;

  JObj pu;
  int  best = 0;
  for (int c = 0; c < (int)m.candidates.size(); ++c) {
    P.names.push_back(m.candidates[c].name);
    P.us.push_back(1e6 * gm::predict(m, c, strips));
    pu.add(P.names[c], jnum(P.us[c]));
    if (P.us[c] < P.us[best]) best = c;
  }
  gpuformats::select::Partition part;
  try {
    part = gpuformats::select::partition_strips((int)strips.size(), gm::dp_cost(m, strips));
  } catch (const std::exception &e) {
    why = e.what();
  }
  PetscCheck(why.empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "model partition: %s", why.c_str());
  Json        blocks = Json::array();
  std::string line;  // the blocks, for stdout
  for (size_t b = 0; b < part.blocks.size(); ++b) {
    const gpuformats::select::Block &k = part.blocks[b];
    const int32_t r0 = strips[k.first_strip].f.first_row, r1 = strips[k.last_strip].f.first_row + strips[k.last_strip].f.rows;
    JObj bj;
    bj.add("first_strip", Json(k.first_strip)).add("last_strip", Json(k.last_strip)).add("first_row", Json(r0)).add("end_row", Json(r1)).add("candidate", Json(P.names[k.format])).add("predicted_us", jnum(1e6 * k.time));
    blocks.push_back(bj.j);
    if (b < 6) line += (b ? ", " : "") + P.names[k.format] + " " + std::to_string(k.first_strip) + "-" + std::to_string(k.last_strip);
    else if (b == 6) line += ", ...";
  }
  const double single = P.us[best], total = 1e6 * part.time;
  JObj         pj;
  pj.add("blocks", blocks).add("total_us", jnum(total)).add("single_best", Json(P.names[best])).add("single_best_us", jnum(single));
  // beats: by more than rounding (sums of strips against one block's sum differ in the last bits)
  pj.add("beats_single_best", total < single * (1 - 1e-9)).add("gain", jnum(single / total));
  JObj mj;
  mj.add("file", MR.file.empty() ? Json(nullptr) : Json(MR.file)).add("gpu", Json(m.gpu)).add("is_default", m.is_default).add("strip_rows", Json(m.strip_rows));
  mj.add("strips", Json((int64_t)strips.size())).add("strips_s", jnum(strips_s)).add("predicted_us", pu.j).add("best_predicted", Json(P.names[best])).add("partition", pj.j);
  P.json = mj.j;
  P.have = true;
  if (part.partitioned())
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  model: best predicted %s %.1f us; DP over %zu strips: %zu blocks (%s) %.1f us, %.2fx the single best\n", P.names[best].c_str(), single, strips.size(), part.blocks.size(), line.c_str(), total, total / single));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  model: best predicted %s %.1f us; DP over %zu strip(s): one block\n", P.names[best].c_str(), single, strips.size()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// reporting

struct Figures {
  double gflops, gbs, pct;
};
Figures figures(const Settings &S, const HostMatrix &M, const TypeResult &R)
{
  const double traffic = gpuformats::csr_bytes(M.nnz, M.nrows) + 8.0 * (double)M.ncols + 8.0 * (double)M.nrows;
  Figures      f;
  f.gflops        = 2.0 * (double)M.nnz / R.spmv_median_s / 1e9;
  f.gbs           = traffic / R.spmv_median_s / 1e9;
  const double cb = R.where == "gpu" ? S.copy_gbs : S.host_copy_gbs;
  f.pct           = 100.0 * f.gbs / cb;
  return f;
}

Json result_json(const Settings &S, const HostMatrix &M, const TypeEntry &T, const TypeResult &R, const MatrixPrediction &P)
{
  JObj o;
  o.add("type", Json(T.label)).add("mat_type", Json(T.type)).add("petsc_type", Json(R.type_name)).add("status", Json(R.status));
  if (!R.reason.empty()) o.add("reason", Json(R.reason));
  Json opts = Json::object();
  for (const auto &[k, v] : T.options) opts[k] = v;
  o.add("options", opts);
  if (R.status != "n/a") {
    const Figures f   = figures(S, M, R);
    const double  csr = gpuformats::csr_bytes(M.nnz, M.nrows);
    o.add("where", Json(R.where)).add("reps", Json(R.reps));
    o.add("relerr", jnum(R.relerr)).add("relerr_refresh", jnum(R.relerr_refresh));
    o.add("spmv_median_s", jnum(R.spmv_median_s)).add("spmv_min_s", jnum(R.spmv_min_s)).add("spmv_max_s", jnum(R.spmv_max_s)).add("spmv_mean_s", jnum(R.spmv_mean_s)).add("spmv_back_to_back_mean_s", jnum(R.b2b_mean_s));
    o.add("gflops", jnum(f.gflops)).add("gbs", jnum(f.gbs)).add("pct_copy", jnum(f.pct));
    o.add("setup_s", jnum(R.setup_s)).add("convert_s", jnum(R.convert_s)).add("first_mult_s", jnum(R.first_mult_s)).add("setup_spmvs", jnum(R.setup_s / R.spmv_median_s));
    o.add("refresh_s", jnum(R.refresh_s)).add("refresh_plus_mult_s", jnum(R.refresh_total_s)).add("refresh_spmvs", jnum(R.refresh_s / R.spmv_median_s)).add("refresh_method", Json(R.refresh_method)).add("refresh_reps", Json(R.refresh_reps));
    o.add("setup_upload_s", jnum(R.setup_upload_s)).add("setup_device_s", jnum(R.setup_device_s)).add("setup_device_spmvs", jnum(R.setup_device_s / R.spmv_median_s));
    o.add("refresh_upload_s", jnum(R.refresh_upload_s)).add("refresh_device_s", jnum(R.refresh_device_s)).add("refresh_device_spmvs", jnum(R.refresh_device_s / R.spmv_median_s));
    o.add("bytes", jnum(R.bytes)).add("bytes_vs_csr", jnum(R.bytes / csr)).add("bytes_source", Json(R.bytes_source));
    if (!R.layout.empty()) o.add("layout", Json(R.layout)).add("layout_reason", Json(R.layout_reason));
    if (!R.halo.empty()) o.add("halo", Json(R.halo));
    if (!std::isnan(R.halo_s)) o.add("halo_s", jnum(R.halo_s)).add("halo_local_s", jnum(R.halo_local_s)).add("halo_exposed_s", jnum(R.halo_exposed_s)).add("halo_hidden", jnum(1.0 - R.halo_exposed_s / R.halo_s));
    if (S.transpose) o.add("transpose_first_s", jnum(R.t_first_s)).add("transpose_median_s", jnum(R.t_median_s)).add("transpose_back_to_back_mean_s", jnum(R.t_b2b_mean_s)).add("relerr_transpose", jnum(R.relerr_t));
    if (is_gpuauto(T, R)) {
      o.add("gpuauto_choice", R.gpuauto_choice.empty() ? Json(nullptr) : Json(R.gpuauto_choice));
      if (std::isfinite(R.gpuauto_predicted_us)) o.add("gpuauto_predicted_us", jnum(R.gpuauto_predicted_us));
      if (std::isfinite(R.gpuauto_choice_ms)) o.add("gpuauto_choice_ms", jnum(R.gpuauto_choice_ms));
    }
    if (P.have) {
      std::string       note;
      const std::string cand = candidate_for(P, T, R, &note);
      if (!cand.empty()) {
        const double pred = P.us[std::find(P.names.begin(), P.names.end(), cand) - P.names.begin()], meas = 1e6 * R.spmv_median_s;
        o.add("predicted_candidate", Json(cand)).add("predicted_us", jnum(pred));
        // the model predicts a GPU's product: a host-backend time is no measure of it
        if (R.where == "gpu") o.add("prediction_error", jnum((pred - meas) / meas));
        else o.add("prediction_error", nullptr).add("prediction_note", Json("measured on the host: the model predicts the GPU"));
      } else if (!note.empty()) o.add("predicted_us", nullptr).add("prediction_note", Json(note));
    }
  }
  return o.j;
}

std::string human_bytes(double b)
{
  char s[32];
  if (b >= 1e9) std::snprintf(s, sizeof s, "%.2f GB", b / 1e9);
  else if (b >= 1e6) std::snprintf(s, sizeof s, "%.1f MB", b / 1e6);
  else std::snprintf(s, sizeof s, "%.1f kB", b / 1e3);
  return s;
}

void print_header()
{
  PetscPrintf(PETSC_COMM_WORLD, "  %-22s %-5s %8s %10s %8s %10s %8s %8s %6s %10s %8s %7s\n", "type", "where", "relerr", "setup ms", "(SpMVs)", "SpMV us", "GFLOP/s", "GB/s", "%copy", "refresh ms", "(SpMVs)", "B/CSR");
}

void print_result(const Settings &S, const HostMatrix &M, const TypeEntry &T, const TypeResult &R)
{
  if (R.status == "n/a") {
    const std::string why = R.reason.size() > 200 ? R.reason.substr(0, 200) + "..." : R.reason;
    PetscPrintf(PETSC_COMM_WORLD, "  %-22s n/a: %s\n", T.label.c_str(), why.c_str());
    return;
  }
  const Figures f   = figures(S, M, R);
  const double  csr = gpuformats::csr_bytes(M.nnz, M.nrows);
  char          bytes[16];
  if (std::isfinite(R.bytes)) std::snprintf(bytes, sizeof bytes, "%.3f", R.bytes / csr);
  else std::snprintf(bytes, sizeof bytes, "?");
  PetscPrintf(PETSC_COMM_WORLD, "  %-22s %-5s %8.1e %10.2f %8.0f %10.1f %8.1f %8.1f %6.1f %10.3f %8.1f %7s%s\n", T.label.c_str(), R.where.c_str(), R.relerr, R.setup_s * 1e3, R.setup_s / R.spmv_median_s, R.spmv_median_s * 1e6, f.gflops, f.gbs, f.pct, R.refresh_s * 1e3,
              R.refresh_s / R.spmv_median_s, bytes, R.status == "wrong" ? "  WRONG RESULT" : "");
  if (std::isfinite(R.setup_device_s) || std::isfinite(R.refresh_device_s))
    PetscPrintf(PETSC_COMM_WORLD, "  %-22s device part: setup %.3f ms (%.2f SpMVs) after a %.3f ms upload; refresh %.3f ms (%.2f SpMVs) after a %.3f ms upload\n", "", R.setup_device_s * 1e3, R.setup_device_s / R.spmv_median_s, R.setup_upload_s * 1e3, R.refresh_device_s * 1e3,
                R.refresh_device_s / R.spmv_median_s, R.refresh_upload_s * 1e3);
  if ((M.block_size > 1 || R.layout == "stencil" || R.layout == "mixed") && !R.layout.empty()) PetscPrintf(PETSC_COMM_WORLD, "  %-22s layout: %s (%s)\n", "", R.layout.c_str(), R.layout_reason.c_str());
  if (is_gpuauto(T, R)) PetscPrintf(PETSC_COMM_WORLD, "  %-22s gpuauto chose: %s\n", "", R.gpuauto_choice.empty() ? "? (no \"gpuauto: chose\" line in its view)" : R.gpuauto_choice.c_str());
  if (S.transpose && T.type != "cusparse")
    PetscPrintf(PETSC_COMM_WORLD, "  %-22s MatMultTranspose: %.1f us (%.2f SpMVs), first %.3f ms, relerr %.1e\n", "", R.t_median_s * 1e6, R.t_median_s / R.spmv_median_s, R.t_first_s * 1e3, R.relerr_t);
}

std::string utc_now()
{
  char   b[32];
  time_t t = time(nullptr);
  strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  return b;
}

std::string shell_line(const char *cmd)
{
  std::string out;
  if (FILE *p = popen(cmd, "r")) {
    char b[256];
    while (fgets(b, sizeof b, p)) out += b;
    pclose(p);
  }
  return trim(out);
}

// -commit, else $GPUFORMATS_COMMIT, else git (+"-dirty"), else bundle/commit (the GPU bundle
// records the commit it was built from; the GPU machine's copy of the tree has no git).
std::string find_commit(const char *opt)
{
  if (opt && *opt) return opt;
  if (const char *e = getenv("GPUFORMATS_COMMIT")) return e;
  std::string c = shell_line("git rev-parse HEAD 2>/dev/null");
  if (!c.empty()) {
    if (!shell_line("git status --porcelain --untracked-files=no 2>/dev/null").empty()) c += "-dirty";
    return c;
  }
  std::ifstream f("bundle/commit");
  if (f && std::getline(f, c) && !trim(c).empty()) return trim(c);
  return "unknown";
}

// The NVIDIA kernel driver's version (e.g. 580.65.06), from /proc; empty where unknown.
std::string nvidia_driver_version()
{
  std::ifstream f("/proc/driver/nvidia/version");
  std::string   line;
  if (!f || !std::getline(f, line)) return "";
  std::istringstream ss(line);
  for (std::string w; ss >> w;)
    if (!w.empty() && std::isdigit((unsigned char)w[0]) && w.find('.') != std::string::npos) return w;
  return "";
}

// memcpy rate of all ranks copying at once (their sum), bytes read + written.
double host_copy_bandwidth()
{
  const size_t        n = (size_t)1 << 25; // 256 MiB per buffer: far beyond any CPU cache
  std::vector<double> a(n, 1.0), b(n, 2.0), t;
  for (int r = 0; r < 5; ++r) {
    MPI_Barrier(PETSC_COMM_WORLD);
    const double t0 = now_s();
    std::memcpy(b.data(), a.data(), n * sizeof(double));
    t.push_back(now_s() - t0);
    a[r] = b[n - 1 - r]; // keep the copies observable
  }
  double mine = 2.0 * (double)(n * sizeof(double)) / median(t) / 1e9, all = mine;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  return all;
}

} // namespace

static const char help[] = "SpMV benchmark: PETSc's GPU types and gpuformats' formats on the same matrices in one run.\n"
                           "  -matrix <spec|file.mtx|file.petsc>  one matrix (-label <name> names it)\n"
                           "  -suite <file>             matrices, one per line: [label] spec (see bench/suites/)\n"
                           "  -only <l1,l2,...>         from the suite, only the matrices whose label contains one of these\n"
                           "  -types <t1,t2,...>        types: aij, aijcusparse:alg1, aijcusparse:alg2, sellcuda, evchyb, pjds, pellr, suraa,\n"
                           "                            ours with :scalar / :block (-mat_gpuformats_block), cusparse:bsr, cusparse:bsrmv\n"
                           "                            (cuSPARSE BSR, matrices with a block size, 1 rank),\n"
                           "                            type:-option=value; default: PETSc's GPU types and every gpuformats type\n"
                           "                            (aij and the gpuformats types without a GPU)\n"
                           "  -reps <20> -warmup <5> -nx <4> -refresh_reps <3> -host_reps <reps> -seed <1> -verify_tol <1e-10>\n"
                           "  -transpose: also time MatMultTranspose (first product, median, checked against the host A^T x)\n"
                           "  -halo_view: print each mpi type's halo lines of -mat_view ::ascii_info after its timing (with -mat_gpuformats_halo_measure: the exchange, the local product, the rest and the gap per product)\n"
                           "  -copy_mb <1024>           size of each copy-bandwidth buffer\n"
                           "  -json <file>              write all figures as JSON (rewritten after every matrix)\n"
                           "  -model <file.json>        SpMV model to predict with (default: this GPU's, found by name; none without a GPU)\n"
                           "  -commit <id>              commit to record (default: $GPUFORMATS_COMMIT, git, bundle/commit)\n"
                           "Generator specs:\n";

int main(int argc, char **argv)
{
  char                     buf[PETSC_MAX_PATH_LEN];
  PetscBool                flg, bval = PETSC_FALSE;
  Settings                 S;
  std::vector<TypeEntry>   types;
  std::vector<MatrixEntry> matrices;
  std::string              json_path, commit_opt;
  PetscInt                 ival;
  PetscReal                rval;
  PetscInt                 copy_mb = 1024;

  const std::string full_help = std::string(help) + gpuformats::generator_help();
  PetscCall(PetscInitialize(&argc, &argv, NULL, full_help.c_str()));
  PetscCall(GPUFormatsInitializePackage()); // our types, also without -dll_append
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &S.size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &S.rank));

  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &ival, &flg));
  if (flg) S.reps = S.host_reps = (int)ival;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-host_reps", &ival, &flg));
  if (flg) S.host_reps = (int)ival;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &ival, &flg));
  if (flg) S.warmup = (int)ival;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nx", &ival, &flg));
  if (flg) S.nx = (int)ival;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-refresh_reps", &ival, &flg));
  if (flg) S.refresh_reps = (int)ival;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-transpose", &bval, NULL));
  S.transpose = bval;
  bval        = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-halo_view", &bval, NULL));
  S.halo_view = bval;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &ival, &flg));
  if (flg) S.seed = (uint64_t)ival;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-verify_tol", &rval, &flg));
  if (flg) S.tol = rval;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-copy_mb", &copy_mb, NULL));
  PetscCheck(S.reps >= 1 && S.host_reps >= 1 && S.nx >= 1 && S.warmup >= 0 && S.refresh_reps >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps, -host_reps, -nx must be >= 1; -warmup, -refresh_reps >= 0");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", buf, sizeof buf, &flg));
  if (flg) json_path = buf;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-commit", buf, sizeof buf, &flg));
  if (flg) commit_opt = buf;

  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", buf, sizeof buf, &flg));
  if (flg) {
    char label[256];
    PetscBool has_label;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-label", label, sizeof label, &has_label));
    matrices.push_back({has_label ? label : buf, buf});
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-suite", buf, sizeof buf, &flg));
  if (flg) PetscCall(read_suite(buf, matrices));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-only", buf, sizeof buf, &flg));
  if (flg) {
    const std::vector<std::string> want = split(buf, ',');
    std::vector<MatrixEntry>       keep;
    for (const MatrixEntry &m : matrices)
      for (const std::string &w : want)
        if (m.label.find(w) != std::string::npos) {
          keep.push_back(m);
          break;
        }
    matrices = keep;
  }
  {
    PetscBool h;
    PetscCall(PetscOptionsHasHelp(NULL, &h));
    if (h) {
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCheck(!matrices.empty(), PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "no matrix: give -matrix <spec|file> or -suite <file> (-help lists the generators)");

  // --- types; the GPU is touched only when a non-host type is asked for ---
  std::string gpu_why;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", buf, sizeof buf, &flg));
  std::string type_list = flg ? buf : "";
  bool        want_gpu  = !flg; // the default list depends on whether there is a GPU
  if (flg) {
    PetscCall(parse_types(type_list, types));
    for (const TypeEntry &t : types) want_gpu = want_gpu || !is_host_type(t.type);
  }
  BenchGpuInfo gpu;
  if (want_gpu) S.gpu = bench_gpu_info(&gpu, &gpu_why);
  Json rank_gpus = Json::array(); // the GPU each rank uses (PETSc's choice, rank % devices by default)
  if (S.gpu) {
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); // PETSc picks this rank's GPU before any CUDA work of ours
    S.gpu = bench_gpu_info(&gpu, &gpu_why);
    char mine[128] = {}, bus[32] = "?";
    int  dev       = -1;
    cudaGetDevice(&dev);
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess) (void)cudaGetLastError();
    std::snprintf(mine, sizeof mine, "%d %s", dev, bus); // "<device> <PCI bus id>", gathered as text
    std::vector<char> all((size_t)S.size * sizeof mine);
    PetscCallMPI(MPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all.data(), (int)sizeof mine, MPI_CHAR, 0, PETSC_COMM_WORLD));
    for (int r = 0; r < S.size; ++r) {
      int  d          = -1;
      char b[32]      = "?";
      std::sscanf(&all[(size_t)r * sizeof mine], "%d %31s", &d, b);
      rank_gpus.push_back(JObj().add("rank", r).add("device", d).add("pci_bus_id", b).j);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU of each rank: %s\n", rank_gpus.dump().c_str()));
  }
  if (!flg) {
    int                                 n;
    const gpuformats::FormatOps *const *ours = gpuformats::all_formats(&n); // the formats this build carries
    type_list                                = S.gpu ? "aijcusparse:alg1,aijcusparse:alg2,sellcuda" : "aij";
    for (int i = 0; i < n; ++i) type_list += std::string(",") + ours[i]->root;
    if (S.gpu) type_list += ",gpuauto"; // the model's choice among the above, beside them
    PetscCall(parse_types(type_list, types));
  }

  // --- run description ---
  char petsc_version[256], host[256];
  PetscCall(PetscGetVersion(petsc_version, sizeof petsc_version));
  PetscCall(PetscGetHostName(host, sizeof host));
  const std::string commit = find_commit(commit_opt.c_str());
  const std::string date   = utc_now();
  S.host_copy_gbs          = host_copy_bandwidth();
  BenchCopyResult copy;
  if (S.gpu) {
    std::string why;
    double      free_b = 0;
    size_t      bytes  = (size_t)copy_mb << 20;
    if (bench_device_free_bytes(&free_b)) bytes = std::min(bytes, (size_t)(free_b / 4));
    if (bench_copy_bandwidth(bytes, 20, &copy, &why)) S.copy_gbs = copy.kernel_gbs;
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "copy bandwidth not measured: %s\n", why.c_str()));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_spmv  %s  commit %s  %s  %d rank(s)\n", date.c_str(), commit.c_str(), petsc_version, S.size));
  if (S.gpu)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB), driver %s (CUDA %d.%d), CUDA runtime %d.%d; copy kernel %.0f GB/s, cudaMemcpy %.0f GB/s (read+write, %s buffers)\n", gpu.name.c_str(), gpu.cc_major, gpu.cc_minor, gpu.sm_count,
                          gpu.memory_bytes / 1073741824.0, gpu.l2_bytes / 1048576.0, nvidia_driver_version().c_str(), gpu.driver_version / 1000, (gpu.driver_version % 1000) / 10, gpu.runtime_version / 1000, (gpu.runtime_version % 1000) / 10, copy.kernel_gbs, copy.memcpy_gbs, human_bytes(copy.bytes).c_str()));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: none used%s%s\n", gpu_why.empty() ? "" : ": ", gpu_why.c_str()));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "host copy bandwidth %.1f GB/s (memcpy, read+write); types: %s\n", S.host_copy_gbs, type_list.c_str()));
  // --- the SpMV model (predictions beside the measurements): -model <file>, else this GPU's by name
  // (model_or_default: a GPU without a calibrated model gets the default, cuSPARSE CSR, marked
  // is_default); without a GPU and -model, none. One rank only (predict_matrix) ---
  ModelRun MR;
  {
    namespace gm = gpuformats::model;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-model", buf, sizeof buf, &flg));
    const std::string model_opt = flg ? buf : "";
    if (S.size > 1) {
      if (!model_opt.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model: -model ignored: predictions are made on one rank only\n"));
    } else if (!model_opt.empty()) {
      std::string why;
      try {
        MR.m = gm::read_model(model_opt);
      } catch (const std::exception &e) {
        why = e.what();
      }
      PetscCheck(why.empty(), PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "-model: %s", why.c_str());
      MR.file = model_opt;
      MR.have = true;
    } else if (S.gpu) {
      std::string msg, why;
      try {
        const std::vector<std::string> dirs = gm::model_dirs();
        MR.m                                = gm::model_or_default(gpu.name, dirs, &msg);
        for (const std::string &d : dirs) // the file model_or_default read: the first that exists
          if (!MR.m.is_default && std::ifstream(d + "/" + gm::model_file_name(gpu.name))) {
            MR.file = d + "/" + gm::model_file_name(gpu.name);
            break;
          }
        MR.have = true;
      } catch (const std::exception &e) { // a bad model file: measure anyway, say why nothing is predicted
        why = e.what();
      }
      if (!msg.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model: %s\n", msg.c_str()));
      if (!why.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model: no predictions: %s\n", why.c_str()));
    }
    if (MR.have) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model: %s (%s; strips of %d rows)%s\n", MR.m.gpu.c_str(), MR.file.empty() ? "default" : MR.file.c_str(), MR.m.strip_rows, MR.m.is_default ? " [default, uncalibrated]" : ""));
      if (S.gpu && !MR.m.is_default && gm::model_file_name(MR.m.gpu) != gm::model_file_name(gpu.name))
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model: note: calibrated on \"%s\", this GPU is \"%s\": the prediction errors compare two GPUs\n", MR.m.gpu.c_str(), gpu.name.c_str()));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SpMV: median of %d (host types %d) after %d warm-up, x rotating among %d vectors; refresh: median of %d; GB/s = (12 nnz + 4 (rows+1) + 8 cols + 8 rows) / t\n", S.reps, S.host_reps, S.warmup, S.nx, S.refresh_reps));

  JObj run;
  run.add("tool", Json("bench_spmv")).add("format_version", 1).add("date", Json(date)).add("commit", Json(commit)).add("host", Json(host)).add("petsc_version", Json(petsc_version)).add("mpi_ranks", Json(S.size));
  if (S.gpu) {
    JObj g;
    g.add("name", Json(gpu.name)).add("compute_capability", Json(std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor))).add("sm_count", Json(gpu.sm_count)).add("memory_bytes", jnum(gpu.memory_bytes)).add("l2_bytes", jnum(gpu.l2_bytes));
    g.add("driver_version", Json(nvidia_driver_version())).add("cuda_driver_api_version", Json(std::to_string(gpu.driver_version / 1000) + "." + std::to_string((gpu.driver_version % 1000) / 10))).add("cuda_runtime_version", Json(std::to_string(gpu.runtime_version / 1000) + "." + std::to_string((gpu.runtime_version % 1000) / 10)));
    run.add("gpu", g.j).add("rank_gpus", rank_gpus);
    JObj c;
    c.add("kernel_gbs", jnum(copy.kernel_gbs)).add("memcpy_gbs", jnum(copy.memcpy_gbs)).add("buffer_bytes", jnum(copy.bytes)).add("accounting", Json("bytes read + bytes written, median of 20"));
    run.add("copy_bandwidth", c.j);
  } else run.add("gpu", nullptr).add("gpu_note", Json(gpu_why.empty() ? "no GPU type asked for" : gpu_why));
  run.add("host_copy_gbs", jnum(S.host_copy_gbs));
  {
    JObj s;
    Json tl = Json::array();
    for (const TypeEntry &t : types) tl.push_back(t.label);
    s.add("reps", Json(S.reps)).add("host_reps", Json(S.host_reps)).add("warmup", Json(S.warmup)).add("nx", Json(S.nx)).add("refresh_reps", Json(S.refresh_reps)).add("seed", Json((int64_t)S.seed)).add("verify_tol", jnum(S.tol)).add("transpose", S.transpose).add("types", tl);
    s.add("traffic_model", Json("12*nnz + 4*(nrows+1) + 8*ncols + 8*nrows bytes")).add("csr_bytes", Json("12*nnz + 4*(nrows+1)"));
    s.add("device_times", Json("setup_/refresh_ upload_s and device_s: MatGPUFormatsGetLastTimes (CUDA events on the stream; per rank the sum of an mpi type's two blocks, then the max over ranks); refresh: median of the refresh_reps"));
    run.add("settings", s.j);
  }
  std::vector<Json> matrix_json;
  auto              write_json = [&]() {
    if (json_path.empty() || S.rank != 0) return;
    Json doc        = run.j;
    doc["matrices"] = matrix_json;
    const std::string out = doc.dump(1) + "\n";
    const std::string tmp = json_path + ".tmp";
    if (FILE *f = fopen(tmp.c_str(), "w")) {
      fputs(out.c_str(), f);
      fclose(f);
      rename(tmp.c_str(), json_path.c_str());
    } else fprintf(stderr, "bench_spmv: cannot write %s\n", json_path.c_str());
  };
  write_json();

  // --- priming: every type once on a tiny matrix, so library start-up costs (CUDA context,
  // cuSPARSE handles, kernel loading) are not charged to the first matrix's setup times ---
  {
    Settings   P = S;
    HostMatrix T;
    P.reps = P.host_reps = 1;
    P.warmup = P.refresh_reps = 0;
    P.nx                      = 1;
    // a scalar matrix, then one with a block size (the block layout's kernels, cuSPARSE BSR)
    for (const char *spec : {"stencil2d5:n=16", "blockstencil3d:n=3,bs=2"}) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      PetscErrorCode ierr = load_matrix({"prime", spec}, S.seed, T);
      if (!ierr) ierr = host_reference(T, S.seed, 1, S.transpose);
      PetscCall(PetscPopErrorHandler());
      if (!ierr)
        for (const TypeEntry &t : types) {
          TypeResult R;
          run_type(P, T, t, R);
        }
      PetscCall(destroy_host(T));
    }
  }

  // --- the matrices ---
  int failures = 0, wrong = 0; // wrong: a product that does not match the host AIJ, or a matrix that could not be built
  for (size_t m = 0; m < matrices.size(); ++m) {
    const MatrixEntry &E = matrices[m];
    HostMatrix         M;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n[%zu/%zu] %s  (%s) ...\n", m + 1, matrices.size(), E.label.c_str(), E.spec.c_str()));
    g_error.clear();
    PetscCall(PetscPushErrorHandler(record_error, NULL));
    PetscErrorCode ierr = load_matrix(E, S.seed, M);
    if (!ierr) ierr = host_reference(M, S.seed, S.nx, S.transpose);
    PetscCall(PetscPopErrorHandler());
    JObj mj;
    mj.add("label", Json(E.label)).add("spec", Json(E.spec));
    if (ierr) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  cannot build the matrix: %s\n", g_error.c_str()));
      mj.add("status", Json("n/a")).add("reason", Json(g_error));
      matrix_json.push_back(mj.j);
      write_json();
      (void)destroy_host(M);
      ++failures;
      ++wrong;
      continue;
    }
    const double csr = gpuformats::csr_bytes(M.nnz, M.nrows);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %lld x %lld, %lld nonzeros, rows %lld..%lld (mean %.1f, std %.1f); CSR %s; %s in %.2f s, AIJ assembled in %.2f s%s\n", (long long)M.nrows, (long long)M.ncols, (long long)M.nnz, (long long)M.row_min, (long long)M.row_max, M.row_mean, M.row_std,
                          human_bytes(csr).c_str(), M.source.c_str(), M.load_s, M.assemble_s, M.block_size > 1 ? ("; block size " + std::to_string(M.block_size)).c_str() : ""));
    MatrixPrediction P;
    if (MR.have) { // a failure here loses the predictions, not the measurements
      g_error.clear();
      PetscCall(PetscPushErrorHandler(record_error, NULL));
      const PetscErrorCode perr = predict_matrix(MR, M, P);
      PetscCall(PetscPopErrorHandler());
      if (perr) {
        P = MatrixPrediction{};
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  model: no predictions: %s\n", g_error.c_str()));
      }
    }
    print_header();
    Json results = Json::array();
    for (size_t t = 0; t < types.size(); ++t) {
      TypeResult R;
      run_type(S, M, types[t], R);
      print_result(S, M, types[t], R);
      if (R.status != "ok") ++failures;
      if (R.status == "wrong") ++wrong;
      results.push_back(result_json(S, M, types[t], R, P));
    }
    mj.add("status", Json("ok")).add("source", Json(M.source)).add("nrows", Json(M.nrows)).add("ncols", Json(M.ncols)).add("nnz", Json(M.nnz)).add("block_size", Json(M.block_size));
    mj.add("row_length", JObj().add("min", Json(M.row_min)).add("max", Json(M.row_max)).add("mean", jnum(M.row_mean)).add("std", jnum(M.row_std)).add("empty", Json(M.empty_rows)).j);
    // ELLPACK-R of this matrix (every row padded to the longest, rows rounded up to a warp, rl[] per
    // row): the reference of the pJDS paper's memory saving.
    const double rows32 = (double)(((int64_t)M.nrows + 31) / 32 * 32);
    mj.add("ellpackr_bytes", jnum(12.0 * (double)M.row_max * rows32 + 4.0 * rows32));
    mj.add("csr_bytes", jnum(csr)).add("traffic_bytes", jnum(csr + 8.0 * (double)M.ncols + 8.0 * (double)M.nrows)).add("load_s", jnum(M.load_s)).add("assemble_s", jnum(M.assemble_s));
    if (P.have) mj.add("model", P.json);
    mj.add("results", results);
    matrix_json.push_back(mj.j);
    write_json();
    PetscCall(destroy_host(M));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%d result(s) not ok (%d wrong or unbuildable, the rest n/a)%s%s\n", failures, wrong, json_path.empty() ? "" : "; JSON: ", json_path.c_str()));
  PetscCall(PetscFinalize());
  return wrong ? 1 : 0; // n/a types (not available here) are not failures; wrong products are
}
