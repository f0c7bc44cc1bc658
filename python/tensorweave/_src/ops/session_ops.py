"""Tensors kept in the session between `run` calls (TF1's tf.get_session_handle, tf.get_session_tensor,
tf.delete_session_tensor and the `TensorHandle` that `Session.run` returns for a handle).

A step stores a tensor in the session (in C++, where it stays until deleted or the session closes) and
returns its handle, `'<node name>;<id>;<device>'`; later steps read it by feeding the handle.
"""

import numpy as np

from tensorweave._src.framework import device_spec, dtypes, ops
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl

__all__ = ["TensorHandle", "delete_session_tensor", "get_session_handle", "get_session_tensor"]

for _op_type in ("GetSessionHandle", "GetSessionHandleV2", "GetSessionTensor", "DeleteSessionTensor"):
    gradients_impl.NotDifferentiable(_op_type)

_HANDLE_OPS = ("GetSessionHandle", "GetSessionHandleV2")


class TensorHandle:
    """A handle for a tensor that a step left in a session (what `Session.run` returns for the output of
    `tw.get_session_handle`).

    `handle` is its string form, `eval()` reads the tensor, `delete()` frees it. A handle that is garbage
    collected is freed by the session later (in batches, as in TF), unless `get_raw_handle()` was called.
    Feeding the handle object itself in `feed_dict` to a tensor of the stored dtype feeds the stored value.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     h = sess.run(tw.get_session_handle(tw.constant(5.0) * 2.0))
      ...     print(h.handle.split(";")[0], float(h.eval()))
      ...     h.delete()
      GetSessionHandle 10.0
    """

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtypes.as_dtype(dtype)
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self):
        if getattr(self, "_auto_gc_enabled", False):
            self._session._register_dead_handle(self._handle)

    def __str__(self):
        return self._handle

    def __repr__(self):
        return f"<TensorHandle {self._handle!r} dtype={self._dtype.name}>"

    @property
    def handle(self):
        """The string form of this handle."""
        return self._handle

    def to_numpy_array(self):
        """The handle as a feedable numpy value (a string scalar)."""
        return np.array(self._handle.encode(), dtype=object)

    def eval(self):
        """The value of the tensor this handle names."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self.handle} may have already been deleted.")
        holder, reader = _get_handle_reader(self._session.graph, self._handle, self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self):
        """Frees the tensor this handle names, now."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self.handle} may have already been deleted.")
        self._auto_gc_enabled = False
        holder, deleter = _get_handle_deleter(self._session.graph, 0, self._handle)
        self._session.run(deleter, feed_dict={holder: self._handle})

    def get_raw_handle(self):
        """The string form of this handle; the caller then owns the tensor's lifetime (no automatic deletion)."""
        self._auto_gc_enabled = False
        return self._handle

    @staticmethod
    def _get_device_name(handle):
        """The device the handle names, canonical; ValueError when the handle has no well-formed device part."""
        text = handle.decode() if isinstance(handle, bytes) else str(handle)
        return device_spec.DeviceSpec.from_string(text.split(";")[-1]).to_string()

    @staticmethod
    def _get_reader_key(handle):
        """The graph key of the reader of a handle: its producer node and device."""
        parts = str(handle).split(";")
        return parts[0] + ";" + parts[-1]


def _placement(handle):
    """The device scope for the reader or deleter of `handle`: the device type and index it names (its job and
    task are left out: the store is the session's, so any task's session sees the device as its own)."""
    spec = device_spec.DeviceSpec.from_string(TensorHandle._get_device_name(handle))
    return device_spec.DeviceSpec(device_type=spec.device_type, device_index=spec.device_index).to_string()


def _graph_table(graph, name):
    table = graph.__dict__.get(name)
    if table is None:
        table = graph.__dict__[name] = {}
    return table


def _register_handle_feeder(graph, feeder, dtype):
    _graph_table(graph, "_handle_feeders")[feeder.op.name] = dtype


def _is_handle_feeder(tensor):
    """Whether `tensor` is the placeholder of a get_session_tensor or delete_session_tensor (fed a handle)."""
    return tensor.op.name in tensor.graph.__dict__.get("_handle_feeders", ())


