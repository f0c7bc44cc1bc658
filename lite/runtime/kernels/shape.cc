// SHAPE: the input's dims as a 1-D int32 or int64 tensor (the output's
// type), known in prepare from the input's shape alone and written in eval.
#include <cstdint>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(
      output->type == DataType::kInt32 || output->type == DataType::kInt64,
      "output must be int32 or int64, got %s", DataTypeName(output->type));
  return context->ResizeTensor(output,
                               Shape({context->input(*node, 0)->shape.rank}));
}

Status Eval(KernelContext* context, Node* node) {
  const Shape& shape = context->input(*node, 0)->shape;
  Tensor* output = context->output(*node, 0);
  for (int i = 0; i < shape.rank; ++i) {
    if (output->type == DataType::kInt32) {
      output->data_as<int32_t>()[i] = shape.dims[i];
    } else {
      output->data_as<int64_t>()[i] = shape.dims[i];
    }
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_SHAPE() {
  return {BuiltinOperator::SHAPE, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
