"""DenseNet121/169/201, with Keras' layer names, model names, argument checks and weight files.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.DenseNet121(weights=None, input_shape=(32, 32, 3), classes=5)
  ...     print(m.name, m.output.shape)
  densenet121 (?, 5)
"""

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu

# Conv blocks in each of the four dense blocks, by depth.
_BLOCKS = {121: (6, 12, 24, 16), 169: (6, 12, 32, 32), 201: (6, 12, 48, 32)}
_GROWTH = 32


def _bn_relu(x, name, sep="_"):
    x = layers.BatchNormalization(axis=iu.channel_axis(), epsilon=1.001e-5, name=f"{name}{sep}bn")(x)
    return layers.Activation("relu", name=f"{name}{sep}relu")(x)


def _dense_block(x, blocks, name):
    for i in range(1, blocks + 1):
        prefix = f"{name}_block{i}"
        y = layers.Conv2D(4 * _GROWTH, 1, use_bias=False, name=prefix + "_1_conv")(_bn_relu(x, prefix + "_0"))
        y = _bn_relu(y, prefix + "_1")
        y = layers.Conv2D(_GROWTH, 3, padding="same", use_bias=False, name=prefix + "_2_conv")(y)
        x = layers.Concatenate(axis=iu.channel_axis(), name=prefix + "_concat")([x, y])
    return x


def _transition(x, name):
    x = _bn_relu(x, name)
    x = layers.Conv2D(x.shape.as_list()[iu.channel_axis()] // 2, 1, use_bias=False, name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def _densenet(depth, include_top, weights, input_tensor, input_shape, pooling, classes, activation, kwargs):
    iu.check_arguments(weights, include_top, classes, kwargs)
    input_shape = iu.obtain_input_shape(input_shape, 224, 32, iu.backend_ops.image_data_format(), include_top, weights)
    img_input = iu.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(((3, 3), (3, 3)))(img_input)
    x = _bn_relu(layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x), "conv1", sep="/")
    x = layers.ZeroPadding2D(((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, blocks in enumerate(_BLOCKS[depth], start=2):
        x = _dense_block(x, blocks, f"conv{stage}")
        if stage < 5:
            x = _transition(x, f"pool{stage}")
    x = _bn_relu(x, "", sep="")
    x = iu.head(x, include_top, pooling, classes, activation, weights, pool_names=("avg_pool", "max_pool"))
    name = f"densenet{depth}"
    file = f"densenet/{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return iu.finish(img_input, input_tensor, x, name, weights, iu.STORAGE + file)


DenseNet121 = iu.public(_densenet, (121,), "DenseNet121")
DenseNet169 = iu.public(_densenet, (169,), "DenseNet169")
DenseNet201 = iu.public(_densenet, (201,), "DenseNet201")
