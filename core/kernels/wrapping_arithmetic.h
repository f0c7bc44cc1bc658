// Arithmetic on tensor values that wraps around for integers, as
// TensorFlow's kernels do (int32 2147483647 + 1 is -2147483648). Signed
// overflow is undefined behaviour in C++ (UBSan reports it, the optimizer
// may assume it never happens), so integers compute in an unsigned type at
// least as wide as `unsigned` (uint16 * uint16 would otherwise promote to a
// signed int and overflow) and convert back; floating point is plain. The
// same machine instructions as the plain operators: loops still vectorize.
#ifndef TENSORWEAVE_CORE_KERNELS_WRAPPING_ARITHMETIC_H_
#define TENSORWEAVE_CORE_KERNELS_WRAPPING_ARITHMETIC_H_

#include <type_traits>

namespace tensorweave {

template <typename T>
constexpr bool kWrapsAround = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The unsigned type integer T computes in.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                    std::make_unsigned_t<T>>;

template <typename T>
inline T WrappingAdd(T a, T b) {
  if constexpr (kWrapsAround<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) +
                          static_cast<WrapType<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
inline T WrappingSub(T a, T b) {
  if constexpr (kWrapsAround<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) -
                          static_cast<WrapType<T>>(b));
  } else {
    return a - b;
  }
}

template <typename T>
inline T WrappingMul(T a, T b) {
  if constexpr (kWrapsAround<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) *
                          static_cast<WrapType<T>>(b));
  } else {
    return a * b;
  }
}

// -x; the most negative integer negates to itself.
template <typename T>
inline T WrappingNeg(T x) {
  if constexpr (kWrapsAround<T>) {
    return static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(x));
  } else {
    return -x;
  }
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_WRAPPING_ARITHMETIC_H_
