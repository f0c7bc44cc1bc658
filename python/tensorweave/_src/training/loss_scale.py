"""Loss scaling for mixed-precision training, as TF1 spells it (`tf.train.experimental` / `tf.mixed_precision`):
`FixedLossScale`, `DynamicLossScale`, `MixedPrecisionLossScaleOptimizer` and
`enable_mixed_precision_graph_rewrite`.

The loss is multiplied by the loss scale before the gradients are taken and the gradients are divided by it after,
so that small float16 gradients do not underflow. A dynamic loss scale halves itself (and the step applies
nothing) when a gradient is not finite, and doubles itself after `increment_period` finite steps.

tensorweave runs float32 kernels on the CPU, where TensorFlow's graph rewrite to float16 does nothing either:
`enable_mixed_precision_graph_rewrite` wraps the optimizer in the loss-scale optimizer and leaves the graph's
dtypes as they are, as TensorFlow does on a machine without a GPU.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     w = tw.Variable(1.0)
  ...     opt = tw.train.experimental.MixedPrecisionLossScaleOptimizer(tw.train.GradientDescentOptimizer(0.5), 128.0)
  ...     step = opt.minimize(tw.square(w))
  ...     with tw.Session() as sess:
  ...         sess.run(tw.global_variables_initializer())
  ...         _ = sess.run(step)
  ...         print(sess.run(w))
  0.0
"""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.framework.indexed_slices import IndexedSlices
from tensorweave._src.training import optimizer as optimizer_lib

__all__ = [
    "DynamicLossScale",
    "FixedLossScale",
    "LossScale",
    "MixedPrecisionLossScaleOptimizer",
    "disable_mixed_precision_graph_rewrite",
    "enable_mixed_precision_graph_rewrite",
]


def _tw():
    import tensorweave as tw

    return tw


class LossScale:
    """The base of loss scales: `scale()` (also `loss_scale()`) is the current scale, a float32 scalar tensor;
    `update(grads)` returns (an op updating the scale, a boolean tensor: whether to apply these gradients)."""

    def __call__(self):
        raise NotImplementedError

    def update(self, grads):
        raise NotImplementedError

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class FixedLossScale(LossScale):
    """A loss scale that never changes; every step applies its gradients."""

    def __init__(self, loss_scale_value):
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError(f"loss_scale_value must be a Python int or float, got {loss_scale_value!r}.")  # noqa: TRY004 - TF's class
        if loss_scale_value < 1:
            raise ValueError(f"loss_scale_value must be at least 1, got {loss_scale_value}.")
        self._value = float(loss_scale_value)

    def __call__(self):
        return ops.convert_to_tensor(self._value, dtypes.float32)

    def update(self, grads):
        del grads
        return _tw().no_op(), True

    def get_config(self):
        return {"loss_scale_value": self._value}

    def __repr__(self):
        return f"FixedLossScale({self._value})"


class DynamicLossScale(LossScale):
    """A loss scale that starts at `initial_loss_scale`, is divided by `multiplier` (not below 1) on a step with a
    non-finite gradient, which applies nothing, and multiplied by it after `increment_period` finite steps in a
    row. Its state is two non-trainable variables (the scale and the count of good steps), saved in checkpoints."""

    def __init__(self, initial_loss_scale=2**15, increment_period=2000, multiplier=2.0):
        self.initial_loss_scale = float(initial_loss_scale)
        self.increment_period = int(increment_period)
        self.multiplier = float(multiplier)
        self._variables = None

    def _state(self):
        if self._variables is None:
            tw = _tw()
            with ops.name_scope(None):
                scale = tw.Variable(self.initial_loss_scale, name="current_loss_scale", trainable=False)
                good = tw.Variable(0, dtype=dtypes.int64, name="good_steps", trainable=False)
            self._variables = (scale, good)
        return self._variables

    def __call__(self):
        return self._state()[0].read_value()

    def update(self, grads):
        tw = _tw()
        scale, good = self._state()
        values = [g.values if isinstance(g, IndexedSlices) else g for g in grads if g is not None]
        finite = tw.reduce_all(tw.stack([tw.reduce_all(tw.is_finite(v)) for v in values])) if values else True
        grown = good + 1 >= self.increment_period

        def on_finite():
            new_scale = tw.where(grown, scale * self.multiplier, scale)
            new_scale = tw.where(tw.is_finite(new_scale), new_scale, scale)
            return tw.group(scale.assign(new_scale), good.assign(tw.where(grown, tw.zeros_like(good), good + 1)))

        def on_overflow():
            return tw.group(scale.assign(tw.maximum(scale / self.multiplier, 1.0)), good.assign(tw.zeros_like(good)))

        update = tw.cond(ops.convert_to_tensor(finite), on_finite, on_overflow)
        return update, finite

    def get_config(self):
        return {
            "initial_loss_scale": self.initial_loss_scale,
            "increment_period": self.increment_period,
            "multiplier": self.multiplier,
        }

    def __repr__(self):
        return (
            f"DynamicLossScale(initial_loss_scale={self.initial_loss_scale}, increment_period="
            f"{self.increment_period}, multiplier={self.multiplier})"
        )


