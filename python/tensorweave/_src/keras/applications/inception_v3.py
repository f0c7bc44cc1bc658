"""InceptionV3, with Keras' layer names (its convolutions are named automatically, in Keras' order), model name,
argument checks and weight files.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.InceptionV3(input_shape=(75, 75, 3), weights=None, classes=4)
  ...     print(m.name, m.output.shape)
  inception_v3 (?, 4)
"""

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu


def _conv_bn(x, filters, rows, cols, padding="same", strides=1):
    x = layers.Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False)(x)
    x = layers.BatchNormalization(axis=iu.channel_axis(), scale=False)(x)
    return layers.Activation("relu")(x)


def _chain(x, convs):
    """`x` through the (filters, rows, cols[, strides, padding]) convolutions in turn."""
    for conv in convs:
        filters, rows, cols, *rest = conv
        x = _conv_bn(x, filters, rows, cols, *(rest[::-1]))
    return x


def _avg_branch(x, filters):
    return _conv_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), filters, 1, 1)


def _concat(branches, name=None):
    return layers.concatenate(branches, axis=iu.channel_axis(), name=name)


def _block_35(x, pool_filters, name):  # mixed0..2
    branches = [
        _conv_bn(x, 64, 1, 1),
        _chain(x, [(48, 1, 1), (64, 5, 5)]),
        _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3)]),
        _avg_branch(x, pool_filters),
    ]
    return _concat(branches, name)


def _block_17(x, width, name):  # mixed4..7
    branches = [
        _conv_bn(x, 192, 1, 1),
        _chain(x, [(width, 1, 1), (width, 1, 7), (192, 7, 1)]),
        _chain(x, [(width, 1, 1), (width, 7, 1), (width, 1, 7), (width, 7, 1), (192, 1, 7)]),
        _avg_branch(x, 192),
    ]
    return _concat(branches, name)


def _block_8(x, i):  # mixed9, mixed10
    branch1x1 = _conv_bn(x, 320, 1, 1)
    branch3x3 = _conv_bn(x, 384, 1, 1)
    branch3x3 = _concat([_conv_bn(branch3x3, 384, 1, 3), _conv_bn(branch3x3, 384, 3, 1)], f"mixed9_{i}")
    dbl = _chain(x, [(448, 1, 1), (384, 3, 3)])
    dbl = _concat([_conv_bn(dbl, 384, 1, 3), _conv_bn(dbl, 384, 3, 1)])
    return _concat([branch1x1, branch3x3, dbl, _avg_branch(x, 192)], f"mixed{9 + i}")


def _inception_v3(include_top, weights, input_tensor, input_shape, pooling, classes, activation, kwargs):
    iu.check_arguments(weights, include_top, classes, kwargs)
    input_shape = iu.obtain_input_shape(input_shape, 299, 75, iu.backend_ops.image_data_format(), include_top, weights)
    img_input = iu.image_input(input_tensor, input_shape)
    x = _chain(img_input, [(32, 3, 3, 2, "valid"), (32, 3, 3, 1, "valid"), (64, 3, 3)])
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = _chain(x, [(80, 1, 1, 1, "valid"), (192, 3, 3, 1, "valid")])
    x = layers.MaxPooling2D(3, strides=2)(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        x = _block_35(x, pool_filters, f"mixed{i}")
    branches = [
        _conv_bn(x, 384, 3, 3, "valid", 2),
        _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3, 2, "valid")]),
        layers.MaxPooling2D(3, strides=2)(x),
    ]
    x = _concat(branches, "mixed3")
    for i, width in enumerate((128, 160, 160, 192)):
        x = _block_17(x, width, f"mixed{4 + i}")
    branches = [
        _chain(x, [(192, 1, 1), (320, 3, 3, 2, "valid")]),
        _chain(x, [(192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3, 2, "valid")]),
        layers.MaxPooling2D(3, strides=2)(x),
    ]
    x = _concat(branches, "mixed8")
    for i in range(2):
        x = _block_8(x, i)

    # (Keras names the classifier's pooling 'avg_pool', not the include_top=False one.)
    x = iu.head(x, include_top, pooling, classes, activation, weights, top_pool_name="avg_pool")
    file = f"inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return iu.finish(img_input, input_tensor, x, "inception_v3", weights, iu.STORAGE + file)


InceptionV3 = iu.public(_inception_v3, (), "InceptionV3")
