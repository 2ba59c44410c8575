// The triangular apply (trisolve.hpp) on both backends. The operators' values come from M by
// __host__ __device__ functors that Thrust runs where the backend is (thrust::host in CI, the GPU
// otherwise: test_trisolve runs this very code on the host), and go into the layouts through their
// slot maps; the products are the formats' own. The levelset mode's triangles are level_solve.cuh's.
// ILU(0) (Ilu0) is ilu0_cuda.cu's.
//
// The level-scheduled exact solve's device schedules (Mode::levelset), ILU(0) of ksp ex45 128^3,
// time per apply and in products of A in evchyb.
// One H100 (bench/results/h100/trisolve-tiles/), tiles (levels x planes,
// threads, blocks per SM):
//   tiles, chosen shape (8 x 2, 256, 1)  1.401 ms  14.5   (kept: the default schedule)
//   tiles 4 x 2, 256, 1                  1.498 ms
//   tiles 8 x 4, 512, 1                  1.530 ms
//   tiles 16 x 2, 512, 1                 1.588 ms
//   tiles 8 x 1, 256, 2                  1.712 ms
//   cuSPARSE's SpSV (mode cusparse)      1.695 ms  17.5
// One H200 (bench/results/h200/trisolve-levelset/):
//   sync_free, 1 resident block per SM   2.644 ms  32.4
//   sync_free, 2 per SM                  2.724 ms  33.4
//   sync_free, 4 per SM                  3.052 ms  37.4
//   sync_free, a block per row block     5.259 ms  64.4   (every block polls at once)
//   graph: a launch per level, captured  2.957 ms  36.2
//   levels: a launch per level           3.647 ms  44.7
//   sync_free, FP32 values               2.567 ms  31.5   (latency-bound: bytes do not matter)
//   cuSPARSE's SpSV (mode cusparse)      1.616 ms  19.8
// Awaiting a row's read values one by one instead of together: 3.04 ms (2 per SM). A sleep
// between polls (100, 200, 500 ns) was slower at every residency tried.
#include "trisolve.hpp"

#include "level_solve.cuh"
#include "../core/host_upload.hpp"
#include "../core/text.hpp"
#include "../core/thrust_system.cuh"
#include "../formats/slot_map.hpp"

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

