// Math ops: element-wise arithmetic with numpy broadcasting, casts and
// matrix products.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// Equal/NotEqual: with incompatible_shape_error false, shapes that do not
// broadcast give a scalar, so only fully known shapes fix the output's.
Status EqualityShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  TW_RETURN_IF_ERROR(
      c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  if (incompatible_shape_error) return shape_fns::BroadcastBinary(c);
  PartialShape out;
  Status s = InferenceContext::BroadcastShapes(c->input(0), c->input(1), &out);
  if (c->input(0).IsFullyDefined() && c->input(1).IsFullyDefined()) {
    c->set_output(0, s.ok() ? out : PartialShape({}));
  } else {
    c->set_output(0, PartialShape::UnknownRank());
  }
  return Status::OK();
}

Status MatMulShape(InferenceContext* c) {
  PartialShape product;
  TW_RETURN_IF_ERROR(shape_fns::MatMulProduct(c, 0, 1, &product));
  c->set_output(0, product);
  return Status::OK();
}

// Select (TF1's tf.where(c, t, e)): t and e of one shape; the condition is a
// scalar, of that shape, or a vector picking whole rows of t and e.
Status SelectShape(InferenceContext* c) {
  const PartialShape& t = c->input(1);
  const PartialShape& e = c->input(2);
  if (t.known_rank() && e.known_rank()) {  // TF's Merge wording
    if (t.rank() != e.rank()) {
      return errors::InvalidArgument("Shapes must be equal rank, but are ",
                                     t.rank(), " and ", e.rank());
    }
    for (int i = 0; i < t.rank(); ++i) {
      if (t.dim(i) >= 0 && e.dim(i) >= 0 && t.dim(i) != e.dim(i)) {
        return errors::InvalidArgument(
            "Dimension ", i, " in both shapes must be equal, but are ",
            t.dim(i), " and ", e.dim(i), ". Shapes are ", t.ToString(), " and ",
            e.ToString(), ".");
      }
    }
  }
  PartialShape data;
  TW_RETURN_IF_ERROR(c->input(1).Merge(c->input(2), &data));
  const PartialShape& cond = c->input(0);
  if (cond.known_rank() && data.known_rank() && cond.rank() != 0) {
    if (cond.rank() == 1 && data.rank() > 1) {
      if (cond.dim(0) >= 0 && data.dim(0) >= 0 && cond.dim(0) != data.dim(0)) {
        return errors::InvalidArgument(
            "Select: a vector condition of length ", cond.dim(0),
            " must match the first dimension of t and e, ", data.ToString());
      }
    } else if (!cond.IsCompatibleWith(data)) {
      return errors::InvalidArgument(
          "Select: the condition must be a scalar, a vector over the first "
          "dimension, or of the shape of t and e; got ",
          cond.ToString(), " and ", data.ToString());
    }
  }
  c->set_output(0, data);
  return Status::OK();
}

Status SelectV2Shape(InferenceContext* c) {
  PartialShape te, out;
  TW_RETURN_IF_ERROR(
      InferenceContext::BroadcastShapes(c->input(1), c->input(2), &te));
  TW_RETURN_IF_ERROR(InferenceContext::BroadcastShapes(c->input(0), te, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status AddNShape(InferenceContext* c) {
  PartialShape out = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) {
    Status s = out.Merge(c->input(i), &out);
    if (!s.ok()) {
      return errors::InvalidArgument(
          "AddN: all inputs must have one shape, got ", c->InputShapesString());
    }
  }
  c->set_output(0, out);
  return Status::OK();
}

Status ClipByValueShape(InferenceContext* c) {
  const PartialShape& t = c->input(0);
  for (int i = 1; i < 3; ++i) {
    const PartialShape& bound = c->input(i);
    if (bound.known_rank() && bound.rank() != 0 && !bound.IsCompatibleWith(t)) {
      return errors::InvalidArgument("ClipByValue: clip_value_",
                                     i == 1 ? "min" : "max",
                                     " must be a scalar or of the shape of t, ",
                                     t.ToString(), ", got ", bound.ToString());
    }
  }
  c->set_output(0, t);
  return Status::OK();
}

Status ReductionShape(InferenceContext* c) {
  bool keep_dims;
  TW_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const PartialShape& in = c->input(0);
  const PartialShape& axes_shape = c->input(1);
  if (axes_shape.known_rank() && axes_shape.rank() > 1) {
    return errors::InvalidArgument(
        "reduction_indices must be a scalar or "
        "a vector, got shape ",
        axes_shape.ToString());
  }
  const Tensor* axes_value = c->input_value(1);
  if (!in.known_rank() || axes_value == nullptr) {
    if (in.known_rank() && keep_dims) {
      c->set_output(0, PartialShape::Unknown(in.rank()));
    } else {
      c->set_output(0, PartialShape::UnknownRank());
    }
    return Status::OK();
  }
  std::vector<int64_t> axes;
  TW_RETURN_IF_ERROR(ReadIndexVector(*axes_value, &axes));
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t axis : axes) {
    if (axis < -in.rank() || axis >= in.rank()) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis,
                                     " for input with ", in.rank(),
                                     " dimensions.");
    }
    int64_t a = axis < 0 ? axis + in.rank() : axis;
    if (reduced[a]) {
      return errors::InvalidArgument("Duplicate reduction dimension ", axis);
    }
    reduced[a] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) {
      dims.push_back(in.dim(i));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ArgReductionShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (in.rank() == 0) {
    return errors::InvalidArgument("ArgMax/ArgMin need an input of rank >= 1");
  }
  const Tensor* axis_value = c->input_value(1);
  if (axis_value == nullptr) {
    c->set_output(0, PartialShape::Unknown(in.rank() - 1));
    return Status::OK();
  }
  std::vector<int64_t> axis;
  TW_RETURN_IF_ERROR(ReadIndexVector(*axis_value, &axis));
  if (axis[0] < -in.rank() || axis[0] >= in.rank()) {
    return errors::InvalidArgument(
        "Dimension (", axis[0], ") must be in the range [", -in.rank(), ", ",
        in.rank(), "), where ", in.rank(),
        " is the number of dimensions in the input.");
  }
  int64_t a = axis[0] < 0 ? axis[0] + in.rank() : axis[0];
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != a) dims.push_back(in.dim(i));
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status BroadcastGradientArgsShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &unused));
  c->set_output(0, PartialShape::Unknown(1));
  c->set_output(1, PartialShape::Unknown(1));
  return Status::OK();
}

