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
    "unbatch",
]
