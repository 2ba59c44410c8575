// gpuauto's choice in words (auto.hpp: info_lines, view_lines), for -info and -mat_view.
#include "auto.hpp"

#include "../core/text.hpp"

#include <algorithm>
#include <cmath>

namespace gpuformats::model {
namespace {

std::string predictions(const AutoReport &r)
{
  std::string out;
  for (size_t i = 0; i < r.names.size(); ++i) // +inf: the candidate's rule refuses the block (the offset layout)
    out += std::isfinite(r.predicted[i]) ? format("%s%s %.1f", i ? ", " : "", r.names[i].c_str(), 1e6 * r.predicted[i]) : format("%s%s refuses", i ? ", " : "", r.names[i].c_str());
  return out;
}

std::string choice(const AutoReport &r)
{
  double csr = -1;
  for (size_t i = 0; i < r.names.size(); ++i)
    if (r.names[i] == kCusparseCsr) csr = r.predicted[i];
  if (csr > 0 && r.chosen != kCusparseCsr) return format("chose %s (predicted %.1f us, %.2fx cusparse_csr's %.1f us); the choice took %.3f ms", r.chosen.c_str(), 1e6 * r.chosen_predicted, csr / std::max(r.chosen_predicted, 1e-30), 1e6 * csr, 1e3 * r.choice_seconds);
  return format("chose %s (predicted %.1f us); the choice took %.3f ms", r.chosen.c_str(), 1e6 * r.chosen_predicted, 1e3 * r.choice_seconds);
}

std::string partition(const AutoReport &r)
{
  if (r.strips.empty()) return "no strips (no rows)";
  const select::Partition &p = r.partition;
  if (!p.partitioned()) return "one block: no split of the " + std::to_string(r.strips.size()) + " strip(s) into formats is predicted faster";
  std::string out = "the DP predicts ";
  for (size_t b = 0; b < p.blocks.size(); ++b) {
    const select::Block &k = p.blocks[b];
    out += format("%sstrips %d-%d %s", b ? ", " : "", k.first_strip, k.last_strip, r.names[k.format].c_str());
  }
  out += format(" at %.1f us against %.1f us for one format (%.3fx)", 1e6 * p.time, 1e6 * p.single.time, p.single.time / std::max(p.time, 1e-30));
  return out + (r.partition_built ? "; built (the layout's parts below)" : "; " + r.partition_note + "; one format is built");
}

} // namespace

std::vector<std::string> info_lines(const AutoReport &r)
{
  std::vector<std::string> out{"gpuauto " + choice(r) + "; predicted us: " + predictions(r) + "; model " + r.model_source};
  for (const std::string &why : r.refused) out.push_back("gpuauto: refused " + why);
  return out;
}

// "; <root>'s rows: N lane slots in W warps" for the format that declares a RowCost.
static std::string own_terms(int64_t lanes, int64_t warps)
{
  const FormatOps *f = row_cost_format();
  return f ? format("; %s's rows: %lld lane slots in %lld warps", f->root, (long long)lanes, (long long)warps) : std::string();
}

std::vector<std::string> view_lines(const AutoReport &r)
{
  int64_t rows = 0, nnz = 0, sectors = 0, footprint = 0, lanes = 0, warps = 0, long_nnz = 0;
  int32_t max_row = 0;
  for (const Strip &st : r.strips)
    rows += st.f.rows, nnz += st.f.nnz, sectors += st.x_sectors, footprint += st.x_footprint, lanes += st.row_lanes, warps += st.row_warps, long_nnz += st.long_nnz, max_row = std::max(max_row, st.f.max_row);
  std::vector<std::string> out{"gpuauto: model " + r.model_source + " (" + r.model_gpu + ")"};
  if (!r.model_message.empty()) out.push_back("gpuauto: " + r.model_message);
  out.push_back(format("gpuauto: features (%s): %zu strip(s) of %d rows; %lld rows, %lld nonzeros, longest row %d, %lld in rows longer than %d, %lld sectors of x read by its row groups (1 in %d groups counted), %lld distinct per strip (1 in %d sectors counted)%s",
                       r.features_on_device ? "from the uploaded CSR, on the device" : "host", r.strips.size(), r.strip_rows, (long long)rows, (long long)nnz, max_row, (long long)long_nnz, kLongRowEntries, (long long)sectors, r.sector_stride, (long long)footprint, footprint_stride(r.sector_stride), own_terms(lanes, warps).c_str()));
  out.push_back("gpuauto: predicted us per product: " + predictions(r));
  out.push_back("gpuauto: " + choice(r));
  for (const std::string &why : r.refused) out.push_back("gpuauto: refused " + why);
  out.push_back("gpuauto: partition: " + partition(r));
  return out;
}

} // namespace gpuformats::model
