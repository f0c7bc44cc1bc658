// EXP, LOG, SQRT, RSQRT (float32, float64); SQUARE, NEG, ABS (float32, int32,
// int64; integers wrap, so ABS(INT_MIN) == INT_MIN).
#include <cmath>

#include "lite/runtime/kernels/unary_kernel.h"

namespace twl {
namespace {

struct Exp {
  static constexpr TypeSet kTypes = kFloatTypes;
  template <typename T>
  static T Apply(T x) {
    return std::exp(x);
  }
};

struct Log {
  static constexpr TypeSet kTypes = kFloatTypes;
  template <typename T>
  static T Apply(T x) {
    return std::log(x);
  }
};

struct Sqrt {
  static constexpr TypeSet kTypes = kFloatTypes;
  template <typename T>
  static T Apply(T x) {
    return std::sqrt(x);
  }
};

struct Rsqrt {
  static constexpr TypeSet kTypes = kFloatTypes;
  template <typename T>
  static T Apply(T x) {
    return T(1) / std::sqrt(x);
  }
};

struct Square {
  static constexpr TypeSet kTypes = kNumericTypes;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral<T>::value) return WrappingMul(x, x);
    return x * x;
  }
};

struct Neg {
  static constexpr TypeSet kTypes = kNumericTypes;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral<T>::value) return WrapNeg(x);
    return -x;
  }
};

struct Abs {
  static constexpr TypeSet kTypes = kNumericTypes;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_integral<T>::value) return x < 0 ? WrapNeg(x) : x;
    return std::fabs(x);
  }
};

}  // namespace

KernelRegistration Register_EXP() {
  return UnaryKernel<Exp>::Registration(BuiltinOperator::EXP);
}
KernelRegistration Register_LOG() {
  return UnaryKernel<Log>::Registration(BuiltinOperator::LOG);
}
KernelRegistration Register_SQRT() {
  return UnaryKernel<Sqrt>::Registration(BuiltinOperator::SQRT);
}
KernelRegistration Register_RSQRT() {
  return UnaryKernel<Rsqrt>::Registration(BuiltinOperator::RSQRT);
}
KernelRegistration Register_SQUARE() {
  return UnaryKernel<Square>::Registration(BuiltinOperator::SQUARE);
}
KernelRegistration Register_NEG() {
  return UnaryKernel<Neg>::Registration(BuiltinOperator::NEG);
}
KernelRegistration Register_ABS() {
  return UnaryKernel<Abs>::Registration(BuiltinOperator::ABS);
}

}  // namespace twl
