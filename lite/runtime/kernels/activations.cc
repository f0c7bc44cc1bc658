// RELU, RELU6, SIGMOID, TANH (float32).
#include <cmath>

#include "lite/runtime/kernels/unary_kernel.h"

namespace twl {
namespace {

struct Relu {
  static constexpr TypeSet kTypes = kFloat32Only;
  template <typename T>
  static T Apply(T x) {
    return x > T(0) ? x : T(0);
  }
};

struct Relu6 {
  static constexpr TypeSet kTypes = kFloat32Only;
  template <typename T>
  static T Apply(T x) {
    T y = x > T(0) ? x : T(0);
    return y < T(6) ? y : T(6);
  }
};

struct Sigmoid {
  static constexpr TypeSet kTypes = kFloat32Only;
  template <typename T>
  static T Apply(T x) {
    return T(1) / (T(1) + std::exp(-x));
  }
};

struct Tanh {
  static constexpr TypeSet kTypes = kFloat32Only;
  template <typename T>
  static T Apply(T x) {
    return std::tanh(x);
  }
};

}  // namespace

KernelRegistration Register_RELU() {
  return UnaryKernel<Relu>::Registration(BuiltinOperator::RELU);
}
KernelRegistration Register_RELU6() {
  return UnaryKernel<Relu6>::Registration(BuiltinOperator::RELU6);
}
KernelRegistration Register_SIGMOID() {
  return UnaryKernel<Sigmoid>::Registration(BuiltinOperator::SIGMOID);
}
KernelRegistration Register_TANH() {
  return UnaryKernel<Tanh>::Registration(BuiltinOperator::TANH);
}

}  // namespace twl
