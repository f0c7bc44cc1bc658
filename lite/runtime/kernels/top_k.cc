// TOP_K: the k largest (or smallest) elements along `axis`, in order, and
// their int64 indices; equal values keep the lower index first, NaN counts
// as larger than every number (both as ONNX's reference). k is a constant
// int32/int64 in [0, dim], or -1 for the whole axis (a sort of an axis whose
// size is known only when the model is resized). Numeric types.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

// k that takes every element of the axis.
constexpr int64_t kWholeAxis = -1;

struct OpData {
  int axis;
  int64_t k;
  int scratch;  // dim int64 positions
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  TWL_CHECK_ARG(node->num_outputs == 2, "TOP_K has 2 outputs, got %d",
                node->num_outputs);
  const Tensor* input = context->input(*node, 0);
  Tensor* values = context->output(*node, 0);
  Tensor* indices = context->output(*node, 1);
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  TWL_CHECK_ARG(
      input->type != DataType::kBool && input->type != DataType::kFloat16,
      "%s input is not supported", DataTypeName(input->type));
  TWL_CHECK_ARG(values->type == input->type, "input and values types differ");
  TWL_RETURN_IF_ERROR(CheckType(indices, "indices", DataType::kInt64));
  TWL_RETURN_IF_ERROR(
      NormalizeAxis(GetOptions<schema::TopKOptions>(*node)->axis(),
                    input->shape.rank, &d->axis));
  int count = 0;
  TWL_RETURN_IF_ERROR(
      ReadConstantInts(context->input(*node, 1), "k", &d->k, 1, &count));
  const int dim = input->shape.dims[d->axis];
  if (count == 1 && d->k == kWholeAxis) d->k = dim;
  TWL_CHECK_ARG(count == 1 && d->k >= 0 && d->k <= dim,
                "k must be one value in [0, %d] or -1 (the whole axis)", dim);
  TWL_RETURN_IF_ERROR(context->RequestScratch(
      node, sizeof(int64_t) * std::max(dim, 1), &d->scratch));
  Shape shape = input->shape;
  shape.dims[d->axis] = static_cast<int32_t>(d->k);
  TWL_RETURN_IF_ERROR(context->ResizeTensor(values, shape));
  return context->ResizeTensor(indices, shape);
}

// a > b, NaN above every number.
template <typename T>
bool Greater(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

// Whether element a of the lane at `x` (elements `inner` apart) comes
// before element b: by value (largest or smallest first), then by index.
template <typename T>
bool Before(const void* x, int64_t inner, bool largest, int64_t a, int64_t b) {
  const T va = static_cast<const T*>(x)[a * inner];
  const T vb = static_cast<const T*>(x)[b * inner];
  if (largest ? Greater(va, vb) : Greater(vb, va)) return true;
  if (largest ? Greater(vb, va) : Greater(va, vb)) return false;
  return a < b;
}

using BeforeFunction = bool (*)(const void*, int64_t, bool, int64_t, int64_t);

// One sort for every type (the comparison is the typed part): code size.
void TopK(const OpData& d, const Tensor* input, bool largest,
          BeforeFunction before, int64_t* order, Tensor* values,
          int64_t* indices) {
  const Shape& s = input->shape;
  const int64_t outer = s.Product(0, d.axis);
  const int64_t n = s.dims[d.axis];
  const int64_t inner = s.Product(d.axis + 1, s.rank);
  const size_t element = DataTypeSize(input->type);
  const uint8_t* in = input->data_as<uint8_t>();
  uint8_t* out = values->data_as<uint8_t>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const uint8_t* x = in + (o * n * inner + i) * element;
      for (int64_t j = 0; j < n; ++j) order[j] = j;
      std::partial_sort(order, order + d.k, order + n,
                        [&](int64_t a, int64_t b) {
                          return before(x, inner, largest, a, b);
                        });
      const int64_t base = o * d.k * inner + i;
      for (int64_t j = 0; j < d.k; ++j) {
        memcpy(out + (base + j * inner) * element,
               x + order[j] * inner * element, element);
        indices[base + j * inner] = order[j];
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  BeforeFunction before = nullptr;
  TWL_RETURN_IF_ERROR(DispatchAllNumeric(input->type, "TOP_K", [&](auto zero) {
    before = Before<decltype(zero)>;
    return Status::Ok();
  }));
  TopK(d, input, GetOptions<schema::TopKOptions>(*node)->largest(), before,
       static_cast<int64_t*>(node->scratch[d.scratch]),
       context->output(*node, 0),
       context->output(*node, 1)->data_as<int64_t>());
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_TOP_K() {
  return {BuiltinOperator::TOP_K, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,     Prepare, Eval};
}
// Version 2 models may take k -1 (the whole axis), which version 1 runtimes
// refuse: the same kernel.
KernelRegistration Register_TOP_K_V2() {
  KernelRegistration r = Register_TOP_K();
  r.version = 2;
  return r;
}

}  // namespace twl
