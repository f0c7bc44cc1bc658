// GATHER_ELEMENTS, SCATTER_ELEMENTS, GATHER_ND and SCATTER_ND (ONNX
// semantics). Indices are int32 or int64; a negative index counts from the
// end of its dim, and one still outside [0, dim) fails the invoke with an
// error naming it (nothing is read or written out of bounds). Gathers and
// scatters without reduction move any dtype; scatter reductions (add, mul,
// max, min) take float32, int32 and int64, integers wrapping on overflow.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

using schema::ScatterReduction;

struct OpData {
  int axis = 0;
  int batch_dims = 0;
  ScatterReduction reduction = ScatterReduction::NONE;
};

Status CheckIndices(const Tensor* indices) {
  TWL_CHECK_ARG(
      indices->type == DataType::kInt32 || indices->type == DataType::kInt64,
      "indices must be int32 or int64, got %s", DataTypeName(indices->type));
  return Status::Ok();
}

// indices[i] resolved against a dim of size `dim` into *out.
Status ReadIndex(const Tensor* indices, int64_t i, int64_t dim, int64_t* out) {
  const int64_t k = indices->type == DataType::kInt32
                        ? indices->data_as<int32_t>()[i]
                        : indices->data_as<int64_t>()[i];
  TWL_CHECK_ARG(k >= -dim && k < dim, "index %lld out of range [%lld, %lld)",
                static_cast<long long>(k), static_cast<long long>(-dim),
                static_cast<long long>(dim));
  *out = k < 0 ? k + dim : k;
  return Status::Ok();
}

// Checks the scatter reduction against the data type.
TWL_PREPARE Status PrepareReduction(Node* node, const Tensor* data, OpData* d) {
  d->reduction = GetOptions<schema::ScatterOptions>(*node)->scatter_reduction();
  TWL_CHECK_ARG(d->reduction >= ScatterReduction::MIN &&
                    d->reduction <= ScatterReduction::MAX,
                "unknown reduction %d", static_cast<int>(d->reduction));
  TWL_CHECK_ARG(
      d->reduction == ScatterReduction::NONE ||
          data->type == DataType::kFloat32 || data->type == DataType::kInt32 ||
          data->type == DataType::kInt64,
      "reduction %s does not support %s",
      schema::EnumNameScatterReduction(d->reduction), DataTypeName(data->type));
  return Status::Ok();
}

// *dst = *dst (reduction) src.
template <typename T>
void Reduce(ScatterReduction reduction, T src, T* dst) {
  switch (reduction) {
    case ScatterReduction::ADD:
      *dst = WrappingAdd(*dst, src);
      break;
    case ScatterReduction::MUL:
      *dst = WrappingMul(*dst, src);
      break;
    case ScatterReduction::MAXIMUM:
      *dst = src > *dst ? src : *dst;
      break;
    case ScatterReduction::MINIMUM:
      *dst = src < *dst ? src : *dst;
      break;
    default:
      *dst = src;
  }
}

// Calls f(T{}) with T the data's element type: by element size without a
// reduction, else float32, int32 or int64 (the types reductions take).
template <typename F>
Status DispatchScatter(const OpData& d, DataType type, const char* op, F&& f) {
  if (d.reduction == ScatterReduction::NONE) return DispatchAll(type, f);
  return DispatchNumeric(type, op, f);
}

// ---- GATHER_ELEMENTS / SCATTER_ELEMENTS -------------------------------------

// Inputs data, indices[, updates]; indices has data's rank and no dim larger
// than data's (but on the axis); updates has the indices' shape.
TWL_PREPARE Status PrepareElements(KernelContext* context, Node* node,
                                   bool scatter) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, scatter ? 3 : 2, scatter ? 3 : 2));
  const Tensor* data = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckIndices(indices));
  TWL_RETURN_IF_ERROR(CheckRank(data, "data", 1, kMaxDims));
  TWL_CHECK_ARG(indices->shape.rank == data->shape.rank,
                "indices rank %d differs from data rank %d",
                indices->shape.rank, data->shape.rank);
  TWL_CHECK_ARG(output->type == data->type, "data and output types differ");
  const int axis = scatter ? GetOptions<schema::ScatterOptions>(*node)->axis()
                           : GetOptions<schema::GatherOptions>(*node)->axis();
  TWL_RETURN_IF_ERROR(NormalizeAxis(axis, data->shape.rank, &d->axis));
  for (int i = 0; i < data->shape.rank; ++i) {
    TWL_CHECK_ARG(i == d->axis || indices->shape.dims[i] <= data->shape.dims[i],
                  "indices dim %d (%d) exceeds the data's (%d)", i,
                  indices->shape.dims[i], data->shape.dims[i]);
  }
  if (!scatter) return context->ResizeTensor(output, indices->shape);
  const Tensor* updates = context->input(*node, 2);
  TWL_CHECK_ARG(updates->type == data->type, "updates and data types differ");
  TWL_CHECK_ARG(updates->shape == indices->shape,
                "updates and indices shapes differ");
  TWL_RETURN_IF_ERROR(PrepareReduction(node, data, d));
  return context->ResizeTensor(output, data->shape);
}

