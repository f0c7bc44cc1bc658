// Binary elementwise math with numpy broadcasting (see binary_kernel.h):
//   PRELU (float32): x < 0 ? slope x : x, slope broadcast to x's shape.
//   POW: base float32/float64/int32/int64, exponent any numeric type; the
//        output has the base's type (integer cases as the schema says).
//   FLOOR_MOD, FMOD (every numeric type): the remainder with the divisor's
//        sign (numpy's mod) or the dividend's (C's fmod); an integer
//        divisor of 0 is an error, x % -1 is 0.
// POW and the remainders do not vectorize: they run the plain strided loop
// (less code).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "lite/runtime/kernels/binary_kernel.h"

namespace twl {
namespace {

// --- PRELU -------------------------------------------------------------------
TWL_PREPARE Status PreparePrelu(KernelContext* context, Node* node) {
  auto* plan = static_cast<BroadcastPlan*>(node->user_data);
  TWL_CHECK_ARG(plan != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* x = context->input(*node, 0);
  const Tensor* slope = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(x, "x", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(slope, "slope", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(out, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(plan->Plan(x->shape, slope->shape));
  char xs[64], ss[64];
  TWL_CHECK_ARG(plan->out_shape == x->shape,
                "slope %s does not broadcast to x's shape %s",
                slope->shape.ToString(ss, sizeof(ss)),
                x->shape.ToString(xs, sizeof(xs)));
  return context->ResizeTensor(out, x->shape);
}

struct Prelu {
  float operator()(float x, float slope) const {
    // Branch-free, so that the loop vectorizes.
    return std::max(x, 0.f) + slope * std::min(x, 0.f);
  }
};

Status EvalPrelu(KernelContext* context, Node* node) {
  RunBroadcast(context, *static_cast<BroadcastPlan*>(node->user_data),
               context->input(*node, 0)->data, context->input(*node, 1)->data,
               context->output(*node, 0)->data,
               MakeBinaryRun<true, float, float, float, Prelu>());
  return Status::Ok();
}

// --- POW ---------------------------------------------------------------------
constexpr TypeSet kPowTypes = kNumericTypes | TypeBit(DataType::kFloat64);

// v rounded toward zero into integer type T, saturating; NaN gives 0.
template <typename T>
T SaturatingCast(double v) {
  if (!(v == v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) {
    return std::numeric_limits<T>::min();
  }
  // max() rounds up to 2^63 for int64: >= covers it.
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

// base ** e for integers, wrapping; a negative e gives 1 / base^-e
// truncated.
template <typename T, typename E>
T IntegerPow(T base, E e) {
  if constexpr (std::is_signed<E>::value) {
    if (e < 0) {
      if (base == 1) return 1;
      if (base == -1) return (e & 1) ? -1 : 1;
      return 0;
    }
  }
  using U = std::make_unsigned_t<T>;
  U result = 1, b = static_cast<U>(base);
  for (; e > 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<T>(result);
}

struct Pow {
  template <typename T, typename E>
  T operator()(T base, E e) const {
    if constexpr (std::is_floating_point<T>::value) {
      return std::pow(base, static_cast<T>(e));
    } else if constexpr (std::is_integral<E>::value) {
      return IntegerPow(base, e);
    } else {
      return SaturatingCast<T>(
          std::pow(static_cast<double>(base), static_cast<double>(e)));
    }
  }
};

TWL_PREPARE Status PreparePow(KernelContext* context, Node* node) {
  auto* plan = static_cast<BroadcastPlan*>(node->user_data);
  TWL_CHECK_ARG(plan != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* base = context->input(*node, 0);
  const Tensor* e = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_CHECK_ARG((kPowTypes & TypeBit(base->type)) != 0,
                "base type %s is not float32, float64, int32 or int64",
                DataTypeName(base->type));
  TWL_CHECK_ARG((kAllNumericTypes & TypeBit(e->type)) != 0,
                "exponent type %s is not numeric", DataTypeName(e->type));
  TWL_CHECK_ARG(out->type == base->type,
                "output type %s must be the base's, %s",
                DataTypeName(out->type), DataTypeName(base->type));
  TWL_RETURN_IF_ERROR(plan->Plan(base->shape, e->shape));
  return context->ResizeTensor(out, plan->out_shape);
}

Status EvalPow(KernelContext* context, Node* node) {
  const BroadcastPlan& plan = *static_cast<BroadcastPlan*>(node->user_data);
  const Tensor* base = context->input(*node, 0);
  const Tensor* e = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  return DispatchTypes<kPowTypes>(base->type, "POW", [&](auto t_zero) {
    using T = decltype(t_zero);
    return DispatchAllNumeric(e->type, "POW", [&](auto e_zero) {
      using E = decltype(e_zero);
      RunBroadcast(context, plan, base->data, e->data, out->data,
                   MakeBinaryRun<false, T, E, T, Pow>());
      return Status::Ok();
    });
  });
}

// --- FLOOR_MOD, FMOD ---------------------------------------------------------
template <bool kFloor>
struct Remainder {
  template <typename T>
  T operator()(T a, T b) const {
    T r;
    if constexpr (std::is_floating_point<T>::value) {
      r = std::fmod(a, b);
    } else if constexpr (std::is_unsigned<T>::value) {
      return static_cast<T>(a % b);
    } else {
      if (b == -1) return 0;  // INT_MIN % -1 overflows
      r = static_cast<T>(a % b);
    }
    if (kFloor && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
};

TWL_PREPARE Status PrepareRemainder(KernelContext* context, Node* node) {
  auto* plan = static_cast<BroadcastPlan*>(node->user_data);
  TWL_CHECK_ARG(plan != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckSameTypes(a, b, out));
  TWL_CHECK_ARG((kAllNumericTypes & TypeBit(a->type)) != 0,
                "unsupported type %s", DataTypeName(a->type));
  TWL_RETURN_IF_ERROR(plan->Plan(a->shape, b->shape));
  return context->ResizeTensor(out, plan->out_shape);
}

template <bool kFloor>
Status EvalRemainder(KernelContext* context, Node* node) {
  const BroadcastPlan& plan = *static_cast<BroadcastPlan*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  const char* name = kFloor ? "FLOOR_MOD" : "FMOD";
  return DispatchAllNumeric(a->type, name, [&](auto zero) {
    using T = decltype(zero);
    TWL_RETURN_IF_ERROR(CheckNoZeroDivisor<T>(b, name));
    RunBroadcast(context, plan, a->data, b->data, out->data,
                 MakeBinaryRun<false, T, T, T, Remainder<kFloor>>());
    return Status::Ok();
  });
}

KernelRegistration Make(BuiltinOperator op,
                        Status (*prepare)(KernelContext*, Node*),
                        Status (*eval)(KernelContext*, Node*)) {
  return {op,      1,   InitOpData<BroadcastPlan>, FreeOpData<BroadcastPlan>,
          prepare, eval};
}

}  // namespace

KernelRegistration Register_PRELU() {
  return Make(BuiltinOperator::PRELU, PreparePrelu, EvalPrelu);
}
KernelRegistration Register_POW() {
  return Make(BuiltinOperator::POW, PreparePow, EvalPow);
}
KernelRegistration Register_FLOOR_MOD() {
  return Make(BuiltinOperator::FLOOR_MOD, PrepareRemainder,
              EvalRemainder<true>);
}
KernelRegistration Register_FMOD() {
  return Make(BuiltinOperator::FMOD, PrepareRemainder, EvalRemainder<false>);
}

}  // namespace twl
