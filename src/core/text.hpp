// printf-style number formatting for the layout statistics of -mat_view ::ascii_info.
#pragma once
#include <cstdio>
#include <string>

namespace gpuformats {

inline std::string format_number(double v, const char *printf_format = "%.2f")
{
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

} // namespace gpuformats
