// gpuauto: the layout of a matrix block chosen by the model (model.hpp), the one entry
// point the PETSc glue calls for the types seqaijgpuauto / mpiaijgpuauto.
//
//   host CSR block --upload_csr--> device CSR --strips_of_device--> strips (rows, nnz, max_row,
//        |                              |                           col_span, x_sectors sampled)
//        |                              |                                 |
//        |                              |          predict(candidate) for every allowed candidate
//        |                              |                                 |
//        |                              +--> FormatOps::build_uploaded of the least predicted
//        |                                   (a refusal: the next one), from the same upload
//        +-- host backend: strips_of + build_host, the same choice
//
// The candidates are the model's (every registered format with its defaults, and cuSPARSE CSR, what
// aijcusparse runs), so a correct model never picks slower than aijcusparse. The DP of the paper's
// section 4 (select::partition_strips with dp_cost) runs over the same strips: where it predicts a
// split into formats faster than the best single format by at least the margin
// (-mat_gpuauto_partition_gain_pct), the block is built partitioned (formats/partitioned: each
// part in its format), else in the one format; -mat_gpuauto_partition auto|off|force. Each block of
// an MPI matrix (local and off-process) is chosen on its own.
#pragma once
#include "formats/format.hpp"
#include "model/model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpuformats::model {

// root "gpuauto", parameter strip_rows (0: the model's). Its builders choose with the model of this
// GPU (found by name, model_for_this_gpu) and all its candidates; the glue calls build_auto_* with
// the matrix's own settings (-mat_gpuauto_model, -mat_gpuauto_candidates).
extern const FormatOps gpuauto_ops;
constexpr int kAutoParamStripRows = 0, kAutoParamPartitionGainPct = 1;

// Whether the DP's partition is built: where its predicted gain reaches the margin, never, or
// wherever it splits the block at all.
enum class PartitionMode { automatic, off, force };
const char *partition_mode_name(PartitionMode m);

// The layout a candidate name builds: a registered format's or a layout-only one's (DIA) ops, or
// cusparse_csr_ops (kCusparseCsr); null for any other name.
const FormatOps *candidate_ops(const std::string &name);
// The DP's blocks as the partitioned layout's parts: each block's rows (from its strips), the
// layout of its candidate (names[block.format]) and its predicted time.
std::vector<partitioned::Part> partition_parts(const select::Partition &p, const std::vector<Strip> &strips, const std::vector<std::string> &names);
struct AutoReport;
// What built a block the report describes: the chosen candidate's ops, or gpuauto's own for a
// partition (its streams cover every part's; a matrix derived from the block chooses again).
const FormatOps *built_ops(const AutoReport &r);

// The model of the GPU this process uses (cudaGetDevice), read once per process: the file for its
// name in model_dirs(), else default_model(). *source: the file, or why the default; *message
// (may be null): non-empty when the default is used, with how to calibrate.
std::shared_ptr<const Model> model_for_this_gpu(std::string *source, std::string *message);
// A model file, read once per process and path (read_model's errors).
std::shared_ptr<const Model> model_from_file(const std::string &path);
// m with only the named candidates, in m's order. Error(bad_input) naming the unknown name and the
// model's candidates, or when names is non-empty and selects none.
Model restrict_candidates(const Model &m, const std::vector<std::string> &names);

struct AutoSettings {
  std::shared_ptr<const Model> model;      // null: model_for_this_gpu
  std::string                  source;     // where model came from (the view says it)
  std::string                  message;    // why a default model is used, if it is
  std::vector<std::string>     candidates; // allowed names (empty: every candidate of the model)
  int32_t                      strip_rows = 0; // 0: model->strip_rows
  PartitionMode                partition  = PartitionMode::automatic;
  double                       partition_gain = 0.03; // least predicted gain (one format's time / the partition's - 1) of a partition built by automatic
  bool                         offset_layout = true;  // the model's offset_shape_format() may be chosen (-mat_gpuformats_stencil off: not)
};

// What the choice saw and did, for -mat_view ::ascii_info and -info.
struct AutoReport {
  std::string              model_source, model_gpu, model_message;
  int32_t                  strip_rows = 0, sector_stride = 1;
  std::vector<Strip>       strips;
  bool                     features_on_device = false;
  std::vector<std::string> names;     // the candidates predicted, in the model's order
  std::vector<double>      predicted; // seconds of one product, per name
  std::vector<std::string> refused;   // "<name>: <its message>", in the order tried
  std::string              chosen;    // the name built
  double                   chosen_predicted = 0;
  select::Partition        partition; // the DP over `names` (Block::format indexes names); empty without strips
  bool                     partition_built = false; // the block is the DP's partition (chosen: "partition")
  std::string              partition_note;          // why a split the DP found was not built
  double                   choice_seconds = 0; // host clock: features, predictions and the DP (not the build)
};

// s with the values of gpuauto's FormatOps parameters (strip_rows, partition_gain_pct; checked
// against their declared ranges), as every build of the type takes them.
AutoSettings with_params(AutoSettings s, const int64_t *params);

// The choice in words. info_lines: -info at a build (the choice, the predictions and the model;
// then each refused candidate); view_lines: -mat_view ::ascii_info (the model, the features it
// read, the predictions, the choice, the refusals and the DP's partition). Every line starts
// "gpuauto"; the caller adds its prefix.
std::vector<std::string> info_lines(const AutoReport &r);
std::vector<std::string> view_lines(const AutoReport &r);

// The block of A in the chosen layout; *report (may be null) filled. Throws as the builders do; a
// refusal of a candidate is not an error while another is left.
std::unique_ptr<FormatBlock> build_auto_host(const CsrView &A, const AutoSettings &s, AutoReport *report);
std::unique_ptr<FormatBlock> build_auto_cuda(const CsrView &A, const AutoSettings &s, cudaStream_t stream, const UploadContext &up, AutoReport *report);
// The same from A already on the device in d (upload_csr of A); the chosen builder may take d's arrays.
std::unique_ptr<FormatBlock> build_auto_uploaded(const CsrView &A, DeviceCsr &d, const AutoSettings &s, cudaStream_t stream, AutoReport *report);

// Helpers of the two builders (auto.cpp): the settings' model restricted to the allowed candidates
// that have a layout here, and the order to try them in (least predicted first) with the report's
// predictions and partition filled.
struct AutoPlan {
  Model            model; // restricted
  std::vector<int> order; // candidate indices of model, least predicted first
};
AutoPlan plan_auto(const AutoSettings &s, std::vector<Strip> strips, AutoReport &report);

} // namespace gpuformats::model