// BatchMatMulV2: matrices in the last two dims, batch dims broadcast.
Status BatchMatMulShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 2));
  const PartialShape& x = c->input(0);
  const PartialShape& y = c->input(1);
  if (!x.known_rank() || !y.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  bool adj_x, adj_y;
  TW_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  TW_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  const int xr = x.rank(), yr = y.rank();
  int64_t m = x.dim(adj_x ? xr - 1 : xr - 2);
  int64_t kx = x.dim(adj_x ? xr - 2 : xr - 1);
  int64_t ky = y.dim(adj_y ? yr - 1 : yr - 2);
  int64_t n = y.dim(adj_y ? yr - 2 : yr - 1);
  if (kx >= 0 && ky >= 0 && kx != ky) {
    return errors::InvalidArgument(
        "BatchMatMul: inner dimensions must be equal, but are ", kx, " and ",
        ky, " for shapes ", x.ToString(), " and ", y.ToString());
  }
  PartialShape batch;
  Status s = InferenceContext::BroadcastShapes(
      PartialShape(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2)),
      PartialShape(std::vector<int64_t>(y.dims().begin(), y.dims().end() - 2)),
      &batch);
  if (!s.ok()) {
    return errors::InvalidArgument(
        "BatchMatMul: batch dimensions do not broadcast: ", x.ToString(),
        " and ", y.ToString());
  }
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

#define TW_BINARY_OP(Name, Types, DocText)    \
  REGISTER_OP(Name)                           \
      .Input("x: T")                          \
      .Input("y: T")                          \
      .Output("z: T")                         \
      .Attr("T: {" Types "}")                 \
      .SetShapeFn(shape_fns::BroadcastBinary) \
      .Doc(DocText)

TW_BINARY_OP("Add", "numbertype", "x + y, with numpy broadcasting.");
// What TensorFlow 1.15 and compat.v1 build for `+` (graphs they wrote name
// it); the same computation as Add.
TW_BINARY_OP("AddV2", "numbertype", "x + y, with numpy broadcasting.");
TW_BINARY_OP("Sub", "numbertype", "x - y, with numpy broadcasting.");
TW_BINARY_OP("Mul", "numbertype", "x * y, with numpy broadcasting.");
TW_BINARY_OP("Div", "numbertype",
             "x / y, with numpy broadcasting; integer division rounds toward "
             "zero (use FloorDiv for Python's //); an integer zero divisor is "
             "an error.");
TW_BINARY_OP("RealDiv", "numbertype",
             "x / y, with numpy broadcasting (as Div; the op tf.truediv "
             "emits for floats).");
TW_BINARY_OP("FloorDiv", "numbertype",
             "floor(x / y), with numpy broadcasting (Python's //); an integer "
             "zero divisor is an error.");
TW_BINARY_OP("FloorMod", "realnumbertype",
             "x - floor(x / y) * y, with numpy broadcasting (Python's %: the "
             "result has the sign of y); an integer zero divisor is an "
             "error.");
