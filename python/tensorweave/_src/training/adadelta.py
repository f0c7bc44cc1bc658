"""Adadelta (Zeiler 2012): per-coordinate step sizes from running averages of
squared gradients and squared updates."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class AdadeltaOptimizer(optimizer.Optimizer):
    """accum = rho * accum + (1 - rho) * grad^2;
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad;
    var -= learning_rate * update;
    accum_update = rho * accum_update + (1 - rho) * update^2.

    Slots: "accum" (`<var>/Adadelta`) and "accum_update" (`<var>/Adadelta_1`),
    both starting at 0. A gather's gradient updates only the rows it read
    (SparseApplyAdadelta).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0], name="w")
      ...     step = tw.train.AdadeltaOptimizer(1.0, rho=0.5, epsilon=1.0).apply_gradients([([1.0], w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w).round(4))
      [0.1835]
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = ops.convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = ops.convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = ops.convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _hyper(self, var):
        return [optimizer._cast(t, var.dtype) for t in (self._lr_t, self._rho_t, self._epsilon_t)]

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "accum")
        accum_update = self.get_slot(var, "accum_update")
        return training_ops.apply_adadelta(
            var, accum, accum_update, *self._hyper(var), grad, use_locking=self._use_locking
        ).op

    def _apply_sparse(self, grad, var):
        rows, grad_rows = grad.indices, grad.values
        return training_ops.sparse_apply_adadelta(
            var,
            self.get_slot(var, "accum"),
            self.get_slot(var, "accum_update"),
            *self._hyper(var),
            grad_rows,
            rows,
            use_locking=self._use_locking,
        ).op
