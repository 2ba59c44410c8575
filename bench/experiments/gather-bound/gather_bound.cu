// Microbenchmark: how much of a CSR product's time do the random reads of x take? The same kernel
// (natural row order, TPR threads per row, rows cut to 256 entries) in three forms:
//   0 the product: values, columns, x[column]
//   4 gathers only: columns and x[column], no values (what any format storing these columns pays)
//   5 stream only: values and columns, no x (the matrix's bytes at the memory's speed)
#include "matgen/generators.hpp"

#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <numeric>
#include <string>
#include <vector>

using namespace gpuformats;

template <int TPR, int POL>
__global__ void __launch_bounds__(256) spmv(int n, int ncols, const int *__restrict__ rp, const int *__restrict__ ci, const double *__restrict__ v, const double *__restrict__ x, const double *__restrict__ xh, double *__restrict__ y)
{
  const int gt = blockIdx.x * blockDim.x + threadIdx.x, row = gt / TPR, t = gt % TPR;
  double    s = 0;
  if (row < n) {
    const int b = __ldg(rp + row), e = __ldg(rp + row + 1);
    for (int j = b + t; j < e; j += TPR) {
      const int c = __ldcs(ci + j);
      double    xv;
      if (POL == 0 || POL == 4) xv = __ldg(x + c);
      else if (POL == 5) xv = (double)c;
      else if (POL == 3) xv = __ldcg(x + c);
      else if (c >= ncols) xv = __ldg(xh + (c - ncols));
      else xv = POL == 1 ? __ldg(x + c) : __ldcg(x + c);
      s = POL == 4 ? s + xv : fma(__ldcs(v + j), xv, s);
    }
  }
#pragma unroll
  for (int o = TPR / 2; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o, TPR);
  if (row < n && t == 0) y[row] = s;
}

__global__ void gather(int h, const int *__restrict__ hc, const double *__restrict__ x, double *__restrict__ xh)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < h) xh[i] = x[hc[i]];
}

