// Element-wise tf.math kernels beyond the basic arithmetic: trigonometric,
// hyperbolic, error and gamma functions (Eigen's special functions, as
// TensorFlow uses), float predicates and the safe divisions. One functor per
// op over UnaryOp / BinaryOp (cwise_ops.h).
#include <cmath>
#include <limits>
#include <type_traits>
#include <unsupported/Eigen/SpecialFunctions>

#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace {

namespace ei = Eigen::internal;

#define TW_UNARY_FUNCTOR(Name, expr) \
  struct Name : SameTypeFunctor {    \
    template <typename T>            \
    static T Apply(T x) {            \
      return expr;                   \
    }                                \
  }

TW_UNARY_FUNCTOR(SinFunctor, std::sin(x));
TW_UNARY_FUNCTOR(CosFunctor, std::cos(x));
TW_UNARY_FUNCTOR(TanFunctor, std::tan(x));
TW_UNARY_FUNCTOR(AsinFunctor, std::asin(x));
TW_UNARY_FUNCTOR(AcosFunctor, std::acos(x));
TW_UNARY_FUNCTOR(AtanFunctor, std::atan(x));
TW_UNARY_FUNCTOR(SinhFunctor, std::sinh(x));
TW_UNARY_FUNCTOR(CoshFunctor, std::cosh(x));
TW_UNARY_FUNCTOR(AsinhFunctor, std::asinh(x));
TW_UNARY_FUNCTOR(AcoshFunctor, std::acosh(x));
TW_UNARY_FUNCTOR(AtanhFunctor, std::atanh(x));
TW_UNARY_FUNCTOR(ErfFunctor, std::erf(x));
TW_UNARY_FUNCTOR(ErfcFunctor, std::erfc(x));
// Outside [0, 1] (and [-1, 1] for erfinv) the inverse has no value: NaN.
TW_UNARY_FUNCTOR(NdtriFunctor, (x < T(0) || x > T(1))
                                   ? std::numeric_limits<T>::quiet_NaN()
                                   : ei::ndtri_impl<T>::run(x));
// As TensorFlow: erfinv(x) = ndtri((x + 1) / 2) / sqrt(2).
TW_UNARY_FUNCTOR(ErfinvFunctor,
                 (x < T(-1) || x > T(1))
                     ? std::numeric_limits<T>::quiet_NaN()
                     : ei::ndtri_impl<T>::run((x + T(1)) / T(2)) /
                           T(1.4142135623730951));
// Eigen's lgamma uses the reentrant lgamma_r (no global sign).
TW_UNARY_FUNCTOR(LgammaFunctor, ei::lgamma_impl<T>::run(x));
TW_UNARY_FUNCTOR(DigammaFunctor, ei::digamma_impl<T>::run(x));
// Eigen's expm1 and log1p: std's, and accurate near 0 for complex too.
TW_UNARY_FUNCTOR(Expm1Functor, Eigen::numext::expm1(x));
TW_UNARY_FUNCTOR(RintFunctor, std::nearbyint(x));
TW_UNARY_FUNCTOR(BesselI0eFunctor, ei::bessel_i0e_impl<T>::run(x));
TW_UNARY_FUNCTOR(BesselI1eFunctor, ei::bessel_i1e_impl<T>::run(x));
TW_UNARY_FUNCTOR(BesselI0Functor, ei::bessel_i0_impl<T>::run(x));
TW_UNARY_FUNCTOR(BesselI1Functor, ei::bessel_i1_impl<T>::run(x));
#undef TW_UNARY_FUNCTOR

#define TW_PREDICATE_FUNCTOR(Name, expr) \
  struct Name : BoolOutFunctor {         \
    template <typename T>                \
    static bool Apply(T x) {             \
      return expr;                       \
    }                                    \
  }

TW_PREDICATE_FUNCTOR(IsNanFunctor, std::isnan(x));
TW_PREDICATE_FUNCTOR(IsInfFunctor, std::isinf(x));
TW_PREDICATE_FUNCTOR(IsFiniteFunctor, std::isfinite(x));
#undef TW_PREDICATE_FUNCTOR

#define TW_BINARY_FUNCTOR(Name, expr) \
  struct Name : SameTypeFunctor {     \
    template <typename T>             \
    static T Apply(T x, T y) {        \
      return expr;                    \
    }                                 \
  }

TW_BINARY_FUNCTOR(Atan2Functor, std::atan2(x, y));
TW_BINARY_FUNCTOR(XdivyFunctor, x == T(0) ? T(0) : x / y);
TW_BINARY_FUNCTOR(XlogyFunctor, x == T(0) ? T(0) : x * std::log(y));
TW_BINARY_FUNCTOR(Xlog1pyFunctor,
                  x == T(0) ? T(0) : x * Eigen::numext::log1p(y));
TW_BINARY_FUNCTOR(DivNoNanFunctor, y == T(0) ? T(0) : x / y);
TW_BINARY_FUNCTOR(MulNoNanFunctor, y == T(0) ? T(0) : x * y);
TW_BINARY_FUNCTOR(IgammaFunctor, ei::igamma_impl<T>::run(x, y));
TW_BINARY_FUNCTOR(IgammacFunctor, ei::igammac_impl<T>::run(x, y));
TW_BINARY_FUNCTOR(ZetaFunctor, ei::zeta_impl<T>::run(x, y));
TW_BINARY_FUNCTOR(PolygammaFunctor, ei::polygamma_impl<T>::run(x, y));
TW_BINARY_FUNCTOR(NextAfterFunctor, std::nextafter(x, y));
#undef TW_BINARY_FUNCTOR

