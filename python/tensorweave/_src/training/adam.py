"""Adam (Kingma and Ba, 2015)."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import scatter_var_ops
from tensorweave._src.ops import state_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class AdamOptimizer(optimizer.Optimizer):
    """lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t);
    m = beta1 * m + (1 - beta1) * grad; v = beta2 * v + (1 - beta2) * grad^2;
    var -= lr_t * m / (sqrt(v) + epsilon).

    Slots "m" (`<var>/Adam`) and "v" (`<var>/Adam_1`); beta1^t and beta2^t
    are the non-slot variables `beta1_power` and `beta2_power` (float32, as in
    TensorFlow), multiplied by beta1 and beta2 after each step's updates.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0], name="w")
      ...     opt = tw.train.AdamOptimizer(0.1)
      ...     step = opt.apply_gradients([([4.0], w)])
      ...     print([v.op.name for v in opt.variables()])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w).round(6))
      ['beta1_power', 'beta2_power', 'w/Adam', 'w/Adam_1']
      [0.9]
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self, graph=None):
        return (self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph))

    def _create_slots(self, var_list):
        # On the device of the first variable by name, so that every worker
        # picks the same one.
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = ops.convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = ops.convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = ops.convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = ops.convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        beta1_power, beta2_power = self._get_beta_accumulators(var.graph)
        cast = optimizer._cast
        return training_ops.apply_adam(
            var,
            self.get_slot(var, "m"),
            self.get_slot(var, "v"),
            cast(beta1_power, var.dtype),
            cast(beta2_power, var.dtype),
            cast(self._lr_t, var.dtype),
            cast(self._beta1_t, var.dtype),
            cast(self._beta2_t, var.dtype),
            cast(self._epsilon_t, var.dtype),
            grad,
            use_locking=self._use_locking,
        ).op

    def _apply_sparse(self, grad, var):
        # TF1's AdamOptimizer._apply_sparse: m and v decay on every row (m = beta1 * m, then the gradient's rows
        # scatter-added) and var takes the dense step lr_t * m / (sqrt(v) + epsilon) -- not the lazy variant.
        beta1_power, beta2_power = self._get_beta_accumulators(var.graph)
        cast = optimizer._cast
        beta1_power, beta2_power = cast(beta1_power, var.dtype), cast(beta2_power, var.dtype)
        lr_t, beta1_t = cast(self._lr_t, var.dtype), cast(self._beta1_t, var.dtype)
        beta2_t, epsilon_t = cast(self._beta2_t, var.dtype), cast(self._epsilon_t, var.dtype)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        graph = ops.get_default_graph()
        locking = self._use_locking
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad.values * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=locking)
        with graph.control_dependencies([m_t]):
            m_t = scatter_var_ops.scatter_add(m, grad.indices, m_scaled_g_values, use_locking=locking)
        v = self.get_slot(var, "v")
        v_scaled_g_values = (grad.values * grad.values) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=locking)
        with graph.control_dependencies([v_t]):
            v_t = scatter_var_ops.scatter_add(v, grad.indices, v_scaled_g_values, use_locking=locking)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t), use_locking=locking)
        return ops.group(var_update, m_t, v_t)

    def _finish(self, update_ops, name_scope):
        graph = ops.get_default_graph()
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators(graph)
            with graph.colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t, use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t, use_locking=self._use_locking)
        return ops.group(*update_ops, update_beta1, update_beta2, name=name_scope)