def _as_loss_scale(loss_scale):
    if isinstance(loss_scale, LossScale):
        return loss_scale
    if loss_scale == "dynamic":
        return DynamicLossScale()
    if isinstance(loss_scale, (int, float)) and not isinstance(loss_scale, bool):
        return FixedLossScale(loss_scale)
    raise ValueError(f"Could not interpret loss scale identifier: {loss_scale}")


class MixedPrecisionLossScaleOptimizer(optimizer_lib.Optimizer):
    """Wraps an optimizer with loss scaling: `compute_gradients` differentiates loss * scale and divides the
    gradients by the scale; `apply_gradients` applies them only where the loss scale says so (all finite, for a
    dynamic one) and updates the scale.

    Args:
      opt: a tw.train.Optimizer.
      loss_scale: a number (a fixed scale), "dynamic", or a LossScale.
    """

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, optimizer_lib.Optimizer):
            raise ValueError(f'"opt" must be an instance of Optimizer, but got: {type(opt)}')  # noqa: TRY004
        super().__init__(False, "MixedPrecisionLossScaleOptimizer")
        self._optimizer = opt
        self._loss_scale = _as_loss_scale(loss_scale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=optimizer_lib.Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False, grad_loss=None):  # fmt: skip
        tw = _tw()
        scale = self._loss_scale()
        loss = ops.convert_to_tensor(loss)
        grads_and_vars = self._optimizer.compute_gradients(
            loss * tw.cast(scale, loss.dtype), var_list, gate_gradients, aggregation_method,
            colocate_gradients_with_ops, grad_loss,
        )  # fmt: skip
        inverse = 1.0 / scale
        return [(None if g is None else self._unscale(g, inverse), v) for g, v in grads_and_vars]

    @staticmethod
    def _unscale(grad, inverse):
        tw = _tw()
        if isinstance(grad, IndexedSlices):
            return IndexedSlices(grad.values * tw.cast(inverse, grad.values.dtype), grad.indices, grad.dense_shape)
        return grad * tw.cast(inverse, grad.dtype)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        tw = _tw()
        grads_and_vars = list(grads_and_vars)
        update, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])

        def apply():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

        if should_apply is True:
            step = apply()
        else:
            step = tw.cond(should_apply, lambda: tw.group(apply()), tw.no_op)
        return tw.group(step, update, name=name)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        state = list(self._loss_scale._variables or ()) if isinstance(self._loss_scale, DynamicLossScale) else []
        return self._optimizer.variables() + state


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """Returns `opt` wrapped in a MixedPrecisionLossScaleOptimizer. TensorFlow also turns on its float16 graph
    rewrite, which changes nothing without a GPU; tensorweave's CPU kernels stay float32 likewise."""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError(  # noqa: TRY004 - TF's class
            '"opt" must not already be an instance of a MixedPrecisionLossScaleOptimizer. '
            "`enable_mixed_precision_graph_rewrite` will automatically wrap the optimizer with a "
            "MixedPrecisionLossScaleOptimizer."
        )
    return MixedPrecisionLossScaleOptimizer(opt, loss_scale)


def disable_mixed_precision_graph_rewrite():
    """TF's switch-off of its float16 graph rewrite: tensorweave has no such rewrite (see above), so nothing to
    undo; optimizers already wrapped stay wrapped, as in TF."""
