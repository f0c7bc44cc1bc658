// CAST between float32, int32, int64, uint8, int8 and bool (the output
// tensor's type). Float to integer truncates toward zero and saturates;
// NaN becomes 0. Integer narrowing wraps. Any value to bool is (x != 0).
#include <cmath>
#include <limits>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

template <typename F>
Status DispatchCastType(DataType type, F&& f) {
  switch (type) {
    case DataType::kFloat32:
      return f(float{});
    case DataType::kInt32:
      return f(int32_t{});
    case DataType::kInt64:
      return f(int64_t{});
    case DataType::kUInt8:
      return f(uint8_t{});
    case DataType::kInt8:
      return f(int8_t{});
    case DataType::kBool:
      return f(bool{});
  }
  return Status::Error(StatusCode::kUnsupported, "CAST: unknown type");
}

template <typename To, typename From>
inline To Convert(From v) {
  if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (std::is_floating_point<From>::value &&
                       std::is_integral<To>::value) {
    if (std::isnan(v)) return To(0);
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) {
      return std::numeric_limits<To>::min();
    }
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  return context->ResizeTensor(context->output(*node, 0), input->shape);
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const int64_t n = input->num_elements();
  return DispatchCastType(input->type, [&](auto from_zero) {
    using From = decltype(from_zero);
    return DispatchCastType(output->type, [&](auto to_zero) {
      using To = decltype(to_zero);
      const From* in = input->data_as<From>();
      To* out = output->data_as<To>();
      for (int64_t i = 0; i < n; ++i) out[i] = Convert<To>(in[i]);
      return Status::Ok();
    });
  });
}

}  // namespace

KernelRegistration Register_CAST() {
  return {BuiltinOperator::CAST, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
