"""Queue-based input pipelines (TensorFlow v1's tf.train.batch, shuffle_batch, batch_join, shuffle_batch_join,
input_producer, string_input_producer, range_input_producer, slice_input_producer, limit_epochs).

Each function adds a queue, the ops that fill it and a QueueRunner (in the QUEUE_RUNNERS collection) that runs
them; `tw.train.start_queue_runners(sess, coord)` starts the threads. Epoch limits count in a local variable
(initialize with `tw.local_variables_initializer()`); once the inputs run out, the queues close and the batch
ops raise OutOfRangeError after the last elements.
"""

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops import (
    array_ops,
    control_flow_ops,
    data_flow_ops,
    gen_ops,
    logging_ops,
    math_ops,
    queue_ops,
    random_ops,
    scatter_var_ops,
    variables,
)
from tensorweave._src.training import queue_runner

__all__ = [
    "batch",
    "batch_join",
    "input_producer",
    "limit_epochs",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
]


def _summary_scalar(name, value):
    from tensorweave._src.summary import summary_ops

    summary_ops.scalar(name, value)


def limit_epochs(tensor, num_epochs=None, name=None):
    """`tensor`, which can be evaluated `num_epochs` times; the next evaluation raises OutOfRangeError. Counts in
    a local variable `epochs` (initialize with `tw.local_variables_initializer()`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.train.limit_epochs(tw.constant(7), num_epochs=1)
      ...     sess.run(tw.local_variables_initializer())
      ...     print(sess.run(x))
      ...     try:
      ...         sess.run(x)
      ...     except tw.errors.OutOfRangeError:
      ...         print("out of range")
      7
      out of range
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        zero64 = ops.convert_to_tensor(0, dtype=dtypes.int64)
        epochs = variables.Variable(zero64, name="epochs", trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES])
        counter = scatter_var_ops.count_up_to(epochs, num_epochs)
        with ops.control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


def input_producer(
    input_tensor,
    element_shape=None,
    num_epochs=None,
    shuffle=True,
    seed=None,
    capacity=32,
    shared_name=None,
    summary_name=None,
    name=None,
    cancel_op=None,
):
    """A FIFOQueue filled with the rows of `input_tensor` (shuffled per epoch with `shuffle`), `num_epochs` times
    (None: forever), by a QueueRunner."""
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            tensor_shape.as_shape(element_shape) if element_shape is not None else tensor_shape.unknown_shape()
        )
        if not element_shape.is_fully_defined():
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape or `element_shape` must be specified"
            )
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = queue_ops.FIFOQueue(
            capacity=capacity,
            dtypes=[input_tensor.dtype.base_dtype],
            shapes=[element_shape],
            shared_name=shared_name,
            name=name,
        )
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _summary_scalar(summary_name, math_ops.cast(q.size(), dtypes.float32) * (1.0 / capacity))
        return q


def string_input_producer(
    string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None, cancel_op=None
):
    """A queue of the strings of a 1-D `string_tensor` (file names, say), `num_epochs` times; an empty tensor fails
    when the queue runner runs (InvalidArgumentError from an Assert), as in TF1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     q = tw.train.string_input_producer(["a", "b"], num_epochs=1, shuffle=False)
      ...     name = q.dequeue()
      ...     sess.run(tw.local_variables_initializer())
      ...     coord = tw.train.Coordinator()
      ...     threads = tw.train.start_queue_runners(sess, coord)
      ...     print(sess.run(name), sess.run(name))
      ...     coord.request_stop(); coord.join(threads)
      b'a' b'b'
    """
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, ops.Tensor) and not len(string_tensor):
        raise ValueError(not_null_err)
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
        with ops.control_dependencies(
            [logging_ops.Assert(math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err])]
        ):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(
            input_tensor=string_tensor,
            element_shape=[],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
            name=scope,
            summary_name=f"fraction_of_{capacity}_full",
            cancel_op=cancel_op,
        )


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1, `num_epochs` times."""
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = array_ops.range(limit)
        return input_producer(
            range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name, f"fraction_of_{capacity}_full", scope
        )


