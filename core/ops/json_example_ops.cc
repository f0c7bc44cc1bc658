// DecodeJSONExample (tf.io.decode_json_example): JSON-mapped Example protos
// to binary; the kernel is core/kernels/json_example_ops.cc.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("DecodeJSONExample")
    .Input("json_examples: string")
    .Output("binary_examples: string")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    })
    .Doc(
        "Each string, a tf.train.Example in protobuf's JSON mapping, as the "
        "serialized binary Example (same shape). Malformed JSON, unknown "
        "fields or values of the wrong kind are an InvalidArgument.");

}  // namespace tensorweave
