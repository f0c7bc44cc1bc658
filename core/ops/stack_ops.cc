// Stacks (TF's StackV2 family): per-step LIFO resources; a while loop's
// gradient pushes the forward values it needs each iteration and pops them in
// reverse in the backward loop. The handle is a scalar string naming the
// stack (TensorFlow's is a `resource`; see core/kernels/handle_resource.h).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("StackV2")
    .Input("max_size: int32")
    .Output("handle: string")
    .Attr("elem_type: type")
    .Attr("stack_name: string = ''")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "A new, empty stack of elem_type values for this step (max_size < 0: "
        "unbounded). It lives until the step ends.");

REGISTER_OP("StackPushV2")
    .Input("handle: string")
    .Input("elem: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("swap_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(1));
      return Status::OK();
    })
    .Doc("Pushes elem onto the stack and outputs it.");

REGISTER_OP("StackPopV2")
    .Input("handle: string")
    .Output("elem: elem_type")
    .Attr("elem_type: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnknownShape)
    .Doc(
        "Pops the top element of the stack; an empty stack is "
        "InvalidArgument.");

REGISTER_OP("StackCloseV2")
    .Input("handle: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc("Deletes the stack (its handle is invalid afterwards).");

}  // namespace tensorweave
