"""Parsing tf.train.Example and SequenceExample protos (TF1's `tf.io` and top-level names): FixedLenFeature,
FixedLenSequenceFeature, VarLenFeature, SparseFeature, parse_example, parse_single_example (ParseExampleV2),
parse_sequence_example, parse_single_sequence_example (ParseSequenceExampleV2), serialize_sparse,
serialize_many_sparse, deserialize_many_sparse, and RaggedFeature (its values and partitions parsed as VarLen
features, then assembled as TF's parsing_config does)."""

import collections
import re

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.framework.sparse_tensor import SparseTensor
from tensorweave._src.framework.sparse_tensor import SparseTensorValue
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of fixed shape: `shape`, `dtype` (float32, int64 or string) and an optional default for
    examples that lack it (without one, a missing feature is an error)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple("FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])
):
    """A feature of any number of rows of fixed `shape`: in parse_example (which needs `allow_missing=True`)
    a [batch, max rows] + shape tensor padded with `default_value` (or 0 / ""); in parse_sequence_example's
    sequence features a [batch, steps] + shape tensor padded with zeros, and the lengths."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of variable length, parsed as a SparseTensor [batch, max count]."""


class SparseFeature(
    collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])
):
    """A SparseTensor built from two features of each example: `index_key` (int64 indices, or a list of keys for
    several dimensions), `value_key` (the values) and the dense `size` (an int or a list)."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(
    collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])
):
    """A feature parsed as a RaggedTensor [batch, (values)], or with `partitions` (outermost first: RowSplits,
    RowLengths, RowStarts, RowLimits or ValueRowIds of int64 features, or UniformRowLength)
    [batch, (rows), ..., (values)]; the values are the feature `value_key` (the feature's own key by default)."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        dtype = dtypes.as_dtype(dtype)
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Invalid row_splits_dtype: {row_splits_dtype}")
        kinds = (cls.RowSplits, cls.RowLengths, cls.RowStarts, cls.RowLimits, cls.ValueRowIds, cls.UniformRowLength)
        for partition in partitions:
            if not isinstance(partition, kinds):
                raise TypeError(
                    f"Unsupported partition {partition!r}: a RaggedFeature takes RowSplits, RowLengths, RowStarts, "
                    "RowLimits, ValueRowIds and UniformRowLength"
                )
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


def _ragged_var_len(features):
    """features with each RaggedFeature replaced by VarLenFeatures of its value and partition keys."""
    out = {k: v for k, v in features.items() if not isinstance(v, RaggedFeature)}
    for key, spec in features.items():
        if isinstance(spec, RaggedFeature):
            out[spec.value_key or key] = VarLenFeature(spec.dtype)
            for partition in spec.partitions:
                if not isinstance(partition, RaggedFeature.UniformRowLength):
                    out[partition.key] = VarLenFeature(dtypes.int64)
    return out


def _per_example_counts(sp, batch):
    """How many values of a batch of VarLen SparseTensors each example has."""
    from tensorweave._src.ops.ragged_tensor import _tw

    tw = _tw()
    rows = tw.cast(sp.indices[:, 0], dtypes.int32)
    return tw.math.bincount(rows, minlength=batch, maxlength=batch, dtype=dtypes.int64)


def _ragged_from_parsed(spec, key, tensors, batch):
    """The [batch, ...ragged] RaggedTensor of a RaggedFeature from its parsed VarLen SparseTensors."""
    from tensorweave._src.ops.ragged_tensor import RaggedTensor, _tw

    tw = _tw()
    values_sp = tensors[spec.value_key or key]
    rt = values_sp.values
    counts = _per_example_counts(values_sp, batch)  # rows of the current level in each example
    for partition in reversed(spec.partitions):
        if isinstance(partition, RaggedFeature.UniformRowLength):
            length = ops.convert_to_tensor(partition.length, dtype=dtypes.int64)
            counts = counts // length
            lengths = tw.fill(tw.reshape(tw.reduce_sum(counts), [1]), length)
            rt = RaggedTensor.from_row_lengths(rt, tw.cast(lengths, spec.row_splits_dtype), validate=spec.validate)
            continue
        sp = tensors[partition.key]
        v = sp.values
        n = _per_example_counts(sp, batch)
        if isinstance(partition, RaggedFeature.RowLengths):
            lengths = v
        elif isinstance(partition, RaggedFeature.RowStarts):
            # TF's from_row_starts over the batch: each start shifted by where its example's values begin; a
            # row ends where the next row (of any later example) starts, the last at the end of the values.
            example_starts = tw.math.cumsum(counts, exclusive=True)
            starts = v + tw.gather(example_starts, sp.indices[:, 0])
            limits = tw.concat([starts[1:], tw.reshape(tw.reduce_sum(counts), [1])], axis=0)
            lengths = limits - starts
            # Rows begin at the first start: values before it belong to no row (TF's unvalidated splits).
            first = tw.concat([starts, tw.reshape(tw.reduce_sum(counts), [1])], axis=0)[0]
            rt = rt[first:]
        elif isinstance(partition, RaggedFeature.ValueRowIds):
            # TF: an example has max(its row ids) + 1 rows (0 without ids); ids are shifted by the rows of
            # the examples before it, and a row's length is how many values carry its id.
            rowids = tw.cast(sp.indices[:, 0], dtypes.int32)
            n = tw.maximum(tw.math.unsorted_segment_max(v + 1, rowids, batch), 0)
            adjusted = v + tw.gather(tw.math.cumsum(n, exclusive=True), rowids)
            total = tw.cast(tw.reduce_sum(n), dtypes.int32)
            lengths = tw.math.bincount(
                tw.cast(adjusted, dtypes.int32), minlength=total, maxlength=total, dtype=dtypes.int64
            )
        else:
            # RowSplits / RowLimits: differences within an example; an example's first limit counts from 0,
            # its first split starts no row.
            rowids = sp.indices[:, 0]
            previous = tw.concat([tw.zeros([1], dtypes.int64), v], axis=0)[:-1]
            prev_ids = tw.concat([tw.constant([-1], dtypes.int64), rowids], axis=0)[:-1]
            same = tw.equal(prev_ids, rowids)
            diff = v - tw.where(same, previous, tw.zeros_like(v))
            if isinstance(partition, RaggedFeature.RowSplits):
                lengths = tw.boolean_mask(diff, same)
                n = tw.maximum(n - 1, 0)
            else:
                lengths = diff
        rt = RaggedTensor.from_row_lengths(rt, tw.cast(lengths, spec.row_splits_dtype), validate=spec.validate)
        counts = n
    return RaggedTensor.from_row_lengths(rt, tw.cast(counts, spec.row_splits_dtype), validate=spec.validate)


_ALLOWED = (dtypes.float32, dtypes.int64, dtypes.string)


def _check_dtype(key, dtype):
    if not dtype:
        raise ValueError(f"Missing type for feature {key}.")
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _ALLOWED:
        raise ValueError(f"Unsupported dtype {dtype.name} for feature {key!r}: float32, int64 or string")
    return dtype


class _Params:
    """The op's arguments for a dict of features (TF's _ParseOpParams): sparse keys, dense keys in sorted order."""

    def __init__(self, features, kinds):
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes, self.dense_defaults = [], [], [], {}
        for key in sorted(features or {}):
            spec = features[key]
            if not isinstance(spec, kinds):
                raise ValueError(f"Unsupported {type(spec).__name__} {spec}.")  # noqa: TRY004 - TF raises ValueError
            if isinstance(spec, VarLenFeature):
                self._add_sparse(key, _check_dtype(key, spec.dtype))
            elif isinstance(spec, SparseFeature):
                if not spec.index_key:
                    raise ValueError(f"Missing index_key for SparseFeature {spec}.")
                if not spec.value_key:
                    raise ValueError(f"Missing value_key for SparseFeature {spec}.")
                index_keys = [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)
                for index_key in sorted(index_keys):
                    self._add_sparse(index_key, dtypes.int64)
                self._add_sparse(spec.value_key, _check_dtype(key, spec.dtype))
            elif isinstance(spec, FixedLenFeature):
                dtype = _check_dtype(key, spec.dtype)
                if spec.shape is None:
                    raise ValueError(f"Missing shape for feature {key}.")
                shape = tensor_shape.as_shape(spec.shape)
                if shape.ndims and shape.dims[0].value is None:
                    raise ValueError(
                        f"First dimension of shape for feature {key} unknown. Consider using FixedLenSequenceFeature."
                    )
                if not shape.is_fully_defined():
                    raise ValueError(
                        f"All dimensions of shape for feature {key} need to be known but received {spec.shape!s}."
                    )
                self._add_dense(key, dtype, shape, spec.default_value)
            else:  # FixedLenSequenceFeature
                dtype = _check_dtype(key, spec.dtype)
                if spec.shape is None:
                    raise ValueError(f"Missing shape for feature {key}.")
                self.dense_keys.append(key)
                self.dense_types.append(dtype)
                self.dense_shapes.append(tensor_shape.as_shape(spec.shape))
                if spec.allow_missing:
                    self.dense_defaults[key] = None
                if spec.default_value is not None:
                    self.dense_defaults[key] = spec.default_value
        overlap = set(self.dense_keys) & set(self.sparse_keys)
        if overlap:
            raise ValueError(
                f"Dense and sparse keys must not intersect; dense_keys: {self.dense_keys}, sparse_keys: "
                f"{self.sparse_keys}, intersection: {overlap}"
            )

    def _add_sparse(self, key, dtype):
        if key in self.sparse_keys:
            original = self.sparse_types[self.sparse_keys.index(key)]
            if original != dtype:
                raise ValueError(f"Conflicting type {original} vs {dtype} for feature {key}.")
        else:
            self.sparse_keys.append(key)
            self.sparse_types.append(dtype)

    def _add_dense(self, key, dtype, shape, default_value):
        self.dense_keys.append(key)
        self.dense_types.append(dtype)
        self.dense_shapes.append(shape)
        if default_value is not None:
            self.dense_defaults[key] = default_value

    @property
    def num_features(self):
        return len(self.sparse_keys) + len(self.dense_keys)

    def dense_defaults_vec(self):
        out = []
        for key, shape, dtype in zip(self.dense_keys, self.dense_shapes, self.dense_types):
            default = self.dense_defaults.get(key)
            clean = re.sub("[^A-Za-z0-9_.\\-/]", "_", key)
            if shape.ndims is not None and shape.ndims > 0 and shape.dims[0].value is None:
                # Variable-length: the default is the scalar padding value.
                if default is None:
                    default = ops.convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype)
                else:
                    default = ops.convert_to_tensor(default, dtype=dtype, name="padding_" + clean)
                    default = array_ops.reshape(default, [])
            elif default is None:
                default = constant_op.constant([], dtype=dtype)
            elif not isinstance(default, ops.Tensor):
                default = ops.convert_to_tensor(default, dtype=dtype, name="key_" + clean)
                default = array_ops.reshape(default, shape.as_list())
            out.append(default)
        return out

    def shapes_attr(self):
        return [s.as_list() if s.ndims is not None else None for s in self.dense_shapes]


