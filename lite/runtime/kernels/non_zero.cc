// NON_ZERO (ONNX NonZero): the int64 [rank, count] indices of the nonzero
// elements of X, row-major, as numpy.nonzero (a scalar reads as [1]). The
// output is a dynamic tensor: its count is known only here, in eval.
#include <cstdint>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* x = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kInt64));
  TWL_CHECK_ARG(DataTypeSize(x->type) != 0, "X has an unknown type");
  TWL_RETURN_IF_ERROR(context->MarkDynamic(output));
  return context->ResizeTensor(
      output, Shape({x->shape.rank == 0 ? 1 : x->shape.rank, 0}));
}

// Whether element `i` of X is nonzero: floats by value (-0.0 is zero, NaN
// is not), everything else by its bytes.
bool IsNonZero(const Tensor* x, int64_t i) {
  switch (x->type) {
    case DataType::kFloat32:
      return x->data_as<float>()[i] != 0.0f;
    case DataType::kFloat64:
      return x->data_as<double>()[i] != 0.0;
    case DataType::kFloat16:
      return (x->data_as<uint16_t>()[i] & 0x7fff) != 0;
    default: {
      const size_t size = DataTypeSize(x->type);
      const uint8_t* bytes = x->data_as<uint8_t>() + i * size;
      for (size_t b = 0; b < size; ++b) {
        if (bytes[b] != 0) return true;
      }
      return false;
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* x = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const int64_t n = x->num_elements();
  int64_t nonzero = 0;
  for (int64_t i = 0; i < n; ++i) nonzero += IsNonZero(x, i) ? 1 : 0;
  TWL_CHECK_ARG(nonzero <= INT32_MAX, "%lld nonzero elements is too many",
                static_cast<long long>(nonzero));
  const int32_t count = static_cast<int32_t>(nonzero);
  const int rank = x->shape.rank == 0 ? 1 : x->shape.rank;
  TWL_RETURN_IF_ERROR(
      context->ResizeDynamicTensor(output, Shape({rank, count})));
  int64_t* out = output->data_as<int64_t>();
  int64_t index[kMaxDims] = {};  // multi-index of element i
  int32_t column = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (IsNonZero(x, i)) {
      for (int d = 0; d < rank; ++d) out[d * count + column] = index[d];
      ++column;
    }
    for (int d = x->shape.rank - 1; d >= 0; --d) {
      if (++index[d] < x->shape.dims[d]) break;
      index[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_NON_ZERO() {
  return {BuiltinOperator::NON_ZERO, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
