// The formats this library carries, in the order PETSc registers them.
#include "dia/dia.hpp"
#include "evchyb/evchyb.hpp"
#include "format.hpp"
#include "pellr/pellr.hpp"
#include "pjds/pjds.hpp"
#include "suraa/suraa.hpp"

namespace gpuformats {

static const FormatOps *const kFormats[] = {
  &evchyb_ops, &pjds_ops, &pellr_ops, &suraa_ops,
  nullptr, // end mark (keeps the array non-empty)
};

const FormatOps *const *all_formats(int *count)
{
  *count = (int)(sizeof(kFormats) / sizeof(kFormats[0])) - 1;
  return kFormats;
}

const FormatOps *find_format(const std::string &root)
{
  int                     n;
  const FormatOps *const *all = all_formats(&n);
  for (int i = 0; i < n; ++i)
    if (root == all[i]->root) return all[i];
  return nullptr;
}

static const FormatOps *const kLayoutOnly[] = {&dia::ops, nullptr};

const FormatOps *const *layout_only_formats(int *count)
{
  *count = (int)(sizeof(kLayoutOnly) / sizeof(kLayoutOnly[0])) - 1;
  return kLayoutOnly;
}

const FormatOps *find_layout_format(const std::string &root)
{
  if (const FormatOps *f = find_format(root)) return f;
  int                     n;
  const FormatOps *const *all = layout_only_formats(&n);
  for (int i = 0; i < n; ++i)
    if (root == all[i]->root) return all[i];
  return nullptr;
}

int64_t checked_param(const FormatOps &ops, const int64_t *params, int i)
{
  const FormatParam &fp = ops.params[i];
  const int64_t      v  = params[i];
  if (v < fp.min_value || v > fp.max_value)
    throw Error(ErrorKind::bad_input, std::string(ops.root) + ": -mat_" + ops.root + "_" + fp.name + " must be in [" + std::to_string(fp.min_value) + ", " + std::to_string(fp.max_value) + "]; got " + std::to_string(v));
  return v;
}

std::vector<int64_t> default_params(const FormatOps &ops)
{
  std::vector<int64_t> p;
  for (int i = 0; i < ops.nparams; ++i) p.push_back(ops.params[i].default_value);
  return p;
}

} // namespace gpuformats
