// A kernel skeleton for elementwise unary ops: output has the input's shape
// and type (bool for a predicate); eval is one flat loop per dtype
// (vectorized by the compiler), split across threads when large. The
// checks and the threading are shared (unary_kernel.cc); each op and type
// adds its loop only.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_UNARY_KERNEL_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_UNARY_KERNEL_H_

#include <type_traits>
#include <utility>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {

// Op is a struct with
//   static constexpr TypeSet kTypes;       // the input types it takes
//   template <typename T> R Apply(T x);    // R: T, or bool for a predicate
// and optionally
//   template <typename T> R Reference(T x);  // the reference path's formula
//                                            // when Apply approximates it
//   explicit Op(const Node& node);         // parameters from the options
// Apply and Reference may be static or const members.
template <typename Op, typename = void>
struct HasReference : std::false_type {};
template <typename Op>
struct HasReference<
    Op, std::void_t<decltype(std::declval<const Op&>().Reference(0.f))>>
    : std::true_type {};

// Checks one input of a type in `types` and an output of its type (bool
// when `predicate`), and sizes the output.
Status PrepareUnary(KernelContext* context, Node* node, TypeSet types,
                    bool predicate);
// out[i] = op(in[i]) for i in [0, n).
using UnaryRunFn = void (*)(const void* op, const void* in, void* out,
                            int64_t n);
// Reference: `reference` over everything; optimized: `fast`, split across
// threads when large.
void RunUnary(KernelContext* context, int64_t n, size_t in_size,
              size_t out_size, const void* op, const void* in, void* out,
              UnaryRunFn fast, UnaryRunFn reference);

template <typename Op>
struct UnaryKernel {
  // Whether the op answers bool (every op takes float32).
  static constexpr bool kPredicate =
      std::is_same<decltype(std::declval<const Op&>().Apply(0.f)), bool>::value;

  static Op Make(const Node& node) {
    if constexpr (std::is_constructible<Op, const Node&>::value) {
      return Op(node);
    } else {
      return Op();
    }
  }

  // The typed loop, through Apply or (kExact) Reference.
  template <typename T, bool kExact>
  static void Run(const void* op_ptr, const void* in_ptr, void* out_ptr,
                  int64_t n) {
    // A copy: its parameters stay in registers (out cannot alias them).
    const Op op = *static_cast<const Op*>(op_ptr);
    const T* in = static_cast<const T*>(in_ptr);
    using R = decltype(op.Apply(T{}));
    R* out = static_cast<R*>(out_ptr);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kExact) {
        out[i] = op.Reference(in[i]);
      } else {
        out[i] = op.Apply(in[i]);
      }
    }
  }

  static Status Prepare(KernelContext* context, Node* node) {
    return PrepareUnary(context, node, Op::kTypes, kPredicate);
  }

  static Status Eval(KernelContext* context, Node* node) {
    const Tensor* input = context->input(*node, 0);
    Tensor* output = context->output(*node, 0);
    const Op op = Make(*node);
    return DispatchTypes<Op::kTypes>(input->type, "unary op", [&](auto zero) {
      using T = decltype(zero);
      RunUnary(context, input->num_elements(), sizeof(T),
               sizeof(decltype(op.Apply(zero))), &op, input->data, output->data,
               Run<T, false>, Run<T, HasReference<Op>::value>);
      return Status::Ok();
    });
  }

  static KernelRegistration Registration(BuiltinOperator op) {
    return {op, 1, nullptr, nullptr, Prepare, Eval};
  }
};

// Integer negation that wraps instead of overflowing (-INT_MIN == INT_MIN),
// computed in an unsigned type at least as wide as int (kernel_util.h).
template <typename T>
inline T WrapNeg(T x) {
  using U = WrappingUnsigned<T>;
  return static_cast<T>(U(0) - U(x));
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_UNARY_KERNEL_H_
