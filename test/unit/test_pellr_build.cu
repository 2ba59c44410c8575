// PELLR's device builder and product body (pellr_device.cuh) on the host, without a GPU: the very
// template the GPU build runs, instantiated on thrust::host (core/thrust_system.cuh), against the
// host builder (pellr_host.cpp), for both rl[] modes, both orders and both sides of the fill limit.
//   layout    same refusal, nslots, slot map (every CSR entry at the same slot), values, describe
//             lines and bytes as the host builder, on the edge cases and the real matrices
//   product   the kernel's thread body for every row, against the CSR product, for y = A x (y full
//             of NaN), y += A x and y = a A x + b y
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/pellr/pellr_device.cuh"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::pellr;

// Every thread of PellrCudaBlock::spmv's one launch.
static std::vector<double> emulated_product(const Arrays<HostSystem> &a, int32_t nrows, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  const Info &in = a.info;
  for (int32_t p = 0; p < nrows; ++p) {
    const auto args = [&](auto thread) { thread(p, in.stored, in.stride, a.rl.data(), a.perm.data(), a.colidx.data(), a.values.data(), alpha, x.data(), beta, y.data()); };
    if (in.rl_per_warp) in.permuted ? args(row_thread<true, true>) : args(row_thread<true, false>);
    else in.permuted ? args(row_thread<false, true>) : args(row_thread<false, false>);
  }
  return y;
}

int main(int argc, char **argv)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  for (const NamedMatrix &m : ms) {
    const CsrView A = m.A.view();
    for (int64_t fill : {3, 1000})
      for (int64_t per_warp : {1, 0})
        for (int64_t permute : {1, 0}) {
          const int64_t     params[nparams] = {fill, per_warp, permute};
          const std::string name = "pellr_build." + m.name + ".fill" + std::to_string(fill) + ".rlw" + std::to_string(per_warp) + ".perm" + std::to_string(permute);
          std::unique_ptr<FormatBlock> host;
          Arrays<HostSystem>           a;
          std::string                  host_err, dev_err;
          try {
            host = pellr_ops.build_host(A, params);
          } catch (const Error &e) {
            host_err = e.what();
          }
          try {
            build_arrays(HostSystem{}, m.A.rowptr.data(), m.A.colidx.data(), m.A.values.data(), A.nrows, A.ncols, A.nnz, params, a);
          } catch (const Error &e) {
            dev_err = e.what();
          }
          check(host_err == dev_err, name + ".same_refusal", "host '" + host_err + "' vs device '" + dev_err + "'");
          check(host_err.empty() != refusal_expected(pellr_ops, A, params), name + ".refusal_as_documented", host_err.empty() ? "built, though the fill rule refuses" : "refused, though the fill rule accepts: " + host_err);
          if (!host || !dev_err.empty()) continue;

          std::vector<LayoutStat> dd;
          describe_layout(a.info, *host, dd);
          check_layout_as_host(name, *host, A.nnz, a, dd, layout_bytes(a.info, A.nrows, a.nslots));
          check_emulated_products(name, A, [&](double alpha, const std::vector<double> &x, double beta, const std::vector<double> &yin) { return emulated_product(a, A.nrows, alpha, x, beta, yin); });
        }
  }
  return finish();
}
