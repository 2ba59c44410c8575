// PELLR: permuted ELLPACK-R (Wang and Gu, section 3).
//
// Rows are sorted by length, longest first (the shared core permutation, global), and the sorted
// rows are stored as ELLPACK-R: left-packed, padded to the longest row K, column-major with a
// stride of S = stored rows rounded up to a warp (32), so a warp reads 32 consecutive slots per
// column. Sorting puts the empty rows last; they are not stored (their threads only scale y), so
// a mostly-empty block (MPI's off-process part) costs its non-empty rows only.
// rl[] holds the row lengths (per row, or per warp as the paper suggests to save memory).
//
//   CSR (5 rows)         sorted (perm = [2 4 0 1 3])     stored, K = 4, S = 32 (p5..p31: phantom rows)
//   r0: a b              p0 = r2: d e f g                 column 0: d h a c * * ... *    slots   0..31
//   r1: c                p1 = r4: h i j *                 column 1: e i b * * * ... *    slots  32..63
//   r2: d e f g          p2 = r0: a b * *                 column 2: f j * * * * ... *    slots  64..95
//   r3: (empty)          p3 = r1: c * * *                 column 3: g * * * * * ... *    slots  96..127
//   r4: h i j            p4 = r3: (empty, not stored: 4 stored rows)
//   rl (per row)  = [4 3 2 1]            rl (per warp) = [4]
//
// Product: one thread per stored row p, y[perm[p]] = alpha * sum_{j < rl} values[j*S + p] *
// x[colidx[j*S + p]] + beta * y[perm[p]]. With rl per warp a thread runs to the warp's longest row
// and stops at its first padding slot (column -1), so padding never touches x.
//
// Invariants (host and cuda builders produce identical arrays):
//   perm[p]         original row at position p: sorted_row_permutation(longest first, global) when
//                   -mat_pellr_permute 1; the identity (not stored) when 0, which is plain
//                   ELLPACK-R, the paper's baseline
//   stored          rows with storage: nrows - empty rows when permuted (empty rows sort last),
//                   nrows for the identity (ELLPACK-R stores every row)
//   slot(p, j)      = j*S + p for j < length of row perm[p], p < stored; every other slot is
//                   padding (value 0.0, column -1); nslots = K*S, S = stored rounded up to 32
//   rl              per row: rl[p] = length of row perm[p] (stored entries); per warp:
//                   rl[w] = max over the 32 positions of warp w (N_w = ceil(stored/32) entries)
//   slot_of_csr[k]  slot of CSR entry k; nslots <= INT32_MAX (32-bit offsets)
//   Fill: K*stored must not exceed max_fill * nnz (-mat_pellr_max_fill, default 3), and the
//   layout must fit in free device memory; otherwise the builders throw Error(unsupported)
//   naming pjds and evchyb, before allocating the padded arrays.
//
// The paper's counts (equations 1-2), computed at build time for describe() and the model:
//   N_w    = ceil(stored / 32)
//   N_iter = sum over warps of the warp's longest row (iterations the warps run; warps of empty
//            rows count 0)
//   N_p    = sum over rows of (2 b - 1): one multiply per entry and b - 1 additions; rows with
//            b = 0 count 0 (the paper's formula would give -1 for them). Independent of the order.
// Both N_iter of the stored order and of the other order (natural / sorted) are reported, so
// -mat_view shows the reduction the permutation buys.
#pragma once
#include "../format.hpp"

#include <cstdint>
#include <vector>

namespace gpuformats {

extern const FormatOps pellr_ops;

namespace pellr {

constexpr int32_t kWarp = 32; // the paper's warp: rows per rl[] entry in per-warp mode, stride alignment

// Parameter order of pellr_ops.params.
enum Param { param_max_fill = 0, param_rl_per_warp = 1, param_permute = 2, nparams = 3 };

struct Info {
  int32_t max_fill       = 3;
  bool    rl_per_warp    = true;
  bool    permuted       = true;
  int32_t width          = 0; // K: longest row
  int32_t stored         = 0; // rows with storage (see above)
  int32_t stride         = 0; // S: stored rounded up to kWarp
  int32_t empty_rows     = 0;
  int64_t n_warps        = 0; // N_w
  int64_t n_iter         = 0; // N_iter of the stored order
  int64_t n_iter_natural = 0; // N_iter of plain ELLPACK-R (natural order)
  int64_t n_iter_sorted  = 0; // N_iter of PELLR (sorted order)
  int64_t n_p            = 0; // N_p
};

// Reads and checks the parameters (Error(bad_input)).
Info read_params(const int64_t *params);
// Fills stored/stride/n_warps (info.width, info.permuted and info.empty_rows set) and refuses a
// blow-up (Error(unsupported)) before anything of the padded size is allocated. free_bytes < 0:
// not checked (host).
void        check_fill(Info &info, int32_t nrows, int64_t nnz, int64_t free_bytes);
int64_t     rl_entries(const Info &info); // rl[] entries: per warp, or per stored row
std::size_t layout_bytes(const Info &info, int32_t nrows, int64_t nslots);
void        describe_layout(const Info &info, const FormatBlock &blk, std::vector<LayoutStat> &out);

std::unique_ptr<FormatBlock> build_cuda(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up);
std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream); // build_cuda after its upload

} // namespace pellr
} // namespace gpuformats
