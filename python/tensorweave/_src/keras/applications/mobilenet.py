"""MobileNet (v1) and MobileNetV2, with Keras' layer names, model names, argument checks and weight files.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.MobileNetV2(input_shape=(96, 96, 3), weights=None, classes=10)
  ...     print(m.name, m.output.shape)
  mobilenetv2_1.00_96 (?, 10)
"""

import logging

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu

_LOG = logging.getLogger(__name__)

# (pointwise filters, stride) of MobileNet's 13 depthwise-separable blocks.
_V1_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
# (filters, stride, expansion) of MobileNetV2's 17 inverted residual blocks.
_V2_BLOCKS = (
    [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6)]
    + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)]
)


def make_divisible(v, divisor, min_value=None):
    """`v` rounded to the nearest multiple of `divisor`, never more than 10% below `v`."""
    new_v = max(min_value or divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _bn(name, **kwargs):
    return layers.BatchNormalization(axis=iu.channel_axis(), name=name, **kwargs)


def _square_size(input_shape, input_tensor, sizes):
    """The input's side when it is square and one of `sizes` (the sizes ImageNet weights exist for), else 224."""
    if input_shape is None and input_tensor is not None and iu.backend_ops.is_keras_tensor(input_tensor):
        input_shape = input_tensor.shape.as_list()[1:]
    if input_shape is None:
        return 224
    rows, cols = input_shape[1:3] if iu.backend_ops.image_data_format() == "channels_first" else input_shape[:2]
    return rows if rows == cols and rows in sizes else 224


def _rows(input_shape, weights, sizes):
    first = iu.backend_ops.image_data_format() == "channels_first"
    rows, cols = input_shape[1:3] if first else input_shape[:2]
    if weights == "imagenet" and (rows != cols or rows not in sizes):
        _LOG.warning(
            f"`input_shape` is undefined or non-square, or `rows` is not in {sizes}. "
            "Weights for input shape (224, 224) will be loaded as the default."
        )
        return 224
    return rows


def MobileNet(
    input_shape=None,
    alpha=1.0,
    depth_multiplier=1,
    dropout=1e-3,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    **kwargs,
):
    """MobileNet (Howard et al., 2017), as `tf.keras.applications.MobileNet`."""
    iu.check_arguments(weights, include_top, classes, kwargs)
    sizes = [128, 160, 192, 224]
    default_size = _square_size(input_shape, None, sizes)
    input_shape = iu.obtain_input_shape(
        input_shape, default_size, 32, iu.backend_ops.image_data_format(), include_top, weights
    )
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError(
                "If imagenet weights are being loaded, depth multiplier must be 1.  "
                f"Received depth_multiplier={depth_multiplier}"
            )
        if alpha not in (0.25, 0.50, 0.75, 1.0):
            raise ValueError(
                "If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or `1.0` only.  "
                f"Received alpha={alpha}"
            )
    rows = _rows(input_shape, weights, sizes)
    img_input = iu.image_input(input_tensor, input_shape)
    x = layers.Conv2D(int(32 * alpha), 3, strides=2, padding="same", use_bias=False, name="conv1")(img_input)
    x = layers.ReLU(6.0, name="conv1_relu")(_bn("conv1_bn")(x))
    for block_id, (filters, stride) in enumerate(_V1_BLOCKS, start=1):
        if stride == 2:
            x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
        x = layers.DepthwiseConv2D(
            3,
            strides=stride,
            padding="same" if stride == 1 else "valid",
            depth_multiplier=depth_multiplier,
            use_bias=False,
            name=f"conv_dw_{block_id}",
        )(x)
        x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(_bn(f"conv_dw_{block_id}_bn")(x))
        x = layers.Conv2D(int(filters * alpha), 1, padding="same", use_bias=False, name=f"conv_pw_{block_id}")(x)
        x = layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(_bn(f"conv_pw_{block_id}_bn")(x))

    def top(x):
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, 1, padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        return layers.Activation(classifier_activation, name="predictions")(x)

    x = iu.head(x, include_top, pooling, classes, classifier_activation, weights, top=top)
    alpha_text = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0"}.get(alpha, "2_5")
    file = f"mobilenet_{alpha_text}_{rows}_tf{'' if include_top else '_no_top'}.h5"
    return iu.finish(
        img_input, input_tensor, x, f"mobilenet_{alpha:0.2f}_{rows}", weights, iu.STORAGE + "mobilenet/" + file
    )


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    in_channels = inputs.shape.as_list()[iu.channel_axis()]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_" if block_id else "expanded_conv_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, 1, padding="same", use_bias=False, name=prefix + "expand")(x)
        x = _bn(prefix + "expand_BN", epsilon=1e-3, momentum=0.999)(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=iu.correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(
        3, strides=stride, use_bias=False, padding="same" if stride == 1 else "valid", name=prefix + "depthwise"
    )(x)
    x = _bn(prefix + "depthwise_BN", epsilon=1e-3, momentum=0.999)(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(prefix + "project_BN", epsilon=1e-3, momentum=0.999)(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def MobileNetV2(
    input_shape=None,
    alpha=1.0,
    include_top=True,
    weights="imagenet",
    input_tensor=None,
    pooling=None,
    classes=1000,
    classifier_activation="softmax",
    **kwargs,
):
    """MobileNetV2 (Sandler et al., 2018), as `tf.keras.applications.MobileNetV2`."""
    iu.check_arguments(weights, include_top, classes, kwargs)
    sizes = [96, 128, 160, 192, 224]
    if input_shape is not None and input_tensor is not None:
        if not iu.backend_ops.is_keras_tensor(input_tensor):
            raise ValueError(f"input_tensor is not a TF-Keras tensor; Received `input_tensor={input_tensor}`")
        if input_tensor.shape.as_list()[2] != input_shape[1]:
            raise ValueError(
                "input_tensor.shape[2] must equal input_shape[1]; "
                f"Received `input_tensor.shape={input_tensor.shape}`, `input_shape={input_shape}`"
            )
    default_size = _square_size(input_shape, input_tensor, sizes)
    input_shape = iu.obtain_input_shape(
        input_shape, default_size, 32, iu.backend_ops.image_data_format(), include_top, weights
    )
    if weights == "imagenet" and alpha not in (0.35, 0.50, 0.75, 1.0, 1.3, 1.4):
        raise ValueError(
            "If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, `1.0`, `1.3` or "
            f"`1.4` only; Received `alpha={alpha}`"
        )
    rows = _rows(input_shape, weights, sizes)
    img_input = iu.image_input(input_tensor, input_shape)
    x = layers.Conv2D(make_divisible(32 * alpha, 8), 3, strides=2, padding="same", use_bias=False, name="Conv1")(
        img_input
    )
    x = _bn("bn_Conv1", epsilon=1e-3, momentum=0.999)(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_V2_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
    x = layers.Conv2D(make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280, 1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn", epsilon=1e-3, momentum=0.999)(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = iu.head(x, include_top, pooling, classes, classifier_activation, weights)
    file = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}{'' if include_top else '_no_top'}.h5"
    return iu.finish(
        img_input, input_tensor, x, f"mobilenetv2_{alpha:0.2f}_{rows}", weights, iu.STORAGE + "mobilenet_v2/" + file
    )
