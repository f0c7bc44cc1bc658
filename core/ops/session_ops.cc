// Tensors kept in the session between steps (TF1's tf.get_session_handle,
// tf.get_session_tensor, tf.delete_session_tensor), and the mutex under
// tf.CriticalSection. TensorFlow's GetSessionHandleV2 and MutexV2 output a
// `resource` and MutexLock a `variant`; tensorweave has neither dtype, so
// these are scalar strings (as the queues' handles are).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status ScalarInput(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(0, 0, &unused);
}

}  // namespace

REGISTER_OP("GetSessionHandle")
    .Input("value: T")
    .Output("handle: string")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "Stores `value` in the session and outputs its handle, "
        "'<node name>;<id>;<device>': later steps read the tensor back with "
        "GetSessionTensor until DeleteSessionTensor (or closing the session) "
        "frees it.");

REGISTER_OP("GetSessionHandleV2")
    .Input("value: T")
    .Output("handle: string")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc("GetSessionHandle (TensorFlow's outputs a resource handle).");

REGISTER_OP("GetSessionTensor")
    .Input("handle: string")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c));
      c->set_output(0, PartialShape::UnknownRank());
      return Status::OK();
    })
    .Doc(
        "The tensor the session keeps under `handle` (from GetSessionHandle); "
        "an unknown or deleted handle is InvalidArgument, a tensor of another "
        "dtype than `dtype` Internal (as in TensorFlow).");

REGISTER_OP("DeleteSessionTensor")
    .Input("handle: string")
    .SetIsStateful()
    .SetShapeFn(ScalarInput)
    .Doc(
        "Frees the tensor the session keeps under `handle`; an unknown or "
        "already deleted handle is InvalidArgument.");

REGISTER_OP("MutexV2")
    .Output("resource: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A mutex of the session (tf.CriticalSection's), shared by the nodes "
        "of the same container and shared_name (empty: this node's own).");

REGISTER_OP("MutexLock")
    .Input("mutex: string")
    .Output("mutex_lock: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInput(c));
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "Waits (without holding a thread) until `mutex` is free, takes it and "
        "outputs the lock: the mutex is released when the last copy of the "
        "lock tensor is dropped (after ConsumeMutexLock, or when the step "
        "ends). A cancelled step (its timeout, Session.close) stops waiting.");

REGISTER_OP("ConsumeMutexLock")
    .Input("mutex_lock: string")
    .SetIsStateful()
    .SetShapeFn(ScalarInput)
    .Doc(
        "Takes the lock MutexLock output, so that it lives until this node "
        "has run (tf.CriticalSection runs it after the critical section's "
        "work); an input that is not such a lock is InvalidArgument.");

}  // namespace tensorweave
