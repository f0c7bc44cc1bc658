// GATHER: output = params[..., indices, ...] along `axis`, with
// `batch_dims` leading dims shared by params and indices. Indices int32 or
// int64; an index outside [0, dim) fails the invoke with an error (never
// reads out of bounds). Any params dtype.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis, batch_dims;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* params = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(params->type == output->type, "params and output types differ");
  TWL_CHECK_ARG(
      indices->type == DataType::kInt32 || indices->type == DataType::kInt64,
      "indices must be int32 or int64, got %s", DataTypeName(indices->type));
  const auto* options = GetOptions<schema::GatherOptions>(*node);
  TWL_RETURN_IF_ERROR(CheckRank(params, "params", 1, kMaxDims));
  TWL_RETURN_IF_ERROR(
      NormalizeAxis(options->axis(), params->shape.rank, &d->axis));
  int b = options->batch_dims();
  if (b < 0) b += indices->shape.rank;
  TWL_CHECK_ARG(b >= 0 && b <= d->axis && b <= indices->shape.rank,
                "batch_dims %d invalid for axis %d", options->batch_dims(),
                d->axis);
  for (int i = 0; i < b; ++i) {
    TWL_CHECK_ARG(params->shape.dims[i] == indices->shape.dims[i],
                  "batch dim %d differs: %d vs %d", i, params->shape.dims[i],
                  indices->shape.dims[i]);
  }
  d->batch_dims = b;
  Shape shape;
  for (int i = 0; i < d->axis; ++i)
    shape.dims[shape.rank++] = params->shape.dims[i];
  for (int i = b; i < indices->shape.rank; ++i) {
    TWL_CHECK_ARG(shape.rank < kMaxDims, "output rank too large");
    shape.dims[shape.rank++] = indices->shape.dims[i];
  }
  for (int i = d->axis + 1; i < params->shape.rank; ++i) {
    TWL_CHECK_ARG(shape.rank < kMaxDims, "output rank too large");
    shape.dims[shape.rank++] = params->shape.dims[i];
  }
  return context->ResizeTensor(output, shape);
}

template <typename Index>
Status Gather(const OpData& d, const Tensor* params, const Tensor* indices,
              Tensor* output) {
  const Shape& ps = params->shape;
  const size_t element = DataTypeSize(params->type);
  const int64_t batches = ps.Product(0, d.batch_dims);
  const int64_t outer = ps.Product(d.batch_dims, d.axis);
  const int64_t axis_size = ps.dims[d.axis];
  const int64_t inner = ps.Product(d.axis + 1, ps.rank) * element;
  const int64_t per_batch =
      indices->shape.Product(d.batch_dims, indices->shape.rank);
  const Index* idx = indices->data_as<Index>();
  const uint8_t* in = params->data_as<uint8_t>();
  uint8_t* out = output->data_as<uint8_t>();
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t o = 0; o < outer; ++o) {
      const uint8_t* src = in + ((b * outer + o) * axis_size) * inner;
      for (int64_t i = 0; i < per_batch; ++i) {
        int64_t k = idx[b * per_batch + i];
        TWL_CHECK_ARG(
            k >= 0 && k < axis_size, "index %lld out of range [0, %lld)",
            static_cast<long long>(k), static_cast<long long>(axis_size));
        if (inner != 0) memcpy(out, src + k * inner, inner);
        out += inner;
      }
    }
  }
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* params = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  if (indices->type == DataType::kInt32) {
    return Gather<int32_t>(d, params, indices, output);
  }
  return Gather<int64_t>(d, params, indices, output);
}

}  // namespace

KernelRegistration Register_GATHER() {
  return {BuiltinOperator::GATHER, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,      Prepare, Eval};
}

}  // namespace twl
