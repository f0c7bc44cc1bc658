// REVERSE_SEQUENCE: for each batch entry b (on `batch_axis`), the first
// sequence_lens[b] steps on `time_axis` are reversed and the rest copied.
// sequence_lens int32/int64 [batch], each in [0, time] (else the invoke
// fails naming it). Any dtype (copied as bytes).
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int batch_axis, time_axis;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  const Tensor* lens = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 2, kMaxDims));
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  TWL_CHECK_ARG(
      lens->type == DataType::kInt32 || lens->type == DataType::kInt64,
      "sequence_lens must be int32 or int64, got %s", DataTypeName(lens->type));
  const auto* options = GetOptions<schema::ReverseSequenceOptions>(*node);
  const int rank = input->shape.rank;
  TWL_RETURN_IF_ERROR(
      NormalizeAxis(options->batch_axis(), rank, &d->batch_axis));
  TWL_RETURN_IF_ERROR(NormalizeAxis(options->time_axis(), rank, &d->time_axis));
  TWL_CHECK_ARG(d->batch_axis != d->time_axis,
                "batch_axis and time_axis are both %d", d->batch_axis);
  TWL_CHECK_ARG(lens->shape.rank == 1 &&
                    lens->shape.dims[0] == input->shape.dims[d->batch_axis],
                "sequence_lens must have shape [%d]",
                input->shape.dims[d->batch_axis]);
  return context->ResizeTensor(output, input->shape);
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  const Tensor* lens = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  const Shape& s = input->shape;
  const int64_t element = DataTypeSize(input->type);
  int64_t strides[kMaxDims], coord[kMaxDims] = {};
  ComputeStrides(s, strides);
  const int last = s.rank - 1;
  const int64_t row = s.dims[last] * element;
  const int64_t time = s.dims[d.time_axis];
  const uint8_t* in = input->data_as<uint8_t>();
  uint8_t* out = output->data_as<uint8_t>();
  // Element by element, the last dim as a run unless it is batch or time.
  const bool runs = d.batch_axis != last && d.time_axis != last;
  const int64_t step = runs ? s.dims[last] : 1;
  const int64_t total = input->num_elements();
  for (int64_t e = 0; e < total; e += step) {
    const int64_t b = coord[d.batch_axis], t = coord[d.time_axis];
    const int64_t len = lens->type == DataType::kInt32
                            ? lens->data_as<int32_t>()[b]
                            : lens->data_as<int64_t>()[b];
    TWL_CHECK_ARG(len >= 0 && len <= time,
                  "sequence length %lld out of range [0, %lld]",
                  static_cast<long long>(len), static_cast<long long>(time));
    const int64_t src =
        e + ((t < len ? len - 1 - t : t) - t) * strides[d.time_axis];
    memcpy(out + e * element, in + src * element, runs ? row : element);
    for (int r = runs ? last - 1 : last; r >= 0 && ++coord[r] == s.dims[r];
         --r) {
      coord[r] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_REVERSE_SEQUENCE() {
  return {BuiltinOperator::REVERSE_SEQUENCE,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare,
          Eval};
}

}  // namespace twl
