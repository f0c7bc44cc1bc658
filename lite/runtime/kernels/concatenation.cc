// CONCATENATION along `axis` (negative counts from the end); any dtype;
// fused activation for float32.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis;
  ActivationFunctionType act;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, kMaxNodeTensors));
  const auto* options = GetOptions<schema::ConcatenationOptions>(*node);
  d->act = options->fused_activation_function();
  TWL_RETURN_IF_ERROR(CheckActivation(d->act));
  const Tensor* first = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(first->type == output->type, "input and output types differ");
  TWL_CHECK_ARG(d->act == ActivationFunctionType::NONE ||
                    first->type == DataType::kFloat32,
                "fused activation needs float32");
  TWL_RETURN_IF_ERROR(
      NormalizeAxis(options->axis(), first->shape.rank, &d->axis));
  Shape shape = first->shape;
  int64_t total = 0;
  for (int i = 0; i < node->num_inputs; ++i) {
    const Tensor* t = context->input(*node, i);
    TWL_CHECK_ARG(t != nullptr, "input %d is absent", i);
    TWL_CHECK_ARG(t->type == first->type, "input %d has type %s, expected %s",
                  i, DataTypeName(t->type), DataTypeName(first->type));
    TWL_CHECK_ARG(t->shape.rank == shape.rank, "input %d has rank %d, not %d",
                  i, t->shape.rank, shape.rank);
    for (int k = 0; k < shape.rank; ++k) {
      TWL_CHECK_ARG(k == d->axis || t->shape.dims[k] == shape.dims[k],
                    "input %d dim %d is %d, expected %d", i, k,
                    t->shape.dims[k], shape.dims[k]);
    }
    total += t->shape.dims[d->axis];
  }
  TWL_CHECK_ARG(total <= INT32_MAX, "concatenated dim too large");
  shape.dims[d->axis] = static_cast<int32_t>(total);
  return context->ResizeTensor(output, shape);
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  Tensor* output = context->output(*node, 0);
  const size_t element = DataTypeSize(output->type);
  const int64_t outer = output->shape.Product(0, d.axis);
  const int64_t out_row =
      output->shape.Product(d.axis, output->shape.rank) * element;
  uint8_t* out = output->data_as<uint8_t>();
  int64_t column = 0;
  for (int i = 0; i < node->num_inputs; ++i) {
    const Tensor* t = context->input(*node, i);
    const int64_t row = t->shape.Product(d.axis, t->shape.rank) * element;
    if (row != 0) {
      for (int64_t o = 0; o < outer; ++o) {
        memcpy(out + o * out_row + column, t->data_as<uint8_t>() + o * row,
               row);
      }
    }
    column += row;
  }
  if (output->type == DataType::kFloat32) {
    ApplyActivationInPlace(output->data_as<float>(), output->num_elements(),
                           d.act);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_CONCATENATION() {
  return {BuiltinOperator::CONCATENATION,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare,
          Eval};
}

}  // namespace twl
