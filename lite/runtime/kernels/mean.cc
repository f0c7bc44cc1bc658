// MEAN over constant `axes` (negative allowed, duplicates ignored), with
// keep_dims; float32 (accumulated in double), int32/int64 (accumulated in
// int64, truncating division).
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  bool reduce[kMaxDims];
  int64_t count;  // elements per output
  int scratch = -1;
};

void* Init(const schema::Operator&) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  TWL_RETURN_IF_ERROR(
      DispatchNumeric(input->type, "MEAN", [](auto) { return Status::Ok(); }));
  int64_t axes[kMaxDims * 2];
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadConstantInts(context->input(*node, 1), "axes", axes,
                                       kMaxDims * 2, &count));
  const int rank = input->shape.rank;
  for (int i = 0; i < rank; ++i) d->reduce[i] = false;
  for (int i = 0; i < count; ++i) {
    TWL_CHECK_ARG(axes[i] >= -rank && axes[i] < rank,
                  "axis %lld out of range for rank %d",
                  static_cast<long long>(axes[i]), rank);
    d->reduce[axes[i] < 0 ? axes[i] + rank : axes[i]] = true;
  }
  const bool keep = GetOptions<schema::ReducerOptions>(*node)->keep_dims();
  Shape shape;
  d->count = 1;
  for (int i = 0; i < rank; ++i) {
    if (d->reduce[i]) {
      d->count *= input->shape.dims[i];
      if (keep) shape.dims[shape.rank++] = 1;
    } else {
      shape.dims[shape.rank++] = input->shape.dims[i];
    }
  }
  TWL_RETURN_IF_ERROR(context->ResizeTensor(output, shape));
  // Accumulators (one double or int64 per output).
  return context->RequestScratch(node, output->num_elements() * 8, &d->scratch);
}

template <typename T, typename Acc>
void Mean(const OpData& d, const Shape& in_shape, const T* in, T* out, Acc* acc,
          int64_t out_count) {
  for (int64_t i = 0; i < out_count; ++i) acc[i] = 0;
  int64_t n = in_shape.NumElements();
  int64_t index[kMaxDims] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = 0;
    for (int k = 0; k < in_shape.rank; ++k) {
      if (!d.reduce[k]) o = o * in_shape.dims[k] + index[k];
    }
    acc[o] += static_cast<Acc>(in[i]);  // integers wrap (unsigned Acc)
    for (int k = in_shape.rank - 1; k >= 0 && ++index[k] == in_shape.dims[k];
         --k) {
      index[k] = 0;
    }
  }
  for (int64_t i = 0; i < out_count; ++i) {
    if (d.count == 0) {
      out[i] = T(0);
    } else if constexpr (std::is_floating_point<T>::value) {
      out[i] = static_cast<T>(acc[i] / d.count);
    } else {
      out[i] = static_cast<T>(static_cast<int64_t>(acc[i]) / d.count);
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  void* scratch = node->scratch[d.scratch];
  return DispatchNumeric(input->type, "MEAN", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same<T, float>::value) {
      Mean<T, double>(d, input->shape, input->data_as<T>(),
                      output->data_as<T>(), static_cast<double*>(scratch),
                      output->num_elements());
    } else {
      Mean<T, uint64_t>(d, input->shape, input->data_as<T>(),
                        output->data_as<T>(), static_cast<uint64_t*>(scratch),
                        output->num_elements());
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_MEAN() {
  return {BuiltinOperator::MEAN, 1, Init, Free, Prepare, Eval};
}

}  // namespace twl
