"""TF1's feature columns (`tf.feature_column`): how raw features (a dict of
Tensors and SparseTensors, e.g. from `tf.parse_example`) become a model's
dense input (`input_layer`) or a linear model's logits (`linear_model`).

Dense columns (`numeric_column`, `bucketized_column`, `indicator_column`,
`embedding_column`) give each example a fixed-size vector; categorical columns
(identity, hash bucket, vocabulary, bucketized, crossed, weighted) give sparse
ids in [0, num_buckets). Columns are combined in the order of their names, and
variables are named as TensorFlow names them
(`input_layer/<column>/embedding_weights`, `linear_model/<column>/weights`,
`linear_model/bias_weights`), so checkpoints carry over.

Example:
  >>> import tensorweave as tw
  >>> fc = tw.feature_column
  >>> with tw.Graph().as_default():
  ...     color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
  ...     net = fc.input_layer({"age": [[20.0], [40.0]], "color": [["blue"], ["red"]]},
  ...                          [fc.numeric_column("age"), fc.indicator_column(color)])
  ...     sess = tw.Session()
  ...     sess.run(tw.tables_initializer())  # the vocabulary's lookup table
  ...     print(sess.run(net))
  [[20.  0.  0.  1.]
   [40.  1.  0.  0.]]
"""

import collections
import math

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import sparse_tensor as sparse_tensor_lib
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import lookup_ops


def _api():
    import tensorweave as tw  # the public API: the columns compose its ops

    return tw


# --- raw features ---------------------------------------------------------------------------------------------------


class _LazyBuilder:
    """The features of one call, each column's transform computed once."""

    def __init__(self, features):
        if not isinstance(features, collections.abc.Mapping):
            raise ValueError(f"features should be a dictionary of Tensors, got {type(features).__name__}")
        self._features = dict(features)
        self._cache = {}
        self.layer_scope = None  # the variable scope of the input_layer being built

    def get(self, key):
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            if key not in self._features:
                raise ValueError(f"The feature '{key}' is not in features dictionary.")
            value = self._features[key]
            if not isinstance(value, sparse_tensor_lib.SparseTensor):
                value = ops.convert_to_tensor(value)
                if value.shape.ndims == 1:
                    value = _api().expand_dims(value, -1)  # a rank-1 feature is one value per example
            self._cache[key] = value
            return value
        value = key._transform_feature(self)
        self._cache[key] = value
        return value


def _to_sparse(value, ignore_value=None):
    """A dense feature as a SparseTensor without its ignored entries ('' for
    strings, -1 for integers); a SparseTensor as it is."""
    tw = _api()
    if isinstance(value, sparse_tensor_lib.SparseTensor):
        return value
    if ignore_value is None:
        ignore_value = "" if value.dtype == dtypes.string else -1
    keep = tw.not_equal(value, tw.constant(ignore_value, value.dtype))
    indices = tw.where(keep)
    return tw.SparseTensor(indices, tw.gather_nd(value, indices), tw.shape(value, out_type=dtypes.int64))


def _check_compatible(column, incompatible, sp):
    if incompatible:
        raise ValueError(
            f"Column dtype and SparseTensors dtype must be compatible. key: {column.key}, "
            f"column dtype: {column.dtype}, tensor dtype: {sp.dtype}"
        )


def _check_key(key, what):
    if not isinstance(key, str) or not key:
        raise ValueError(f"{what}: key must be a non-empty string, given: {key!r}")


def _sorted(columns, what):
    columns = list(columns) if isinstance(columns, (list, tuple, set)) else [columns]
    if not columns:
        raise ValueError(f"{what}: feature_columns must not be empty.")
    names = [c.name for c in columns]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"{what}: duplicate feature column names: {duplicated}")
    return sorted(columns, key=lambda c: c.name)


# --- columns --------------------------------------------------------------------------------------------------------


class _FeatureColumn:
    """A column: its `name` and the features it parses (`parse_example_spec`)."""

    @property
    def name(self):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__.lstrip('_')}(name={self.name!r})"


class _DenseColumn(_FeatureColumn):
    """A column with a fixed-size dense vector per example."""


