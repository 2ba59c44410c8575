// Prints the root name of every registered format, one per line (test/run.sh iterates over them).
#include "formats/format.hpp"

#include <cstdio>

int main()
{
  int                                 n;
  const gpuformats::FormatOps *const *all = gpuformats::all_formats(&n);
  for (int i = 0; i < n; ++i) std::printf("%s\n", all[i]->root);
  return 0;
}
