"""Conditional accumulators (TensorFlow v1's tf.ConditionalAccumulator and tf.SparseConditionalAccumulator).

An accumulator is state of the session that aggregates gradients for synchronous training: each replica applies
its gradient with the global step it computed it at (`local_step`); a gradient older than the accumulator's
global step is stale and silently dropped. `take_grad(n)` waits (without holding a thread) until n gradients
have arrived, returns their mean (or sum), resets the accumulator and increments its global step. A waiting take
ends with `DeadlineExceededError` at the step's timeout (`RunOptions(timeout_in_ms=)`) and `CancelledError` when
the session closes.
"""

import collections

from tensorweave._src.framework import dtypes as _dtypes
from tensorweave._src.framework import ops, tensor_shape
from tensorweave._src.framework.indexed_slices import IndexedSlices
from tensorweave._src.ops import gen_ops, gradients_impl, math_ops

__all__ = ["ConditionalAccumulator", "ConditionalAccumulatorBase", "SparseConditionalAccumulator"]

for _op_type in (
    "ConditionalAccumulator",
    "AccumulatorApplyGradient",
    "AccumulatorTakeGradient",
    "AccumulatorNumAccumulated",
    "AccumulatorSetGlobalStep",
    "SparseConditionalAccumulator",
    "SparseAccumulatorApplyGradient",
    "SparseAccumulatorTakeGradient",
):
    gradients_impl.NotDifferentiable(_op_type)

# What SparseConditionalAccumulator.take_grad returns (TF1's namedtuple of the op's outputs).
SparseAccumulatorTakeGradientOutput = collections.namedtuple(
    "SparseAccumulatorTakeGradient", ["indices", "values", "shape"]
)


def _shape_attr(shape):
    return None if shape.dims is None else shape.as_list()


def _create(op_type, name, **attrs):
    # As TF1's init_scope: the accumulator does not wait on the surrounding control dependencies.
    with ops.get_default_graph().control_dependencies(None):
        return gen_ops.wrapper(op_type)(name=name, **attrs)


def _local_step(local_step):
    return math_ops.cast(ops.convert_to_tensor(local_step), _dtypes.int64)


