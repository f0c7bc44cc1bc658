// CUMSUM and CUMPROD along a constant axis: out[i] = x[0] op ... op x[i]
// (exclusive: up to x[i-1], the first being 0 or 1; reverse: from the end).
// Numeric types; integers wrap on overflow (two's complement).
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  TWL_CHECK_ARG(
      input->type != DataType::kBool && input->type != DataType::kFloat16,
      "%s input is not supported", DataTypeName(input->type));
  int64_t axis = 0;
  int count = 0;
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 1), "axis", &axis, 1, &count));
  TWL_CHECK_ARG(count == 1, "axis must have one value");
  TWL_CHECK_ARG(axis >= -input->shape.rank && axis < input->shape.rank,
                "axis %lld out of range for rank %d",
                static_cast<long long>(axis), input->shape.rank);
  TWL_RETURN_IF_ERROR(
      NormalizeAxis(static_cast<int>(axis), input->shape.rank, &d->axis));
  return context->ResizeTensor(output, input->shape);
}

template <bool kProduct, typename T>
void Accumulate(const T* in, T* out, const Shape& shape, int axis,
                bool exclusive, bool reverse) {
  const int64_t outer = shape.Product(0, axis);
  const int64_t n = shape.dims[axis];
  const int64_t inner = shape.Product(axis + 1, shape.rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      T acc = kProduct ? T(1) : T(0);
      for (int64_t s = 0; s < n; ++s) {
        const int64_t at = base + (reverse ? n - 1 - s : s) * inner;
        if (exclusive) {
          out[at] = acc;
          acc = kProduct ? WrappingMul(acc, in[at]) : WrappingAdd(acc, in[at]);
        } else {
          acc = kProduct ? WrappingMul(acc, in[at]) : WrappingAdd(acc, in[at]);
          out[at] = acc;
        }
      }
    }
  }
}

template <bool kProduct>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const auto* options = GetOptions<schema::CumulativeOptions>(*node);
  return DispatchAllNumeric(input->type, OpName(node->op), [&](auto zero) {
    using T = decltype(zero);
    Accumulate<kProduct>(input->data_as<T>(), output->data_as<T>(),
                         input->shape, d.axis, options->exclusive(),
                         options->reverse());
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_CUMSUM() {
  return {BuiltinOperator::CUMSUM, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,      Prepare, Eval<false>};
}

KernelRegistration Register_CUMPROD() {
  return {BuiltinOperator::CUMPROD, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,       Prepare, Eval<true>};
}

}  // namespace twl