namespace gpuformats {
namespace trisolve {
namespace {

// M's value at column c of the sorted columns [lo, hi) of a row; 0 outside the pattern.
__host__ __device__ inline double entry(const int32_t *colidx, const double *m, int32_t lo, int32_t hi, int32_t c)
{
  const int32_t end = hi;
  while (lo < hi) {
    const int32_t mid = lo + ((hi - lo) >> 1);
    if (colidx[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && colidx[lo] == c ? m[lo] : 0.0;
}

// out[k] = m[src[k]] (/ m[div[k]]): a strict triangle's values (Us' = D^-1 strict upper).
struct GatherPart {
  const double  *m;
  const int32_t *src, *div;
  double        *out;
  __host__ __device__ void operator()(int32_t k) const { out[k] = div ? m[src[k]] / m[div[k]] : m[src[k]]; }
};

struct InverseDiagonal {
  const double  *m;
  const int32_t *diag;
  double        *out;
  __host__ __device__ void operator()(int32_t i) const { out[i] = 1.0 / m[diag[i]]; }
};

// Row i of LI ~ L^-1 (positions prow[i] .. prow[i+1], columns pcol; i last): L(J, J)^T m = e_i by
// back substitution, L unit: m_last = 1, m_p = -sum_{q > p} L(J_q, J_p) m_q, L(J_q, J_p) from the
// strict lower part of M's row J_q. Row i of UI ~ U^-1 (i first): U(J, J)^T m = e_i forward,
// m_0 = 1 / U(i, i), m_p = -(sum_{q < p} U(J_q, J_p) m_q) / U(J_p, J_p), from the strict upper part.
template <bool Upper>
struct Isai {
  const int32_t *rowptr, *colidx, *diag;
  const double  *m;
  const int32_t *prow, *pcol;
  double        *out;
  __host__ __device__ void operator()(int32_t i) const
  {
    const int32_t b = prow[i], e = prow[i + 1];
    out[Upper ? b : e - 1] = Upper ? 1.0 / m[diag[i]] : 1.0;
    for (int32_t step = 1; step < e - b; ++step) {
      const int32_t p = Upper ? b + step : e - 1 - step, jp = pcol[p];
      double        s = 0.0;
      for (int32_t q = Upper ? b : p + 1; q < (Upper ? p : e); ++q) {
        const int32_t jq = pcol[q];
        s += entry(colidx, m, Upper ? diag[jq] + 1 : rowptr[jq], Upper ? rowptr[jq + 1] : diag[jq], jp) * out[q];
      }
      out[p] = Upper ? -s / m[diag[jp]] : -s;
    }
  }
};

// The probe's entry i: a hash of i mapped to [-1, 1) (24 bits).
__host__ __device__ inline double probe_entry(int32_t i)
{
  uint32_t h = (uint32_t)i * 2654435761u + 0x9e3779b9u;
  h ^= h >> 15, h *= 0x2c1b3c6du, h ^= h >> 12, h *= 0x297a2d39u, h ^= h >> 15;
  return (double)(h >> 8) * (1.0 / 8388608.0) - 1.0;
}

struct Probe {
  double *out;
  __host__ __device__ void operator()(int32_t i) const { out[i] = probe_entry(i); }
};

// w = U x: row i of M from its diagonal on.
struct UpperTimes {
  const int32_t *rowptr, *colidx, *diag;
  const double  *m, *x;
  double        *w;
  __host__ __device__ void operator()(int32_t i) const
  {
    double s = 0.0;
    for (int32_t k = diag[i]; k < rowptr[i + 1]; ++k) s += m[k] * x[colidx[k]];
    w[i] = s;
  }
};

// r = b - L w, L unit lower: row i of M before its diagonal.
struct LowerResidual {
  const int32_t *rowptr, *colidx, *diag;
  const double  *m, *w, *b;
  double        *r;
  __host__ __device__ void operator()(int32_t i) const
  {
    double s = w[i];
    for (int32_t k = rowptr[i]; k < diag[i]; ++k) s += m[k] * w[colidx[k]];
    r[i] = b[i] - s;
  }
};

// row_of[q] = the row of CSR position q.
struct RowOfPosition {
  const int32_t *rowptr;
  int32_t       *row_of;
  __host__ __device__ void operator()(int32_t i) const
  {
    for (int32_t q = rowptr[i]; q < rowptr[i + 1]; ++q) row_of[q] = i;
  }
};

struct Square {
  __host__ __device__ double operator()(double v) const { return v * v; }
};

// One operator: a part of M (or its approximate inverse) in a layout, with what fills its values.
template <class Sys>
struct Part {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  buf<int32_t>                 src, div;       // sweeps: M's position of each entry (and of its divisor)
  buf<int32_t>                 rowptr, colidx; // isai: the pattern whose rows the functors solve
  buf<double>                  csr;            // the values in CSR order, before the scatter
  std::unique_ptr<FormatBlock> blk;
  int64_t                      nnz = 0;
};

template <class Sys>
Sys make_system(cudaStream_t s);
template <>
HostSystem make_system<HostSystem>(cudaStream_t) { return HostSystem{}; }
template <>
CudaOrderedSystem make_system<CudaOrderedSystem>(cudaStream_t s) { return CudaOrderedSystem{{s}}; }

template <class T, class Sys>
void put(const Sys &sys, typename Sys::template buffer<T> &dst, const std::vector<T> &src)
{
  dst.resize(src.size());
  sys.to_system(dst.data(), src.data(), src.size());
}

} // namespace

struct TriangularApply::Impl {
  Mode                 mode;
  int                  sweeps = 0;
  Backend              backend;
  int32_t              n   = 0;
  int64_t              nnz = 0;
  const FormatOps     *format = nullptr;
  std::size_t          bytes  = 0;
  virtual ~Impl()      = default;
  virtual void           set_values(const double *m, cudaStream_t s)                       = 0;
  virtual void           apply(const double *b, double *x, cudaStream_t s) const            = 0;
  virtual void           apply_transpose(const double *b, double *x, cudaStream_t s) const  = 0;
  virtual double         probe_residual(const double *m, cudaStream_t s) const              = 0;
  virtual const int32_t *rowptr() const                                                     = 0;
  virtual const int32_t *colidx() const                                                     = 0;
  virtual double         flops() const                                                      = 0;
  virtual int32_t        levels(bool upper) const                                           = 0;
  virtual const int32_t *lower_level_order(const std::vector<int32_t> **ptr) const { return *ptr = nullptr, nullptr; }
  virtual void           describe(std::vector<LayoutStat> &out) const                       = 0;
};

namespace {

// What every mode keeps: M's pattern and diagonal on the backend, work vectors, the probe.
template <class Sys>
struct Common : TriangularApply::Impl {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  buf<int32_t>        m_rowptr, m_colidx, m_diag;
  mutable buf<double> w[3];     // work vectors
  mutable buf<double> probe[3]; // probe_residual's b, x and r (made at its first call)

  // M's pattern uploaded from its host arrays and its diagonal found on the backend (no host copy:
  // at 256^3 the pattern is half a gigabyte); Error(bad_input) as diagonal_of's.
  void init(const Sys &sys, const CsrView &M, Mode md, Backend be)
  {
    if (M.nrows != M.ncols) throw Error(ErrorKind::bad_input, "triangular factors of a non-square matrix (" + std::to_string(M.nrows) + " x " + std::to_string(M.ncols) + ")");
    mode = md, backend = be, n = M.nrows, nnz = M.nnz;
    m_rowptr.resize(n + 1), m_colidx.resize(nnz), m_diag.resize(n);
    if constexpr (std::is_same_v<Sys, HostSystem>) {
      sys.to_system(m_rowptr.data(), M.rowptr, (std::size_t)n + 1);
      sys.to_system(m_colidx.data(), M.colidx, (std::size_t)nnz);
    } else { // staged through pinned buffers, as the formats' uploads (core/host_upload.hpp)
      host_to_device(m_rowptr.data(), M.rowptr, sizeof(int32_t) * ((std::size_t)n + 1), sys.stream, default_upload_threads());
      host_to_device(m_colidx.data(), M.colidx, sizeof(int32_t) * (std::size_t)nnz, sys.stream, default_upload_threads());
    }
    const int32_t missing = level::find_diagonals(sys, n, m_rowptr.data(), m_colidx.data(), m_diag.data());
    if (missing < n) throw missing_diagonal(missing);
    for (auto &v : w) v.resize(n);
  }

  double probe_residual(const double *m, cudaStream_t stream) const override
  {
    if (n == 0) return 0.0;
    const Sys  sys = make_system<Sys>(stream);
    const auto it0 = thrust::make_counting_iterator<int32_t>(0);
    if (probe[0].size() != (std::size_t)n) {
      for (auto &v : probe) v.resize(n);
      thrust::for_each(sys.policy(), it0, it0 + n, Probe{probe[0].data()});
    }
    double *b = probe[0].data(), *x = probe[1].data(), *r = probe[2].data();
    apply(b, x, stream);
    // u = U x in a work vector (the apply is done with them), then r = b - L u
    double *u = w[0].data();
    thrust::for_each(sys.policy(), it0, it0 + n, UpperTimes{m_rowptr.data(), m_colidx.data(), m_diag.data(), m, x, u});
    thrust::for_each(sys.policy(), it0, it0 + n, LowerResidual{m_rowptr.data(), m_colidx.data(), m_diag.data(), m, u, b, r});
    const double rr = thrust::transform_reduce(sys.policy(), r, r + n, Square{}, 0.0, thrust::plus<double>());
    const double bb = thrust::transform_reduce(sys.policy(), b, b + n, Square{}, 0.0, thrust::plus<double>());
    const double q  = std::sqrt(rr / bb);
    return std::isfinite(q) ? q : INFINITY;
  }

  const int32_t *rowptr() const override { return m_rowptr.data(); }
  const int32_t *colidx() const override { return m_colidx.data(); }
};

// Mode::levelset: L and U of M level-scheduled (level_solve.cuh); L^T and U^T, as the triangles of
// M^T, made at the first transposed solve.
template <class Sys>
struct ExactImpl final : Common<Sys> {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  ExactOptions                    opt;
  const level::TileShape          shape;
  level::Triangle<Sys>            lower, upper;      // L (unit), U
  mutable level::Triangle<Sys>    tlower, tupper;    // U^T, L^T (unit)
  mutable buf<double>             y;                 // the first triangle's result: pending between applies
  mutable const double           *m_last = nullptr;  // set_values's array: the transposes' values
  bool                            valued    = false; // set_values ran
  mutable bool                    t_current = false; // tlower / tupper hold m_last's values
  mutable DeviceBuffer<uint32_t>  tickets;           // device: the sync-free solves' tickets
  struct Graph {                                     // Schedule::graph: an apply's level launches on bx -> xx
    cudaGraphExec_t exec = nullptr;
    ~Graph() { if (exec) cudaGraphExecDestroy(exec); }
  };
  mutable Graph                   graphs[2];         // apply, apply_transpose
  mutable DeviceBuffer<double>    bx[2];             // the graphs' right-hand side and result
  double                          ms_pattern = 0;    // setup: M's pattern uploaded, its diagonal found
  const lines::Options            lopt;

  ExactImpl(const CsrView &M, Backend be, cudaStream_t stream, ExactOptions o) : opt(o), shape{o.tile_levels, o.tile_chunk, o.tile_rows, o.tile_kb, o.tile_kc, o.tile_smem}, lopt{o.lines_chunk, o.lines_warps, o.lines_spread, o.lines_ring, 0, 0, o.schedule == Schedule::automatic ? lines::kAutoWidth : 0, 1, o.lines_required && o.schedule == Schedule::automatic}
  {
    const Sys                   sys = make_system<Sys>(stream);
    typename level::Triangle<Sys>::Lap lap;
    this->init(sys, M, Mode::levelset, be);
    ms_pattern = lap(sys);
    const level::TileShape *ts = tiles();
    std::vector<int32_t> hdiag; // the lines plan reads M's pattern where the caller has it, on the host
    if (lines_opt()) hdiag.resize(this->n), sys.to_host(hdiag.data(), this->m_diag.data(), hdiag.size());
    const lines::Pattern hp{this->n, M.rowptr, M.colidx, hdiag.data()};
    // L and U are independent: U is built on a second host thread (and stream) beside L, so that
    // one triangle's host plan overlaps the other's plan and device passes
    beside(sys, [&](const Sys &us) { upper.build(us, this->n, this->m_rowptr.data(), this->m_colidx.data(), this->m_diag.data(), nullptr, true, false, opt.single, ts, false, lines_opt(), &hp); },
           [&] { lower.build(sys, this->n, this->m_rowptr.data(), this->m_colidx.data(), this->m_diag.data(), nullptr, false, true, opt.single, ts, true, lines_opt(), &hp); });
    y.resize(this->n);
    double pending;
    std::memcpy(&pending, &level::kPending, sizeof pending);
    thrust::fill(sys.policy(), y.data(), y.data() + this->n, pending);
    if constexpr (!std::is_same_v<Sys, HostSystem>) {
      tickets.resize(2);
      GPUFORMATS_CUDA(cudaMemsetAsync(tickets.data(), 0, tickets.bytes(), stream));
    }
    sys.sync();
    this->bytes = lower.bytes() + upper.bytes();
  }

  // side(system) on a second host thread, on a stream of its own after sys's work so far (the
  // same device), while here() runs on this one; both done on return, the first failure rethrown.
  template <class Side, class Here>
  static void beside(const Sys &sys, Side &&side, Here &&here)
  {
    cudaStream_t s2 = nullptr;
    cudaEvent_t  ev = nullptr;
    int          dev = 0;
    if constexpr (!std::is_same_v<Sys, HostSystem>) {
      GPUFORMATS_CUDA(cudaGetDevice(&dev));
      GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
      GPUFORMATS_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
      GPUFORMATS_CUDA(cudaEventRecord(ev, sys.stream));
      GPUFORMATS_CUDA(cudaStreamWaitEvent(s2, ev, 0));
    }
    std::exception_ptr e_side, e_here;
    std::thread        t([&] {
      try {
        if constexpr (!std::is_same_v<Sys, HostSystem>) GPUFORMATS_CUDA(cudaSetDevice(dev));
        const Sys ss = make_system<Sys>(s2);
        side(ss);
        ss.sync();
      } catch (...) {
        e_side = std::current_exception();
      }
    });
    try {
      here();
    } catch (...) {
      e_here = std::current_exception();
    }
    t.join();
    if constexpr (!std::is_same_v<Sys, HostSystem>) {
      cudaEventDestroy(ev);
      cudaStreamDestroy(s2);
    }
    if (e_here) std::rethrow_exception(e_here);
    if (e_side) std::rethrow_exception(e_side);
  }

  // Schedule::tiles's shape for the triangles (and their transposes); null for the other schedules
  const level::TileShape *tiles() const { return opt.schedule == Schedule::tiles || lined() ? &shape : nullptr; }
  // Schedule::lines's plan options (null for the schedules without lines)
  bool                    lined() const { return opt.schedule == Schedule::lines || opt.schedule == Schedule::automatic; }
  const lines::Options   *lines_opt() const { return lined() ? &lopt : nullptr; }

  void set_values(const double *m, cudaStream_t stream) override
  {
    const Sys sys = make_system<Sys>(stream);
    lower.set_values(sys, m);
    upper.set_values(sys, m);
    m_last = m, valued = true, t_current = false;
  }

  // x = second^-1 first^-1 b through y (level_solve.cuh's SolveRow: mark and consume).
  void solve_pair(const Sys &sys, const level::Triangle<Sys> &first, const level::Triangle<Sys> &second, const double *b, double *x) const
  {
    uint32_t *t0 = tickets.data(), *t1 = t0 ? t0 + 1 : nullptr;
    first.solve(sys, const_cast<double *>(b), y.data(), x, false, opt, t0, t1); // b is only read
    second.solve(sys, y.data(), x, nullptr, true, opt, t1, t0);
  }

  // Schedule::graph: the pair captured once on a stream of its own, over bx, launched between two copies.
  void solve_graph(const Sys &sys, int which, const level::Triangle<Sys> &first, const level::Triangle<Sys> &second, const double *b, double *x) const
  {
    if constexpr (!std::is_same_v<Sys, HostSystem>) {
      const std::size_t bytes = sizeof(double) * (std::size_t)this->n;
      if (!graphs[which].exec) {
        if (bx[0].size() == 0) bx[0].resize(std::max<int32_t>(this->n, 1)), bx[1].resize(std::max<int32_t>(this->n, 1));
        cudaStream_t cs;
        cudaGraph_t  g;
        GPUFORMATS_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
        GPUFORMATS_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
        const Sys    cap = make_system<Sys>(cs);
        ExactOptions levels = opt;
        levels.schedule     = Schedule::levels;
        first.solve(cap, bx[0].data(), y.data(), bx[1].data(), false, levels, nullptr, nullptr);
        second.solve(cap, y.data(), bx[1].data(), nullptr, true, levels, nullptr, nullptr);
        const cudaError_t e = cudaStreamEndCapture(cs, &g);
        cudaStreamDestroy(cs);
        GPUFORMATS_CUDA(e);
        const cudaError_t ei = cudaGraphInstantiate(&graphs[which].exec, g, 0);
        cudaGraphDestroy(g);
        GPUFORMATS_CUDA(ei);
      }
      GPUFORMATS_CUDA(cudaMemcpyAsync(bx[0].data(), b, bytes, cudaMemcpyDeviceToDevice, sys.stream));
      GPUFORMATS_CUDA(cudaGraphLaunch(graphs[which].exec, sys.stream));
      GPUFORMATS_CUDA(cudaMemcpyAsync(x, bx[1].data(), bytes, cudaMemcpyDeviceToDevice, sys.stream));
      return;
    }
    solve_pair(sys, first, second, b, x);
  }

  void apply(const double *b, double *x, cudaStream_t stream) const override
  {
    if (opt.schedule == Schedule::graph) solve_graph(make_system<Sys>(stream), 0, lower, upper, b, x);
    else solve_pair(make_system<Sys>(stream), lower, upper, b, x);
  }

  void apply_transpose(const double *b, double *x, cudaStream_t stream) const override
  {
    const Sys sys = make_system<Sys>(stream);
    if (!valued) throw Error(ErrorKind::internal, "trisolve: a transposed solve before set_values");
    if (tlower.level_ptr.empty()) build_transposes(sys);
    if (!t_current) tlower.set_values(sys, m_last), tupper.set_values(sys, m_last), t_current = true;
    if (opt.schedule == Schedule::graph) solve_graph(sys, 1, tlower, tupper, b, x);
    else solve_pair(sys, tlower, tupper, b, x);
  }

  // M^T's pattern on the backend: M's positions sorted stably by column (tpos: M^T entry -> M),
  // M^T's columns the rows of those positions; then its triangles, the values read through tpos.
  void build_transposes(const Sys &sys) const
  {
    const int32_t n = this->n;
    const int64_t nz = this->nnz;
    const auto    it0 = thrust::make_counting_iterator<int32_t>(0);
    auto          keys = sys.template temp<int32_t>(nz), pos = sys.template temp<int32_t>(nz), tpos = sys.template temp<int32_t>(nz);
    auto          row_of = sys.template temp<int32_t>(nz), tcol = sys.template temp<int32_t>(nz), trow = sys.template temp<int32_t>(n + 1), tdiag = sys.template temp<int32_t>(n);
    thrust::sequence(sys.policy(), pos.data(), pos.data() + nz);
    if (nz > 0) sys.sort_pairs(this->m_colidx.data(), keys.data(), pos.data(), tpos.data(), (int32_t)nz, std::max(1, bits_for((uint32_t)(n - 1))));
    thrust::lower_bound(sys.policy(), keys.data(), keys.data() + nz, it0, it0 + n + 1, trow.data());
    thrust::for_each(sys.policy(), it0, it0 + n, RowOfPosition{this->m_rowptr.data(), row_of.data()});
    thrust::gather(sys.policy(), tpos.data(), tpos.data() + nz, row_of.data(), tcol.data());
    thrust::for_each(sys.policy(), it0, it0 + n, level::DiagonalPosition{trow.data(), tcol.data(), tdiag.data()});
    const level::TileShape *ts = tiles();
    lines::Options          to = lopt;
    to.required                = false; // the forward solves are ours already: a transpose without lines takes tiles
    tlower.build(sys, n, trow.data(), tcol.data(), tdiag.data(), tpos.data(), false, false, opt.single, ts, false, lined() ? &to : nullptr);
    tupper.build(sys, n, trow.data(), tcol.data(), tdiag.data(), tpos.data(), true, true, opt.single, ts, false, lined() ? &to : nullptr);
  }

  std::string schedule_text() const
  {
    switch (opt.schedule) {
    case Schedule::sync_free: return "one sync-free launch per triangle";
    case Schedule::levels: return "one launch per level";
    case Schedule::graph: return "one launch per level, from a CUDA graph";
    case Schedule::tiles: return "one launch per triangle, tiles of levels solved in shared memory";
    case Schedule::lines: return "one launch per triangle, lines of rows pipelined a row per step (tiles where the plan refuses)";
    case Schedule::automatic: return "one launch per triangle, lines of rows pipelined a row per step where a triangle has them and they fill the SMs, tiles where not";
    }
    return "";
  }
  double  flops() const override { return 2.0 * (double)(lower.nnz + upper.nnz) + (double)this->n; }
  int32_t levels(bool up) const override { return (up ? upper : lower).levels(); }
  const int32_t *lower_level_order(const std::vector<int32_t> **ptr) const override { return *ptr = &lower.level_ptr, lower.order.data(); }
  void    describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"triangular apply", std::string("levelset: level-scheduled exact solves, ") + schedule_text() + ", factor values in " + (opt.single ? "FP32 (the diagonal, arithmetic and vectors in FP64)" : "FP64")});
    out.push_back({"L (unit lower)", std::to_string(lower.nnz) + " nonzeros, " + std::to_string(lower.levels()) + " levels"});
    out.push_back({"U (upper)", std::to_string(upper.nnz) + " nonzeros and the diagonal, " + std::to_string(upper.levels()) + " levels"});
    if (opt.schedule == Schedule::tiles || lined()) {
      const auto tiles = [](const level::Triangle<Sys> &t) {
        if (!t.tiled) return "none: a tile needed " + std::to_string(t.untiled_smem) + " bytes of shared memory, more than a block has; solved sync-free";
        return std::to_string(t.ntiles) + " of " + std::to_string(t.band) + " levels and at most " + std::to_string(t.rows_cap) + " rows, " + std::to_string(t.nsegs) + " levels in all, chunks of " + std::to_string(t.width) + " rows, " + std::to_string(t.nhalo) + " reads across tiles";
      };
      if (!lower.lined) out.push_back({"L tiles", tiles(lower)});
      if (!upper.lined) out.push_back({"U tiles", tiles(upper)});
    }
    if (lined()) {
      const auto plan = [](const level::Triangle<Sys> &t) {
        if (!t.lined) return "none: " + t.unlined + "; solved in tiles";
        const lines::Plan &P = t.ln.stats;
        return "lines of " + std::to_string(P.C) + " rows, " + std::to_string(P.nwarps) + " warps in " + std::to_string(P.nblocks) + " blocks of " + std::to_string(P.wpb) + ", " + std::to_string(P.steps) + " steps, reads " + std::to_string(P.shared_refs) + " in shared memory (ring of " + std::to_string(P.R) + "), " +
               std::to_string(P.global_refs) + " of the block and " + std::to_string(P.cross_refs) + " of other blocks from global memory, plan " + format_number(t.ln.ms_plan, "%.1f") + " ms, fill " + format_number(t.ln.ms_fill, "%.1f") + " ms";
      };
      out.push_back({"L lines", plan(lower)});
      out.push_back({"U lines", plan(upper)});
    }
    const auto ms  = [](double v) { return format_number(v, "%.1f"); };
    const auto tri = [&](const level::Triangle<Sys> &t) { return "levels " + ms(t.ms_levels) + ", level order " + ms(t.ms_order) + ", slots " + ms(t.ms_slots) + (t.tiled ? ", halos " + ms(t.ms_halo) : std::string()); };
    out.push_back({"setup ms", "pattern " + ms(ms_pattern) + "; L: " + tri(lower) + "; U: " + tri(upper)});
    out.push_back({"apply bytes", std::to_string(this->bytes) + (lower.lined || upper.lined ? " (lines: ELL by step" : opt.schedule == Schedule::tiles || lined() ? " (ELL by tile level" : " (sliced ELL in level order") + ", padding " + std::to_string(lower.slots + upper.slots - lower.nnz - upper.nnz) + " slots)"});
  }
};

template <class Sys>
struct ImplT final : Common<Sys> {
  template <class T>
  using buf = typename Sys::template buffer<T>;
  using Base = Common<Sys>;
  using Base::m_rowptr, Base::m_colidx, Base::m_diag, Base::w, Base::mode, Base::sweeps, Base::backend, Base::n, Base::format, Base::bytes;
  Part<Sys>           lower, upper; // sweeps: Ls and Us'; isai: LI and UI
  buf<double>         dinv;         // sweeps

