"""A minimal SparseTensor (TF1's tf.SparseTensor / tf.SparseTensorValue): indices [N, rank] int64, values [N],
dense_shape [rank] int64. Session.run fetches one as a SparseTensorValue. The sparse ops themselves belong to
the sparse module of issue 16; this is the container the string splits return."""

import collections

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape


class SparseTensorValue(collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])):
    """The fetched value of a SparseTensor: numpy indices, values and dense_shape."""


class SparseTensor:
    """A sparse tensor: the `values` at `indices` of a tensor of shape `dense_shape` (the rest zero or empty).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     sp = tw.SparseTensor(indices=[[0, 1]], values=[5], dense_shape=[2, 2])
      ...     print(sess.run(sp).values, sp.shape)
      [5] (2, 2)
    """

    def __init__(self, indices, values, dense_shape):
        with ops.get_default_graph().name_scope("SparseTensor"):
            self._indices = ops.convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
            self._values = ops.convert_to_tensor(values, name="values")
            self._dense_shape = ops.convert_to_tensor(dense_shape, dtype=dtypes.int64, name="dense_shape")
        self._indices.shape.with_rank(2)
        self._values.shape.with_rank(1)
        self._dense_shape.shape.with_rank(1)

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value
        return cls(value.indices, value.values, value.dense_shape)

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    @property
    def shape(self):
        """The static shape: dense_shape's value where it is a constant, else of its static length."""
        from tensorweave._src.ops.array_ops import constant_value

        static = getattr(self, "_static_shape", None)  # set by the sparse ops that know more than dense_shape
        if static is not None and static.ndims is not None:
            return static
        value = constant_value(self._dense_shape)
        if value is not None:
            return tensor_shape.TensorShape([int(d) for d in value])
        n = self._dense_shape.shape.as_list()[0] if self._dense_shape.shape.ndims == 1 else None
        return tensor_shape.TensorShape(None if n is None else [None] * n)

    def get_shape(self):
        return self.shape

    def eval(self, feed_dict=None, session=None):
        sess = session or ops.get_default_session()
        return sess.run(self, feed_dict=feed_dict)

    # Session.run's hook: what to fetch, and the value built from it.
    def _tw_fetch_components(self):
        return [self._indices, self._values, self._dense_shape]

    @staticmethod
    def _tw_from_fetched(indices, values, dense_shape):
        return SparseTensorValue(indices, values, dense_shape)

    # As TF's: `*` and `/` with a dense tensor (broadcast to this one's shape) keep the sparsity pattern.
    def __mul__(self, other):
        from tensorweave._src.ops import sparse_ops

        return sparse_ops.sparse_dense_cwise_mul(self, other)

    def __truediv__(self, other):
        from tensorweave._src.ops import sparse_ops

        return sparse_ops.sparse_dense_cwise_div(self, other)

    __div__ = __truediv__

    def __repr__(self):
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"