def _prepend_none_dimension(features):
    """features with each FixedLenSequenceFeature's shape given a leading None (parse_example's rule)."""
    if not features:
        return features
    out = dict(features)
    for key, spec in features.items():
        if isinstance(spec, FixedLenSequenceFeature):
            if not spec.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            out[key] = FixedLenSequenceFeature(
                [None] + list(spec.shape), spec.dtype, spec.allow_missing, spec.default_value
            )
    return out


def _composite(features, tensors):
    """tensors with each SparseFeature's index and value SparseTensors merged (TF's
    _construct_tensors_for_composite_features); keys that are not features are dropped."""
    from tensorweave._src.ops import sparse_ops

    tensors = dict(tensors)
    updates = {}
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, SparseFeature):
            if isinstance(spec.index_key, str):
                ids = tensors[spec.index_key]
            else:
                ids = [tensors[k] for k in spec.index_key]
                if len(ids) != 1:
                    raise NotImplementedError(
                        f"SparseFeature {key!r}: several index keys are not supported (tensorweave's sparse_merge "
                        "takes one)"
                    )
                ids = ids[0]
            updates[key] = sparse_ops.sparse_merge(
                ids, tensors[spec.value_key], vocab_size=spec.size, already_sorted=spec.already_sorted
            )
    tensors.update(updates)
    for key in set(tensors) - set(features):
        del tensors[key]
    return tensors


