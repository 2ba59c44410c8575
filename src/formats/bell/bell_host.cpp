// BELL host layer (the specification of the layout in bell.hpp): the block-density check, the
// host builder, the reference product, the values-only refresh and the (point-block) diagonal.
#include "bell.hpp"

#include "../../core/row_permutation.hpp"
#include "../../core/text.hpp"

#include <climits>

namespace gpuformats {
namespace bell {

namespace {

const char *const kFits = "Formats that fit: -mat_type evchyb, pjds or pellr (any AIJ pattern)";

// Block column of the first block where rows r0 and r (of one block row) differ, or -1.
int32_t first_difference(const CsrView &A, int32_t r0, int32_t r, int32_t bs)
{
  const int32_t n0 = A.row_length(r0), n = A.row_length(r);
  const int32_t *c0 = A.colidx + A.rowptr[r0], *c = A.colidx + A.rowptr[r];
  for (int32_t k = 0; k < std::min(n0, n); ++k)
    if (c0[k] != c[k]) return std::min(c0[k], c[k]) / bs;
  return n0 == n ? -1 : (n0 > n ? c0[n] : c[n0]) / bs;
}

// Block column of the first block of row r holding other than bs entries, or -1.
int32_t first_partial_block(const CsrView &A, int32_t r, int32_t bs)
{
  for (int32_t k = A.rowptr[r]; k < A.rowptr[r + 1];) {
    const int32_t bc = A.colidx[k] / bs;
    int32_t       e  = k;
    while (e < A.rowptr[r + 1] && A.colidx[e] / bs == bc) ++e;
    if (e - k != bs) return bc;
    k = e;
  }
  return -1;
}

bool fail(std::string *why, const std::string &what)
{
  if (why) *why = what;
  return false;
}

} // namespace

std::string describe_block(const CsrView &rows, int32_t bs, int32_t br, int32_t bc)
{
  int32_t held = 0, miss_r = -1, miss_c = -1;
  for (int32_t a = 0; a < bs; ++a) {
    const int32_t r = br * bs + a;
    for (int32_t b = 0; b < bs; ++b) {
      const int32_t c = bc * bs + b;
      if (std::binary_search(rows.colidx + rows.rowptr[a], rows.colidx + rows.rowptr[a + 1], c)) ++held;
      else if (miss_r < 0) miss_r = r, miss_c = c;
    }
  }
  return "the " + std::to_string(bs) + "x" + std::to_string(bs) + " block at block row " + std::to_string(br) + ", block column " + std::to_string(bc) + " (rows " + std::to_string(br * bs) + ".." + std::to_string(br * bs + bs - 1) + ") stores " + std::to_string(held) + " of its " +
         std::to_string(bs * bs) + " entries (first missing: row " + std::to_string(miss_r) + ", column " + std::to_string(miss_c) + ")";
}

std::string shape_violation(int32_t nrows, int32_t ncols, int32_t bs)
{
  if (nrows % bs == 0 && ncols % bs == 0) return "";
  return "the " + std::to_string(nrows) + " x " + std::to_string(ncols) + " matrix is not a whole number of " + std::to_string(bs) + "x" + std::to_string(bs) + " blocks (" + (nrows % bs ? "rows" : "columns") + " not a multiple of " + std::to_string(bs) + ")";
}

Error not_block_dense_error(int32_t bs, const std::string &why) { return Error(ErrorKind::unsupported, "bell: not block-dense with block size " + std::to_string(bs) + ": " + why + ". " + kFits + "."); }

Error slot_overflow_error() { return Error(ErrorKind::unsupported, "bell: the padded layout needs more than the 2^31-1 values the int32 slot map addresses. " + std::string(kFits) + ", or split the matrix over more ranks."); }

Geometry plan(int32_t nrows, int32_t ncols, int64_t nnz, int32_t bs, const Options &opt)
{
  if (bs < 1 || bs > kMaxBlockSize) throw Error(ErrorKind::bad_input, "bell: block size " + std::to_string(bs) + " outside [1, " + std::to_string(kMaxBlockSize) + "]");
  if (opt.window < 0 || opt.slice < 0) throw Error(ErrorKind::bad_input, "bell: sort window (" + std::to_string(opt.window) + ") and slice rows (" + std::to_string(opt.slice) + ") must be >= 0");
  Geometry g;
  g.nrows = nrows, g.ncols = ncols, g.bs = bs, g.nnz = nnz;
  g.nbrows  = nrows / bs, g.nbcols = ncols / bs;
  g.slice   = opt.slice ? opt.slice : std::max(1, kWarp / bs);
  g.window  = (int32_t)std::min<int64_t>(((int64_t)opt.window + g.slice - 1) / g.slice * g.slice, INT32_MAX / g.slice * g.slice); // slices never straddle windows
  g.nblocks = nnz / (bs * bs);
  g.nslices = (int32_t)(((int64_t)g.nbrows + g.slice - 1) / g.slice);
  return g;
}

bool block_dense(const CsrView &A, int32_t bs, std::string *why)
{
  if (bs < 1 || bs > kMaxBlockSize) return fail(why, "block size " + std::to_string(bs) + " outside [1, " + std::to_string(kMaxBlockSize) + "]");
  const std::string shape = shape_violation(A.nrows, A.ncols, bs);
  if (!shape.empty()) return fail(why, shape);
  for (int32_t br = 0; br < A.nrows / bs; ++br) {
    const int32_t r0 = br * bs;
    int32_t       bc = first_partial_block(A, r0, bs);
    for (int32_t a = 1; a < bs; ++a) {
      const int32_t d = first_difference(A, r0, r0 + a, bs);
      if (d >= 0 && (bc < 0 || d < bc)) bc = d;
    }
    if (bc >= 0) return fail(why, describe_block(CsrView{bs, A.ncols, 0, A.rowptr + r0, A.colidx, nullptr}, bs, br, bc));
  }
  return true;
}

Layout build_host(const CsrView &A, int32_t bs, const Options &opt)
{
  Layout L;
  static_cast<Geometry &>(L) = plan(A.nrows, A.ncols, A.nnz, bs, opt);
  std::string why;
  if (!block_dense(A, bs, &why)) throw not_block_dense_error(bs, why);
  const int32_t bs2 = bs * bs;

  // The block pattern (first row of each block row, every bs-th column): sorted as rows are.
  std::vector<int32_t> browptr(L.nbrows + 1, 0), bcol(L.nblocks);
  for (int32_t br = 0; br < L.nbrows; ++br) {
    const int32_t r0 = br * bs, n = A.row_length(r0) / bs;
    for (int32_t j = 0; j < n; ++j) bcol[browptr[br] + j] = A.colidx[A.rowptr[r0] + j * bs] / bs;
    browptr[br + 1] = browptr[br] + n;
  }
  const CsrView B{L.nbrows, L.nbcols, L.nblocks, browptr.data(), bcol.data(), nullptr};
  L.perm = sorted_row_permutation(B, RowOrder::longest_first, L.window);

  L.widths.assign(L.nslices, 0);
  L.slice_ptr.assign(L.nslices + 1, 0);
  int64_t slots = 0;
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) L.widths[s] = std::max(L.widths[s], B.row_length(L.perm[s * L.slice + r]));
    slots += (int64_t)L.widths[s] * h;
    if (slots * bs2 > INT32_MAX) throw slot_overflow_error();
    L.slice_ptr[s + 1] = (int32_t)slots;
  }
  L.nslots = slots;
  L.block_col.assign(slots, 0);
  L.values.assign(slots * bs2, 0.0);
  L.slot_of_csr.assign(A.nnz, 0);

  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) {
      int32_t      &pr = L.perm[s * L.slice + r];
      const int32_t br = pr, n = B.row_length(br);
      auto          slot = [&](int32_t j) { return L.slice_ptr[s] + j * h + r; };
      for (int32_t j = 0; j < L.widths[s]; ++j) L.block_col[slot(j)] = n ? bcol[browptr[br] + std::min(j, n - 1)] : 0;
      for (int32_t a = 0; a < bs; ++a) {
        const int32_t row = br * bs + a;
        for (int32_t e = 0; e < A.row_length(row); ++e) {
          const int32_t k = A.rowptr[row] + e, v = (int32_t)value_index(bs, L.slice_ptr[s], h, e / bs, r, a, e % bs);
          L.slot_of_csr[k] = v;
          L.values[v]      = A.values[k];
        }
      }
      if (!n) pr = ~br, ++L.empty_brows;
    }
  }
  return L;
}

