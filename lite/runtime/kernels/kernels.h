// Registrations of the builtin kernels, one function per op (see
// builtin_kernels.cc for the table that registers them all).
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_KERNELS_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_KERNELS_H_

#include <new>

#include "lite/runtime/op_kernel.h"

namespace twl {

#define TWL_FOR_EACH_BUILTIN_KERNEL(X)                                     \
  X(ADD) X(SUB) X(MUL) X(DIV) X(MAXIMUM) X(MINIMUM) X(FULLY_CONNECTED)     \
  X(RELU) X(RELU6) X(SIGMOID) X(TANH) X(SOFTMAX) X(LOG_SOFTMAX) X(RESHAPE) \
  X(SQUEEZE) X(EXPAND_DIMS) X(EXP) X(LOG) X(SQRT) X(RSQRT) X(SQUARE)       \
  X(NEG) X(ABS)

#define TWL_DECLARE_REGISTRATION(op) KernelRegistration Register_##op();
TWL_FOR_EACH_BUILTIN_KERNEL(TWL_DECLARE_REGISTRATION)
#undef TWL_DECLARE_REGISTRATION

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_KERNELS_H_