class ConditionalAccumulatorBase:
    """The accumulator handle with its dtype and shape; the base of ConditionalAccumulator and
    SparseConditionalAccumulator."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = tensor_shape.TensorShape(shape) if shape is not None else tensor_shape.unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = self._accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        """The accumulator's handle (a scalar string tensor)."""
        return self._accumulator_ref

    @property
    def name(self):
        """The name of the op that created the accumulator."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the gradients it accumulates."""
        return self._dtype

    def num_accumulated(self, name=None):
        """An int32 scalar: the number of gradients accumulated since the last take."""
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return gen_ops.wrapper("AccumulatorNumAccumulated")(self._accumulator_ref, name=name)

    def set_global_step(self, new_global_step, name=None):
        """An op that sets the accumulator's global step: gradients applied with a lower local_step are then
        dropped as stale."""
        return gen_ops.wrapper("AccumulatorSetGlobalStep")(
            self._accumulator_ref, math_ops.cast(ops.convert_to_tensor(new_global_step), _dtypes.int64), name=name
        )


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Aggregates dense gradients of one dtype and shape (see the module's docstring).

    Args:
      dtype: the gradients' dtype (float16, float32 or float64).
      shape: the gradients' shape (None: any, fixed by the first gradient of each round).
      shared_name: accumulators of the same shared_name in one session are one accumulator.
      name: the op's name.
      reduction_type: "MEAN" (take_grad averages) or "SUM".

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     acc = tw.ConditionalAccumulator(tw.float32, shape=[2])
      ...     with tw.Session() as sess:
      ...         sess.run(acc.apply_grad([1.0, 2.0], local_step=0))
      ...         sess.run(acc.apply_grad([3.0, 6.0], local_step=0))
      ...         print(sess.run(acc.take_grad(2)).tolist())
      [2.0, 4.0]
    """

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        dtype = _dtypes.as_dtype(dtype)
        shape = tensor_shape.TensorShape(shape) if shape is not None else tensor_shape.unknown_shape()
        accumulator_ref = _create(
            "ConditionalAccumulator",
            name,
            dtype=dtype,
            shape=_shape_attr(shape),
            shared_name=shared_name or "",
            reduction_type=reduction_type,
        )
        super().__init__(dtype, shape, accumulator_ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """An op that adds `grad` unless `local_step` is below the accumulator's global step (then it is dropped).
        A gradient of another shape is a ValueError here when known, else InvalidArgumentError at run time."""
        grad = ops.convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        return gen_ops.wrapper("AccumulatorApplyGradient")(
            self._accumulator_ref, _local_step(local_step), grad, name=name
        )

    def take_grad(self, num_required, name=None):
        """The mean (or sum) of the next `num_required` gradients: running it waits until they have arrived, then
        resets the accumulator and increments its global step."""
        out = gen_ops.wrapper("AccumulatorTakeGradient")(
            self._accumulator_ref, ops.convert_to_tensor(num_required, _dtypes.int32), dtype=self._dtype, name=name
        )
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Aggregates sparse gradients (IndexedSlices): the rows of one index are summed; with "MEAN" each index's sum
    is divided by the number of gradients that had that index.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     acc = tw.SparseConditionalAccumulator(tw.float32, shape=[4, 1])
      ...     with tw.Session() as sess:
      ...         sess.run(acc.apply_grad([0, 2], [[1.0], [2.0]]))
      ...         sess.run(acc.apply_grad([2], [[4.0]]))
      ...         grad = sess.run(acc.take_indexed_slices_grad(2))
      ...         print(grad.indices.tolist(), grad.values.tolist())
      [0, 2] [[1.0], [3.0]]
    """

    def __init__(
        self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator", reduction_type="MEAN"
    ):
        dtype = _dtypes.as_dtype(dtype)
        shape = tensor_shape.TensorShape(shape) if shape is not None else tensor_shape.unknown_shape()
        accumulator_ref = _create(
            "SparseConditionalAccumulator",
            name,
            dtype=dtype,
            shape=_shape_attr(shape),
            shared_name=shared_name or "",
            reduction_type=reduction_type,
        )
        super().__init__(dtype, shape, accumulator_ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """apply_grad of an IndexedSlices (its indices, values and dense_shape)."""
        return self.apply_grad(
            grad_indices=grad.indices,
            grad_values=grad.values,
            grad_shape=grad.dense_shape,
            local_step=local_step,
            name=name,
        )

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op that adds a sparse gradient (indices, a row of values per index, optionally the dense shape)
        unless `local_step` is stale."""
        grad_values = ops.convert_to_tensor(grad_values, self._dtype)
        return gen_ops.wrapper("SparseAccumulatorApplyGradient")(
            self._accumulator_ref,
            _local_step(local_step),
            math_ops.cast(ops.convert_to_tensor(grad_indices), _dtypes.int64),
            grad_values,
            ops.convert_to_tensor([], _dtypes.int64)
            if grad_shape is None
            else math_ops.cast(ops.convert_to_tensor(grad_shape), _dtypes.int64),
            has_known_shape=grad_shape is not None,
            name=name,
        )

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of the aggregate of the next `num_required` gradients (indices ascending);
        waits for them, then resets and increments the global step."""
        out = gen_ops.wrapper("SparseAccumulatorTakeGradient")(
            self._accumulator_ref, ops.convert_to_tensor(num_required, _dtypes.int32), dtype=self._dtype, name=name
        )
        return SparseAccumulatorTakeGradientOutput(*out)

    def take_indexed_slices_grad(self, num_required, name=None):
        """take_grad as an IndexedSlices."""
        out = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=out.indices, values=out.values, dense_shape=out.shape)
