#include "lite/runtime/builtin_ops.h"

namespace twl {

bool IsKnownOp(int op) {
  return op >= static_cast<int>(BuiltinOperator::MIN) &&
         op <= static_cast<int>(BuiltinOperator::MAX);
}

const char* OpName(BuiltinOperator op) {
  if (!IsKnownOp(static_cast<int>(op))) return "UNKNOWN";
  return schema::EnumNameBuiltinOperator(op);
}

int MaxOpVersion(BuiltinOperator op) {
  // Version 1 unless listed; bump per op when semantics change.
  if (!IsKnownOp(static_cast<int>(op))) return 0;
  switch (op) {
    // 2: Pool2DOptions' explicit pads, dilation, count_include_pad,
    // ceil_mode; MAX_POOL_2D's indices output (a version-1 reader would
    // ignore them).
    case BuiltinOperator::MAX_POOL_2D:
    case BuiltinOperator::AVERAGE_POOL_2D:
      return 2;
    default:
      return 1;
  }
}

BuiltinOptions ExpectedOptions(BuiltinOperator op) {
  using O = BuiltinOperator;
  switch (op) {
    case O::ADD:
    case O::SUB:
    case O::MUL:
    case O::DIV:
      return BuiltinOptions::ArithmeticOptions;
    case O::FULLY_CONNECTED:
      return BuiltinOptions::FullyConnectedOptions;
    case O::CONV_2D:
      return BuiltinOptions::Conv2DOptions;
    case O::DEPTHWISE_CONV_2D:
      return BuiltinOptions::DepthwiseConv2DOptions;
    case O::MAX_POOL_2D:
    case O::AVERAGE_POOL_2D:
      return BuiltinOptions::Pool2DOptions;
    case O::SOFTMAX:
    case O::LOG_SOFTMAX:
      return BuiltinOptions::SoftmaxOptions;
    case O::CONCATENATION:
      return BuiltinOptions::ConcatenationOptions;
    case O::MEAN:
      return BuiltinOptions::ReducerOptions;
    case O::GATHER:
      return BuiltinOptions::GatherOptions;
    case O::BATCH_MATMUL:
      return BuiltinOptions::BatchMatMulOptions;
    case O::STRIDED_SLICE:
      return BuiltinOptions::StridedSliceOptions;
    case O::SQUEEZE:
      return BuiltinOptions::SqueezeOptions;
    case O::ARG_MAX:
      return BuiltinOptions::ArgMaxOptions;
    case O::LAYER_NORM:
      return BuiltinOptions::LayerNormOptions;
    case O::GELU:
      return BuiltinOptions::GeluOptions;
    case O::LSTM:
      return BuiltinOptions::LSTMOptions;
    case O::GRU:
      return BuiltinOptions::GRUOptions;
    case O::RNN:
      return BuiltinOptions::RNNOptions;
    case O::REDUCE_SUM:
    case O::REDUCE_MAX:
    case O::REDUCE_MIN:
    case O::REDUCE_PROD:
      return BuiltinOptions::ReducerOptions;
    case O::ARG_MIN:
      return BuiltinOptions::ArgMaxOptions;
    case O::LP_POOL_2D:
      return BuiltinOptions::Pool2DOptions;
    case O::TRANSPOSE_CONV:
      return BuiltinOptions::TransposeConvOptions;
    default:
      return BuiltinOptions::NONE;
  }
}

}  // namespace twl
