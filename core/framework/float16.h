// IEEE 754 binary16 ("half", numpy's float16, TensorFlow's DT_HALF) as a
// storage type. Arithmetic converts to float, computes there and rounds the
// result back to the nearest half (ties to even) after every operation, as
// Eigen::half does on CPUs without native half arithmetic (so TensorFlow's
// CPU kernels and these agree element by element).
#ifndef TENSORWEAVE_CORE_FRAMEWORK_FLOAT16_H_
#define TENSORWEAVE_CORE_FRAMEWORK_FLOAT16_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <type_traits>

namespace tensorweave {

namespace float16_internal {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// Round to nearest, ties to even; NaN stays NaN (quiet), overflow is inf.
inline uint16_t FloatToHalfBits(float value) {
  uint32_t u = FloatBits(value);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint16_t out;
  if (u >= 0x47800000u) {  // >= 65536, inf or NaN: all exponent bits set
    out = u > 0x7f800000u ? 0x7e00 : 0x7c00;
  } else if (u < 0x38800000u) {  // below 2^-14: a subnormal half or zero
    // Adding 0.5 aligns the half's subnormal bits at the bottom of the
    // float's mantissa, rounded by the float addition itself.
    const float aligned = BitsFloat(u) + 0.5f;
    out = static_cast<uint16_t>(FloatBits(aligned) - 0x3f000000u);
  } else {
    const uint32_t mantissa_odd = (u >> 13) & 1;
    u += (static_cast<uint32_t>(15 - 127) << 23) + 0xfff + mantissa_odd;
    out = static_cast<uint16_t>(u >> 13);  // a carry into inf is right
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

// Exact.
inline float HalfBitsToFloat(uint16_t h) {
  constexpr uint32_t kShiftedExponent = 0x7c00u << 13;
  uint32_t u = (h & 0x7fffu) << 13;
  const uint32_t exponent = u & kShiftedExponent;
  u += static_cast<uint32_t>(127 - 15) << 23;
  if (exponent == kShiftedExponent) {  // inf or NaN
    u += static_cast<uint32_t>(128 - 16) << 23;
  } else if (exponent == 0) {  // zero or subnormal: renormalize
    u += 1u << 23;
    u = FloatBits(BitsFloat(u) - BitsFloat(113u << 23));
  }
  return BitsFloat(u | (static_cast<uint32_t>(h & 0x8000u) << 16));
}

}  // namespace float16_internal

struct half {
  uint16_t bits = 0;

  half() = default;
  explicit half(float f) : bits(float16_internal::FloatToHalfBits(f)) {}
  // Other numbers convert through float (as Eigen::half: a double is
  // rounded to float first).
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> &&
                                                    !std::is_same_v<T, float>>>
  explicit half(T value) : half(static_cast<float>(value)) {}

  explicit operator float() const {
    return float16_internal::HalfBitsToFloat(bits);
  }

  static half FromBits(uint16_t bits) {
    half h;
    h.bits = bits;
    return h;
  }
};
static_assert(sizeof(half) == 2, "half must be two bytes");

inline float ToFloat(half h) { return static_cast<float>(h); }

struct bfloat16;  // bfloat16.h

// The 16-bit floating types, stored as bits and computed in float.
template <typename T>
inline constexpr bool kIsReducedFloat =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// Floating point: float, double, half or bfloat16.
template <typename T>
inline constexpr bool kIsFloatingType =
    std::is_floating_point_v<T> || kIsReducedFloat<T>;

// The arithmetic of half and bfloat16: in float, rounded to the type after
// each operation (as Eigen's half types); negation flips the sign bit.
template <typename T>
using IfReducedFloat = std::enable_if_t<kIsReducedFloat<T>, T>;
template <typename T>
using IfReducedFloatBool = std::enable_if_t<kIsReducedFloat<T>, bool>;

template <typename T>
inline IfReducedFloat<T> operator+(T a, T b) {
  return T(ToFloat(a) + ToFloat(b));
}
template <typename T>
inline IfReducedFloat<T> operator-(T a, T b) {
  return T(ToFloat(a) - ToFloat(b));
}
template <typename T>
inline IfReducedFloat<T> operator*(T a, T b) {
  return T(ToFloat(a) * ToFloat(b));
}
template <typename T>
inline IfReducedFloat<T> operator/(T a, T b) {
  return T(ToFloat(a) / ToFloat(b));
}
template <typename T>
inline IfReducedFloat<T> operator-(T a) {
  return T::FromBits(a.bits ^ 0x8000);
}
template <typename T>
inline IfReducedFloat<T>& operator+=(T& a, T b) {
  return a = a + b;
}
template <typename T>
inline IfReducedFloat<T>& operator-=(T& a, T b) {
  return a = a - b;
}
template <typename T>
inline IfReducedFloat<T>& operator*=(T& a, T b) {
  return a = a * b;
}
template <typename T>
inline IfReducedFloat<T>& operator/=(T& a, T b) {
  return a = a / b;
}
template <typename T>
inline IfReducedFloatBool<T> operator==(T a, T b) {
  return ToFloat(a) == ToFloat(b);
}
template <typename T>
inline IfReducedFloatBool<T> operator!=(T a, T b) {
  return ToFloat(a) != ToFloat(b);
}
template <typename T>
inline IfReducedFloatBool<T> operator<(T a, T b) {
  return ToFloat(a) < ToFloat(b);
}
template <typename T>
inline IfReducedFloatBool<T> operator<=(T a, T b) {
  return ToFloat(a) <= ToFloat(b);
}
template <typename T>
inline IfReducedFloatBool<T> operator>(T a, T b) {
  return ToFloat(a) > ToFloat(b);
}
template <typename T>
inline IfReducedFloatBool<T> operator>=(T a, T b) {
  return ToFloat(a) >= ToFloat(b);
}
template <typename T, typename = IfReducedFloat<T>>
inline std::ostream& operator<<(std::ostream& out, T value) {
  return out << ToFloat(value);
}

}  // namespace tensorweave

namespace std {
template <>
class numeric_limits<tensorweave::half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static tensorweave::half min() { return tensorweave::half::FromBits(0x0400); }
  static tensorweave::half lowest() {
    return tensorweave::half::FromBits(0xfbff);
  }
  static tensorweave::half max() { return tensorweave::half::FromBits(0x7bff); }
  static tensorweave::half epsilon() {
    return tensorweave::half::FromBits(0x1400);
  }
  static tensorweave::half infinity() {
    return tensorweave::half::FromBits(0x7c00);
  }
  static tensorweave::half quiet_NaN() {
    return tensorweave::half::FromBits(0x7e00);
  }
};
}  // namespace std

#endif  // TENSORWEAVE_CORE_FRAMEWORK_FLOAT16_H_
