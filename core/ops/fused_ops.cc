// Fused ops the graph optimizer's remapping pass creates (TensorFlow's
// internal _FusedMatMul and _FusedConv2D, with TF1's inputs and attrs): a
// product or convolution followed by the ops `fused_ops` names, applied as
// the result is written. Supported fused_ops: ["BiasAdd"] and ["BiasAdd",
// A] with A one of Relu, Relu6, Elu, Tanh, Sigmoid; args holds the bias.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {
namespace {

Status CheckFusedOps(InferenceContext* c) {
  std::vector<std::string> fused_ops;
  TW_RETURN_IF_ERROR(c->GetAttr("fused_ops", &fused_ops));
  int64_t num_args;
  TW_RETURN_IF_ERROR(c->GetAttr("num_args", &num_args));
  static const std::set<std::string> activations = {"Relu", "Relu6", "Elu",
                                                    "Tanh", "Sigmoid"};
  const bool ok = !fused_ops.empty() && fused_ops[0] == "BiasAdd" &&
                  fused_ops.size() <= 2 && num_args == 1 &&
                  (fused_ops.size() == 1 || activations.count(fused_ops[1]));
  if (!ok) {
    std::string names;
    for (const std::string& op : fused_ops) names += op + ",";
    return errors::Unimplemented(
        "fused_ops must be [BiasAdd] or [BiasAdd, Relu|Relu6|Elu|Tanh|"
        "Sigmoid] with num_args 1, got [",
        names, "] with num_args ", num_args);
  }
  return Status::OK();
}

// The bias (input 2) is a vector of the output's depth `depth`.
Status CheckBias(InferenceContext* c, int64_t depth) {
  PartialShape bias;
  TW_RETURN_IF_ERROR(c->WithRank(2, 1, &bias));
  if (depth >= 0 && bias.dim(0) >= 0 && bias.dim(0) != depth) {
    return errors::InvalidArgument("bias has ", bias.dim(0),
                                   " elements, the output's depth is ", depth);
  }
  return Status::OK();
}

Status FusedMatMulShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(CheckFusedOps(c));
  PartialShape a, b;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &a));
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &b));
  bool ta, tb;
  TW_RETURN_IF_ERROR(c->GetAttr("transpose_a", &ta));
  TW_RETURN_IF_ERROR(c->GetAttr("transpose_b", &tb));
  const int64_t m = a.dim(ta ? 1 : 0), k = a.dim(ta ? 0 : 1);
  const int64_t k2 = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  if (k >= 0 && k2 >= 0 && k != k2) {
    return errors::InvalidArgument("Matrix size-incompatible: In[0]: ",
                                   a.ToString(), ", In[1]: ", b.ToString());
  }
  TW_RETURN_IF_ERROR(CheckBias(c, n));
  c->set_output(0, PartialShape({m, n}));
  return Status::OK();
}

Status FusedConv2DShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(CheckFusedOps(c));
  std::string data_format, padding;
  std::vector<int64_t> strides, dilations;
  TW_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TW_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
  if (data_format != "NHWC") {
    return errors::InvalidArgument("only data_format NHWC is supported, got ",
                                   data_format);
  }
  TW_RETURN_IF_ERROR(CheckNhwcAttr(strides, "strides"));
  TW_RETURN_IF_ERROR(CheckNhwcAttr(dilations, "dilations"));
  PartialShape input, filter;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &filter));
  if (input.dim(3) >= 0 && filter.dim(2) >= 0 &&
      input.dim(3) != filter.dim(2)) {
    return errors::InvalidArgument("input depth ", input.dim(3),
                                   " does not match the filter's in_channels ",
                                   filter.dim(2));
  }
  std::vector<int64_t> explicit_paddings;
  TW_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &explicit_paddings));
  TW_RETURN_IF_ERROR(CheckExplicitPaddings(padding, explicit_paddings));
  int64_t rows = -1, cols = -1;
  if (filter.dim(0) >= 0 && filter.dim(1) >= 0) {
    Window2D w = MakeWindow2D(input.dim(1), input.dim(2), filter.dim(0),
                              filter.dim(1), strides, dilations);
    TW_RETURN_IF_ERROR(w.Compute(padding, explicit_paddings));
    rows = w.out_rows;
    cols = w.out_cols;
  }
  TW_RETURN_IF_ERROR(CheckBias(c, filter.dim(3)));
  c->set_output(0, PartialShape({input.dim(0), rows, cols, filter.dim(3)}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("args: num_args * T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float32, float64}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .SetShapeFn(FusedMatMulShape)
    .Doc(
        "MatMul(a, b) followed by fused_ops (BiasAdd with args[0], then an "
        "optional activation), computed in one pass over the product; made "
        "by the graph optimizer's remapping.");

REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {float32, float64}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .SetShapeFn(FusedConv2DShape)
    .Doc(
        "Conv2D(input, filter) followed by fused_ops (BiasAdd with args[0], "
        "then an optional activation) applied as the output is written; made "
        "by the graph optimizer's remapping.");

}  // namespace tensorweave
