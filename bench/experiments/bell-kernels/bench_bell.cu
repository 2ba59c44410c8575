// BELL on the GPU against cuSPARSE, on block 3D 7-point stencils with dense bs x bs
// couplings (n^3 grid points, bs unknowns each: about 7 n^3 bs^2 nonzeros).
//   check   small random block matrices, bs = 1..8: the device builder's arrays equal build_host's
//           (bit for bit), the kernel's y = A x (y NaN before) and y = 2 A x + 0.5 y against
//           spmv_host, the point-block diagonal against the host's, a refusal with the host's message
//   bench   per bs: BELL built on the device from the uploaded CSR (make_block_cuda, wall time;
//           and build_arrays alone on the CSR already there, events), its product checked against
//           cuSPARSE CSR (max |y - y_ref| / max |y_ref|), then medians of `reps` timed products
//           after 3 warm-ups of BELL, cuSPARSE CSR ALG1 and ALG2, cusparseDbsrmv and the generic
//           SpMV over BSR (CUSPARSE_SPMV_BSR_ALG1, where the library takes it), and a cudaMemcpy
//           device to device of BELL's bytes() (read + write) for the % of copy bandwidth; and
//           every product policy of bell_variants.cuh (AllPolicies, "variants": Current is the
//           production kernel today) on the same arrays, each checked against cuSPARSE CSR ALG1
//           (y NaN before) and timed as BELL
// The checks also run every policy on the small matrices against spmv_host (beta 0 and 0.5).
// One JSON object per line on stdout.
//   bench_bell [target_nnz=1.15e8] [reps=30] [bs ...=2 3 4 5 6 7 8]
#include "core/device_buffer.hpp"
#include "formats/bell/bell.hpp"
#include "formats/bell/bell_device.cuh"
#include "formats/bell/bell_variants.cuh"

#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace gpuformats;

