"""RMSProp (Hinton's lecture 6e), optionally centered."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class RMSPropOptimizer(optimizer.Optimizer):
    """ms = decay * ms + (1 - decay) * grad^2;
    mom = momentum * mom + learning_rate * grad / sqrt(ms + epsilon);
    var -= mom. With centered=True the denominator is
    sqrt(ms - mg^2 + epsilon), mg the moving mean of the gradient.

    Slots: "rms" (`<var>/RMSProp`, starting at 1), "mg" when centered and
    "momentum" (both starting at 0).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0], name="w")
      ...     opt = tw.train.RMSPropOptimizer(0.01)
      ...     step = opt.apply_gradients([([1.0], w)])
      ...     print([v.op.name for v in opt.variables()])
      ['w/RMSProp', 'w/RMSProp_1']
    """

    def __init__(
        self,
        learning_rate,
        decay=0.9,
        momentum=0.0,
        epsilon=1e-10,
        use_locking=False,
        centered=False,
        name="RMSProp",
    ):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, init_ops.ones_initializer(dtype=v.dtype), v.shape, v.dtype, "rms", self._name
            )
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate"
        )
        self._decay_tensor = ops.convert_to_tensor(self._call_if_callable(self._decay), name="decay")
        self._momentum_tensor = ops.convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")
        self._epsilon_tensor = ops.convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        hyper = [
            optimizer._cast(t, var.dtype)
            for t in (self._learning_rate_tensor, self._decay_tensor, self._momentum_tensor, self._epsilon_tensor)
        ]
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.apply_centered_rms_prop(
                var, mg, rms, mom, *hyper, grad, use_locking=self._use_locking
            ).op
        return training_ops.apply_rms_prop(var, rms, mom, *hyper, grad, use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        # TensorFlow's SparseApply(Centered)RMSProp: only the gradient's rows change, in the slots and var.
        hyper = [
            optimizer._cast(t, var.dtype)
            for t in (self._learning_rate_tensor, self._decay_tensor, self._momentum_tensor, self._epsilon_tensor)
        ]
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.sparse_apply_centered_rms_prop(
                var, mg, rms, mom, *hyper, grad.values, grad.indices, use_locking=self._use_locking
            ).op
        return training_ops.sparse_apply_rms_prop(
            var, rms, mom, *hyper, grad.values, grad.indices, use_locking=self._use_locking
        ).op
