// Neural-network ops: activations and their gradients, bias, convolutions,
// pooling, softmax and losses, batch normalization. Image ops are NHWC
// with HWIO filters, as in TensorFlow.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {
namespace {

// Every output: the shape of input 0 merged with input `other` (they must
// agree), e.g. ReluGrad's gradients and features.
Status MergedWith(InferenceContext* c, int other) {
  PartialShape merged;
  Status s = c->input(0).Merge(c->input(other), &merged);
  if (!s.ok()) {
    return errors::InvalidArgument("inputs must have the same shape, got ",
                                   c->InputShapesString());
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, merged);
  return Status::OK();
}

Status GradShape(InferenceContext* c) { return MergedWith(c, 1); }

Status CheckDataFormatNhwc(InferenceContext* c) {
  std::string data_format;
  TW_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  if (data_format != "NHWC") {
    return errors::InvalidArgument("only data_format NHWC is supported, got ",
                                   data_format);
  }
  return Status::OK();
}

// Depth (channel) dim of a BiasAdd value.
Status BiasDim(InferenceContext* c, const PartialShape& value, int* dim) {
  std::string data_format;
  TW_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  if (!value.known_rank()) {
    *dim = -1;
    return Status::OK();
  }
  if (value.rank() < 2) {
    return errors::InvalidArgument("value must be at least rank 2, got ",
                                   value.ToString());
  }
  if (data_format == "NCHW" && value.rank() < 3) {
    return errors::InvalidArgument("NCHW value must be at least rank 3, got ",
                                   value.ToString());
  }
  *dim = data_format == "NCHW" ? value.rank() - 3 : value.rank() - 1;
  return Status::OK();
}

Status BiasAddShape(InferenceContext* c) {
  PartialShape bias;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &bias));
  int dim;
  TW_RETURN_IF_ERROR(BiasDim(c, c->input(0), &dim));
  if (dim < 0) {
    c->set_output(0, c->input(0));
    return Status::OK();
  }
  std::vector<int64_t> dims = c->input(0).dims();
  if (dims[dim] >= 0 && bias.dim(0) >= 0 && dims[dim] != bias.dim(0)) {
    return errors::InvalidArgument(
        "bias has ", bias.dim(0), " elements but the value's channel dim is ",
        dims[dim], " (", c->InputShapesString(), ")");
  }
  if (dims[dim] < 0) dims[dim] = bias.dim(0);
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status BiasAddGradShape(InferenceContext* c) {
  int dim;
  TW_RETURN_IF_ERROR(BiasDim(c, c->input(0), &dim));
  c->set_output(0, PartialShape({dim < 0 ? -1 : c->input(0).dim(dim)}));
  return Status::OK();
}

// The explicit_paddings attr of a windowed op (empty where the op has none),
// checked against `padding`.
Status ExplicitPaddingsAttr(InferenceContext* c, const std::string& padding,
                            std::vector<int64_t>* explicit_paddings) {
  explicit_paddings->clear();
  if (!c->GetAttr("explicit_paddings", explicit_paddings).ok()) {
    explicit_paddings->clear();  // pooling ops: SAME or VALID only
  }
  return CheckExplicitPaddings(padding, *explicit_paddings);
}

// Output shape of a windowed NHWC op with `out_depth` output channels.
Status WindowedShape(InferenceContext* c, const PartialShape& input,
                     int64_t window_rows, int64_t window_cols,
                     const std::vector<int64_t>& strides,
                     const std::vector<int64_t>& dilations, int64_t out_depth) {
  std::string padding;
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  std::vector<int64_t> explicit_paddings;
  TW_RETURN_IF_ERROR(ExplicitPaddingsAttr(c, padding, &explicit_paddings));
  Window2D w = MakeWindow2D(input.dim(1), input.dim(2), window_rows,
                            window_cols, strides, dilations);
  if (window_rows < 0 || window_cols < 0) {
    // An unknown window (filter): SAME padding still gives ceil(in / stride).
    auto same = [&](int64_t in, int64_t stride) -> int64_t {
      return padding == "SAME" && in >= 0 && stride > 0
                 ? (in + stride - 1) / stride
                 : -1;
    };
    c->set_output(0, PartialShape({input.dim(0), same(w.in_rows, w.stride_rows),
                                   same(w.in_cols, w.stride_cols), out_depth}));
    return Status::OK();
  }
  Status s = w.Compute(padding, explicit_paddings);
  if (!s.ok()) {
    return errors::InvalidArgument(s.message(), " (input shapes ",
                                   c->InputShapesString(), ")");
  }
  c->set_output(
      0, PartialShape({input.dim(0), w.out_rows, w.out_cols, out_depth}));
  return Status::OK();
}

