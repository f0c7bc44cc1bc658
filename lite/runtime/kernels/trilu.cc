// TRILU: keeps the elements of each matrix (the last two dims) on or above
// diagonal k (upper: j - i >= k) or on or below it (lower: j - i <= k) and
// zeroes the rest. k is an optional int32/int64 scalar input read at
// invoke (default 0). Any dtype (copied by element size).
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 2, kMaxDims));
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  const Tensor* k = context->input(*node, 1);
  if (k != nullptr) {
    TWL_CHECK_ARG(k->type == DataType::kInt32 || k->type == DataType::kInt64,
                  "k must be int32 or int64, got %s", DataTypeName(k->type));
    TWL_CHECK_ARG(k->num_elements() == 1, "k must be a scalar");
  }
  return context->ResizeTensor(output, input->shape);
}

template <typename T>
void Trilu(const T* in, T* out, int64_t matrices, int64_t rows, int64_t cols,
           int64_t k, bool upper) {
  for (int64_t m = 0; m < matrices; ++m) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const bool keep = upper ? j - i >= k : j - i <= k;
        *out++ = keep ? *in : T{};
        ++in;
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  const Tensor* k_tensor = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  int64_t k = 0;
  if (k_tensor != nullptr) {
    k = k_tensor->type == DataType::kInt32 ? k_tensor->data_as<int32_t>()[0]
                                           : k_tensor->data_as<int64_t>()[0];
  }
  const Shape& s = input->shape;
  const bool upper = GetOptions<schema::TriluOptions>(*node)->upper();
  return DispatchAll(input->type, [&](auto zero) {
    using T = decltype(zero);
    Trilu(input->data_as<T>(), output->data_as<T>(), s.Product(0, s.rank - 2),
          s.dims[s.rank - 2], s.dims[s.rank - 1], k, upper);
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_TRILU() {
  return {BuiltinOperator::TRILU, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
