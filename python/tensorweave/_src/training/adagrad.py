"""Adagrad: per-coordinate learning rates from accumulated squared gradients."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class AdagradOptimizer(optimizer.Optimizer):
    """accum += grad^2; var -= learning_rate * grad / sqrt(accum).

    The accumulator is the slot "accumulator" (`<var>/Adagrad`), starting at
    `initial_accumulator_value` (which must be positive).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0], name="w")
      ...     step = tw.train.AdagradOptimizer(0.5, initial_accumulator_value=3.0).apply_gradients([([1.0], w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w))
      [0.75]
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=v.dtype)
            self._get_or_make_slot_with_initializer(v, init, v.shape, v.dtype, "accumulator", self._name)

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.apply_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            optimizer._cast(self._learning_rate_tensor, var.dtype),
            grad,
            use_locking=self._use_locking,
        ).op

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            optimizer._cast(self._learning_rate_tensor, var.dtype),
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        ).op