#define CK(call)                                                                                                     \
  do {                                                                                                               \
    const cudaError_t e_ = (call);                                                                                   \
    if (e_ != cudaSuccess) std::printf("{\"error\":\"%s: %s\"}\n", #call, cudaGetErrorString(e_)), std::exit(1);         \
  } while (0)
#define CS(call) ((call) == CUSPARSE_STATUS_SUCCESS)

// A block matrix as BSR (row-major blocks) and the same matrix as CSR.
struct BlockMatrix {
  int32_t              bs = 1, nb = 0;
  std::vector<int32_t> browptr{0}, bcol;
  std::vector<double>  bval;
  CsrMatrix            csr;
};

static void finish_csr(BlockMatrix &M)
{
  const int32_t bs = M.bs, bs2 = bs * bs;
  CsrMatrix    &A  = M.csr;
  A.nrows = A.ncols = M.nb * bs;
  A.rowptr.assign(1, 0);
  A.colidx.reserve(M.bcol.size() * bs2), A.values.reserve(M.bcol.size() * bs2);
  for (int32_t br = 0; br < M.nb; ++br)
    for (int32_t a = 0; a < bs; ++a) {
      for (int32_t k = M.browptr[br]; k < M.browptr[br + 1]; ++k)
        for (int32_t b = 0; b < bs; ++b) A.colidx.push_back(M.bcol[k] * bs + b), A.values.push_back(M.bval[(int64_t)k * bs2 + a * bs + b]);
      A.rowptr.push_back((int32_t)A.colidx.size());
    }
}

// 7-point stencil on an n^3 grid, a dense bs x bs block per coupling (diagonal blocks dominant).
static BlockMatrix block_stencil(int32_t n, int32_t bs)
{
  BlockMatrix M;
  M.bs = bs, M.nb = n * n * n;
  const int32_t bs2 = bs * bs;
  uint64_t      h   = 0x9e3779b97f4a7c15ull;
  auto          rnd = [&] { return (double)((h = h * 6364136223846793005ull + 1442695040888963407ull) >> 11) * 0x1.0p-53 - 0.5; };
  for (int32_t p = 0; p < M.nb; ++p) {
    const int32_t x = p % n, y = p / n % n, z = p / (n * n);
    for (int32_t q : {z > 0 ? p - n * n : -1, y > 0 ? p - n : -1, x > 0 ? p - 1 : -1, p, x < n - 1 ? p + 1 : -1, y < n - 1 ? p + n : -1, z < n - 1 ? p + n * n : -1}) {
      if (q < 0) continue;
      M.bcol.push_back(q);
      for (int32_t e = 0; e < bs2; ++e) M.bval.push_back(rnd() + (q == p && e % (bs + 1) == 0 ? 8.0 * bs : 0.0));
    }
    M.browptr.push_back((int32_t)M.bcol.size());
  }
  finish_csr(M);
  return M;
}

// Random block rows of 0..maxb blocks (every 5th empty), for the checks.
static BlockMatrix random_blocks(int32_t nb, int32_t bs, int32_t maxb, uint64_t seed)
{
  BlockMatrix M;
  M.bs = bs, M.nb = nb;
  std::mt19937_64                        rng(seed);
  std::uniform_real_distribution<double> val(-1, 1);
  for (int32_t br = 0; br < nb; ++br) {
    std::vector<char> used(nb, 0);
    for (int32_t t = br % 5 == 4 ? 0 : std::uniform_int_distribution<int32_t>(0, maxb)(rng); t > 0; --t) used[std::uniform_int_distribution<int32_t>(0, nb - 1)(rng)] = 1;
    for (int32_t c = 0; c < nb; ++c)
      if (used[c]) {
        M.bcol.push_back(c);
        for (int32_t e = 0; e < bs * bs; ++e) M.bval.push_back(val(rng));
      }
    M.browptr.push_back((int32_t)M.bcol.size());
  }
  finish_csr(M);
  return M;
}

template <class T>
static std::vector<T> download(const T *d, size_t n)
{
  std::vector<T> h(n);
  if (n) CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <class T>
static T *upload(const std::vector<T> &h)
{
  T *d = nullptr;
  CK(cudaMalloc(&d, std::max<size_t>(h.size(), 1) * sizeof(T)));
  if (!h.empty()) CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

static double max_rel_err(const std::vector<double> &y, const std::vector<double> &ref)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < y.size(); ++i) num = std::max(num, std::isnan(y[i]) ? INFINITY : std::abs(y[i] - ref[i])), den = std::max(den, std::abs(ref[i]));
  return den > 0 ? num / den : num;
}

// The device builder and kernel against the host layer on small matrices, bs = 1..8.
static bool run_checks(cudaStream_t s)
{
  bool all = true;
  for (int32_t bs = 1; bs <= bell::kMaxBlockSize; ++bs) {
    const BlockMatrix M = random_blocks(333, bs, 9, 40 + bs);
    const CsrView     A = M.csr.view();
    const bell::Layout L = bell::build_host(A, bs);
    DeviceCsr          d = upload_csr(A, s);
    bell::Arrays<CudaSystem> a;
    bell::build_arrays(CudaSystem{s}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, bs, {}, a);
    const bool layout = a.nslots == L.nslots && a.empty_brows == L.empty_brows && download(a.perm.data(), a.perm.size()) == L.perm && download(a.slice_ptr.data(), a.slice_ptr.size()) == L.slice_ptr && download(a.widths.data(), a.widths.size()) == L.widths &&
                        download(a.block_col.data(), a.block_col.size()) == L.block_col && download(a.values.data(), a.values.size()) == L.values && download(a.slot_of_csr.data(), a.slot_of_csr.size()) == L.slot_of_csr;

    std::unique_ptr<bell::Block> blk = bell::make_block_cuda(A, bs, {}, s);
    std::vector<double>          x(A.ncols), y0(A.nrows), want(A.nrows), want2(A.nrows);
    for (int32_t i = 0; i < A.ncols; ++i) x[i] = std::sin(0.1 * i);
    for (int32_t i = 0; i < A.nrows; ++i) y0[i] = std::cos(0.3 * i);
    bell::spmv_host(L, 1.0, x.data(), 0.0, want.data());
    want2 = y0;
    bell::spmv_host(L, 2.0, x.data(), 0.5, want2.data());
    double *dx = upload(x), *dy = upload(std::vector<double>(A.nrows, NAN)), *dy2 = upload(y0), *dpbd = nullptr;
    const StreamSet ss{&s, 1};
    blk->spmv(1.0, dx, 0.0, dy, ss);
    blk->spmv(2.0, dx, 0.5, dy2, ss);
    CK(cudaMalloc(&dpbd, std::max<size_t>((size_t)A.nrows * bs, 1) * sizeof(double)));
    blk->point_block_diagonal(dpbd, s);
    CK(cudaStreamSynchronize(s));
    std::vector<double> pbd((size_t)A.nrows * bs);
    bell::point_block_diagonal_host(L, pbd.data());
    const double e1 = max_rel_err(download(dy, A.nrows), want), e2 = max_rel_err(download(dy2, A.nrows), want2);
    const bool   pb = download(dpbd, pbd.size()) == pbd;

    // A refusal: one entry dropped, the host's message.
    CsrMatrix B = M.csr;
    std::string host_msg, dev_msg;
    if (bs > 1 && !B.colidx.empty()) {
      B.colidx.erase(B.colidx.begin() + B.colidx.size() / 2), B.values.erase(B.values.begin() + B.values.size() / 2);
      for (size_t r = 1; r < B.rowptr.size(); ++r)
        if (B.rowptr[r] > (int32_t)B.colidx.size() / 2) --B.rowptr[r];
      try {
        bell::build_host(B.view(), bs);
      } catch (const Error &e) {
        host_msg = e.what();
      }
      try {
        bell::make_block_cuda(B.view(), bs, {}, s);
      } catch (const Error &e) {
        dev_msg = e.what();
      }
    }
    // Every policy on the device arrays against spmv_host.
    std::string variants;
    bool        variants_ok = true;
    bell::for_each_policy([&](auto p) {
      using P = decltype(p);
      CK(cudaMemcpy(dy, std::vector<double>(A.nrows, NAN).data(), A.nrows * sizeof(double), cudaMemcpyHostToDevice));
      CK(cudaMemcpy(dy2, y0.data(), A.nrows * sizeof(double), cudaMemcpyHostToDevice));
      bell::launch_policy_bs<P>(bs, a.kernel_args(), 1.0, dx, 0.0, dy, s);
      bell::launch_policy_bs<P>(bs, a.kernel_args(), 2.0, dx, 0.5, dy2, s);
      CK(cudaStreamSynchronize(s));
      const double v1 = max_rel_err(download(dy, A.nrows), want), v2 = max_rel_err(download(dy2, A.nrows), want2);
      variants_ok     = variants_ok && v1 <= 1e-14 && v2 <= 1e-14;
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s\"%s\":[%.3g,%.3g]", variants.empty() ? "" : ",", P::name().c_str(), v1, v2);
      variants += buf;
    });
    const bool ok = layout && e1 <= 1e-14 && e2 <= 1e-14 && pb && host_msg == dev_msg && variants_ok;
    all           = all && ok;
    std::printf("{\"check\":\"bell_device\",\"bs\":%d,\"nnz\":%lld,\"layout_as_host\":%s,\"err_mult\":%.3g,\"err_axpby\":%.3g,\"point_block_diagonal\":%s,\"refusal_as_host\":%s,\"variants_err_mult_axpby\":{%s},\"ok\":%s}\n", bs, (long long)A.nnz, layout ? "true" : "false", e1, e2, pb ? "true" : "false",
                host_msg == dev_msg ? "true" : "false", variants.c_str(), ok ? "true" : "false");
    cudaFree(dx), cudaFree(dy), cudaFree(dy2), cudaFree(dpbd);
  }
  return all;
}