class _CategoricalColumn(_FeatureColumn):
    """A column of sparse ids in [0, num_buckets)."""

    def _sparse(self, builder):
        """(ids, weights or None) as SparseTensors of the examples."""
        return builder.get(self), None


class NumericColumn(
    _DenseColumn, collections.namedtuple("NumericColumn", "key shape default_value dtype normalizer_fn")
):
    name = property(lambda self: self.key)

    @property
    def parse_example_spec(self):
        return {self.key: _api().io.FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _transform_feature(self, builder):
        value = builder.get(self.key)
        if isinstance(value, sparse_tensor_lib.SparseTensor):
            raise ValueError(
                f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not supported. "
                f"key: {self.key}"
            )
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return _api().cast(value, dtypes.float32)

    def _dense(self, builder, trainable):
        del trainable
        value = builder.get(self)
        size = int(np.prod(self.shape))
        return _api().reshape(value, [-1, size], name=None)


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32, normalizer_fn=None):
    """A real-valued feature of `shape` per example."""
    _check_key(key, "numeric_column")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape or any(not isinstance(d, (int, np.integer)) or d < 1 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    if default_value is not None:
        default = np.asarray(default_value, dtype.as_numpy_dtype)
        if default.size not in (1, int(np.prod(shape))):
            raise ValueError(
                f"The shape of default_value must be equal to given shape. default_value: "
                f"{default_value}, shape: {shape}, key: {key}"
            )
        default_value = tuple(np.broadcast_to(default, shape).ravel().tolist())
    return NumericColumn(key, tuple(int(d) for d in shape), default_value, dtype, normalizer_fn)


class BucketizedColumn(
    _DenseColumn, _CategoricalColumn, collections.namedtuple("BucketizedColumn", "source_column boundaries")
):
    name = property(lambda self: self.source_column.name + "_bucketized")
    parse_example_spec = property(lambda self: self.source_column.parse_example_spec)

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * int(np.prod(self.source_column.shape))

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape(list(self.source_column.shape) + [len(self.boundaries) + 1])

    def _transform_feature(self, builder):
        tw = _api()
        n = int(np.prod(self.source_column.shape))
        flat = tw.reshape(builder.get(self.source_column), [-1])
        boundaries = tw.constant(list(self.boundaries), dtypes.float32)
        buckets = tw.searchsorted(boundaries, flat, side="right", out_type=dtypes.int64)
        return tw.reshape(buckets, [-1, n])

    def _dense(self, builder, trainable):
        del trainable
        tw = _api()
        one_hot = tw.one_hot(builder.get(self), len(self.boundaries) + 1, dtype=dtypes.float32)
        return tw.reshape(one_hot, [-1, self.num_buckets])

    def _sparse(self, builder):
        tw = _api()
        buckets = builder.get(self)  # [batch, n] ids in [0, len(boundaries)]
        n = int(np.prod(self.source_column.shape))
        offsets = tw.constant(np.arange(n, dtype=np.int64) * (len(self.boundaries) + 1))
        ids = buckets + offsets
        batch = tw.shape(ids, out_type=dtypes.int64)[0]
        rows = tw.reshape(tw.tile(tw.expand_dims(tw.range(batch), 1), [1, n]), [-1])
        cols = tw.tile(tw.range(n, dtype=dtypes.int64), [batch])
        indices = tw.stack([rows, cols], axis=1)
        return tw.SparseTensor(indices, tw.reshape(ids, [-1]), tw.stack([batch, n])), None


def bucketized_column(source_column, boundaries):
    """A numeric column cut into ranges: bucket i holds boundaries[i-1] <= x < boundaries[i]."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    boundaries = list(boundaries) if isinstance(boundaries, (list, tuple)) else None
    if not boundaries or any(b >= c for b, c in zip(boundaries, boundaries[1:])):
        raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(float(b) for b in boundaries))


class IdentityCategoricalColumn(
    _CategoricalColumn, collections.namedtuple("IdentityCategoricalColumn", "key number_buckets default_value")
):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.number_buckets)

    @property
    def parse_example_spec(self):
        return {self.key: _api().io.VarLenFeature(dtypes.int64)}

    def _transform_feature(self, builder):
        tw = _api()
        sp = _to_sparse(builder.get(self.key))
        if not sp.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {sp.dtype}")
        values = tw.cast(sp.values, dtypes.int64)
        in_range = tw.logical_and(values >= 0, values < self.number_buckets)
        if self.default_value is not None:
            values = tw.where(
                in_range, values, tw.fill(tw.shape(values), tw.constant(self.default_value, dtypes.int64))
            )
        else:
            check = tw.Assert(
                tw.reduce_all(in_range),
                [
                    f"categorical_column_with_identity '{self.key}': ids must be in [0, {self.number_buckets}); got",
                    values,
                ],
                name="assert_ids_in_range",
            )
            with ops.control_dependencies([check]):
                values = tw.identity(values)
        return tw.SparseTensor(sp.indices, values, sp.dense_shape)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer ids used as they are; out-of-range ids become `default_value`, or fail the step when it is None."""
    _check_key(key, "categorical_column_with_identity")
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


def _hash_ids(values, buckets):
    tw = _api()
    if values.dtype != dtypes.string:
        values = tw.as_string(values)
    return tw.string_to_hash_bucket_fast(values, buckets)


class HashedCategoricalColumn(
    _CategoricalColumn, collections.namedtuple("HashedCategoricalColumn", "key hash_bucket_size dtype")
):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: self.hash_bucket_size)

    @property
    def parse_example_spec(self):
        return {self.key: _api().io.VarLenFeature(self.dtype)}

    def _transform_feature(self, builder):
        sp = _to_sparse(builder.get(self.key))
        _check_compatible(self, sp.dtype != dtypes.string and not sp.dtype.is_integer, sp)
        return lookup_ops.map_values(sp, lambda values: _hash_ids(values, self.hash_bucket_size))


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Strings (or integers, as their decimal strings) hashed into `hash_bucket_size` ids (TF's fast fingerprint)."""
    _check_key(key, "categorical_column_with_hash_bucket")
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype}, column_name: {key}")
    return HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


class VocabularyListCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple(
        "VocabularyListCategoricalColumn", "key vocabulary_list dtype default_value num_oov_buckets"
    ),
):
    name = property(lambda self: self.key)
    num_buckets = property(lambda self: len(self.vocabulary_list) + self.num_oov_buckets)

    @property
    def parse_example_spec(self):
        return {self.key: _api().io.VarLenFeature(self.dtype)}

    def _transform_feature(self, builder):
        """Ids through a vocabulary table (TF's `index_table_from_tensor`): run
        `tables_initializer()` (or a MonitoredSession / Scaffold) before using them."""
        tw = _api()
        sp = _to_sparse(builder.get(self.key))
        _check_compatible(self, (sp.dtype == dtypes.string) != (self.dtype == dtypes.string), sp)
        if sp.dtype != dtypes.string and sp.dtype != dtypes.int64:
            sp = lookup_ops.map_values(sp, lambda values: tw.cast(values, dtypes.int64))
        with ops.name_scope(None, f"{self.key}_lookup"):
            vocab = lookup_ops.KeyValueTensorInitializer(
                list(self.vocabulary_list), np.arange(len(self.vocabulary_list), dtype=np.int64), sp.dtype
            )
            if self.num_oov_buckets:
                table = lookup_ops.StaticVocabularyTable(vocab, self.num_oov_buckets)
            else:
                table = lookup_ops.StaticHashTable(vocab, self.default_value)
        return table.lookup(sp)