TW_BINARY_OP("Maximum", "realnumbertype",
             "max(x, y), with numpy broadcasting.");
TW_BINARY_OP("Minimum", "realnumbertype",
             "min(x, y), with numpy broadcasting.");
TW_BINARY_OP("Pow",
             "float16, bfloat16, float32, float64, int8, int16, int32, int64, "
             "complex64, "
             "complex128",
             "x ** y, with numpy broadcasting; an integer to a negative "
             "integer power truncates toward zero (1, -1 or 0).");
TW_BINARY_OP(
    "SquaredDifference",
    "float16, bfloat16, float32, float64, int32, int64, complex64, complex128",
    "(x - y) ** 2, with numpy broadcasting; of complex dtypes "
    "|x - y| ** 2 = (x - y) * conj(x - y), as TensorFlow.");

// The derivatives of unary ops written in terms of their outputs y and the
// incoming gradient dy (TensorFlow's *Grad ops).
TW_BINARY_OP("TanhGrad", "float32, float64, bfloat16, complex64, complex128",
             "dy * (1 - y * y), y = tanh(x).");
TW_BINARY_OP("SigmoidGrad", "float32, float64, bfloat16, complex64, complex128",
             "dy * y * (1 - y), y = sigmoid(x).");
TW_BINARY_OP("SqrtGrad", "float32, float64, bfloat16, complex64, complex128",
             "dy * 0.5 / y, y = sqrt(x).");
TW_BINARY_OP("RsqrtGrad", "float32, float64, bfloat16, complex64, complex128",
             "dy * -0.5 * y ** 3, y = rsqrt(x).");
TW_BINARY_OP("ReciprocalGrad",
             "float32, float64, bfloat16, complex64, complex128",
             "-dy * y * y, y = 1 / x.");
TW_BINARY_OP("InvGrad", "float32, float64, bfloat16, complex64, complex128",
             "-dy * y * y, y = 1 / x (as ReciprocalGrad).");
#undef TW_BINARY_OP

#define TW_COMPARISON_OP(Name, Types, DocText) \
  REGISTER_OP(Name)                            \
      .Input("x: T")                           \
      .Input("y: T")                           \
      .Output("z: bool")                       \
      .Attr("T: {" Types "}")                  \
      .SetShapeFn(shape_fns::BroadcastBinary)  \
      .Doc(DocText)

// Equal and NotEqual take TF's incompatible_shape_error: when false, shapes
// that do not broadcast give a scalar false (Equal) or true (NotEqual).
REGISTER_OP("Equal")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: {numbertype, bool, string}")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn(EqualityShape)
    .Doc(
        "x == y element-wise, with numpy broadcasting; shapes that do not "
        "broadcast give a scalar false when incompatible_shape_error is "
        "false.");
REGISTER_OP("NotEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: {numbertype, bool, string}")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn(EqualityShape)
    .Doc(
        "x != y element-wise, with numpy broadcasting; shapes that do not "
        "broadcast give a scalar true when incompatible_shape_error is "
        "false.");
TW_COMPARISON_OP("Less", "realnumbertype", "x < y, with numpy broadcasting.");
TW_COMPARISON_OP("LessEqual", "realnumbertype",
                 "x <= y, with numpy broadcasting.");
TW_COMPARISON_OP("Greater", "realnumbertype",
                 "x > y, with numpy broadcasting.");
TW_COMPARISON_OP("GreaterEqual", "realnumbertype",
                 "x >= y, with numpy broadcasting.");
#undef TW_COMPARISON_OP

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("x AND y element-wise, with numpy broadcasting.");

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("x OR y element-wise, with numpy broadcasting.");

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("NOT x element-wise.");

#define TW_UNARY_OP(Name, Types, DocText) \
  REGISTER_OP(Name)                       \
      .Input("x: T")                      \
      .Output("y: T")                     \
      .Attr("T: {" Types "}")             \
      .SetShapeFn(shape_fns::Unchanged)   \
      .Doc(DocText)

TW_UNARY_OP("Neg",
            "float16, bfloat16, float32, float64, int8, int16, int32, int64, "
            "complex64, "
            "complex128",
            "-x, element-wise.");
TW_UNARY_OP("Abs",
            "float16, bfloat16, float32, float64, int8, int16, int32, int64",
            "|x|, element-wise.");
TW_UNARY_OP("Sign",
            "float16, bfloat16, float32, float64, int8, int16, int32, int64, "
            "complex64, "
            "complex128",
            "-1, 0 or 1 by the sign of x, element-wise (0 for NaN's sign "
            "is NaN).");
TW_UNARY_OP("Square", "numbertype", "x * x, element-wise.");
TW_UNARY_OP("Exp", "floattype, complex64, complex128", "e ** x, element-wise.");
TW_UNARY_OP("Log", "floattype, complex64, complex128",
            "The natural logarithm of x.");
