// cuSPARSE's triangular solve (SpSV, what aijcusparse runs) on lines_proto's lower triangles: the
// same matrix (7- or 27-point stencil, natural order, the same values), timed the same way.
//   nvcc -O3 -arch=sm_90 -std=c++17 spsv_baseline.cu -lcusparse -o spsv_baseline
//   ./spsv_baseline N stencil
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    if ((x) != 0) {                                                                    \
      fprintf(stderr, "%s:%d failed (%d)\n", __FILE__, __LINE__, (int)(x));           \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

int main(int argc, char **argv)
{
  const int N = argc > 1 ? atoi(argv[1]) : 64, pts = argc > 2 ? atoi(argv[2]) : 7, reps = 20;
  std::vector<int32_t> rp{0}, ci;
  std::vector<double>  v;
  uint64_t             h   = 12345;
  auto                 rnd = [&]() { h = h * 6364136223846793005ull + 1442695040888963407ull; return ((h >> 33) & 0xFFFF) / 65536.0; };
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) { // the generator of lines_proto.cu, the diagonal appended last
        int r = i + N * (j + N * k);
        for (int dk = -1; dk <= 0; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
              if (pts == 7 && std::abs(di) + std::abs(dj) + std::abs(dk) != 1) continue;
              int ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= N || jj >= N) continue;
              int c = ii + N * (jj + N * kk);
              if (c >= r) continue;
              ci.push_back(c);
              v.push_back(-(0.5 + 0.5 * rnd()) / pts);
            }
        ci.push_back(r);
        v.push_back(1.0 + 0.1 * rnd()); // lines_proto's dinv is the reciprocal of this
        rp.push_back((int32_t)ci.size());
      }
  const int64_t n = (int64_t)N * N * N, nnz = (int64_t)ci.size();
  int32_t      *drp, *dci;
  double       *dv, *db, *dx;
  CK(cudaMalloc(&drp, rp.size() * 4));
  CK(cudaMalloc(&dci, ci.size() * 4));
  CK(cudaMalloc(&dv, v.size() * 8));
  CK(cudaMalloc(&db, n * 8));
  CK(cudaMalloc(&dx, n * 8));
  CK(cudaMemcpy(drp, rp.data(), rp.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dci, ci.data(), ci.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, v.data(), v.size() * 8, cudaMemcpyHostToDevice));
  std::vector<double> b(n);
  for (int64_t i = 0; i < n; ++i) b[i] = std::sin(0.37 * i) + 0.1;
  CK(cudaMemcpy(db, b.data(), n * 8, cudaMemcpyHostToDevice));
  cusparseHandle_t     hd;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vb, vx;
  cusparseSpSVDescr_t  sv;
  CK(cusparseCreate(&hd));
  CK(cusparseCreateCsr(&A, n, n, nnz, drp, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseFillMode_t fm = CUSPARSE_FILL_MODE_LOWER;
  cusparseDiagType_t dt = CUSPARSE_DIAG_TYPE_NON_UNIT;
  CK(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_FILL_MODE, &fm, sizeof fm));
  CK(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_DIAG_TYPE, &dt, sizeof dt));
  CK(cusparseCreateDnVec(&vb, n, db, CUDA_R_64F));
  CK(cusparseCreateDnVec(&vx, n, dx, CUDA_R_64F));
  CK(cusparseSpSV_createDescr(&sv));
  const double one = 1.0;
  size_t       bytes;
  void        *buf;
  CK(cusparseSpSV_bufferSize(hd, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vb, vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv, &bytes));
  CK(cudaMalloc(&buf, bytes ? bytes : 1));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  CK(cusparseSpSV_analysis(hd, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vb, vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv, buf));
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ana;
  CK(cudaEventElapsedTime(&ana, e0, e1));
  for (int i = 0; i < 3; ++i) CK(cusparseSpSV_solve(hd, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vb, vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv));
  CK(cudaEventRecord(e0));
  for (int i = 0; i < reps; ++i) CK(cusparseSpSV_solve(hd, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vb, vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sv));
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  // check against the host's forward substitution
  std::vector<double> x(n), xh(n);
  CK(cudaMemcpy(x.data(), dx, n * 8, cudaMemcpyDeviceToHost));
  double err = 0, nrm = 0;
  for (int64_t r = 0; r < n; ++r) {
    double acc = b[r];
    for (int32_t e = rp[r]; e < rp[r + 1] - 1; ++e) acc -= v[e] * xh[ci[e]];
    xh[r] = acc / v[rp[r + 1] - 1];
    err = std::fmax(err, std::fabs(x[r] - xh[r])), nrm = std::fmax(nrm, std::fabs(xh[r]));
  }
  printf("{\"baseline\": \"cusparseSpSV\", \"N\": %d, \"stencil\": %d, \"rows\": %lld, \"analysis_ms\": %.3f, \"solve_ms\": %.4f, \"max_rel_err\": %.3e}\n", N, pts, (long long)n, ana, ms / reps, err / nrm);
  return 0;
}
