// Elementwise unary math on float32 (see unary_kernel.h): SIN, COS, TAN,
// ASIN, ACOS, ATAN, SINH, COSH, ASINH, ACOSH, ATANH, FLOOR, CEIL, ROUND
// (halves to even), SOFTPLUS, SOFTSIGN; SIGN on every numeric type; the
// predicates IS_NAN and IS_INF (bool output).
#include <cmath>
#include <type_traits>

#include "lite/runtime/kernels/unary_kernel.h"

namespace twl {
namespace {

// A float32 op computing std::<name>.
#define TWL_CMATH_OP(Name, call)                         \
  struct Name {                                          \
    static constexpr TypeSet kTypes = kFloat32Only;      \
    static float Apply(float x) { return std::call(x); } \
  };
TWL_CMATH_OP(Sin, sin)
TWL_CMATH_OP(Cos, cos)
TWL_CMATH_OP(Tan, tan)
TWL_CMATH_OP(Asin, asin)
TWL_CMATH_OP(Acos, acos)
TWL_CMATH_OP(Atan, atan)
TWL_CMATH_OP(Sinh, sinh)
TWL_CMATH_OP(Cosh, cosh)
TWL_CMATH_OP(Asinh, asinh)
TWL_CMATH_OP(Acosh, acosh)
TWL_CMATH_OP(Atanh, atanh)
TWL_CMATH_OP(Floor, floor)
TWL_CMATH_OP(Ceil, ceil)
// nearbyint rounds in the current mode: to nearest, halves to even.
TWL_CMATH_OP(Round, nearbyint)
#undef TWL_CMATH_OP

struct Softplus {
  static constexpr TypeSet kTypes = kFloat32Only;
  // log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), without overflow.
  static float Apply(float x) {
    return std::fmax(x, 0.f) + std::log1p(std::exp(-std::fabs(x)));
  }
};

struct Softsign {
  static constexpr TypeSet kTypes = kFloat32Only;
  static float Apply(float x) { return x / (1.f + std::fabs(x)); }
};

struct Sign {
  static constexpr TypeSet kTypes = kAllNumericTypes;
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_unsigned<T>::value) {
      return x > 0 ? T(1) : T(0);
    } else {
      // A zero or NaN x is its own sign.
      return x > T(0) ? T(1) : x < T(0) ? T(-1) : x;
    }
  }
};

struct IsNan {
  static constexpr TypeSet kTypes = kFloat32Only;
  static bool Apply(float x) { return x != x; }
};

struct IsInf {
  static constexpr TypeSet kTypes = kFloat32Only;
  float positive, negative;  // the infinities that count (others: NaN)
  explicit IsInf(const Node& node) {
    const auto* options = GetOptions<schema::IsInfOptions>(node);
    positive = options->detect_positive() ? INFINITY : NAN;
    negative = options->detect_negative() ? -INFINITY : NAN;
  }
  bool Apply(float x) const { return x == positive || x == negative; }
};

}  // namespace

#define TWL_REGISTER_UNARY(OP, Op)                             \
  KernelRegistration Register_##OP() {                         \
    return UnaryKernel<Op>::Registration(BuiltinOperator::OP); \
  }
TWL_REGISTER_UNARY(SIN, Sin)
TWL_REGISTER_UNARY(COS, Cos)
TWL_REGISTER_UNARY(TAN, Tan)
TWL_REGISTER_UNARY(ASIN, Asin)
TWL_REGISTER_UNARY(ACOS, Acos)
TWL_REGISTER_UNARY(ATAN, Atan)
TWL_REGISTER_UNARY(SINH, Sinh)
TWL_REGISTER_UNARY(COSH, Cosh)
TWL_REGISTER_UNARY(ASINH, Asinh)
TWL_REGISTER_UNARY(ACOSH, Acosh)
TWL_REGISTER_UNARY(ATANH, Atanh)
TWL_REGISTER_UNARY(FLOOR, Floor)
TWL_REGISTER_UNARY(CEIL, Ceil)
TWL_REGISTER_UNARY(ROUND, Round)
TWL_REGISTER_UNARY(SOFTPLUS, Softplus)
TWL_REGISTER_UNARY(SOFTSIGN, Softsign)
TWL_REGISTER_UNARY(SIGN, Sign)
TWL_REGISTER_UNARY(IS_NAN, IsNan)
TWL_REGISTER_UNARY(IS_INF, IsInf)
#undef TWL_REGISTER_UNARY

}  // namespace twl
