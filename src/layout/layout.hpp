// One block's layout, decided and built in one place below the glue: the format of the matrix's
// type, BELL where a block size and the pattern ask for it, DIA where the pattern is a stencil, or
// gpuauto's choice.
//
//   CsrView A, Request {ops, params, settings, block size, block mode, stencil mode, compress rows}
//     |
//     +-- select::choose_block_layout (block size, mode, a cheap pattern check)
//     |     block: bell::ops with the block size ------------------+  refused (not block-dense):
//     |                                                             |  select::refused_block_layout
//     +-- compress_rows: at most half the rows have entries?        |
//     |     what follows decides over those rows alone              |
//     |     (compressed_rows.hpp: an mpi matrix's off-process block)|
//     +-- select::choose_stencil_layout (mode, row lengths)        |
//     |     stencil: dia::ops ---------------------------------------+  refused (an entry off the
//     |                                                             |  offsets): refused_stencil_layout
//     +-- gpuauto (settings): model::build_auto_* -----------------+--> Layout {fmt, ops, block_bs,
//     +-- the type's ops ----------------------------------------- +      name, reason, report,
//                                                                          derived_ops}
//
// On the device the CSR is uploaded once, here: every candidate builds from that upload
// (FormatOps::build_uploaded, which every layout has), a refused BELL build included, and the
// caller sees the upload first (the glue finds the diagonal's positions in it). The caller names
// no format: Layout::ops is what built the block (bell::ops for the block layout, gpuauto's
// choice for gpuauto), the one that knows its parameters and streams. The types themselves
// (types()) and a type's options beyond its format parameters (Settings) come from here too.
#pragma once
#include "../formats/format.hpp"
#include "../model/auto.hpp"
#include "../select/block_layout.hpp"
#include "../select/stencil_layout.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuformats::layout {

// The matrix types: every registered format, then gpuauto (the model's choice among them).
const FormatOps *const *types(int *count);

// A type's options beyond its format parameters (FormatOps::params), given as strings
// -mat_<root>_<name>: gpuauto's model file and candidates; a fixed format has none. A value: a
// matrix keeps its own copy, and a matrix made from it copies it.
struct StringOption {
  const char *name;
  const char *help;
  bool        list; // comma-separated values
};
class Settings {
public:
  Settings() = default; // a fixed format's: no options
  explicit Settings(const FormatOps &type);
  std::vector<StringOption> options() const;
  std::string               value(size_t option) const; // the current value, for -help
  // Option `option` given `values`: true where the layout a build takes may change. Error(bad_input)
  // for a value the type cannot take (an unreadable model file, a candidate the model lacks).
  bool                       set(size_t option, const std::vector<std::string> &values);
  const model::AutoSettings *autosel() const { return auto_ ? &*auto_ : nullptr; } // the decision's (gpuauto)

private:
  std::optional<model::AutoSettings> auto_;
};

struct Request {
  const FormatOps           *ops;                  // the type's format (gpuauto's ops for gpuauto)
  const int64_t             *params;               // its parameters, in ops->params order
  const Settings            *settings = nullptr;   // the type's Settings (null: none)
  int32_t                    block_size = 1;       // the matrix's (row) block size
  select::BlockMode          block_mode = select::BlockMode::automatic;
  select::StencilMode        stencil_mode = select::StencilMode::automatic;
  const int64_t             *stencil_params = nullptr; // the stencil layout's, in stencil_ops().params order; null: defaults
  bool                       compress_rows = true;     // mostly empty rows: the layout over the others (compressed_rows.hpp)
};

// The stencil layout's format: its parameters are options of every type (-mat_<root>_<name>),
// passed back as Request::stencil_params.
const FormatOps &stencil_ops();

struct Layout {
  std::unique_ptr<FormatBlock>       fmt;
  const FormatOps                   *ops      = nullptr; // what built fmt
  int32_t                            block_bs = 0;       // > 0: the block layout (BELL) with this block size
  std::string                        name;               // what -mat_view and -info call it
  std::string                        reason;             // why block, stencil or scalar (-mat_view ::ascii_info)
  std::unique_ptr<model::AutoReport> report;             // gpuauto's choice
  std::vector<std::string>           info, view;         // the choice in words: -info at a build, -mat_view ::ascii_info
  // The format a matrix derived from this block's (a factor's triangles) takes: the type's, or
  // gpuauto's choice; never a layout that holds this pattern only (BELL, DIA).
  const FormatOps *derived_ops = nullptr;
};

// Host backend. Throws Error as the builders do (a refusal of the type's own format included).
Layout build_host(const CsrView &A, const Request &rq);
// cuda backend: A uploaded once (up: staging and timer), uploaded(d) called with it before any
// builder reads it, builders on `stream`. Error(internal) for a layout without build_uploaded.
Layout build_cuda(const CsrView &A, const Request &rq, cudaStream_t stream, const UploadContext &up, const std::function<void(const DeviceCsr &)> &uploaded);

} // namespace gpuformats::layout
