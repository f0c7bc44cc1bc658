// Comparisons (bool outputs) and logical AND/OR, with numpy broadcasting.
#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace {

#define TW_COMPARE_FUNCTOR(Name, expr) \
  struct Name : BoolOutFunctor {       \
    template <typename T>              \
    static bool Apply(T x, T y) {      \
      return expr;                     \
    }                                  \
  }

// (Equal and NotEqual also compare strings, as TF's.)
TW_COMPARE_FUNCTOR(EqualFunctor, x == y);
TW_COMPARE_FUNCTOR(NotEqualFunctor, x != y);
TW_COMPARE_FUNCTOR(LessFunctor, x < y);
TW_COMPARE_FUNCTOR(LessEqualFunctor, x <= y);
TW_COMPARE_FUNCTOR(GreaterFunctor, x > y);
TW_COMPARE_FUNCTOR(GreaterEqualFunctor, x >= y);
TW_COMPARE_FUNCTOR(LogicalAndFunctor, x&& y);
TW_COMPARE_FUNCTOR(LogicalOrFunctor, x || y);
#undef TW_COMPARE_FUNCTOR

// Equal/NotEqual with TF's incompatible_shape_error: when false, shapes that
// do not broadcast give a scalar false (Equal) or true (NotEqual).
template <typename Functor, bool kNotEqual, typename... Types>
class EqualityOp : public BinaryOp<Functor, Types...> {
 public:
  explicit EqualityOp(OpKernelConstruction* ctx)
      : BinaryOp<Functor, Types...>(ctx) {
    ctx->SetStatus(
        ctx->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
  }
  void Compute(OpKernelContext* ctx) override {
    if (!incompatible_shape_error_) {
      BroadcastPlan plan;
      if (!MakeBroadcastPlan(ctx->input(0).shape(), ctx->input(1).shape(),
                             &plan)
               .ok()) {
        Tensor* out;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
        out->data<bool>()[0] = kNotEqual;
        return;
      }
    }
    BinaryOp<Functor, Types...>::Compute(ctx);
  }

 private:
  bool incompatible_shape_error_ = true;
};

REGISTER_KERNEL(KernelDef("Equal"),
                EqualityOp<EqualFunctor, false, TW_POD_TYPES, TW_COMPLEX_TYPES,
                           std::string>);
REGISTER_KERNEL(KernelDef("NotEqual"),
                EqualityOp<NotEqualFunctor, true, TW_POD_TYPES,
                           TW_COMPLEX_TYPES, std::string>);
REGISTER_KERNEL(KernelDef("Less"), BinaryOp<LessFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("LessEqual"),
                BinaryOp<LessEqualFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Greater"),
                BinaryOp<GreaterFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("GreaterEqual"),
                BinaryOp<GreaterEqualFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("LogicalAnd"), BinaryOp<LogicalAndFunctor, bool>);
REGISTER_KERNEL(KernelDef("LogicalOr"), BinaryOp<LogicalOrFunctor, bool>);

// GPU: comparisons of int32 shapes (gradients of reductions emit them) stay
// in host memory, as TensorFlow's GPU kernels of these ops; the CPU kernel
// runs there.
#define TW_GPU_HOST_INT32(Op, Functor)                 \
  REGISTER_KERNEL(KernelDef(Op)                        \
                      .Device("GPU")                   \
                      .TypeConstraint("T", {DT_INT32}) \
                      .AllHostMemory(),                \
                  BinaryOp<Functor, TW_ALL_NUMBER_TYPES>)
REGISTER_KERNEL(KernelDef("Equal")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                EqualityOp<EqualFunctor, false, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("NotEqual")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                EqualityOp<NotEqualFunctor, true, TW_ALL_NUMBER_TYPES>);
TW_GPU_HOST_INT32("Less", LessFunctor);
TW_GPU_HOST_INT32("LessEqual", LessEqualFunctor);
TW_GPU_HOST_INT32("Greater", GreaterFunctor);
TW_GPU_HOST_INT32("GreaterEqual", GreaterEqualFunctor);
#undef TW_GPU_HOST_INT32

}  // namespace
}  // namespace tensorweave
