// Queues, with TensorFlow's V2 op names, inputs, outputs and attrs. The
// handle is a scalar string naming the queue in the session's resources
// (TensorFlow's is a `resource` tensor; tensorweave has no resource dtype).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status HandleIsScalar(InferenceContext* c) {
  PartialShape handle;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &handle));
  return Status::OK();
}

Status UnknownOutputs(InferenceContext* c) {
  TW_RETURN_IF_ERROR(HandleIsScalar(c));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::UnknownRank());
  }
  return Status::OK();
}

}  // namespace

REGISTER_OP("FIFOQueueV2")
    .Output("handle: string")
    .Attr("component_types: list(type) >= 1")
    .Attr("shapes: list(shape) >= 0 = []")
    .Attr("capacity: int = -1")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A queue that produces elements in first-in first-out order. "
        "capacity < 0: unbounded. shapes: empty, or one fully defined shape "
        "per component (needed by DequeueMany/DequeueUpTo).");

REGISTER_OP("PaddingFIFOQueueV2")
    .Output("handle: string")
    .Attr("component_types: list(type) >= 1")
    .Attr("shapes: list(shape) >= 0 = []")
    .Attr("capacity: int = -1")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A FIFO queue whose components may have unknown dims (-1) in their "
        "shapes; DequeueMany pads each component with zeros to the largest "
        "element of the batch.");

REGISTER_OP("RandomShuffleQueueV2")
    .Output("handle: string")
    .Attr("component_types: list(type) >= 1")
    .Attr("shapes: list(shape) >= 0 = []")
    .Attr("capacity: int = -1")
    .Attr("min_after_dequeue: int = 0")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A queue that dequeues its elements in a random order; while open, a "
        "dequeue waits until min_after_dequeue elements would remain. seed "
        "and seed2 both 0: seeded at random.");

REGISTER_OP("PriorityQueueV2")
    .Output("handle: string")
    .Attr("component_types: list(type) >= 0 = []")
    .Attr("shapes: list(shape) >= 0")
    .Attr("capacity: int = -1")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A queue whose elements start with an int64 scalar priority (not in "
        "component_types); the smallest priority is dequeued first.");

REGISTER_OP("QueueEnqueueV2")
    .Input("handle: string")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(HandleIsScalar)
    .Doc(
        "Enqueues one element (a tensor per component), waiting while the "
        "queue is full. Enqueueing into a closed queue is Cancelled. "
        "timeout_ms is not supported (as in TensorFlow).");

REGISTER_OP("QueueEnqueueManyV2")
    .Input("handle: string")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(HandleIsScalar)
    .Doc(
        "Enqueues the elements of a batch: the components split along their "
        "dimension 0 (the same size in all).");

REGISTER_OP("QueueDequeueV2")
    .Input("handle: string")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc(
        "Dequeues one element, waiting for one; a closed, empty queue is "
        "OutOfRange.");

REGISTER_OP("QueueDequeueManyV2")
    .Input("handle: string")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc(
        "Dequeues n elements as one batch (a new dimension 0), waiting for "
        "them; a closed queue with fewer than n is OutOfRange.");

REGISTER_OP("QueueDequeueUpToV2")
    .Input("handle: string")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc(
        "As QueueDequeueManyV2, but a closed queue with fewer than n (and at "
        "least one) elements gives them all.");

REGISTER_OP("QueueCloseV2")
    .Input("handle: string")
    .Attr("cancel_pending_enqueues: bool = false")
    .SetIsStateful()
    .SetShapeFn(HandleIsScalar)
    .Doc(
        "Closes the queue: later enqueues are Cancelled, dequeues get the "
        "remaining elements and then OutOfRange. cancel_pending_enqueues: "
        "the enqueues waiting for room are Cancelled too.");

REGISTER_OP("QueueSizeV2")
    .Input("handle: string")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      return ScalarOutput(c);
    })
    .Doc("The number of elements in the queue.");

REGISTER_OP("QueueIsClosedV2")
    .Input("handle: string")
    .Output("is_closed: bool")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(HandleIsScalar(c));
      return ScalarOutput(c);
    })
    .Doc("True when the queue is closed.");

}  // namespace tensorweave
