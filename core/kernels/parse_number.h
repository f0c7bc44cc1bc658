// TensorFlow's safe_strto* rules for numbers in strings (StringToNumber,
// DecodeCSV): surrounding whitespace is allowed, the rest must be the number;
// integers must fit the type.
#ifndef TENSORWEAVE_CORE_KERNELS_PARSE_NUMBER_H_
#define TENSORWEAVE_CORE_KERNELS_PARSE_NUMBER_H_

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

namespace tensorweave {

template <typename T>
bool ParseNumber(const std::string& s, T* value) {
  auto is_space = [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
  };
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    const double v = std::strtod(begin, &end);
    if (end == begin) return false;
    if constexpr (std::is_same_v<T, float>) {
      *value = static_cast<float>(v);
    } else {
      *value = v;
    }
  } else {
    while (is_space(*begin)) ++begin;
    const long long v = std::strtoll(begin, &end, 10);
    if (end == begin || errno == ERANGE || v < std::numeric_limits<T>::min() ||
        v > std::numeric_limits<T>::max()) {
      return false;
    }
    *value = static_cast<T>(v);
  }
  while (*end != '\0' && is_space(*end)) ++end;
  return *end == '\0' && end == s.c_str() + s.size();
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_PARSE_NUMBER_H_
