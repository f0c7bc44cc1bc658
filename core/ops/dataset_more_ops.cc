// tf.data transformations of Dataset's further methods that need a kernel of
// their own (python/tensorweave/_src/data/dataset_ops.py builds the others
// from the existing ops).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("IgnoreErrorsDataset")
    .Input("input_dataset: string")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("log_warning: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "The elements of input_dataset without those whose production failed "
        "(an error of the input's GetNext is dropped and the next element "
        "read).");

REGISTER_OP("RandomDataset")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "An endless dataset of pseudorandom int64 scalars: the 32-bit words of "
        "Philox(seed, seed2) (both 0: a random seed).");

}  // namespace tensorweave
