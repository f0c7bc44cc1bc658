"""Input functions over numpy arrays and pandas DataFrames (TensorFlow 1's `tf.estimator.inputs`).

Example:
  >>> import numpy as np
  >>> import tensorweave as tw
  >>> fn = tw.estimator.inputs.numpy_input_fn({"x": np.arange(5.0)}, np.arange(5), batch_size=2, shuffle=False)
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     features, labels = fn()
  ...     print(sess.run(labels), sess.run(labels), sess.run(labels))
  [0 1] [2 3] [4]
"""

import collections

import numpy as np

_TARGET_KEY = "__target_key__"


def _as_arrays(value, what):
    if isinstance(value, dict):
        return collections.OrderedDict((k, np.asarray(v)) for k, v in value.items())
    if isinstance(value, (np.ndarray, list, tuple)) or np.isscalar(value):
        return np.asarray(value)
    raise TypeError(f"{what} must be a dict or array; got {type(value).__name__}")


def _lengths(arrays):
    flat = arrays.values() if isinstance(arrays, dict) else [arrays]
    return {a.shape[0] if a.ndim else None for a in flat}


def _batches(x, y, batch_size, num_epochs, shuffle, seed):
    """A generator function of (features, target) batches: `num_epochs` passes (None: without end) over the rows,
    shuffled per pass when asked, the last batch of the data short when the number of rows does not divide."""
    (n,) = _lengths(x)

    def take(value, rows):
        if isinstance(value, dict):
            return {k: v[rows] for k, v in value.items()}
        return value[rows]

    def generate():
        rng = np.random.RandomState(seed)
        epoch = 0
        order = np.arange(n)
        pending = np.zeros([0], np.int64)
        while num_epochs is None or epoch < num_epochs:
            rows = rng.permutation(n) if shuffle else order
            epoch += 1
            pending = np.concatenate([pending, rows])
            # Batches may span epochs (as TF's queue does) unless this was the last one.
            last = num_epochs is not None and epoch >= num_epochs
            while len(pending) >= batch_size or (last and len(pending)):
                batch, pending = pending[:batch_size], pending[batch_size:]
                features = take(x, batch)
                yield features if y is None else (features, take(y, batch))

    return generate


def _spec(value):
    from tensorweave._src.framework import dtypes

    def one(a):
        return dtypes.as_dtype(a.dtype if a.dtype != np.object_ else np.bytes_), [None] + list(a.shape[1:])

    if isinstance(value, dict):
        pairs = {k: one(v) for k, v in value.items()}
        return {k: t for k, (t, _) in pairs.items()}, {k: s for k, (_, s) in pairs.items()}
    return one(value)


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """An input_fn that feeds `x` (a dict of arrays, or one array) and `y` (an array, a dict of arrays, or None)
    in batches of `batch_size` rows: `num_epochs` passes over the data (None: without end), shuffled when
    `shuffle` (which must be given). The input_fn returns (features, labels), or features when `y` is None; the
    last batch is short when the rows do not divide into batches, and reading past the end raises
    `OutOfRangeError`, which ends an Estimator's training or evaluation."""
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided explicitly as a bool, it is given {shuffle}")
    if batch_size is None or int(batch_size) <= 0:
        raise ValueError(f"batch_size must be positive, given {batch_size}")
    if num_epochs is not None and int(num_epochs) <= 0:
        raise ValueError(f"num_epochs must be positive or None, given {num_epochs}")
    del queue_capacity, num_threads  # (TF's feeding queue; batches here come from a generator)

    def input_fn():
        from tensorweave._src.data.dataset_ops import Dataset
        from tensorweave._src.framework import ops

        features = _as_arrays(x, "x")
        if isinstance(features, dict) and not features:
            raise ValueError("x cannot be an empty dict")
        target = None if y is None else _as_arrays(y, "y")
        if isinstance(features, dict) and isinstance(target, dict):
            duplicates = set(features) & set(target)
            if duplicates:
                raise ValueError(f"{len(duplicates)} duplicate keys are found in both x and y: {sorted(duplicates)}")
        lengths = _lengths(features) | (set() if target is None else _lengths(target))
        if len(lengths) != 1 or None in lengths:
            shapes = lambda v: {k: a.shape for k, a in v.items()} if isinstance(v, dict) else v.shape
            raise ValueError(
                "Length of tensors in x and y is mismatched. All elements in x and y must have the same length.\n"
                f"Shapes in x: {shapes(features)}\nShapes in y: {None if target is None else shapes(target)}\n"
            )
        seed = ops.get_default_graph().seed
        generator = _batches(features, target, int(batch_size), num_epochs, shuffle, seed)
        types, shapes = _spec(features)
        if target is not None:
            target_types, target_shapes = _spec(target)
            types, shapes = (types, target_types), (shapes, target_shapes)
        dataset = Dataset.from_generator(generator, output_types=types, output_shapes=shapes)
        return dataset.make_one_shot_iterator().get_next()

    return input_fn


def pandas_input_fn(
    x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1, target_column="target"
):
    """`numpy_input_fn` over a pandas DataFrame `x` (its columns are the features) and a Series `y`, whose index
    must match x's."""
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided explicitly as a bool, it is given {shuffle}")
    if y is not None:
        if target_column in x:
            raise ValueError(
                f"Cannot use name {target_column} for target column: DataFrame already has a column with that name"
            )
        if not np.array_equal(np.asarray(x.index), np.asarray(y.index)):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\nIndex for y: {y.index}\n")
        y = y.values
    features = {str(column): x[column].values for column in x.columns}
    return numpy_input_fn(features, y, batch_size, num_epochs, shuffle, queue_capacity, num_threads)
