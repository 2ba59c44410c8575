// EVC-HYB on the GPU: the device builder (evchyb_device.cuh, run here on CudaSystem from the CSR
// uploaded once; same layout and plan as the host builder) and the single-launch product kernel
// (Algorithm 1 with Listings 1-2 of the paper, modernised as said at each point).
#include "evchyb_device.cuh"
#include "evchyb_rows.cuh"

#include "../../core/device_buffer.hpp"
#include "../../core/warp_sum.cuh"

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/system_error.h>

#include <new>

namespace gpuformats {
namespace evchyb {

// ------------------------------------------------------------------------------------------------
// The product kernel
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ void store_y(const KernelArgs &a, int32_t out, double sum)
{
  double v = a.alpha * sum;
  if (a.beta != 0.0) v = fma(a.beta, a.y[out], v); // beta == 0: y is write-only (may hold NaN)
  a.y[out] = v;
}

// Sum over a team of tpr (> 32) threads of the warp sums in lane 0; valid in the team's thread 0.
// Every thread of the block must call it (it synchronises).
__device__ __forceinline__ double team_sum(double v, int32_t tpr, double *red)
{
  const int32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31, wpt = tpr >> 5;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (lane == 0 && (warp & (wpt - 1)) == 0) {
    v = 0.0;
    for (int32_t i = 0; i < wpt; ++i) v += red[warp + i];
  }
  return v;
}

struct DeviceSink {
  const KernelArgs &a;
  __device__ __forceinline__ void row(int32_t out, double sum) const { store_y(a, out, sum); }
  __device__ __forceinline__ void empty(int32_t out) const { a.y[out] = a.beta == 0.0 ? 0.0 : a.beta * a.y[out]; }
};

// Listing 1, modernised: a warp owns `rpt` consecutive runs of 32 ELL rows, a row per lane
// (ell_lane). The slice (and so the width and data offset) comes from slice_ptr per row, so a warp
// may cross a group boundary and no block idles at the end of a group.
template <int BLOCK, int MODE, bool NARROW>
__device__ __forceinline__ void ell_band(const KernelArgs &a, const Band &band, int32_t blk)
{
  const int32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  DeviceSink    sink{a};
  for (int32_t k = 0; k < band.param; ++k) {
    const int64_t e0 = ell_run_first(band, blk, BLOCK, warp, k);
    if (e0 >= band.end) break;
    const int32_t e = (int32_t)e0 + lane;
    if (e >= band.end) break;
    ell_lane<MODE, NARROW>(a, e, sink);
  }
}

// Listing 2, modernised: teams of tpr threads (32..BLOCK, one band per team size), one row per
// team, warp shuffles then (tpr > 32) one shared-memory step.
template <int BLOCK, bool CSR_NARROW>
__device__ __forceinline__ void csr_team_band(const KernelArgs &a, const Band &band, int32_t blk, double *red)
{
  const int32_t tpr = band.param, t = threadIdx.x & (tpr - 1);
  const int64_t c   = csr_team_row(band, blk, BLOCK, threadIdx.x);
  const bool    own = c < band.end;
  int32_t       out = 0;
  double        sum = 0.0;
  if (own) {
    if (t == 0) out = load_stream(a.perm + a.csr_first + c); // in flight during the row
    sum = csr_range<CSR_NARROW>(a, (int32_t)c, __ldg(a.csr_row_start + c), __ldg(a.csr_row_start + c + 1), t, tpr);
  }
  sum = warp_sum(sum);
  if (tpr > 32) sum = team_sum(sum, tpr, red); // uniform: the whole block is in this band
  if (own && t == 0) store_y(a, out, sum);
}

// Rows longer than the split chunk: one block per chunk; the block that finishes a row's last
// chunk adds the row's partial sums in chunk order (deterministic) and writes y.
template <int BLOCK, bool CSR_NARROW>
__device__ __forceinline__ void csr_split_band(const KernelArgs &a, const Band &band, int32_t blk, double *red, int32_t *last)
{
  const int32_t    j   = split_entry(band, blk);
  const int4       raw = __ldg(reinterpret_cast<const int4 *>(a.split) + j);
  const SplitBlock sb{raw.x, raw.y, raw.z, raw.w};
  int32_t          start, end;
  split_range(a, sb, start, end);
  double sum = warp_sum(csr_range<CSR_NARROW>(a, sb.row, start, end, threadIdx.x, band.param)); // runtime stride: a constant one unrolls into spills
  sum                    = team_sum(sum, BLOCK, red);
  if (threadIdx.x == 0) {
    a.split_partial[j] = sum;
    __threadfence(); // the partial is visible device-wide before the count says so
    *last = atomicAdd(a.split_counter + sb.first, 1) == sb.nchunks - 1;
  }
  __syncthreads();
  if (*last && threadIdx.x < 32) {
    __threadfence();
    double v = 0.0;
    for (int32_t i = threadIdx.x; i < sb.nchunks; i += 32) v += __ldcg(a.split_partial + sb.first + i); // L2, not a stale L1 line
    v = warp_sum(v);
    if (threadIdx.x == 0) {
      store_y(a, load_stream(a.perm + a.csr_first + sb.row), v);
      a.split_counter[sb.first] = 0; // ready for the next product (stream order)
    }
  }
}

template <int BLOCK>
__device__ __forceinline__ void empty_band(const KernelArgs &a, const Band &band, int32_t blk)
{
#pragma unroll
  for (int32_t k = 0; k < kEmptyRowsPerThread; ++k) {
    const int64_t pos = empty_row(band, blk, BLOCK, threadIdx.x, k);
    if (pos < band.end) {
      const int32_t out = load_stream(a.perm + pos);
      DeviceSink{a}.empty(out);
    }
  }
}

// Occupancy: 1024 threads per SM (32 of 64 warps), i.e. at most 64 registers: the kernel needs
// ~64 to keep a batch of 4 pairs and their 8 x gathers in flight (a 48-register cap spills ~100
// bytes). With 16-byte loads and 8 entries per thread in flight, 32 warps per SM hold more than the
// ~25-30 KB per SM that H100/H200 DRAM latency x bandwidth requires. (Tuning knob: measure 5*256/BLOCK.)
template <int BLOCK>
constexpr int kMinBlocksPerSm = 1024 / BLOCK;

// Algorithm 1: one launch; each block finds its band (the paper's gbmark search, here a scan of
// <= 16 entries of the parameter block, uniform per block) and runs that band's device function.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK, kMinBlocksPerSm<BLOCK>) evchyb_spmv(const __grid_constant__ KernelArgs a)
{
  __shared__ double  red[BLOCK / 32];
  __shared__ int32_t last;
  const int32_t      blk  = (int32_t)blockIdx.x + a.block_offset;
  const Band         band = a.bands[band_of_block(a, blk)];
  switch (band.kind) {
  case band_ell: // separate instantiations: inlining all row kinds into one loop costs ~30 registers
    if (a.narrow) {
      if (a.log2_slice == 5) ell_band<BLOCK, 32, true>(a, band, blk);
      else if (a.log2_slice) ell_band<BLOCK, 1, true>(a, band, blk);
      else ell_band<BLOCK, 0, true>(a, band, blk);
    } else {
      if (a.log2_slice == 5) ell_band<BLOCK, 32, false>(a, band, blk);
      else if (a.log2_slice) ell_band<BLOCK, 1, false>(a, band, blk);
      else ell_band<BLOCK, 0, false>(a, band, blk);
    }
    break;
  case band_csr_team: a.csr_narrow ? csr_team_band<BLOCK, true>(a, band, blk, red) : csr_team_band<BLOCK, false>(a, band, blk, red); break;
  case band_csr_split: a.csr_narrow ? csr_split_band<BLOCK, true>(a, band, blk, red, &last) : csr_split_band<BLOCK, false>(a, band, blk, red, &last); break;
  default: empty_band<BLOCK>(a, band, blk); break;
  }
}

// ------------------------------------------------------------------------------------------------
// The block
// ------------------------------------------------------------------------------------------------

void csr_row_min_max(const CudaSystem &sys, const int32_t *colidx, const int32_t *offsets, int32_t rows, int32_t *lo, int32_t *hi)
{
  std::size_t tmp_min = 0, tmp_max = 0;
  GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Min(nullptr, tmp_min, colidx, lo, rows, offsets, offsets + 1, sys.stream));
  GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Max(nullptr, tmp_max, colidx, hi, rows, offsets, offsets + 1, sys.stream));
  DeviceBuffer<unsigned char> tmp(std::max(tmp_min, tmp_max));
  GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Min(tmp.data(), tmp_min, colidx, lo, rows, offsets, offsets + 1, sys.stream));
  GPUFORMATS_CUDA(cub::DeviceSegmentedReduce::Max(tmp.data(), tmp_max, colidx, hi, rows, offsets, offsets + 1, sys.stream));
  GPUFORMATS_CUDA(cudaStreamSynchronize(sys.stream)); // tmp dies here
}

