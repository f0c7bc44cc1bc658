"""EfficientNetB0..B7, with Keras' layer names, model names, argument checks and weight files (the input
rescaling and normalization are part of the model, as in Keras).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.EfficientNetB0(input_shape=(32, 32, 3), weights=None, classes=4)
  ...     print(m.name, m.output.shape)
  efficientnetb0 (?, 4)
"""

import math

import numpy as np

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu

# (kernel, repeats, filters in, filters out, expansion, stride) of the seven stages of B0 (all with
# squeeze-excite ratio 0.25 and identity skips), scaled in width and depth for B1..B7.
_STAGES = [
    (3, 1, 32, 16, 1, 1),
    (3, 2, 16, 24, 6, 2),
    (5, 2, 24, 40, 6, 2),
    (3, 3, 40, 80, 6, 2),
    (5, 3, 80, 112, 6, 1),
    (5, 4, 112, 192, 6, 2),
    (3, 1, 192, 320, 6, 1),
]
# B<i>: (width coefficient, depth coefficient, default input size, dropout rate).
_VARIANTS = [
    (1.0, 1.0, 224, 0.2),
    (1.0, 1.1, 240, 0.2),
    (1.1, 1.2, 260, 0.3),
    (1.2, 1.4, 300, 0.3),
    (1.4, 1.8, 380, 0.4),
    (1.6, 2.2, 456, 0.4),
    (1.8, 2.6, 528, 0.5),
    (2.0, 3.1, 600, 0.5),
]
_CONV_INIT = {
    "class_name": "VarianceScaling",
    "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"},
}
_DENSE_INIT = {
    "class_name": "VarianceScaling",
    "config": {"scale": 1 / 3, "mode": "fan_out", "distribution": "uniform"},
}
_IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]
_DROP_CONNECT_RATE = 0.2


def _bn(x, name):
    return layers.BatchNormalization(axis=iu.channel_axis(), name=name)(x)


def _conv(x, filters, name, **kwargs):
    return layers.Conv2D(filters, 1, padding="same", kernel_initializer=_CONV_INIT, name=name, **kwargs)(x)


def _block(inputs, drop_rate, name, kernel, filters_in, filters_out, expansion, stride):
    filters = filters_in * expansion
    x = inputs
    if expansion != 1:
        x = _conv(x, filters, name + "expand_conv", use_bias=False)
        x = layers.Activation("swish", name=name + "expand_activation")(_bn(x, name + "expand_bn"))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, kernel), name=name + "dwconv_pad")(x)
    x = layers.DepthwiseConv2D(
        kernel,
        strides=stride,
        padding="valid" if stride == 2 else "same",
        use_bias=False,
        depthwise_initializer=_CONV_INIT,
        name=name + "dwconv",
    )(x)
    x = layers.Activation("swish", name=name + "activation")(_bn(x, name + "bn"))
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    first = iu.channel_axis() == 1
    se = layers.Reshape((filters, 1, 1) if first else (1, 1, filters), name=name + "se_reshape")(se)
    se = _conv(se, max(1, int(filters_in * 0.25)), name + "se_reduce", activation="swish")
    se = _conv(se, filters, name + "se_expand", activation="sigmoid")
    x = layers.multiply([x, se], name=name + "se_excite")
    x = _bn(_conv(x, filters_out, name + "project_conv", use_bias=False), name + "project_bn")
    if stride == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def _efficientnet(variant, include_top, weights, input_tensor, input_shape, pooling, classes, activation, kwargs):
    width, depth, default_size, dropout_rate = _VARIANTS[variant]
    iu.check_arguments(weights, include_top, classes, kwargs)
    fmt = iu.backend_ops.image_data_format()
    input_shape = iu.obtain_input_shape(input_shape, default_size, 32, fmt, include_top, weights)

    def round_filters(filters):
        filters *= width
        new = max(8, int(filters + 4) // 8 * 8)
        return int(new + 8 if new < 0.9 * filters else new)

    x = img_input = iu.image_input(input_tensor, input_shape)
    x = layers.Rescaling(1.0 / 255.0)(x)
    x = layers.Normalization(axis=iu.channel_axis() % 4)(x)
    if weights == "imagenet":  # Keras' weights hold the variances' square, not the deviations
        scale = np.array([1 / math.sqrt(s) for s in _IMAGENET_STDDEV_RGB], np.float32)
        x = x * scale.reshape([1, 3, 1, 1] if fmt == "channels_first" else [1, 1, 1, 3])
    x = layers.ZeroPadding2D(padding=iu.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, use_bias=False, kernel_initializer=_CONV_INIT, name="stem_conv")(
        x
    )
    x = layers.Activation("swish", name="stem_activation")(_bn(x, "stem_bn"))
    repeats = [math.ceil(depth * stage[1]) for stage in _STAGES]
    b, total = 0, float(sum(repeats))
    for i, ((kernel, _, f_in, f_out, expansion, stride), n) in enumerate(zip(_STAGES, repeats)):
        f_in, f_out = round_filters(f_in), round_filters(f_out)
        for j in range(n):
            name = f"block{i + 1}{chr(j + 97)}_"
            x = _block(
                x,
                _DROP_CONNECT_RATE * b / total,
                name,
                kernel,
                f_in if j == 0 else f_out,
                f_out,
                expansion,
                stride if j == 0 else 1,
            )
            b += 1
    x = _conv(x, round_filters(1280), "top_conv", use_bias=False)
    x = layers.Activation("swish", name="top_activation")(_bn(x, "top_bn"))

    def top(x):
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        return layers.Dense(classes, activation=activation, kernel_initializer=_DENSE_INIT, name="predictions")(x)

    x = iu.head(x, include_top, pooling, classes, activation, weights, ("avg_pool", "max_pool"), top)
    name = f"efficientnetb{variant}"
    file = f"{name}{'' if include_top else '_notop'}.h5"
    return iu.finish(
        img_input, input_tensor, x, name, weights, "https://storage.googleapis.com/keras-applications/" + file
    )


EfficientNetB0 = iu.public(_efficientnet, (0,), "EfficientNetB0")
EfficientNetB1 = iu.public(_efficientnet, (1,), "EfficientNetB1")
EfficientNetB2 = iu.public(_efficientnet, (2,), "EfficientNetB2")
EfficientNetB3 = iu.public(_efficientnet, (3,), "EfficientNetB3")
EfficientNetB4 = iu.public(_efficientnet, (4,), "EfficientNetB4")
EfficientNetB5 = iu.public(_efficientnet, (5,), "EfficientNetB5")
EfficientNetB6 = iu.public(_efficientnet, (6,), "EfficientNetB6")
EfficientNetB7 = iu.public(_efficientnet, (7,), "EfficientNetB7")
