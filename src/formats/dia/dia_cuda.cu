// DIA on the GPU: the product kernel (row_product of dia_rows.hpp, R rows per thread, R*256 rows
// per block, so a warp's loads stay coalesced for every r; full or mirrored reads), the count of
// rows that differ from their mirrors after every change of the values, and the device build
// (dia_device.cuh on CudaSystem). Layout and invariants: dia.hpp.
#include "dia_device.cuh"

#include "../../core/device_buffer.hpp"

namespace gpuformats {
namespace dia {

template <int R, bool Mirrored>
__global__ void __launch_bounds__(kThreads) dia_spmv(const KernelArgs k, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int64_t first = (int64_t)blockIdx.x * kThreads * R + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int64_t i = first + (int64_t)r * kThreads;
    if (i < k.nrows) row_product(k, (int32_t)i, Mirrored, alpha, x, beta, y);
  }
}

// The rows whose lower entries differ from their mirrors, counted: one ballot per warp.
__global__ void count_unmirrored_rows(const KernelArgs k, unsigned long long *count)
{
  const int64_t  j    = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  const uint32_t word = __ballot_sync(0xffffffffu, j < k.nrows && row_unmirrored(k, (int32_t)j));
  if ((threadIdx.x & 31) == 0 && word) atomicAdd(count, (unsigned long long)__popc(word));
}

namespace {

__global__ void scale_rows(int32_t n, double beta, double *y)
{
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

class CudaBlock : public FormatBlock {
public:
  Arrays<CudaSystem>               a;
  DeviceBuffer<unsigned long long> d_count;
  unsigned long long              *h_count = nullptr; // pinned: the count, read back without a sync
  cudaEvent_t                      counted = nullptr; // the count has arrived in h_count

  ~CudaBlock() override
  {
    if (counted) cudaEventDestroy(counted);
    if (h_count) cudaFreeHost(h_count);
  }
  void values_changed(cudaStream_t s) override
  {
    if (!a.paired || nrows == 0) return;
    if (!counted) {
      d_count.resize(1);
      GPUFORMATS_CUDA(cudaHostAlloc(&h_count, sizeof(*h_count), cudaHostAllocDefault));
      GPUFORMATS_CUDA(cudaEventCreateWithFlags(&counted, cudaEventDisableTiming));
    }
    GPUFORMATS_CUDA(cudaMemsetAsync(d_count.data(), 0, sizeof(unsigned long long), s));
    count_unmirrored_rows<<<(unsigned)(((int64_t)nrows + kThreads - 1) / kThreads), kThreads, 0, s>>>(a.kernel_args(), d_count.data());
    GPUFORMATS_CUDA(cudaGetLastError());
    GPUFORMATS_CUDA(cudaMemcpyAsync(h_count, d_count.data(), sizeof(*h_count), cudaMemcpyDeviceToHost, s));
    GPUFORMATS_CUDA(cudaEventRecord(counted, s));
  }
  // Mirrored reads once the count has arrived and says no row differs (until then full reads:
  // both give the product).
  bool mirrored() const
  {
    if (!a.paired || !counted) return false;
    if (cudaEventQuery(counted) != cudaSuccess) {
      cudaGetLastError(); // cudaErrorNotReady is no error here
      return false;
    }
    return *h_count == 0;
  }

  bool values_symmetric() const override { return mirrored(); }

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (nrows == 0) return;
    const cudaStream_t s = streams.main();
    if (a.ndiag == 0) {
      scale_rows<<<(unsigned)(((int64_t)nrows + kThreads - 1) / kThreads), kThreads, 0, s>>>(nrows, beta, y);
    } else {
      const bool       mir  = mirrored();
      const KernelArgs k    = a.kernel_args();
      const int64_t    rows = (int64_t)kThreads * a.rows_per_thread;
      const unsigned   grid = (unsigned)(((int64_t)nrows + rows - 1) / rows);
      auto             go   = [&](auto kernel) { kernel<<<grid, kThreads, 0, s>>>(k, alpha, x, beta, y); };
      switch (a.rows_per_thread) {
      case 1: mir ? go(dia_spmv<1, true>) : go(dia_spmv<1, false>); break;
      case 2: mir ? go(dia_spmv<2, true>) : go(dia_spmv<2, false>); break;
      default: mir ? go(dia_spmv<4, true>) : go(dia_spmv<4, false>); break;
      }
    }
    GPUFORMATS_CUDA(cudaGetLastError());
  }
  std::size_t bytes() const override { return stored_bytes(a); }
  void describe(std::vector<LayoutStat> &out) const override
  {
    int64_t marked = a.paired ? 0 : -1; // the view waits for the last count
    if (counted) {
      GPUFORMATS_CUDA(cudaEventSynchronize(counted));
      marked = (int64_t)*h_count;
    }
    dia::describe(a, marked, out);
  }
};

} // namespace

std::unique_ptr<FormatBlock> make_block_uploaded(const CsrView &A, const DeviceCsr &d, const Limits &lim, cudaStream_t stream)
{
  auto blk = std::make_unique<CudaBlock>();
  build_arrays(CudaSystem{stream}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, lim, blk->a); // synchronises
  blk->set_layout(Backend::cuda, A, blk->a.values.data(), blk->a.nslots, blk->a.slot_of_csr.data());
  blk->values_changed(stream);
  return blk;
}

} // namespace dia
} // namespace gpuformats
