// DIA's host layer: the parameters, the refusals, the host builder (the specification) and the
// reference product. Layout and invariants: dia.hpp.
#include "dia.hpp"
#include "dia_rows.hpp"

#include "../../core/text.hpp"

#include <algorithm>
#include <climits>

namespace gpuformats {
namespace dia {

namespace {
const std::string kFits = std::string(kFitsHint) + ": every -mat_type's own format (-mat_gpuformats_stencil off), which holds any pattern";
std::string offsets_text(const Geometry &g)
{
  std::string s;
  for (int32_t d = 0; d < g.ndiag; ++d) s += (d ? " " : "") + std::to_string(g.offsets[d]);
  return s;
}
} // namespace

Limits read_params(const int64_t *params)
{
  Limits l;
  l.max_diags       = (int32_t)checked_param(ops, params, param_max_diags);
  l.max_pad_pct     = (int32_t)checked_param(ops, params, param_max_pad_pct);
  l.rows_per_thread = (int32_t)checked_param(ops, params, param_rows_per_thread);
  l.symmetric       = checked_param(ops, params, param_symmetric) != 0;
  if (l.rows_per_thread & (l.rows_per_thread - 1)) throw Error(ErrorKind::bad_input, "dia: -mat_dia_rows_per_thread must be 1, 2 or 4; got " + std::to_string(l.rows_per_thread));
  return l;
}

Error too_many_offsets_error(int32_t row, int64_t length, int32_t max_diags)
{
  return Error(ErrorKind::unsupported, "dia: row " + std::to_string(row) + " holds " + std::to_string(length) + " entries, more offsets than -mat_dia_max_diags " + std::to_string(max_diags) + ": not a stencil. " + kFits + ".");
}

Error offset_error(int32_t row, int32_t col, const Geometry &g)
{
  return Error(ErrorKind::unsupported, "dia: entry (" + std::to_string(row) + ", " + std::to_string(col) + ") lies at offset " + std::to_string(col - row) + ", not one of the longest row's offsets [" + offsets_text(g) + "]: not a stencil. " + kFits + ".");
}

Error padding_error(const Geometry &g, int32_t max_pad_pct)
{
  const int64_t pad = (int64_t)g.ndiag * g.nrows - g.nnz;
  return Error(ErrorKind::unsupported, "dia: " + std::to_string(g.ndiag) + " offsets x " + std::to_string(g.nrows) + " rows pad " + std::to_string(pad) + " slots, " + format_number(100.0 * (double)pad / (double)std::max<int64_t>(g.nnz, 1), "%.1f") + "% of the " + std::to_string(g.nnz) +
                                          " nonzeros, above -mat_dia_max_pad_pct " + std::to_string(max_pad_pct) + ". " + kFits + "; or raise -mat_dia_max_pad_pct.");
}

void plan(Geometry &g, const Limits &lim, int64_t free_bytes)
{
  g.stride = (int32_t)std::min<int64_t>(((int64_t)g.nrows + kAlign - 1) / kAlign * kAlign, INT32_MAX);
  if (g.ndiag == 0) g.stride = 0;
  g.nslots = (int64_t)g.ndiag * g.stride;
  // the symmetric pairs: every offset's negative is an offset too (offsets ascending)
  g.paired = lim.symmetric && g.nrows == g.ncols && g.ndiag > 0;
  g.nupper = 0, g.diag = -1;
  for (int32_t d = 0; g.paired && d < g.ndiag; ++d) {
    const int32_t *m = std::lower_bound(g.offsets, g.offsets + g.ndiag, -g.offsets[d]);
    if (m == g.offsets + g.ndiag || *m != -g.offsets[d]) g.paired = false;
    else if (g.offsets[d] == 0) g.diag = d;
    else if (g.offsets[d] > 0) g.upper[g.nupper] = d, g.mirror[g.nupper++] = (int32_t)(m - g.offsets);
  }
  if (!g.paired) g.nupper = 0, g.diag = -1;
  if (g.nnz > 0 && ((int64_t)g.ndiag * g.nrows - g.nnz) * 100 > (int64_t)lim.max_pad_pct * g.nnz) throw padding_error(g, lim.max_pad_pct);
  if (g.nslots > INT32_MAX) throw Error(ErrorKind::unsupported, "dia: the layout needs " + std::to_string(g.nslots) + " slots, more than the 2^31-1 the int32 slot map addresses. " + kFits + ", or split the matrix over more ranks.");
  const int64_t need = g.nslots * 8 + g.nnz * 4;
  if (free_bytes >= 0 && need > free_bytes) throw Error(ErrorKind::unsupported, "dia: the layout needs " + std::to_string(need) + " bytes of device memory, only " + std::to_string(free_bytes) + " are free. " + kFits + ".");
}

Layout build_host(const CsrView &A, const Limits &lim)
{
  Layout L;
  L.nrows = A.nrows, L.ncols = A.ncols, L.nnz = A.nnz, L.rows_per_thread = lim.rows_per_thread;
  if (A.nrows > 0 && A.nnz > 0) {
    int32_t r = 0;
    for (int32_t i = 1; i < A.nrows; ++i)
      if (A.row_length(i) > A.row_length(r)) r = i;
    if (A.row_length(r) > lim.max_diags) throw too_many_offsets_error(r, A.row_length(r), lim.max_diags);
    L.ndiag = A.row_length(r);
    for (int32_t d = 0; d < L.ndiag; ++d) L.offsets[d] = A.colidx[A.rowptr[r] + d] - r;
  }
  plan(L, lim);
  L.values.assign(L.nslots, 0.0);
  L.slot_of_csr.resize(A.nnz);
  for (int32_t i = 0; i < A.nrows; ++i)
    for (int32_t k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      const int32_t *at = std::lower_bound(L.offsets, L.offsets + L.ndiag, A.colidx[k] - i);
      if (at == L.offsets + L.ndiag || *at != A.colidx[k] - i) throw offset_error(i, A.colidx[k], L);
      L.slot_of_csr[k]           = (int32_t)(at - L.offsets) * L.stride + i;
      L.values[L.slot_of_csr[k]] = A.values[k];
    }
  return L;
}

std::size_t stored_bytes(const Geometry &g) { return (std::size_t)g.ndiag * g.nrows * 8; }

int64_t count_unmirrored(const Geometry &g, const double *values)
{
  if (!g.paired) return -1;
  const KernelArgs k = kernel_args(g, values);
  int64_t          n = 0;
  for (int32_t j = 0; j < g.nrows; ++j) n += row_unmirrored(k, j);
  return n;
}

void describe(const Geometry &g, int64_t unmirrored, std::vector<LayoutStat> &out)
{
  const int64_t pad = (int64_t)g.ndiag * g.nrows - g.nnz;
  const double  csr = csr_bytes(g.nnz, g.nrows), b = (double)stored_bytes(g);
  out.push_back({"rows", std::to_string(g.nrows)});
  out.push_back({"columns", std::to_string(g.ncols)});
  out.push_back({"nonzeros", std::to_string(g.nnz)});
  out.push_back({"offsets", std::to_string(g.ndiag) + " [" + offsets_text(g) + "]"});
  out.push_back({"padding", std::to_string(pad) + " slots (" + format_number(g.nnz ? 100.0 * (double)pad / (double)g.nnz : 0.0, "%.2f") + "% of the nonzeros)"});
  out.push_back({"rows per thread", std::to_string(g.rows_per_thread)});
  out.push_back({"bytes", std::to_string((int64_t)b)});
  out.push_back({"CSR bytes", std::to_string((int64_t)csr) + " (dia/CSR = " + format_number(csr > 0 ? b / csr : 0.0, "%.3f") + ")"});
  std::string sym = "off: not square, an offset without its negative, or -mat_dia_symmetric 0";
  if (g.paired) sym = unmirrored == 0 ? "on: the values are symmetric; products read the diagonal and the " + std::to_string(g.nupper) + " upper offsets" : "off: " + std::to_string(unmirrored) + " of " + std::to_string(g.nrows) + " rows differ from their mirrors";
  out.push_back({"mirrored reads", sym});
}

namespace {

// The host block runs the kernel's row functions (dia_rows.hpp), mirrored reads included.
class HostBlock : public FormatBlock {
public:
  Layout  L;
  int64_t marked = -1; // rows that differ from their mirrors
  void    spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override
  {
    const KernelArgs k = kernel_args(L, L.values.data());
    for (int32_t i = 0; i < L.nrows; ++i) row_product(k, i, marked == 0, alpha, x, beta, y);
  }
  void        values_changed(cudaStream_t) override { marked = count_unmirrored(L, L.values.data()); }
  std::size_t bytes() const override { return stored_bytes(L); }
  void        describe(std::vector<LayoutStat> &out) const override { dia::describe(L, marked, out); }
};

const FormatParam kParams[] = {
  {"max_diags", "most column offsets a stencil may have (a 27-point stencil has 27)", kMaxDiags, 1, kMaxDiags},
  {"max_pad_pct", "most padding, in % of the nonzeros (boundary rows lacking offsets), before the layout is refused", 15, 0, 100},
  {"rows_per_thread", "rows each GPU thread computes (1, 2 or 4)", 1, 1, 4},
  {"symmetric", "products read the diagonal and the upper offsets only while the values are symmetric (counted on the device at every change of the values)", 1, 0, 1},
};

std::unique_ptr<FormatBlock> ops_host(const CsrView &A, const int64_t *params)
{
  auto blk = std::make_unique<HostBlock>();
  blk->L   = build_host(A, read_params(params));
  blk->set_layout(Backend::host, A, blk->L.values.data(), blk->L.nslots, blk->L.slot_of_csr.data());
  blk->values_changed(nullptr);
  return blk;
}
std::unique_ptr<FormatBlock> ops_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream) { return make_block_uploaded(A, d, read_params(params), stream); }
std::unique_ptr<FormatBlock> ops_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up)
{
  const Limits lim = read_params(params); // bad parameters fail before any upload
  DeviceCsr    d   = upload_csr(A, stream, up);
  return make_block_uploaded(A, d, lim, stream);
}

} // namespace

static_assert(kMaxDiags == kMaxOffsets, "the model checks strips against the offsets a DIA kernel carries");
const OffsetShape kShape = {param_max_diags, param_max_pad_pct};

const FormatOps ops = {
  "dia", "DIA: one value array per column offset, no column index, for stencil matrices (a DMDA's)", kParams, nparams, 0, ops_host, ops_cuda, true, ops_uploaded, nullptr, &kShape,
};

} // namespace dia
} // namespace gpuformats