def _vocabulary_column(key, vocabulary, dtype, default_value, num_oov_buckets, what):
    _check_key(key, what)
    if not vocabulary:
        raise ValueError(f"vocabulary_list {vocabulary} must be non-empty, column_name: {key}")
    if len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary}, column_name: {key}")
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    strings = all(isinstance(v, (str, bytes)) for v in vocabulary)
    if not strings and not all(isinstance(v, (int, np.integer)) for v in vocabulary):
        raise ValueError(f"vocabulary_list must be all strings or all integers, column_name: {key}")
    inferred = dtypes.string if strings else dtypes.int64
    dtype = inferred if dtype is None else dtypes.as_dtype(dtype)
    if (dtype == dtypes.string) != strings:
        raise ValueError(f"dtype {dtype} and vocabulary dtype {inferred} do not match, column_name: {key}")
    vocab = (
        tuple(v.decode() if isinstance(v, bytes) else v for v in vocabulary)
        if strings
        else tuple(int(v) for v in vocabulary)
    )
    return VocabularyListCategoricalColumn(key, vocab, dtype, int(default_value), int(num_oov_buckets or 0))


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Each value's index in `vocabulary_list`; others get `default_value`
    (-1: dropped by indicator/embedding columns) or one of `num_oov_buckets`
    hash buckets after the vocabulary."""
    return _vocabulary_column(
        key, list(vocabulary_list), dtype, default_value, num_oov_buckets, "categorical_column_with_vocabulary_list"
    )


def categorical_column_with_vocabulary_file(
    key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0, default_value=None, dtype=dtypes.string
):
    """As `categorical_column_with_vocabulary_list`, the vocabulary one entry
    per line of `vocabulary_file` (its first `vocabulary_size` lines)."""
    _check_key(key, "categorical_column_with_vocabulary_file")
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    from tensorweave._src.platform import gfile

    with gfile.GFile(vocabulary_file, "r") as f:
        lines = [line.rstrip("\r\n") for line in f]
    if vocabulary_size is not None:
        if vocabulary_size < 1 or vocabulary_size > len(lines):
            raise ValueError(f"Invalid vocabulary_size {vocabulary_size} in {key}: the file has {len(lines)} lines")
        lines = lines[:vocabulary_size]
    dtype = dtypes.as_dtype(dtype)
    vocab = lines if dtype == dtypes.string else [int(v) for v in lines]
    default = -1 if default_value is None else default_value
    return _vocabulary_column(key, vocab, dtype, default, num_oov_buckets, "categorical_column_with_vocabulary_file")


class WeightedCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple("WeightedCategoricalColumn", "categorical_column weight_feature_key dtype"),
):
    name = property(lambda self: f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}")
    num_buckets = property(lambda self: self.categorical_column.num_buckets)

    @property
    def parse_example_spec(self):
        spec = dict(self.categorical_column.parse_example_spec)
        spec[self.weight_feature_key] = _api().io.VarLenFeature(self.dtype)
        return spec

    def _transform_feature(self, builder):
        weights = builder.get(self.weight_feature_key)
        weights = (
            _to_sparse(weights, ignore_value=0.0)
            if not isinstance(weights, sparse_tensor_lib.SparseTensor)
            else weights
        )
        ids, _ = self.categorical_column._sparse(builder)
        return ids, _api().SparseTensor(
            weights.indices, _api().cast(weights.values, dtypes.float32), weights.dense_shape
        )

    def _sparse(self, builder):
        return builder.get(self)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """A categorical column whose ids are weighted by the feature `weight_feature_key` (same indices)."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column. Given: {categorical_column}")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


class CrossedColumn(_CategoricalColumn, collections.namedtuple("CrossedColumn", "keys hash_bucket_size hash_key")):
    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys))

    num_buckets = property(lambda self: self.hash_bucket_size)

    @property
    def parse_example_spec(self):
        spec = {}
        for key in self.keys:
            spec.update(
                {key: _api().io.VarLenFeature(dtypes.string)} if isinstance(key, str) else key.parse_example_spec
            )
        return spec

    def _transform_feature(self, builder):
        inputs = []
        for key in self.keys:
            # a raw feature crosses as it is: a dense one keeps its '' or -1 entries (TF's cross does)
            inputs.append(builder.get(key) if isinstance(key, str) else key._sparse(builder)[0])
        return _api().sparse.cross_hashed(inputs, num_buckets=self.hash_bucket_size, hash_key=self.hash_key)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The hashed cross product of string features and categorical columns' ids."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(
                f"Unsupported key type. All keys must be either string, or categorical column except "
                f"HashedCategoricalColumn. Given: {key}"
            )
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(
                f"categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                f"crossing will increase probability of collision. Instead, use the feature name as a "
                f"string. Given: {key}"
            )
    return CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)


