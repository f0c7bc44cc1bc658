// Bitwise and logical ops, numpy broadcasting for the binary ones.
//   BITWISE_AND, BITWISE_OR, BITWISE_XOR, BITWISE_NOT: integer types; the
//     output has the operands' type.
//   LEFT_SHIFT, RIGHT_SHIFT: x shifted by y, both of one integer type. A
//     shift amount outside [0, bit width) shifts every bit out: LEFT_SHIFT
//     gives 0, RIGHT_SHIFT 0 or (negative x) -1; RIGHT_SHIFT of a signed x is
//     arithmetic, LEFT_SHIFT wraps (ONNX BitShift).
//   LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT: bool (any non-zero byte is true).
// Rarely on hot paths, so the op is chosen per element at run time: one loop
// per element size (per type for the shifts) serves them all.
#include <type_traits>

#include "lite/runtime/kernels/broadcast_binary.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

enum class Op {
  kAnd,
  kOr,
  kXor,
  kNot,
  kLeftShift,
  kRightShift,
  kLogicalAnd,
  kLogicalOr,
  kLogicalNot
};

constexpr bool IsLogical(Op op) {
  return op == Op::kLogicalAnd || op == Op::kLogicalOr || op == Op::kLogicalNot;
}
constexpr bool IsShift(Op op) {
  return op == Op::kLeftShift || op == Op::kRightShift;
}

template <typename T>
inline T Shift(bool left, T x, T y) {
  constexpr int64_t kBits = sizeof(T) * 8;
  const int64_t s = static_cast<int64_t>(y);  // huge uint64 -> negative
  bool negative = false;
  if constexpr (std::is_signed<T>::value) negative = x < 0;
  if (s < 0 || s >= kBits) return left || !negative ? T(0) : T(-1);
  using U = WrappingUnsigned<T>;  // no promotion to int
  return left ? static_cast<T>(static_cast<U>(x) << s) : static_cast<T>(x >> s);
}

// The ops but the shifts (b is ignored by the unary ones).
template <typename T>
inline T Apply(Op op, T a, T b) {
  switch (op) {
    case Op::kAnd:
      return a & b;
    case Op::kOr:
      return a | b;
    case Op::kXor:
      return a ^ b;
    case Op::kNot:
      return ~a;
    case Op::kLogicalAnd:
      return (a != 0) && (b != 0);
    case Op::kLogicalOr:
      return (a != 0) || (b != 0);
    case Op::kLogicalNot:
      return a == 0;
    default:
      return a;
  }
}

struct OpData {
  BroadcastWalk plan;
  Op op;
};

template <Op kOp>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  d->op = kOp;
  const bool unary = kOp == Op::kNot || kOp == Op::kLogicalNot;
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, unary ? 1 : 2, unary ? 1 : 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, unary ? 0 : 1);
  Tensor* out = context->output(*node, 0);
  if (IsLogical(kOp)) {
    TWL_RETURN_IF_ERROR(CheckType(a, "input", DataType::kBool));
  } else {
    const DataType t = a->type;
    TWL_CHECK_ARG(t != DataType::kBool && t != DataType::kFloat16 &&
                      t != DataType::kFloat32 && t != DataType::kFloat64,
                  "input must be an integer type, got %s", DataTypeName(t));
  }
  TWL_RETURN_IF_ERROR(CheckSameTypes(a, b, out));
  Shape shape;
  TWL_RETURN_IF_ERROR(d->plan.Make(a->shape, b->shape, &shape));
  return context->ResizeTensor(out, shape);
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, node->num_inputs > 1 ? 1 : 0);
  Tensor* out = context->output(*node, 0);
  ThreadPool* pool = context->thread_pool();
  const Op op = d.op;
  if (IsShift(op)) {  // depends on signedness
    const bool left = op == Op::kLeftShift;
    return DispatchAllNumeric(a->type, "this op", [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_integral<T>::value) {
        BroadcastApply(d.plan, a->data_as<T>(), b->data_as<T>(),
                       out->data_as<T>(), pool,
                       [left](T x, T y) { return Shift(left, x, y); });
      }
      return Status::Ok();
    });
  }
  return DispatchAll(a->type, [&](auto zero) {  // depends on the size only
    using T = decltype(zero);
    BroadcastApply(d.plan, a->data_as<T>(), b->data_as<T>(), out->data_as<T>(),
                   pool, [op](T x, T y) { return Apply(op, x, y); });
    return Status::Ok();
  });
}

template <Op kOp>
KernelRegistration Make(BuiltinOperator op) {
  return {op, 1, InitOpData<OpData>, FreeOpData<OpData>, Prepare<kOp>, Eval};
}

}  // namespace

KernelRegistration Register_BITWISE_AND() {
  return Make<Op::kAnd>(BuiltinOperator::BITWISE_AND);
}
KernelRegistration Register_BITWISE_OR() {
  return Make<Op::kOr>(BuiltinOperator::BITWISE_OR);
}
KernelRegistration Register_BITWISE_XOR() {
  return Make<Op::kXor>(BuiltinOperator::BITWISE_XOR);
}
KernelRegistration Register_BITWISE_NOT() {
  return Make<Op::kNot>(BuiltinOperator::BITWISE_NOT);
}
KernelRegistration Register_LEFT_SHIFT() {
  return Make<Op::kLeftShift>(BuiltinOperator::LEFT_SHIFT);
}
KernelRegistration Register_RIGHT_SHIFT() {
  return Make<Op::kRightShift>(BuiltinOperator::RIGHT_SHIFT);
}
KernelRegistration Register_LOGICAL_AND() {
  return Make<Op::kLogicalAnd>(BuiltinOperator::LOGICAL_AND);
}
KernelRegistration Register_LOGICAL_OR() {
  return Make<Op::kLogicalOr>(BuiltinOperator::LOGICAL_OR);
}
KernelRegistration Register_LOGICAL_NOT() {
  return Make<Op::kLogicalNot>(BuiltinOperator::LOGICAL_NOT);
}

}  // namespace twl
