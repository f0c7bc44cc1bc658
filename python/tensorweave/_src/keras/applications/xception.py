"""Xception, with Keras' layer names, model name, argument checks and weight files.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.Xception(input_shape=(71, 71, 3), weights=None, classes=4)
  ...     print(m.name, m.output.shape)
  xception (?, 4)
"""

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu


def _bn(x, name=None):
    return layers.BatchNormalization(axis=iu.channel_axis(), name=name)(x)


def _sepconv(x, filters, name, act=True):
    """[relu ('<name>_act')], separable 3x3 conv '<name>', batch norm '<name>_bn'."""
    if act:
        x = layers.Activation("relu", name=name + "_act")(x)
    x = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False, name=name)(x)
    return _bn(x, name + "_bn")


def _downsample_block(x, block, filters, first_act=True):
    """Two separable convs and a strided max pool, added to a strided 1x1 projection of the block's input."""
    residual = _bn(layers.Conv2D(filters[1], 1, strides=2, padding="same", use_bias=False)(x))
    x = _sepconv(x, filters[0], f"block{block}_sepconv1", act=first_act)
    x = _sepconv(x, filters[1], f"block{block}_sepconv2")
    x = layers.MaxPooling2D(3, strides=2, padding="same", name=f"block{block}_pool")(x)
    return layers.add([x, residual])


def _xception(include_top, weights, input_tensor, input_shape, pooling, classes, activation, kwargs):
    iu.check_arguments(weights, include_top, classes, kwargs)
    input_shape = iu.obtain_input_shape(input_shape, 299, 71, iu.backend_ops.image_data_format(), include_top, weights)
    img_input = iu.image_input(input_tensor, input_shape)
    x = layers.Conv2D(32, 3, strides=2, use_bias=False, name="block1_conv1")(img_input)
    x = layers.Activation("relu", name="block1_conv1_act")(_bn(x, "block1_conv1_bn"))
    x = layers.Conv2D(64, 3, use_bias=False, name="block1_conv2")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(_bn(x, "block1_conv2_bn"))
    # Block 2's first separable conv follows the stem's relu; Keras names its second relu 'block2_sepconv2_act'.
    x = _downsample_block(x, 2, (128, 128), first_act=False)
    x = _downsample_block(x, 3, (256, 256))
    x = _downsample_block(x, 4, (728, 728))
    for block in range(5, 13):
        residual = x
        for i in (1, 2, 3):
            x = _sepconv(x, 728, f"block{block}_sepconv{i}")
        x = layers.add([x, residual])
    x = _downsample_block(x, 13, (728, 1024))
    x = layers.Activation("relu", name="block14_sepconv1_act")(_sepconv(x, 1536, "block14_sepconv1", act=False))
    x = layers.Activation("relu", name="block14_sepconv2_act")(_sepconv(x, 2048, "block14_sepconv2", act=False))

    # (Keras names the classifier's pooling 'avg_pool', not the include_top=False one.)
    x = iu.head(x, include_top, pooling, classes, activation, weights, top_pool_name="avg_pool")
    file = f"xception/xception_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return iu.finish(img_input, input_tensor, x, "xception", weights, iu.STORAGE + file)


Xception = iu.public(_xception, (), "Xception")
