// Volumetric (3-D) convolution and pooling (NDHWC, DHWIO filters), local
// response normalization and max pooling with argmax, as TensorFlow defines
// them.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {
namespace {

// A 5-element NDHWC strides/ksize/dilations attr of positive values (the
// kernels refuse batch and depth entries other than 1 as Unimplemented, as
// TensorFlow's do).
Status CheckNdhwcAttr(const std::vector<int64_t>& values, const char* what) {
  if (values.size() != 5) {
    return errors::InvalidArgument(what, " must have 5 elements, got ",
                                   values.size());
  }
  for (int64_t v : values) {
    if (v <= 0) {
      return errors::InvalidArgument(what, " must be positive, got ", v);
    }
  }
  return Status::OK();
}

Status CheckNdhwc(InferenceContext* c) {
  std::string data_format;
  TW_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  if (data_format != "NDHWC") {
    return errors::InvalidArgument("only data_format NDHWC is supported, got ",
                                   data_format);
  }
  return Status::OK();
}

// [N, OD, OH, OW, out_depth] of a 3-D windowed op over `input`.
Status Windowed3DShape(InferenceContext* c, const PartialShape& input,
                       const std::vector<int64_t>& window,
                       const std::vector<int64_t>& strides,
                       const std::vector<int64_t>& dilations,
                       int64_t out_depth) {
  std::string padding;
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  std::vector<int64_t> dims = {input.dim(0), -1, -1, -1, out_depth};
  for (int i = 0; i < 3; ++i) {
    if (window[i] < 0) {
      const int64_t in = input.dim(i + 1), s = strides[i + 1];
      dims[i + 1] = padding == "SAME" && in >= 0 ? (in + s - 1) / s : -1;
      continue;
    }
    int64_t pad;
    Status s =
        WindowedOutputSize(input.dim(i + 1), window[i], strides[i + 1],
                           dilations[i + 1], padding, &dims[i + 1], &pad);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), " (input shapes ",
                                     c->InputShapesString(), ")");
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status Conv3DAttrs(InferenceContext* c, std::vector<int64_t>* strides,
                   std::vector<int64_t>* dilations) {
  TW_RETURN_IF_ERROR(CheckNdhwc(c));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", strides));
  TW_RETURN_IF_ERROR(c->GetAttr("dilations", dilations));
  TW_RETURN_IF_ERROR(CheckNdhwcAttr(*strides, "strides"));
  return CheckNdhwcAttr(*dilations, "dilations");
}

// Conv3D: input [N,D,H,W,C], filter [KD,KH,KW,C,M] -> [N,OD,OH,OW,M].
Status Conv3DShape(InferenceContext* c) {
  std::vector<int64_t> strides, dilations;
  TW_RETURN_IF_ERROR(Conv3DAttrs(c, &strides, &dilations));
  PartialShape input, filter;
  TW_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 5, &filter));
  if (input.dim(4) >= 0 && filter.dim(3) >= 0 &&
      input.dim(4) != filter.dim(3)) {
    return errors::InvalidArgument("input depth ", input.dim(4),
                                   " does not match the filter's in_channels ",
                                   filter.dim(3), " (input ", input.ToString(),
                                   ", filter ", filter.ToString(), ")");
  }
  return Windowed3DShape(c, input,
                         {filter.dim(0), filter.dim(1), filter.dim(2)}, strides,
                         dilations, filter.dim(4));
}

// Backprops whose output shape is the 5-element sizes input i.
Status Conv3DSizesShape(InferenceContext* c, int i) {
  std::vector<int64_t> strides, dilations;
  TW_RETURN_IF_ERROR(Conv3DAttrs(c, &strides, &dilations));
  PartialShape out;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(i, &out));
  if (out.known_rank() && out.rank() != 5) {
    return errors::InvalidArgument("sizes must have 5 elements, got ",
                                   out.ToString());
  }
  c->set_output(0, out.known_rank() ? out : PartialShape::Unknown(5));
  return Status::OK();
}

Status Pool3DAttrs(InferenceContext* c, std::vector<int64_t>* ksize,
                   std::vector<int64_t>* strides) {
  TW_RETURN_IF_ERROR(CheckNdhwc(c));
  TW_RETURN_IF_ERROR(c->GetAttr("ksize", ksize));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", strides));
  TW_RETURN_IF_ERROR(CheckNdhwcAttr(*ksize, "ksize"));
  return CheckNdhwcAttr(*strides, "strides");
}

