// BELL host layer (the specification of the layout in bell.hpp): the block-density check, the
// host builder, the reference product, the values-only refresh and the (point-block) diagonal.
#include "bell.hpp"

#include "../../core/row_permutation.hpp"

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

// Stored entries of block (br, bc), and the first missing one.
std::string describe_block(const CsrView &A, int32_t bs, int32_t br, int32_t bc)
{
  int32_t held = 0, miss_r = -1, miss_c = -1;
  for (int32_t a = 0; a < bs; ++a) {
    const int32_t r = br * bs + a;
    for (int32_t b = 0; b < bs; ++b) {
      const int32_t c = bc * bs + b;
      if (std::binary_search(A.colidx + A.rowptr[r], A.colidx + A.rowptr[r + 1], c)) ++held;
      else if (miss_r < 0) miss_r = r, miss_c = c;
    }
  }
  return "the " + std::to_string(bs) + "x" + std::to_string(bs) + " block at block row " + std::to_string(br) + ", block column " + std::to_string(bc) + " (rows " + std::to_string(br * bs) + ".." + std::to_string(br * bs + bs - 1) + ") stores " + std::to_string(held) + " of its " +
         std::to_string(bs * bs) + " entries (first missing: row " + std::to_string(miss_r) + ", column " + std::to_string(miss_c) + ")";
}

bool fail(std::string *why, const std::string &what)
{
  if (why) *why = what;
  return false;
}

} // namespace

bool block_dense(const CsrView &A, int32_t bs, std::string *why)
{
  if (bs < 1 || bs > kMaxBlockSize) return fail(why, "block size " + std::to_string(bs) + " outside [1, " + std::to_string(kMaxBlockSize) + "]");
  if (A.nrows % bs || A.ncols % bs)
    return fail(why, "the " + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + " matrix is not a whole number of " + std::to_string(bs) + "x" + std::to_string(bs) + " blocks (" + (A.nrows % bs ? "rows" : "columns") + " not a multiple of " + std::to_string(bs) + ")");
  for (int32_t br = 0; br < A.nrows / bs; ++br) {
    const int32_t r0 = br * bs;
    int32_t       bc = first_partial_block(A, r0, bs);
    for (int32_t a = 1; a < bs; ++a) {
      const int32_t d = first_difference(A, r0, r0 + a, bs);
      if (d >= 0 && (bc < 0 || d < bc)) bc = d;
    }
    if (bc >= 0) return fail(why, describe_block(A, bs, br, bc));
  }
  return true;
}

