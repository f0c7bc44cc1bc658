"""Adagrad dual averaging (Xiao, "Dual Averaging Methods for Regularized Stochastic Learning and Online
Optimization", 2010): sparse solutions for linear models, with L1 and L2 regularization."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class AdagradDAOptimizer(optimizer.Optimizer):
    """g += grad; gg += grad^2;
    var = learning_rate * sign(-g) * max(|g| - l1 * t, 0) / (l2 * t * learning_rate + sqrt(gg)),
    t = global_step + 1 (read from the global step variable, which the caller increments, e.g. through
    minimize(global_step=...)).

    Slots: "gradient_accumulator" (`<var>/AdagradDA`, zeros) and "gradient_squared_accumulator"
    (`<var>/AdagradDA_1`, starting at `initial_gradient_squared_accumulator_value`). A gather's gradient updates
    only the rows it read (SparseApplyAdagradDA).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, -1.0], name="w")
      ...     step = tw.train.get_or_create_global_step()
      ...     opt = tw.train.AdagradDAOptimizer(0.5, step)
      ...     train = opt.apply_gradients([([2.0, -1.0], w)], global_step=step)
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(train)
      ...     print(sess.run(w).round(4))
      [-0.4939  0.4767]
    """

    def __init__(
        self,
        learning_rate,
        global_step,
        initial_gradient_squared_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="AdagradDA",
    ):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(
                "initial_gradient_squared_accumulator_value must be positive: "
                f"{initial_gradient_squared_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = initial_gradient_squared_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            init = init_ops.constant_initializer(self._initial_gradient_squared_accumulator_value, dtype=v.dtype)
            self._get_or_make_slot_with_initializer(
                v, init, v.shape, v.dtype, "gradient_squared_accumulator", self._name
            )
        graph = ops.get_default_graph()
        with graph.colocate_with(self._global_step.op):
            self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate"
        )

    def _args(self, var):
        dtype = var.dtype.base_dtype
        return (
            math_ops.cast(self._learning_rate_tensor, dtype),
            math_ops.cast(self._l1_regularization_strength, dtype),
            math_ops.cast(self._l2_regularization_strength, dtype),
            math_ops.cast(array_ops.identity(self._global_step_on_worker), dtypes.int64),
        )

    def _apply_dense(self, grad, var):
        return training_ops.apply_adagrad_da(
            var,
            self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"),
            grad,
            *self._args(var),
            use_locking=self._use_locking,
        ).op

    def _apply_sparse(self, grad, var):
        rows, grad_rows = grad.indices, grad.values
        return training_ops.sparse_apply_adagrad_da(
            var,
            self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"),
            grad_rows,
            rows,
            *self._args(var),
            use_locking=self._use_locking,
        ).op