  ImplT(const CsrView &M, Mode md, int k, const FormatOps &fmt, Backend be, cudaStream_t stream)
  {
    const Sys                  sys  = make_system<Sys>(stream);
    const std::vector<int32_t> diag = diagonal_of(M);
    this->init(sys, M, md, be);
    sweeps = k;
    // the layouts: the matrix's format where it needs no streams of its own and takes the part
    format = fmt.extra_streams ? find_format("evchyb") : &fmt;
    for (int t = 0; t < 2; ++t) { // 0: lower, 1: upper
      Part<Sys>           &P = t ? upper : lower;
      std::vector<int32_t> rowptr{0}, colidx, src, div;
      for (int32_t i = 0; i < n; ++i) {
        // sweeps: the strict triangle; isai: with the diagonal
        const int32_t b = t ? diag[i] + (md == Mode::sweeps) : M.rowptr[i], e = t ? M.rowptr[i + 1] : diag[i] + (md == Mode::isai);
        for (int32_t q = b; q < e; ++q) {
          colidx.push_back(M.colidx[q]);
          src.push_back(q);
          if (t) div.push_back(diag[i]);
        }
        rowptr.push_back((int32_t)colidx.size());
      }
      P.nnz = (int64_t)colidx.size();
      const std::vector<double> zeros(P.nnz, 0.0);
      const CsrView             view{n, n, P.nnz, rowptr.data(), colidx.data(), zeros.data()};
      P.blk = build(view, stream);
      P.csr.resize(P.nnz);
      if (md == Mode::sweeps) {
        put<int32_t>(sys, P.src, src);
        if (t) put<int32_t>(sys, P.div, div);
      } else {
        put<int32_t>(sys, P.rowptr, rowptr);
        put<int32_t>(sys, P.colidx, colidx);
      }
      bytes += P.blk->bytes() * (md == Mode::sweeps ? k : 1);
    }
    if (md == Mode::sweeps) dinv.resize(n);
    // vectors: sweeps read b and write t per sweep and the product reads y (3 per sweep and
    // triangle), plus D^-1 y; isai: two products of 3 vector passes
    bytes += sizeof(double) * (std::size_t)n * (md == Mode::sweeps ? 6 * k + 3 : 6);
    sys.sync();
  }

