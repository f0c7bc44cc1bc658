// More element-wise math (TensorFlow's tf.math): trigonometric and
// hyperbolic functions and their inverses, the error and gamma functions,
// predicates on floats, safe divisions, and the cumulative scans.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// Cumsum / Cumprod: the output has the input's shape; the axis is a scalar
// (checked against the input's rank when the op runs, as TensorFlow).
Status ScanShape(InferenceContext* c) {
  PartialShape axis_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &axis_shape));
  c->set_output(0, c->input(0));
  return Status::OK();
}

}  // namespace

#define TW_UNARY_FLOAT_OP(Name, DocText) \
  REGISTER_OP(Name)                      \
      .Input("x: T")                     \
      .Output("y: T")                    \
      .Attr("T: {floattype}")            \
      .SetShapeFn(shape_fns::Unchanged)  \
      .Doc(DocText)

#define TW_UNARY_FLOAT_COMPLEX_OP(Name, DocText)      \
  REGISTER_OP(Name)                                   \
      .Input("x: T")                                  \
      .Output("y: T")                                 \
      .Attr("T: {floattype, complex64, complex128}")  \
      .SetShapeFn(shape_fns::Unchanged)               \
      .Doc(DocText                                    \
           " Of complex x: the principal value, the " \
           "branch cuts as C++'s <complex>.")

TW_UNARY_FLOAT_COMPLEX_OP("Sin", "The sine of x (radians), element-wise.");
TW_UNARY_FLOAT_COMPLEX_OP("Cos", "The cosine of x (radians), element-wise.");
TW_UNARY_FLOAT_COMPLEX_OP("Tan", "The tangent of x (radians), element-wise.");
TW_UNARY_FLOAT_COMPLEX_OP("Asin",
                          "The inverse sine of x, in [-pi/2, pi/2] for real "
                          "x.");
TW_UNARY_FLOAT_COMPLEX_OP("Acos",
                          "The inverse cosine of x, in [0, pi] for real x.");
TW_UNARY_FLOAT_COMPLEX_OP("Atan",
                          "The inverse tangent of x, in (-pi/2, pi/2) for real "
                          "x.");
TW_UNARY_FLOAT_COMPLEX_OP("Sinh", "The hyperbolic sine of x.");
TW_UNARY_FLOAT_COMPLEX_OP("Cosh", "The hyperbolic cosine of x.");
TW_UNARY_FLOAT_COMPLEX_OP("Asinh", "The inverse hyperbolic sine of x.");
TW_UNARY_FLOAT_COMPLEX_OP("Acosh",
                          "The inverse hyperbolic cosine of x (NaN below 1 for "
                          "real x).");
TW_UNARY_FLOAT_COMPLEX_OP("Atanh",
                          "The inverse hyperbolic tangent of x (NaN outside "
                          "[-1, 1] for real x).");
TW_UNARY_FLOAT_COMPLEX_OP("Expm1", "exp(x) - 1, accurate near 0.");
#undef TW_UNARY_FLOAT_COMPLEX_OP

TW_UNARY_FLOAT_OP("Erf", "The Gauss error function of x.");
TW_UNARY_FLOAT_OP("Erfc", "1 - erf(x), accurate where erf(x) is near 1.");
TW_UNARY_FLOAT_OP("Erfinv", "The inverse of erf, on [-1, 1] (NaN outside).");
TW_UNARY_FLOAT_OP("Ndtri",
                  "The inverse of the standard normal CDF, on [0, 1] (NaN "
                  "outside).");
TW_UNARY_FLOAT_OP("Lgamma", "log(|Gamma(x)|).");
TW_UNARY_FLOAT_OP("Digamma", "The derivative of Lgamma (the psi function).");
TW_UNARY_FLOAT_OP("Rint",
                  "x rounded to the nearest integer, halves to even (as "
                  "numpy's rint).");
TW_UNARY_FLOAT_OP("BesselI0e", "exp(-|x|) * I0(x), the scaled Bessel I0.");
TW_UNARY_FLOAT_OP("BesselI1e", "exp(-|x|) * I1(x), the scaled Bessel I1.");
TW_UNARY_FLOAT_OP("BesselI0",
                  "The modified Bessel function of order 0, I0(x).");
TW_UNARY_FLOAT_OP("BesselI1",
                  "The modified Bessel function of order 1, I1(x).");
#undef TW_UNARY_FLOAT_OP

#define TW_FLOAT_PREDICATE_OP(Name, DocText) \
  REGISTER_OP(Name)                          \
      .Input("x: T")                         \
      .Output("y: bool")                     \
      .Attr("T: {floattype}")                \
      .SetShapeFn(shape_fns::Unchanged)      \
      .Doc(DocText)

TW_FLOAT_PREDICATE_OP("IsNan", "Whether x is NaN, element-wise.");
TW_FLOAT_PREDICATE_OP("IsInf", "Whether x is +inf or -inf, element-wise.");
TW_FLOAT_PREDICATE_OP("IsFinite",
                      "Whether x is neither NaN nor infinite, element-wise.");
#undef TW_FLOAT_PREDICATE_OP

