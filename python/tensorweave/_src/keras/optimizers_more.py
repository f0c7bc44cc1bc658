"""tf.keras.optimizers (Keras 2.11+): AdamW (Adam with decoupled weight decay) and Lion (sign of an interpolated
momentum), on the Keras optimizer base."""

from tensorweave._src.keras import optimizers
from tensorweave._src.keras.optimizers import Adam, Optimizer
from tensorweave._src.ops import array_ops, math_ops

__all__ = ["AdamW", "Lion"]


class AdamW(Adam):
    """Adam with decoupled weight decay: each step first moves a variable by -learning_rate * weight_decay * var
    (variables excluded by `exclude_from_weight_decay` are not decayed)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="AdamW", **kwargs):  # fmt: skip
        if weight_decay is None:
            raise ValueError("Missing value of `weight_decay` which is required and must be a float value.")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, name=name, **kwargs)
        self.weight_decay = weight_decay
        self._exclude_ids, self._exclude_names = set(), []

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Variables (or variables whose name contains one of `var_names`) that are not decayed."""
        self._exclude_ids.update(id(v) for v in var_list or [])
        self._exclude_names.extend(var_names or [])

    def _decays(self, var):
        return id(var) not in self._exclude_ids and not any(n in var.name for n in self._exclude_names)

    def _apply_dense(self, grad, var, c):
        return Optimizer._apply_dense(self, grad, var, dict(c, decay=self._decays(var)))

    def _apply_sparse(self, grad, var, indices, c):
        return Optimizer._apply_sparse(self, grad, var, indices, dict(c, decay=self._decays(var)))

    def _update(self, grad, var, slots, c):
        if c.get("decay", True) and self.weight_decay:
            var = var - var * math_ops.cast(self.weight_decay, c["lr_t"].dtype) * c["lr_t"]
        return super()._update(grad, var, slots, c)

    def get_config(self):
        return dict(super().get_config(), weight_decay=self.weight_decay)


class Lion(Optimizer):
    """Lion (Chen et al. 2023): var -= lr * sign(beta_1 * m + (1 - beta_1) * g); m = beta_2 * m + (1 - beta_2) * g."""

    _slot_order = ("m",)

    def __init__(self, learning_rate=0.0001, beta_1=0.9, beta_2=0.99, name="Lion", **kwargs):
        super().__init__(name, **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(f"`beta_1`={beta_1} must be between ]0, 1]. Otherwise, the optimizer degenerates to "
                             "SignSGD.")  # fmt: skip
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        c["beta_1_t"] = array_ops.identity(self._get_hyper("beta_1", dtype))
        c["beta_2_t"] = array_ops.identity(self._get_hyper("beta_2", dtype))
        return c

    def _update(self, grad, var, slots, c):
        m = slots[0]
        step = math_ops.sign(m * c["beta_1_t"] + grad * (1.0 - c["beta_1_t"]))
        return var - c["lr_t"] * step, [m * c["beta_2_t"] + grad * (1.0 - c["beta_2_t"])]

    def get_config(self):
        return self._base_config("beta_1", "beta_2")


optimizers._ALL.update(adamw=AdamW, lion=Lion)
