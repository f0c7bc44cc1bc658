// SPLIT: output k is the slice [offset_k, offset_k + size_splits[k]) of the
// input along `axis` (ONNX Split with its split sizes resolved by the
// converter). Any dtype (copied as bytes).
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis;
  int64_t sizes[kMaxNodeTensors];
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  TWL_RETURN_IF_ERROR(
      NormalizeAxis(GetOptions<schema::SplitOptions>(*node)->axis(),
                    input->shape.rank, &d->axis));
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "size_splits",
                                       d->sizes, kMaxNodeTensors, &count));
  TWL_CHECK_ARG(count == node->num_outputs, "%d split sizes for %d outputs",
                count, node->num_outputs);
  const int32_t dim = input->shape.dims[d->axis];
  int64_t total = 0;
  for (int k = 0; k < count; ++k) {
    TWL_CHECK_ARG(d->sizes[k] >= 0 && d->sizes[k] <= dim,
                  "split size %lld out of range [0, %d]",
                  static_cast<long long>(d->sizes[k]), dim);
    total += d->sizes[k];
  }
  TWL_CHECK_ARG(total == dim, "split sizes sum to %lld, the axis dim is %d",
                static_cast<long long>(total), dim);
  for (int k = 0; k < count; ++k) {
    Tensor* output = context->output(*node, k);
    TWL_CHECK_ARG(output->type == input->type, "output %d type differs", k);
    Shape shape = input->shape;
    shape.dims[d->axis] = static_cast<int32_t>(d->sizes[k]);
    TWL_RETURN_IF_ERROR(context->ResizeTensor(output, shape));
  }
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  const Shape& shape = input->shape;
  const int64_t outer = shape.Product(0, d.axis);
  const int64_t inner =
      shape.Product(d.axis + 1, shape.rank) * DataTypeSize(input->type);
  const int64_t axis_bytes = shape.dims[d.axis] * inner;
  const uint8_t* in = input->data_as<uint8_t>();
  int64_t offset = 0;
  for (int k = 0; k < node->num_outputs; ++k) {
    uint8_t* out = context->output(*node, k)->data_as<uint8_t>();
    const int64_t bytes = d.sizes[k] * inner;
    for (int64_t o = 0; o < outer && bytes > 0; ++o) {
      memcpy(out + o * bytes, in + o * axis_bytes + offset, bytes);
    }
    offset += bytes;
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_SPLIT() {
  return {BuiltinOperator::SPLIT, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,     Prepare, Eval};
}

}  // namespace twl
