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
    // 2: TOP_K's k -1 (the whole axis), which version 1 refuses.
    case BuiltinOperator::TOP_K:
    // 2: TransposeConvOptions.out_follows_input (version 1 would ignore it).
    case BuiltinOperator::TRANSPOSE_CONV:
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
    case O::ATTENTION:
      return BuiltinOptions::AttentionOptions;
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
    case O::RESIZE:
      return BuiltinOptions::ResizeOptions;
    case O::SPLIT:
      return BuiltinOptions::SplitOptions;
    case O::TRILU:
      return BuiltinOptions::TriluOptions;
    case O::CUMSUM:
    case O::CUMPROD:
      return BuiltinOptions::CumulativeOptions;
    case O::GATHER_ELEMENTS:
    case O::GATHER_ND:
      return BuiltinOptions::GatherOptions;
    case O::SCATTER_ELEMENTS:
    case O::SCATTER_ND:
      return BuiltinOptions::ScatterOptions;
    case O::ONE_HOT:
      return BuiltinOptions::OneHotOptions;
    case O::DEPTH_TO_SPACE:
    case O::SPACE_TO_DEPTH:
      return BuiltinOptions::DepthSpaceOptions;
    case O::TOP_K:
      return BuiltinOptions::TopKOptions;
    case O::REVERSE_SEQUENCE:
      return BuiltinOptions::ReverseSequenceOptions;
    case O::IS_INF:
      return BuiltinOptions::IsInfOptions;
    case O::ELU:
    case O::SELU:
    case O::CELU:
    case O::LEAKY_RELU:
    case O::HARD_SIGMOID:
    case O::THRESHOLDED_RELU:
    case O::SHRINK:
    case O::SWISH:
      return BuiltinOptions::ActivationParamsOptions;
    case O::QUANTIZE:
    case O::DEQUANTIZE:
      return BuiltinOptions::QuantizeOptions;
    case O::QUANTIZED_CONV_2D:
      return BuiltinOptions::QuantizedConv2DOptions;
    case O::LP_POOL_2D:
      return BuiltinOptions::Pool2DOptions;
    case O::TRANSPOSE_CONV:
      return BuiltinOptions::TransposeConvOptions;
    case O::GRID_SAMPLE:
      return BuiltinOptions::GridSampleOptions;
    case O::ROI_ALIGN:
      return BuiltinOptions::RoiAlignOptions;
    case O::NON_MAX_SUPPRESSION:
      return BuiltinOptions::NonMaxSuppressionOptions;
    default:
      return BuiltinOptions::NONE;
  }
}

}  // namespace twl
