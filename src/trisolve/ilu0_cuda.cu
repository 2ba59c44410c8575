// ILU(0) in place (trisolve.hpp's Ilu0) on both backends. EliminateRow is the one row step: Thrust
// runs it on the host (test_trisolve, in CI, against ilu0_host bit for bit) and the schedules'
// kernels run it on the GPU. cuSPARSE's csrilu02 stays a schedule, the baseline of the table below.
//
// The schedules on the default ILU(0) of ksp ex45 (7-point, natural ordering), one H200
// (bench/results/h200/trisolve-factor/factor-schedules/): the analysis once per pattern, then
// the factorization at every numeric phase, 128^3 (382 levels) / 256^3 (766 levels):
//   levels    analysis 0 (the exact solves' levels)   4.7 ms / 11.0 ms   (kept: the default)
//   graph     analysis 0                              7.3 ms / 16.6 ms
//   sync_free analysis 0                             11.1 ms / 106 ms    (a few planes in flight)
//   cusparse  analysis 39.6 ms / 315 ms               4.4 ms / 18.5 ms   (2.7 ms at ex14's later steps)
// A level costs 12-14 us: a thread per row waits on a dozen dependent loads.
#include "trisolve.hpp"

#include "level_solve.cuh"
#include "../core/thrust_system.cuh"

// csrilu02 is deprecated in CUDA 13 with no successor for ILU(0); PETSc 3.26's device ILU(0) calls it too.
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>

#include <cuda/atomic>
#include <thrust/copy.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

