"""Queues (TensorFlow v1's tf.FIFOQueue, tf.RandomShuffleQueue, tf.PaddingFIFOQueue, tf.PriorityQueue, tf.QueueBase).

A queue is state of the session: steps enqueue and dequeue elements (tuples of tensors, one per component).
A dequeue from an empty queue waits (without holding a thread) until another step enqueues, the queue is
closed (then `OutOfRangeError`), or the step is cancelled (`RunOptions(timeout_in_ms=)`: `DeadlineExceededError`;
`Session.close()`: `CancelledError`).
"""

from tensorweave._src.framework import dtypes as _dtypes
from tensorweave._src.framework import ops, random_seed, tensor_shape
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

_QUEUE_OPS = (
    "FIFOQueueV2",
    "PaddingFIFOQueueV2",
    "RandomShuffleQueueV2",
    "PriorityQueueV2",
    "QueueEnqueueV2",
    "QueueEnqueueManyV2",
    "QueueDequeueV2",
    "QueueDequeueManyV2",
    "QueueDequeueUpToV2",
    "QueueCloseV2",
    "QueueSizeV2",
    "QueueIsClosedV2",
)
for _op_type in _QUEUE_OPS:
    gradients_impl.NotDifferentiable(_op_type)


def _as_type_list(dtypes):
    """A single dtype or a list of them -> a list of DTypes."""
    if isinstance(dtypes, (list, tuple)):
        return [_dtypes.as_dtype(t) for t in dtypes]
    return [_dtypes.as_dtype(dtypes)]


