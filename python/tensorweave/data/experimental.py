"""tw.data.experimental: the parts of TensorFlow 1's `tf.data.experimental` tensorweave has."""

from tensorweave._src.data.dataset_ops import (
    AUTOTUNE,
    DatasetV1,
    cardinality,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from tensorweave._src.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tensorweave._src.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from tensorweave._src.data.experimental_ops import (
    SHARD_HINT,
    CsvDataset,
    DatasetInitializer,
    Optional,
    RandomDataset,
    Reducer,
    SqlDataset,
    TensorStructure,
    TFRecordWriter,
    assert_cardinality,
    copy_to_device,
    enable_debug_mode,
    from_list,
    get_next_as_optional,
    get_structure,
    group_by_reducer,
    index_table_from_dataset,
    make_batched_features_dataset,
    make_csv_dataset,
    pad_to_cardinality,
    parse_example_dataset,
    snapshot,
    table_from_dataset,
)
from tensorweave._src.data.options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)
from tensorweave._src.data.structure import DatasetSpec as DatasetStructure
from tensorweave._src.framework import dtypes


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


def map_and_batch_with_legacy_function(
    map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None
):
    """`map_and_batch` (TF1's spelling for a legacy map function)."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder, num_parallel_calls)


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


def Counter(start=0, step=1, dtype=dtypes.int64):
    """`start`, `start + step`, ... forever: `Dataset.counter(start, step, dtype)`."""
    return DatasetV1.counter(start, step, dtype)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """`Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)`."""
    return DatasetV1.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """`Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)`."""
    return DatasetV1.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def get_single_element(dataset):
    """`dataset.get_single_element()`."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}.")
    return dataset.get_single_element()


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """A transformation (for `Dataset.apply`): `dataset.group_by_window(...)`."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes=None,
    padding_values=None,
    pad_to_bucket_boundary=False,
    no_padding=False,
    drop_remainder=False,
):
    """A transformation (for `Dataset.apply`): `dataset.bucket_by_sequence_length(...)`."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes,
        padding_values,
        pad_to_bucket_boundary,
        no_padding,
        drop_remainder,
    )


def ignore_errors(log_warning=False):
    """A transformation (for `Dataset.apply`): `dataset.ignore_errors(log_warning)`."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation (for `Dataset.apply`): `dataset.rejection_resample(...)`."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def scan(initial_state, scan_func):
    """A transformation (for `Dataset.apply`): `dataset.scan(initial_state, scan_func)`."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation (for `Dataset.apply`): elements of varying shape batched into SparseTensors of dense shape
    [batch, *row_shape], each element's values at their own positions (TF's `dense_to_sparse_batch`)."""
    import tensorweave as tw

    def to_sparse(element):
        element = tw.convert_to_tensor(element)
        indices = tw.where(tw.fill(tw.shape(element), True))  # every position, row-major, as the values below
        return tw.SparseTensor(indices, tw.reshape(element, [-1]), tw.constant(row_shape, tw.int64))

    return lambda dataset: dataset.map(to_sparse).batch(batch_size)


def take_while(predicate):
    """A transformation (for `Dataset.apply`): `dataset.take_while(predicate)`."""
    return lambda dataset: dataset.take_while(predicate)


def unique():
    """A transformation (for `Dataset.apply`): `dataset.unique()`."""
    return lambda dataset: dataset.unique()


__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "SHARD_HINT",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "Counter",
    "CsvDataset",
    "DatasetInitializer",
    "dense_to_sparse_batch",
    "DatasetStructure",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "Optional",
    "get_next_as_optional",
    "RandomDataset",
    "Reducer",
    "SqlDataset",
    "TFRecordWriter",
    "TensorStructure",
    "ThreadingOptions",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "copy_to_device",
    "enable_debug_mode",
    "enumerate_dataset",
    "from_list",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "get_single_element",
    "get_structure",
    "group_by_reducer",
    "group_by_window",
    "ignore_errors",
    "index_table_from_dataset",
    "make_batched_features_dataset",
    "make_csv_dataset",
    "make_initializable_iterator",
    "make_one_shot_iterator",
    "map_and_batch",
    "map_and_batch_with_legacy_function",
    "pad_to_cardinality",
    "parallel_interleave",
    "parse_example_dataset",
    "prefetch_to_device",
    "rejection_resample",
    "sample_from_datasets",
    "scan",
    "shuffle_and_repeat",
    "snapshot",
    "table_from_dataset",
    "take_while",
    "unbatch",
    "unique",
]
