// SLICE (constant begin and size; size -1 = to the end) and STRIDED_SLICE
// (constant begin, end, strides with begin/end/ellipsis/new_axis/
// shrink_axis masks, TensorFlow semantics). Any dtype.
//
// Both reduce to a dense per-input-dim (begin, stride, size) walk; new axes
// and shrunk axes only change the output shape, not the element order.
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int64_t begin[kMaxDims], stride[kMaxDims];
  Shape dense;  // input rank, per-dim output sizes
};

Status CheckTypes(const Tensor* input, const Tensor* output) {
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  return Status::Ok();
}

TWL_PREPARE Status SlicePrepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 3, 3));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckTypes(input, output));
  int64_t begin[kMaxDims], size[kMaxDims];
  int nb = 0, ns = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "begin", begin,
                                       kMaxDims, &nb));
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 2), "size", size, kMaxDims, &ns));
  const int rank = input->shape.rank;
  TWL_CHECK_ARG(nb == rank && ns == rank,
                "begin and size need %d values, got %d and %d", rank, nb, ns);
  d->dense.rank = rank;
  for (int i = 0; i < rank; ++i) {
    int64_t dim = input->shape.dims[i];
    int64_t s = size[i] == -1 ? dim - begin[i] : size[i];
    TWL_CHECK_ARG(
        begin[i] >= 0 && s >= 0 && begin[i] <= dim && s <= dim - begin[i],
        "slice [%lld, +%lld) out of range for dim %d of size %lld",
        static_cast<long long>(begin[i]), static_cast<long long>(s), i,
        static_cast<long long>(dim));
    d->begin[i] = begin[i];
    d->stride[i] = 1;
    d->dense.dims[i] = static_cast<int32_t>(s);
  }
  return context->ResizeTensor(output, d->dense);
}

TWL_PREPARE Status StridedSlicePrepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 4, 4));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckTypes(input, output));
  const auto* o = GetOptions<schema::StridedSliceOptions>(*node);
  int64_t begin[kMaxDims], end[kMaxDims], strides[kMaxDims];
  int nb = 0, ne = 0, ns = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "begin", begin,
                                       kMaxDims, &nb));
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 2), "end", end, kMaxDims, &ne));
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 3), "strides",
                                       strides, kMaxDims, &ns));
  TWL_CHECK_ARG(nb == ne && ne == ns, "begin, end and strides differ in size");
  const int rank = input->shape.rank;
  int real = 0;  // sparse entries that consume an input dim
  for (int i = 0; i < nb; ++i) {
    if (!((o->new_axis_mask() >> i) & 1) && !((o->ellipsis_mask() >> i) & 1)) {
      ++real;
    }
  }
  Shape final_shape;
  int dim = 0;
  bool ellipsis_seen = false;
  auto add_full = [&](int count) -> Status {
    for (int c = 0; c < count; ++c, ++dim) {
      TWL_CHECK_ARG(dim < rank && final_shape.rank < kMaxDims,
                    "slice spec exceeds the input rank %d", rank);
      d->begin[dim] = 0;
      d->stride[dim] = 1;
      d->dense.dims[dim] = input->shape.dims[dim];
      final_shape.dims[final_shape.rank++] = input->shape.dims[dim];
    }
    return Status::Ok();
  };
  for (int i = 0; i < nb; ++i) {
    if ((o->ellipsis_mask() >> i) & 1) {
      TWL_CHECK_ARG(!ellipsis_seen, "more than one ellipsis");
      ellipsis_seen = true;
      // The ellipsis covers every input dim no other entry consumes.
      TWL_RETURN_IF_ERROR(add_full(rank - real));
      continue;
    }
    if ((o->new_axis_mask() >> i) & 1) {
      TWL_CHECK_ARG(final_shape.rank < kMaxDims, "output rank too large");
      final_shape.dims[final_shape.rank++] = 1;
      continue;
    }
    TWL_CHECK_ARG(dim < rank, "slice spec exceeds the input rank %d", rank);
    const int64_t size = input->shape.dims[dim];
    const int64_t s = strides[i];
    TWL_CHECK_ARG(s != 0, "stride %d is zero", i);
    if ((o->shrink_axis_mask() >> i) & 1) {
      int64_t b = begin[i] < 0 ? begin[i] + size : begin[i];
      TWL_CHECK_ARG(b >= 0 && b < size,
                    "shrink index %lld out of range for "
                    "dim %d of size %lld",
                    static_cast<long long>(begin[i]), dim,
                    static_cast<long long>(size));
      d->begin[dim] = b;
      d->stride[dim] = 1;
      d->dense.dims[dim] = 1;
      ++dim;
      continue;
    }
    TWL_CHECK_ARG(s >= -INT32_MAX && s <= INT32_MAX, "stride %lld too large",
                  static_cast<long long>(s));
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? size : size - 1;
    auto normalize = [&](int64_t v) {
      if (v < 0) v += size;
      return v < lo ? lo : (v > hi ? hi : v);
    };
    int64_t b = ((o->begin_mask() >> i) & 1) ? (s > 0 ? 0 : size - 1)
                                             : normalize(begin[i]);
    int64_t e =
        ((o->end_mask() >> i) & 1) ? (s > 0 ? size : -1) : normalize(end[i]);
    int64_t n = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
    if (n < 0) n = 0;
    d->begin[dim] = b;
    d->stride[dim] = s;
    d->dense.dims[dim] = static_cast<int32_t>(n);
    final_shape.dims[final_shape.rank++] = static_cast<int32_t>(n);
    ++dim;
  }
  TWL_RETURN_IF_ERROR(add_full(rank - dim));
  d->dense.rank = rank;
  return context->ResizeTensor(output, final_shape);
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  int64_t in_strides[kMaxDims];
  ComputeStrides(input->shape, in_strides);
  const int rank = d.dense.rank;
  const int64_t n = d.dense.NumElements();
  return DispatchAll(input->type, [&](auto zero) {
    using T = decltype(zero);
    const T* in = input->data_as<T>();
    T* out = output->data_as<T>();
    int64_t index[kMaxDims] = {};
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (int k = 0; k < rank; ++k) {
        offset += (d.begin[k] + index[k] * d.stride[k]) * in_strides[k];
      }
      out[i] = in[offset];
      for (int k = rank - 1; k >= 0 && ++index[k] == d.dense.dims[k]; --k) {
        index[k] = 0;
      }
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_SLICE() {
  return {BuiltinOperator::SLICE, 1,   InitOpData<OpData>, FreeOpData<OpData>,
          SlicePrepare,           Eval};
}
KernelRegistration Register_STRIDED_SLICE() {
  return {BuiltinOperator::STRIDED_SLICE,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          StridedSlicePrepare,
          Eval};
}

}  // namespace twl