class IndicatorColumn(_DenseColumn, collections.namedtuple("IndicatorColumn", "categorical_column")):
    name = property(lambda self: self.categorical_column.name + "_indicator")
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape([self.categorical_column.num_buckets])

    def _dense(self, builder, trainable):
        """Per example, the count (or summed weight) of each id; ids < 0 are dropped."""
        del trainable
        tw = _api()
        ids, weights = self.categorical_column._sparse(builder)
        depth = self.categorical_column.num_buckets
        one_hot = tw.one_hot(ids.values, depth, dtype=dtypes.float32)  # an id of -1 is a row of zeros
        if weights is not None:
            one_hot = one_hot * tw.expand_dims(weights.values, 1)
        rows = ids.indices[:, 0]
        batch = ids.dense_shape[0]
        return tw.unsorted_segment_sum(one_hot, rows, tw.cast(batch, dtypes.int32))


def indicator_column(categorical_column):
    """A categorical column as a multi-hot (or weight-summed) dense vector of num_buckets."""
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return IndicatorColumn(categorical_column)


class EmbeddingColumn(
    _DenseColumn,
    collections.namedtuple(
        "EmbeddingColumn",
        "categorical_column dimension combiner initializer ckpt_to_load_from tensor_name_in_ckpt max_norm trainable "
        "shared_name",
    ),
):
    @property
    def name(self):
        suffix = "_shared_embedding" if self.shared_name else "_embedding"
        return self.categorical_column.name + suffix

    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)

    @property
    def variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])

    def _weights(self, builder, trainable):
        tw = _api()
        shape = [self.categorical_column.num_buckets, self.dimension]
        if self.shared_name:  # one variable per graph, made beside the columns' scopes: <layer>/<shared name>/
            graph = ops.get_default_graph()
            cache = graph.__dict__.setdefault("_shared_embedding_weights", {})
            if self.shared_name not in cache:
                with (
                    tw.variable_scope(builder.layer_scope, auxiliary_name_scope=False),
                    tw.variable_scope(self.shared_name, reuse=tw.AUTO_REUSE),
                ):
                    cache[self.shared_name] = tw.get_variable(
                        "embedding_weights",
                        shape,
                        dtypes.float32,
                        self.initializer,
                        trainable=self.trainable and trainable,
                    )
            weights = cache[self.shared_name]
        else:
            weights = tw.get_variable(
                "embedding_weights", shape, dtypes.float32, self.initializer, trainable=self.trainable and trainable
            )
        if self.ckpt_to_load_from is not None:
            tw.train.init_from_checkpoint(self.ckpt_to_load_from, {self.tensor_name_in_ckpt: weights})
        return weights

    def _dense(self, builder, trainable):
        tw = _api()
        ids, weights = self.categorical_column._sparse(builder)
        return tw.nn.safe_embedding_lookup_sparse(
            self._weights(builder, trainable), ids, weights, combiner=self.combiner, max_norm=self.max_norm
        )


