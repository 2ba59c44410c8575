// The per-format vtable the PETSc glue drives, identical for every format and both backends.
//
//   host AIJ block --CsrView--> FormatOps::build_{host,cuda} --> FormatBlock
//                                                                  |- spmv(alpha, x, beta, y)
//                                                                  |- values[] / slot_of_csr[]  (values-only refresh,
//                                                                  |                             diagonal: done generically)
//                                                                  |- bytes(), describe()
//
// Every format keeps ALL its stored values (padding included) in one array `values` of `nslots`
// entries, and records where CSR entry k went: values[slot_of_csr[k]] == csr.values[k]. Padding
// slots hold 0 and are never named by slot_of_csr. With that, a re-assembly with the same
// nonzero pattern is a scatter (formats/slot_map.hpp), with no format-specific code.
#pragma once
#include "../core/csr.hpp"
#include "../core/device_buffer.hpp"
#include "../core/host_upload.hpp"
#include "row_cost.hpp"

#include <cuda_runtime_api.h>
#include <memory>
#include <string>
#include <vector>

namespace gpuformats {

enum class Backend { host, cuda };

// Streams a product may use. streams[0] is PETSc's current stream. The glue makes streams[1..]
// wait for streams[0] before spmv and makes streams[0] wait for them afterwards, so a format
// that uses several streams needs no synchronisation with PETSc of its own. count is
// 1 + FormatOps::extra_streams. Empty (count 0) on the host backend.
struct StreamSet {
  const cudaStream_t *streams = nullptr;
  int                 count   = 0;
  cudaStream_t        main() const { return count ? streams[0] : nullptr; }
};

// One line of `-mat_view ::ascii_info`.
struct LayoutStat {
  std::string key, value;
};

class FormatBlock {
public:
  virtual ~FormatBlock() = default;

  // y = alpha*A*x + beta*y. x (ncols) and y (nrows) live in the backend's memory. beta == 0: y is
  // write-only (may hold NaN). Asynchronous on the cuda backend.
  virtual void spmv(double alpha, const double *x, double beta, double *y, const StreamSet &streams) const = 0;

  // Bytes the product reads from device memory, stored format only (values, indices, per-row
  // and per-group metadata). slot_of_csr is counted apart (map_bytes).
  virtual std::size_t bytes() const = 0;

  // Layout statistics for -mat_view ::ascii_info (rows/nonzeros per part, padding, groups...).
  virtual void describe(std::vector<LayoutStat> &out) const = 0;

  Backend        backend     = Backend::host;
  int32_t        nrows       = 0, ncols = 0;
  int64_t        nnz         = 0;
  double        *values      = nullptr; // nslots entries, backend memory, owned by the subclass
  int64_t        nslots      = 0;
  const int32_t *slot_of_csr = nullptr; // nnz entries, backend memory, owned by the subclass

  std::size_t map_bytes() const { return (std::size_t)nnz * sizeof(int32_t); }

  // Called by every writer of `values` after a build (slot_map.hpp's refresh, edits and COO), on the
  // stream it wrote on: a layout that keeps a fact about its values (DIA's symmetry) renews it there.
  virtual void values_changed(cudaStream_t) {}
  // True where the layout's own check of its current values found A == A^T exactly (DIA's count of
  // rows that differ from their mirrors, once it has come back); false where not known. A
  // transposed product may then run the product itself.
  virtual bool values_symmetric() const { return false; }

