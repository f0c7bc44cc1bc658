// RESHAPE (new shape from an int tensor, one -1 allowed; a computed, not
// constant, shape makes the output a dynamic tensor sized in eval), SQUEEZE
// (options squeeze_dims; empty drops every 1) and EXPAND_DIMS (constant
// axis). All three copy the bytes unchanged.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

Status CheckSameType(const Tensor* input, const Tensor* output) {
  TWL_CHECK_ARG(input->type == output->type,
                "output type %s must equal input type %s",
                DataTypeName(output->type), DataTypeName(input->type));
  return Status::Ok();
}

// The output shape of reshaping `input` to `values` (one -1 allowed).
Status ReshapeTo(const Tensor* input, const int64_t* values, int rank,
                 Shape* shape) {
  shape->rank = rank;
  int unknown = -1;
  int64_t known = 1;
  for (int i = 0; i < rank; ++i) {
    if (values[i] == -1) {
      TWL_CHECK_ARG(unknown < 0, "shape has more than one -1");
      unknown = i;
      continue;
    }
    TWL_CHECK_ARG(values[i] >= 0 && values[i] <= INT32_MAX,
                  "shape value %lld is invalid",
                  static_cast<long long>(values[i]));
    shape->dims[i] = static_cast<int32_t>(values[i]);
    TWL_CHECK_ARG(!__builtin_mul_overflow(known, values[i], &known),
                  "shape overflows");
  }
  int64_t n = input->num_elements();
  if (unknown >= 0) {
    TWL_CHECK_ARG(known > 0 && n % known == 0 && n / known <= INT32_MAX,
                  "cannot infer -1: %lld elements into %lld",
                  static_cast<long long>(n), static_cast<long long>(known));
    shape->dims[unknown] = static_cast<int32_t>(n / known);
    known *= shape->dims[unknown];
  }
  char a[96], b[96];
  TWL_CHECK_ARG(known == n, "cannot reshape %s to %s",
                input->shape.ToString(a, sizeof(a)),
                shape->ToString(b, sizeof(b)));
  return Status::Ok();
}

// A computed shape makes the output a dynamic tensor, shaped in eval.
TWL_PREPARE Status ReshapePrepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckSameType(input, output));
  int64_t values[kMaxDims];
  int rank = 0;
  bool computed = false;
  TWL_RETURN_IF_ERROR(ReadShapeValues(context->input(*node, 1), false, values,
                                      &rank, &computed));
  if (computed) {
    TWL_RETURN_IF_ERROR(context->MarkDynamic(output));
    Shape shape;
    shape.rank = rank;
    for (int i = 0; i < rank; ++i) shape.dims[i] = 0;
    return context->ResizeTensor(output, shape);
  }
  Shape shape;
  TWL_RETURN_IF_ERROR(ReshapeTo(input, values, rank, &shape));
  return context->ResizeTensor(output, shape);
}

TWL_PREPARE Status SqueezePrepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckSameType(input, output));
  const auto* dims = GetOptions<schema::SqueezeOptions>(*node)->squeeze_dims();
  const int rank = input->shape.rank;
  bool drop[kMaxDims] = {};
  if (dims == nullptr || dims->size() == 0) {
    for (int i = 0; i < rank; ++i) drop[i] = input->shape.dims[i] == 1;
  } else {
    for (int32_t axis : *dims) {
      int a = 0;
      TWL_RETURN_IF_ERROR(NormalizeAxis(axis, rank, &a));
      TWL_CHECK_ARG(input->shape.dims[a] == 1,
                    "cannot squeeze dim %d of size %d", a,
                    input->shape.dims[a]);
      drop[a] = true;
    }
  }
  Shape shape;
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) shape.dims[shape.rank++] = input->shape.dims[i];
  }
  return context->ResizeTensor(output, shape);
}

TWL_PREPARE Status ExpandDimsPrepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckSameType(input, output));
  int64_t values[1];
  int count = 0;
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 1), "axis", values, 1, &count));
  TWL_CHECK_ARG(count == 1, "axis must hold one value");
  const int rank = input->shape.rank;
  TWL_CHECK_ARG(rank < kMaxDims, "rank %d is already the maximum", rank);
  TWL_CHECK_ARG(values[0] >= -(rank + 1) && values[0] <= rank,
                "axis %lld out of range for rank %d",
                static_cast<long long>(values[0]), rank);
  int axis = static_cast<int>(values[0] < 0 ? values[0] + rank + 1 : values[0]);
  Shape shape;
  shape.rank = rank + 1;
  for (int i = 0, j = 0; i < rank + 1; ++i) {
    shape.dims[i] = i == axis ? 1 : input->shape.dims[j++];
  }
  return context->ResizeTensor(output, shape);
}

Status CopyEval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  if (output->bytes != 0 && output->data != input->data) {
    memcpy(output->data, input->data, output->bytes);
  }
  return Status::Ok();
}

// A computed shape's output is sized here, from the shape's values.
Status ReshapeEval(KernelContext* context, Node* node) {
  Tensor* output = context->output(*node, 0);
  if (output->is_dynamic) {
    int64_t values[kMaxDims];
    int rank = 0;
    bool computed = false;
    TWL_RETURN_IF_ERROR(ReadShapeValues(context->input(*node, 1), true, values,
                                        &rank, &computed));
    Shape shape;
    TWL_RETURN_IF_ERROR(
        ReshapeTo(context->input(*node, 0), values, rank, &shape));
    TWL_RETURN_IF_ERROR(context->ResizeDynamicTensor(output, shape));
  }
  return CopyEval(context, node);
}

}  // namespace

KernelRegistration Register_RESHAPE() {
  return {BuiltinOperator::RESHAPE, 1,          nullptr, nullptr,
          ReshapePrepare,           ReshapeEval};
}
KernelRegistration Register_SQUEEZE() {
  return {BuiltinOperator::SQUEEZE, 1,       nullptr, nullptr,
          SqueezePrepare,           CopyEval};
}
KernelRegistration Register_EXPAND_DIMS() {
  return {BuiltinOperator::EXPAND_DIMS,
          1,
          nullptr,
          nullptr,
          ExpandDimsPrepare,
          CopyEval};
}

}  // namespace twl