Status Pool3DShape(InferenceContext* c) {
  std::vector<int64_t> ksize, strides;
  TW_RETURN_IF_ERROR(Pool3DAttrs(c, &ksize, &strides));
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  return Windowed3DShape(c, input, {ksize[1], ksize[2], ksize[3]}, strides,
                         {1, 1, 1, 1, 1}, input.dim(4));
}

Status MaxPool3DGradShape(InferenceContext* c) {
  DataType t, t_input;
  TW_RETURN_IF_ERROR(c->GetAttr("T", &t));
  TW_RETURN_IF_ERROR(c->GetAttr("TInput", &t_input));
  if (t != t_input) {
    return errors::InvalidArgument(
        "MaxPool3DGrad: orig_input and orig_output (TInput ",
        DataTypeName(t_input), ") must have grad's dtype (T ", DataTypeName(t),
        ")");
  }
  TW_RETURN_IF_ERROR(Pool3DShape(c));
  PartialShape input, output, grad;
  TW_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 5, &output));
  TW_RETURN_IF_ERROR(c->WithRank(2, 5, &grad));
  if (!output.IsCompatibleWith(grad) || !c->output(0).IsCompatibleWith(grad)) {
    return errors::InvalidArgument(
        "orig_output and grad must have the pooled shape ",
        c->output(0).ToString(), ", got ", c->InputShapesString());
  }
  c->set_output(0, input);
  return Status::OK();
}

Status AvgPool3DGradShape(InferenceContext* c) {
  std::vector<int64_t> ksize, strides;
  TW_RETURN_IF_ERROR(Pool3DAttrs(c, &ksize, &strides));
  PartialShape grad, out;
  TW_RETURN_IF_ERROR(c->WithRank(1, 5, &grad));
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &out));
  if (out.known_rank() && out.rank() != 5) {
    return errors::InvalidArgument(
        "orig_input_shape must have 5 elements, got ", out.ToString());
  }
  c->set_output(0, out.known_rank() ? out : PartialShape::Unknown(5));
  return Status::OK();
}

Status LrnShape(InferenceContext* c) {
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  c->set_output(0, input);
  return Status::OK();
}

Status LrnGradShape(InferenceContext* c) {
  PartialShape merged = PartialShape::Unknown(4);
  for (int i = 0; i < 3; ++i) {
    PartialShape s;
    TW_RETURN_IF_ERROR(c->WithRank(i, 4, &s));
    if (!merged.Merge(s, &merged).ok()) {
      return errors::InvalidArgument(
          "input_grads, input_image and output_image must have one shape, "
          "got ",
          c->InputShapesString());
    }
  }
  c->set_output(0, merged);
  return Status::OK();
}

// MaxPoolWithArgmax: the pooled output and its argmax, of one shape.
Status MaxPoolWithArgmaxShape(InferenceContext* c) {
  std::vector<int64_t> ksize, strides;
  TW_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(ksize, "ksize"));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(strides, "strides"));
  std::string padding;
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  std::vector<int64_t> dims = {input.dim(0), -1, -1, input.dim(3)};
  for (int i = 1; i <= 2; ++i) {
    int64_t pad;
    Status s = WindowedOutputSize(input.dim(i), ksize[i], strides[i], 1,
                                  padding, &dims[i], &pad);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), " (input shapes ",
                                     c->InputShapesString(), ")");
    }
  }
  c->set_output(0, PartialShape(dims));
  c->set_output(1, PartialShape(dims));
  return Status::OK();
}

// MaxPoolGradWithArgmax: the gradient has the input's shape; grad and argmax
// the pooled one.
Status MaxPoolGradWithArgmaxShape(InferenceContext* c) {
  PartialShape input, grad, argmax;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &grad));
  TW_RETURN_IF_ERROR(c->WithRank(2, 4, &argmax));
  if (!grad.IsCompatibleWith(argmax)) {
    return errors::InvalidArgument("grad and argmax must have one shape, got ",
                                   c->InputShapesString());
  }
  c->set_output(0, input);
  return Status::OK();
}

}  // namespace

#define TW_CONV3D_ATTRS                                  \
  Attr("T: {float32, float64}")                          \
      .Attr("strides: list(int)")                        \
      .Attr("padding: {'SAME', 'VALID'}")                \
      .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'") \
      .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")

REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .TW_CONV3D_ATTRS.SetShapeFn(Conv3DShape)
    .Doc(
        "3-D convolution (cross-correlation) of input [N,D,H,W,C] with filter "
        "[KD,KH,KW,C,M], giving [N,OD,OH,OW,M].");

REGISTER_OP("Conv3DBackpropInputV2")
    .Input("input_sizes: Tshape")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .TW_CONV3D_ATTRS.Attr("Tshape: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) { return Conv3DSizesShape(c, 0); })
    .Doc("The gradient of Conv3D with respect to its input.");

REGISTER_OP("Conv3DBackpropFilterV2")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .TW_CONV3D_ATTRS
    .SetShapeFn([](InferenceContext* c) { return Conv3DSizesShape(c, 1); })
    .Doc("The gradient of Conv3D with respect to its filter.");
#undef TW_CONV3D_ATTRS

#define TW_POOL3D_ATTRS                                  \
  Attr("ksize: list(int)")                               \
      .Attr("strides: list(int)")                        \
      .Attr("padding: {'SAME', 'VALID'}")                \
      .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'") \
      .Attr("T: {float32, float64}")

REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .TW_POOL3D_ATTRS.SetShapeFn(Pool3DShape)
    .Doc("The maximum over each window of input [N,D,H,W,C].");

REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .TW_POOL3D_ATTRS.SetShapeFn(Pool3DShape)
    .Doc(
        "The mean over each window of input [N,D,H,W,C]; SAME windows "
        "average only the elements inside the input.");

REGISTER_OP("MaxPool3DGrad")
    .Input("orig_input: TInput")
    .Input("orig_output: TInput")
    .Input("grad: T")
    .Output("output: T")
    .TW_POOL3D_ATTRS.Attr("TInput: {float32, float64} = float32")
    .SetShapeFn(MaxPool3DGradShape)
    .Doc(
        "MaxPool3D's backprop: each window's grad goes to the first position "
        "of its maximum in orig_input.");

REGISTER_OP("AvgPool3DGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .TW_POOL3D_ATTRS.SetShapeFn(AvgPool3DGradShape)
    .Doc("AvgPool3D's backprop: each window's grad spread evenly over it.");
#undef TW_POOL3D_ATTRS

REGISTER_OP("LRN")
    .Input("input: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1")
    .Attr("alpha: float = 1")
    .Attr("beta: float = 0.5")
    .Attr("T: {float32, float64} = float32")
    .SetShapeFn(LrnShape)
    .Doc(
        "Local response normalization of input [N,H,W,C] across channels: "
        "input / (bias + alpha * sqr_sum) ** beta, sqr_sum the sum of squares "
        "over channels [c - depth_radius, c + depth_radius].");

REGISTER_OP("LRNGrad")
    .Input("input_grads: T")
    .Input("input_image: T")
    .Input("output_image: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1")
    .Attr("alpha: float = 1")
    .Attr("beta: float = 0.5")
    .Attr("T: {float32, float64} = float32")
    .SetShapeFn(LrnGradShape)
    .Doc("LRN's backprop with respect to its input.");

REGISTER_OP("MaxPoolWithArgmax")
    .Input("input: T")
    .Output("output: T")
    .Output("argmax: Targmax")
    .Attr("ksize: list(int)")
    .Attr("strides: list(int)")
    .Attr("Targmax: {int32, int64} = int64")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("include_batch_in_index: bool = false")
    .Attr("T: {float32, float64}")
    .SetShapeFn(MaxPoolWithArgmaxShape)
    .Doc(
        "MaxPool of input [N,H,W,C] and the flat index of each maximum: "
        "((b * H + y) * W + x) * C + c, with b only when "
        "include_batch_in_index.");

REGISTER_OP("MaxPoolGradWithArgmax")
    .Input("input: T")
    .Input("grad: T")
    .Input("argmax: Targmax")
    .Output("output: T")
    .Attr("ksize: list(int)")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("include_batch_in_index: bool = false")
    .Attr("Targmax: {int32, int64}")
    .Attr("T: {float32, float64}")
    .SetShapeFn(MaxPoolGradWithArgmaxShape)
    .Doc(
        "MaxPoolWithArgmax's backprop: each grad element added at its argmax "
        "position of input's shape.");

}  // namespace tensorweave
