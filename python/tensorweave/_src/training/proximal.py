"""The proximal methods (Duchi and Singer, FOBOS, 2009): a gradient step, then
the proximal operator of l1 * |x| + l2 / 2 * x^2, which soft-thresholds small
weights to exactly zero."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class _Proximal(optimizer.Optimizer):
    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate"
        )
        self._l1_regularization_strength_tensor = ops.convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        self._l2_regularization_strength_tensor = ops.convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength"
        )

    def _hyper(self, var):
        return [
            optimizer._cast(t, var.dtype)
            for t in (
                self._learning_rate_tensor,
                self._l1_regularization_strength_tensor,
                self._l2_regularization_strength_tensor,
            )
        ]


class ProximalGradientDescentOptimizer(_Proximal):
    """prox_v = var - learning_rate * grad;
    var = sign(prox_v) * max(|prox_v| - learning_rate * l1, 0) / (1 + learning_rate * l2).

    No slots. A gather's gradient updates only the rows it read
    (SparseApplyProximalGradientDescent).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, 0.05], name="w")
      ...     opt = tw.train.ProximalGradientDescentOptimizer(0.5, l1_regularization_strength=0.2)
      ...     step = opt.apply_gradients([([0.5, 0.0], w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w))
      [0.65 0.  ]
    """

    def __init__(
        self,
        learning_rate,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalGradientDescent",
    ):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_gradient_descent(
            var, *self._hyper(var), grad, use_locking=self._use_locking
        ).op

    def _apply_sparse(self, grad, var):
        rows, grad_rows = grad.indices, grad.values
        return training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._hyper(var), grad_rows, rows, use_locking=self._use_locking
        ).op


class ProximalAdagradOptimizer(_Proximal):
    """accum += grad^2; rate = learning_rate / sqrt(accum);
    prox_v = var - rate * grad;
    var = sign(prox_v) * max(|prox_v| - rate * l1, 0) / (1 + rate * l2).

    The accumulator is the slot "accumulator" (`<var>/ProximalAdagrad`),
    starting at `initial_accumulator_value` (which must be positive). A
    gather's gradient updates only the rows it read (SparseApplyProximalAdagrad).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0], name="w")
      ...     opt = tw.train.ProximalAdagradOptimizer(0.5, initial_accumulator_value=3.0)
      ...     step = opt.apply_gradients([([1.0], w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w))
      [0.75]
    """

    def __init__(
        self,
        learning_rate,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalAdagrad",
    ):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=v.dtype)
            self._get_or_make_slot_with_initializer(v, init, v.shape, v.dtype, "accumulator", self._name)

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), *self._hyper(var), grad, use_locking=self._use_locking
        ).op

    def _apply_sparse(self, grad, var):
        rows, grad_rows = grad.indices, grad.values
        return training_ops.sparse_apply_proximal_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            *self._hyper(var),
            grad_rows,
            rows,
            use_locking=self._use_locking,
        ).op