def _as_shape_list(shapes, dtypes, unknown_dim_allowed=False, unknown_rank_allowed=False):
    """TF1's rules: None, a single shape, or one shape per component."""
    del dtypes
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(shape is None or isinstance(shape, int) for shape in shapes):
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(shape) for shape in shapes]
    if not unknown_dim_allowed and any(not shape.is_fully_defined() for shape in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if not unknown_rank_allowed and any(shape.dims is None for shape in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _shape_attr(shapes):
    return [] if shapes is None else [s.as_list() if s.dims is not None else None for s in shapes]


class QueueBase:
    """Base class of the queues: a queue handle with its component dtypes, shapes and names.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     q = tw.FIFOQueue(3, [tw.int32, tw.string], shapes=[[], []])
      ...     enqueue = q.enqueue_many(([1, 2, 3], ["a", "b", "c"]))
      ...     with tw.Session() as sess:
      ...         _ = sess.run(enqueue)
      ...         print(sess.run(q.size()), sess.run(q.dequeue_many(2))[1].tolist())
      3 [b'a', b'b']
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [tensor_shape.as_shape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = self._queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue whose ops go to `queues[index]` (`index` a scalar int32 tensor); the queues must have the same
        dtypes, shapes (as far as known) and names."""
        if not queues or not isinstance(queues, list) or not all(isinstance(x, QueueBase) for x in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        queue_shapes = [q.shapes for q in queues]
        reduced_shapes = [_most_specific_compatible_shape(shapes) for shapes in zip(*queue_shapes)]
        handles = array_ops.stack([q.queue_ref for q in queues])
        selected_queue = array_ops.gather(handles, index)
        return QueueBase(dtypes=dtypes, shapes=reduced_shapes, names=names, queue_ref=selected_queue)

    @property
    def queue_ref(self):
        """The queue's handle (a scalar tensor)."""
        return self._queue_ref

    @property
    def name(self):
        """The name of the op that created the queue."""
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        """The dtypes of the components."""
        return self._dtypes

    @property
    def shapes(self):
        """The static shapes of the components."""
        return self._shapes

    @property
    def names(self):
        """The names of the components, or None."""
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                    f"{sorted(vals.keys())}, Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        tensors = []
        for i, (val, dtype) in enumerate(zip(vals, self._dtypes)):
            tensors.append(ops.convert_to_tensor(val, dtype=dtype, name=f"component_{i}"))
        if len(tensors) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components to enqueue, got {len(vals)}")
        return tensors

    def _scope_vals(self, vals):
        if isinstance(vals, (list, tuple)):
            return vals
        if isinstance(vals, dict):
            return vals.values()
        return [vals]

    def enqueue(self, vals, name=None):
        """An op that enqueues one element (`vals`: a tensor, a list/tuple of them, or a dict by component
        name); running it waits while the queue is full, and fails with CancelledError once it is closed."""
        with ops.name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.get_shape().assert_is_compatible_with(shape)
            return gen_ops.wrapper("QueueEnqueueV2")(self._queue_ref, vals, name=scope)

    def enqueue_many(self, vals, name=None):
        """An op that enqueues the elements of a batch: each component split along its dimension 0."""
        with ops.name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = None
            for val, shape in zip(vals, self._shapes):
                val_shape = val.get_shape().with_rank_at_least(1)
                dim = val_shape.as_list()[0] if val_shape.dims is not None else None
                if batch_dim is not None and dim is not None and dim != batch_dim:
                    raise ValueError(f"Dimensions {batch_dim} and {dim} are not compatible")
                batch_dim = dim if dim is not None else batch_dim
                val_shape[1:].assert_is_compatible_with(shape)
            return gen_ops.wrapper("QueueEnqueueManyV2")(self._queue_ref, vals, name=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """Dequeues one element: a tensor (one component), a list, or a dict by component name. Running it waits
        for an element; a closed, empty queue raises OutOfRangeError."""
        if name is None:
            name = f"{self._name}_Dequeue"
        ret = list(gen_ops.wrapper("QueueDequeueV2")(self._queue_ref, component_types=self._dtypes, name=name))
        for output, shape in zip(ret, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(ret)

    def dequeue_many(self, n, name=None):
        """Dequeues `n` elements as a batch (a new dimension 0); a closed queue with fewer raises
        OutOfRangeError."""
        if name is None:
            name = f"{self._name}_DequeueMany"
        n = ops.convert_to_tensor(n, dtype=_dtypes.int32, name="n") if not isinstance(n, ops.Tensor) else n
        ret = list(gen_ops.wrapper("QueueDequeueManyV2")(self._queue_ref, n, component_types=self._dtypes, name=name))
        batch_dim = array_ops.constant_value(n)
        batch_dim = None if batch_dim is None else int(batch_dim)
        for output, shape in zip(ret, self._shapes):
            output.set_shape(tensor_shape.TensorShape([batch_dim]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def dequeue_up_to(self, n, name=None):
        """As dequeue_many, but once the queue is closed it gives the remaining elements (fewer than `n`, at least
        one) before raising OutOfRangeError."""
        if name is None:
            name = f"{self._name}_DequeueUpTo"
        n = ops.convert_to_tensor(n, dtype=_dtypes.int32, name="n") if not isinstance(n, ops.Tensor) else n
        ret = list(gen_ops.wrapper("QueueDequeueUpToV2")(self._queue_ref, n, component_types=self._dtypes, name=name))
        for output, shape in zip(ret, self._shapes):
            output.set_shape(tensor_shape.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op that closes the queue; with `cancel_pending_enqueues` the enqueues waiting for room fail too."""
        if name is None:
            name = f"{self._name}_Close"
        return gen_ops.wrapper("QueueCloseV2")(
            self._queue_ref, cancel_pending_enqueues=bool(cancel_pending_enqueues), name=name
        )

    def is_closed(self, name=None):
        """A bool scalar: whether the queue is closed."""
        if name is None:
            name = f"{self._name}_Is_Closed"
        return gen_ops.wrapper("QueueIsClosedV2")(self._queue_ref, name=name)

    def size(self, name=None):
        """An int32 scalar: the number of elements in the queue."""
        if name is None:
            name = f"{self._name}_Size"
        return gen_ops.wrapper("QueueSizeV2")(self._queue_ref, name=name)


def _most_specific_compatible_shape(shapes):
    result = shapes[0]
    for s in shapes[1:]:
        if result.dims is None or s.dims is None or len(result.dims) != len(s.dims):
            return tensor_shape.unknown_shape()
        result = tensor_shape.TensorShape([a if a == b else None for a, b in zip(result.as_list(), s.as_list())])
    return result


def _create(op_type, name, **attrs):
    # As TF1's init_scope: the queue does not wait on the surrounding control dependencies.
    with ops.get_default_graph().control_dependencies(None):
        return gen_ops.wrapper(op_type)(name=name, **attrs)


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order.

    Args:
      capacity: the most elements it holds (an enqueue into a full queue waits).
      dtypes: the component dtypes (a DType or a list).
      shapes: None, or a fully defined shape per component (needed by dequeue_many / dequeue_up_to).
      names: None, or a name per component (elements are then dicts).
      shared_name: queues of the same shared_name in one session are one queue.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     q = tw.FIFOQueue(2, tw.float32)
      ...     with tw.Session() as sess:
      ...         sess.run(q.enqueue(1.0)); sess.run(q.enqueue(2.0))
      ...         print(sess.run(q.dequeue()), sess.run(q.size()))
      1.0 1
    """

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        queue_ref = _create(
            "FIFOQueueV2",
            name,
            component_types=dtypes,
            shapes=_shape_attr(shapes),
            capacity=int(capacity),
            shared_name=shared_name or "",
        )
        super().__init__(dtypes, shapes, names, queue_ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose component shapes may have unknown dimensions (None); dequeue_many pads each component
    with zeros (empty strings) to the largest element of the batch.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     q = tw.PaddingFIFOQueue(4, [tw.int32], shapes=[[None]])
      ...     with tw.Session() as sess:
      ...         sess.run(q.enqueue([[1]])); sess.run(q.enqueue([[1, 2, 3]]))
      ...         print(sess.run(q.dequeue_many(2)).tolist())
      [[1, 0, 0], [1, 2, 3]]
    """

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                f"Shapes must be provided for all components, but received {len(dtypes)} dtypes and "
                f"{len(shapes)} shapes."
            )
        queue_ref = _create(
            "PaddingFIFOQueueV2",
            name,
            component_types=dtypes,
            shapes=_shape_attr(shapes),
            capacity=int(capacity),
            shared_name=shared_name or "",
        )
        super().__init__(dtypes, shapes, names, queue_ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order; while open, a dequeue waits until `min_after_dequeue`
    elements would remain (so the order mixes at least that many).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     q = tw.RandomShuffleQueue(10, 0, tw.int32, shapes=[[]], seed=1)
      ...     with tw.Session() as sess:
      ...         sess.run(q.enqueue_many([[1, 2, 3, 4]]))
      ...         print(sorted(sess.run(q.dequeue_many(4)).tolist()))
      [1, 2, 3, 4]
    """

    def __init__(
        self,
        capacity,
        min_after_dequeue,
        dtypes,
        shapes=None,
        names=None,
        seed=None,
        shared_name=None,
        name="random_shuffle_queue",
    ):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # As TF1: a shared queue's seed depends on its name too, not only on the graph seed.
            string = (str(seed1) + shared_name).encode("utf-8")
            seed2 = int(__import__("hashlib").md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF
        queue_ref = _create(
            "RandomShuffleQueueV2",
            name,
            component_types=dtypes,
            shapes=_shape_attr(shapes),
            capacity=int(capacity),
            min_after_dequeue=int(min_after_dequeue),
            seed=int(seed1),
            seed2=int(seed2),
            shared_name=shared_name or "",
        )
        super().__init__(dtypes, shapes, names, queue_ref)


class PriorityQueue(QueueBase):
    """A queue whose elements start with an int64 scalar priority; the smallest comes out first. `types` are the
    other components' dtypes; enqueue (priority, *components), dequeue gives them back the same way.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     q = tw.PriorityQueue(3, [tw.string], shapes=[[]])
      ...     with tw.Session() as sess:
      ...         sess.run(q.enqueue_many(([3, 1, 2], ["c", "a", "b"])))
      ...         print(sess.run(q.dequeue_many(3))[1].tolist())
      [b'a', b'b', b'c']
    """

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        queue_ref = _create(
            "PriorityQueueV2",
            name,
            component_types=types,
            shapes=_shape_attr(shapes),
            capacity=int(capacity),
            shared_name=shared_name or "",
        )
        priority_dtypes = [_dtypes.int64] + types
        priority_shapes = [()] + shapes if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, queue_ref)
