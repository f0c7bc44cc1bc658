// PAD: paddings is a constant int tensor [rank, 2] (before, after; both
// >= 0); an optional third input is a constant scalar fill value (default
// 0). Any dtype.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int before[kMaxDims];
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
  const Tensor* input = context->input(*node, 0);
  const Tensor* fill = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  if (fill != nullptr) {
    TWL_CHECK_ARG(fill->type == input->type && fill->num_elements() == 1 &&
                      fill->is_constant,
                  "fill value must be a constant scalar of the input's type");
  }
  int64_t pads[kMaxDims * 2];
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "paddings",
                                       pads, kMaxDims * 2, &count));
  const int rank = input->shape.rank;
  TWL_CHECK_ARG(count == rank * 2, "paddings has %d values for rank %d", count,
                rank);
  Shape shape;
  shape.rank = rank;
  for (int i = 0; i < rank; ++i) {
    int64_t b = pads[2 * i], a = pads[2 * i + 1];
    int64_t size = input->shape.dims[i] + b + a;
    TWL_CHECK_ARG(b >= 0 && a >= 0 && size <= INT32_MAX,
                  "invalid paddings (%lld, %lld) for dim %d",
                  static_cast<long long>(b), static_cast<long long>(a), i);
    d->before[i] = static_cast<int>(b);
    shape.dims[i] = static_cast<int32_t>(size);
  }
  return context->ResizeTensor(output, shape);
}

template <typename T>
void Pad(const OpData& d, const Shape& in_shape, const Shape& out_shape,
         const T* in, T value, T* out) {
  int64_t n_out = out_shape.NumElements();
  for (int64_t i = 0; i < n_out; ++i) out[i] = value;
  const int rank = in_shape.rank;
  int64_t out_strides[kMaxDims];
  ComputeStrides(out_shape, out_strides);
  if (rank == 0) {
    if (n_out == 1) out[0] = in[0];
    return;
  }
  const int64_t inner = in_shape.dims[rank - 1];
  if (inner == 0) return;
  const int64_t rows = in_shape.NumElements() / inner;
  int64_t index[kMaxDims] = {};
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = d.before[rank - 1];
    for (int k = 0; k < rank - 1; ++k) {
      offset += (index[k] + d.before[k]) * out_strides[k];
    }
    memcpy(out + offset, in + r * inner, inner * sizeof(T));
    for (int k = rank - 2; k >= 0 && ++index[k] == in_shape.dims[k]; --k) {
      index[k] = 0;
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  const Tensor* fill = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  return DispatchAll(input->type, [&](auto zero) {
    using T = decltype(zero);
    T value = fill ? fill->data_as<T>()[0] : T(0);
    Pad<T>(d, input->shape, output->shape, input->data_as<T>(), value,
           output->data_as<T>());
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_PAD() {
  return {BuiltinOperator::PAD, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,   Prepare, Eval};
}

}  // namespace twl
