// BITCAST (ONNX BitCast): copies the input's bytes into an output of
// another element type of the same size and the input's shape.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(DataTypeSize(input->type) == DataTypeSize(output->type),
                "%s and %s differ in size", DataTypeName(input->type),
                DataTypeName(output->type));
  return context->ResizeTensor(output, input->shape);
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const size_t bytes =
      static_cast<size_t>(input->num_elements()) * DataTypeSize(input->type);
  if (bytes != 0) {
    memcpy(output->data_as<uint8_t>(), input->data_as<uint8_t>(), bytes);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_BITCAST() {
  return {BuiltinOperator::BITCAST, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
