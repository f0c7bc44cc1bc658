// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL: two operands of
// one type (every arithmetic type; EQUAL and NOT_EQUAL also bool), numpy
// broadcasting, bool output. Three comparisons compute all six: GREATER(a, b)
// is LESS(b, a), and NOT_EQUAL negates EQUAL (so NaN != NaN, as in IEEE).
#include "lite/runtime/kernels/broadcast_binary.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

enum class Compare { kEqual, kLess, kLessEqual };

template <Compare kCompare, typename T>
inline bool Apply(T a, T b) {
  switch (kCompare) {
    case Compare::kEqual:
      return a == b;
    case Compare::kLess:
      return a < b;
    case Compare::kLessEqual:
      return a <= b;
  }
  return false;
}

struct OpData {
  BroadcastPlan plan;
  bool swap;    // compare (b, a)
  bool negate;  // write the negation
};

void* Init(const schema::Operator&) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

template <Compare kCompare, bool kSwap, bool kNegate>
Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_CHECK_ARG(a->type == b->type, "operands have types %s and %s",
                DataTypeName(a->type), DataTypeName(b->type));
  if (kCompare != Compare::kEqual || a->type != DataType::kBool) {
    TWL_RETURN_IF_ERROR(DispatchAllNumeric(a->type, "this comparison",
                                           [](auto) { return Status::Ok(); }));
  }
  TWL_RETURN_IF_ERROR(CheckType(out, "output", DataType::kBool));
  d->swap = kSwap;
  d->negate = kNegate;
  Shape shape;
  TWL_RETURN_IF_ERROR(kSwap ? d->plan.Make(b->shape, a->shape, &shape)
                            : d->plan.Make(a->shape, b->shape, &shape));
  return context->ResizeTensor(out, shape);
}

template <Compare kCompare>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* a = context->input(*node, d.swap ? 1 : 0);
  const Tensor* b = context->input(*node, d.swap ? 0 : 1);
  bool* out = context->output(*node, 0)->data_as<bool>();
  const bool negate = d.negate;
  if (kCompare == Compare::kEqual && a->type == DataType::kBool) {
    // Bytes, not bool: any non-zero byte of an untrusted input is true.
    BroadcastApply(d.plan, a->data_as<uint8_t>(), b->data_as<uint8_t>(), out,
                   context->thread_pool(), [negate](uint8_t x, uint8_t y) {
                     return ((x != 0) == (y != 0)) != negate;
                   });
    return Status::Ok();
  }
  return DispatchAllNumeric(a->type, "this comparison", [&](auto zero) {
    using T = decltype(zero);
    BroadcastApply(
        d.plan, a->data_as<T>(), b->data_as<T>(), out, context->thread_pool(),
        [negate](T x, T y) { return Apply<kCompare>(x, y) != negate; });
    return Status::Ok();
  });
}

template <Compare kCompare, bool kSwap, bool kNegate>
KernelRegistration Make(BuiltinOperator op) {
  return {op, 1, Init, Free, Prepare<kCompare, kSwap, kNegate>, Eval<kCompare>};
}

}  // namespace

KernelRegistration Register_EQUAL() {
  return Make<Compare::kEqual, false, false>(BuiltinOperator::EQUAL);
}
KernelRegistration Register_NOT_EQUAL() {
  return Make<Compare::kEqual, false, true>(BuiltinOperator::NOT_EQUAL);
}
KernelRegistration Register_LESS() {
  return Make<Compare::kLess, false, false>(BuiltinOperator::LESS);
}
KernelRegistration Register_LESS_EQUAL() {
  return Make<Compare::kLessEqual, false, false>(BuiltinOperator::LESS_EQUAL);
}
KernelRegistration Register_GREATER() {
  return Make<Compare::kLess, true, false>(BuiltinOperator::GREATER);
}
KernelRegistration Register_GREATER_EQUAL() {
  return Make<Compare::kLessEqual, true, false>(BuiltinOperator::GREATER_EQUAL);
}

}  // namespace twl