#define TW_BINARY_MATH_OP(Name, In0, In1, Out, Types, DocText) \
  REGISTER_OP(Name)                                            \
      .Input(In0 ": T")                                        \
      .Input(In1 ": T")                                        \
      .Output(Out ": T")                                       \
      .Attr("T: {" Types "}")                                  \
      .SetShapeFn(shape_fns::BroadcastBinary)                  \
      .Doc(DocText)

TW_BINARY_MATH_OP("Atan2", "y", "x", "z", "floattype",
                  "The angle of the point (x, y) from the x axis, in [-pi, "
                  "pi], with numpy broadcasting.");
TW_BINARY_MATH_OP("Xdivy", "x", "y", "z", "floattype, complex64, complex128",
                  "0 where x == 0, else x / y, with numpy broadcasting.");
TW_BINARY_MATH_OP("Xlogy", "x", "y", "z", "floattype, complex64, complex128",
                  "0 where x == 0, else x * log(y), with numpy broadcasting.");
TW_BINARY_MATH_OP("Xlog1py", "x", "y", "z", "floattype, complex64, complex128",
                  "0 where x == 0, else x * log1p(y), with numpy "
                  "broadcasting.");
TW_BINARY_MATH_OP("DivNoNan", "x", "y", "z", "floattype, complex64, complex128",
                  "0 where y == 0, else x / y, with numpy broadcasting.");
TW_BINARY_MATH_OP("MulNoNan", "x", "y", "z", "floattype, complex64, complex128",
                  "0 where y == 0 (even when x is NaN or inf), else x * y, "
                  "with numpy broadcasting.");
TW_BINARY_MATH_OP("TruncateDiv", "x", "y", "z", "numbertype",
                  "x / y rounded toward zero (C's integer division; an "
                  "integer zero divisor is an error).");
TW_BINARY_MATH_OP("TruncateMod", "x", "y", "z",
                  "float32, float64, int32, int64",
                  "The remainder of x / y rounded toward zero (C's %, fmod): "
                  "it has the sign of x; an integer zero divisor is an "
                  "error.");
TW_BINARY_MATH_OP("Igamma", "a", "x", "z", "float32, float64",
                  "The regularized lower incomplete gamma function P(a, x).");
TW_BINARY_MATH_OP("Igammac", "a", "x", "z", "float32, float64",
                  "The regularized upper incomplete gamma function Q(a, x).");
TW_BINARY_MATH_OP("Zeta", "x", "q", "z", "float32, float64",
                  "The Hurwitz zeta function sum((n + q) ** -x).");
TW_BINARY_MATH_OP("Polygamma", "a", "x", "z", "float32, float64",
                  "The a-th derivative of the digamma function at x.");
TW_BINARY_MATH_OP("NextAfter", "x1", "x2", "output", "float32, float64",
                  "The next representable value after x1 toward x2.");
#undef TW_BINARY_MATH_OP

REGISTER_OP("Betainc")
    .Input("a: T")
    .Input("b: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {float32, float64}")
    .SetShapeFn([](InferenceContext* c) {
      // As TensorFlow: the three shapes are equal, or some are scalars.
      PartialShape out = PartialShape::UnknownRank();
      for (int i = 0; i < 3; ++i) {
        const PartialShape& s = c->input(i);
        if (s.known_rank() && s.rank() == 0) continue;
        Status merged = out.Merge(s, &out);
        if (!merged.ok()) {
          return errors::InvalidArgument(
              "Betainc: a, b and x must have one shape or be scalars, got ",
              c->InputShapesString());
        }
      }
      if (!out.known_rank()) {
        bool all_scalars = true;
        for (int i = 0; i < 3; ++i) {
          all_scalars &= c->input(i).known_rank() && c->input(i).rank() == 0;
        }
        if (all_scalars) out = PartialShape(std::vector<int64_t>{});
      }
      c->set_output(0, out);
      return Status::OK();
    })
    .Doc("The regularized incomplete beta function I_x(a, b).");

#define TW_SCAN_OP(Name, DocText)                \
  REGISTER_OP(Name)                              \
      .Input("x: T")                             \
      .Input("axis: Tidx")                       \
      .Output("out: T")                          \
      .Attr("exclusive: bool = false")           \
      .Attr("reverse: bool = false")             \
      .Attr("T: {numbertype}")                   \
      .Attr("Tidx: {int32, int64} = int32")      \
      .SetShapeFn(ScanShape)                     \
      .Doc(DocText                               \
           " along `axis` (a scalar, negative "  \
           "counts from the end); `exclusive` "  \
           "leaves each element out of its own " \
           "result, `reverse` runs from the end.")

TW_SCAN_OP("Cumsum", "The cumulative sum");
TW_SCAN_OP("Cumprod", "The cumulative product");
#undef TW_SCAN_OP

REGISTER_OP("CumulativeLogsumexp")
    .Input("x: T")
    .Input("axis: Tidx")
    .Output("out: T")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Attr("T: {float16, float32, float64}")
    .Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn(ScanShape)
    .Doc(
        "The cumulative log(sum(exp(x))) along `axis`, computed stably; "
        "`exclusive` and `reverse` as in Cumsum (an empty sum is -inf).");

}  // namespace tensorweave
