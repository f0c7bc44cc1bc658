// The length of Range(start, limit, delta), shared by its shape function
// and its kernel.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_RANGE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_RANGE_H_

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "core/framework/status.h"

namespace tensorweave {

template <typename T>
Status RangeSize(T start, T limit, T delta, int64_t* size) {
  if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
  if (delta > 0 && start > limit) {
    return errors::InvalidArgument(
        "Requires start <= limit when delta > 0: ", start, "/", limit);
  }
  if (delta < 0 && start < limit) {
    return errors::InvalidArgument(
        "Requires start >= limit when delta < 0: ", start, "/", limit);
  }
  if constexpr (std::is_integral_v<T>) {
    // In unsigned 64-bit arithmetic: limit - start may overflow int64 (and
    // |INT64_MIN| does not fit in it).
    const uint64_t span =
        start <= limit
            ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
            : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    const uint64_t step = delta > 0
                              ? static_cast<uint64_t>(delta)
                              : uint64_t{0} - static_cast<uint64_t>(delta);
    const uint64_t n = span / step + (span % step != 0 ? 1 : 0);
    if (n > static_cast<uint64_t>(INT64_MAX)) {
      return errors::InvalidArgument("Range of ", n, " elements is too large");
    }
    *size = static_cast<int64_t>(n);
  } else {
    const double n = std::ceil(
        std::fabs((static_cast<double>(limit) - static_cast<double>(start)) /
                  static_cast<double>(delta)));
    if (!(n < 9.0e18)) {
      return errors::InvalidArgument("Range of ", n, " elements is too large");
    }
    *size = static_cast<int64_t>(n);
  }
  return Status::OK();
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_RANGE_H_
