// BELL on the GPU: the product kernel of the policy ProductPolicy<bs> names for each block size
// (bell_variants.cuh's policies, the table below: a block row per thread for bs 2-4, a lane per
// scalar row with its block columns loaded first for bs 5-8, the first kernel, Current, for bs 1),
// the device build from the CSR uploaded once, and the block. Layout and invariants: bell.hpp.
#include "bell_device.cuh"
#include "bell_variants.cuh"

#include "../../core/device_buffer.hpp"

namespace gpuformats {
namespace bell {

// The product's policy per block size (bell_variants.cuh), the fastest of bench_bell's 11 on block 3D
// 7-point stencils of ~115 M nonzeros, one H200 (bench/results/h200/block-layout/kernels-and-apps/
// bench_bell_variants.json; ms, then the slowest variant and Current, the first kernel):
//   bs 2  BlockRow<1,v2>          0.280 (100% of copy)   Lane<16,0,x2> 0.443, Current 0.363
//   bs 3  BlockRow<1,v2>          0.273 (92%)            Lane<16,8>    0.410, Current 0.317
//   bs 4  BlockRow<2,v2>          0.244 (100%)           Current 0.300 (Lane<8,8,x2,ro,ch> 0.246)
//   bs 5  Lane<8,8,x2,ro,ch,4>    0.244 (97%)            Lane<16,8>    0.317, Current 0.287
//   bs 6  Lane<8,8,x2,ro,ch,4>    0.241 (97%)            Lane<16,0,x2> 0.300, Current 0.293
//   bs 7  Lane<8,8,x2,ro,ch,4>    0.232 (97%)            BlockRow<1>   0.339, Current 0.293
//   bs 8  Lane<8,8,x2,ro,ch,4>    0.234 (100%)           Lane<16,0,x2> 0.263, Current 0.249
// A block row per thread wins where bs is small (x read once per block, bs accumulators; its strided
// value reads cost little at bs <= 4); for bs >= 5 a lane per scalar row with the block columns of 8
// slots loaded first (one dependent round trip per row) and 64 registers. bs 1 (never chosen by
// the glue, select/block_layout.hpp) keeps Current.
template <int BS>
struct ProductPolicy {
  using type = policy::Lane<8, 8, true, true, true, 4>;
};
template <>
struct ProductPolicy<1> {
  using type = policy::Current;
};
template <>
struct ProductPolicy<2> {
  using type = policy::BlockRow<1, true, 4>;
};
template <>
struct ProductPolicy<3> {
  using type = policy::BlockRow<1, true, 4>;
};
template <>
struct ProductPolicy<4> {
  using type = policy::BlockRow<2, true, 2>;
};

namespace {

template <int BS>
void launch(const KernelArgs &k, double alpha, const double *x, double beta, double *y, cudaStream_t stream)
{
  launch_policy<BS, typename ProductPolicy<BS>::type>(k, alpha, x, beta, y, stream);
  GPUFORMATS_CUDA(cudaGetLastError());
}

class CudaBlock : public Block {
public:
  Arrays<CudaSystem> a;

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const override
  {
    if (a.nslices == 0) return;
    const KernelArgs   k = a.kernel_args();
    const cudaStream_t s = streams.main();
    switch (a.bs) {
    case 1: launch<1>(k, alpha, x, beta, y, s); break;
    case 2: launch<2>(k, alpha, x, beta, y, s); break;
    case 3: launch<3>(k, alpha, x, beta, y, s); break;
    case 4: launch<4>(k, alpha, x, beta, y, s); break;
    case 5: launch<5>(k, alpha, x, beta, y, s); break;
    case 6: launch<6>(k, alpha, x, beta, y, s); break;
    case 7: launch<7>(k, alpha, x, beta, y, s); break;
    case 8: launch<8>(k, alpha, x, beta, y, s); break;
    default: throw Error(ErrorKind::internal, "bell: block size " + std::to_string(a.bs) + " has no kernel");
    }
  }
  void point_block_diagonal(double *blocks, cudaStream_t stream) const override
  {
    if (a.nbrows > 0) bell::point_block_diagonal(thrust::cuda::par_nosync.on(stream), a, blocks); // asynchronous
  }
};

} // namespace

std::unique_ptr<Block> make_block_uploaded(const CsrView &A, const DeviceCsr &d, int32_t bs, const Options &opt, cudaStream_t stream)
{
  plan(A.nrows, A.ncols, A.nnz, bs, opt);
  auto blk = std::make_unique<CudaBlock>();
  build_arrays(CudaSystem{stream}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, bs, opt, blk->a); // synchronises
  blk->geometry = blk->a;
  blk->set_layout(Backend::cuda, A, blk->a.values.data(), (int64_t)blk->a.values.size(), blk->a.slot_of_csr.data());
  return blk;
}

std::unique_ptr<Block> make_block_cuda(const CsrView &A, int32_t bs, const Options &opt, cudaStream_t stream, const UploadContext &up)
{
  plan(A.nrows, A.ncols, A.nnz, bs, opt); // bad arguments fail before any upload
  const DeviceCsr d = upload_csr(A, stream, up);
  return make_block_uploaded(A, d, bs, opt, stream); // the uploaded CSR is freed on return
}

} // namespace bell
} // namespace gpuformats
