// Conditional accumulators (TensorFlow's ConditionalAccumulator and
// SparseConditionalAccumulator), the state behind synchronous replicas: each
// replica applies its gradient tagged with the global step it was computed
// at, stale ones are dropped, and a take waits for enough gradients and
// returns their mean (or sum). TensorFlow's handle is a `Ref(string)`; here
// it is a plain scalar string naming the accumulator in the session's
// resources (as the queues' handles; tensorweave has no resource dtype).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarHandle(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status HandleIsScalar(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(0, 0, &unused);
}

}  // namespace

REGISTER_OP("ConditionalAccumulator")
    .Output("handle: string")
    .Attr("dtype: {float16, float32, float64}")
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc(
        "An accumulator of dense gradients of one dtype and shape. A "
        "gradient applied with a local_step below the accumulator's global "
        "step is dropped as stale; a take waits for num_required gradients, "
        "returns their mean (reduction_type MEAN) or sum (SUM), resets and "
        "increments the global step.");

REGISTER_OP("AccumulatorApplyGradient")
    .Input("handle: string")
    .Input("local_step: int64")
    .Input("gradient: dtype")
    .Attr("dtype: {float16, float32, float64}")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      PartialShape unused;
      return c->WithRank(1, 0, &unused);
    })
    .Doc(
        "Adds gradient to the accumulator unless local_step is below its "
        "global step (a stale gradient, dropped). A gradient of another "
        "shape or dtype than the accumulator's is InvalidArgument.");

REGISTER_OP("AccumulatorTakeGradient")
    .Input("handle: string")
    .Input("num_required: int32")
    .Output("average: dtype")
    .Attr("dtype: {float16, float32, float64}")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
      c->set_output(0, PartialShape::UnknownRank());
      return Status::OK();
    })
    .Doc(
        "Waits until num_required (>= 1) gradients have been accumulated, "
        "returns their mean (or sum), resets the accumulator and increments "
        "its global step. The step's timeout or the session's close cancels "
        "the wait.");

REGISTER_OP("AccumulatorNumAccumulated")
    .Input("handle: string")
    .Output("num_accumulated: int32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc("The number of gradients accumulated since the last take.");

REGISTER_OP("AccumulatorSetGlobalStep")
    .Input("handle: string")
    .Input("new_global_step: int64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      PartialShape unused;
      return c->WithRank(1, 0, &unused);
    })
    .Doc(
        "Sets the accumulator's global step (gradients of a lower local_step "
        "are then stale). Works for both dense and sparse accumulators.");

REGISTER_OP("SparseConditionalAccumulator")
    .Output("handle: string")
    .Attr("dtype: {float16, float32, float64}")
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc(
        "An accumulator of sparse gradients (IndexedSlices: indices, rows of "
        "values, dense shape). Rows of one index are summed; MEAN divides "
        "each index's sum by the number of gradients that had that index.");

REGISTER_OP("SparseAccumulatorApplyGradient")
    .Input("handle: string")
    .Input("local_step: int64")
    .Input("gradient_indices: int64")
    .Input("gradient_values: dtype")
    .Input("gradient_shape: int64")
    .Attr("dtype: {float16, float32, float64}")
    .Attr("has_known_shape: bool")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
      TW_RETURN_IF_ERROR(c->WithRank(2, 1, &unused));
      return Status::OK();
    })
    .Doc(
        "Adds a sparse gradient unless local_step is stale. gradient_indices "
        "is a vector, gradient_values has a row per index; gradient_shape "
        "(the dense shape) is checked when has_known_shape.");

REGISTER_OP("SparseAccumulatorTakeGradient")
    .Input("handle: string")
    .Input("num_required: int32")
    .Output("indices: int64")
    .Output("values: dtype")
    .Output("shape: int64")
    .Attr("dtype: {float16, float32, float64}")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
      c->set_output(0, PartialShape({-1}));
      c->set_output(1, PartialShape::UnknownRank());
      c->set_output(2, PartialShape({-1}));
      return Status::OK();
    })
    .Doc(
        "Waits for num_required sparse gradients and returns the aggregate "
        "(indices in ascending order, their rows, the dense shape), then "
        "resets and increments the global step.");

}  // namespace tensorweave
