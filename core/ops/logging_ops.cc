// Ops that check conditions and print values on the host (TF1's Assert and
// Print).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc(
        "Fails with InvalidArgumentError, printing the data (at most "
        "summarize entries of each), when the scalar condition is false.");

REGISTER_OP("Print")
    .Input("input: T")
    .Input("data: U")
    .Output("output: T")
    .Attr("T: type")
    .Attr("U: list(type) >= 0")
    .Attr("message: string = ''")
    .Attr("first_n: int = -1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unchanged)
    .Doc(
        "Passes input through and prints message and the data (at most "
        "summarize entries of each) to stderr, the first first_n times "
        "(always when first_n < 0).");

}  // namespace tensorweave
