// Bitwise ops (TensorFlow's tf.bitwise and tf.math.popcount) over the
// integer dtypes: element-wise, the binary ones with numpy broadcasting.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

#define TW_BITWISE_TYPES \
  "int8, int16, int32, int64, uint8, uint16, uint32, uint64"

#define TW_BITWISE_BINARY_OP(Name, DocText)   \
  REGISTER_OP(Name)                           \
      .Input("x: T")                          \
      .Input("y: T")                          \
      .Output("z: T")                         \
      .Attr("T: {" TW_BITWISE_TYPES "}")      \
      .SetShapeFn(shape_fns::BroadcastBinary) \
      .Doc(DocText)

TW_BITWISE_BINARY_OP("BitwiseAnd", "x & y, with numpy broadcasting.");
TW_BITWISE_BINARY_OP("BitwiseOr", "x | y, with numpy broadcasting.");
TW_BITWISE_BINARY_OP("BitwiseXor", "x ^ y, with numpy broadcasting.");
TW_BITWISE_BINARY_OP(
    "LeftShift",
    "x << y, with numpy broadcasting; the shift count is clamped to [0, bits "
    "- 1] (as TensorFlow), the result wraps.");
TW_BITWISE_BINARY_OP(
    "RightShift",
    "x >> y, with numpy broadcasting (arithmetic for signed types); the "
    "shift count is clamped to [0, bits - 1] (as TensorFlow).");

REGISTER_OP("Invert")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {" TW_BITWISE_TYPES "}")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc("~x: every bit flipped, element-wise.");

REGISTER_OP("PopulationCount")
    .Input("x: T")
    .Output("y: uint8")
    .Attr("T: {" TW_BITWISE_TYPES "}")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc("The number of bits set in each element of x (tf.math.popcount).");

#undef TW_BITWISE_BINARY_OP
#undef TW_BITWISE_TYPES

}  // namespace tensorweave
