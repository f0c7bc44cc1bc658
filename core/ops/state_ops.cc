// Variables: mutable state that lives in a session across steps.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/ops/shape_errors.h"

namespace tensorweave {
namespace {

Status VariableShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  c->GetAttr("validate_shape", &validate_shape);  // AssignAdd has none
  if (validate_shape && !c->input(0).IsCompatibleWith(c->input(1))) {
    return MergeError(c->input(0), c->input(1));
  }
  PartialShape merged;
  if (c->input(0).Merge(c->input(1), &merged).ok()) {
    c->set_output(0, validate_shape ? merged : c->input(1));
  } else {
    c->set_output(0, c->input(1));
  }
  return Status::OK();
}

}  // namespace

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableShape)
    .Doc(
        "A variable: a tensor kept in the session across steps. Reading it "
        "before it is assigned is a FailedPrecondition error.");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetShapeFn(AssignShape)
    .Doc("Sets the variable to value.");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {numbertype}")
    .Attr("use_locking: bool = true")
    .SetShapeFn(AssignShape)
    .Doc("Adds value to the variable, atomically.");

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {numbertype}")
    .Attr("use_locking: bool = true")
    .SetShapeFn(AssignShape)
    .Doc("Subtracts value from the variable, atomically.");

REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("Whether the variable has been assigned.");

}  // namespace tensorweave
