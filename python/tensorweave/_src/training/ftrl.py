"""FTRL-proximal (McMahan et al., "Ad Click Prediction: a View from the
Trenches", 2013), with L1, L2 and online L2-shrinkage regularization."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import training_ops
from tensorweave._src.training import optimizer


class FtrlOptimizer(optimizer.Optimizer):
    """Follow-the-regularized-leader: per coordinate,
    new_accum = accum + grad^2;
    linear += grad - (new_accum^-p - accum^-p) / learning_rate * var;
    var = (sign(linear) * l1 - linear) / (new_accum^-p / learning_rate + 2 * l2)
    where |linear| > l1, else 0 (p = learning_rate_power).

    With `l2_shrinkage_regularization_strength` > 0 the linear term takes
    grad + 2 * l2_shrinkage * var (ApplyFtrlV2); `beta` adds
    beta / (2 * learning_rate) to l2. Slots: "accum" (`<var>/Ftrl`, starting at
    `initial_accumulator_value`) and "linear" (`<var>/Ftrl_1`, zeros). A
    gather's gradient updates only the rows it read (SparseApplyFtrl).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, -2.0], name="w")
      ...     opt = tw.train.FtrlOptimizer(0.5, l1_regularization_strength=0.1)
      ...     step = opt.apply_gradients([([1.0, 1.0], w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(step)
      ...     print(sess.run(w).round(4))
      [ 0.1741 -1.826 ]
    """

    def __init__(
        self,
        learning_rate,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="Ftrl",
        accum_name=None,
        linear_name=None,
        l2_shrinkage_regularization_strength=0.0,
        beta=None,
    ):
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value {initial_accumulator_value} needs to be positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power} needs to be negative or zero")
        if l1_regularization_strength < 0.0:
            raise ValueError(f"l1_regularization_strength {l1_regularization_strength} needs to be positive or zero")
        if l2_regularization_strength < 0.0:
            raise ValueError(f"l2_regularization_strength {l2_regularization_strength} needs to be positive or zero")
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError(
                f"l2_shrinkage_regularization_strength {l2_shrinkage_regularization_strength} "
                "needs to be positive or zero"
            )
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=v.dtype)
            self._get_or_make_slot_with_initializer(v, init, v.shape, v.dtype, "accum", self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate"
        )
        self._l1_regularization_strength_tensor = ops.convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        # l2 + beta / (2 * lr): the adjusted l2 of TensorFlow's FtrlOptimizer.
        l2 = ops.convert_to_tensor(self._l2_regularization_strength, name="l2_regularization_strength")
        if self._beta:
            lr = math_ops.cast(self._learning_rate_tensor, l2.dtype)
            l2 = l2 + self._beta / (2.0 * math_ops.maximum(lr, 1e-36))
        self._adjusted_l2_regularization_strength_tensor = l2
        self._l2_shrinkage_regularization_strength_tensor = ops.convert_to_tensor(
            self._l2_shrinkage_regularization_strength, name="l2_shrinkage_regularization_strength"
        )
        self._learning_rate_power_tensor = ops.convert_to_tensor(self._learning_rate_power, name="learning_rate_power")

    def _args(self, var):
        cast = optimizer._cast
        hyper = {
            "lr": cast(self._learning_rate_tensor, var.dtype),
            "l1": cast(self._l1_regularization_strength_tensor, var.dtype),
            "l2": cast(self._adjusted_l2_regularization_strength_tensor, var.dtype),
            "lr_power": cast(self._learning_rate_power_tensor, var.dtype),
        }
        if self._l2_shrinkage_regularization_strength > 0.0:
            hyper["l2_shrinkage"] = cast(self._l2_shrinkage_regularization_strength_tensor, var.dtype)
        return hyper

    def _apply_dense(self, grad, var):
        return training_ops.apply_ftrl(
            var,
            self.get_slot(var, "accum"),
            self.get_slot(var, "linear"),
            grad,
            use_locking=self._use_locking,
            **self._args(var),
        ).op

    def _apply_sparse(self, grad, var):
        rows, grad_rows = grad.indices, grad.values
        return training_ops.sparse_apply_ftrl(
            var,
            self.get_slot(var, "accum"),
            self.get_slot(var, "linear"),
            grad_rows,
            rows,
            use_locking=self._use_locking,
            **self._args(var),
        ).op
