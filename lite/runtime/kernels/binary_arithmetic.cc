// ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM with numpy broadcasting, for float32,
// int32 and int64; fused activation on float ADD/SUB/MUL/DIV.
// Integer arithmetic wraps; integer division truncates and x / 0 == 0.
//
// Reference path: one index computation per element. Optimized path:
// equal shapes are flattened, and the innermost dimension runs as a
// contiguous loop (stride 0 or 1 per side) the compiler vectorizes; large
// flat work is split across threads.
#include <cmath>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin };

template <typename T>
inline T Wrap(typename std::make_unsigned<T>::type v) {
  return static_cast<T>(v);
}

template <BinaryOp kOp, typename T>
inline T Apply(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;
    switch (kOp) {
      case BinaryOp::kAdd:
        return Wrap<T>(U(a) + U(b));
      case BinaryOp::kSub:
        return Wrap<T>(U(a) - U(b));
      case BinaryOp::kMul:
        return Wrap<T>(U(a) * U(b));
      case BinaryOp::kDiv:
        return b == 0 ? T(0) : (b == -1 ? Wrap<T>(U(0) - U(a)) : T(a / b));
      case BinaryOp::kMax:
        return a > b ? a : b;
      case BinaryOp::kMin:
        return a < b ? a : b;
    }
  } else {
    switch (kOp) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
      case BinaryOp::kDiv:
        return a / b;
      case BinaryOp::kMax:
        return a > b ? a : b;
      case BinaryOp::kMin:
        return a < b ? a : b;
    }
  }
  return a;
}

struct OpData {
  ActivationFunctionType act = ActivationFunctionType::NONE;
  Shape out_shape;
  int64_t stride_a[kMaxDims], stride_b[kMaxDims];
  bool same_shape;
};

template <BinaryOp kOp>
void* Init(const schema::Operator&) {
  return new (std::nothrow) OpData();
}
void Free(void* data) { delete static_cast<OpData*>(data); }

template <BinaryOp kOp>
Status Prepare(KernelContext* context, Node* node) {
  OpData* data = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(data != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_CHECK_ARG(a->type == b->type && a->type == out->type,
                "input types %s, %s and output type %s must match",
                DataTypeName(a->type), DataTypeName(b->type),
                DataTypeName(out->type));
  TWL_RETURN_IF_ERROR(
      DispatchNumeric(a->type, "this op", [](auto) { return Status::Ok(); }));
  if (node->fb->builtin_options_type() ==
      schema::BuiltinOptions::ArithmeticOptions) {
    data->act = GetOptions<schema::ArithmeticOptions>(*node)
                    ->fused_activation_function();
    TWL_RETURN_IF_ERROR(CheckActivation(data->act));
    TWL_CHECK_ARG(data->act == ActivationFunctionType::NONE ||
                      a->type == DataType::kFloat32,
                  "fused activation needs float32");
  }
  TWL_RETURN_IF_ERROR(BroadcastShapes(a->shape, b->shape, &data->out_shape));
  BroadcastStrides(a->shape, data->out_shape, data->stride_a);
  BroadcastStrides(b->shape, data->out_shape, data->stride_b);
  data->same_shape = a->shape == b->shape;
  return context->ResizeTensor(out, data->out_shape);
}

// Reference: per-element index arithmetic.
template <BinaryOp kOp, typename T>
void Reference(const OpData& d, const T* a, const T* b, T* out) {
  int64_t n = d.out_shape.NumElements();
  int rank = d.out_shape.rank;
  int64_t index[kMaxDims] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t ia = 0, ib = 0;
    for (int k = 0; k < rank; ++k) {
      ia += index[k] * d.stride_a[k];
      ib += index[k] * d.stride_b[k];
    }
    out[i] = Apply<kOp>(a[ia], b[ib]);
    for (int k = rank - 1; k >= 0 && ++index[k] == d.out_shape.dims[k]; --k) {
      index[k] = 0;
    }
  }
}

template <BinaryOp kOp, typename T>
void Inner(const T* a, int64_t sa, const T* b, int64_t sb, T* out, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp>(a[i], b[i]);
  } else if (sa == 1) {
    const T bv = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp>(a[i], bv);
  } else if (sb == 1) {
    const T av = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = Apply<kOp>(av, b[i]);
  } else {
    const T v = Apply<kOp>(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

template <BinaryOp kOp, typename T>
void Optimized(const OpData& d, const T* a, const T* b, T* out,
               ThreadPool* pool) {
  int64_t n = d.out_shape.NumElements();
  if (d.same_shape) {
    pool->ParallelFor(n, 16384, pool->num_threads(), [&](int64_t s, int64_t e) {
      Inner<kOp>(a + s, 1, b + s, 1, out + s, e - s);
    });
    return;
  }
  int rank = d.out_shape.rank;
  int64_t inner = rank > 0 ? d.out_shape.dims[rank - 1] : 1;
  if (inner == 0 || n == 0) return;
  int64_t sa = rank > 0 ? d.stride_a[rank - 1] : 0;
  int64_t sb = rank > 0 ? d.stride_b[rank - 1] : 0;
  int64_t index[kMaxDims] = {};
  for (int64_t row = 0; row < n / inner; ++row) {
    int64_t ia = 0, ib = 0;
    for (int k = 0; k < rank - 1; ++k) {
      ia += index[k] * d.stride_a[k];
      ib += index[k] * d.stride_b[k];
    }
    Inner<kOp>(a + ia, sa, b + ib, sb, out + row * inner, inner);
    for (int k = rank - 2; k >= 0 && ++index[k] == d.out_shape.dims[k]; --k) {
      index[k] = 0;
    }
  }
}

template <BinaryOp kOp>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* a = context->input(*node, 0);
  const Tensor* b = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(DispatchNumeric(a->type, "this op", [&](auto zero) {
    using T = decltype(zero);
    if (context->use_reference()) {
      Reference<kOp>(d, a->data_as<T>(), b->data_as<T>(), out->data_as<T>());
    } else {
      Optimized<kOp>(d, a->data_as<T>(), b->data_as<T>(), out->data_as<T>(),
                     context->thread_pool());
    }
    return Status::Ok();
  }));
  if (out->type == DataType::kFloat32) {
    ApplyActivationInPlace(out->data_as<float>(), out->num_elements(), d.act);
  }
  return Status::Ok();
}

template <BinaryOp kOp>
KernelRegistration Make(BuiltinOperator op) {
  return {op, 1, Init<kOp>, Free, Prepare<kOp>, Eval<kOp>};
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