  std::unique_ptr<FormatBlock> build(const CsrView &view, cudaStream_t stream)
  {
    for (const FormatOps *f : {format, find_format("evchyb")}) {
      const std::vector<int64_t> params = default_params(*f);
      try {
        auto blk = backend == Backend::cuda ? f->build_cuda(view, params.data(), stream, UploadContext{}) : f->build_host(view, params.data());
        format   = f;
        return blk;
      } catch (const Error &e) {
        if (e.kind != ErrorKind::unsupported || f == find_format("evchyb")) throw;
      }
    }
    throw Error(ErrorKind::internal, "trisolve: no layout for a triangle");
  }

  void scatter(const Sys &sys, Part<Sys> &P) const
  {
    thrust::scatter(sys.policy(), P.csr.data(), P.csr.data() + P.nnz, P.blk->slot_of_csr, P.blk->values);
  }

  void set_values(const double *m, cudaStream_t stream) override
  {
    const Sys  sys = make_system<Sys>(stream);
    const auto all = [](int64_t count) { return thrust::make_counting_iterator<int32_t>(0) + count; };
    const auto it0 = thrust::make_counting_iterator<int32_t>(0);
    if (mode == Mode::sweeps) {
      thrust::for_each(sys.policy(), it0, all(lower.nnz), GatherPart{m, lower.src.data(), nullptr, lower.csr.data()});
      thrust::for_each(sys.policy(), it0, all(upper.nnz), GatherPart{m, upper.src.data(), upper.div.data(), upper.csr.data()});
      thrust::for_each(sys.policy(), it0, all(n), InverseDiagonal{m, m_diag.data(), dinv.data()});
    } else {
      thrust::for_each(sys.policy(), it0, all(n), Isai<false>{m_rowptr.data(), m_colidx.data(), m_diag.data(), m, lower.rowptr.data(), lower.colidx.data(), lower.csr.data()});
      thrust::for_each(sys.policy(), it0, all(n), Isai<true>{m_rowptr.data(), m_colidx.data(), m_diag.data(), m, upper.rowptr.data(), upper.colidx.data(), upper.csr.data()});
    }
    scatter(sys, lower);
    scatter(sys, upper);
  }