TWL_PREPARE Status PrepareGatherElements(KernelContext* context, Node* node) {
  return PrepareElements(context, node, false);
}
TWL_PREPARE Status PrepareScatterElements(KernelContext* context, Node* node) {
  return PrepareElements(context, node, true);
}

// Calls f(i, data offset) for each element i of `indices` (in order), the
// offset being that of the data element it addresses.
template <typename F>
Status ForEachElementIndex(const Tensor* indices, const Shape& data, int axis,
                           F&& f) {
  const Shape& is = indices->shape;
  const int64_t n = indices->num_elements();
  int64_t strides[kMaxDims], coord[kMaxDims] = {};
  ComputeStrides(data, strides);
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = 0;
    TWL_RETURN_IF_ERROR(ReadIndex(indices, i, data.dims[axis], &k));
    int64_t offset = k * strides[axis];
    for (int r = 0; r < is.rank; ++r) {
      if (r != axis) offset += coord[r] * strides[r];
    }
    f(i, offset);
    for (int r = is.rank - 1; r >= 0 && ++coord[r] == is.dims[r]; --r) {
      coord[r] = 0;
    }
  }
  return Status::Ok();
}

Status EvalGatherElements(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* data = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  return DispatchAll(data->type, [&](auto zero) {
    using T = decltype(zero);
    const T* in = data->data_as<T>();
    T* out = output->data_as<T>();
    return ForEachElementIndex(indices, data->shape, d.axis,
                               [&](int64_t i, int64_t at) { out[i] = in[at]; });
  });
}

Status EvalScatterElements(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* data = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  const Tensor* updates = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  if (output->data != data->data) memcpy(output->data, data->data, data->bytes);
  return DispatchScatter(d, data->type, "SCATTER_ELEMENTS", [&](auto zero) {
    using T = decltype(zero);
    const T* src = updates->data_as<T>();
    T* out = output->data_as<T>();
    return ForEachElementIndex(
        indices, data->shape, d.axis,
        [&](int64_t i, int64_t at) { Reduce(d.reduction, src[i], out + at); });
  });
}

// ---- GATHER_ND / SCATTER_ND -------------------------------------------------

// Inputs data, indices [..., q][, updates]. GATHER_ND: `batch_dims` leading
// dims shared; output = indices.shape[:-1] + data.shape[batch_dims + q:].
// SCATTER_ND: updates = indices.shape[:-1] + data.shape[q:].
TWL_PREPARE Status PrepareNd(KernelContext* context, Node* node, bool scatter) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, scatter ? 3 : 2, scatter ? 3 : 2));
  const Tensor* data = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckIndices(indices));
  TWL_RETURN_IF_ERROR(CheckRank(data, "data", 1, kMaxDims));
  TWL_RETURN_IF_ERROR(CheckRank(indices, "indices", 1, kMaxDims));
  TWL_CHECK_ARG(output->type == data->type, "data and output types differ");
  const Shape& ds = data->shape;
  const Shape& is = indices->shape;
  const int b =
      scatter ? 0 : GetOptions<schema::GatherOptions>(*node)->batch_dims();
  TWL_CHECK_ARG(b >= 0 && b < is.rank && b < ds.rank, "invalid batch_dims %d",
                b);
  for (int i = 0; i < b; ++i) {
    TWL_CHECK_ARG(ds.dims[i] == is.dims[i], "batch dim %d differs: %d vs %d", i,
                  ds.dims[i], is.dims[i]);
  }
  d->batch_dims = b;
  const int q = is.dims[is.rank - 1];
  TWL_CHECK_ARG(q >= 1 && b + q <= ds.rank,
                "indices' last dim %d is invalid for data rank %d", q, ds.rank);
  Shape shape;  // indices.shape[:-1] + data.shape[b + q:]
  for (int i = 0; i < is.rank - 1; ++i) shape.dims[shape.rank++] = is.dims[i];
  for (int i = b + q; i < ds.rank; ++i) {
    TWL_CHECK_ARG(shape.rank < kMaxDims, "output rank too large");
    shape.dims[shape.rank++] = ds.dims[i];
  }
  if (!scatter) return context->ResizeTensor(output, shape);
  const Tensor* updates = context->input(*node, 2);
  TWL_CHECK_ARG(updates->type == data->type, "updates and data types differ");
  TWL_CHECK_ARG(updates->shape == shape,
                "updates must have shape indices.shape[:-1] + data.shape[q:]");
  TWL_RETURN_IF_ERROR(PrepareReduction(node, data, d));
  return context->ResizeTensor(output, ds);
}