// Median of reps timed calls of f (after 3 untimed), milliseconds.
template <class F>
static double median_ms(cudaStream_t s, int reps, F &&f)
{
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < reps + 3; ++r) {
    CK(cudaEventRecord(e0, s));
    f();
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 3) t.push_back(ms);
  }
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static std::string result(const char *name, double ms, double bytes, double nnz, double copy_gbs, double err)
{
  if (!(ms > 0)) return std::string("\"") + name + "\":null";
  char        buf[320];
  const double gbs = bytes / ms / 1e6;
  std::snprintf(buf, sizeof buf, "\"%s\":{\"ms\":%.4f,\"gflops\":%.1f,\"gbs\":%.1f,\"pct_copy\":%.1f,\"bytes\":%.0f,\"max_rel_err\":%.3g}", name, ms, 2.0 * nnz / ms / 1e6, gbs, 100.0 * gbs / copy_gbs, bytes, err);
  return buf;
}

static void run_case(cudaStream_t s, cusparseHandle_t h, int32_t bs, double target_nnz, int reps, const std::string &device)
{
  const int32_t n = (int32_t)std::lround(std::cbrt(target_nnz / (7.0 * bs * bs)));
  const auto    g0 = std::chrono::steady_clock::now();
  BlockMatrix   M = block_stencil(n, bs);
  const CsrView A = M.csr.view();
  const double  gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
  const int64_t nnz = A.nnz, nrows = A.nrows, nnzb = (int64_t)M.bcol.size();

  // BELL: the whole device build (upload included, wall), then the build on the CSR already there.
  const auto                   b0  = std::chrono::steady_clock::now();
  std::unique_ptr<bell::Block> blk = bell::make_block_cuda(A, bs, {}, s);
  const double                 build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b0).count();
  double                       build_device_ms;
  bell::Arrays<CudaSystem>     arrays; // the policies run on these (the same arrays as blk's)
  {
    DeviceCsr   d = upload_csr(A, s);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0, s));
    bell::build_arrays(CudaSystem{s}, d.rowptr.data(), d.colidx.data(), d.values.data(), A.nrows, A.ncols, A.nnz, bs, {}, arrays);
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    build_device_ms = ms;
    cudaEventDestroy(e0), cudaEventDestroy(e1);
  }

  // cuSPARSE's copies: CSR and BSR.
  int32_t *rp = upload(M.csr.rowptr), *ci = upload(M.csr.colidx), *brp = upload(M.browptr), *bci = upload(M.bcol);
  double  *cv = upload(M.csr.values), *bv = upload(M.bval);
  std::vector<double> x(nrows);
  for (int64_t i = 0; i < nrows; ++i) x[i] = std::sin(0.001 * (double)i) + 0.5;
  double *dx = upload(x), *dy = upload(std::vector<double>(nrows, NAN)), *dref = upload(std::vector<double>(nrows, 0.0));
  const double one = 1.0, zero = 0.0;
  cusparseSpMatDescr_t mcsr = nullptr, mbsr = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr, vref = nullptr;
  cusparseCreateCsr(&mcsr, nrows, nrows, nnz, rp, ci, cv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseCreateDnVec(&vx, nrows, dx, CUDA_R_64F), cusparseCreateDnVec(&vy, nrows, dy, CUDA_R_64F), cusparseCreateDnVec(&vref, nrows, dref, CUDA_R_64F);
  const bool bsr_ok = CS(cusparseCreateBsr(&mbsr, M.nb, M.nb, nnzb, bs, bs, brp, bci, bv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
  void *buf[3] = {nullptr, nullptr, nullptr};
  const cusparseSpMVAlg_t algs[3] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2, CUSPARSE_SPMV_BSR_ALG1};
  bool                    alg_ok[3];
  for (int k = 0; k < 3; ++k) {
    size_t bytes = 0;
    alg_ok[k]    = (k < 2 || bsr_ok) && CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k < 2 ? mcsr : mbsr, vx, &zero, vy, CUDA_R_64F, algs[k], &bytes));
    if (alg_ok[k]) CK(cudaMalloc(&buf[k], std::max<size_t>(bytes, 1)));
  }
  cusparseMatDescr_t descr = nullptr;
  cusparseCreateMatDescr(&descr);
  auto spmv = [&](int k, cusparseDnVecDescr_t out) { return CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, k < 2 ? mcsr : mbsr, vx, &zero, out, CUDA_R_64F, algs[k], buf[k])); };
  auto bsrmv = [&] { return CS(cusparseDbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, M.nb, M.nb, (int)nnzb, &one, descr, bv, brp, bci, bs, dx, &zero, dy)); };

  // The reference (CSR ALG1), then each product once against it (y NaN before: beta = 0 writes).
  spmv(0, vref);
  CK(cudaStreamSynchronize(s));
  const std::vector<double> ref = download(dref, nrows);
  auto                      err_of = [&](auto &&run) {
    CK(cudaMemsetAsync(dy, 0xff, nrows * sizeof(double), s)); // all NaN
    if (!run()) return (double)NAN;
    CK(cudaStreamSynchronize(s));
    return max_rel_err(download(dy, nrows), ref);
  };
  const StreamSet ss{&s, 1};
  const double    err_bell = err_of([&] { return blk->spmv(1.0, dx, 0.0, dy, ss), true; });
  const double    err_alg2 = err_of([&] { return spmv(1, vy); });
  const double    err_bsrmv = bs > 1 ? err_of(bsrmv) : NAN, err_bsr = alg_ok[2] ? err_of([&] { return spmv(2, vy); }) : NAN;

  const double bell_bytes = (double)bell::bytes(blk->geometry), xy = 16.0 * (double)nrows;
  const double csr_bytes_ = csr_bytes(nnz, nrows) + xy, bsr_bytes = (double)nnzb * (8.0 * bs * bs + 4) + 4.0 * (M.nb + 1) + xy;
  // Copy bandwidth: cudaMemcpy device to device of BELL's bytes (read + write).
  double copy_gbs;
  {
    char *c0 = nullptr, *c1 = nullptr;
    CK(cudaMalloc(&c0, (size_t)bell_bytes));
    CK(cudaMalloc(&c1, (size_t)bell_bytes));
    CK(cudaMemsetAsync(c0, 0, (size_t)bell_bytes, s));
    const double ms = median_ms(s, reps, [&] { CK(cudaMemcpyAsync(c1, c0, (size_t)bell_bytes, cudaMemcpyDeviceToDevice, s)); });
    copy_gbs        = 2.0 * bell_bytes / ms / 1e6;
    cudaFree(c0), cudaFree(c1);
  }
  const double t_bell = median_ms(s, reps, [&] { blk->spmv(1.0, dx, 0.0, dy, ss); });
  // Every policy on the same arrays: checked against CSR ALG1 (y NaN before), then timed.
  std::string       variants;
  const bell::KernelArgs ka = arrays.kernel_args();
  bell::for_each_policy([&](auto p) {
    using P          = decltype(p);
    auto         run = [&] { return bell::launch_policy_bs<P>(bs, ka, 1.0, dx, 0.0, dy, s) && cudaGetLastError() == cudaSuccess; };
    const double err = err_of(run);
    const double t   = std::isnan(err) ? NAN : median_ms(s, reps, [&] { run(); });
    variants += (variants.empty() ? "" : ",") + result(P::name().c_str(), t, bell_bytes, nnz, copy_gbs, err);
  });
  // Our scalar EVC-HYB on the same matrix (what a block size of 1 gets; default parameters, one stream)
  double t_ev = NAN, err_ev = NAN, ev_bytes = NAN;
  {
    const FormatOps     &ev = *find_format("evchyb");
    std::vector<int64_t> evp(ev.nparams);
    for (int i = 0; i < ev.nparams; ++i) evp[i] = ev.params[i].default_value;
    std::unique_ptr<FormatBlock> evb = ev.build_cuda(A, evp.data(), s, {});
    CK(cudaStreamSynchronize(s));
    err_ev   = err_of([&] { return evb->spmv(1.0, dx, 0.0, dy, ss), true; });
    t_ev     = median_ms(s, reps, [&] { evb->spmv(1.0, dx, 0.0, dy, ss); });
    ev_bytes = (double)evb->bytes() + xy;
  }
  const double t_alg1 = median_ms(s, reps, [&] { spmv(0, vy); });
  const double t_alg2 = median_ms(s, reps, [&] { spmv(1, vy); });
  const double t_bsrmv = bs > 1 && !std::isnan(err_bsrmv) ? median_ms(s, reps, bsrmv) : NAN;
  const double t_bsr   = alg_ok[2] && !std::isnan(err_bsr) ? median_ms(s, reps, [&] { spmv(2, vy); }) : NAN;

  std::printf("{\"case\":\"block_stencil7\",\"device\":\"%s\",\"bs\":%d,\"n\":%d,\"rows\":%lld,\"nnz\":%lld,\"blocks\":%lld,\"padding_blocks\":%lld,\"generate_s\":%.2f,\"bell_build_ms\":%.1f,\"bell_build_device_ms\":%.2f,\"copy_gbs\":%.1f,\"reps\":%d,", device.c_str(), bs, n,
              (long long)nrows, (long long)nnz, (long long)nnzb, (long long)(blk->geometry.nslots - blk->geometry.nblocks), gen_s, build_ms, build_device_ms, copy_gbs, reps);
  std::printf("%s,%s,%s,%s,%s,%s,\"bell_build_in_products\":%.1f,\"variants\":{%s}}\n", result("bell", t_bell, bell_bytes, nnz, copy_gbs, err_bell).c_str(), result("evchyb_scalar", t_ev, ev_bytes, nnz, copy_gbs, err_ev).c_str(), result("csr_alg1", t_alg1, csr_bytes_, nnz, copy_gbs, 0.0).c_str(), result("csr_alg2", t_alg2, csr_bytes_, nnz, copy_gbs, err_alg2).c_str(),
              result("bsrmv", t_bsrmv, bsr_bytes, nnz, copy_gbs, err_bsrmv).c_str(), result("spmv_bsr_alg1", t_bsr, bsr_bytes, nnz, copy_gbs, err_bsr).c_str(), build_device_ms / t_bell, variants.c_str());
  std::fflush(stdout);

  cusparseDestroySpMat(mcsr), cusparseDestroyDnVec(vx), cusparseDestroyDnVec(vy), cusparseDestroyDnVec(vref), cusparseDestroyMatDescr(descr);
  if (mbsr) cusparseDestroySpMat(mbsr);
  for (void *b : buf) cudaFree(b);
  cudaFree(rp), cudaFree(ci), cudaFree(brp), cudaFree(bci), cudaFree(cv), cudaFree(bv), cudaFree(dx), cudaFree(dy), cudaFree(dref);
}

int main(int argc, char **argv)
{
  const double         target = argc > 1 ? std::atof(argv[1]) : 1.15e8;
  const int            reps   = argc > 2 ? std::max(20, std::atoi(argv[2])) : 30;
  std::vector<int32_t> sizes;
  for (int i = 3; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {2, 3, 4, 5, 6, 7, 8};
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cusparseHandle_t h;
  if (!CS(cusparseCreate(&h))) return std::printf("{\"error\":\"cusparseCreate\"}\n"), 1;
  cusparseSetStream(h, s);
  bool ok = true;
  try {
    ok = run_checks(s);
    for (int32_t bs : sizes) run_case(s, h, bs, target, reps, p.name);
  } catch (const Error &e) {
    std::printf("{\"error\":\"%s\"}\n", e.what());
    return 1;
  }
  cusparseDestroy(h);
  return ok ? 0 : 2;
}