template <int TPR, int POL>
static float run(int n, int ncols, int *rp, int *ci, double *v, double *x, double *xh, double *y, int h, int *hc)
{
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ts;
  const long         threads = (long)n * TPR;
  for (int r = 0; r < 25; ++r) {
    cudaEventRecord(e0);
    if (POL == 1 || POL == 2) gather<<<(h + 255) / 256, 256>>>(h, hc, x, xh);
    spmv<TPR, POL><<<(threads + 255) / 256, 256>>>(n, ncols, rp, ci, v, x, xh, y);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r >= 5) ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

template <int TPR>
static float run_pol(int pol, int n, int ncols, int *rp, int *ci, double *v, double *x, double *xh, double *y, int h, int *hc)
{
  switch (pol) {
  case 0: return run<TPR, 0>(n, ncols, rp, ci, v, x, xh, y, h, hc);
  case 1: return run<TPR, 1>(n, ncols, rp, ci, v, x, xh, y, h, hc);
  case 4: return run<TPR, 4>(n, ncols, rp, ci, v, x, xh, y, h, hc);
  default: return run<TPR, 5>(n, ncols, rp, ci, v, x, xh, y, h, hc);
  }
}

static float dispatch(int tpr, int pol, int n, int ncols, int *rp, int *ci, double *v, double *x, double *xh, double *y, int h, int *hc)
{
  switch (tpr) {
  case 1: return run_pol<1>(pol, n, ncols, rp, ci, v, x, xh, y, h, hc);
  case 2: return run_pol<2>(pol, n, ncols, rp, ci, v, x, xh, y, h, hc);
  case 4: return run_pol<4>(pol, n, ncols, rp, ci, v, x, xh, y, h, hc);
  case 8: return run_pol<8>(pol, n, ncols, rp, ci, v, x, xh, y, h, hc);
  case 16: return run_pol<16>(pol, n, ncols, rp, ci, v, x, xh, y, h, hc);
  default: return run_pol<32>(pol, n, ncols, rp, ci, v, x, xh, y, h, hc);
  }
}

int main(int argc, char **argv)
{
  std::vector<std::pair<std::string, std::string>> mats = {
    {"rmat_s22", "rmat:scale=22,ef=16"}, {"st7_200", "stencil3d7:n=200"}, {"blocks5", "blocks5:nnz=50M"},
    {"rmat_s24", "rmat:scale=24,ef=3"},
    {"circuit", "circuit:nnz=50M"},
    {"x_ca_grqc", "scaled:file=test/matrices/CA-GrQc.mtx,target_nnz=50M"},
    {"x_powergrid", "scaled:file=test/matrices/USPowerGrid.mtx,target_nnz=50M"},
    {"rand_1_300", "randrows:nnz=50M,minlen=1,maxlen=300"},
    {"fem_10_80", "fem:nnz=50M,min=10,max=80"},
    {"x_rajat11", "scaled:file=test/matrices/rajat11.mtx,target_nnz=50M"},
    {"x_ship04l", "scaled:file=test/matrices/lp_ship04l.mtx,target_nnz=50M"},
  };
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("# %s, L2 %d MB\n", p.name, p.l2CacheSize >> 20);
  for (auto &[label, spec] : mats) {
    CsrMatrix A0  = generate_matrix(spec, 1);
    // Rows cut to at most kMaxRow entries: this kernel gives a row TPR threads, so one huge row
    // would time the tail of that row, not the x reads under test.
    constexpr int kMaxRow = 256;
    CsrMatrix     A;
    A.nrows = A0.nrows, A.ncols = A0.ncols;
    for (int i = 0; i < A0.nrows; ++i) {
      const int b = A0.rowptr[i], e = std::min(A0.rowptr[i + 1], b + kMaxRow);
      A.colidx.insert(A.colidx.end(), A0.colidx.begin() + b, A0.colidx.begin() + e);
      A.values.insert(A.values.end(), A0.values.begin() + b, A0.values.begin() + e);
      A.rowptr.push_back((int)A.colidx.size());
    }
    const int n   = A.nrows, m = A.ncols;
    const long nz = (long)A.colidx.size();
    std::vector<int> cnt(m, 0);
    for (int c : A.colidx) cnt[c]++;
    std::vector<int> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cnt[a] > cnt[b]; });
    const double mean = (double)nz / n;
    int          tpr  = 1;
    while (tpr < 32 && tpr * 2 <= mean) tpr *= 2;
    int *rp, *ci, *hc;
    double *v, *x, *xh, *y;
    cudaMalloc(&rp, 4 * (n + 1));
    cudaMalloc(&ci, 4 * nz);
    cudaMalloc(&v, 8 * nz);
    cudaMalloc(&x, 8 * (size_t)m);
    cudaMalloc(&y, 8 * (size_t)n);
    cudaMalloc(&xh, 8 * 65536);
    cudaMalloc(&hc, 4 * 65536);
    cudaMemcpy(rp, A.rowptr.data(), 4 * (n + 1), cudaMemcpyHostToDevice);
    cudaMemcpy(v, A.values.data(), 8 * nz, cudaMemcpyHostToDevice);
    std::vector<double> hx(m);
    for (int i = 0; i < m; ++i) hx[i] = 1.0 + (i % 7) * 0.125;
    cudaMemcpy(x, hx.data(), 8 * (size_t)m, cudaMemcpyHostToDevice);
    std::vector<double> yref;
    for (int H : {0}) {
      std::vector<int> hot(m, -1), cols(A.colidx);
      long             covered = 0;
      for (int k = 0; k < H && k < m; ++k) hot[order[k]] = k, covered += cnt[order[k]];
      for (auto &c : cols)
        if (hot[c] >= 0) c = m + hot[c];
      std::vector<int> hcols(order.begin(), order.begin() + std::min(H, m));
      cudaMemcpy(ci, cols.data(), 4 * nz, cudaMemcpyHostToDevice);
      if (H) cudaMemcpy(hc, hcols.data(), 4 * hcols.size(), cudaMemcpyHostToDevice);
      for (int pol : {0, 4, 5}) {
        const float ms = dispatch(tpr, pol, n, m, rp, ci, v, x, xh, y, (int)hcols.size(), hc);
        std::vector<double> hy(n);
        cudaMemcpy(hy.data(), y, 8 * (size_t)n, cudaMemcpyDeviceToHost);
        double err = 0, ref = 0;
        if (pol != 0) err = 0, ref = 1; // not the product
        else if (yref.empty()) yref = hy;
        for (int i = 0; i < n; ++i) err = std::max(err, std::abs(hy[i] - yref[i])), ref = std::max(ref, std::abs(yref[i]));
        printf("%-12s n %9d nnz %9ld tpr %2d H %6d hot %5.1f%% pol %d: %8.3f ms %7.1f GF/s  relerr %.1e  %s\n", label.c_str(), n, nz, tpr, H, 100.0 * covered / nz, pol, ms, 2e-6 * nz / ms, err / ref, cudaGetErrorString(cudaGetLastError()));
        fflush(stdout);
      }
    }
    cudaFree(rp); cudaFree(ci); cudaFree(v); cudaFree(x); cudaFree(y); cudaFree(xh); cudaFree(hc);
  }
  return 0;
}