_EXAMPLE_KINDS = (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature)


def _parse_example_raw(serialized, names, params, name):
    if params.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with ops.name_scope(name, "ParseExample", [serialized, names]):
        names = [] if names is None else names
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        outputs = gen_ops.parse_example_v2(
            serialized,
            ops.convert_to_tensor(names, dtype=dtypes.string),
            ops.convert_to_tensor(params.sparse_keys, dtype=dtypes.string),
            ops.convert_to_tensor(params.dense_keys, dtype=dtypes.string),
            ops.convert_to_tensor([], dtype=dtypes.string),
            params.dense_defaults_vec(),
            num_sparse=len(params.sparse_keys),
            sparse_types=params.sparse_types,
            ragged_value_types=[],
            ragged_split_types=[],
            dense_shapes=params.shapes_attr(),
            name=name,
        )
        sparse = [SparseTensor(i, v, s) for i, v, s in zip(outputs[0], outputs[1], outputs[2])]
        return dict(zip(params.sparse_keys + params.dense_keys, sparse + list(outputs[3])))


def parse_example(serialized, features, name=None, example_names=None):
    """{key: Tensor or SparseTensor} parsed from a vector of serialized Examples, for a dict of FixedLenFeature,
    VarLenFeature, SparseFeature, FixedLenSequenceFeature (with allow_missing=True) and RaggedFeature (a
    RaggedTensor) (TF1's parse_example).

    Example:
      >>> import tensorweave as tw
      >>> ex = tw.train.Example(features=tw.train.Features(feature={
      ...     "x": tw.train.Feature(float_list=tw.train.FloatList(value=[1.0, 2.0]))}))
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     parsed = tw.io.parse_example([ex.SerializeToString()], {"x": tw.io.FixedLenFeature([2], tw.float32)})
      ...     print(sess.run(parsed["x"]))
      [[1. 2.]]
    """
    if not features:
        raise ValueError("Missing: features was empty.")
    ragged = {k: v for k, v in features.items() if isinstance(v, RaggedFeature)}
    plain = [k for k in features if k not in ragged]
    features = _prepend_none_dimension(_ragged_var_len(features) if ragged else features)
    params = _Params(features, _EXAMPLE_KINDS)
    outputs = _parse_example_raw(serialized, example_names, params, name)
    if not ragged:
        return _composite(features, outputs)
    with ops.name_scope(name, "ParseExample"):
        batch = array_ops.size(serialized) if isinstance(serialized, ops.Tensor) else len(serialized)
        built = {k: _ragged_from_parsed(spec, k, outputs, batch) for k, spec in ragged.items()}
    result = _composite({k: features[k] for k in plain}, outputs)
    return {**{k: result[k] for k in plain}, **built}