void spmv_host(const Layout &L, double alpha, const double *x, double beta, double *y)
{
  const int32_t bs = L.bs;
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) {
      const int32_t pr = L.perm[s * L.slice + r], br = pr < 0 ? ~pr : pr;
      for (int32_t a = 0; a < bs; ++a) {
        double sum = 0;
        for (int32_t j = 0; pr >= 0 && j < L.widths[s]; ++j) {
          const int32_t slot = L.slice_ptr[s] + j * h + r;
          const double *xb   = x + (int64_t)L.block_col[slot] * bs;
          for (int32_t b = 0; b < bs; ++b) sum += L.values[value_index(bs, L.slice_ptr[s], h, j, r, a, b)] * xb[b];
        }
        double &yi = y[br * bs + a];
        yi         = beta == 0.0 ? alpha * sum : alpha * sum + beta * yi;
      }
    }
  }
}

void refresh_values(Layout &L, const double *csr_values)
{
  for (int64_t k = 0; k < L.nnz; ++k) L.values[L.slot_of_csr[k]] = csr_values[k];
}

namespace {

// Calls f(br, at) for every block row br < nbrows, at(a, b) = entry (a, b) of its diagonal block,
// or at = null when block (br, br) is not stored.
template <class F>
void for_diagonal_blocks(const Layout &L, F &&f)
{
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) {
      const int32_t pr = L.perm[s * L.slice + r], br = pr < 0 ? ~pr : pr;
      int32_t       jd = -1;
      for (int32_t j = 0; pr >= 0 && j < L.widths[s] && jd < 0; ++j) // the first match is real: padding repeats the last column
        if (L.block_col[L.slice_ptr[s] + j * h + r] == br) jd = j;
      auto at = [&](int32_t a, int32_t b) { return L.values[value_index(L.bs, L.slice_ptr[s], h, jd, r, a, b)]; };
      f(br, jd >= 0 ? &at : (decltype(&at)) nullptr);
    }
  }
}

} // namespace