Layout build_host(const CsrView &A, int32_t bs, const Options &opt)
{
  if (bs < 1 || bs > kMaxBlockSize) throw Error(ErrorKind::bad_input, "bell: block size " + std::to_string(bs) + " outside [1, " + std::to_string(kMaxBlockSize) + "]");
  if (opt.window < 0 || opt.slice < 0) throw Error(ErrorKind::bad_input, "bell: sort window (" + std::to_string(opt.window) + ") and slice rows (" + std::to_string(opt.slice) + ") must be >= 0");
  std::string why;
  if (!block_dense(A, bs, &why)) throw Error(ErrorKind::unsupported, "bell: not block-dense with block size " + std::to_string(bs) + ": " + why + ". " + kFits + ".");

  Layout L;
  L.nrows = A.nrows, L.ncols = A.ncols, L.bs = bs, L.nnz = A.nnz;
  L.nbrows = A.nrows / bs, L.nbcols = A.ncols / bs;
  L.slice  = opt.slice ? opt.slice : std::max(1, kWarp / bs);
  L.window = (int32_t)std::min<int64_t>(((int64_t)opt.window + L.slice - 1) / L.slice * L.slice, INT32_MAX / L.slice * L.slice); // slices never straddle windows
  const int32_t bs2 = bs * bs;
  L.nblocks         = A.nnz / bs2;

  // The block pattern (first row of each block row, every bs-th column): sorted as rows are.
  std::vector<int32_t> browptr(L.nbrows + 1, 0), bcol(L.nblocks);
  for (int32_t br = 0; br < L.nbrows; ++br) {
    const int32_t r0 = br * bs, n = A.row_length(r0) / bs;
    for (int32_t j = 0; j < n; ++j) bcol[browptr[br] + j] = A.colidx[A.rowptr[r0] + j * bs] / bs;
    browptr[br + 1] = browptr[br] + n;
  }
  const CsrView B{L.nbrows, L.nbcols, L.nblocks, browptr.data(), bcol.data(), nullptr};
  L.perm = sorted_row_permutation(B, RowOrder::longest_first, L.window);

  L.nslices = (L.nbrows + L.slice - 1) / L.slice;
  L.widths.assign(L.nslices, 0);
  L.slice_ptr.assign(L.nslices + 1, 0);
  int64_t slots = 0;
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) L.widths[s] = std::max(L.widths[s], B.row_length(L.perm[s * L.slice + r]));
    slots += (int64_t)L.widths[s] * h;
    if (slots * bs2 > INT32_MAX)
      throw Error(ErrorKind::unsupported, "bell: the padded layout needs more than the 2^31-1 values the int32 slot map addresses. " + std::string(kFits) + ", or split the matrix over more ranks.");
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
          const int32_t k = A.rowptr[row] + e, v = slot(e / bs) * bs2 + a * bs + e % bs;
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
  const int32_t bs = L.bs, bs2 = bs * bs;
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) {
      const int32_t pr = L.perm[s * L.slice + r], br = pr < 0 ? ~pr : pr;
      for (int32_t a = 0; a < bs; ++a) {
        double sum = 0;
        for (int32_t j = 0; pr >= 0 && j < L.widths[s]; ++j) {
          const int32_t slot = L.slice_ptr[s] + j * h + r;
          const double *v = &L.values[(int64_t)slot * bs2 + a * bs], *xb = x + (int64_t)L.block_col[slot] * bs;
          for (int32_t b = 0; b < bs; ++b) sum += v[b] * xb[b];
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

// Calls f(br, block) for every block row br < nbrows, block = its diagonal block's values
// (bs*bs, row-major) or null when block (br, br) is not stored.
template <class F>
void for_diagonal_blocks(const Layout &L, F &&f)
{
  for (int32_t s = 0; s < L.nslices; ++s) {
    const int32_t h = L.slice_height(s);
    for (int32_t r = 0; r < h; ++r) {
      const int32_t pr = L.perm[s * L.slice + r], br = pr < 0 ? ~pr : pr;
      const double *block = nullptr;
      for (int32_t j = 0; pr >= 0 && j < L.widths[s] && !block; ++j) { // the first match is real: padding repeats the last column
        const int32_t slot = L.slice_ptr[s] + j * h + r;
        if (L.block_col[slot] == br) block = &L.values[(int64_t)slot * L.bs * L.bs];
      }
      f(br, block);
    }
  }
}

} // namespace

void diagonal_host(const Layout &L, double *d)
{
  const int32_t bs = L.bs;
  for_diagonal_blocks(L, [&](int32_t br, const double *block) {
    for (int32_t a = 0; a < bs; ++a) d[br * bs + a] = block ? block[a * bs + a] : 0.0;
  });
}

void point_block_diagonal_host(const Layout &L, double *blocks)
{
  const int32_t bs2 = L.bs * L.bs;
  for_diagonal_blocks(L, [&](int32_t br, const double *block) {
    for (int32_t e = 0; e < bs2; ++e) blocks[(int64_t)br * bs2 + e] = block ? block[e] : 0.0;
  });
}

std::size_t stored_bytes(const Layout &L)
{
  return (std::size_t)L.nslots * (8 * L.bs * L.bs + 4) + (std::size_t)L.nbrows * 4 + (std::size_t)(L.nslices + 1) * 4;
}

std::size_t bytes(const Layout &L) { return stored_bytes(L) + (std::size_t)(L.nrows + L.ncols) * 8; }

} // namespace bell
} // namespace gpuformats
