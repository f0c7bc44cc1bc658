// Array ops: constants, placeholders, shapes and reshaping.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ConstShape(InferenceContext* c) {
  Tensor value;
  TW_RETURN_IF_ERROR(c->GetAttr("value", &value));
  DataType dtype;
  TW_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (value.dtype() != dtype) {
    return errors::InvalidArgument(
        "value has dtype ", DataTypeName(value.dtype()),
        " but the dtype attr is ", DataTypeName(dtype));
  }
  c->set_output(0, PartialShape(value.shape()));
  return Status::OK();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

Status ShapeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, in.known_rank() ? PartialShape({in.rank()})
                                   : PartialShape::Unknown(1));
  return Status::OK();
}

// Reshape: the target may hold one -1, inferred from the element count.
Status ReshapeShape(InferenceContext* c) {
  PartialShape target;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(1, &target));
  if (!target.known_rank()) {
    c->set_output(0, target);
    return Status::OK();
  }
  const PartialShape& in = c->input(0);
  int64_t known_product = 1;
  int unknown = -1;
  for (int i = 0; i < target.rank(); ++i) {
    if (target.dim(i) < 0) {
      if (unknown >= 0 && c->input_value(1) != nullptr) {
        return errors::InvalidArgument(
            "only one input size may be -1, not "
            "both ",
            unknown, " and ", i);
      }
      unknown = i;
    } else {
      known_product *= target.dim(i);
    }
  }
  int64_t n = in.num_elements();
  std::vector<int64_t> dims = target.dims();
  if (c->input_value(1) != nullptr && n >= 0) {
    if (unknown >= 0) {
      if (known_product == 0 || n % known_product != 0) {
        return errors::InvalidArgument("Cannot reshape a tensor with ", n,
                                       " elements to shape ", target.ToString(),
                                       " (the -1 dimension "
                                       "cannot be inferred)");
      }
      dims[unknown] = n / known_product;
    } else if (known_product != n) {
      return errors::InvalidArgument("Cannot reshape a tensor with ", n,
                                     " elements to shape ", target.ToString(),
                                     " (", known_product, " elements)");
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape)
    .Doc("A constant tensor: the value of attr `value`.");

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = unknown")
    .SetShapeFn(PlaceholderShape)
    .Doc("A tensor that must be fed: running it without a feed is an error.");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Returns its input; reading a variable through it takes a snapshot.");

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(ShapeShape)
    .Doc("The shape of a tensor, as a 1-D tensor.");

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = int32")
    .SetShapeFn(ReshapeShape)
    .Doc("The same elements in another shape; one dimension may be -1.");

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = int32")
    .SetShapeFn(FillShape)
    .Doc("A tensor of shape `dims` with every element `value`.");

}  // namespace tensorweave