namespace {

class CudaBlock final : public FormatBlock {
public:
  Arrays<CudaSystem>             a;
  const Shape                   &sh = a.sh;
  mutable DeviceBuffer<double>   split_partial; // scratch of the product (one product at a time)
  mutable DeviceBuffer<int32_t>  split_counter;

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (sh.nrows == 0) return;
    int32_t          grid;
    const KernelArgs k = make_kernel_args(sh, {a.vals.data(), a.colidx.data(), a.perm.data(), a.slice_ptr.data(), a.csr_row_start.data(), a.col16.data(), a.slice_col_base.data(), a.split.data(), split_partial.data(), split_counter.data(), a.col_hi16.data(), a.csr_col16.data(), a.csr_col_base.data()}, alpha, x, beta, y, grid);
    if (grid <= 0) return;
    cudaStream_t s = streams.main();
    switch (sh.prm.block_threads) {
    case 64: evchyb_spmv<64><<<grid, 64, 0, s>>>(k); break;
    case 128: evchyb_spmv<128><<<grid, 128, 0, s>>>(k); break;
    case 256: evchyb_spmv<256><<<grid, 256, 0, s>>>(k); break;
    case 512: evchyb_spmv<512><<<grid, 512, 0, s>>>(k); break;
    default: evchyb_spmv<1024><<<grid, 1024, 0, s>>>(k); break;
    }
    GPUFORMATS_CUDA(cudaGetLastError());
  }
  std::size_t bytes() const override { return shape_bytes(sh); }
  void        describe(std::vector<LayoutStat> &out) const override
  {
    out.push_back({"backend", "cuda"});
    describe_shape(sh, out);
  }
};

