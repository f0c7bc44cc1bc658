"""TF1's sequence feature columns: categorical columns over a sequence of ids per example and a numeric column
over a sequence of values. As in TensorFlow 1, the categorical ones parse and feed linear_model like their
non-sequence column, and input_layer rejects them (embedding/indicator columns of them included: TF builds
sequence input with SequenceFeatures); sequence_numeric_column is a v2 column that the v1 functions reject.

Example:
  >>> import tensorweave as tw
  >>> c = tw.feature_column.sequence_categorical_column_with_identity("ids", 5)
  >>> c.name, c.num_buckets
  ('ids', 5)
"""

import collections

import numpy as np

from tensorweave._src.feature_column import feature_column as fc
from tensorweave._src.framework import dtypes


class SequenceCategoricalColumn(
    fc._CategoricalColumn, collections.namedtuple("SequenceCategoricalColumn", "categorical_column")
):
    """A categorical column whose ids per example form a sequence."""

    _is_sequence = True
    name = property(lambda self: self.categorical_column.name)
    num_buckets = property(lambda self: self.categorical_column.num_buckets)
    parse_example_spec = property(lambda self: self.categorical_column.parse_example_spec)

    def _transform_feature(self, builder):
        return builder.get(self.categorical_column)

    def _sparse(self, builder):
        return self.categorical_column._sparse(builder)


def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """categorical_column_with_identity over a sequence of ids per example."""
    return SequenceCategoricalColumn(fc.categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """categorical_column_with_hash_bucket over a sequence per example."""
    return SequenceCategoricalColumn(fc.categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_file(
    key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0, default_value=None, dtype=dtypes.string
):
    """categorical_column_with_vocabulary_file over a sequence per example."""
    return SequenceCategoricalColumn(
        fc.categorical_column_with_vocabulary_file(
            key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype
        )
    )


def sequence_categorical_column_with_vocabulary_list(
    key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0
):
    """categorical_column_with_vocabulary_list over a sequence per example."""
    return SequenceCategoricalColumn(
        fc.categorical_column_with_vocabulary_list(key, vocabulary_list, dtype, default_value, num_oov_buckets)
    )


class SequenceNumericColumn(
    collections.namedtuple("SequenceNumericColumn", "key shape default_value dtype normalizer_fn")
):
    """A sequence of real-valued `shape` values per example (a v2 column: the v1 functions reject it)."""

    name = property(lambda self: self.key)

    @property
    def parse_example_spec(self):
        return {self.key: fc._api().io.VarLenFeature(self.dtype)}


def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32, normalizer_fn=None):
    """A sequence of real values of `shape` per example; missing steps are `default_value`."""
    fc._check_key(key, "sequence_numeric_column")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
    if any(d < 1 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, tuple(int(d) for d in shape), default_value, dtype, normalizer_fn)