  void apply(const double *b, double *x, cudaStream_t stream) const override
  {
    const Sys       sys = make_system<Sys>(stream);
    const StreamSet ss{backend == Backend::cuda ? &stream : nullptr, backend == Backend::cuda ? 1 : 0};
    double         *w0 = w[0].data(), *w1 = w[1].data(), *c = w[2].data();
    if (mode == Mode::isai) {
      lower.blk->spmv(1.0, b, 0.0, w0, ss);
      upper.blk->spmv(1.0, w0, 0.0, x, ss);
      return;
    }
    const double *y = b; // y_{k+1} = b - Ls y_k
    for (int k = 0; k < sweeps; ++k) {
      double *t = k % 2 ? w1 : w0;
      thrust::copy(sys.policy(), b, b + n, t);
      lower.blk->spmv(-1.0, y, 1.0, t, ss);
      y = t;
    }
    double *c0 = sweeps ? c : x; // c = D^-1 y; x_{k+1} = c - Us' x_k, the last into x
    thrust::transform(sys.policy(), y, y + n, dinv.data(), c0, thrust::multiplies<double>());
    const double *xk = c0;
    for (int k = 0; k < sweeps; ++k) {
      double *t = k == sweeps - 1 ? x : (k % 2 ? w1 : w0);
      thrust::copy(sys.policy(), c, c + n, t);
      upper.blk->spmv(-1.0, xk, 1.0, t, ss);
      xk = t;
    }
  }

