// ONE_HOT: output[..., d, ...] (d on `axis`, a new dim of size depth) is
// values[1] where the index equals d, else values[0]. Indices int32/int64;
// one in [-depth, 0) counts from the end, others outside [0, depth) give all
// off values (ONNX). Depth a constant int32/int64 scalar; values any dtype.
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis;
  int64_t depth;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 3, 3));
  const Tensor* indices = context->input(*node, 0);
  const Tensor* values = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(
      indices->type == DataType::kInt32 || indices->type == DataType::kInt64,
      "indices must be int32 or int64, got %s", DataTypeName(indices->type));
  TWL_CHECK_ARG(values->num_elements() == 2,
                "values must hold [off, on], got %lld elements",
                static_cast<long long>(values->num_elements()));
  TWL_CHECK_ARG(output->type == values->type, "values and output types differ");
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "depth",
                                       &d->depth, 1, &count));
  TWL_CHECK_ARG(count == 1 && d->depth >= 1 && d->depth <= INT32_MAX,
                "depth must be one value in [1, 2^31)");
  const Shape& is = indices->shape;
  TWL_CHECK_ARG(is.rank < kMaxDims, "indices rank %d too large", is.rank);
  TWL_RETURN_IF_ERROR(NormalizeAxis(
      GetOptions<schema::OneHotOptions>(*node)->axis(), is.rank + 1, &d->axis));
  Shape shape;
  shape.rank = is.rank + 1;
  for (int i = 0, j = 0; i < shape.rank; ++i) {
    shape.dims[i] =
        i == d->axis ? static_cast<int32_t>(d->depth) : is.dims[j++];
  }
  return context->ResizeTensor(output, shape);
}

template <typename T>
void OneHot(const OpData& d, const Tensor* indices, const T* values, T* out) {
  const Shape& is = indices->shape;
  const int64_t outer = is.Product(0, d.axis);
  const int64_t inner = is.Product(d.axis, is.rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t v = 0; v < d.depth; ++v) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t at = o * inner + i;
        int64_t k = indices->type == DataType::kInt32
                        ? indices->data_as<int32_t>()[at]
                        : indices->data_as<int64_t>()[at];
        if (k < 0) k += d.depth;
        *out++ = values[k == v ? 1 : 0];
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* indices = context->input(*node, 0);
  const Tensor* values = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  return DispatchAll(values->type, [&](auto zero) {
    using T = decltype(zero);
    OneHot(d, indices, values->data_as<T>(), output->data_as<T>());
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_ONE_HOT() {
  return {BuiltinOperator::ONE_HOT, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,       Prepare, Eval};
}

}  // namespace twl
