// DIA on the GPU: the product kernel (row_product of dia_rows.hpp, R rows per thread, R*256 rows
// per block, so a warp's loads stay coalesced for every r), the rows' mirror marks after every change
// of the values, and the device build (dia_device.cuh on CudaSystem). Layout and invariants: dia.hpp.
#include "dia_device.cuh"

#include "../../core/device_buffer.hpp"

namespace gpuformats {
namespace dia {

template <int R>
__global__ void __launch_bounds__(kThreads) dia_spmv(const KernelArgs k, double alpha, const double *__restrict__ x, double beta, double *__restrict__ y)
{
  const int64_t first = (int64_t)blockIdx.x * kThreads * R + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int64_t i = first + (int64_t)r * kThreads;
    if (i < k.nrows) row_product(k, (int32_t)i, alpha, x, beta, y);
  }
}

// The second kernel of a mirrored product: the marked rows' own lower entries, a word of 32 rows
// per thread.
__global__ void __launch_bounds__(kThreads) dia_add_own_lower(const KernelArgs k, int64_t words, double alpha, const double *__restrict__ x, double *__restrict__ y)
{
  const int64_t w = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  if (w < words) add_own_lower_word(k, w, alpha, x, y);
}

// The unmirrored bitmap: a warp's 32 rows, one ballot, one word (every lane runs the ballot), and
// the count of marked rows.
__global__ void mark_unmirrored_rows(const KernelArgs k, uint32_t *bits, unsigned long long *marked)
{
  const int64_t  j    = (int64_t)blockIdx.x * kThreads + threadIdx.x;
  const uint32_t word = __ballot_sync(0xffffffffu, j < k.nrows && row_unmirrored(k, (int32_t)j));
  if ((threadIdx.x & 31) == 0 && j < k.nrows) {
    bits[j >> 5] = word;
    if (word) atomicAdd(marked, (unsigned long long)__popc(word));
  }
}

namespace {

__global__ void scale_rows(int32_t n, double beta, double *y)
{
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

// Mirrored reads pay while at most this share of the rows is marked (a marked row reads its
// lower entries a second time, in the second kernel, by 32-byte sectors).
constexpr int64_t kMirroredMaxMarkedPerRows = 4; // marked * 4 <= nrows

class CudaBlock : public FormatBlock {
public:
  Arrays<CudaSystem>                       a;
  DeviceBuffer<uint32_t>                   unmirrored;
  DeviceBuffer<unsigned long long>         d_marked;
  unsigned long long                      *h_marked = nullptr; // pinned: the count, read back without a sync
  cudaEvent_t                              counted  = nullptr; // the count has arrived in h_marked

  ~CudaBlock() override
  {
    if (counted) cudaEventDestroy(counted);
    if (h_marked) cudaFreeHost(h_marked);
  }
  void values_changed(cudaStream_t s) override
  {
    if (!a.paired || nrows == 0) return;
    if (unmirrored.size() == 0) {
      unmirrored.resize((size_t)unmirrored_words(nrows));
      d_marked.resize(1);
      GPUFORMATS_CUDA(cudaHostAlloc(&h_marked, sizeof(*h_marked), cudaHostAllocDefault));
      GPUFORMATS_CUDA(cudaEventCreateWithFlags(&counted, cudaEventDisableTiming));
    }
    GPUFORMATS_CUDA(cudaMemsetAsync(d_marked.data(), 0, sizeof(unsigned long long), s));
    mark_unmirrored_rows<<<(unsigned)(((int64_t)nrows + kThreads - 1) / kThreads), kThreads, 0, s>>>(a.kernel_args(), unmirrored.data(), d_marked.data());
    GPUFORMATS_CUDA(cudaGetLastError());
    GPUFORMATS_CUDA(cudaMemcpyAsync(h_marked, d_marked.data(), sizeof(*h_marked), cudaMemcpyDeviceToHost, s));
    GPUFORMATS_CUDA(cudaEventRecord(counted, s));
  }
  // Mirrored reads unless the count, once it has arrived, says too many rows are marked (until
  // then mirrored: both reads give the product).
  bool mirrored() const
  {
    if (!a.paired || !counted) return false;
    if (cudaEventQuery(counted) != cudaSuccess) {
      cudaGetLastError(); // cudaErrorNotReady is no error here
      return true;
    }
    return (int64_t)*h_marked * kMirroredMaxMarkedPerRows <= nrows;
  }

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (nrows == 0) return;
    const cudaStream_t s = streams.main();
    if (a.ndiag == 0) {
      scale_rows<<<(unsigned)(((int64_t)nrows + kThreads - 1) / kThreads), kThreads, 0, s>>>(nrows, beta, y);
    } else {
      const bool       mir  = mirrored();
      const KernelArgs k    = a.kernel_args(mir ? unmirrored.data() : nullptr);
      const int64_t    rows = (int64_t)kThreads * a.rows_per_thread;
      const unsigned   grid = (unsigned)(((int64_t)nrows + rows - 1) / rows);
      switch (a.rows_per_thread) {
      case 1: dia_spmv<1><<<grid, kThreads, 0, s>>>(k, alpha, x, beta, y); break;
      case 2: dia_spmv<2><<<grid, kThreads, 0, s>>>(k, alpha, x, beta, y); break;
      default: dia_spmv<4><<<grid, kThreads, 0, s>>>(k, alpha, x, beta, y); break;
      }
      if (mir) {
        GPUFORMATS_CUDA(cudaGetLastError());
        const int64_t words = unmirrored_words(nrows);
        dia_add_own_lower<<<(unsigned)((words + kThreads - 1) / kThreads), kThreads, 0, s>>>(k, words, alpha, x, y);
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
      marked = (int64_t)*h_marked;
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
