// TensorArrays (TF's TensorArrayV3 family): a per-step array of tensors
// written once and read once (by default), ordered by a scalar float "flow"
// that each op takes and passes on. The handle is a scalar string naming the
// array (TensorFlow's is a `resource`; see core/kernels/handle_resource.h).
// Every op is stateful: two reads of one index are two reads.
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarInput(InferenceContext* c, int i) {
  PartialShape unused;
  return c->WithRank(i, 0, &unused);
}

// [n] + element_shape (unknown rank when element_shape is).
PartialShape Prepend(int64_t n, const PartialShape& element_shape) {
  if (!element_shape.known_rank()) return PartialShape::UnknownRank();
  std::vector<int64_t> dims = {n};
  dims.insert(dims.end(), element_shape.dims().begin(),
              element_shape.dims().end());
  return PartialShape(dims);
}

}  // namespace

REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Output("handle: string")
    .Output("flow: float32")
    .Attr("dtype: type")
    .Attr("element_shape: shape = unknown")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c, 0));
      c->set_output(0, PartialShape({}));
      c->set_output(1, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "A new TensorArray of `size` elements of dtype for this step "
        "(dynamic_size: it grows on writes past its end); outputs its handle "
        "and the flow that orders the ops on it.");

REGISTER_OP("TensorArrayGradV3")
    .Input("handle: string")
    .Input("flow_in: float32")
    .Output("grad_handle: string")
    .Output("flow_out: float32")
    .Attr("source: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, PartialShape({}));
      c->set_output(1, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "The gradient TensorArray of handle for `source` (created on first "
        "use, then shared): same size and dtype; writes to one index add up.");

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: string")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float32")
    .Output("flow_out: float32")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c, 1));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc("Writes value at index (once, unless a gradient array).");

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: string")
    .Input("index: int32")
    .Input("flow_in: float32")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c, 1));
      c->set_output(0, PartialShape::UnknownRank());
      return Status::OK();
    })
    .Doc(
        "The element at index (cleared after the read when the array "
        "clears after reads).");

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: string")
    .Input("indices: int32")
    .Input("flow_in: float32")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = unknown")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape indices;
      TW_RETURN_IF_ERROR(c->WithRank(1, 1, &indices));
      PartialShape element_shape;
      TW_RETURN_IF_ERROR(c->GetAttr("element_shape", &element_shape));
      c->set_output(0, Prepend(indices.dim(0), element_shape));
      return Status::OK();
    })
    .Doc("The elements at indices, stacked along a new first dimension.");

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: string")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float32")
    .Output("flow_out: float32")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(1, 1, &unused));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc("Writes value[i] at indices[i] for each i.");

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: string")
    .Input("flow_in: float32")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = unknown")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape except0;
      TW_RETURN_IF_ERROR(c->GetAttr("element_shape_except0", &except0));
      c->set_output(0, Prepend(-1, except0));
      c->set_output(1, PartialShape({-1}));
      return Status::OK();
    })
    .Doc(
        "All elements concatenated along their first dimension, and each "
        "one's length.");

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: string")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float32")
    .Output("flow_out: float32")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(2, 1, &unused));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "Splits value along its first dimension into pieces of `lengths` and "
        "writes piece i at index i.");

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: string")
    .Input("flow_in: float32")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc("The current number of elements.");

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::NoOutputs)
    .Doc("Frees the elements; later use of the array is an error.");

}  // namespace tensorweave
