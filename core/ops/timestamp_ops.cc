// Timestamp and GuaranteeConst: two small stateful ops of TF1's top level
// (tf.timestamp, tf.guarantee_const).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("Timestamp")
    .Output("ts: double")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Scalar)
    .Doc(
        "The time of the op's run in seconds since the Unix epoch, as a "
        "float64 scalar (microsecond resolution). Stateful: each run reads "
        "the clock again.");

REGISTER_OP("GuaranteeConst")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unchanged)
    .Doc(
        "Passes its input through, promising the runtime that the value does "
        "not change between runs (TF's hint for constant folding). Stateful "
        "so that it is never folded away itself.");

}  // namespace tensorweave
