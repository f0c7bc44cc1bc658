// Element-wise unary math: one functor per op over UnaryOp.
#include <Eigen/Core>
#include <cmath>
#include <type_traits>

#include "core/kernels/cwise_ops.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// True for complex64/complex128 (a copy of this lives in cwise_ops.cc too: one
// definition in core/framework/types.h waits for the next change of that
// header, which rebuilds every kernel).
template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

#define TW_UNARY_FUNCTOR(Name, expr) \
  struct Name : SameTypeFunctor {    \
    template <typename T>            \
    static T Apply(T x) {            \
      return expr;                   \
    }                                \
  }

TW_UNARY_FUNCTOR(NegFunctor, WrappingNeg(x));
// Floats through std::abs (clears the sign of -0.0); the most negative
// integer wraps to itself.
TW_UNARY_FUNCTOR(AbsFunctor, std::is_floating_point_v<T>
                                 ? T(std::abs(x))
                                 : (x < T(0) ? WrappingNeg(x) : x));
TW_UNARY_FUNCTOR(SquareFunctor, WrappingMul(x, x));
TW_UNARY_FUNCTOR(ExpFunctor, std::exp(x));
TW_UNARY_FUNCTOR(LogFunctor, std::log(x));
// Eigen's log1p: std's, and accurate near 0 for complex too.
TW_UNARY_FUNCTOR(Log1pFunctor, Eigen::numext::log1p(x));
TW_UNARY_FUNCTOR(SqrtFunctor, std::sqrt(x));
TW_UNARY_FUNCTOR(RsqrtFunctor, T(1) / std::sqrt(x));
TW_UNARY_FUNCTOR(ReciprocalFunctor, T(1) / x);
TW_UNARY_FUNCTOR(TanhFunctor, std::tanh(x));
TW_UNARY_FUNCTOR(SigmoidFunctor, T(1) / (T(1) + std::exp(-x)));
TW_UNARY_FUNCTOR(FloorFunctor, std::floor(x));
TW_UNARY_FUNCTOR(CeilFunctor, std::ceil(x));
// nearbyint in the default rounding mode rounds halves to even.
TW_UNARY_FUNCTOR(RoundFunctor, std::nearbyint(x));
#undef TW_UNARY_FUNCTOR

struct SignFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x) {
    if constexpr (kIsComplex<T>) {
      // x / |x| (0 at 0), as TensorFlow.
      return x == T(0) ? T(0) : x / std::abs(x);
    } else {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x)) return x;
      }
      return static_cast<T>((T(0) < x) - (x < T(0)));
    }
  }
};

struct LogicalNotFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x) {
    return !x;
  }
};

// float32 Tanh and Sigmoid over whole arrays with Eigen's vectorized functors
// (TensorFlow's: a rational approximation for tanh, and for the logistic
// one with exp below -9), ~10x std::tanh per element; other types per
// element through Functor.
template <typename Functor, void (*kFloatArray)(const float*, float*, int64_t)>
class FloatArrayUnaryOp
    : public UnaryOp<Functor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES> {
 public:
  using UnaryOp<Functor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>::UnaryOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (x.dtype() != DT_FLOAT) {
      UnaryOp<Functor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>::Compute(ctx);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    const float* in = x.data<float>();
    float* o = out->data<float>();
    ForRange(ctx, x.num_elements(),
             [&](int64_t b, int64_t e) { kFloatArray(in + b, o + b, e - b); });
  }
};

void TanhFloatArray(const float* in, float* out, int64_t n) {
  Eigen::Map<Eigen::ArrayXf>(out, n) =
      Eigen::Map<const Eigen::ArrayXf>(in, n).tanh();
}
void SigmoidFloatArray(const float* in, float* out, int64_t n) {
  Eigen::Map<Eigen::ArrayXf>(out, n) =
      Eigen::Map<const Eigen::ArrayXf>(in, n).logistic();
}

REGISTER_KERNEL(KernelDef("Neg"),
                UnaryOp<NegFunctor, TW_ALL_SIGNED_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Abs"), UnaryOp<AbsFunctor, TW_ALL_SIGNED_TYPES>);
REGISTER_KERNEL(KernelDef("Sign"),
                UnaryOp<SignFunctor, TW_ALL_SIGNED_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Square"),
                UnaryOp<SquareFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Exp"),
                UnaryOp<ExpFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Log"),
                UnaryOp<LogFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Log1p"),
                UnaryOp<Log1pFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Sqrt"),
                UnaryOp<SqrtFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Rsqrt"),
                UnaryOp<RsqrtFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(
    KernelDef("Reciprocal"),
    UnaryOp<ReciprocalFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(
    KernelDef("Inv"),
    UnaryOp<ReciprocalFunctor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Tanh"),
                FloatArrayUnaryOp<TanhFunctor, TanhFloatArray>);
REGISTER_KERNEL(KernelDef("Sigmoid"),
                FloatArrayUnaryOp<SigmoidFunctor, SigmoidFloatArray>);
REGISTER_KERNEL(KernelDef("Floor"), UnaryOp<FloorFunctor, TW_ALL_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Ceil"), UnaryOp<CeilFunctor, TW_ALL_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Round"), UnaryOp<RoundFunctor, TW_ALL_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("LogicalNot"), UnaryOp<LogicalNotFunctor, bool>);

}  // namespace
}  // namespace tensorweave
