"""MobileNetV3Small and MobileNetV3Large, with Keras' layer names, model names, argument checks and weight files
(the input rescaling to [-1, 1] is part of the model, as in Keras, unless include_preprocessing=False).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.MobileNetV3Small(input_shape=(64, 64, 3), weights=None, classes=4)
  ...     print(m.name, m.output.shape)
  MobilenetV3small (?, 4)
"""

import logging

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu
from tensorweave._src.keras.applications.mobilenet import make_divisible

_LOG = logging.getLogger(__name__)

# (expansion, filters, kernel ('k': the model's kernel, 5 or 3 when minimalistic), stride, squeeze-excite,
# activation ('relu', or 'act': hard swish, relu when minimalistic)) of each inverted residual block.
_SMALL = [
    (1, 16, 3, 2, True, "relu"),
    (72 / 16, 24, 3, 2, False, "relu"),
    (88 / 24, 24, 3, 1, False, "relu"),
    (4, 40, "k", 2, True, "act"),
    (6, 40, "k", 1, True, "act"),
    (6, 40, "k", 1, True, "act"),
    (3, 48, "k", 1, True, "act"),
    (3, 48, "k", 1, True, "act"),
    (6, 96, "k", 2, True, "act"),
    (6, 96, "k", 1, True, "act"),
    (6, 96, "k", 1, True, "act"),
]
_LARGE = [
    (1, 16, 3, 1, False, "relu"),
    (4, 24, 3, 2, False, "relu"),
    (3, 24, 3, 1, False, "relu"),
    (3, 40, "k", 2, True, "relu"),
    (3, 40, "k", 1, True, "relu"),
    (3, 40, "k", 1, True, "relu"),
    (6, 80, 3, 2, False, "act"),
    (2.5, 80, 3, 1, False, "act"),
    (2.3, 80, 3, 1, False, "act"),
    (2.3, 80, 3, 1, False, "act"),
    (6, 112, 3, 1, True, "act"),
    (6, 112, 3, 1, True, "act"),
    (6, 160, "k", 2, True, "act"),
    (6, 160, "k", 1, True, "act"),
    (6, 160, "k", 1, True, "act"),
]


def _relu(x):
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _hard_swish(x):
    return layers.Multiply()([x, _hard_sigmoid(x)])


def _bn(x, name):
    return layers.BatchNormalization(axis=iu.channel_axis(), epsilon=1e-3, momentum=0.999, name=name)(x)


def _se_block(inputs, filters, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite/AvgPool")(inputs)
    x = layers.Conv2D(make_divisible(filters * 0.25, 8), 1, padding="same", name=prefix + "squeeze_excite/Conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite/Relu")(x)
    x = layers.Conv2D(filters, 1, padding="same", name=prefix + "squeeze_excite/Conv_1")(x)
    return layers.Multiply(name=prefix + "squeeze_excite/Mul")([inputs, _hard_sigmoid(x)])


def _inverted_res_block(x, expansion, filters, kernel, stride, se, activation, block_id):
    shortcut, infilters = x, x.shape.as_list()[iu.channel_axis()]
    prefix = f"expanded_conv_{block_id}/" if block_id else "expanded_conv/"
    expanded = make_divisible(infilters * expansion, 8)
    if block_id:
        x = layers.Conv2D(expanded, 1, padding="same", use_bias=False, name=prefix + "expand")(x)
        x = activation(_bn(x, prefix + "expand/BatchNorm"))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, kernel), name=prefix + "depthwise/pad")(x)
    x = layers.DepthwiseConv2D(
        kernel, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False, name=prefix + "depthwise"
    )(x)
    x = activation(_bn(x, prefix + "depthwise/BatchNorm"))
    if se:
        x = _se_block(x, expanded, prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(x, prefix + "project/BatchNorm")
    if stride == 1 and infilters == filters:
        x = layers.Add(name=prefix + "Add")([shortcut, x])
    return x


def _mobilenet_v3(
    blocks,
    last_point_ch,
    model_type,
    input_shape,
    alpha,
    minimalistic,
    include_top,
    weights,
    input_tensor,
    classes,
    pooling,
    dropout_rate,
    classifier_activation,
    include_preprocessing,
):
    iu.check_arguments(weights, include_top, classes, {})
    first = iu.backend_ops.image_data_format() == "channels_first"
    if input_shape is None:
        if input_tensor is not None and iu.backend_ops.is_keras_tensor(input_tensor):
            rows, cols = input_tensor.shape.as_list()[2:4] if first else input_tensor.shape.as_list()[1:3]
            input_shape = (3, cols, rows) if first else (cols, rows, 3)
        else:
            input_shape = (3, None, None) if first else (None, None, 3)
    rows, cols = input_shape[1:3] if first else input_shape[:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    if weights == "imagenet":
        if (not minimalistic and alpha not in (0.75, 1.0)) or (minimalistic and alpha != 1.0):
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non minimalistic "
                "or `1.0` for minimalistic only."
            )
        if rows != cols or rows != 224:
            _LOG.warning(
                "`input_shape` is undefined or non-square, or `rows` is not 224. "
                "Weights for input shape (224, 224) will be loaded as the default."
            )
    kernel, activation = (3, _relu) if minimalistic else (5, _hard_swish)
    x = img_input = iu.image_input(input_tensor, input_shape)
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False, name="Conv")(x)
    x = activation(_bn(x, "Conv/BatchNorm"))
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        act = activation if act == "act" else _relu
        k = kernel if k == "k" else k
        x = _inverted_res_block(
            x, expansion, make_divisible(filters * alpha, 8), k, stride, se and not minimalistic, act, block_id
        )
    last_conv_ch = make_divisible(x.shape.as_list()[iu.channel_axis()] * 6, 8)
    if alpha > 1.0:
        last_point_ch = make_divisible(last_point_ch * alpha, 8)
    x = layers.Conv2D(last_conv_ch, 1, padding="same", use_bias=False, name="Conv_1")(x)
    x = activation(_bn(x, "Conv_1/BatchNorm"))

    def top(x):
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = activation(layers.Conv2D(last_point_ch, 1, padding="same", name="Conv_2")(x))
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Flatten()(layers.Conv2D(classes, 1, padding="same", name="Logits")(x))
        return layers.Activation(classifier_activation, name="Predictions")(x)

    x = iu.head(x, include_top, pooling, classes, classifier_activation, weights, ("avg_pool", "max_pool"), top)
    name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    file = f"weights_mobilenet_v3_{name}{'' if include_top else '_no_top_v2'}.h5"
    return iu.finish(
        img_input, input_tensor, x, "MobilenetV3" + model_type, weights, iu.STORAGE + "mobilenet_v3/" + file
    )


def _public(blocks, last_point_ch, model_type, title):
    def application(
        input_shape=None,
        alpha=1.0,
        minimalistic=False,
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        classes=1000,
        pooling=None,
        dropout_rate=0.2,
        classifier_activation="softmax",
        include_preprocessing=True,
    ):
        return _mobilenet_v3(
            blocks,
            last_point_ch,
            model_type,
            input_shape,
            alpha,
            minimalistic,
            include_top,
            weights,
            input_tensor,
            classes,
            pooling,
            dropout_rate,
            classifier_activation,
            include_preprocessing,
        )

    application.__name__ = application.__qualname__ = title
    application.__doc__ = f"{title} (Howard et al., 2019), as `tf.keras.applications.{title}`."
    return application


MobileNetV3Small = _public(_SMALL, 1024, "small", "MobileNetV3Small")
MobileNetV3Large = _public(_LARGE, 1280, "large", "MobileNetV3Large")