def _handle_fetch_dtype(tensor):
    """The dtype of the tensor kept by `tensor` when it is the output of a GetSessionHandle, else None."""
    op = tensor.op
    return op.inputs[0].dtype.base_dtype if op.type in _HANDLE_OPS else None


def get_session_handle(data, name=None):
    """Keeps `data` in the session and returns a scalar string tensor: its handle. Running it returns a
    `TensorHandle`; feed `handle.handle` to the placeholder of `get_session_tensor` to use the tensor in a later
    run, without copying it out of the runtime.

    Raises TypeError when `data` is not a Tensor.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     c = tw.multiply(tw.constant(3.0), tw.constant(4.0))
      ...     h = sess.run(tw.get_session_handle(c))
      ...     p, a = tw.get_session_tensor(h.handle, tw.float32)
      ...     print(float(sess.run(a * 10.0, feed_dict={p: h.handle})))
      120.0
    """
    if not isinstance(data, ops.Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with ops.colocate_with(data):
        return gen_ops.wrapper("GetSessionHandle")(data, name=name or "GetSessionHandle")


def get_session_tensor(handle, dtype, name=None):
    """(placeholder, tensor): feeding a handle (the string of a `TensorHandle`, or the handle object) to the
    placeholder makes `tensor` the `dtype` tensor kept in the session under it. `handle` names the device the
    reader runs on. An unknown or deleted handle fails the run with InvalidArgumentError naming it.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     h = sess.run(tw.get_session_handle(tw.constant([1, 2])))
      ...     p, a = tw.get_session_tensor(h.handle, tw.int32)
      ...     print(sess.run(a + 1, feed_dict={p: h.handle}))
      [2 3]
    """
    dtype = dtypes.as_dtype(dtype)
    with ops.device(_placement(handle)):
        holder = array_ops.placeholder(dtypes.string)
        _register_handle_feeder(holder.graph, holder, dtype)
        tensor = gen_ops.wrapper("GetSessionTensor")(holder, dtype=dtype, name=name or "GetSessionTensor")
    return holder, tensor


def delete_session_tensor(handle, name=None):
    """(placeholder, deleter): running the deleter with a handle fed to the placeholder frees the tensor the
    session keeps under it (an unknown or deleted handle: InvalidArgumentError).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     h = sess.run(tw.get_session_handle(tw.constant(1.0))).get_raw_handle()
      ...     p, deleter = tw.delete_session_tensor(h)
      ...     print(sess.run(deleter, feed_dict={p: h}))
      None
    """
    with ops.device(_placement(handle)):
        holder = array_ops.placeholder(dtypes.string)
        _register_handle_feeder(holder.graph, holder, None)
        deleter = gen_ops.wrapper("DeleteSessionTensor")(holder, name=name or "DeleteSessionTensor")
    return holder, deleter


def _get_handle_reader(graph, handle, dtype):
    """The (placeholder, reader) of handles of one producer on one device, made once per graph."""
    key = TensorHandle._get_reader_key(handle)
    readers = _graph_table(graph, "_handle_readers")
    result = readers.get(key)
    if result is None:
        with graph.as_default(), ops.control_dependencies(None), ops.name_scope(None):
            result = get_session_tensor(handle, dtype)
        readers[key] = result
    return result


def _get_handle_deleter(graph, deleter_key, handle):
    """The (placeholder, deleter) number `deleter_key` of the graph (a batch of dead handles uses several)."""
    deleters = _graph_table(graph, "_handle_deleters")
    result = deleters.get(deleter_key)
    if result is None:
        with graph.as_default(), ops.control_dependencies(None), ops.name_scope(None):
            result = delete_session_tensor(handle)
        deleters[deleter_key] = result
    return result


def _feed_value(handle, tensor):
    """What feeding the TensorHandle `handle` to `tensor` feeds: its string to the placeholder of a reader or
    deleter, else the stored tensor itself, which must be of `tensor`'s dtype."""
    from tensorweave._src.framework import errors

    if _is_handle_feeder(tensor):
        return handle.to_numpy_array()
    if handle._dtype != tensor.dtype.base_dtype:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Cannot feed the TensorHandle {handle.handle!r} (a {handle._dtype.name} tensor) for Tensor "
            f"{tensor.name}, which has dtype {tensor.dtype.base_dtype.name}",
        )
    return handle.eval()
