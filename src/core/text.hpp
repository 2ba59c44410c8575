// printf-style formatting for the layout statistics of -mat_view ::ascii_info and other words.
#pragma once
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace gpuformats {

inline std::string format_number(double v, const char *printf_format = "%.2f")
{
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

// A printf-style string of any length.
inline std::string vformat(const char *fmt, va_list ap)
{
  va_list ap2;
  va_copy(ap2, ap);
  std::string s((size_t)std::max(std::vsnprintf(nullptr, 0, fmt, ap), 0) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), fmt, ap2);
  va_end(ap2);
  s.pop_back();
  return s;
}
inline std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

} // namespace gpuformats
