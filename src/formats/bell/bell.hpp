// BELL: block ELLPACK for matrices whose nonzeros come in dense bs x bs blocks
// (multi-component PDEs: bs unknowns per grid point). One 4-byte block column per block instead
// of one column per nonzero: 8 + 4/bs^2 bytes per nonzero (bs = 3: 8.44, 4: 8.25, 5: 8.16)
// against CSR's 12. Host layer (bell_host.cpp: the check, the layout, the reference product),
// device builder and thread body (bell_device.cuh), kernels and the blocks (bell_cuda.cu).
//
// Block rows (bs consecutive rows) are sorted by block count, longest first, inside windows of W
// block rows (core sorted_row_permutation on the block pattern: ties by first block column, then
// block row, so the device builder's permutation is the same), and cut into slices of S
// consecutive sorted block rows (S = 32 / bs: a warp's S*bs rows), each slice padded to its
// longest block row. A slot is one block: ONE int32 block column and bs*bs doubles; slots run
// column-major inside a slice (slot j of all its block rows, then slot j+1). The values of a
// slice are the SELL-C layout of its C = h*bs scalar rows with bs columns per block: entry b of
// slot j of every scalar row, then entry b+1, so a warp (one lane per scalar row) reads h*bs
// consecutive doubles per load: every load is coalesced (a block's own bs*bs values, row-major,
// would make lane l read at stride bs doubles: bs times the L1 wavefronts per value).
//
//   bs = 2, 3 block rows, drawn with S = 2       sorted (W = 1024): perm = [1 0 2]
//          c0 c1 | c2 c3 | c4 c5                   slice 0 (h = 2 block rows, width 3):
//   r0:    a  b  |  .  . |  c  d                     j = 0      j = 1      j = 2
//   r1:    e  f  |  .  . |  g  h                p0 = br1: s0 A10  s2 A11  s4 A12
//   r2:    i  j  |  k  l |  m  n                p1 = br0: s1 A00  s3 A02  s5 pad (bc 2, zeros)
//   r3:    o  p  |  q  s |  t  u                 slice 1 (h = 1, width 1):
//   r4:     .  . |  .  . |  v  w                p2 = br2: s6 A22
//   r5:     .  . |  .  . |  x  z
//   slice_ptr = [0 6 7]   widths = [3 1]   block_col = [0 0 1 2 2 2 2]
//   scalar rows of slice 0 (lane order): r2 r3 r0 r1; of slice 1: r4 r5
//   values = [i o a e  j p b f | k q c g  l s d h | m t 0 0  n u 0 0 | v x  w z]
//             ^ b = 0  ^ b = 1   (slot column j = 0, 1, 2 of slice 0; then slice 1)
//   slot_of_csr (rows r0, r1) = [2 6 10 14 | 3 7 11 15]
//
// Value index of entry (a, b) of the block in slot column j of slice s at position r < h_s:
//   value_index = slice_ptr[s]*bs^2 + (j*bs + b) * (h_s*bs) + r*bs + a
// (row a, entry e of a block row's row: j = e / bs, b = e % bs). bs = 1: value_index = slot.
//
// Product y = alpha*A*x + beta*y (beta == 0: y not read): for slice s, block row position r < h_s,
// p = s*S + r, row a < bs of block row perm[p]:
//   y[perm[p]*bs + a] = alpha * sum_{j < widths[s]} sum_{b < bs} values[value_index(s, j, r, a, b)] *
//                       x[block_col[slot]*bs + b]  (+ beta*y),   slot = slice_ptr[s] + j*h_s + r
// Padding blocks are zeros at the row's last block column (x already read by that row).
// The GPU runs one lane per scalar row of a slice (lane l = r*bs + a), kLanes(S, bs) lanes per
// slice (32 when S*bs <= 32: one warp; lanes >= h_s*bs idle, e.g. 2 of 32 for bs = 3, 5).
//
// Invariants (the host builder is the specification; the device builder gives identical arrays):
//   block_dense(A, bs)  nrows, ncols multiples of bs; a block holding any stored entry holds all
//                       bs*bs (explicit zeros count); otherwise build_host throws
//                       Error(unsupported) naming the first violation and kFitsHint
//   perm[p]             original block row at sorted position p, or ~br (negative) for an EMPTY
//                       block row br: its rows get beta*y (0 for beta == 0) and never read x, as
//                       AIJ (x may hold Inf there); empty block rows sort last in their window
//   W                   the window rounded up to a multiple of S (SELL-C-sigma's rule): a slice
//                       never straddles two windows; W = 0: one global sort
//   h_s                 min(S, nbrows - s*S): block rows of slice s (the last may be partial)
//   slice_ptr[s]        first slot of slice s; slice_ptr[s+1] - slice_ptr[s] = widths[s] * h_s
//                       (nslices + 1 entries); widths[s] = longest block row of slice s (0 when
//                       all its block rows are empty)
//   block_col[slot]     real block: its block column; padding: the row's last real block
//                       column, 0 for an empty block row; values of padding slots are 0.0
//   values              nslots * bs*bs doubles at value_index
//   slot_of_csr[k]      index into values of CSR entry k; values[slot_of_csr[k]] == A.values[k];
//                       nslots * bs*bs <= INT32_MAX (32-bit maps), else Error(unsupported)
//   bs = 1              plain sliced ELL (SELL-32-W) with S = 32: every matrix builds
//
// Bytes of a product (bytes()): values 8 bs^2 + block column 4 per slot, perm 4 per block row,
// slice_ptr 4 per slice, and x and y once (8 per column, 8 per row). widths are not read (the
// kernel derives them from slice_ptr and h_s). stored_bytes(): the same without x and y (what
// FormatBlock::bytes() counts).
#pragma once
#include "../../core/hd.hpp"
#include "../format.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpuformats {
namespace bell {

constexpr int32_t kMaxBlockSize = 8;    // bs in [1, kMaxBlockSize]
constexpr int32_t kWarp         = 32;   // S = max(1, kWarp / bs): a warp's rows per slice
constexpr int32_t kWindow       = 1024; // default sort window, in block rows

// True iff A.nrows and A.ncols are multiples of bs (1 <= bs <= kMaxBlockSize) and every bs x bs
// block holding a stored entry holds all bs*bs. why (may be null): the first violation (the block
// row and block column, with how many of its entries are stored and the first missing one) or the
// size mismatch.
bool block_dense(const CsrView &A, int32_t bs, std::string *why = nullptr);

struct Options {
  int32_t window = kWindow; // block rows per sort window (rounded up to a multiple of the slice); 0: one global sort
  int32_t slice  = 0;       // block rows per slice; 0: max(1, kWarp / bs)
};

// The sizes of a layout: everything but its arrays (both builders; the device arrays derive from it).
struct Geometry {
  int32_t nrows = 0, ncols = 0, bs = 1, nbrows = 0, nbcols = 0;
  int64_t nnz         = 0;
  int32_t window      = 0, slice = 1; // W and S as used (slice resolved, window rounded to it)
  int32_t nslices     = 0;
  int64_t nblocks     = 0; // real blocks (nnz / bs^2)
  int64_t nslots      = 0; // block slots, padding included
  int32_t empty_brows = 0;