def parse_single_example(serialized, features, name=None, example_names=None):
    """{key: Tensor or SparseTensor} parsed from one serialized Example (a scalar): as parse_example without the
    batch dimension."""
    if not features:
        raise ValueError("Missing: features was empty.")
    with ops.name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        if serialized.shape.ndims is not None and serialized.shape.ndims != 0:
            raise ValueError(f"Input serialized must be a scalar, got shape {serialized.shape}")
        if example_names is not None:
            example_names = ops.convert_to_tensor(example_names, dtype=dtypes.string, name="example_names")
        ragged = {k: v for k, v in features.items() if isinstance(v, RaggedFeature)}
        dense = {k: v for k, v in features.items() if k not in ragged}
        out = parse_example(serialized, dense, example_names=example_names) if dense else {}
        if ragged:  # parsed as a batch of one, then its one row
            names = None if example_names is None else array_ops.expand_dims(example_names, 0)
            batch = parse_example(array_ops.expand_dims(serialized, 0), ragged, example_names=names)
            out.update({k: v[0] for k, v in batch.items()})
        return out


_SEQUENCE_KINDS = (VarLenFeature, FixedLenFeature, FixedLenSequenceFeature)


def _parse_sequence_example_raw(serialized, debug_name, context, feature_list, name=None):
    if context.num_features + feature_list.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with ops.name_scope(name, "ParseSequenceExample", [serialized]):
        debug_name = [] if debug_name is None else debug_name
        assumed_empty = []
        for key, value in feature_list.dense_defaults.items():
            if value is not None:
                raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
            assumed_empty.append(key)
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")

        def strings(values):
            return ops.convert_to_tensor(values, dtype=dtypes.string)

        outputs = gen_ops.parse_sequence_example_v2(
            serialized,
            strings(debug_name),
            strings(context.sparse_keys),
            strings(context.dense_keys),
            strings([]),
            strings(feature_list.sparse_keys),
            strings(feature_list.dense_keys),
            strings([]),
            ops.convert_to_tensor([k in assumed_empty for k in feature_list.dense_keys], dtype=dtypes.bool),
            context.dense_defaults_vec(),
            Ncontext_sparse=len(context.sparse_keys),
            Nfeature_list_sparse=len(feature_list.sparse_keys),
            Nfeature_list_dense=len(feature_list.dense_keys),
            context_sparse_types=context.sparse_types,
            feature_list_dense_types=feature_list.dense_types,
            feature_list_sparse_types=feature_list.sparse_types,
            context_dense_shapes=context.shapes_attr(),
            feature_list_dense_shapes=feature_list.shapes_attr(),
            name=name,
        )
        c_sparse = [SparseTensor(i, v, s) for i, v, s in zip(outputs[0], outputs[1], outputs[2])]
        f_sparse = [SparseTensor(i, v, s) for i, v, s in zip(outputs[6], outputs[7], outputs[8])]
        context_out = dict(zip(context.sparse_keys + context.dense_keys, c_sparse + list(outputs[3])))
        feature_list_out = dict(zip(feature_list.sparse_keys + feature_list.dense_keys, f_sparse + list(outputs[9])))
        lengths = dict(zip(feature_list.dense_keys, list(outputs[10])))
        return context_out, feature_list_out, lengths


