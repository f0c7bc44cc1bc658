"""tf.keras.layers.BatchNormalization and LayerNormalization (Keras 2), with Keras's weight names
(`batch_normalization/gamma`, `.../moving_mean`, ...), defaults and training-phase rules."""

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.keras import backend, constraints, initializers, regularizers
from tensorweave._src.keras.layers import _Layer
from tensorweave._src.layers.base import InputSpec
from tensorweave._src.ops import array_ops, math_ops, nn_impl, nn_ops, state_ops

__all__ = ["BatchNormalization", "LayerNormalization"]


def _validate_axis(axis, shape):
    """Keras's validate_axis: `axis` (an int or ints, maybe negative) as a list of non-negative ints."""
    rank = shape.ndims
    if not rank:
        raise ValueError(f"Input has undefined rank. Received: input_shape={shape}")
    axis = [axis] if isinstance(axis, int) else list(axis)
    axis = [a + rank if a < 0 else a for a in axis]
    for a in axis:
        if a < 0 or a >= rank:
            raise ValueError(
                "Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                f"inputs.rank={rank}). Received: axis={tuple(axis)}"
            )
    if len(axis) != len(set(axis)):
        raise ValueError(f"Duplicate axis: {tuple(axis)}")
    return axis


def _static_bool(training):
    """A Python bool for `training` when it is known while the graph is built (a bool, an int, a constant)."""
    if isinstance(training, (bool, int, np.bool_, np.integer)):
        return bool(training)
    value = array_ops.constant_value(ops.convert_to_tensor(training))
    return None if value is None else bool(value)


class BatchNormalization(_Layer):
    """Normalizes by the batch's mean and variance in training (updating the moving averages, whose update ops go
    to `updates` and UPDATE_OPS) and by the moving averages in inference. The phase is `training=` or
    `backend.learning_phase()`; a layer with `trainable=False` always runs in inference mode (Keras 2)."""

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        moving_mean_initializer="zeros",
        moving_variance_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        renorm_clipping=None,
        renorm_momentum=0.99,
        fused=None,
        trainable=True,
        virtual_batch_size=None,
        adjustment=None,
        name=None,
        **kwargs,
    ):
        kwargs.pop("synchronized", None)
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization: renorm, virtual_batch_size and adjustment are not supported")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum, self.epsilon, self.center, self.scale = momentum, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.fused = fused
        self.supports_masking = True

    def build(self, input_shape):
        self.axis = _validate_axis(self.axis, input_shape)
        rank = input_shape.ndims
        if self.fused is None:
            self.fused = rank in (4, 5) and self.axis in ([1], [3] if rank == 4 else [4])
        elif self.fused and not (rank in (4, 5) and self.axis in ([1], [3] if rank == 4 else [4])):
            raise ValueError(
                "Passing `fused=True` is only supported when axis is 1 or 3 for input rank = 4 or 1 or 4 for input "
                f"rank = 5. Got axis {tuple(self.axis)}"
            )
        dims = {a: input_shape[a].value for a in self.axis}
        if None in dims.values():
            raise ValueError(
                f"Input has undefined `axis` dimension. Received input with shape {tuple(input_shape.as_list())} "
                f"and axis={tuple(self.axis)}"
            )
        self.input_spec = InputSpec(ndim=rank, axes=dims)
        if len(self.axis) == 1:
            param_shape = [dims[self.axis[0]]]
        else:
            param_shape = [dims.get(i, 1) for i in range(rank)]
        # As Keras: the parameters of a float16/bfloat16 batch norm are float32 (the math runs in float32).
        half = self.dtype is not None and dtypes.as_dtype(self.dtype) in (dtypes.float16, dtypes.bfloat16)
        param_dtype = dtypes.float32 if half else None
        self.gamma = (
            self.add_weight("gamma", param_shape, param_dtype, self.gamma_initializer, self.gamma_regularizer,
                            constraint=self.gamma_constraint)
            if self.scale else None
        )  # fmt: skip
        self.beta = (
            self.add_weight("beta", param_shape, param_dtype, self.beta_initializer, self.beta_regularizer,
                            constraint=self.beta_constraint)
            if self.center else None
        )  # fmt: skip
        self.moving_mean = self.add_weight(
            "moving_mean", param_shape, param_dtype, self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", param_shape, param_dtype, self.moving_variance_initializer, trainable=False
        )
        self.built = True

    def call(self, inputs, training=None):
        x = ops.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=self.input_spec.ndim)
        if x.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16):
            # As Keras: 16-bit inputs are normalized in float32 (their variance overflows easily), the output cast back.
            return math_ops.cast(self.call(math_ops.cast(x, dtypes.float32), training), x.dtype.base_dtype)
        if training is None:
            training = backend.learning_phase()
        if not self.trainable:
            training = False
        rank = x.shape.ndims
        reduction = [i for i in range(rank) if i not in self.axis]
        broadcast = [1] * rank
        for a in self.axis:
            broadcast[a] = x.shape[a].value

        def shaped(v):
            return (
                v if v is None or len(self.axis) != 1 or self.axis[0] == rank - 1 else array_ops.reshape(v, broadcast)
            )

        moving_mean, moving_var = self.moving_mean.value(), self.moving_variance.value()
        gamma = None if self.gamma is None else self.gamma.value()
        beta = None if self.beta is None else self.beta.value()
        static = _static_bool(training)
        if static is False:
            mean, var = moving_mean, moving_var
        else:
            mean, var = nn_ops.moments(x, reduction, keepdims=len(self.axis) > 1)
            update_var = var
            if self.fused:
                # The fused kernel's batch variance (what Keras's moving variance follows) has Bessel's correction.
                n = math_ops.cast(array_ops.size(x), x.dtype) / float(np.prod([broadcast[a] for a in self.axis]))
                update_var = var * (n / math_ops.maximum(n - 1.0, 1.0))
            decay = 1.0 - self.momentum
            if static is None:
                training = ops.convert_to_tensor(training)
                mean = math_ops.where(training, mean, moving_mean)
                var = math_ops.where(training, var, moving_var)
                update_var = math_ops.where(training, update_var, moving_var)
                decay = math_ops.where(training, decay, 0.0)
            batch_mean = mean
            for variable, value in ((self.moving_mean, batch_mean), (self.moving_variance, update_var)):
                with ops.name_scope("AssignMovingAvg"):
                    update = state_ops.assign_sub(variable, (variable.value() - value) * decay)
                ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, update.op)
        return nn_impl.batch_normalization(x, shaped(mean), shaped(var), shaped(beta), shaped(gamma), self.epsilon)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            "name": self.name, "trainable": self.trainable, "axis": self.axis, "momentum": self.momentum,
            "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
            "moving_variance_initializer": initializers.serialize(self.moving_variance_initializer),
        }  # fmt: skip