namespace gpuformats {
namespace trisolve {

const char *ilu0_schedule_name(Ilu0Schedule s)
{
  switch (s) {
  case Ilu0Schedule::levels: return "levels";
  case Ilu0Schedule::graph: return "graph";
  case Ilu0Schedule::sync_free: return "syncfree";
  case Ilu0Schedule::cusparse: return "cusparse";
  }
  return "?";
}

namespace {

// Row i of M = L\U eliminated in place, as ilu0_host: for each entry (i, k) of its lower part in
// column order, once row k is final, l_ik = m_ik / u_kk, then m_ij -= l_ik u_kj for each (k, j),
// j > k, that row i holds (both rows sorted: one merge). pivot: the least row whose pivot is zero
// or not finite. Wait (the sync-free schedule): row k awaited through done[k] and its values read
// from L2 (another SM wrote them; L1 is not coherent), row i published once final.
template <bool Wait>
struct EliminateRow {
  const int32_t *rowptr, *colidx, *diag;
  double        *m;
  int32_t       *pivot, *done;
  __host__ __device__ double final_value(const double *p) const
  {
#ifdef __CUDA_ARCH__
    if constexpr (Wait) return __ldcg(p);
#endif
    return *p;
  }
  __host__ __device__ void operator()(int32_t i) const
  {
    const int32_t end = rowptr[i + 1], d = diag[i];
    for (int32_t q = rowptr[i]; q < d; ++q) {
      const int32_t k = colidx[q];
#ifdef __CUDA_ARCH__
      if constexpr (Wait) {
        cuda::atomic_ref<int32_t, cuda::thread_scope_device> f(done[k]);
        while (f.load(cuda::memory_order_acquire) == 0) {}
      }
#endif
      const double l = m[q] / final_value(m + diag[k]);
      m[q]           = l;
      int32_t p      = q + 1;
      for (int32_t r = diag[k] + 1, re = rowptr[k + 1]; r < re && p < end; ++r) {
        const int32_t j = colidx[r];
        while (p < end && colidx[p] < j) ++p;
        if (p < end && colidx[p] == j) m[p] -= l * final_value(m + r);
      }
    }
    const double u = m[d];
    if (u == 0.0 || !(fabs(u) <= DBL_MAX)) { // zero, infinite or NaN
#ifdef __CUDA_ARCH__
      atomicMin(pivot, i);
#else
      *pivot = std::min(*pivot, i);
#endif
    }
#ifdef __CUDA_ARCH__
    if constexpr (Wait) cuda::atomic_ref<int32_t, cuda::thread_scope_device>(done[i]).store(1, cuda::memory_order_release);
#endif
  }
};

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) level_rows_kernel(const int32_t *rows, int32_t count, EliminateRow<false> e)
{
  const int32_t k = (int32_t)blockIdx.x * kThreads + (int32_t)threadIdx.x;
  if (k < count) e(rows[k]);
}

// Rows in index order by block tickets: a block waits only on rows of blocks that took their
// tickets before it (resident already) or on its own, so it never waits on a block not yet running.
__global__ void __launch_bounds__(kThreads) sync_free_kernel(int32_t n, EliminateRow<true> e, uint32_t *ticket)
{
  __shared__ uint32_t t;
  if (threadIdx.x == 0) t = atomicAdd(ticket, 1u);
  __syncthreads();
  const int64_t i = (int64_t)t * kThreads + threadIdx.x;
  if (i < n) e((int32_t)i);
}

__global__ void set_kernel(int32_t *p, int32_t v) { *p = v; }

#define GF_CUSPARSE(call)                                                                                                                                                                             \
  do {                                                                                                                                                                                                \
    const cusparseStatus_t st_ = (call);                                                                                                                                                              \
    if (st_ != CUSPARSE_STATUS_SUCCESS) throw Error(st_ == CUSPARSE_STATUS_ALLOC_FAILED ? ErrorKind::out_of_memory : ErrorKind::device, std::string(#call) + ": " + cusparseGetErrorString(st_)); \
  } while (0)

} // namespace

struct Ilu0::Impl {
  Ilu0Schedule schedule = Ilu0Schedule::levels;
  int32_t      n = 0, nlevels = 0;
  int64_t      nnz = 0;
  virtual ~Impl() = default;
  virtual int32_t factor(double *m, cudaStream_t stream) = 0;
};

namespace {

// levels, graph, sync_free on a Thrust system: M's diagonal positions and, for levels and graph,
// the rows sorted by L's level.
template <class Sys>
struct OursImpl final : Ilu0::Impl {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  const int32_t       *rowptr = nullptr, *colidx = nullptr;
  buf<int32_t>         diag, perm, flags; // flags: the pivot, then (sync_free) a done flag per row
  const int32_t       *lorder = nullptr;  // L's level order: the apply's where given (it outlives us), else perm
  std::vector<int32_t> level_ptr;
  DeviceBuffer<uint32_t> ticket;
  cudaGraphExec_t      exec     = nullptr; // graph: the level launches on `captured`
  const double        *captured = nullptr;

  static Sys system(cudaStream_t s)
  {
    if constexpr (std::is_same_v<Sys, HostSystem>) return HostSystem{};
    else return CudaOrderedSystem{{s}};
  }

  OursImpl(int32_t rows, int64_t entries, const int32_t *rp, const int32_t *ci, cudaStream_t stream, Ilu0Schedule s, const int32_t *order, const std::vector<int32_t> *order_ptr) : rowptr(rp), colidx(ci)
  {
    schedule = s, n = rows, nnz = entries;
    const Sys  sys = system(stream);
    diag.resize(n);
    const int32_t missing = level::find_diagonals(sys, n, rowptr, colidx, diag.data());
    if (missing < n) throw missing_diagonal(missing);
    flags.resize(1 + (s == Ilu0Schedule::sync_free ? (std::size_t)n : 0));
    if (s != Ilu0Schedule::sync_free) {
      if (order && order_ptr) { // the apply's (its L is M's strict lower part: these levels)
        lorder    = order;
        level_ptr = *order_ptr;
        nlevels   = (int32_t)level_ptr.size() - 1;
      } else {
        auto level = sys.template temp<int32_t>(n);
        level::levels_of(sys, n, level::Strict{n, rowptr, colidx, diag.data(), false}, colidx, level.data());
        perm.resize(n);
        nlevels = level::sort_by_level(sys, n, level.data(), perm.data(), level_ptr) + 1;
        lorder  = perm.data();
      }
    }
    if constexpr (!std::is_same_v<Sys, HostSystem>) ticket.resize(1);
    sys.sync();
  }
  ~OursImpl() override
  {
    if (exec) cudaGraphExecDestroy(exec);
  }

  EliminateRow<false> rows_of(double *m) const { return {rowptr, colidx, diag.data(), m, const_cast<int32_t *>(flags.data()), nullptr}; }

  // the levels' launches on a stream (the device), after the pivot's reset
  void launch_levels(double *m, cudaStream_t s) const
  {
    set_kernel<<<1, 1, 0, s>>>(const_cast<int32_t *>(flags.data()), n);
    for (int32_t l = 0; l < nlevels; ++l) {
      const int32_t b = level_ptr[l], count = level_ptr[l + 1] - b;
      level_rows_kernel<<<(unsigned)((count + kThreads - 1) / kThreads), kThreads, 0, s>>>(lorder + b, count, rows_of(m));
    }
    GPUFORMATS_CUDA(cudaGetLastError());
  }

  int32_t factor(double *m, cudaStream_t stream) override
  {
    if (n == 0) return -1;
    const Sys sys = system(stream);
    if constexpr (std::is_same_v<Sys, HostSystem>) {
      flags[0] = n;
      const EliminateRow<false> e = rows_of(m);
      if (schedule == Ilu0Schedule::sync_free)
        for (int32_t i = 0; i < n; ++i) e(i);
      else
        for (int32_t l = 0; l < nlevels; ++l) thrust::for_each(sys.policy(), lorder + level_ptr[l], lorder + level_ptr[l + 1], e);
    } else if (schedule == Ilu0Schedule::sync_free) {
      set_kernel<<<1, 1, 0, stream>>>(flags.data(), n);
      GPUFORMATS_CUDA(cudaMemsetAsync(flags.data() + 1, 0, sizeof(int32_t) * (std::size_t)n, stream));
      GPUFORMATS_CUDA(cudaMemsetAsync(ticket.data(), 0, sizeof(uint32_t), stream));
      const EliminateRow<true> e{rowptr, colidx, diag.data(), m, flags.data(), flags.data() + 1};
      sync_free_kernel<<<(unsigned)((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(n, e, ticket.data());
      GPUFORMATS_CUDA(cudaGetLastError());
    } else if (schedule == Ilu0Schedule::levels) {
      launch_levels(m, stream);
    } else { // graph: captured on a stream of its own (the caller's may be the legacy default stream)
      if (!exec || captured != m) {
        if (exec) cudaGraphExecDestroy(exec), exec = nullptr;
        cudaStream_t cs;
        cudaGraph_t  g;
        GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
        GPUFORMATS_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
        launch_levels(m, cs);
        const cudaError_t e = cudaStreamEndCapture(cs, &g);
        cudaStreamDestroy(cs);
        GPUFORMATS_CUDA(e);
        const cudaError_t ei = cudaGraphInstantiate(&exec, g, 0);
        cudaGraphDestroy(g);
        GPUFORMATS_CUDA(ei);
        captured = m;
      }
      GPUFORMATS_CUDA(cudaGraphLaunch(exec, stream));
    }
    const int32_t pivot = sys.get(flags.data()); // synchronises
    return pivot < n ? pivot : -1;
  }
};

// cusparse: csrilu02, its analysis at construction (the baseline; what PETSc's own device ILU(0) runs).
struct CusparseImpl final : Ilu0::Impl {
  cusparseHandle_t   handle = nullptr;
  cusparseMatDescr_t descr  = nullptr;
  csrilu02Info_t     info   = nullptr;
  DeviceBuffer<char> buffer;
  const int32_t     *rowptr = nullptr, *colidx = nullptr;

  CusparseImpl(int32_t rows, int64_t entries, const int32_t *d_rowptr, const int32_t *d_colidx, cudaStream_t stream) : rowptr(d_rowptr), colidx(d_colidx)
  {
    schedule = Ilu0Schedule::cusparse, n = rows, nnz = entries;
    if (nnz > INT32_MAX) throw Error(ErrorKind::unsupported, "ILU(0) by cuSPARSE: more than 2^31 nonzeros (-mat_gpuformats_trisolve_factor levels has no such limit)");
    if (n == 0) return; // nothing to factor (cuSPARSE refuses an empty matrix)
    GF_CUSPARSE(cusparseCreate(&handle));
    GF_CUSPARSE(cusparseSetStream(handle, stream));
    GF_CUSPARSE(cusparseCreateMatDescr(&descr));
    GF_CUSPARSE(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO));
    GF_CUSPARSE(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL));
    GF_CUSPARSE(cusparseCreateCsrilu02Info(&info));
    DeviceBuffer<double> probe(nnz ? nnz : 1); // the analysis reads the pattern only; the calls want a value array
    int                  size = 0;
    GF_CUSPARSE(cusparseDcsrilu02_bufferSize(handle, n, (int)nnz, descr, probe.data(), rowptr, colidx, info, &size));
    buffer.resize(size > 0 ? size : 1);
    GF_CUSPARSE(cusparseDcsrilu02_analysis(handle, n, (int)nnz, descr, probe.data(), rowptr, colidx, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer.data()));
    int pivot = -1;
    if (cusparseXcsrilu02_zeroPivot(handle, info, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT) throw missing_diagonal(pivot);
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
  }
  ~CusparseImpl() override
  {
    if (info) cusparseDestroyCsrilu02Info(info);
    if (descr) cusparseDestroyMatDescr(descr);
    if (handle) cusparseDestroy(handle);
  }
  int32_t factor(double *m, cudaStream_t stream) override
  {
    if (n == 0) return -1;
    GF_CUSPARSE(cusparseSetStream(handle, stream));
    GF_CUSPARSE(cusparseDcsrilu02(handle, n, (int)nnz, descr, m, rowptr, colidx, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer.data()));
    int pivot = -1; // synchronises
    return cusparseXcsrilu02_zeroPivot(handle, info, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT ? (int32_t)pivot : -1;
  }
};

} // namespace

Ilu0::Ilu0(int32_t n, int64_t nnz, const int32_t *rowptr, const int32_t *colidx, Backend backend, cudaStream_t stream, Ilu0Schedule schedule, const int32_t *level_order, const std::vector<int32_t> *level_ptr)
{
  if (schedule == Ilu0Schedule::cusparse) {
    if (backend != Backend::cuda) throw Error(ErrorKind::unsupported, "ILU(0) by cuSPARSE (-mat_gpuformats_trisolve_factor cusparse) runs on the cuda backend only");
    impl_ = std::make_unique<CusparseImpl>(n, nnz, rowptr, colidx, stream);
  } else if (backend == Backend::cuda) impl_ = std::make_unique<OursImpl<CudaOrderedSystem>>(n, nnz, rowptr, colidx, stream, schedule, level_order, level_ptr);
  else impl_ = std::make_unique<OursImpl<HostSystem>>(n, nnz, rowptr, colidx, stream, schedule, level_order, level_ptr);
}
Ilu0::~Ilu0() = default;
int32_t      Ilu0::factor(double *values, cudaStream_t stream) { return impl_->factor(values, stream); }
Ilu0Schedule Ilu0::schedule() const { return impl_->schedule; }
int32_t      Ilu0::levels() const { return impl_->nlevels; }

} // namespace trisolve
} // namespace gpuformats
