// Parameterized activations on float32 (see unary_kernel.h), with their
// parameters from ActivationParamsOptions: ELU, SELU, CELU, LEAKY_RELU,
// HARD_SIGMOID, HARD_SWISH, MISH, THRESHOLDED_RELU, SHRINK, SWISH (the
// schema gives each formula). Layout-agnostic: each element on its own.
// The optimized path of the ones with exp uses FastExp (fast_math.h), no
// library call per element; the reference path calls std::exp. The loops
// vectorize but for ELU, SELU, CELU and MISH (GCC keeps FastExp's clamp of
// the loaded x a branch under -ftrapping-math; they run scalar, threaded).
#include <algorithm>
#include <cmath>

#include "lite/runtime/kernels/fast_math.h"
#include "lite/runtime/kernels/unary_kernel.h"

namespace twl {
namespace {

// The options' alpha, beta, gamma.
struct Params {
  static constexpr TypeSet kTypes = kFloat32Only;
  float alpha = 0, beta = 0, gamma = 0;
  Params() = default;
  explicit Params(const Node& node) {
    const auto* o = GetOptions<schema::ActivationParamsOptions>(node);
    alpha = o->alpha();
    beta = o->beta();
    gamma = o->gamma();
  }
};

struct Fast {
  float operator()(float x) const { return FastExp(x); }
};
struct Exact {
  float operator()(float x) const { return std::exp(x); }
};

// An op whose formula F(x, exp) calls exp: Apply with FastExp, Reference
// with std::exp.
template <typename Op>
struct WithExp : Params {
  using Params::Params;
  float Apply(float x) const {
    return static_cast<const Op*>(this)->F(x, Fast());
  }
  float Reference(float x) const {
    return static_cast<const Op*>(this)->F(x, Exact());
  }
};

// The formulas compute both sides of a select before choosing (or use
// max/min): a select whose untaken side does floating-point arithmetic does
// not vectorize under -ftrapping-math.
struct Elu : WithExp<Elu> {
  using WithExp::WithExp;
  template <typename Exp>
  float F(float x, Exp exp) const {
    const float negative = alpha * (exp(x) - 1.f);
    return x > 0.f ? x : negative;
  }
};

struct Selu : WithExp<Selu> {
  using WithExp::WithExp;
  template <typename Exp>
  float F(float x, Exp exp) const {
    const float negative = alpha * (exp(x) - 1.f);
    return gamma * (x > 0.f ? x : negative);
  }
};

struct Celu : WithExp<Celu> {
  using WithExp::WithExp;
  template <typename Exp>
  float F(float x, Exp exp) const {
    const float negative = alpha * (exp(x / alpha) - 1.f);
    return x > 0.f ? x : negative;
  }
};

struct Swish : WithExp<Swish> {
  using WithExp::WithExp;
  template <typename Exp>
  float F(float x, Exp exp) const {
    return x / (1.f + exp(-alpha * x));
  }
};

// x tanh(log(1 + e^x)) = x n / (n + 2) = x (1 - 2 / (n + 2)) with
// n = e^x (e^x + 2): no NaN where n overflows (there tanh is 1).
struct Mish : WithExp<Mish> {
  using WithExp::WithExp;
  template <typename Exp>
  float F(float x, Exp exp) const {
    const float e = exp(x);
    return x * (1.f - 2.f / (e * (e + 2.f) + 2.f));
  }
};

struct LeakyRelu : Params {
  using Params::Params;
  float Apply(float x) const {
    return std::max(x, 0.f) + alpha * std::min(x, 0.f);
  }
};

struct HardSigmoid : Params {
  using Params::Params;
  float Apply(float x) const {
    return std::max(0.f, std::min(1.f, alpha * x + beta));
  }
};

struct HardSwish : Params {
  using Params::Params;
  float Apply(float x) const {
    return x * std::max(0.f, std::min(1.f, x * (1.f / 6.f) + 0.5f));
  }
};

struct ThresholdedRelu : Params {
  using Params::Params;
  float Apply(float x) const { return x > alpha ? x : 0.f; }
};

// x + beta below -alpha, x - beta above alpha, 0 between.
struct Shrink : Params {
  using Params::Params;
  float Apply(float x) const {
    const float below = x + beta, above = x - beta;
    return x < -alpha ? below : (x > alpha ? above : 0.f);
  }
};

// CELU divides by alpha: 0 is refused.
TWL_PREPARE Status PrepareCelu(KernelContext* context, Node* node) {
  TWL_CHECK_ARG(
      GetOptions<schema::ActivationParamsOptions>(*node)->alpha() != 0.f,
      "alpha must not be 0");
  return UnaryKernel<Celu>::Prepare(context, node);
}

}  // namespace

#define TWL_REGISTER_UNARY(OP, Op)                             \
  KernelRegistration Register_##OP() {                         \
    return UnaryKernel<Op>::Registration(BuiltinOperator::OP); \
  }
TWL_REGISTER_UNARY(ELU, Elu)
TWL_REGISTER_UNARY(SELU, Selu)
TWL_REGISTER_UNARY(SWISH, Swish)
TWL_REGISTER_UNARY(MISH, Mish)
TWL_REGISTER_UNARY(LEAKY_RELU, LeakyRelu)
TWL_REGISTER_UNARY(HARD_SIGMOID, HardSigmoid)
TWL_REGISTER_UNARY(HARD_SWISH, HardSwish)
TWL_REGISTER_UNARY(THRESHOLDED_RELU, ThresholdedRelu)
TWL_REGISTER_UNARY(SHRINK, Shrink)
#undef TWL_REGISTER_UNARY

KernelRegistration Register_CELU() {
  KernelRegistration r = UnaryKernel<Celu>::Registration(BuiltinOperator::CELU);
  r.prepare = PrepareCelu;
  return r;
}

}  // namespace twl
