// PELLR host builder (the specification of the layout in pellr.hpp), host reference product (the
// test oracle of the CUDA kernel), and pellr_ops.
#include "pellr.hpp"

#include "../../core/row_permutation.hpp"
#include "../../core/text.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>

namespace gpuformats {
namespace pellr {

namespace {

// N_iter (equation 1) of rows whose lengths come in the order given.
int64_t iterations(const std::vector<int32_t> &len)
{
  int64_t n = 0;
  for (size_t w = 0; w < len.size(); w += kWarp) n += *std::max_element(len.begin() + w, len.begin() + std::min(len.size(), w + kWarp));
  return n;
}

class PellrHostBlock : public FormatBlock {
public:
  Info                 info;
  std::vector<int32_t> perm, rl, colidx, slots; // perm empty when not permuted
  std::vector<double>  vals;

  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override
  {
    const int32_t S = info.stride;
    for (int32_t p = 0; p < nrows; ++p) {
      const int32_t L   = p >= info.stored ? 0 : info.rl_per_warp ? rl[p / kWarp] : rl[p];
      double        sum = 0;
      for (int32_t j = 0; j < L; ++j) {
        const int32_t slot = j * S + p, c = colidx[slot];
        if (c < 0) break; // padding (per-warp rl): the row ended
        sum += vals[slot] * x[c];
      }
      const int32_t row = info.permuted ? perm[p] : p;
      y[row]            = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[row];
    }
  }
  std::size_t bytes() const override { return layout_bytes(info, nrows, nslots); }
  void        describe(std::vector<LayoutStat> &out) const override { describe_layout(info, *this, out); }
};

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const int64_t *params)
{
  auto  blk = std::make_unique<PellrHostBlock>();
  Info &in  = blk->info;
  in        = read_params(params);
  const std::vector<int32_t> natural = [&] {
    std::vector<int32_t> l(A.nrows);
    for (int32_t i = 0; i < A.nrows; ++i) l[i] = A.row_length(i);
    return l;
  }();
  in.width      = A.nrows ? *std::max_element(natural.begin(), natural.end()) : 0;
  in.empty_rows = (int32_t)std::count(natural.begin(), natural.end(), 0);
  check_fill(in, A.nrows, A.nnz, -1); // before the padded allocation
  const int32_t S      = in.stride;
  const int64_t nslots = (int64_t)in.width * S;

  if (in.permuted) blk->perm = sorted_row_permutation(A, RowOrder::longest_first, 0);
  auto row_at = [&](int32_t p) { return in.permuted ? blk->perm[p] : p; };

  std::vector<int32_t> stored(A.nrows); // lengths in the stored order
  for (int32_t p = 0; p < A.nrows; ++p) stored[p] = natural[row_at(p)];
  if (in.rl_per_warp) {
    blk->rl.assign(in.n_warps, 0);
    for (int32_t p = 0; p < in.stored; ++p) blk->rl[p / kWarp] = std::max(blk->rl[p / kWarp], stored[p]);
  } else blk->rl.assign(stored.begin(), stored.begin() + in.stored);

  std::vector<int32_t> sorted = natural;
  std::sort(sorted.begin(), sorted.end(), std::greater<int32_t>());
  in.n_iter_natural = iterations(natural);
  in.n_iter_sorted  = iterations(sorted);
  in.n_iter         = iterations(stored);
  in.n_p            = 2 * A.nnz - (A.nrows - in.empty_rows);

  blk->vals.assign(nslots, 0.0);
  blk->colidx.assign(nslots, -1);
  blk->slots.assign(A.nnz, 0);
  for (int32_t p = 0; p < in.stored; ++p) {
    const int32_t i = row_at(p);
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const int32_t slot = (k - A.rowptr[i]) * S + p;
      blk->slots[k]      = slot;
      blk->vals[slot]    = A.values[k];
      blk->colidx[slot]  = A.colidx[k];
    }
  }

  blk->set_layout(Backend::host, A, blk->vals.data(), nslots, blk->slots.data());
  return blk;
}

} // namespace

Info read_params(const int64_t *params)
{
  Info in; // the ranges: kParams
  in.max_fill    = (int32_t)checked_param(pellr_ops, params, param_max_fill);
  in.rl_per_warp = checked_param(pellr_ops, params, param_rl_per_warp) == 1;
  in.permuted    = checked_param(pellr_ops, params, param_permute) == 1;
  return in;
}

