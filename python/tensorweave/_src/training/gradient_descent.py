"""Plain gradient descent."""

from tensorweave._src.framework import device_spec
from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import scatter_var_ops
from tensorweave._src.ops import state_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class GradientDescentOptimizer(optimizer.Optimizer):
    """var -= learning_rate * grad.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, 2.0], name="w")
      ...     step = tw.train.GradientDescentOptimizer(0.1).apply_gradients([([1.0, -1.0], w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w))
      [0.9 2.1]
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")

    def _apply_dense(self, grad, var):
        lr = optimizer._cast(self._learning_rate_tensor, var.dtype)
        if var.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16):
            # No half ApplyGradientDescent kernel: AssignSub rounds as TF's does (per operation).
            return state_ops.assign_sub(var, grad * lr, use_locking=self._use_locking).op
        producer, gate = grad.op, []
        if producer.type == "Identity" and producer.inputs[0].op.type == "MatMul":
            # gate_gradients' pass-through (tuple/control_dependency): fuse the MatMul behind it, after the gate.
            producer, gate = producer.inputs[0].op, producer.control_inputs
        if producer.type == "MatMul" and device_spec.may_be_same(producer.device, var.op.device):
            # A dense layer's kernel: one GEMM accumulating into the variable.
            # The MatMul is left in the graph for whoever else reads the
            # gradient; a step that only trains prunes it. Not across devices:
            # the GEMM would move to the variable's device (a parameter
            # server would compute every worker's weight gradients, from
            # inputs larger than the gradient).
            a, b = producer.inputs
            with ops.control_dependencies(gate):
                return training_ops.fused_matmul_apply_gradient_descent(
                    var,
                    lr,
                    a,
                    b,
                    transpose_a=producer.get_attr("transpose_a"),
                    transpose_b=producer.get_attr("transpose_b"),
                    use_locking=self._use_locking,
                ).op
        return training_ops.apply_gradient_descent(var, lr, grad, use_locking=self._use_locking).op

    def _apply_sparse_duplicate_indices(self, grad, var):
        # As TensorFlow: var.scatter_sub(values * lr), repeated indices each subtracting (no deduplication).
        lr = optimizer._cast(self._learning_rate_tensor, var.dtype)
        return scatter_var_ops.scatter_sub(var, grad.indices, grad.values * lr, use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_duplicate_indices(grad, var)