def _sequence_params(context_features, sequence_features):
    if not (context_features or sequence_features):
        raise ValueError(
            "Both `context_features` and `sequence_features` argument are None, but at least one should have values."
        )
    return _Params(context_features, _SEQUENCE_KINDS), _Params(sequence_features, _SEQUENCE_KINDS)


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None, name=None):
    """(context, feature_lists, lengths) parsed from a vector of serialized SequenceExamples (TF1's
    tf.io.parse_sequence_example): context features (FixedLenFeature, VarLenFeature) give [batch, ...];
    sequence features give [batch, max steps, ...] (FixedLenSequenceFeature, padded with zeros, its lengths in
    the third dict) or SparseTensors [batch, max steps, max count] (VarLenFeature)."""
    context, feature_list = _sequence_params(context_features, sequence_features)
    with ops.name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse_sequence_example_raw(serialized, example_names, context, feature_list, name=None)


def parse_single_sequence_example(
    serialized, context_features=None, sequence_features=None, example_name=None, name=None
):
    """(context, feature_lists) parsed from one serialized SequenceExample (a scalar): as parse_sequence_example
    without the batch dimension and without the lengths."""
    context, feature_list = _sequence_params(context_features, sequence_features)
    with ops.name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        if serialized.shape.ndims is not None and serialized.shape.ndims != 0:
            raise ValueError(f"Input serialized must be a scalar, got shape {serialized.shape}")
        return _parse_sequence_example_raw(serialized, example_name, context, feature_list)[:2]