TWL_PREPARE Status PrepareGatherNd(KernelContext* context, Node* node) {
  return PrepareNd(context, node, false);
}
TWL_PREPARE Status PrepareScatterNd(KernelContext* context, Node* node) {
  return PrepareNd(context, node, true);
}

// Calls f(t, element offset in data) for each index tuple t of `indices`,
// the offset being that of the slice it addresses.
template <typename F>
Status ForEachNdIndex(const Tensor* indices, const Shape& data, int batch_dims,
                      F&& f) {
  const Shape& is = indices->shape;
  const int q = is.dims[is.rank - 1];
  const int64_t tuples = is.Product(0, is.rank - 1);
  const int64_t per_batch = is.Product(batch_dims, is.rank - 1);
  const int64_t batch_size = data.Product(batch_dims, data.rank);
  int64_t strides[kMaxDims];
  ComputeStrides(data, strides);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = (per_batch == 0 ? 0 : t / per_batch) * batch_size;
    for (int j = 0; j < q; ++j) {
      const int dim = batch_dims + j;
      int64_t k = 0;
      TWL_RETURN_IF_ERROR(ReadIndex(indices, t * q + j, data.dims[dim], &k));
      offset += k * strides[dim];
    }
    f(t, offset);
  }
  return Status::Ok();
}

Status EvalGatherNd(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* data = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  const size_t element = DataTypeSize(data->type);
  const int q = indices->shape.dims[indices->shape.rank - 1];
  const int64_t slice =
      data->shape.Product(d.batch_dims + q, data->shape.rank) * element;
  const uint8_t* in = data->data_as<uint8_t>();
  uint8_t* out = output->data_as<uint8_t>();
  return ForEachNdIndex(indices, data->shape, d.batch_dims,
                        [&](int64_t t, int64_t at) {
                          if (slice > 0) {
                            memcpy(out + t * slice, in + at * element, slice);
                          }
                        });
}

Status EvalScatterNd(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* data = context->input(*node, 0);
  const Tensor* indices = context->input(*node, 1);
  const Tensor* updates = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  if (output->data != data->data) memcpy(output->data, data->data, data->bytes);
  const int q = indices->shape.dims[indices->shape.rank - 1];
  const int64_t slice = data->shape.Product(q, data->shape.rank);
  return DispatchScatter(d, data->type, "SCATTER_ND", [&](auto zero) {
    using T = decltype(zero);
    const T* src = updates->data_as<T>();
    T* out = output->data_as<T>();
    return ForEachNdIndex(indices, data->shape, 0, [&](int64_t t, int64_t at) {
      for (int64_t e = 0; e < slice; ++e) {
        Reduce(d.reduction, src[t * slice + e], out + at + e);
      }
    });
  });
}

}  // namespace

KernelRegistration Register_GATHER_ELEMENTS() {
  return {BuiltinOperator::GATHER_ELEMENTS,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          PrepareGatherElements,
          EvalGatherElements};
}

KernelRegistration Register_SCATTER_ELEMENTS() {
  return {BuiltinOperator::SCATTER_ELEMENTS,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          PrepareScatterElements,
          EvalScatterElements};
}

KernelRegistration Register_GATHER_ND() {
  return {BuiltinOperator::GATHER_ND,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          PrepareGatherNd,
          EvalGatherNd};
}

KernelRegistration Register_SCATTER_ND() {
  return {BuiltinOperator::SCATTER_ND,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          PrepareScatterNd,
          EvalScatterNd};
}

}  // namespace twl
