// Array ops: constants, placeholders, shapes and reshaping, ranges and
// tensors shaped like others.
#include "core/framework/op_def.h"
#include "core/framework/range.h"
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

// The product of a shape's known dims and the index of its one unknown dim
// (-1: none); `countable` is false with two or more unknown dims (or an
// overflowing product).
struct KnownElements {
  int64_t product = 1;
  int unknown = -1;
  bool countable = true;
};

KnownElements CountKnownElements(const PartialShape& shape) {
  KnownElements k;
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape.dim(i) < 0) {
      if (k.unknown >= 0) k.countable = false;
      k.unknown = i;
    } else if (__builtin_mul_overflow(k.product, shape.dim(i), &k.product)) {
      k.countable = false;
    }
  }
  return k;
}

// Reshape: the target (what partial evaluation knows of it; a -1 or an
// unknown element is an unknown dim) with, as TensorFlow infers it, its one
// unknown dim computed from the input's element count.
Status ReshapeShape(InferenceContext* c) {
  PartialShape target;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(1, &target));
  const PartialShape& in = c->input(0);
  if (!target.known_rank() || !in.known_rank()) {
    c->set_output(0, target);
    return Status::OK();
  }
  const Tensor* target_value = c->input_value(1);
  if (target_value != nullptr) {
    std::vector<int64_t> values;
    TW_RETURN_IF_ERROR(ReadIndexVector(*target_value, &values));
    int first = -1;
    for (int i = 0; i < static_cast<int>(values.size()); ++i) {
      if (values[i] != -1) continue;
      if (first >= 0) {
        return errors::InvalidArgument(
            "only one input size may be -1, not both ", first, " and ", i);
      }
      first = i;
    }
  }
  const KnownElements out_k = CountKnownElements(target);
  const KnownElements in_k = CountKnownElements(in);
  std::vector<int64_t> dims = target.dims();
  if (out_k.countable && in_k.countable) {
    if (in_k.unknown < 0 && out_k.unknown < 0) {
      if (in_k.product != out_k.product) {
        return errors::InvalidArgument("Cannot reshape a tensor with ",
                                       in_k.product, " elements to shape ",
                                       target.ToString(), " (", out_k.product,
                                       " elements)");
      }
    } else if (in_k.unknown < 0 && out_k.product > 0) {
      if (in_k.product % out_k.product != 0) {
        return errors::InvalidArgument(
            "Cannot reshape a tensor with ", in_k.product,
            " elements to shape ", target.ToString(),
            " (the -1 dimension cannot be inferred)");
      }
      dims[out_k.unknown] = in_k.product / out_k.product;
    } else if (out_k.unknown < 0 && in_k.product > 0 &&
               out_k.product % in_k.product != 0) {
      return errors::InvalidArgument(
          "Cannot reshape a tensor of shape ", in.ToString(), " to shape ",
          target.ToString(), " (", out_k.product,
          " elements are not a multiple of ", in_k.product, ")");
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  const Tensor* dims_value = c->input_value(0);
  std::vector<int64_t> dims;
  if (dims_value != nullptr && ReadIndexVector(*dims_value, &dims).ok()) {
    for (int64_t d : dims) {
      if (d < 0) return errors::InvalidArgument("Fill dimensions must be >= 0");
    }
  }
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

Status SizeShape(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

// Range: the length when start, limit and delta are constants.
Status RangeShape(InferenceContext* c) {
  PartialShape unused;
  for (int i = 0; i < 3; ++i) TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  const Tensor* start = c->input_value(0);
  const Tensor* limit = c->input_value(1);
  const Tensor* delta = c->input_value(2);
  if (start == nullptr || limit == nullptr || delta == nullptr) {
    c->set_output(0, PartialShape::Unknown(1));
    return Status::OK();
  }
  int64_t size = -1;
  TW_RETURN_IF_ERROR(DispatchType<TW_REAL_TYPES>(start->dtype(), [&](auto tag) {
    using T = decltype(tag);
    return RangeSize<T>(start->data<T>()[0], limit->data<T>()[0],
                        delta->data<T>()[0], &size);
  }));
  c->set_output(0, PartialShape({size}));
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

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape shape;
      TW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      if (!shape.IsCompatibleWith(c->input(0))) {
        return errors::InvalidArgument(
            "the default value's shape ", c->input(0).ToString(),
            " does not match the shape attr ", shape.ToString());
      }
      c->set_output(0, shape);
      return Status::OK();
    })
    .Doc(
        "Its input, unless a value is fed for it (a placeholder with a "
        "default).");

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

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {numbertype, bool}")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Zeros (false) of the shape and dtype of x.");

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {numbertype, bool}")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Ones (true) of the shape and dtype of x.");

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Returns its input; gradients do not flow through it.");

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(SizeShape)
    .Doc("The number of elements of input, as a scalar.");

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(SizeShape)
    .Doc("The number of dimensions of input, as a scalar.");

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {float32, float64, int32, int64} = int32")
    .SetShapeFn(RangeShape)
    .Doc("start, start + delta, ... up to but not including limit.");

}  // namespace tensorweave
