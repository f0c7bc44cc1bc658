"""Parsing tf.train.Example protos: FixedLenFeature, parse_example, parse_single_example (TF1's `tf.io` and
top-level names) on the ParseExampleV2 op. Dense features only: VarLenFeature and the other sparse/ragged
features need SparseTensor, which tensorweave does not have yet (NotImplementedError)."""

import collections

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of fixed shape: `shape`, `dtype` (float32, int64 or string) and an optional default for
    examples that lack it (without one, a missing feature is an error)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of variable length, parsed as a SparseTensor (not supported yet: parse_example raises
    NotImplementedError)."""


_ALLOWED = (dtypes.float32, dtypes.int64, dtypes.string)


def _dense_specs(features):
    if not features:
        raise ValueError("Missing: features was empty.")
    keys, types, shapes, defaults = [], [], [], []
    for key in sorted(features):
        spec = features[key]
        if not isinstance(spec, FixedLenFeature):
            raise NotImplementedError(
                f"feature {key!r}: {type(spec).__name__} is not supported (tensorweave parses FixedLenFeature "
                "only; VarLenFeature needs SparseTensor)"
            )
        dtype = dtypes.as_dtype(spec.dtype)
        if dtype not in _ALLOWED:
            raise ValueError(f"Unsupported dtype {dtype.name} for feature {key!r}: float32, int64 or string")
        shape = tensor_shape.as_shape(spec.shape)
        if not shape.is_fully_defined():
            raise ValueError(f"All dimensions of shape for feature {key} need to be known but received {spec.shape}.")
        dims = shape.as_list()
        if spec.default_value is None:
            default = constant_op.constant([], dtype=dtype)
        else:
            default = ops.convert_to_tensor(spec.default_value, dtype=dtype, name="key_" + key.replace("/", "_"))
            default = array_ops.reshape(default, dims)
        keys.append(key)
        types.append(dtype)
        shapes.append(dims)
        defaults.append(default)
    return keys, types, shapes, defaults


def parse_example(serialized, features, name=None, example_names=None):
    """{key: Tensor [batch] + shape} parsed from a vector of serialized Examples, for a dict of
    FixedLenFeature.

    Example:
      >>> import tensorweave as tw
      >>> ex = tw.train.Example(features=tw.train.Features(feature={
      ...     "x": tw.train.Feature(float_list=tw.train.FloatList(value=[1.0, 2.0]))}))
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     parsed = tw.io.parse_example([ex.SerializeToString()], {"x": tw.io.FixedLenFeature([2], tw.float32)})
      ...     print(sess.run(parsed["x"]))
      [[1. 2.]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "ParseExample"):
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        names = constant_op.constant([] if example_names is None else example_names, dtype=dtypes.string, name="names")
        keys, types, shapes, defaults = _dense_specs(features)
        empty = constant_op.constant([], dtype=dtypes.string)
        outputs = gen_ops.parse_example_v2(
            serialized,
            names,
            empty,
            constant_op.constant(keys, dtype=dtypes.string, name="dense_keys"),
            empty,
            defaults,
            num_sparse=0,
            sparse_types=[],
            ragged_value_types=[],
            ragged_split_types=[],
            dense_shapes=shapes,
            name="ParseExampleV2",
        )
        del types
        # The op's outputs by argument: sparse_indices, sparse_values, sparse_shapes, dense_values, ragged_*.
        dense_values = outputs[3]
        return dict(zip(keys, dense_values))


def parse_single_example(serialized, features, name=None, example_names=None):
    """{key: Tensor of the feature's shape} parsed from one serialized Example (a scalar)."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "ParseSingleExample"):
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        if serialized.shape.ndims is not None and serialized.shape.ndims != 0:
            raise ValueError(f"Input serialized must be a scalar, got shape {serialized.shape}")
        return parse_example(serialized, features, example_names=example_names)


gradients_impl.NotDifferentiable("ParseExampleV2")


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
