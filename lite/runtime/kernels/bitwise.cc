// Bitwise and logical ops, numpy broadcasting for the binary ones.
//   BITWISE_AND, BITWISE_OR, BITWISE_XOR, BITWISE_NOT: integer types; the
//     output has the operands' type.
//   LEFT_SHIFT, RIGHT_SHIFT: x shifted by y, both of one integer type. A
//     shift amount outside [0, bit width) shifts every bit out: LEFT_SHIFT
//     gives 0, RIGHT_SHIFT 0 or (negative x) -1; RIGHT_SHIFT of a signed x is
//     arithmetic, LEFT_SHIFT wraps (ONNX BitShift).
//   LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT: bool (any non-zero byte is true).
#include <type_traits>

#include "lite/runtime/kernels/broadcast_binary.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

enum class Op {
  kAnd,
  kOr,
  kXor,
  kLeftShift,
  kRightShift,
  kLogicalAnd,
  kLogicalOr
};

constexpr bool IsLogical(Op op) {
  return op == Op::kLogicalAnd || op == Op::kLogicalOr;
}
constexpr bool IsShift(Op op) {
  return op == Op::kLeftShift || op == Op::kRightShift;
}

bool IsInteger(DataType type) {
  return type != DataType::kBool && type != DataType::kFloat16 &&
         type != DataType::kFloat32 && type != DataType::kFloat64;
}

template <typename T>
inline T Shift(bool left, T x, T y) {
  constexpr int64_t kBits = sizeof(T) * 8;
  const int64_t s = static_cast<int64_t>(y);  // huge uint64 -> negative
  bool negative = false;
  if constexpr (std::is_signed<T>::value) negative = x < 0;
  if (s < 0 || s >= kBits) return left || !negative ? T(0) : T(-1);
  using U = typename std::make_unsigned<T>::type;
  return left ? static_cast<T>(static_cast<U>(x) << s) : static_cast<T>(x >> s);
}

template <Op kOp, typename T>
inline T Apply(T a, T b) {
  switch (kOp) {
    case Op::kAnd:
      return a & b;
    case Op::kOr:
      return a | b;
    case Op::kXor:
      return a ^ b;
    case Op::kLeftShift:
    case Op::kRightShift:
      return Shift(kOp == Op::kLeftShift, a, b);
    case Op::kLogicalAnd:
      return (a != 0) && (b != 0);
    case Op::kLogicalOr:
      return (a != 0) || (b != 0);
  }
  return a;
}

void* Init(const schema::Operator&) {
  return new (std::nothrow) BroadcastPlan();
}
void Free(void* data) { delete static_cast<BroadcastPlan*>(data); }

Status CheckOperandType(const Tensor* t, const char* what, bool logical) {
  if (logical) return CheckType(t, what, DataType::kBool);
  TWL_CHECK_ARG(IsInteger(t->type), "%s must be an integer type, got %s", what,
                DataTypeName(t->type));
  return Status::Ok();
}

template <Op kOp>
Status PrepareBinary(KernelContext* context, Node* node) {
  BroadcastPlan* plan = static_cast<BroadcastPlan*>(node->user_data);
  TWL_CHECK_ARG(plan != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckOperandType(a, "a", IsLogical(kOp)));
  TWL_CHECK_ARG(a->type == b->type && a->type == out->type,
                "input types %s, %s and output type %s must match",
                DataTypeName(a->type), DataTypeName(b->type),
                DataTypeName(out->type));
  Shape shape;
  TWL_RETURN_IF_ERROR(plan->Make(a->shape, b->shape, &shape));
  return context->ResizeTensor(out, shape);
}

template <Op kOp>
Status EvalBinary(KernelContext* context, Node* node) {
  const BroadcastPlan& plan = *static_cast<BroadcastPlan*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral<T>::value) {
      BroadcastApply(plan, a->data_as<T>(), b->data_as<T>(), out->data_as<T>(),
                     context->thread_pool(), Apply<kOp, T>);
    }
    return Status::Ok();
  };
  if constexpr (IsLogical(kOp)) {
    return run(uint8_t{});
  } else if constexpr (IsShift(kOp)) {  // depends on signedness
    return DispatchAllNumeric(a->type, "this op", run);
  } else {  // depends on the element size only
    return DispatchAll(a->type, run);
  }
}

template <bool kLogical>
Status PrepareNot(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckOperandType(input, "input", kLogical));
  TWL_CHECK_ARG(output->type == input->type,
                "output type %s must equal input type %s",
                DataTypeName(output->type), DataTypeName(input->type));
  return context->ResizeTensor(output, input->shape);
}

template <bool kLogical>
Status EvalNot(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  ThreadPool* pool = context->thread_pool();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* in = input->data_as<T>();
    T* out = output->data_as<T>();
    pool->ParallelFor(input->num_elements(), 32768, pool->num_threads(),
                      [&](int64_t begin, int64_t end) {
                        for (int64_t i = begin; i < end; ++i) {
                          out[i] = kLogical ? T(in[i] == 0) : T(~in[i]);
                        }
                      });
    return Status::Ok();
  };
  if constexpr (kLogical) {
    return run(uint8_t{});
  } else {
    return DispatchAll(input->type, run);
  }
}

template <Op kOp>
KernelRegistration MakeBinary(BuiltinOperator op) {
  return {op, 1, Init, Free, PrepareBinary<kOp>, EvalBinary<kOp>};
}
template <bool kLogical>
KernelRegistration MakeNot(BuiltinOperator op) {
  return {op, 1, nullptr, nullptr, PrepareNot<kLogical>, EvalNot<kLogical>};
}

}  // namespace

KernelRegistration Register_BITWISE_AND() {
  return MakeBinary<Op::kAnd>(BuiltinOperator::BITWISE_AND);
}
KernelRegistration Register_BITWISE_OR() {
  return MakeBinary<Op::kOr>(BuiltinOperator::BITWISE_OR);
}
KernelRegistration Register_BITWISE_XOR() {
  return MakeBinary<Op::kXor>(BuiltinOperator::BITWISE_XOR);
}
KernelRegistration Register_BITWISE_NOT() {
  return MakeNot<false>(BuiltinOperator::BITWISE_NOT);
}
KernelRegistration Register_LEFT_SHIFT() {
  return MakeBinary<Op::kLeftShift>(BuiltinOperator::LEFT_SHIFT);
}
KernelRegistration Register_RIGHT_SHIFT() {
  return MakeBinary<Op::kRightShift>(BuiltinOperator::RIGHT_SHIFT);
}
KernelRegistration Register_LOGICAL_AND() {
  return MakeBinary<Op::kLogicalAnd>(BuiltinOperator::LOGICAL_AND);
}
KernelRegistration Register_LOGICAL_OR() {
  return MakeBinary<Op::kLogicalOr>(BuiltinOperator::LOGICAL_OR);
}
KernelRegistration Register_LOGICAL_NOT() {
  return MakeNot<true>(BuiltinOperator::LOGICAL_NOT);
}

}  // namespace twl