void diagonal_host(const Layout &L, double *d)
{
  const int32_t bs = L.bs;
  for_diagonal_blocks(L, [&](int32_t br, auto *at) {
    for (int32_t a = 0; a < bs; ++a) d[br * bs + a] = at ? (*at)(a, a) : 0.0;
  });
}

void point_block_diagonal_host(const Layout &L, double *blocks)
{
  const int32_t bs = L.bs;
  for_diagonal_blocks(L, [&](int32_t br, auto *at) {
    for (int32_t a = 0; a < bs; ++a)
      for (int32_t b = 0; b < bs; ++b) blocks[((int64_t)br * bs + a) * bs + b] = at ? (*at)(a, b) : 0.0;
  });
}

std::size_t stored_bytes(const Geometry &L)
{
  return (std::size_t)L.nslots * (8 * L.bs * L.bs + 4) + (std::size_t)L.nbrows * 4 + (std::size_t)(L.nslices + 1) * 4;
}

std::size_t bytes(const Geometry &L) { return stored_bytes(L) + (std::size_t)(L.nrows + L.ncols) * 8; }

void Block::describe(std::vector<LayoutStat> &out) const
{
  const Geometry &g       = geometry;
  const int64_t   padding = g.nslots - g.nblocks;
  const double    csr     = csr_bytes(g.nnz, g.nrows), b = (double)stored_bytes(g);
  out.push_back({"rows", std::to_string(g.nrows)});
  out.push_back({"columns", std::to_string(g.ncols)});
  out.push_back({"nonzeros", std::to_string(g.nnz)});
  out.push_back({"block size bs", std::to_string(g.bs)});
  out.push_back({"block rows", std::to_string(g.nbrows) + " (" + std::to_string(g.empty_brows) + " empty)"});
  out.push_back({"slice S (block rows)", std::to_string(g.slice) + " (" + std::to_string(g.nslices) + " slices)"});
  out.push_back({"sort window W (block rows)", g.window ? std::to_string(g.window) : "0 (one global sort)"});
  out.push_back({"blocks", std::to_string(g.nblocks)});
  out.push_back({"padding blocks", std::to_string(padding) + " (" + format_number(g.nslots ? 100.0 * (double)padding / (double)g.nslots : 0.0, "%.2f") + "% of slots)"});
  out.push_back({"bytes", std::to_string((int64_t)b)});
  out.push_back({"CSR bytes", std::to_string((int64_t)csr) + " (bell/CSR = " + format_number(csr > 0 ? b / csr : 0.0, "%.3f") + ")"});
}

namespace {

class HostBlock : public Block {
public:
  Layout L;
  void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &) const override { spmv_host(L, alpha, x, beta, y); }
  void point_block_diagonal(double *blocks, cudaStream_t) const override { point_block_diagonal_host(L, blocks); }
};

} // namespace

std::unique_ptr<Block> make_block_host(const CsrView &A, int32_t bs, const Options &opt)
{
  auto blk      = std::make_unique<HostBlock>();
  blk->L        = build_host(A, bs, opt);
  blk->geometry = blk->L;
  blk->set_layout(Backend::host, A, blk->L.values.data(), (int64_t)blk->L.values.size(), blk->L.slot_of_csr.data());
  return blk;
}

namespace {
const FormatParam kOpsParams[] = {{"block_size", "rows and columns of a block (the matrix's block size)", 2, 2, 8}};
std::unique_ptr<FormatBlock> ops_host(const CsrView &A, const int64_t *params) { return make_block_host(A, (int32_t)checked_param(ops, params, 0)); }
std::unique_ptr<FormatBlock> ops_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up) { return make_block_cuda(A, (int32_t)checked_param(ops, params, 0), {}, stream, up); }
std::unique_ptr<FormatBlock> ops_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream) { return make_block_uploaded(A, d, (int32_t)checked_param(ops, params, 0), {}, stream); }
} // namespace

const FormatOps ops = {
  "bell",
  "BELL: block ELL, one column index per dense bs x bs block, for matrices with a block size (a DMDA's dof)",
  kOpsParams,
  1,
  0,
  ops_host,
  ops_cuda,
  true,
  ops_uploaded,
};

} // namespace bell
} // namespace gpuformats
