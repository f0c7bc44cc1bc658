"""tf.keras.regularizers (Keras 2): L1, L2, L1L2 (and l1, l2, l1_l2), `get`/`serialize`/`deserialize`. A layer
given one adds its loss to the layer's `losses` (and to the REGULARIZATION_LOSSES collection)."""

from tensorweave._src.keras import initializers


class Regularizer:
    """The base of regularizers: `__call__(x)` returns a scalar loss."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _check(value, name):
    value = 0.0 if value is None else value
    if not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"Value of `{name}` must be a non-negative float. Received: {name}={value}")
    return float(value)


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x^2)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = _check(l1, "l1"), _check(l2, "l2")

    def __call__(self, x):
        from tensorweave._src.ops import math_ops

        loss = 0.0
        if self.l1:
            loss += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            loss += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        if isinstance(loss, float):
            from tensorweave._src.ops import constant_op

            loss = constant_op.constant(0.0, dtype=x.dtype)
        return loss

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """l1 * sum(|x|)."""

    def __init__(self, l1=0.01, **kwargs):
        super().__init__(l1=kwargs.pop("l", l1))

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    """l2 * sum(x^2)."""

    def __init__(self, l2=0.01, **kwargs):
        super().__init__(l2=kwargs.pop("l", l2))

    def get_config(self):
        return {"l2": self.l2}


def l1_l2(l1=0.01, l2=0.01):
    """An L1L2 regularizer with both factors 0.01 by default."""
    return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2


class OrthogonalRegularizer(Regularizer):
    """factor * mean over pairs of |cosine| between the rows (or columns) of a rank-2 weight."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _check(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                f"Invalid value for argument `mode`. Expected one of {{'rows', 'columns'}}. Received: mode={mode}"
            )
        self.mode = mode

    def __call__(self, inputs):
        import tensorweave as tw

        if inputs.shape.ndims != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape == "
                             f"{inputs.shape}")  # fmt: skip
        if self.mode == "rows":
            inputs = tw.nn.l2_normalize(inputs, axis=1)
            product, size = tw.matmul(inputs, inputs, transpose_b=True), inputs.shape[0].value
        else:
            inputs = tw.nn.l2_normalize(inputs, axis=0)
            product, size = tw.matmul(inputs, inputs, transpose_a=True), inputs.shape[1].value
        off_diagonal = product * (1.0 - tw.eye(size, dtype=inputs.dtype))
        num_pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * tw.reduce_sum(tw.abs(off_diagonal)) / num_pairs

    def get_config(self):
        return {"factor": float(self.factor), "mode": self.mode}


orthogonal_regularizer = OrthogonalRegularizer

_TABLE = {"L1L2": L1L2, "L1": L1, "L2": L2, "l1": L1, "l2": L2, "l1_l2": l1_l2,
          "OrthogonalRegularizer": OrthogonalRegularizer, "orthogonal_regularizer": OrthogonalRegularizer}  # fmt: skip


serialize = initializers.serialize_object


def deserialize(config, custom_objects=None):
    return initializers.deserialize_object(config, _TABLE, custom_objects, "regularizer")


def get(identifier):
    """A regularizer from a name ('l2'), a config dict or a callable; None stays None."""
    return initializers.get_object(identifier, deserialize, "regularizer")
