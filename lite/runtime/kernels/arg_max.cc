// ARG_MAX and ARG_MIN over a constant axis (scalar or [1] int tensor);
// input float32, int32 or int64; output int32 or int64 (the output tensor's
// type). Ties pick the first index, or the last with select_last_index;
// keep_dims keeps the axis as size 1. A NaN is the first pick of both (as in
// numpy).
#include <cmath>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

struct OpData {
  int axis;
  bool last;  // select_last_index
};

template <bool kMin>
TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(DispatchNumeric(input->type, kMin ? "ARG_MIN" : "ARG_MAX",
                                      [](auto) { return Status::Ok(); }));
  TWL_CHECK_ARG(
      output->type == DataType::kInt32 || output->type == DataType::kInt64,
      "output must be int32 or int64, got %s", DataTypeName(output->type));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  int64_t axis[1];
  int count = 0;
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 1), "axis", axis, 1, &count));
  TWL_CHECK_ARG(count == 1, "axis must hold one value");
  TWL_CHECK_ARG(axis[0] >= -input->shape.rank && axis[0] < input->shape.rank,
                "axis %lld out of range", static_cast<long long>(axis[0]));
  d->axis =
      static_cast<int>(axis[0] < 0 ? axis[0] + input->shape.rank : axis[0]);
  TWL_CHECK_ARG(input->shape.dims[d->axis] > 0, "axis %d is empty", d->axis);
  const auto* options = GetOptions<schema::ArgMaxOptions>(*node);
  d->last = options->select_last_index();
  Shape shape;
  for (int i = 0; i < input->shape.rank; ++i) {
    if (i != d->axis) {
      shape.dims[shape.rank++] = input->shape.dims[i];
    } else if (options->keep_dims()) {
      shape.dims[shape.rank++] = 1;
    }
  }
  return context->ResizeTensor(output, shape);
}

// Whether a is a better pick than b: larger (ARG_MAX) or smaller (ARG_MIN).
template <bool kMin, typename T>
inline bool Better(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a)) return !std::isnan(b);
  }
  return kMin ? a < b : a > b;
}

template <bool kMin, typename T, typename Out>
void ArgBest(const Shape& s, int axis, bool last, const T* in, Out* out) {
  const int64_t outer = s.Product(0, axis), n = s.dims[axis];
  const int64_t inner = s.Product(axis + 1, s.rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = in + o * n * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const T v = p[k * inner], b = p[best * inner];
        if (Better<kMin>(v, b) || (last && !Better<kMin>(b, v))) best = k;
      }
      out[o * inner + i] = static_cast<Out>(best);
    }
  }
}

template <bool kMin>
Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  return DispatchNumeric(input->type, "", [&](auto zero) {
    using T = decltype(zero);
    if (output->type == DataType::kInt32) {
      ArgBest<kMin>(input->shape, d.axis, d.last, input->data_as<T>(),
                    output->data_as<int32_t>());
    } else {
      ArgBest<kMin>(input->shape, d.axis, d.last, input->data_as<T>(),
                    output->data_as<int64_t>());
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_ARG_MAX() {
  return {BuiltinOperator::ARG_MAX, 1,
          InitOpData<OpData>,       FreeOpData<OpData>,
          Prepare<false>,           Eval<false>};
}
KernelRegistration Register_ARG_MIN() {
  return {BuiltinOperator::ARG_MIN,
          1,
          InitOpData<OpData>,
          FreeOpData<OpData>,
          Prepare<true>,
          Eval<true>};
}

}  // namespace twl
