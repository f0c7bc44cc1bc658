// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL: two operands of
// one type (every arithmetic type, and bool for EQUAL and NOT_EQUAL), numpy
// broadcasting, bool output. One kernel computes all six: each op is the set
// of outcomes (less, equal, greater, unordered: a NaN operand) it is true on,
// so NaN compares unequal and NOT_EQUAL is true on it, as in IEEE.
#include "lite/runtime/kernels/broadcast_binary.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

enum Outcome : unsigned { kLess = 1, kEqual = 2, kGreater = 4, kUnordered = 8 };

template <typename T>
inline bool Compare(T a, T b, unsigned outcomes) {
  const bool less = a<b, equal = a == b, greater = a> b;
  return ((outcomes & kLess) && less) || ((outcomes & kEqual) && equal) ||
         ((outcomes & kGreater) && greater) ||
         ((outcomes & kUnordered) && !(less || equal || greater));
}

struct OpData {
  BroadcastWalk plan;
  unsigned outcomes;
};

template <unsigned kOutcomes>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_CHECK_ARG(a->type == b->type, "operands have types %s and %s",
                DataTypeName(a->type), DataTypeName(b->type));
  constexpr bool kEquality = kOutcomes == kEqual || kOutcomes == ~kEqual;
  if (!kEquality || a->type != DataType::kBool) {
    TWL_RETURN_IF_ERROR(DispatchAllNumeric(a->type, "this comparison",
                                           [](auto) { return Status::Ok(); }));
  }
  TWL_RETURN_IF_ERROR(CheckType(out, "output", DataType::kBool));
  d->outcomes = kOutcomes;
  Shape shape;
  TWL_RETURN_IF_ERROR(d->plan.Make(a->shape, b->shape, &shape));
  return context->ResizeTensor(out, shape);
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  bool* out = context->output(*node, 0)->data_as<bool>();
  const unsigned outcomes = d.outcomes;
  if (a->type == DataType::kBool) {
    // Bytes, not bool: any non-zero byte of an untrusted input is true.
    BroadcastApply(d.plan, a->data_as<uint8_t>(), b->data_as<uint8_t>(), out,
                   context->thread_pool(), [outcomes](uint8_t x, uint8_t y) {
                     return Compare<bool>(x != 0, y != 0, outcomes);
                   });
    return Status::Ok();
  }
  return DispatchAllNumeric(a->type, "this comparison", [&](auto zero) {
    using T = decltype(zero);
    BroadcastApply(d.plan, a->data_as<T>(), b->data_as<T>(), out,
                   context->thread_pool(),
                   [outcomes](T x, T y) { return Compare(x, y, outcomes); });
    return Status::Ok();
  });
}

template <unsigned kOutcomes>
KernelRegistration Make(BuiltinOperator op) {
  return {op,  1, InitOpData<OpData>, FreeOpData<OpData>, Prepare<kOutcomes>,
          Eval};
}

}  // namespace

KernelRegistration Register_EQUAL() {
  return Make<kEqual>(BuiltinOperator::EQUAL);
}
KernelRegistration Register_NOT_EQUAL() {
  return Make<~kEqual>(BuiltinOperator::NOT_EQUAL);
}
KernelRegistration Register_LESS() {
  return Make<kLess>(BuiltinOperator::LESS);
}
KernelRegistration Register_LESS_EQUAL() {
  return Make<kLess | kEqual>(BuiltinOperator::LESS_EQUAL);
}
KernelRegistration Register_GREATER() {
  return Make<kGreater>(BuiltinOperator::GREATER);
}
KernelRegistration Register_GREATER_EQUAL() {
  return Make<kGreater | kEqual>(BuiltinOperator::GREATER_EQUAL);
}

}  // namespace twl
