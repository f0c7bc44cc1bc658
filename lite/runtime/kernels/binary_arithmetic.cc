// ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM with numpy broadcasting (see
// binary_kernel.h), for every numeric type (vectorized loops for float32
// and the 32- and 64-bit integers); fused activation on float32
// ADD/SUB/MUL/DIV. Integer arithmetic wraps (ADD, SUB and MUL run on the
// unsigned type of the same width: the same bits, half the code); integer
// division truncates toward zero, INT_MIN / -1 wraps, and a zero divisor is
// an error.
#include <type_traits>

#include "lite/runtime/kernels/binary_kernel.h"
#include "lite/runtime/kernels/unary_kernel.h"  // WrapNeg

namespace twl {
namespace {

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin };

template <BinaryOp kOp>
constexpr bool kWraps =
    kOp == BinaryOp::kAdd || kOp == BinaryOp::kSub || kOp == BinaryOp::kMul;

// The type kOp computes T in: unsigned for wrapping integer ops.
template <BinaryOp kOp, typename T>
using ComputeType =
    typename std::conditional_t<kWraps<kOp> && std::is_integral<T>::value,
                                std::make_unsigned<T>,
                                std::common_type<T>>::type;

template <BinaryOp kOp>
struct Apply {
  template <typename T>
  T operator()(T a, T b) const {
    // Unsigned types narrower than int promote to int: compute in unsigned
    // int at least, so that no product overflows a signed type.
    using W = std::conditional_t<std::is_unsigned<T>::value,
                                 std::common_type_t<T, unsigned>, T>;
    switch (kOp) {
      case BinaryOp::kAdd:
        return static_cast<T>(W(a) + W(b));
      case BinaryOp::kSub:
        return static_cast<T>(W(a) - W(b));
      case BinaryOp::kMul:
        return static_cast<T>(W(a) * W(b));
      case BinaryOp::kDiv:
        if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
          if (b == -1) return WrapNeg(a);  // INT_MIN / -1 wraps
        }
        return static_cast<T>(a / b);
      case BinaryOp::kMax:
        return a > b ? a : b;
      case BinaryOp::kMin:
        return a < b ? a : b;
    }
    return a;
  }
};

// Whether kOp's run on T gets the vectorizable loops: the common types
// (float32 and the 32- and 64-bit integers), but not for integer division,
// which does not vectorize. The others take the plain loop (less code).
template <BinaryOp kOp, typename T>
constexpr bool kVectorizes = std::is_same<T, float>::value ||
                             (std::is_integral<T>::value && sizeof(T) >= 4 &&
                              kOp != BinaryOp::kDiv);

struct OpData {
  ActivationFunctionType act = ActivationFunctionType::NONE;
  BroadcastPlan plan;
};

template <BinaryOp kOp>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(data != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckSameTypes(a, b, out));
  TWL_RETURN_IF_ERROR(DispatchAllNumeric(a->type, "this op",
                                         [](auto) { return Status::Ok(); }));
  if (node->fb->builtin_options_type() ==
      schema::BuiltinOptions::ArithmeticOptions) {
    data->act = GetOptions<schema::ArithmeticOptions>(*node)
                    ->fused_activation_function();
    TWL_RETURN_IF_ERROR(CheckActivation(data->act));
    TWL_CHECK_ARG(data->act == ActivationFunctionType::NONE ||
                      a->type == DataType::kFloat32,
                  "fused activation needs float32");
  }
  TWL_RETURN_IF_ERROR(data->plan.Plan(a->shape, b->shape));
  return context->ResizeTensor(out, data->plan.out_shape);
}

template <BinaryOp kOp>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(DispatchAllNumeric(a->type, "this op", [&](auto zero) {
    using T = ComputeType<kOp, decltype(zero)>;
    if constexpr (kOp == BinaryOp::kDiv) {
      TWL_RETURN_IF_ERROR(CheckNoZeroDivisor<T>(b, "DIV"));
    }
    RunBroadcast(context, d.plan, a->data, b->data, out->data,
                 MakeBinaryRun<kVectorizes<kOp, T>, T, T, T, Apply<kOp>>());
    return Status::Ok();
  }));
  if (out->type == DataType::kFloat32) {
    ApplyActivationInPlace(out->data_as<float>(), out->num_elements(), d.act);
  }
  return Status::Ok();
}

template <BinaryOp kOp>
KernelRegistration Make(BuiltinOperator op) {
  return {op,           1,        InitOpData<OpData>, FreeOpData<OpData>,
          Prepare<kOp>, Eval<kOp>};
}

}  // namespace

KernelRegistration Register_ADD() {
  return Make<BinaryOp::kAdd>(BuiltinOperator::ADD);
}
KernelRegistration Register_SUB() {
  return Make<BinaryOp::kSub>(BuiltinOperator::SUB);
}
KernelRegistration Register_MUL() {
  return Make<BinaryOp::kMul>(BuiltinOperator::MUL);
}
KernelRegistration Register_DIV() {
  return Make<BinaryOp::kDiv>(BuiltinOperator::DIV);
}
KernelRegistration Register_MAXIMUM() {
  return Make<BinaryOp::kMax>(BuiltinOperator::MAXIMUM);
}
KernelRegistration Register_MINIMUM() {
  return Make<BinaryOp::kMin>(BuiltinOperator::MINIMUM);
}

}  // namespace twl