def _embedding_args(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified, got {initializer!r}")
    if initializer is None:
        initializer = _api().truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


def embedding_column(
    categorical_column,
    dimension,
    combiner="mean",
    initializer=None,
    ckpt_to_load_from=None,
    tensor_name_in_ckpt=None,
    max_norm=None,
    trainable=True,
    use_safe_embedding_lookup=True,
):
    """A categorical column as the `combiner` of its ids' rows of an
    [num_buckets, dimension] variable (default initializer: truncated normal,
    stddev 1/sqrt(dimension)); examples without ids get zeros."""
    del use_safe_embedding_lookup
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column. Given: {categorical_column}")
    initializer = _embedding_args(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt)
    return EmbeddingColumn(
        categorical_column,
        int(dimension),
        combiner,
        initializer,
        ckpt_to_load_from,
        tensor_name_in_ckpt,
        max_norm,
        trainable,
        None,
    )


def shared_embedding_columns(
    categorical_columns,
    dimension,
    combiner="mean",
    initializer=None,
    shared_embedding_collection_name=None,
    ckpt_to_load_from=None,
    tensor_name_in_ckpt=None,
    max_norm=None,
    trainable=True,
    use_safe_embedding_lookup=True,
):
    """Embedding columns of several categorical columns of one num_buckets that share one variable."""
    del use_safe_embedding_lookup
    columns = list(categorical_columns)
    if not columns or any(not isinstance(c, _CategoricalColumn) for c in columns):
        raise ValueError(f"All categorical_columns must be categorical columns. Given: {columns}")
    if len({c.num_buckets for c in columns}) != 1:
        raise ValueError(
            f"To use shared_embedding_column, all categorical_columns must have the same number of buckets. "
            f"Given: {[(c.name, c.num_buckets) for c in columns]}"
        )
    initializer = _embedding_args(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt)
    shared = shared_embedding_collection_name or "_".join(sorted(c.name for c in columns)) + "_shared_embedding"
    return [
        EmbeddingColumn(
            c,
            int(dimension),
            combiner,
            initializer,
            ckpt_to_load_from,
            tensor_name_in_ckpt,
            max_norm,
            trainable,
            shared,
        )
        for c in columns
    ]


# --- models ---------------------------------------------------------------------------------------------------------


def _add_to_collections(variables, collections_):
    for name in collections_ or ():
        for v in variables:
            if v not in ops.get_collection(name):
                ops.add_to_collection(name, v)


def _new_variables(before):
    return [v for v in _api().global_variables() if v not in before]


def input_layer(
    features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None, cols_to_output_tensors=None
):
    """The dense input of a model: each column's [batch, n] tensor, columns in
    the order of their names, concatenated on axis 1."""
    tw = _api()
    columns = dense_columns(feature_columns, "input_layer")
    builder = _LazyBuilder(features)
    with tw.variable_scope(None, default_name="input_layer", values=list(builder._features.values())):
        return dense_input(builder, columns, trainable, weight_collections, cols_to_vars, cols_to_output_tensors)


def dense_columns(feature_columns, caller):
    """`feature_columns` in the order of their names, checked to be dense (input_layer's and DenseFeatures')."""
    columns = _sorted(feature_columns, caller)
    for c in columns:
        if not isinstance(c, _FeatureColumn):
            msg = f"Items of feature_columns must be a _FeatureColumn. Given (type {type(c)}): {c}."
            raise ValueError(msg)  # noqa: TRY004  (TF's ValueError)
        if getattr(getattr(c, "categorical_column", None), "_is_sequence", False):
            kind = "embedding_column" if isinstance(c, EmbeddingColumn) else "indicator_column"
            raise ValueError(
                f"In {kind}: {c.name}. categorical_column must not be of type _SequenceCategoricalColumn. "
                "Suggested fix A: If you wish to use DenseFeatures, use a non-sequence categorical_column_with_*. "
                "Suggested fix B: If you wish to create sequence input, use SequenceFeatures instead of DenseFeatures. "
                f"Given (type {type(c.categorical_column)}): {c.categorical_column}"
            )
        if not isinstance(c, _DenseColumn):
            raise ValueError(
                f"Items of feature_columns must be a _DenseColumn. You can wrap a categorical column with an "
                f"embedding_column or indicator_column. Given: {c}"
            )
    return columns


def dense_input(builder, columns, trainable, weight_collections=None, cols_to_vars=None, cols_to_output_tensors=None):
    """The columns' [batch, n] tensors concatenated on axis 1, each column's variables made in a variable scope of
    its name inside the current one (input_layer's, or a DenseFeatures layer's)."""
    tw = _api()
    builder.layer_scope = tw.get_variable_scope()
    outputs = []
    for column in columns:
        before = set(tw.global_variables())
        with tw.variable_scope(None, default_name=column.name):
            tensor = column._dense(builder, trainable)
            size = int(np.prod(column.variable_shape.as_list()))
            tensor = tw.reshape(tensor, [-1, size])
        created = _new_variables(before)
        _add_to_collections(created, weight_collections)
        if cols_to_vars is not None:
            cols_to_vars[column] = created
        if cols_to_output_tensors is not None:
            cols_to_output_tensors[column] = tensor
        outputs.append(tensor)
    return tw.concat(outputs, 1)


def linear_model(
    features,
    feature_columns,
    units=1,
    sparse_combiner="sum",
    weight_collections=None,
    trainable=True,
    cols_to_vars=None,
):
    """Logits [batch, units] of a linear model: per column a weights variable
    (`linear_model/<column>/weights`, zeros) applied to its dense values or
    combined over its ids (`sparse_combiner`: sum, mean or sqrtn), plus
    `linear_model/bias_weights`."""
    tw = _api()
    if sparse_combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"sparse_combiner must be one of 'mean', 'sqrtn' or 'sum', got {sparse_combiner!r}")
    columns = _sorted(feature_columns, "linear_model")
    builder = _LazyBuilder(features)
    terms = []
    with tw.variable_scope(None, default_name="linear_model", values=list(builder._features.values())):
        for column in columns:
            with tw.variable_scope(None, default_name=column.name):
                if isinstance(column, _CategoricalColumn):  # bucketized columns too: by their bucket ids
                    weights = tw.get_variable(
                        "weights",
                        [column.num_buckets, units],
                        dtypes.float32,
                        tw.zeros_initializer(),
                        trainable=trainable,
                    )
                    ids, id_weights = column._sparse(builder)
                    term = tw.nn.safe_embedding_lookup_sparse(weights, ids, id_weights, combiner=sparse_combiner)
                else:
                    dense = column._dense(builder, trainable)
                    size = int(np.prod(column.variable_shape.as_list()))
                    weights = tw.get_variable(
                        "weights", [size, units], dtypes.float32, tw.zeros_initializer(), trainable=trainable
                    )
                    term = tw.matmul(tw.reshape(dense, [-1, size]), weights)
            _add_to_collections([weights], weight_collections)
            if cols_to_vars is not None:
                cols_to_vars[column] = [weights]
            terms.append(term)
        bias = tw.get_variable("bias_weights", [units], dtypes.float32, tw.zeros_initializer(), trainable=trainable)
        _add_to_collections([bias], weight_collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return tw.nn.bias_add(tw.add_n(terms) if len(terms) > 1 else terms[0], bias, name="weighted_sum")


def make_parse_example_spec(feature_columns):
    """The `tf.parse_example` features dict that the columns read."""
    spec = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: {column}")
        for key, value in column.parse_example_spec.items():
            if key in spec and spec[key] != value:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}. Given {value} and {spec[key]}"
                )
            spec[key] = value
    return spec