  int32_t slice_height(int32_t s) const { return std::min(slice, nbrows - s * slice); } // h_s
};

struct Layout : Geometry {
  std::vector<int32_t> perm;        // nbrows: sorted position -> block row (~br: empty)
  std::vector<int32_t> slice_ptr;   // nslices + 1: first slot of each slice
  std::vector<int32_t> widths;      // nslices: blocks per block row of each slice
  std::vector<int32_t> block_col;   // nslots
  std::vector<double>  values;      // nslots * bs * bs, at value_index
  std::vector<int32_t> slot_of_csr; // nnz: index into values
};

GPUFORMATS_HD int64_t value_index(int32_t bs, int32_t slice_first_slot, int32_t h, int32_t j, int32_t r, int32_t a, int32_t b)
{
  return (int64_t)slice_first_slot * bs * bs + (int64_t)(j * bs + b) * (h * bs) + r * bs + a;
}

// The geometry fixed before any array: bs and options checked (Error(bad_input)), the slice and
// window resolved, the block counts from the shape (the slot counts are the builders').
Geometry plan(int32_t nrows, int32_t ncols, int64_t nnz, int32_t bs, const Options &opt);
// "" when nrows and ncols are multiples of bs, else block_dense's reason.
std::string shape_violation(int32_t nrows, int32_t ncols, int32_t bs);
// block_dense's reason for block (br, bc): rows holds the bs rows of block row br (row a of it is
// rows.rowptr[a] .. rows.rowptr[a + 1] of rows.colidx).
std::string describe_block(const CsrView &rows, int32_t bs, int32_t br, int32_t bc);
// The refusals both builders throw: not block-dense (why: block_dense's reason), and a padded
// layout beyond the int32 slot map.
Error not_block_dense_error(int32_t bs, const std::string &why);
Error slot_overflow_error();

// The layout of A (Error(bad_input) for bs or options out of range, Error(unsupported) naming
// the violation and the formats that fit when !block_dense(A, bs) or the layout overflows int32).
Layout build_host(const CsrView &A, int32_t bs, const Options &opt = {});

// y = alpha*A*x + beta*y; beta == 0: y is write-only.
void spmv_host(const Layout &L, double alpha, const double *x, double beta, double *y);
// values[slot_of_csr[k]] = csr_values[k]: a re-assembly with the same pattern.
void refresh_values(Layout &L, const double *csr_values);
// d[i] = A(i, i) for i < nrows (0 where not stored).
void diagonal_host(const Layout &L, double *d);
// blocks[br*bs*bs + a*bs + b] = A(br*bs + a, br*bs + b) for br < nbrows (zeros where block (br, br)
// is not stored): the point-block diagonal -pc_type pbjacobi inverts.
void point_block_diagonal_host(const Layout &L, double *blocks);
std::size_t bytes(const Geometry &L);        // a product's reads, x and y once included
std::size_t stored_bytes(const Geometry &L); // the stored format only (FormatBlock::bytes's count)

// Lanes per slice on the GPU: S*bs scalar rows rounded up to whole warps (32 for S <= 32 / bs).
constexpr int32_t kLanesPerWarp = 32;
GPUFORMATS_HD int32_t lanes_per_slice(int32_t slice, int32_t bs) { return (slice * bs + kLanesPerWarp - 1) / kLanesPerWarp * kLanesPerWarp; }

// A BELL block on either backend (FormatBlock's values are the nslots*bs*bs values, nslots counts
// them; the generic refresh and diagonal work through slot_of_csr). Not registered as a type:
// layout/layout.hpp takes bs from the matrix's block size and decides, per matrix block, between
// this layout and its format's scalar one with select/block_layout.hpp
// (-mat_gpuformats_block auto|scalar|block).
class Block : public FormatBlock {
public:
  Geometry geometry;
  // blocks[br*bs*bs + a*bs + b] = A(br*bs + a, br*bs + b), zeros where block (br, br) is not
  // stored (point_block_diagonal_host's order); blocks in the block's backend memory, asynchronous
  // on `stream` (cuda).
  virtual void point_block_diagonal(double *blocks, cudaStream_t stream) const = 0;
  std::size_t  bytes() const override { return stored_bytes(geometry); }
  void         describe(std::vector<LayoutStat> &out) const override;
};

// The host block (spmv_host over a Layout) and the cuda block (the CSR uploaded once with
// upload_csr, the device builder on `stream`, which it synchronises). Both throw as build_host.
std::unique_ptr<Block> make_block_host(const CsrView &A, int32_t bs, const Options &opt = {});
std::unique_ptr<Block> make_block_cuda(const CsrView &A, int32_t bs, const Options &opt, cudaStream_t stream, const UploadContext &up = {});
// make_block_cuda from A already uploaded in d (read, not taken: a refused build leaves d whole).
std::unique_ptr<Block> make_block_uploaded(const CsrView &A, const DeviceCsr &d, int32_t bs, const Options &opt, cudaStream_t stream);

// BELL as a layout (layout/layout.hpp builds it where a block size and the pattern ask for it):
// its one parameter is the block size. Not registered as a type.
extern const FormatOps ops;

} // namespace bell
} // namespace gpuformats