gradients_impl.NotDifferentiable("ParseExampleV2")
gradients_impl.NotDifferentiable("ParseSequenceExampleV2")
gradients_impl.NotDifferentiable("SerializeSparse")
gradients_impl.NotDifferentiable("SerializeManySparse")
gradients_impl.NotDifferentiable("DeserializeManySparse")


def _sparse_components(sp_input):
    if not isinstance(sp_input, (SparseTensor, SparseTensorValue)):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    if isinstance(sp_input, SparseTensorValue):
        sp_input = SparseTensor.from_value(sp_input)
    return sp_input.indices, sp_input.values, sp_input.dense_shape


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """A SparseTensor as a string vector [3]: its indices, values and dense_shape, each a serialized TensorProto
    (the bytes TensorFlow writes)."""
    indices, values, shape = _sparse_components(sp_input)
    return gen_ops.serialize_sparse(indices, values, shape, out_type=dtypes.as_dtype(out_type), name=name)


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """A SparseTensor of rank >= 2 as an [N, 3] string matrix, row i its minibatch entry i serialized as
    serialize_sparse does (indices must be in row-major order)."""
    indices, values, shape = _sparse_components(sp_input)
    return gen_ops.serialize_many_sparse(indices, values, shape, out_type=dtypes.as_dtype(out_type), name=name)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of rank R + 1 from an [N, 3] matrix of serialized SparseTensors of rank R (the inverse of
    serialize_many_sparse); `rank`, when given, sets the static rank."""
    serialized_sparse = ops.convert_to_tensor(serialized_sparse, dtype=dtypes.string)
    indices, values, shape = gen_ops.deserialize_many_sparse(serialized_sparse, dtype=dtypes.as_dtype(dtype), name=name)
    if rank is not None:
        indices.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(indices, values, shape)


@gen_ops.doc_from("DecodeRaw")
def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002 - TF1's
    """The numbers in each string (TF1's `tf.decode_raw`; `bytes` is its old name for `input_bytes`).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.io.decode_raw(np.array([1, 2], np.int32).tobytes(), tw.int32)))
      [1 2]
    """
    if input_bytes is None:
        input_bytes = bytes
    elif bytes is not None:
        raise ValueError("decode_raw takes input_bytes or bytes, not both")
    if out_type is None:
        raise TypeError("decode_raw needs out_type")
    return gen_ops.decode_raw(
        ops.convert_to_tensor(input_bytes, dtype=dtypes.string),
        out_type=dtypes.as_dtype(out_type),
        little_endian=bool(little_endian),
        name=name,
    )


gradients_impl.NotDifferentiable("DecodeRaw")


def decode_json_example(json_examples, name=None):
    """Each string, a tf.train.Example in protobuf's JSON mapping, as the binary serialized Example (TF1's
    `tf.io.decode_json_example`; same shape).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     binary = tw.io.decode_json_example('{"features": {"feature": {"x": {"int64List": {"value": ["3"]}}}}}')
      ...     parsed = tw.io.parse_single_example(binary, {"x": tw.io.FixedLenFeature([], tw.int64)})
      ...     print(sess.run(parsed["x"]))
      3
    """
    return gen_ops.decode_json_example(ops.convert_to_tensor(json_examples, dtype=dtypes.string), name=name)


gradients_impl.NotDifferentiable("DecodeJSONExample")
