// pJDS's device builder and product bodies (pjds_device.cuh) on the host, without a GPU: the very
// template the GPU build runs, instantiated on thrust::host with std::vector buffers, against the
// host builder (pjds_host.cpp), and an emulation of every launch of the product built from the
// thread bodies the kernels call.
//   layout    same nslots, slot map (every CSR entry at the same slot), values, describe lines and
//             bytes as the host builder, for block sizes, sort windows and long-row thresholds
//             (auto, off, 3, 40) on the edge cases and the real matrices
//   product   row kernel (one thread per sorted row), wide items + their finish, long-row chunks
//             (32 lanes each, lanes summed as the shuffle does) + their finish, in launch order,
//             against the CSR product, for y = A x (y full of NaN), y += A x and y = a A x + b y
#include "common/check.hpp"
#include "common/format_checks.hpp"
#include "common/test_matrices.hpp"
#include "formats/pjds/pjds_device.cuh"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace gftest;
using namespace gpuformats;
using namespace gpuformats::pjds;

// Every launch of PjdsCudaBlock::spmv, thread by thread / warp by warp, in its stream order.
static std::vector<double> emulated_product(Arrays<HostSystem> &a, int32_t nrows, double alpha, const std::vector<double> &x, double beta, std::vector<double> y)
{
  const Info &in = a.info;
  const Plan &pl = in.plan;
  const KernelArgs ka = a.kernel_args(nrows);
  std::vector<double> partial((size_t)in.nwide_items * pl.block_rows), long_partial(in.nlong_chunks);
  if (in.nwide_items > 0) { // extra stream; disjoint rows from the row kernel
    const WideArgs wa{in.nwide_blocks, in.nwide_items, a.wide_block.data(), a.wide_item_start.data(), a.wide_item_owner.data(), partial.data()};
    for (int32_t t = 0; t < in.nwide_items * pl.block_rows; ++t) in.narrow ? wide_item_thread<true>(ka, wa, t, x.data()) : wide_item_thread<false>(ka, wa, t, x.data());
    for (int32_t wi = 0; wi < in.nwide_blocks; ++wi)
      for (int32_t r = 0; r < pl.block_rows; ++r) {
        const int32_t p = a.wide_block[wi] * pl.block_rows + r;
        if (p >= nrows) continue;
        double sum = 0;
        for (int32_t t = a.wide_item_start[wi]; t < a.wide_item_start[wi + 1]; ++t) sum += partial[(size_t)t * pl.block_rows + r];
        store_y(y.data(), a.perm[p], alpha, sum, beta);
      }
  }
  for (int32_t p = 0; p < nrows; ++p) {
    if (pl.perm_window) in.narrow ? row_thread<true, true>(ka, p, alpha, x.data(), beta, y.data()) : row_thread<true, false>(ka, p, alpha, x.data(), beta, y.data());
    else in.narrow ? row_thread<false, true>(ka, p, alpha, x.data(), beta, y.data()) : row_thread<false, false>(ka, p, alpha, x.data(), beta, y.data());
  }
  if (in.nlong_rows > 0) {
    const LongArgs la{in.nlong_rows, in.nlong_chunks, a.long_row.data(), a.long_start.data(), a.long_chunk_start.data(), a.long_chunk_owner.data(), long_partial.data()};
    for (int32_t c = 0; c < in.nlong_chunks; ++c) {
      double sum = 0;
      for (int lane = 0; lane < 32; ++lane) sum += long_chunk_lane_sum(la, c, lane, a.colidx.data(), a.colidx_first(), a.values.data(), x.data());
      long_partial[c] = sum;
    }
    for (int32_t r = 0; r < in.nlong_rows; ++r) {
      double sum = 0;
      for (int32_t c = a.long_chunk_start[r]; c < a.long_chunk_start[r + 1]; ++c) sum += long_partial[c];
      y[a.long_row[r]] += alpha * sum;
    }
  }
  return y;
}

int main(int argc, char **argv)
{
  std::vector<NamedMatrix> ms = edge_case_matrices(false), real = real_matrices(argc > 1 ? argv[1] : "test/matrices");
  ms.insert(ms.end(), real.begin(), real.end());
  // Two rows with a third of the nonzeros: the auto rule moves them out of the diagonals.
  ms.push_back({"two_long_rows", random_rows(20000, 20000, 21, [](std::mt19937_64 &r, int32_t i) { return i == 700 || i == 15000 ? 6000 : std::uniform_int_distribution<int32_t>(0, 6)(r); })});
  // Blocks of 32 rows spanning 65535 columns, one more than 16-bit offsets with a padding mark hold
  // (the edge cases have span_65534, which fits).
  ms.push_back({"span_65535", two_diagonals(32 * 40, kNarrowSpan - 30)});
  // Blocks that fit hold three quarters of the slots, below kNarrowMinShare: 32-bit columns
  // (narrow_mixed of the edge cases, seven eighths fitting, takes the narrow layout with split blocks).
  ms.push_back({"narrow_minority", two_diagonals_mixed(32 * 40, 100, 70000, 4)});
  for (const NamedMatrix &m : ms) {
    const CsrView A = m.A.view();
    for (int64_t br : {1, 32})
      for (int64_t w : {-1, 0, 64})
        for (int64_t L : {-1, 0, 3, 40})
          for (int64_t nc : {1, 0}) {
          if (nc == 0 && (br != 32 || w != -1)) continue; // 32-bit columns: default block and window, every long-row rule
          const int64_t     params[nparams] = {br, w, L, nc};
          const std::string name = "pjds_build." + m.name + ".br" + std::to_string(br) + ".w" + std::to_string(w) + ".L" + std::to_string(L) + (nc ? "" : ".nc0");
          std::unique_ptr<FormatBlock> host = pjds_ops.build_host(A, params);
          Arrays<HostSystem>           a;
          build_arrays(HostSystem{}, m.A.rowptr.data(), m.A.colidx.data(), m.A.values.data(), A.nrows, A.ncols, A.nnz, params, a);

          if (m.name.rfind("span_", 0) == 0 && br == 32) {
            const int32_t span = std::stoi(m.name.substr(5));
            check(a.info.widest_span == span && a.info.narrow == (nc && span <= kNarrowSpan), name + ".narrow_decision", std::to_string(a.info.widest_span));
          }
          if (br == 32 && w == -1 && (m.name == "narrow_mixed" || m.name == "narrow_minority")) {
            const bool mixed = m.name == "narrow_mixed";
            check(a.info.narrow == (nc && mixed) && (!a.info.narrow || (a.info.split_slots > 0 && a.info.narrow_slots == 7 * a.info.split_slots && a.col_hi16.size() == a.col16.size())), name + ".narrow_per_block",
                  "narrow " + std::to_string(a.info.narrow) + ", fitting slots " + std::to_string(a.info.narrow_slots) + ", split " + std::to_string(a.info.split_slots));
          }
          std::vector<LayoutStat> dd;
          describe_layout(a.info, *host, dd);
          check_layout_as_host(name, *host, A.nnz, a, dd, layout_bytes(a.info, A.nrows, a.nslots));
          check_emulated_products(name, A, [&](double alpha, const std::vector<double> &x, double beta, const std::vector<double> &yin) { return emulated_product(a, A.nrows, alpha, x, beta, yin); });
        }
  }
  return finish();
}