  void apply_transpose(const double *, double *, cudaStream_t) const override
  {
    throw Error(ErrorKind::unsupported, std::string("trisolve: the transposed apply of mode ") + mode_name(mode) + " is not offered");
  }

  double flops() const override
  {
    const double entries = (double)lower.blk->nnz + (double)upper.blk->nnz;
    return mode == Mode::isai ? 2.0 * entries : 2.0 * sweeps * entries + n;
  }
  int32_t levels(bool) const override { return 0; }
  void    describe(std::vector<LayoutStat> &out) const override
  {
    const char *names[2][2] = {{"Ls (strict lower)", "Us' (D^-1 strict upper)"}, {"LI ~ L^-1", "UI ~ U^-1"}};
    const FormatBlock *p[2] = {lower.blk.get(), upper.blk.get()};
    out.push_back({"triangular apply", mode == Mode::isai ? "isai: x = UI (LI b)" : "sweeps: " + std::to_string(sweeps) + " Jacobi sweeps per triangle"});
    for (int t = 0; t < 2; ++t) out.push_back({names[mode == Mode::isai][t], std::string(format->root) + ", " + std::to_string(p[t]->nnz) + " nonzeros"});
    out.push_back({"apply bytes", std::to_string(bytes) + " in " + std::to_string(mode == Mode::isai ? 2 : 2 * sweeps) + " products"});
  }
};

} // namespace

TriangularApply::TriangularApply(const CsrView &pattern, Mode mode, int sweeps, const FormatOps &format, Backend backend, cudaStream_t stream, ExactOptions exact)
{
  if (sweeps < 0) throw Error(ErrorKind::bad_input, "trisolve: a negative number of sweeps");
  if (mode == Mode::levelset) {
    if (backend == Backend::cuda) impl_ = std::make_unique<ExactImpl<CudaOrderedSystem>>(pattern, backend, stream, exact);
    else impl_ = std::make_unique<ExactImpl<HostSystem>>(pattern, backend, stream, exact);
  } else if (backend == Backend::cuda) impl_ = std::make_unique<ImplT<CudaOrderedSystem>>(pattern, mode, sweeps, format, backend, stream);
  else impl_ = std::make_unique<ImplT<HostSystem>>(pattern, mode, sweeps, format, backend, stream);
}
TriangularApply::~TriangularApply() = default;

void           TriangularApply::set_values(const double *m, cudaStream_t s) { impl_->set_values(m, s); }
void           TriangularApply::apply(const double *b, double *x, cudaStream_t s) const { impl_->apply(b, x, s); }
void           TriangularApply::apply_transpose(const double *b, double *x, cudaStream_t s) const { impl_->apply_transpose(b, x, s); }
int32_t        TriangularApply::levels(bool upper) const { return impl_->levels(upper); }
const int32_t *TriangularApply::lower_level_order(const std::vector<int32_t> **level_ptr) const { return impl_->lower_level_order(level_ptr); }
double         TriangularApply::probe_residual(const double *m, cudaStream_t s) const { return impl_->probe_residual(m, s); }

std::vector<double> probe_vector(int32_t n)
{
  std::vector<double> b(n);
  for (int32_t i = 0; i < n; ++i) b[i] = probe_entry(i);
  return b;
}
const int32_t *TriangularApply::rowptr() const { return impl_->rowptr(); }
const int32_t *TriangularApply::colidx() const { return impl_->colidx(); }
int32_t        TriangularApply::nrows() const { return impl_->n; }
int64_t        TriangularApply::nnz() const { return impl_->nnz; }
Mode           TriangularApply::mode() const { return impl_->mode; }
std::size_t    TriangularApply::apply_bytes() const { return impl_->bytes; }
int            TriangularApply::products() const { return impl_->mode == Mode::isai ? 2 : impl_->mode == Mode::sweeps ? 2 * impl_->sweeps : 0; }
double         TriangularApply::apply_flops() const { return impl_->flops(); }
void           TriangularApply::describe(std::vector<LayoutStat> &out) const { impl_->describe(out); }

std::string lines_refuse_every_fill(const CsrView &A)
{
  lines::Options o;
  o.width = lines::kAutoWidth;
  if (sm_count_of_current_device(&o.sms) != cudaSuccess) cudaGetLastError(), o.sms = 0; // none: lines.hpp's 132
  return lines::refuses_every_fill(A.nrows, A.rowptr, A.colidx, o);
}

void scatter_to_pattern_cuda(const double *a, int64_t nnz_a, const int32_t *a_to_m, double *m, int64_t nnz_m, cudaStream_t stream)
{
  const CudaOrderedSystem sys = make_system<CudaOrderedSystem>(stream);
  if (nnz_m > 0) GPUFORMATS_CUDA(cudaMemsetAsync(m, 0, sizeof(double) * (std::size_t)nnz_m, stream));
  if (nnz_a > 0) thrust::scatter(sys.policy(), a, a + nnz_a, a_to_m, m);
}

} // namespace trisolve
} // namespace gpuformats