TW_UNARY_OP("Log1p", "floattype, complex64, complex128",
            "log(1 + x), accurate near 0.");
TW_UNARY_OP("Sqrt", "floattype, complex64, complex128",
            "The square root of x.");
TW_UNARY_OP("Rsqrt", "floattype, complex64, complex128", "1 / sqrt(x).");
TW_UNARY_OP("Reciprocal", "floattype, complex64, complex128", "1 / x.");
// TensorFlow's older name of Reciprocal (graphs it wrote may hold it).
TW_UNARY_OP("Inv", "floattype, complex64, complex128",
            "1 / x (as Reciprocal).");
TW_UNARY_OP("Tanh", "floattype, complex64, complex128",
            "The hyperbolic tangent of x.");
TW_UNARY_OP("Sigmoid", "floattype, complex64, complex128",
            "1 / (1 + exp(-x)).");
TW_UNARY_OP("Floor", "floattype", "The largest integer <= x.");
TW_UNARY_OP("Ceil", "floattype", "The smallest integer >= x.");
// Complex dtypes are in Round's list, as in TensorFlow's, with no kernel: an
// error when run (InvalidArgument, as TensorFlow's), not when built.
TW_UNARY_OP("Round", "floattype, complex64, complex128",
            "x rounded to the nearest integer, halves to even (banker's "
            "rounding, as TensorFlow and numpy).");
#undef TW_UNARY_OP

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: {numbertype, bool}")
    .Attr("DstT: {numbertype, bool}")
    .Attr("Truncate: bool = false")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc(
        "x converted to DstT element-wise (C++ conversion rules: floats "
        "truncate toward zero when cast to integers).");

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, float32, float64, int32, int64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(MatMulShape)
    .Doc(
        "The matrix product of a and b (each optionally transposed). grad_a "
        "and grad_b are TF's hints that the op computes a gradient; "
        "accepted and ignored.");

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape)
    .Doc(
        "t where condition, else e (TF1's where(c, t, e)): the condition is a "
        "scalar, of the shape of t and e, or a vector choosing rows.");

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape)
    .Doc("t where condition, else e, all three broadcast as numpy does.");

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype}")
    .SetShapeFn(AddNShape)
    .Doc("The element-wise sum of N tensors of one shape.");

REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: {numbertype}")
    .SetShapeFn(ClipByValueShape)
    .Doc(
        "min(max(t, clip_value_min), clip_value_max); each bound is a scalar "
        "or of the shape of t.");

#define TW_REDUCTION_OP(Name, Types, DocText)                      \
  REGISTER_OP(Name)                                                \
      .Input("input: T")                                           \
      .Input("reduction_indices: Tidx")                            \
      .Output("output: T")                                         \
      .Attr("keep_dims: bool = false")                             \
      .Attr("T: {" Types "}")                                      \
      .Attr("Tidx: {int32, int64} = int32")                        \
      .SetShapeFn(ReductionShape)                                  \
      .Doc(DocText                                                 \
           " over the axes in reduction_indices (negative counts " \
           "from the end; duplicates are an error); keep_dims "    \
           "leaves them as size 1.")

TW_REDUCTION_OP("Sum", "numbertype", "The sum");
TW_REDUCTION_OP("Mean", "numbertype",
                "The mean (integer means divide with truncation)");
TW_REDUCTION_OP("Prod", "numbertype", "The product");
TW_REDUCTION_OP("Max", "numbertype", "The maximum");
TW_REDUCTION_OP("Min", "numbertype", "The minimum");
TW_REDUCTION_OP("All", "bool", "The logical AND");
TW_REDUCTION_OP("Any", "bool", "The logical OR");
#undef TW_REDUCTION_OP

REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {numbertype}")
    .Attr("Tidx: {int32, int64} = int32")
    .Attr("output_type: {int32, int64} = int64")
    .SetShapeFn(ArgReductionShape)
    .Doc(
        "The index of the largest value along `dimension` (the first on "
        "ties).");

REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {numbertype}")
    .Attr("Tidx: {int32, int64} = int32")
    .Attr("output_type: {int32, int64} = int64")
    .SetShapeFn(ArgReductionShape)
    .Doc(
        "The index of the smallest value along `dimension` (the first on "
        "ties).");

REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = int32")
    .SetShapeFn(BroadcastGradientArgsShape)
    .Doc(
        "For shapes s0 and s1 that broadcast together: the axes of the "
        "broadcast shape that the gradients of each must be summed over.");

REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, float32, float64, int32, int64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulShape)
    .Doc(
        "Matrix products over the last two dims of x and y (each optionally "
        "transposed), the leading batch dims broadcast as numpy does.");

}  // namespace tensorweave
