// Grayscale morphological dilation (Dilation2D) and its backprops, as
// TensorFlow defines them: input [N,H,W,C], filter [KH,KW,C].
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {
namespace {

Status Dilation2DShape(InferenceContext* c) {
  std::vector<int64_t> strides, rates;
  std::string padding;
  TW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TW_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(strides, "strides"));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(rates, "rates"));
  PartialShape input, filter;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 3, &filter));
  if (input.dim(3) >= 0 && filter.dim(2) >= 0 &&
      input.dim(3) != filter.dim(2)) {
    return errors::InvalidArgument(
        "input depth ", input.dim(3), " does not match the filter's depth ",
        filter.dim(2), " (", c->InputShapesString(), ")");
  }
  std::vector<int64_t> dims = {
      input.dim(0), -1, -1, input.dim(3) >= 0 ? input.dim(3) : filter.dim(2)};
  for (int i = 1; i <= 2; ++i) {
    if (filter.dim(i - 1) < 0) continue;
    int64_t pad;
    Status s = WindowedOutputSize(input.dim(i), filter.dim(i - 1), strides[i],
                                  rates[i], padding, &dims[i], &pad);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), " (input shapes ",
                                     c->InputShapesString(), ")");
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// A backprop's output: the shape of input `i` (input or filter).
Status BackpropShape(InferenceContext* c, int i) {
  TW_RETURN_IF_ERROR(Dilation2DShape(c));
  PartialShape grad;
  TW_RETURN_IF_ERROR(c->WithRank(2, 4, &grad));
  if (!c->output(0).IsCompatibleWith(grad)) {
    return errors::InvalidArgument("out_backprop must have the output shape ",
                                   c->output(0).ToString(), ", got ",
                                   c->InputShapesString());
  }
  c->set_output(0, c->input(i));
  return Status::OK();
}

}  // namespace

#define TW_DILATION_ATTRS                     \
  Attr("T: {float32, float64, int32, int64}") \
      .Attr("strides: list(int)")             \
      .Attr("rates: list(int)")               \
      .Attr("padding: {'SAME', 'VALID'}")

REGISTER_OP("Dilation2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .TW_DILATION_ATTRS.SetShapeFn(Dilation2DShape)
    .Doc(
        "Grayscale dilation: output[b, y, x, c] = max over the in-bounds taps "
        "(dy, dx) of input[b, y * stride + dy * rate - pad, ...] + "
        "filter[dy, dx, c].");

REGISTER_OP("Dilation2DBackpropInput")
    .Input("input: T")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("in_backprop: T")
    .TW_DILATION_ATTRS
    .SetShapeFn([](InferenceContext* c) { return BackpropShape(c, 0); })
    .Doc(
        "Dilation2D's gradient with respect to input: each out_backprop "
        "element goes to the input position of its window's first maximum.");

REGISTER_OP("Dilation2DBackpropFilter")
    .Input("input: T")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("filter_backprop: T")
    .TW_DILATION_ATTRS
    .SetShapeFn([](InferenceContext* c) { return BackpropShape(c, 1); })
    .Doc(
        "Dilation2D's gradient with respect to filter: each out_backprop "
        "element goes to the filter tap of its window's first maximum.");
#undef TW_DILATION_ATTRS

}  // namespace tensorweave