Status ConvStridesAndDilations(InferenceContext* c,
                               std::vector<int64_t>* strides,
                               std::vector<int64_t>* dilations) {
  TW_RETURN_IF_ERROR(CheckDataFormatNhwc(c));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", strides));
  TW_RETURN_IF_ERROR(c->GetAttr("dilations", dilations));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(*strides, "strides"));
  return CheckNhwcAttr(*dilations, "dilations");
}

// Conv2D and DepthwiseConv2dNative: input [N,H,W,C], filter [KH,KW,C,M];
// output depth M (conv) or C*M (depthwise).
Status ConvShape(InferenceContext* c, bool depthwise) {
  std::vector<int64_t> strides, dilations;
  TW_RETURN_IF_ERROR(ConvStridesAndDilations(c, &strides, &dilations));
  PartialShape input, filter;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &filter));
  const int64_t in_depth = input.dim(3), filter_depth = filter.dim(2);
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth &&
      !depthwise) {  // TF's wording
    return errors::InvalidArgument("Depth of input (", in_depth,
                                   ") is not a multiple of input depth of "
                                   "filter (",
                                   filter_depth, ")");
  }
  if (in_depth >= 0 && filter_depth >= 0 && in_depth != filter_depth) {
    return errors::InvalidArgument("input depth ", in_depth,
                                   " does not match the filter's in_channels ",
                                   filter_depth, " (input ", input.ToString(),
                                   ", filter ", filter.ToString(), ")");
  }
  int64_t out_depth = filter.dim(3);
  if (depthwise) {
    const int64_t depth = in_depth >= 0 ? in_depth : filter_depth;
    out_depth = depth >= 0 && out_depth >= 0 ? depth * out_depth : -1;
  }
  return WindowedShape(c, input, filter.dim(0), filter.dim(1), strides,
                       dilations, out_depth);
}

// Backprop ops whose output shape is a shape input (input_sizes or
// filter_sizes) at position `i`.
Status ShapeFromInput(InferenceContext* c, int i) {
  std::vector<int64_t> strides, dilations;
  TW_RETURN_IF_ERROR(ConvStridesAndDilations(c, &strides, &dilations));
  PartialShape out;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(i, &out));
  if (out.known_rank() && out.rank() != 4) {
    return errors::InvalidArgument("sizes must have 4 elements, got ",
                                   out.ToString());
  }
  c->set_output(0, out.known_rank() ? out : PartialShape::Unknown(4));
  return Status::OK();
}

Status PoolShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(CheckDataFormatNhwc(c));
  // MaxPool/MaxPoolGrad take TF's explicit_paddings attr, but their padding
  // is SAME or VALID only, where TF requires the list to be empty.
  std::vector<int64_t> pool_paddings;
  if (c->GetAttr("explicit_paddings", &pool_paddings).ok() &&
      !pool_paddings.empty()) {
    return errors::InvalidArgument(
        "explicit_paddings must be empty: padding EXPLICIT is not supported "
        "by this pooling op (padding must be SAME or VALID), got ",
        pool_paddings.size(), " values");
  }
  std::vector<int64_t> ksize, strides;
  TW_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(ksize, "ksize"));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(strides, "strides"));
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  return WindowedShape(c, input, ksize[1], ksize[2], strides, {1, 1, 1, 1},
                       input.dim(3));
}

Status MaxPoolGradShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(PoolShape(c));
  PartialShape input, output, grad;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &output));
  TW_RETURN_IF_ERROR(c->WithRank(2, 4, &grad));
  if (!output.IsCompatibleWith(grad) || !c->output(0).IsCompatibleWith(grad)) {
    return errors::InvalidArgument(
        "orig_output and grad must have the pooled shape ",
        c->output(0).ToString(), ", got ", c->InputShapesString());
  }
  c->set_output(0, input);
  return Status::OK();
}

Status AvgPoolGradShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(CheckDataFormatNhwc(c));
  PartialShape out, grad;
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &grad));
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &out));
  if (out.known_rank() && out.rank() != 4) {
    return errors::InvalidArgument(
        "orig_input_shape must have 4 elements, got ", out.ToString());
  }
  c->set_output(0, out.known_rank() ? out : PartialShape::Unknown(4));
  return Status::OK();
}

