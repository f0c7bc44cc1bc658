// Math ops: element-wise arithmetic with numpy broadcasting, casts and
// matrix products.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status MatMulShape(InferenceContext* c) {
  PartialShape a, b;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &a));
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &b));
  bool transpose_a, transpose_b;
  TW_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  TW_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  int64_t m = a.dim(transpose_a ? 1 : 0), ka = a.dim(transpose_a ? 0 : 1);
  int64_t kb = b.dim(transpose_b ? 1 : 0), n = b.dim(transpose_b ? 0 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return errors::InvalidArgument("Dimensions must be equal, but are ", ka,
                                   " and ", kb);
  }
  c->set_output(0, PartialShape({m, n}));
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
TW_BINARY_OP("Sub", "numbertype", "x - y, with numpy broadcasting.");
TW_BINARY_OP("Mul", "numbertype", "x * y, with numpy broadcasting.");
TW_BINARY_OP("Div", "numbertype",
             "x / y, with numpy broadcasting; integer division rounds toward "
             "zero (use FloorDiv for Python's //).");
#undef TW_BINARY_OP

REGISTER_OP("Neg")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float32, float64, int32, int64}")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("-x, element-wise.");

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: {float32, float64, int32, int64, uint8, bool}")
    .Attr("DstT: {float32, float64, int32, int64, uint8, bool}")
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
    .Attr("T: {float32, float64, int32, int64}")
    .SetShapeFn(MatMulShape)
    .Doc("The matrix product of a and b (each optionally transposed).");

}  // namespace tensorweave