// Division rounded toward zero (C's for integers, trunc(x / y) for floats)
// and C's remainder; integer ops never see a zero divisor
// (kChecksDivisor), and the most negative value over -1 wraps.
struct TruncateDivFunctor : SameTypeFunctor {
  static constexpr bool kChecksDivisor = true;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (y == -1)
        return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
    }
    if constexpr (std::is_integral_v<T>) {
      return x / y;
    } else {
      return std::trunc(x / y);
    }
  }
};
struct TruncateModFunctor : SameTypeFunctor {
  static constexpr bool kChecksDivisor = true;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(x, y);
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) return 0;
      }
      return x % y;
    }
  }
};

// Betainc(a, b, x): the three of one shape, or some of them scalars.
class BetaincOp : public OpKernel {
 public:
  explicit BetaincOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor* in[3] = {&ctx->input(0), &ctx->input(1), &ctx->input(2)};
    const Tensor* shaped = nullptr;
    for (const Tensor* t : in) {
      if (t->rank() == 0) continue;
      OP_REQUIRES(
          ctx, shaped == nullptr || shaped->shape() == t->shape(),
          errors::InvalidArgument(
              "Betainc: a, b and x must have one shape or be scalars, "
              "got ",
              in[0]->shape().ToString(), ", ", in[1]->shape().ToString(),
              " and ", in[2]->shape().ToString()));
      shaped = t;
    }
    const TensorShape shape = shaped ? shaped->shape() : in[0]->shape();
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(out->dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* a = in[0]->data<T>();
          const T* b = in[1]->data<T>();
          const T* x = in[2]->data<T>();
          const int64_t sa = in[0]->rank() ? 1 : 0;
          const int64_t sb = in[1]->rank() ? 1 : 0;
          const int64_t sx = in[2]->rank() ? 1 : 0;
          T* o = out->data<T>();
          ForRange(ctx, shape.num_elements(), [&](int64_t s, int64_t e) {
            for (int64_t i = s; i < e; ++i) {
              o[i] = ei::betainc_impl<T>::run(a[i * sa], b[i * sb], x[i * sx]);
            }
          });
          return Status::OK();
        }));
  }
};

#define TW_UNARY_FLOAT_KERNEL(Name) \
  REGISTER_KERNEL(KernelDef(#Name), UnaryOp<Name##Functor, TW_ALL_FLOAT_TYPES>)

// The trigonometric and hyperbolic ones and Expm1 also of complex64 and
// complex128, as TensorFlow's CPU kernels.
#define TW_UNARY_FLOAT_COMPLEX_KERNEL(Name) \
  REGISTER_KERNEL(                          \
      KernelDef(#Name),                     \
      UnaryOp<Name##Functor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>)

TW_UNARY_FLOAT_COMPLEX_KERNEL(Sin);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Cos);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Tan);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Asin);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Acos);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Atan);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Sinh);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Cosh);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Asinh);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Acosh);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Atanh);
TW_UNARY_FLOAT_COMPLEX_KERNEL(Expm1);
#undef TW_UNARY_FLOAT_COMPLEX_KERNEL

TW_UNARY_FLOAT_KERNEL(Erf);
TW_UNARY_FLOAT_KERNEL(Erfc);
TW_UNARY_FLOAT_KERNEL(Erfinv);
TW_UNARY_FLOAT_KERNEL(Ndtri);
TW_UNARY_FLOAT_KERNEL(Lgamma);
TW_UNARY_FLOAT_KERNEL(Digamma);
TW_UNARY_FLOAT_KERNEL(Rint);
TW_UNARY_FLOAT_KERNEL(BesselI0e);
TW_UNARY_FLOAT_KERNEL(BesselI1e);
TW_UNARY_FLOAT_KERNEL(BesselI0);
TW_UNARY_FLOAT_KERNEL(BesselI1);
TW_UNARY_FLOAT_KERNEL(IsNan);
TW_UNARY_FLOAT_KERNEL(IsInf);
TW_UNARY_FLOAT_KERNEL(IsFinite);
#undef TW_UNARY_FLOAT_KERNEL

REGISTER_KERNEL(KernelDef("Atan2"), BinaryOp<Atan2Functor, TW_ALL_FLOAT_TYPES>);
// The safe divisions and products also of complex64 and complex128, as
// TensorFlow's CPU kernels.
#define TW_BINARY_FLOAT_COMPLEX_KERNEL(Name) \
  REGISTER_KERNEL(                           \
      KernelDef(#Name),                      \
      BinaryOp<Name##Functor, TW_ALL_FLOAT_TYPES, TW_COMPLEX_TYPES>)

TW_BINARY_FLOAT_COMPLEX_KERNEL(Xdivy);
TW_BINARY_FLOAT_COMPLEX_KERNEL(Xlogy);
TW_BINARY_FLOAT_COMPLEX_KERNEL(Xlog1py);
TW_BINARY_FLOAT_COMPLEX_KERNEL(DivNoNan);
TW_BINARY_FLOAT_COMPLEX_KERNEL(MulNoNan);
#undef TW_BINARY_FLOAT_COMPLEX_KERNEL
REGISTER_KERNEL(KernelDef("TruncateDiv"),
                BinaryOp<TruncateDivFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("TruncateMod"),
                BinaryOp<TruncateModFunctor, TW_REAL_TYPES>);
REGISTER_KERNEL(KernelDef("Igamma"), BinaryOp<IgammaFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Igammac"), BinaryOp<IgammacFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Zeta"), BinaryOp<ZetaFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Polygamma"),
                BinaryOp<PolygammaFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("NextAfter"),
                BinaryOp<NextAfterFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Betainc"), BetaincOp);

}  // namespace
}  // namespace tensorweave
