"""tw.data.experimental: the parts of TensorFlow 1's `tf.data.experimental` tensorweave has."""

from tensorweave._src.data.dataset_ops import (
    AUTOTUNE,
    cardinality,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from tensorweave._src.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tensorweave._src.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from tensorweave._src.data.options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)


def unbatch():
    """A transformation (for `Dataset.apply`) that unbatches: `dataset.unbatch()`."""
    return lambda dataset: dataset.unbatch()


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """A transformation (for `Dataset.apply`): `dataset.map(map_func).batch(batch_size, drop_remainder)`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     ds = tw.data.Dataset.range(5).apply(tw.data.experimental.map_and_batch(lambda i: i * 10, 2))
      ...     batch = tw.data.make_one_shot_iterator(ds).get_next()
      ...     print([sess.run(batch).tolist() for _ in range(3)])
      [[0, 10], [20, 30], [40]]
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually exclusive.")
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation (for `Dataset.apply`): `dataset.shuffle(buffer_size, seed).repeat(count)`, a new order
    each epoch."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


def parallel_interleave(
    map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None, prefetch_input_elements=None
):
    """A transformation (for `Dataset.apply`): `dataset.interleave(map_func, cycle_length, block_length)`, in
    the deterministic order (what `sloppy=False` asks for; a sloppy order may be any)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length=cycle_length, block_length=block_length)


def prefetch_to_device(device, buffer_size=None):
    """A transformation (for `Dataset.apply`): prefetches `buffer_size` elements (AUTOTUNE when None). The
    elements stay in host memory: the step's first op on `device` copies them there."""
    return lambda dataset: dataset.prefetch(AUTOTUNE if buffer_size is None else buffer_size)


def enumerate_dataset(start=0):
    """A transformation (for `Dataset.apply`) that enumerates: `dataset.enumerate(start)`."""
    return lambda dataset: dataset.enumerate(start)


__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "ThreadingOptions",
    "cardinality",
    "enumerate_dataset",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
    "map_and_batch",
    "parallel_interleave",
    "prefetch_to_device",
    "shuffle_and_repeat",
    "unbatch",
]