Status SoftmaxShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  return c->UnchangedShape(0);
}

// Cross entropy: loss [N] and backprop [N, C] from logits [N, C].
Status XentShape(InferenceContext* c, bool sparse) {
  PartialShape logits;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &logits));
  if (sparse) {
    PartialShape labels;
    TW_RETURN_IF_ERROR(c->WithRank(1, 1, &labels));
    if (!PartialShape({logits.dim(0)}).IsCompatibleWith(labels)) {
      return errors::InvalidArgument(
          "labels must have the batch size of logits, got ",
          c->InputShapesString());
    }
  } else {
    PartialShape labels;
    TW_RETURN_IF_ERROR(c->WithRank(1, 2, &labels));
    for (int i = 0; i < 2; ++i) {  // TF's Merge of each dimension
      if (logits.dim(i) >= 0 && labels.dim(i) >= 0 &&
          logits.dim(i) != labels.dim(i)) {
        return errors::InvalidArgument("Dimensions must be equal, but are ",
                                       logits.dim(i), " and ", labels.dim(i));
      }
    }
    if (!logits.IsCompatibleWith(labels)) {
      return errors::InvalidArgument(
          "logits and labels must have the same shape, got ",
          c->InputShapesString());
    }
    TW_RETURN_IF_ERROR(logits.Merge(labels, &logits));
  }
  c->set_output(0, PartialShape({logits.dim(0)}));
  c->set_output(1, logits);
  return Status::OK();
}

// FusedBatchNorm: y like x; four [C] statistics.
// The channel dim of a 4-D batch-norm input: 3 (NHWC) or 1 (NCHW).
Status BatchNormChannelDim(InferenceContext* c, int* dim) {
  std::string data_format;
  TW_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  *dim = data_format == "NCHW" ? 1 : 3;
  return Status::OK();
}

Status FusedBatchNormShape(InferenceContext* c) {
  int channel_dim;
  TW_RETURN_IF_ERROR(BatchNormChannelDim(c, &channel_dim));
  PartialShape x;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &x));
  int64_t depth = x.dim(channel_dim);
  bool is_training;
  TW_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  const int num_vectors = is_training ? 2 : 4;
  for (int i = 1; i <= num_vectors; ++i) {
    PartialShape v;
    TW_RETURN_IF_ERROR(c->WithRank(i, 1, &v));
    if (depth >= 0 && v.dim(0) >= 0 && v.dim(0) != depth && !is_training) {
      return errors::InvalidArgument("input ", i, " must have ", depth,
                                     " elements (the depth of x), got ",
                                     c->InputShapesString());
    }
    if (depth >= 0 && v.dim(0) >= 0 && v.dim(0) != depth && i <= 2) {
      return errors::InvalidArgument("scale and offset must have ", depth,
                                     " elements (the depth of x), got ",
                                     c->InputShapesString());
    }
    if (depth < 0) depth = v.dim(0);
  }
  c->set_output(0, x);
  for (int i = 1; i < 5; ++i) c->set_output(i, PartialShape({depth}));
  return Status::OK();
}

Status FusedBatchNormGradShape(InferenceContext* c) {
  int channel_dim;
  TW_RETURN_IF_ERROR(BatchNormChannelDim(c, &channel_dim));
  PartialShape dy, x;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &dy));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &x));
  PartialShape merged;
  if (!dy.Merge(x, &merged).ok()) {
    return errors::InvalidArgument("y_backprop and x must have one shape, got ",
                                   c->InputShapesString());
  }
  int64_t depth = merged.dim(channel_dim);
  for (int i = 2; i < 5; ++i) {
    PartialShape v;
    TW_RETURN_IF_ERROR(c->WithRank(i, 1, &v));
    if (depth >= 0 && v.dim(0) >= 0 && v.dim(0) != depth) {
      return errors::InvalidArgument("input ", i, " must have ", depth,
                                     " elements (the depth of x), got ",
                                     c->InputShapesString());
    }
  }
  c->set_output(0, merged);
  c->set_output(1, PartialShape({depth}));
  c->set_output(2, PartialShape({depth}));
  c->set_output(3, PartialShape({0}));
  c->set_output(4, PartialShape({0}));
  return Status::OK();
}

}  // namespace

// --- activations ------------------------------------------------------------

