// Partitioned: a block whose row ranges (parts) each run in their own layout, as the DP of the
// performance-model paper splits a matrix (Guo, Wang, Chen, section 4: row strips joined into
// blocks, each in the format with the least predicted time). gpuauto decides (model/auto.hpp);
// this is the layout that runs its decision.
//
//   A (6 rows)                       parts {rows 0-3: evchyb, rows 4-5: suraa}
//   r0-r3  short rows, local   -->   part 0 = evchyb of rows 0-3      values = [ part 0's | part 1's ]
//   r4-r5  long rows, skewed   -->   part 1 = suraa  of rows 4-5      offset:   0         nslots_0
//                                    slot_of_csr[k] = offset[p] + part p's slot of entry k - e[p]
//
// Product: part p computes y[r_p .. r_p + rows_p) = alpha A_p x + beta y[...] with the whole x. The
// parts write disjoint rows, so they may run at once: concurrent, part p on stream p of the
// product's StreamSet where there are as many streams and no part uses extra streams of its own
// (the glue joins the streams after the product, as for any layout); else one after another on
// the main stream.
//
// Invariants: the parts cover rows 0 .. nrows in order, each at least one row (else
// Error(bad_input)); part p's CSR is A's rows r_p .. r_p + rows_p with rowptr rebased, so its
// entries are A's entries e[p] .. e[p+1] in A's order. Each part's layout is its format's with
// default parameters; a refusal is thrown (Error(unsupported), naming the part). values holds
// the parts' values one after another (nslots their sum, at most INT32_MAX, else
// Error(unsupported)): every value writer (refresh, edits, COO, the diagonal, the factor and
// transpose views) goes through it and slot_of_csr, and values_changed copies each part's range to
// the part's own array, which its kernels read. So the values are held twice, and a change of them
// costs one more pass over them. The view (describe) times each part's product once, beside its
// predicted time: on the device with CUDA events, on the host backend with the host's clock; a
// part whose format uses streams of its own is not timed alone.
#pragma once
#include "../format.hpp"

#include <memory>
#include <vector>

namespace gpuformats {
namespace partitioned {

struct Part {
  int32_t          first_row = 0, rows = 0;
  const FormatOps *ops       = nullptr; // its layout, built with default parameters
  double           predicted = 0;       // seconds of its product the model predicts (0: none), for the view
};

// The parts cover A's rows in order, each nonempty with a format (Error(bad_input) otherwise).
void check_parts(const CsrView &A, const std::vector<Part> &parts);
// Rows first_row .. first_row + rows of A as a CSR of their own (all columns): A's arrays, the row
// pointers rebased into `rowptr`.
CsrView rows_view(const CsrView &A, int32_t first_row, int32_t rows, std::vector<int32_t> &rowptr);

std::unique_ptr<FormatBlock> build_host(const CsrView &A, const std::vector<Part> &parts, bool concurrent = false);
// From A already on the device in d (read, not taken): each part's rows are copied out of it on
// the device and built with its format's build_uploaded.
std::unique_ptr<FormatBlock> build_uploaded(const CsrView &A, const DeviceCsr &d, const std::vector<Part> &parts, cudaStream_t stream, bool concurrent = false);
// The streams a partition's product may use beyond the main one (the most of its parts', or one a part
// when concurrent).
int extra_streams(const std::vector<Part> &parts, bool concurrent);

// Device steps of the build (partitioned_cuda.cu): rows r0 .. r0 + rows of d (entries e0 .. e1)
// as a CSR of their own, and out[k] = in[k] + offset.
DeviceCsr slice_rows_cuda(const DeviceCsr &d, int32_t r0, int32_t rows, int64_t e0, int64_t e1, cudaStream_t stream);
void      offset_slots_cuda(const int32_t *in, int64_t n, int32_t offset, int32_t *out, cudaStream_t stream);
// Seconds of one product of a part on the device (the mean of reps after one warm-up, on a stream
// of its own): the view's measured time beside the model's prediction.
double time_part_cuda(const FormatBlock &b, int reps);

} // namespace partitioned
} // namespace gpuformats
