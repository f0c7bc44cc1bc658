// ARG_MAX over a constant axis (scalar or [1] int tensor); input float32,
// int32 or int64; output int32 or int64 (the output tensor's type). Ties
// pick the first index; NaN counts as larger than every number.
#include <cmath>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis;
};

void* Init(const schema::Operator&) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(DispatchNumeric(input->type, "ARG_MAX",
                                      [](auto) { return Status::Ok(); }));
  TWL_CHECK_ARG(
      output->type == DataType::kInt32 || output->type == DataType::kInt64,
      "output must be int32 or int64, got %s", DataTypeName(output->type));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  int64_t axis[1];
  int count = 0;
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 1), "axis", axis, 1, &count));
  TWL_CHECK_ARG(count == 1, "axis must hold one value");
  TWL_CHECK_ARG(axis[0] >= -input->shape.rank && axis[0] < input->shape.rank,
                "axis %lld out of range", static_cast<long long>(axis[0]));
  d->axis =
      static_cast<int>(axis[0] < 0 ? axis[0] + input->shape.rank : axis[0]);
  TWL_CHECK_ARG(input->shape.dims[d->axis] > 0, "axis %d is empty", d->axis);
  Shape shape;
  for (int i = 0; i < input->shape.rank; ++i) {
    if (i != d->axis) shape.dims[shape.rank++] = input->shape.dims[i];
  }
  return context->ResizeTensor(output, shape);
}

template <typename T>
inline bool Greater(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a)) return !std::isnan(b);
  }
  return a > b;
}

template <typename T, typename Out>
void ArgMax(const Shape& s, int axis, const T* in, Out* out) {
  const int64_t outer = s.Product(0, axis), n = s.dims[axis];
  const int64_t inner = s.Product(axis + 1, s.rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = in + o * n * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        if (Greater(p[k * inner], p[best * inner])) best = k;
      }
      out[o * inner + i] = static_cast<Out>(best);
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  return DispatchNumeric(input->type, "ARG_MAX", [&](auto zero) {
    using T = decltype(zero);
    if (output->type == DataType::kInt32) {
      ArgMax(input->shape, d.axis, input->data_as<T>(),
             output->data_as<int32_t>());
    } else {
      ArgMax(input->shape, d.axis, input->data_as<T>(),
             output->data_as<int64_t>());
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_ARG_MAX() {
  return {BuiltinOperator::ARG_MAX, 1, Init, Free, Prepare, Eval};
}

}  // namespace twl
