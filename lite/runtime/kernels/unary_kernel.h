// A kernel skeleton for elementwise unary ops: output has the input's shape
// and type; eval is one flat loop per dtype (vectorized by the compiler),
// split across threads when large.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_UNARY_KERNEL_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_UNARY_KERNEL_H_

#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {

// Op is a struct with
//   static constexpr bool kIntegers;   // also int32/int64
//   template <typename T> static T Apply(T x);
template <typename Op>
struct UnaryKernel {
  static bool Supports(DataType type) {
    return type == DataType::kFloat32 ||
           (Op::kIntegers &&
            (type == DataType::kInt32 || type == DataType::kInt64));
  }

  static Status Prepare(KernelContext* context, Node* node) {
    TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
    const Tensor* input = context->input(*node, 0);
    Tensor* output = context->output(*node, 0);
    TWL_CHECK_ARG(Supports(input->type), "unsupported input type %s",
                  DataTypeName(input->type));
    TWL_CHECK_ARG(output->type == input->type,
                  "output type %s must equal input type %s",
                  DataTypeName(output->type), DataTypeName(input->type));
    return context->ResizeTensor(output, input->shape);
  }

  template <typename T>
  static void Run(const T* in, T* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(in[i]);
  }

  static Status Eval(KernelContext* context, Node* node) {
    const Tensor* input = context->input(*node, 0);
    Tensor* output = context->output(*node, 0);
    int64_t n = input->num_elements();
    return DispatchNumeric(input->type, "unary op", [&](auto zero) {
      using T = decltype(zero);
      const T* in = input->data_as<T>();
      T* out = output->data_as<T>();
      if (context->use_reference()) {
        for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(in[i]);
      } else {
        context->thread_pool()->ParallelFor(
            n, 32768, context->thread_pool()->num_threads(),
            [&](int64_t b, int64_t e) { Run<T>(in + b, out + b, e - b); });
      }
      return Status::Ok();
    });
  }

  static KernelRegistration Registration(BuiltinOperator op) {
    return {op, 1, nullptr, nullptr, Prepare, Eval};
  }
};

// Integer helpers that wrap instead of overflowing.
template <typename T>
inline T WrapNeg(T x) {
  using U = typename std::make_unsigned<T>::type;
  return static_cast<T>(U(0) - U(x));
}
template <typename T>
inline T WrapMul(T a, T b) {
  using U = typename std::make_unsigned<T>::type;
  return static_cast<T>(U(a) * U(b));
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_UNARY_KERNEL_H_