void check_fill(Info &in, int32_t nrows, int64_t nnz, int64_t free_bytes)
{
  in.stored          = in.permuted ? nrows - in.empty_rows : nrows;
  in.stride          = (int32_t)(((int64_t)in.stored + kWarp - 1) / kWarp * kWarp);
  in.n_warps         = ((int64_t)in.stored + kWarp - 1) / kWarp;
  const int64_t fill = (int64_t)in.width * in.stored; // ELLPACK slots of the stored rows
  const int64_t slots = (int64_t)in.width * in.stride;
  const std::string fits = std::string(kFitsHint) + ": -mat_type pjds (pads only inside blocks of 32 sorted rows) or -mat_type evchyb (long rows kept in CSR)";
  if (fill > (int64_t)in.max_fill * nnz)
    throw Error(ErrorKind::unsupported, "pellr: padding every row to the longest (" + std::to_string(in.width) + " entries) needs " + std::to_string(fill) + " slots = " + format_number((double)fill / (double)std::max<int64_t>(nnz, 1), "%.1f") + " x the " + std::to_string(nnz) +
                                          " nonzeros, above -mat_pellr_max_fill " + std::to_string(in.max_fill) + ". " + fits + "; or raise -mat_pellr_max_fill.");
  if (slots > INT32_MAX) throw Error(ErrorKind::unsupported, "pellr: the padded layout needs " + std::to_string(slots) + " slots, more than the 2^31-1 the int32 slot map addresses. " + fits + ", or split the matrix over more ranks.");
  const int64_t need = slots * 12 + nnz * 4 + rl_entries(in) * 4 + (in.permuted ? (int64_t)nrows * 4 : 0);
  if (free_bytes >= 0 && need > free_bytes)
    throw Error(ErrorKind::unsupported, "pellr: the padded layout needs " + std::to_string(need) + " bytes of device memory, only " + std::to_string(free_bytes) + " are free. " + fits + ".");
}

int64_t rl_entries(const Info &in) { return in.rl_per_warp ? in.n_warps : in.stored; }

std::size_t layout_bytes(const Info &in, int32_t nrows, int64_t nslots)
{
  return (std::size_t)(nslots * 12 + rl_entries(in) * 4 + (in.permuted ? (int64_t)nrows * 4 : 0));
}

void describe_layout(const Info &in, const FormatBlock &blk, std::vector<LayoutStat> &out)
{
  const double  bytes   = (double)layout_bytes(in, blk.nrows, blk.nslots);
  const double  csr     = csr_bytes(blk.nnz, blk.nrows);
  const int64_t padding = blk.nslots - blk.nnz;
  out.push_back({"rows", std::to_string(blk.nrows)});
  out.push_back({"columns", std::to_string(blk.ncols)});
  out.push_back({"nonzeros", std::to_string(blk.nnz)});
  out.push_back({"empty rows", std::to_string(in.empty_rows)});
  out.push_back({"row order", in.permuted ? "sorted by length, longest first (PELLR)" : "natural (identity permutation: plain ELLPACK-R)"});
  out.push_back({"width K (longest row)", std::to_string(in.width)});
  out.push_back({"stored rows", std::to_string(in.stored) + (in.permuted ? " (empty rows sort last and are not stored)" : " (every row: identity order)")});
  out.push_back({"stride S (stored rows rounded to 32)", std::to_string(in.stride)});
  out.push_back({"slots", std::to_string(blk.nslots)});
  out.push_back({"padding slots", std::to_string(padding) + " (" + format_number(blk.nslots ? 100.0 * (double)padding / (double)blk.nslots : 0.0, "%.2f") + "% of slots; fill K*rows/nnz = " +
                                    format_number(blk.nnz ? (double)in.width * blk.nrows / (double)blk.nnz : 0.0, "%.2f") + ", max_fill " + std::to_string(in.max_fill) + ")"});
  out.push_back({"rl[]", in.rl_per_warp ? std::to_string(in.n_warps) + " entries (per warp)" : std::to_string(in.stored) + " entries (per row)"});
  out.push_back({"N_w (warps)", std::to_string(in.n_warps)});
  out.push_back({"N_iter (this layout)", std::to_string(in.n_iter)});
  out.push_back({"N_iter ELLPACK-R (natural order)", std::to_string(in.n_iter_natural)});
  out.push_back({"N_iter PELLR (sorted order)", std::to_string(in.n_iter_sorted) + " (" + format_number(in.n_iter_natural ? 100.0 * (1.0 - (double)in.n_iter_sorted / (double)in.n_iter_natural) : 0.0, "%.2f") + "% fewer than ELLPACK-R)"});
  out.push_back({"N_p (multiplies + adds)", std::to_string(in.n_p)});
  out.push_back({"bytes", std::to_string((int64_t)bytes)});
  out.push_back({"CSR bytes", std::to_string((int64_t)csr) + " (pellr/CSR = " + format_number(csr > 0 ? bytes / csr : 0.0, "%.3f") + ")"});
}

const FormatParam kParams[] = {
  {"max_fill", "refuse (suggesting pjds / evchyb) when padding all rows to the longest needs more than this many slots per nonzero", 3, 1, 1000000},
  {"rl_per_warp", "1: one row-length entry per warp (the warp's longest row; saves memory, the paper's suggestion); 0: one per row (ELLPACK-R's rl[])", 1, 0, 1},
  {"permute", "1: sort rows by length (PELLR); 0: identity permutation = plain ELLPACK-R (the paper's baseline; use with rl_per_warp 0)", 1, 0, 1},
};
static_assert(sizeof(kParams) / sizeof(kParams[0]) == nparams, "kParams follows enum Param");

} // namespace pellr

extern const FormatOps pellr_ops = {
  "pellr",
  "PELLR (Wang and Gu): rows sorted by length, stored as ELLPACK-R (padded to the longest row, column-major, rl[])",
  pellr::kParams,
  pellr::nparams,
  0,
  pellr::build_host,
  pellr::build_cuda,
  true, // refuses padding beyond max_fill
  pellr::build_uploaded,
};

} // namespace gpuformats
