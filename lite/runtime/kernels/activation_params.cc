// Parameterized activations on float32 (see unary_kernel.h), with their
// parameters from ActivationParamsOptions: ELU, SELU, CELU, LEAKY_RELU,
// HARD_SIGMOID, HARD_SWISH, MISH, THRESHOLDED_RELU, SHRINK, SWISH (the
// schema gives each formula). Layout-agnostic: each element on its own.
// The optimized path of the ones with exp uses FastExp (fast_math.h), so
// that their loops vectorize; the reference path calls std::exp.
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
#define TWL_EXP_OP(Name, formula)                            \
  struct Name : Params {                                     \
    using Params::Params;                                    \
    template <typename Exp>                                  \
    float F(float x, Exp exp) const {                        \
      return formula;                                        \
    }                                                        \
    float Apply(float x) const { return F(x, Fast()); }      \
    float Reference(float x) const { return F(x, Exact()); } \
  };
// Without exp: one formula for both paths.
#define TWL_PLAIN_OP(Name, formula)                \
  struct Name : Params {                           \
    using Params::Params;                          \
    float Apply(float x) const { return formula; } \
  };

TWL_EXP_OP(Elu, x >= 0.f ? x : alpha * (exp(x) - 1.f))
TWL_EXP_OP(Selu, gamma*(x > 0.f ? x : alpha * (exp(x) - 1.f)))
TWL_EXP_OP(Celu, std::max(0.f, x) + std::min(0.f, alpha*(exp(x / alpha) - 1.f)))
TWL_EXP_OP(Swish, x / (1.f + exp(-alpha * x)))
// x tanh(log(1 + e^x)) = x n / (n + 2) with n = e^x (e^x + 2); x itself
// past 20, where n overflows and the quotient is 1 in float.
TWL_EXP_OP(Mish, x > 20.f ? x
                          : x * (exp(x) * (exp(x) + 2.f)) /
                                (exp(x) * (exp(x) + 2.f) + 2.f))
TWL_PLAIN_OP(LeakyRelu, x >= 0.f ? x : alpha * x)
TWL_PLAIN_OP(HardSigmoid, std::max(0.f, std::min(1.f, alpha* x + beta)))
TWL_PLAIN_OP(HardSwish, x* std::max(0.f, std::min(1.f, x*(1.f / 6.f) + 0.5f)))
TWL_PLAIN_OP(ThresholdedRelu, x > alpha ? x : 0.f)
TWL_PLAIN_OP(Shrink, x < -alpha ? x + beta : (x > alpha ? x - beta : 0.f))
#undef TWL_EXP_OP
#undef TWL_PLAIN_OP

// CELU divides by alpha: 0 is refused.
Status PrepareCelu(KernelContext* context, Node* node) {
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
