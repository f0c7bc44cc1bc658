"""Gradient descent with momentum (optionally Nesterov's)."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class MomentumOptimizer(optimizer.Optimizer):
    """accum = accum * momentum + grad; var -= learning_rate * accum (with
    use_nesterov: var -= learning_rate * (grad + momentum * accum)).

    The accumulator is the slot "momentum", a variable named `<var>/Momentum`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0], name="w")
      ...     opt = tw.train.MomentumOptimizer(0.1, momentum=0.9)
      ...     step = opt.apply_gradients([([1.0], w)])
      ...     print(opt.get_slot(w, "momentum").op.name)
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step); sess.run(step)
      ...     print(sess.run(w))
      w/Momentum
      [0.71]
    """

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        momentum = self._call_if_callable(self._momentum)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")
        self._momentum_tensor = ops.convert_to_tensor(momentum, name="momentum")

    def _apply_dense(self, grad, var):
        return training_ops.apply_momentum(
            var,
            self.get_slot(var, "momentum"),
            optimizer._cast(self._learning_rate_tensor, var.dtype),
            grad,
            optimizer._cast(self._momentum_tensor, var.dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        ).op

    def _apply_sparse(self, grad, var):
        # TensorFlow's SparseApplyMomentum: only the rows of the (deduplicated) gradient change, in accum and var.
        return training_ops.sparse_apply_momentum(
            var,
            self.get_slot(var, "momentum"),
            optimizer._cast(self._learning_rate_tensor, var.dtype),
            grad.values,
            grad.indices,
            optimizer._cast(self._momentum_tensor, var.dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        ).op