# --- serialization (Keras saves a DenseFeatures layer's columns in its config) ------------------------------------


def serialize_column(column):
    """`{'class_name': ..., 'config': ...}` of a feature column, JSON-ready: nested columns likewise, dtypes by
    name, initializers by their config, a normalizer_fn by its name (given back through `custom_objects`)."""

    def value(field, v):
        if isinstance(v, _FeatureColumn):
            return serialize_column(v)
        if isinstance(v, dtypes.DType):
            return v.name
        if field == "initializer" and v is not None:
            return {"class_name": type(v).__name__, "config": v.get_config()}
        if field == "normalizer_fn" and v is not None:
            return getattr(v, "__name__", repr(v))
        if isinstance(v, (list, tuple)):
            return [value(field, x) for x in v]
        return v

    return {"class_name": type(column).__name__, "config": {f: value(f, v) for f, v in column._asdict().items()}}


def _column_classes():
    from tensorweave._src.feature_column import sequence_feature_column

    classes = {}
    for module in (globals(), vars(sequence_feature_column)):
        classes.update({k: v for k, v in module.items() if isinstance(v, type) and issubclass(v, _FeatureColumn)})
    return classes


def deserialize_column(config, custom_objects=None):
    """The feature column `serialize_column` described."""
    from tensorweave._src.ops import init_ops, init_partition_ops

    classes = _column_classes()
    cls = classes.get(config.get("class_name")) if isinstance(config, dict) else None
    if cls is None:
        raise ValueError(f"Unknown feature column: {config!r}")

    def value(field, v):
        if isinstance(v, dict) and "class_name" in v:
            if field == "initializer":
                init_cls = getattr(init_ops, v["class_name"], None) or getattr(init_partition_ops, v["class_name"])
                return init_cls.from_config(v["config"])
            return deserialize_column(v, custom_objects)
        if field == "dtype" and v is not None:
            return dtypes.as_dtype(v)
        if field == "normalizer_fn" and v is not None:
            fn = (custom_objects or {}).get(v)
            if fn is None:
                raise ValueError(f"Unknown normalizer_fn '{v}' of a feature column: pass it in custom_objects.")
            return fn
        if isinstance(v, list):
            return tuple(value(field, x) for x in v)
        return v

    return cls(**{f: value(f, v) for f, v in config["config"].items()})
