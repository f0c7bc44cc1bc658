"""tf.keras.layers: shape, merge, activation and embedding layers over tensorweave ops."""

import tensorweave as tw
from tensorweave._src.keras import constraints, initializers, regularizers
from tensorweave._src.keras.layers import _Layer
from tensorweave._src.layers.base import Layer


class Reshape(Layer):
    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        return tw.reshape(inputs, [-1] + list(self.target_shape))


class Permute(Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)

    def call(self, inputs):
        return tw.transpose(inputs, [0] + list(self.dims))


class RepeatVector(Layer):
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


class ReLU(Layer):
    def call(self, inputs):
        return tw.nn.relu(inputs)


class LeakyReLU(Layer):
    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return tw.nn.leaky_relu(inputs, alpha=self.alpha)


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return tw.nn.softmax(inputs, axis=self.axis)


class Lambda(Layer):
    def __init__(self, function, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}

    def call(self, inputs):
        return self.function(inputs, **self.arguments)


class _GlobalPooling(Layer):
    _reduce = None
    _axes = None

    def call(self, inputs):
        if inputs.shape.ndims != len(self._axes) + 2:
            raise ValueError(
                f"Input 0 of layer {self.name} is incompatible with the layer: expected "
                f"ndim={len(self._axes) + 2}, found ndim={inputs.shape.ndims}. "
                f"Full shape received: {inputs.shape}"
            )
        return type(self)._reduce(inputs, axis=list(self._axes))


class GlobalAveragePooling1D(_GlobalPooling):
    _reduce, _axes = tw.reduce_mean, (1,)


class GlobalAveragePooling2D(_GlobalPooling):
    _reduce, _axes = tw.reduce_mean, (1, 2)


class GlobalMaxPooling1D(_GlobalPooling):
    _reduce, _axes = tw.reduce_max, (1,)


class GlobalMaxPooling2D(_GlobalPooling):
    _reduce, _axes = tw.reduce_max, (1, 2)


class ZeroPadding2D(Layer):
    def __init__(self, padding=(1, 1), **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif isinstance(padding[0], int):
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(p) for p in padding)

    def call(self, inputs):
        return tw.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


class Cropping2D(Layer):
    def __init__(self, cropping=((0, 0), (0, 0)), **kwargs):
        super().__init__(**kwargs)
        if isinstance(cropping, int):
            cropping = ((cropping, cropping), (cropping, cropping))
        elif isinstance(cropping[0], int):
            cropping = ((cropping[0], cropping[0]), (cropping[1], cropping[1]))
        self.cropping = tuple(tuple(c) for c in cropping)

    def call(self, inputs):
        (top, bottom), (left, right) = self.cropping
        h, w = inputs.shape[1], inputs.shape[2]
        h = h if isinstance(h, int) or h is None else h.value
        w = w if isinstance(w, int) or w is None else w.value
        return inputs[:, top : h - bottom, left : w - right, :]


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


class _Merge(Layer):
    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                f"A merge layer should be called on a list of at least 2 inputs. Got {len(inputs) if isinstance(inputs, (list, tuple)) else 1} inputs."
            )
        return self._merge(list(inputs))


class Add(_Merge):
    def _merge(self, xs):
        return tw.add_n(xs)


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


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def _merge(self, xs):
        return tw.concat(xs, axis=self.axis)


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


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)
