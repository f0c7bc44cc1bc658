// Registrations of the builtin kernels, one function per op (see
// builtin_kernels.cc for the table that registers them all).
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_KERNELS_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_KERNELS_H_

#include <new>

#include "lite/runtime/op_kernel.h"

namespace twl {

// One X(op) per builtin kernel, in schema order.
// clang-format off
#define TWL_FOR_EACH_BUILTIN_KERNEL(X) \
  X(ADD) \
  X(SUB) \
  X(MUL) \
  X(DIV) \
  X(MAXIMUM) \
  X(MINIMUM) \
  X(FULLY_CONNECTED) \
  X(CONV_2D) \
  X(DEPTHWISE_CONV_2D) \
  X(MAX_POOL_2D) \
  X(AVERAGE_POOL_2D) \
  X(RELU) \
  X(RELU6) \
  X(SIGMOID) \
  X(TANH) \
  X(SOFTMAX) \
  X(LOG_SOFTMAX) \
  X(RESHAPE) \
  X(TRANSPOSE) \
  X(CONCATENATION) \
  X(MEAN) \
  X(PAD) \
  X(GATHER) \
  X(BATCH_MATMUL) \
  X(SLICE) \
  X(STRIDED_SLICE) \
  X(SQUEEZE) \
  X(EXPAND_DIMS) \
  X(ARG_MAX) \
  X(EXP) \
  X(LOG) \
  X(SQRT) \
  X(RSQRT) \
  X(SQUARE) \
  X(NEG) \
  X(ABS) \
  X(CAST) \
  X(LAYER_NORM) \
  X(GELU) \
  X(ERF) \
  X(SELECT) \
  X(EQUAL) \
  X(LSTM) \
  X(GRU) \
  X(RNN) \
  X(NOT_EQUAL) \
  X(LESS) \
  X(LESS_EQUAL) \
  X(GREATER) \
  X(GREATER_EQUAL) \
  X(LOGICAL_AND) \
  X(LOGICAL_OR) \
  X(LOGICAL_NOT) \
  X(BITWISE_AND) \
  X(BITWISE_OR) \
  X(BITWISE_XOR) \
  X(BITWISE_NOT) \
  X(LEFT_SHIFT) \
  X(RIGHT_SHIFT) \
  X(REDUCE_SUM) \
  X(REDUCE_MAX) \
  X(REDUCE_MIN) \
  X(REDUCE_PROD) \
  X(ARG_MIN) \
  X(RESIZE) \
  X(SPLIT) \
  X(TILE) \
  X(BROADCAST_TO) \
  X(TRILU) \
  X(CUMSUM) \
  X(CUMPROD) \
  X(GATHER_ELEMENTS) \
  X(SCATTER_ELEMENTS) \
  X(SCATTER_ND) \
  X(GATHER_ND) \
  X(ONE_HOT) \
  X(DEPTH_TO_SPACE) \
  X(SPACE_TO_DEPTH) \
  X(TOP_K) \
  X(REVERSE_SEQUENCE) \
  X(SIN) \
  X(COS) \
  X(TAN) \
  X(ASIN) \
  X(ACOS) \
  X(ATAN) \
  X(SINH) \
  X(COSH) \
  X(ASINH) \
  X(ACOSH) \
  X(ATANH) \
  X(FLOOR) \
  X(CEIL) \
  X(ROUND) \
  X(SIGN) \
  X(IS_NAN) \
  X(IS_INF) \
  X(SOFTPLUS) \
  X(SOFTSIGN) \
  X(ELU) \
  X(SELU) \
  X(CELU) \
  X(LEAKY_RELU) \
  X(HARD_SIGMOID) \
  X(HARD_SWISH) \
  X(MISH) \
  X(THRESHOLDED_RELU) \
  X(SHRINK) \
  X(SWISH) \
  X(PRELU) \
  X(POW) \
  X(FLOOR_MOD) \
  X(FMOD) \
  X(QUANTIZE) \
  X(DEQUANTIZE) \
  X(DYNAMIC_QUANTIZE) \
  X(QUANTIZED_BATCH_MATMUL) \
  X(QUANTIZED_CONV_2D) \
  X(LP_POOL_2D) \
  X(TRANSPOSE_CONV) \
  X(MAX_POOL_2D_V2) \
  X(AVERAGE_POOL_2D_V2) \
  X(ATTENTION) \
  X(QUANTIZED_ADD) \
  X(GRID_SAMPLE) \
  X(ROI_ALIGN) \
  X(BITCAST) \
  X(NON_ZERO) \
  X(NON_MAX_SUPPRESSION) \
  X(SHAPE) \
  X(TOP_K_V2) \
  X(TRANSPOSE_CONV_V2)
// clang-format on

#define TWL_DECLARE_REGISTRATION(op) KernelRegistration Register_##op();
TWL_FOR_EACH_BUILTIN_KERNEL(TWL_DECLARE_REGISTRATION)
#undef TWL_DECLARE_REGISTRATION

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_KERNELS_H_