class LayerNormalization(_Layer):
    """Normalizes each example over `axis` (the last by default) by its own mean and variance, then scales by gamma
    and shifts by beta."""

    def __init__(
        self,
        axis=-1,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer="zeros",
        gamma_initializer="ones",
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        self.axis = _validate_axis(self.axis, input_shape)
        param_shape = [input_shape[a].value for a in self.axis]
        if None in param_shape:
            raise ValueError(
                f"Input has undefined `axis` dimension. Received input with shape {tuple(input_shape.as_list())} "
                f"and axis={tuple(self.axis)}"
            )
        self.input_spec = InputSpec(ndim=input_shape.ndims)
        # As Keras: the parameters of a float16/bfloat16 batch norm are float32 (the math runs in float32).
        half = self.dtype is not None and dtypes.as_dtype(self.dtype) in (dtypes.float16, dtypes.bfloat16)
        param_dtype = dtypes.float32 if half else None
        self.gamma = (
            self.add_weight("gamma", param_shape, param_dtype, self.gamma_initializer, self.gamma_regularizer,
                            constraint=self.gamma_constraint)
            if self.scale else None
        )  # fmt: skip
        self.beta = (
            self.add_weight("beta", param_shape, param_dtype, self.beta_initializer, self.beta_regularizer,
                            constraint=self.beta_constraint)
            if self.center else None
        )  # fmt: skip
        self.built = True

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=self.input_spec.ndim)
        rank = x.shape.ndims
        broadcast = [1] * rank
        for a in self.axis:
            broadcast[a] = x.shape[a].value
        mean, var = nn_ops.moments(x, self.axis, keepdims=True)

        def shaped(v):
            return None if v is None else array_ops.reshape(v.value(), broadcast)

        return nn_impl.batch_normalization(x, mean, var, shaped(self.beta), shaped(self.gamma), self.epsilon)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {
            "name": self.name,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
        }
