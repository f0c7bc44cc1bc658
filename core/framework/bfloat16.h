// bfloat16 (the top 16 bits of an IEEE float; TensorFlow's DT_BFLOAT16,
// numpy's ml_dtypes.bfloat16) as a storage type. Conversion from float
// rounds to nearest, ties to even (NaN becomes a quiet NaN); conversion to
// float is exact. Arithmetic goes through float and rounds after every
// operation, as Eigen::bfloat16 on CPU (so TensorFlow's CPU kernels and these
// agree element by element).
#ifndef TENSORWEAVE_CORE_FRAMEWORK_BFLOAT16_H_
#define TENSORWEAVE_CORE_FRAMEWORK_BFLOAT16_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <type_traits>

#include "core/framework/float16.h"

namespace tensorweave {

namespace bfloat16_internal {

// Round to nearest, ties to even; every NaN is the positive quiet NaN
// 0x7fc0 (as TensorFlow's CPU Cast).
inline uint16_t FloatToBfloat16Bits(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof(u));
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1);  // a carry into inf is right
  return static_cast<uint16_t>(u >> 16);
}

// Exact.
inline float Bfloat16BitsToFloat(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

}  // namespace bfloat16_internal

struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f)
      : bits(bfloat16_internal::FloatToBfloat16Bits(f)) {}
  // Other numbers convert through float (as Eigen::bfloat16).
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> &&
                                                    !std::is_same_v<T, float>>>
  explicit bfloat16(T value) : bfloat16(static_cast<float>(value)) {}
  explicit bfloat16(half h) : bfloat16(ToFloat(h)) {}

  explicit operator float() const {
    return bfloat16_internal::Bfloat16BitsToFloat(bits);
  }
  explicit operator half() const { return half(static_cast<float>(*this)); }

  static bfloat16 FromBits(uint16_t bits) {
    bfloat16 b;
    b.bits = bits;
    return b;
  }
};
static_assert(sizeof(bfloat16) == 2, "bfloat16 must be two bytes");

inline float ToFloat(bfloat16 b) { return static_cast<float>(b); }

}  // namespace tensorweave

namespace std {
template <>
class numeric_limits<tensorweave::bfloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static tensorweave::bfloat16 min() {
    return tensorweave::bfloat16::FromBits(0x0080);
  }
  static tensorweave::bfloat16 lowest() {
    return tensorweave::bfloat16::FromBits(0xff7f);
  }
  static tensorweave::bfloat16 max() {
    return tensorweave::bfloat16::FromBits(0x7f7f);
  }
  static tensorweave::bfloat16 epsilon() {
    return tensorweave::bfloat16::FromBits(0x3c00);
  }
  static tensorweave::bfloat16 infinity() {
    return tensorweave::bfloat16::FromBits(0x7f80);
  }
  static tensorweave::bfloat16 quiet_NaN() {
    return tensorweave::bfloat16::FromBits(0x7fc0);
  }
};
}  // namespace std

#endif  // TENSORWEAVE_CORE_FRAMEWORK_BFLOAT16_H_
