"""tf.keras.layers: shape, merge, activation and embedding layers over tensorweave ops."""

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import backend_ops, constraints, initializers, regularizers
from tensorweave._src.keras.layers import _Layer
from tensorweave._src.layers.base import Layer  # noqa: F401 - tw.keras.layers.Layer


class Reshape(_Layer):
    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        target = [int(d) for d in self.target_shape]
        if target.count(-1) > 1:
            raise ValueError(f"There must be at most one unknown dimension in output_shape. Received: {tuple(target)}.")
        dims = inputs.shape.as_list()[1:] if inputs.shape.ndims is not None else [None]
        if None not in dims:  # tf_keras's check: the target holds the input's elements, batch aside
            n, known = int(np.prod(dims, dtype=np.int64)), int(np.prod([d for d in target if d != -1], dtype=np.int64))
            if (-1 in target and (known == 0 or n % known)) or (-1 not in target and n != known):
                raise ValueError(
                    f"total size of new array must be unchanged, input_shape = {dims}, output_shape = {target}"
                )
            return tw.reshape(inputs, [-1] + [n // known if d == -1 else d for d in target])  # -1: the batch
        # Features of a run-time size: the batch size is kept (a -1 there would absorb a mismatch).
        out = tw.reshape(inputs, tw.concat([tw.shape(inputs)[:1], target], 0))
        out.set_shape(
            [inputs.shape[0] if inputs.shape.ndims is not None else None] + [d if d != -1 else None for d in target]
        )
        return out


class Permute(_Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)

    def call(self, inputs):
        return tw.transpose(inputs, [0] + list(self.dims))


class RepeatVector(_Layer):
    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = n

    def call(self, inputs):
        if inputs.shape.ndims != 2:
            raise ValueError(
                f"Input 0 of layer {self.name} is incompatible with the layer: expected ndim=2, "
                f"found ndim={inputs.shape.ndims}. Full shape received: {inputs.shape}"
            )
        return tw.tile(tw.expand_dims(inputs, 1), [1, self.n, 1])


class ReLU(_Layer):
    """max(x, 0), or Keras's general form: x for x >= threshold, negative_slope * (x - threshold) below, capped at
    max_value."""

    supports_masking = True

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: {negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be a negative value. Received: {threshold}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        # Keras's backend.relu, step by step.
        x, alpha, threshold = inputs, self.negative_slope, self.threshold
        if alpha and self.max_value is None and threshold == 0:
            return tw.nn.leaky_relu(x, alpha=alpha)
        negative = tw.nn.relu(threshold - x) if alpha else None
        clip = self.max_value is not None
        if threshold != 0:
            y = x * tw.cast(tw.greater(x, threshold), x.dtype)
        elif clip and self.max_value == 6:  # as Keras: one Relu6 (which the lite runtime has) for ReLU(6.)
            y, clip = tw.nn.relu6(x), False
        else:
            y = tw.nn.relu(x)
        if clip:
            y = tw.clip_by_value(y, 0.0, float(self.max_value))
        return y - alpha * negative if alpha else y


class LeakyReLU(_Layer):
    supports_masking = True

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return tw.nn.leaky_relu(inputs, alpha=self.alpha)


class Softmax(_Layer):
    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return tw.nn.softmax(inputs, axis=self.axis)


class Lambda(_Layer):
    """Wraps `function(inputs, **arguments)` as a layer; `mask` (a tensor or a callable of (inputs, mask)) gives the
    output's mask."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.output_shape_arg = output_shape
        self.mask = mask
        self.arguments = arguments or {}
        self.supports_masking = mask is not None

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)

    def compute_mask(self, inputs, mask=None):
        return self.mask(inputs, mask) if callable(self.mask) else self.mask

    @classmethod
    def from_config(cls, config, custom_objects=None):
        function = config.get("function")
        if not callable(function):
            # A saved Lambda holds its function as marshalled Python bytecode (or a name): running it would execute
            # whatever the file holds. (It failed on the config's keys with a TypeError.)
            raise ValueError(
                "Requested the deserialization of a Lambda layer with a Python `lambda` inside it. This carries a "
                "potential risk of arbitrary code execution and thus it is disallowed: create the Lambda layer in "
                f"code instead (layer {config.get('name')!r})."
            )
        return super().from_config(config)


class _GlobalPooling(_Layer):
    """Global pooling over the spatial axes (`self._axes` in channels_last; shifted by one in channels_first),
    keeping them as size-1 axes with `keepdims=True`."""

    _reduce = None
    _axes = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or backend_ops.image_data_format()
        if self.data_format not in ("channels_first", "channels_last"):
            raise ValueError(
                f"The `data_format` argument must be one of 'channels_first', 'channels_last'. Received: {data_format}"
            )
        self.keepdims = keepdims

    def call(self, inputs):
        if inputs.shape.ndims != len(self._axes) + 2:
            raise ValueError(
                f"Input 0 of layer {self.name} is incompatible with the layer: expected "
                f"ndim={len(self._axes) + 2}, found ndim={inputs.shape.ndims}. "
                f"Full shape received: {inputs.shape}"
            )
        shift = 1 if self.data_format == "channels_first" else 0
        return type(self)._reduce(inputs, axis=[a + shift for a in self._axes], keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalPooling):
    _reduce, _axes = tw.reduce_mean, (1,)


class GlobalAveragePooling2D(_GlobalPooling):
    _reduce, _axes = tw.reduce_mean, (1, 2)


class GlobalMaxPooling1D(_GlobalPooling):
    _reduce, _axes = tw.reduce_max, (1,)


class GlobalMaxPooling2D(_GlobalPooling):
    _reduce, _axes = tw.reduce_max, (1, 2)


class ZeroPadding2D(_Layer):
    def __init__(self, padding=(1, 1), **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif isinstance(padding[0], int):
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(p) for p in padding)

    def call(self, inputs):
        return tw.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


class Cropping2D(_Layer):
    """Drops `cropping` rows and columns from the edges of the image."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cropping, int):
            cropping = ((cropping, cropping), (cropping, cropping))
        elif isinstance(cropping[0], int):
            cropping = ((cropping[0], cropping[0]), (cropping[1], cropping[1]))
        self.cropping = tuple(tuple(c) for c in cropping)
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=4)
        first = 2 if self.data_format == "channels_first" else 1
        slices = [slice(None)] * 4
        for i, (start, end) in enumerate(self.cropping):
            size = x.shape[first + i].value
            if size is not None and start + end >= size:
                # (slicing gave an empty image, or a negative size)
                raise ValueError(
                    "Argument `cropping` must be greater than the input shape. "
                    f"Received: inputs.shape={tuple(x.shape.as_list())}, and cropping={self.cropping}"
                )
            slices[first + i] = slice(start, (size - end) if size is not None else (-end or None))
        return x[tuple(slices)]


class Embedding(_Layer):
    """Rows of an [input_dim, output_dim] `embeddings` matrix; `mask_zero=True` masks the steps whose index is 0
    for the recurrent layers after it."""

    def __init__(
        self,
        input_dim,
        output_dim,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        activity_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        input_length=None,
        **kwargs,
    ):
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError(
                "Both `input_dim` and `output_dim` should be positive, "
                f"Received input_dim = {input_dim} and output_dim = {output_dim}"
            )
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = tuple(input_length) if isinstance(input_length, (list, tuple)) else (input_length,)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim, self.output_dim = input_dim, output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero, self.input_length = mask_zero, input_length

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings", [self.input_dim, self.output_dim], None, self.embeddings_initializer,
            self.embeddings_regularizer, constraint=self.embeddings_constraint,
        )  # fmt: skip
        self.built = True

    def compute_mask(self, inputs, mask=None):
        return tw.not_equal(inputs, 0) if self.mask_zero else None

    def call(self, inputs):
        if inputs.dtype not in (tw.int32, tw.int64):
            inputs = tw.cast(inputs, tw.int32)
        return tw.nn.embedding_lookup(self.embeddings, inputs)


class Masking(_Layer):
    """Masks the time steps whose features all equal `mask_value` (and zeroes them)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return tw.reduce_any(tw.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = tw.reduce_any(tw.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * tw.cast(keep, inputs.dtype)


class _Merge(_Layer):
    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                f"A merge layer should be called on a list of at least 2 inputs. Got {len(inputs) if isinstance(inputs, (list, tuple)) else 1} inputs."
            )
        return self._merge(list(inputs))


class Add(_Merge):
    def _merge(self, xs):
        # Keras sums pairwise (Add/AddV2 nodes, which the converters lower), not with one AddN.
        y = xs[0]
        for x in xs[1:]:
            y = y + x
        return y


class Subtract(_Merge):
    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")
        return xs[0] - xs[1]


class Multiply(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = out * x
        return out


class Average(_Merge):
    def _merge(self, xs):
        return tw.add_n(xs) / float(len(xs))


class Maximum(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = tw.maximum(out, x)
        return out


class Minimum(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = tw.minimum(out, x)
        return out


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def _merge(self, xs):
        _check_concat_shapes(xs, self.axis)
        return tw.concat(xs, axis=self.axis)


def _check_concat_shapes(xs, axis):
    """tf_keras' Concatenate.build check: the shapes agree (known dims) except on `axis`."""
    shapes = [tuple(x.shape.as_list()) if x.shape.ndims is not None else None for x in xs]
    if any(shape is None for shape in shapes):
        return
    reduced = set()
    for shape in shapes:
        dims = list(shape)
        del dims[axis]
        reduced.add(tuple(dims))
    if len(reduced) == 1:
        return
    message = (
        "A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. "
        f"Received: input_shape={shapes}"
    )
    if len({len(shape) for shape in reduced}) != 1:
        raise ValueError(message)
    for i in range(len(next(iter(reduced)))):
        if len({shape[i] for shape in reduced if shape[i] is not None}) > 1:
            raise ValueError(message)


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)


