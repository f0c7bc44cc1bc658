// PyFunc / PyFuncStateless: a node that runs a Python function (tf.py_func,
// tf.numpy_function). Host only; its outputs' shapes are unknown.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("PyFunc")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("token: string")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape)
    .Doc(
        "Calls the Python function registered under token on the inputs "
        "(stateful: never folded or merged).");

REGISTER_OP("PyFuncStateless")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("token: string")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .SetShapeFn(shape_fns::UnknownShape)
    .Doc("PyFunc for a function without side effects.");

}  // namespace tensorweave
