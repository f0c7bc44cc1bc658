// EncodeBase64 / DecodeBase64: web-safe base64 ('-' and '_'), as TF's.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("EncodeBase64")
    .Input("input: string")
    .Output("output: string")
    .Attr("pad: bool = false")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Web-safe base64 of each string ('=' padding only when pad).");

REGISTER_OP("DecodeBase64")
    .Input("input: string")
    .Output("output: string")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Decodes web-safe base64 strings (padded or not).");

}  // namespace tensorweave
