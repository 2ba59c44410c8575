// Prints the root name of every matrix type, one per line (test/run.sh iterates over them): the
// registered formats, then gpuauto (the model's choice among them).
#include "formats/format.hpp"
#include "model/auto.hpp"

#include <cstdio>

int main()
{
  int                                 n;
  const gpuformats::FormatOps *const *all = gpuformats::all_formats(&n);
  for (int i = 0; i < n; ++i) std::printf("%s\n", all[i]->root);
  std::printf("%s\n", gpuformats::model::gpuauto_ops.root);
  return 0;
}
