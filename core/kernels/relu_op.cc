// Activations (Relu, Relu6, Elu, Selu, Softplus, LeakyRelu) and their
// backprop ops: one functor each, applied element-wise in parallel.
#include <cmath>
#include <type_traits>

#include "core/framework/op_kernel.h"
#include "core/kernels/conv_simd.h"
#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// A functor's Forward(x) and Backward(gradient, features or outputs); `alpha`
// is the LeakyRelu attr (unused elsewhere).
struct ReluFunctor {
  template <typename T>
  static T Forward(T x, T) {  // NaN passes through, as in TensorFlow
    return x < T(0) ? T(0) : x;
  }
  template <typename T>
  static T Backward(T g, T x, T) {
    return x > T(0) ? g : T(0);
  }
};
struct Relu6Functor {
  template <typename T>
  static T Forward(T x, T) {
    return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);  // NaN passes through
  }
  template <typename T>
  static T Backward(T g, T x, T) {
    return x > T(0) && x < T(6) ? g : T(0);
  }
};
struct EluFunctor {
  template <typename T>
  static T Forward(T x, T) {
    return x > T(0) ? x : std::expm1(x);
  }
  template <typename T>
  static T Backward(T g, T y, T) {  // from the outputs
    return y < T(0) ? g * (y + T(1)) : g;
  }
};
struct SeluFunctor {
  template <typename T>
  static T Forward(T x, T) {
    return x > T(0) ? T(kSeluScale) * x
                    : T(kSeluScale * kSeluAlpha) * std::expm1(x);
  }
  template <typename T>
  static T Backward(T g, T y, T) {  // from the outputs; scale at 0, as TF
    return y < T(0) ? g * (y + T(kSeluScale * kSeluAlpha)) : g * T(kSeluScale);
  }
};
struct SoftplusFunctor {
  template <typename T>
  static T Forward(T x, T) {
    // max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|.
    return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::abs(x)));
  }
  template <typename T>
  static T Backward(T g, T x, T) {
    return g / (T(1) + std::exp(-x));
  }
};
struct LeakyReluFunctor {
  template <typename T>
  static T Forward(T x, T alpha) {
    return x > T(0) ? x : x * alpha;
  }
  template <typename T>
  static T Backward(T g, T x, T alpha) {
    return x > T(0) ? g : g * alpha;
  }
};

// Float Relu and ReluGrad a 64-byte vector at a time (the -O2 build leaves
// the functor loops scalar; one AVX-512 register, two AVX2 ones), the tail
// one by one; the functors' formulas: x < 0 ? 0 : x (NaN and -0 pass
// through), and the gradient passes where x > 0 (false for NaN).
void ReluFloat(const float* x, float* out, int64_t n) {
  using S = conv_internal::Simd<float>;
  const S::Vec zero = S::Vec{};
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes) {
    const S::Vec v = S::Load(x + i);
    S::Store(out + i, v < zero ? zero : v);
  }
  for (; i < n; ++i) out[i] = ReluFunctor::Forward(x[i], 0.0f);
}

void ReluGradFloat(const float* g, const float* x, float* out, int64_t n) {
  using S = conv_internal::Simd<float>;
  const S::Vec zero = S::Vec{};
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes) {
    S::Store(out + i, S::Load(x + i) > zero ? S::Load(g + i) : zero);
  }
  for (; i < n; ++i) out[i] = ReluFunctor::Backward(g[i], x[i], 0.0f);
}

float ReadAlpha(OpKernelConstruction* ctx) {
  float alpha = 0;
  if (ctx->node().attrs().count("alpha")) {
    ctx->SetStatus(ctx->GetAttr("alpha", &alpha));
  }
  return alpha;
}

// Types: the dtypes it runs on (float and double unless listed).
template <typename Functor, typename... Types>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), alpha_(ReadAlpha(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* in = x.data<T>();
                     T* o = out->data<T>();
                     const T alpha = static_cast<T>(alpha_);
                     ForRange(ctx, x.num_elements(), [&](int64_t b, int64_t e) {
                       if constexpr (std::is_same_v<T, float> &&
                                     std::is_same_v<Functor, ReluFunctor>) {
                         return ReluFloat(in + b, o + b, e - b);
                       }
                       for (int64_t i = b; i < e; ++i) {
                         o[i] = Functor::Forward(in[i], alpha);
                       }
                     });
                     return Status::OK();
                   }));
  }

 private:
  float alpha_;
};

// Types: the dtypes it runs on (float and double unless listed).
template <typename Functor, typename... Types>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), alpha_(ReadAlpha(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == x.shape(),
                errors::InvalidArgument(
                    "gradients and ",
                    type_string() == "EluGrad" || type_string() == "SeluGrad"
                        ? "outputs"
                        : "features",
                    " must have the same shape, got ", g.shape().ToString(),
                    " and ", x.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, g.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* gp = g.data<T>();
                     const T* xp = x.data<T>();
                     T* o = out->data<T>();
                     const T alpha = static_cast<T>(alpha_);
                     ForRange(ctx, x.num_elements(), [&](int64_t b, int64_t e) {
                       if constexpr (std::is_same_v<T, float> &&
                                     std::is_same_v<Functor, ReluFunctor>) {
                         return ReluGradFloat(gp + b, xp + b, o + b, e - b);
                       }
                       for (int64_t i = b; i < e; ++i) {
                         o[i] = Functor::Backward(gp[i], xp[i], alpha);
                       }
                     });
                     return Status::OK();
                   }));
  }

 private:
  float alpha_;
};

// Relu and Relu6 (and their gradients) on every real dtype, as TensorFlow.
REGISTER_KERNEL(KernelDef("Relu"),
                ActivationOp<ReluFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Relu6"),
                ActivationOp<Relu6Functor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Elu"), ActivationOp<EluFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Selu"), ActivationOp<SeluFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("Softplus"),
                ActivationOp<SoftplusFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("LeakyRelu"),
                ActivationOp<LeakyReluFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("ReluGrad"),
                ActivationGradOp<ReluFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Relu6Grad"),
                ActivationGradOp<Relu6Functor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("EluGrad"),
                ActivationGradOp<EluFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("SeluGrad"),
                ActivationGradOp<SeluFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("SoftplusGrad"),
                ActivationGradOp<SoftplusFunctor, TW_FLOAT_TYPES>);
REGISTER_KERNEL(KernelDef("LeakyReluGrad"),
                ActivationGradOp<LeakyReluFunctor, TW_FLOAT_TYPES>);

}  // namespace
}  // namespace tensorweave