# --- activations with weights or arguments ---


class PReLU(_Layer):
    """max(x, 0) + alpha * min(x, 0), `alpha` a weight over the non-batch axes (shared along `shared_axes`)."""

    def __init__(
        self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None, **kwargs
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is not None and not isinstance(shared_axes, (list, tuple)):
            shared_axes = [shared_axes]
        self.shared_axes = list(shared_axes) if shared_axes is not None else None
        self.supports_masking = True

    def build(self, input_shape):
        shape = input_shape.as_list()[1:]
        for axis in self.shared_axes or []:
            shape[axis - 1] = 1
        self.alpha = self.add_weight(
            "alpha", shape, None, self.alpha_initializer, self.alpha_regularizer, constraint=self.alpha_constraint
        )
        self.built = True

    def call(self, inputs):
        return tw.nn.relu(inputs) - self.alpha * tw.nn.relu(-inputs)


class ELU(_Layer):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError(f"Alpha of an ELU layer cannot be None, expecting a float. Received: {alpha}")
        self.alpha = float(alpha)
        self.supports_masking = True

    def call(self, inputs):
        if self.alpha == 1.0:
            return tw.nn.elu(inputs)
        return tw.where(inputs > 0.0, inputs, self.alpha * (tw.exp(tw.minimum(inputs, 0.0)) - 1.0))


class ThresholdedReLU(_Layer):
    """x where x > theta, else 0."""

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError(f"Theta of a Thresholded ReLU layer cannot be negative or None. Received: {theta}")
        self.theta = float(theta)
        self.supports_masking = True

    def call(self, inputs):
        return inputs * tw.cast(tw.greater(inputs, self.theta), inputs.dtype)


# --- regularization layers: active in the training phase only ---


def _in_train_phase(train_fn, inputs, training):
    from tensorweave._src.keras import backend
    from tensorweave._src.layers import core

    if training is None:
        training = backend.learning_phase()
    return core._select_training(training, train_fn, lambda: tw.identity(inputs))


class _TrainingOnly(_Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, training=None):
        return _in_train_phase(lambda: self._noisy(tw.convert_to_tensor(inputs)), inputs, training)


class GaussianNoise(_TrainingOnly):
    """Adds N(0, stddev) noise in training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.seed = stddev, seed

    def _noisy(self, x):
        return x + tw.random_normal(tw.shape(x), 0.0, self.stddev, dtype=x.dtype, seed=self.seed)


class GaussianDropout(_TrainingOnly):
    """Multiplies by N(1, sqrt(rate / (1 - rate))) noise in training."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.seed = rate, seed

    def _noisy(self, x):
        if not 0 < self.rate < 1:
            return x
        stddev = (self.rate / (1.0 - self.rate)) ** 0.5
        return x * tw.random_normal(tw.shape(x), 1.0, stddev, dtype=x.dtype, seed=self.seed)


class AlphaDropout(_TrainingOnly):
    """Dropout that keeps a SELU network's mean and variance: dropped units are set to -alpha * scale, then an
    affine correction is applied (training only)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def _noisy(self, x):
        if not 0 < self.rate < 1:
            return x
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        shape = tw.shape(x) if self.noise_shape is None else self.noise_shape
        kept = tw.cast(tw.greater_equal(tw.random_uniform(shape, seed=self.seed), self.rate), x.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (x * kept + alpha_p * (1 - kept)) + b


class _SpatialDropout(_TrainingOnly):
    """Drops whole feature maps (one draw per example and channel)."""

    _rank = None

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.data_format = rate, data_format or "channels_last"

    def call(self, inputs, training=None):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=self._rank + 2)
        return super().call(x, training)

    def _noisy(self, x):
        s = tw.shape(x)
        ones = [1] * self._rank
        if self.data_format == "channels_first":
            noise_shape = tw.stack([s[0], s[1], *ones])
        else:
            noise_shape = tw.stack([s[0], *ones, s[-1]])
        return tw.nn.dropout(x, rate=self.rate, noise_shape=noise_shape)


class SpatialDropout1D(_SpatialDropout):
    _rank = 1

    def __init__(self, rate, **kwargs):
        super().__init__(rate, **kwargs)


class SpatialDropout2D(_SpatialDropout):
    _rank = 2


class SpatialDropout3D(_SpatialDropout):
    _rank = 3


class ActivityRegularization(_Layer):
    """The identity, adding l1 * sum(|x|) + l2 * sum(x^2) (over the batch size) to the losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2
        self.supports_masking = True

    def call(self, inputs):
        return tw.identity(inputs)


class InputLayer(_Layer):
    """The first layer of a Sequential model: it gives the model's input shape; called on a tensor, the identity."""

    def __init__(
        self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=None, name=None, **kwargs
    ):
        kwargs.pop("ragged", None)
        kwargs.pop("type_spec", None)
        if input_shape is not None:
            kwargs["input_shape"] = input_shape
        super().__init__(name=name, dtype=dtype, batch_size=batch_size, **kwargs)
        self.input_tensor = input_tensor

    def call(self, inputs):
        return inputs


# --- dot products and attention ---


class Dot(_Merge):
    """The dot product of two inputs along `axes` (per example); with `normalize`, the cosine similarity."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes = [axes, axes] if isinstance(axes, int) else list(axes)
        self.normalize = normalize

    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={xs}")
        x, y = xs
        axes = [a if a >= 0 else a + t.shape.ndims for a, t in zip(self.axes, xs)]
        if x.shape[axes[0]].value != y.shape[axes[1]].value:
            raise ValueError(
                f"Incompatible input shapes: axis values {x.shape[axes[0]].value} (at axis {axes[0]}) != "
                f"{y.shape[axes[1]].value} (at axis {axes[1]}). Full input shapes: {x.shape}, {y.shape}"
            )
        if self.normalize:
            x, y = tw.nn.l2_normalize(x, axis=axes[0]), tw.nn.l2_normalize(y, axis=axes[1])
        if x.shape.ndims == 2 and y.shape.ndims == 2:
            return tw.reduce_sum(x * y, axis=1, keepdims=True)
        if x.shape.ndims != 3 or y.shape.ndims != 3:
            raise NotImplementedError("Dot supports two 2-D or two 3-D inputs")
        return tw.matmul(x, y, transpose_a=axes[0] == 1, transpose_b=axes[1] == 2)


class _BaseAttention(_Layer):
    def __init__(self, dropout=0.0, **kwargs):
        kwargs.pop("causal", None)
        super().__init__(**kwargs)
        self.dropout = dropout
        self.supports_masking = True

    def build(self, input_shape):
        self.built = True

    def _apply(self, inputs, scope_name, reuse, *args, **kwargs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(
                f"{type(self).__name__} layer must be called on a list of inputs, namely [query, value] or "
                f"[query, value, key]. Received: {inputs}."
            )
        return super()._apply(inputs, scope_name, reuse, *args, **kwargs)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False, use_causal_mask=False):
        q = tw.convert_to_tensor(inputs[0])
        v = tw.convert_to_tensor(inputs[1])
        k = tw.convert_to_tensor(inputs[2]) if len(inputs) > 2 else v
        if not self.built_scores:
            self._build_scores(q, v)
            self.built_scores = True
        q_mask, v_mask = (mask or [None, None])[:2] if mask is not None else (None, None)
        scores = self._scores(q, k)
        scores_mask = None
        if v_mask is not None:
            scores_mask = tw.expand_dims(tw.cast(v_mask, tw.bool), -2)
        if use_causal_mask:
            tq, tv = tw.shape(scores)[1], tw.shape(scores)[2]
            causal = tw.expand_dims(
                tw.greater_equal(tw.expand_dims(tw.range(tq), 1), tw.expand_dims(tw.range(tv), 0)), 0
            )
            scores_mask = causal if scores_mask is None else tw.logical_and(scores_mask, causal)
        if scores_mask is not None:
            scores -= 1e9 * tw.cast(tw.logical_not(scores_mask), scores.dtype)
        weights = tw.nn.softmax(scores)
        if self.dropout:
            weights = _in_train_phase(lambda: tw.nn.dropout(weights, rate=self.dropout), weights, training)
        result = tw.matmul(weights, v)
        if q_mask is not None:
            result *= tw.expand_dims(tw.cast(q_mask, result.dtype), -1)
        return [result, weights] if return_attention_scores else result

    built_scores = False

    def compute_mask(self, inputs, mask=None):
        return None if mask is None else mask[0]

    def __call__(self, inputs, mask=None, **kwargs):
        if mask is None and isinstance(inputs, (list, tuple)):
            from tensorweave._src.keras.layers import _get_mask

            masks = [_get_mask(t) for t in inputs[:2]]
            mask = masks if any(m is not None for m in masks) else None
        return super().__call__(inputs, mask=mask, **kwargs)


class Attention(_BaseAttention):
    """Dot-product (Luong) attention over [query, value(, key)]: softmax(query @ key^T) @ value; `use_scale` learns a
    scalar factor of the scores, score_mode 'concat' uses sum(tanh(query + key))."""

    def __init__(self, use_scale=False, score_mode="dot", **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Received: score_mode={score_mode}. Acceptable values are: ['dot', 'concat']")
        self.use_scale, self.score_mode = use_scale, score_mode

    def _build_scores(self, q, v):
        self.scale = self.add_weight("scale", [], initializer="ones") if self.use_scale else None
        self.concat_score_weight = (
            self.add_weight("concat_score_weight", [], initializer="ones") if self.score_mode == "concat" else None
        )

    def _scores(self, q, k):
        if self.score_mode == "dot":
            scores = tw.matmul(q, k, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        q4, k4 = tw.expand_dims(q, -2), tw.expand_dims(k, -3)
        inner = q4 + k4 if self.scale is None else self.scale * (q4 + k4)
        return self.concat_score_weight * tw.reduce_sum(tw.tanh(inner), axis=-1)


class AdditiveAttention(_BaseAttention):
    """Additive (Bahdanau) attention: scores sum(scale * tanh(query + key)) over the features."""

    def __init__(self, use_scale=True, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def _build_scores(self, q, v):
        dim = v.shape[-1].value
        self.scale = self.add_weight("scale", [dim], initializer="glorot_uniform") if self.use_scale else None

    def _scores(self, q, k):
        inner = tw.tanh(tw.expand_dims(q, -2) + tw.expand_dims(k, -3))
        if self.scale is not None:
            inner = self.scale * inner
        return tw.reduce_sum(inner, axis=-1)


class MultiHeadAttention(_Layer):
    """Multi-head attention (Vaswani et al.) over [batch, time, features] query/value(/key), with Keras's weights
    `query/kernel` [features, heads, key_dim], ..., `attention_output/kernel` [heads, value_dim, features]."""

    def __init__(
        self,
        num_heads,
        key_dim,
        value_dim=None,
        dropout=0.0,
        use_bias=True,
        output_shape=None,
        attention_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if attention_axes is not None and tuple(_axes_list(attention_axes)) not in ((1,), (-2,)):
            raise NotImplementedError("MultiHeadAttention supports attention over the time axis of 3-D inputs only")
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim or key_dim
        self.dropout, self.use_bias, self._output_shape = dropout, use_bias, output_shape
        self._init = {
            "kernel_initializer": initializers.get(kernel_initializer),
            "bias_initializer": initializers.get(bias_initializer),
            "kernel_regularizer": regularizers.get(kernel_regularizer),
            "bias_regularizer": regularizers.get(bias_regularizer),
            "kernel_constraint": constraints.get(kernel_constraint),
            "bias_constraint": constraints.get(bias_constraint),
        }

    def build(self, input_shape):
        self.built = True

    def _dense(self, name, x, kernel_shape, bias_shape, equation):
        from tensorweave._src.layers import core

        with core._scope(name, None, None):
            kernel = self.add_weight(
                "kernel", kernel_shape, None, self._init["kernel_initializer"], self._init["kernel_regularizer"],
                constraint=self._init["kernel_constraint"],
            )  # fmt: skip
            y = tw.einsum(equation, x, kernel)
            if self.use_bias:
                bias = self.add_weight(
                    "bias", bias_shape, None, self._init["bias_initializer"], self._init["bias_regularizer"],
                    constraint=self._init["bias_constraint"],
                )  # fmt: skip
                y = y + bias
        return y

    def _apply(self, inputs, scope_name, reuse, *args, **kwargs):
        from tensorweave._src.layers import core

        with core._scope(scope_name, None, reuse):
            return self.call(inputs, *args, **kwargs)

    def call(
        self, query, value=None, key=None, attention_mask=None, return_attention_scores=False, training=None,
        use_causal_mask=False,
    ):  # fmt: skip
        if value is None:
            raise ValueError("MultiHeadAttention needs `value` (call it as layer(query, value)).")
        q, v = tw.convert_to_tensor(query), tw.convert_to_tensor(value)
        k = v if key is None else tw.convert_to_tensor(key)
        for t, what in ((q, "query"), (v, "value"), (k, "key")):
            if t.shape.ndims != 3:
                raise ValueError(
                    f'Input {what} of layer "{self.name}" is incompatible with the layer: expected ndim=3, found '
                    f"ndim={t.shape.ndims}. Full shape received: {t.shape}"
                )
        h, kd, vd = self.num_heads, self.key_dim, self.value_dim
        out_dim = self._output_shape or q.shape[-1].value
        if isinstance(out_dim, (list, tuple)):
            out_dim = out_dim[-1]
        qp = self._dense("query", q, [q.shape[-1].value, h, kd], [h, kd], "abc,cde->abde")
        kp = self._dense("key", k, [k.shape[-1].value, h, kd], [h, kd], "abc,cde->abde")
        vp = self._dense("value", v, [v.shape[-1].value, h, vd], [h, vd], "abc,cde->abde")
        qp = qp * (1.0 / float(kd) ** 0.5)
        scores = tw.einsum("aecd,abcd->acbe", kp, qp)  # [batch, heads, Tq, Tk]
        mask = None if attention_mask is None else tw.cast(attention_mask, tw.bool)
        if use_causal_mask:
            tq, tk = tw.shape(q)[1], tw.shape(k)[1]
            causal = tw.greater_equal(tw.expand_dims(tw.range(tq), 1), tw.expand_dims(tw.range(tk), 0))
            causal = tw.expand_dims(causal, 0)
            mask = causal if mask is None else tw.logical_and(mask, causal)
        if mask is not None:
            scores += (1.0 - tw.cast(tw.expand_dims(mask, 1), scores.dtype)) * -1e9
        probs = tw.nn.softmax(scores, axis=-1)
        dropped = probs
        if self.dropout:
            dropped = _in_train_phase(lambda: tw.nn.dropout(probs, rate=self.dropout), probs, training)
        ctx = tw.einsum("acbe,aecd->abcd", dropped, vp)
        out = self._dense("attention_output", ctx, [h, vd, out_dim], [out_dim], "abcd,cde->abe")
        return (out, probs) if return_attention_scores else out

    def __call__(self, query, value=None, key=None, **kwargs):
        return super().__call__(query, value, key, **kwargs)


def _axes_list(value):
    return [value] if isinstance(value, int) else list(value)