def slice_input_producer(
    tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None
):
    """One row (slice along dimension 0) of every tensor of `tensor_list` per evaluation, the same row of each,
    every row `num_epochs` times."""
    with ops.name_scope(name, "input_producer", tensor_list):
        tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(
            range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed, capacity=capacity, shared_name=shared_name
        )
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# --- batching -------------------------------------------------------------------------------------------------


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    if isinstance(tensors, (list, tuple)):
        return list(tensors)
    return [tensors]


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return [_as_tensor_list(tensors) for tensors in tensors_list]


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            tensor_list = [tensor_list]  # a single dequeued component comes back as a tensor
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    if isinstance(tensor_list, ops.Tensor):
        return tensor_list  # as TF1: one component gives a tensor, even from a one-element list
    if isinstance(original_tensors, tuple) and not hasattr(original_tensors, "_fields"):
        return tuple(tensor_list)
    if isinstance(original_tensors, tuple):
        return type(original_tensors)(*tensor_list)
    return list(tensor_list)


def _validate(tensor_list):
    tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list):
    tensor_list_list = [[ops.convert_to_tensor(t) for t in tl] for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _dtypes(tensor_list_list):
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other_types in all_types[1:]:
        if other_types != types:
            raise TypeError(
                f"Expected types to be consistent: {', '.join(str(t) for t in other_types)} vs. "
                f"{', '.join(str(t) for t in types)}."
            )
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [tensor_shape.as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged_shape = shape_list[0]
    for s in shape_list[1:]:
        merged_shape = merged_shape.merge_with(s)
    return merged_shape.as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is None:
        len0 = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(len0):
                if tl[i].shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list], enqueue_many) for i in range(len0)]
    return shapes


def _which_queue(dynamic_pad):
    return queue_ops.PaddingFIFOQueue if dynamic_pad else queue_ops.FIFOQueue


def _validate_keep_input(keep_input, enqueue_many):
    """keep_input as a bool tensor: a scalar (keep the whole enqueue or not), or with enqueue_many a vector (which
    rows to keep)."""
    keep_input = ops.convert_to_tensor(keep_input, dtype=dtypes.bool, name="keep_input")
    rank = keep_input.shape.ndims
    if rank is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if rank > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    if not enqueue_many and rank == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    return keep_input


def _enqueue_op(queue, tensor_list, enqueue_many, keep_input):
    """The enqueue of tensor_list that keep_input allows: the rows it selects (a vector), or the whole enqueue
    when the scalar is true: a cond, or (as TF's smart_cond) a plain enqueue or a NoOp when the scalar is a
    constant (the plain batch functions pass the constant True)."""
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        which = math_ops.cast(keep_input, dtypes.int32)
        return enqueue_fn([data_flow_ops.dynamic_partition(t, which, num_partitions=2)[1] for t in tensor_list])
    static = array_ops.constant_value(keep_input)
    if static is not None:
        return enqueue_fn(tensor_list) if bool(static) else gen_ops.no_op()
    return control_flow_ops.cond(keep_input, lambda: enqueue_fn(tensor_list), gen_ops.no_op)


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    enqueue_ops = [_enqueue_op(queue, tl, enqueue_many, keep_input) for tl in tensor_list_list]
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    enqueue_ops = [_enqueue_op(queue, tensor_list, enqueue_many, keep_input)] * threads
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def batch(
    tensors,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches of `batch_size` elements of `tensors` (a list or dict of tensors; with `enqueue_many`, each tensor a
    batch of elements), through a FIFOQueue (PaddingFIFOQueue with `dynamic_pad`) that `num_threads` threads of a
    QueueRunner fill. With `allow_smaller_final_batch` the last batch may be smaller.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.train.limit_epochs(tw.constant([1, 2, 3, 4, 5]), num_epochs=1)
      ...     b = tw.train.batch([x], batch_size=2, enqueue_many=True, allow_smaller_final_batch=True)
      ...     sess.run(tw.local_variables_initializer())
      ...     coord = tw.train.Coordinator()
      ...     threads = tw.train.start_queue_runners(sess, coord)
      ...     print([sess.run(b).tolist() for _ in range(3)])
      ...     coord.request_stop(); coord.join(threads)
      [[1, 2], [3, 4], [5]]
    """
    return _batch(
        tensors,
        batch_size,
        keep_input=True,
        num_threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def _batch(
    tensors,
    batch_size,
    keep_input,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    tensor_list = _as_tensor_list(tensors)
    with ops.name_scope(name, "batch", list(tensor_list)) as scope:
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _summary_scalar(f"fraction_of_{capacity}_full", math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors, dequeued)


def batch_join(
    tensors_list,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As batch, from several lists of tensors (one enqueue thread each), e.g. one per input file reader."""
    return _batch_join(
        tensors_list,
        batch_size,
        True,
        capacity,
        enqueue_many,
        shapes,
        dynamic_pad,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def _batch_join(
    tensors_list,
    batch_size,
    keep_input,
    capacity,
    enqueue_many,
    shapes,
    dynamic_pad,
    allow_smaller_final_batch,
    shared_name,
    name,
):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with ops.name_scope(name, "batch_join", [t for tl in tensor_list_list for t in tl]) as scope:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _summary_scalar(f"fraction_of_{capacity}_full", math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_summary(queue, capacity, min_after_dequeue):
    full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue)
    )
    _summary_scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full)


def shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """Batches of randomly chosen elements of `tensors`, through a RandomShuffleQueue that keeps at least
    `min_after_dequeue` elements (while its inputs last) to mix from."""
    return _shuffle_batch(
        [tensors],
        False,
        batch_size,
        capacity,
        min_after_dequeue,
        True,
        num_threads,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As shuffle_batch, from several lists of tensors (one enqueue thread each)."""
    return _shuffle_batch(
        tensors_list,
        True,
        batch_size,
        capacity,
        min_after_dequeue,
        True,
        1,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def _shuffle_batch(
    tensors_list,
    join,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    num_threads,
    seed,
    enqueue_many,
    shapes,
    allow_smaller_final_batch,
    shared_name,
    name,
):
    """shuffle_batch (one list of tensors, `num_threads` enqueue threads) or, with `join`, shuffle_batch_join
    (one enqueue thread per list)."""
    tensor_list_list = _as_tensor_list_list(tensors_list) if join else [_as_tensor_list(tensors_list[0])]
    scope_name = "shuffle_batch_join" if join else "shuffle_batch"
    with ops.name_scope(name, scope_name, [t for tl in tensor_list_list for t in tl]) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        tensor_list_list = _validate_join(tensor_list_list) if join else [_validate(tensor_list_list[0])]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = queue_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shapes,
            shared_name=shared_name,
        )
        if join:
            _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        else:
            _enqueue(queue, tensor_list_list[0], num_threads, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors_list[0], dequeued)


# The maybe_ family: each element (or, with enqueue_many, each row) goes into the batch only where keep_input is
# true; a scalar keep_input keeps or drops a whole enqueue.
def maybe_batch(
    tensors,
    keep_input,
    batch_size,
    num_threads=1,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As batch, keeping only the elements for which `keep_input` is true.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.train.limit_epochs(tw.constant([1, 2, 3, 4, 5, 6]), num_epochs=1)
      ...     b = tw.train.maybe_batch([x], tw.equal(x % 2, 0), batch_size=2, enqueue_many=True,
      ...                              allow_smaller_final_batch=True)
      ...     sess.run(tw.local_variables_initializer())
      ...     coord = tw.train.Coordinator()
      ...     threads = tw.train.start_queue_runners(sess, coord)
      ...     print([sess.run(b).tolist() for _ in range(2)])
      ...     coord.request_stop(); coord.join(threads)
      [[2, 4], [6]]
    """
    return _batch(
        tensors,
        batch_size,
        keep_input,
        num_threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_batch_join(
    tensors_list,
    keep_input,
    batch_size,
    capacity=32,
    enqueue_many=False,
    shapes=None,
    dynamic_pad=False,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As batch_join, keeping only the elements for which `keep_input` is true."""
    return _batch_join(
        tensors_list,
        batch_size,
        keep_input,
        capacity,
        enqueue_many,
        shapes,
        dynamic_pad,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def maybe_shuffle_batch(
    tensors,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    num_threads=1,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As shuffle_batch, keeping only the elements for which `keep_input` is true."""
    return _shuffle_batch(
        [tensors],
        False,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        num_threads,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )


def maybe_shuffle_batch_join(
    tensors_list,
    batch_size,
    capacity,
    min_after_dequeue,
    keep_input,
    seed=None,
    enqueue_many=False,
    shapes=None,
    allow_smaller_final_batch=False,
    shared_name=None,
    name=None,
):
    """As shuffle_batch_join, keeping only the elements for which `keep_input` is true."""
    return _shuffle_batch(
        tensors_list,
        True,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        1,
        seed,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        shared_name,
        name,
    )