#define TW_TYPED_ACTIVATION(Name, Types, DocText) \
  REGISTER_OP(Name)                               \
      .Input("features: T")                       \
      .Output("activations: T")                   \
      .Attr("T: {" Types "}")                     \
      .SetShapeFn(shape_fns::Unchanged)           \
      .Doc(DocText)
#define TW_ACTIVATION(Name, DocText) \
  TW_TYPED_ACTIVATION(Name, "float32, float64", DocText)
#define TW_TYPED_ACTIVATION_GRAD(Name, Types, Second, DocText) \
  REGISTER_OP(Name)                                            \
      .Input("gradients: T")                                   \
      .Input(Second ": T")                                     \
      .Output("backprops: T")                                  \
      .Attr("T: {" Types "}")                                  \
      .SetShapeFn(GradShape)                                   \
      .Doc(DocText)
#define TW_ACTIVATION_GRAD(Name, Second, DocText) \
  TW_TYPED_ACTIVATION_GRAD(Name, "float32, float64", Second, DocText)

// Relu and Relu6 keep integer dtypes (as TensorFlow: relu of int32 is int32).
TW_TYPED_ACTIVATION("Relu", "realnumbertype", "max(features, 0).");
TW_TYPED_ACTIVATION("Relu6", "realnumbertype", "min(max(features, 0), 6).");
TW_ACTIVATION("Elu", "features if > 0, else exp(features) - 1.");
TW_ACTIVATION("Selu",
              "scale * features if > 0, else scale * alpha * (exp(features) - "
              "1), with alpha = 1.6732632423543772 and scale = "
              "1.0507009873554805.");
TW_ACTIVATION("Softplus", "log(exp(features) + 1), computed stably.");
REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {float32, float64}")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("features if > 0, else alpha * features.");

TW_TYPED_ACTIVATION_GRAD("ReluGrad", "realnumbertype", "features",
                         "gradients * (features > 0): Relu's backprop.");
TW_TYPED_ACTIVATION_GRAD("Relu6Grad", "realnumbertype", "features",
                         "gradients * (0 < features < 6): Relu6's backprop.");
TW_ACTIVATION_GRAD("EluGrad", "outputs",
                   "gradients if outputs > 0, else gradients * (outputs + 1): "
                   "Elu's backprop from its outputs.");
TW_ACTIVATION_GRAD("SeluGrad", "outputs",
                   "Selu's backprop from its outputs: gradients * scale if "
                   "outputs > 0, else gradients * (outputs + scale * alpha).");
TW_ACTIVATION_GRAD("SoftplusGrad", "features",
                   "gradients * sigmoid(features): Softplus's backprop.");
REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {float32, float64}")
    .SetShapeFn(GradShape)
    .Doc("gradients if features > 0, else alpha * gradients.");
#undef TW_ACTIVATION
#undef TW_ACTIVATION_GRAD
#undef TW_TYPED_ACTIVATION
#undef TW_TYPED_ACTIVATION_GRAD

// --- bias -------------------------------------------------------------------

REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, float32, float64, int32, int64, complex64, complex128}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddShape)
    .Doc(
        "value + bias, bias [C] added along the channel dim (the last for "
        "NHWC, the third from last for NCHW).");

REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, float32, float64, int32, int64, complex64, complex128}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddGradShape)
    .Doc("The sum of out_backprop over every dim but the channel dim.");

// --- convolution ------------------------------------------------------------

#define TW_CONV_ATTRS                                 \
  Attr("T: {float32, float64}")                       \
      .Attr("strides: list(int)")                     \
      .Attr("use_cudnn_on_gpu: bool = true")          \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
      .Attr("explicit_paddings: list(int) = []")      \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .TW_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ConvShape(c, false); })
    .Doc(
        "2-D convolution (cross-correlation) of input [N,H,W,C] with filter "
        "[KH,KW,C,M], giving [N,OH,OW,M].");

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .TW_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 0); })
    .Doc("The gradient of Conv2D with respect to its input.");

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .TW_CONV_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 1); })
    .Doc("The gradient of Conv2D with respect to its filter.");
#undef TW_CONV_ATTRS

#define TW_DEPTHWISE_ATTRS                            \
  Attr("T: {float32, float64}")                       \
      .Attr("strides: list(int)")                     \
      .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
      .Attr("explicit_paddings: list(int) = []")      \
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
      .Attr("dilations: list(int) = [1, 1, 1, 1]")

REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .TW_DEPTHWISE_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ConvShape(c, true); })
    .Doc(
        "Depthwise 2-D convolution: each input channel c is convolved with "
        "filter[:, :, c, :] (M multipliers), giving [N,OH,OW,C*M] with "
        "output channel c*M+m.");

REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .TW_DEPTHWISE_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 0); })
    .Doc("The gradient of DepthwiseConv2dNative with respect to its input.");

REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .TW_DEPTHWISE_ATTRS
    .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 1); })
    .Doc("The gradient of DepthwiseConv2dNative with respect to its filter.");
#undef TW_DEPTHWISE_ATTRS

// --- pooling ----------------------------------------------------------------

#define TW_POOL_ATTRS                         \
  Attr("ksize: list(int)")                    \
      .Attr("strides: list(int)")             \
      .Attr("padding: {'SAME', 'VALID'}")     \
      .Attr("data_format: {'NHWC'} = 'NHWC'") \
      .Attr("T: {float32, float64}")

REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .TW_POOL_ATTRS.Attr("explicit_paddings: list(int) = []")
    .SetShapeFn(PoolShape)
    .Doc("The maximum over each window of input [N,H,W,C] (padding ignored).");

REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .TW_POOL_ATTRS.SetShapeFn(PoolShape)
    .Doc(
        "The mean over each window of value [N,H,W,C]; SAME windows average "
        "only the elements inside the input.");

REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .TW_POOL_ATTRS.Attr("explicit_paddings: list(int) = []")
    .SetShapeFn(MaxPoolGradShape)
    .Doc(
        "MaxPool's backprop: each window's grad goes to the first position "
        "of its maximum in orig_input.");

REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .TW_POOL_ATTRS.SetShapeFn(AvgPoolGradShape)
    .Doc("AvgPool's backprop: each window's grad spread evenly over it.");
#undef TW_POOL_ATTRS

// --- softmax and losses -----------------------------------------------------

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {bfloat16, float32, float64}")
    .SetShapeFn(SoftmaxShape)
    .Doc("exp(logits) / sum(exp(logits)) along the last axis.");

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {bfloat16, float32, float64}")
    .SetShapeFn(SoftmaxShape)
    .Doc("logits - log(sum(exp(logits))) along the last axis.");

// Not in TensorFlow (which composes these from Sum and Mul): the backprops
// of Softmax and LogSoftmax, one pass over the last axis each.
REGISTER_OP("SoftmaxGrad")
    .Input("gradients: T")
    .Input("softmax: T")
    .Output("backprops: T")
    .Attr("T: {float32, float64}")
    .SetShapeFn(GradShape)
    .Doc(
        "Softmax's backprop from its output y: (gradients - sum(gradients * "
        "y, -1)) * y.");

REGISTER_OP("LogSoftmaxGrad")
    .Input("gradients: T")
    .Input("logsoftmax: T")
    .Output("backprops: T")
    .Attr("T: {float32, float64}")
    .SetShapeFn(GradShape)
    .Doc(
        "LogSoftmax's backprop from its output y: gradients - exp(y) * "
        "sum(gradients, -1).");

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float32, float64}")
    .SetShapeFn([](InferenceContext* c) { return XentShape(c, false); })
    .Doc(
        "Per-row cross entropy -sum(labels * log_softmax(features)) of [N,C] "
        "features, and its gradient softmax(features) - labels.");

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float32, float64}")
    .Attr("Tlabels: {int32, int64} = int64")
    .SetShapeFn([](InferenceContext* c) { return XentShape(c, true); })
    .Doc(
        "Per-row cross entropy of [N,C] features against class indices "
        "labels [N] in [0, C), and its gradient softmax(features) - "
        "one_hot(labels).");

REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr("T: {float32, float64}")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("sum(t ** 2) / 2.");

// --- batch normalization ----------------------------------------------------

REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float32, float64}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc(
        "Batch normalization of x [N,H,W,C] (NCHW: [N,C,H,W]): y = scale * (x "
        "- m) / sqrt(v + "
        "epsilon) + offset. Training uses the batch's mean and (biased) "
        "variance and outputs them (batch_variance Bessel-corrected); "
        "inference uses the given mean and variance. reserve_space_1/2 hold "
        "the mean and biased variance used, for FusedBatchNormGrad.");

REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float32, float64}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc(
        "FusedBatchNorm's backprop, given the mean and variance it used "
        "(its reserve spaces in training, the population statistics in "
        "inference).");

}  // namespace tensorweave