  // What every builder sets last: the shape of A and the subclass's value and slot arrays.
  void set_layout(Backend b, const CsrView &A, double *vals, int64_t slots, const int32_t *slot_map)
  {
    backend     = b;
    nrows       = A.nrows;
    ncols       = A.ncols;
    nnz         = A.nnz;
    values      = vals;
    nslots      = slots;
    slot_of_csr = slot_map;
  }
};

// A format option, shown by -help as -mat_<root>_<name>.
struct FormatParam {
  const char *name;
  const char *help;
  int64_t     default_value, min_value, max_value;
};

// The rule of a layout with one value array per column offset (DIA): it holds rows whose entries all
// lie on the offsets j - i of their first longest row, at most the default of params[max_diags]
// (<= kMaxOffsets) of them, with padding ndiag x rows - nnz at most the default of
// params[max_pad_pct] percent of nnz; else it refuses. Its product streams ndiag x rows slots,
// padding included, where the other formats stream their entries.
constexpr int32_t kMaxOffsets = 32;
struct OffsetShape {
  int max_diags, max_pad_pct; // indices into the format's params
};

struct FormatOps {
  const char        *root;        // "evchyb": types seqaijevchyb / mpiaijevchyb
  const char        *description; // one line for -help and the README
  const FormatParam *params;      // nparams entries; builders get their values in this order
  int                nparams;
  int                extra_streams; // streams beyond PETSc's own that spmv may use

  // Build from a host CSR block. build_cuda uploads the CSR once (upload_csr, staged and timed as
  // `up` says) and builds on the device with Thrust/CUB; it may synchronise `stream` before
  // returning. Both throw Error.
  std::unique_ptr<FormatBlock> (*build_host)(const CsrView &A, const int64_t *params);
  std::unique_ptr<FormatBlock> (*build_cuda)(const CsrView &A, const int64_t *params, cudaStream_t stream, const UploadContext &up);
  // True for a format that refuses matrices it cannot hold well (ErrorKind::unsupported, whose
  // message names the formats that fit: kFitsHint); the others build every matrix.
  bool may_refuse = false;
  // build_cuda after its upload: from A already on the device in d (upload_csr of A; the builder
  // may take d's arrays). Required: every device build uploads once, in layout/layout.hpp, and
  // builds from that upload (gpuauto reads its features from it before it picks the format).
  std::unique_ptr<FormatBlock> (*build_uploaded)(const CsrView &A, DeviceCsr &d, const int64_t *params, cudaStream_t stream) = nullptr;
  // How its product spends lanes and warps on rows (row_cost.hpp), for a format whose time the
  // model's row-independent terms miss; null for the others. At most one format declares it.
  const RowCost *row_cost = nullptr;
  // For a format that stores one value array per column offset j - i and no column index (DIA):
  // its rule for holding rows, which the model checks on its strips' offsets (model.hpp); null for
  // the others. At most one format declares it.
  const OffsetShape *offset_shape = nullptr;
};
// Streams beyond PETSc's own that any format's product may use (extra_streams <= this): what a
// block whose format is chosen later (gpuauto) prepares.
constexpr int kMaxExtraStreams = 4;
// Words every refusal's message carries (tests hold refusals to it).
constexpr const char *kFitsHint = "Formats that fit";
// A refusal's message without its hint, which is for -mat_type, not a layout decision.
inline std::string without_fits_hint(const Error &refusal)
{
  std::string       why  = refusal.what();
  const std::size_t fits = why.find(std::string(". ") + kFitsHint);
  if (fits != std::string::npos) why.resize(fits);
  return why;
}

// params[i], checked against the range ops.params[i] declares (Error(bad_input) naming
// -mat_<root>_<name>, the range and the value). The builders read their parameters through it, so
// a range is declared once, in the table (which -help and the options database show too); a rule
// the range cannot say (a power of two, a gap) stays with the format.
int64_t checked_param(const FormatOps &ops, const int64_t *params, int i);
// The parameters at their declared defaults, in order (nparams values): what a build without
// options gets.
std::vector<int64_t> default_params(const FormatOps &ops);

// The formats this library carries, in registration order (formats/registry.cpp).
const FormatOps *const *all_formats(int *count);
const FormatOps        *find_format(const std::string &root);
// Layouts that are no matrix type of their own (DIA, which the layout decision takes for a stencil
// block): gpuauto's model may choose them for a block or a part. find_layout_format looks in both.
const FormatOps *const *layout_only_formats(int *count);
const FormatOps        *find_layout_format(const std::string &root);

} // namespace gpuformats