std::unique_ptr<FormatBlock> build_device(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream)
{
  auto blk = std::make_unique<CudaBlock>();
  build_arrays(CudaSystem{stream}, A, d.rowptr.data(), d.colidx.data(), d.values.data(), params, blk->a);
  GPUFORMATS_CUDA(cudaGetLastError());
  if (blk->sh.nsplit_blocks) { // the product's scratch for rows split over blocks
    blk->split_partial.resize(blk->sh.nsplit_blocks);
    blk->split_counter.resize(blk->sh.nsplit_blocks);
    GPUFORMATS_CUDA(cudaMemsetAsync(blk->split_counter.data(), 0, blk->split_counter.bytes(), stream));
    GPUFORMATS_CUDA(cudaStreamSynchronize(stream));
  }
  blk->set_layout(Backend::cuda, A, blk->a.vals.data(), blk->sh.nslots, blk->a.slots.data());
  return blk;
}

} // namespace

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  read_params(params); // bad parameters fail before any upload
  DeviceCsr d = upload_csr(A, stream, up);
  return build_uploaded(A, d, params, stream);
}

std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream)
{
  try {
    return build_device(A, d, params, stream);
  } catch (const Error &) {
    throw;
  } catch (const thrust::system_error &e) { // Thrust's own temporaries
    cudaGetLastError();
    throw Error(e.code().value() == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::device, std::string("evchyb device build: ") + e.what());
  } catch (const std::bad_alloc &e) {
    cudaGetLastError();
    throw Error(ErrorKind::out_of_memory, std::string("evchyb device build: out of memory (") + e.what() + "); the AIJ matrix is unchanged");
  }
}

} // namespace evchyb
} // namespace gpuformats
