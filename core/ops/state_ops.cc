// Variables: mutable state that lives in a session across steps.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status VariableShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// TF's InferenceContext::Merge wording for two shapes that do not merge.
Status MergeError(const PartialShape& a, const PartialShape& b) {
  if (a.known_rank() && b.known_rank() && a.rank() != b.rank()) {
    return errors::InvalidArgument("Shapes must be equal rank, but are ",
                                   a.rank(), " and ", b.rank());
  }
  for (int i = 0; a.known_rank() && b.known_rank() && i < a.rank(); ++i) {
    if (a.dim(i) >= 0 && b.dim(i) >= 0 && a.dim(i) != b.dim(i)) {
      return errors::InvalidArgument(
          "Dimension ", i, " in both shapes must be equal, but are ", a.dim(i),
          " and ", b.dim(i), ". Shapes are ", a.ToString(), " and ",
          b.ToString(), ".");
    }
  }
  return errors::InvalidArgument("Shapes ", a.ToString(), " and ", b.ToString(),
                                 " are not compatible");
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
