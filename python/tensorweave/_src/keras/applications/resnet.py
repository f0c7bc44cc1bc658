"""ResNet50/101/152 (v1) and ResNet50V2/101V2/152V2, and VGG16/19, with Keras' layer names, model names,
argument checks and weight files.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     m = tw.keras.applications.ResNet50(include_top=False, weights=None, input_shape=(64, 64, 3), pooling="avg")
  ...     print(m.name, m.output.shape)
  resnet50 (?, 2048)
"""

from tensorweave._src.keras import layers
from tensorweave._src.keras.applications import imagenet_utils as iu

# Blocks per stage (conv2..conv5) of each depth.
_DEPTHS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}
_FILTERS = (64, 128, 256, 512)


def _bn(name):
    return layers.BatchNormalization(axis=iu.channel_axis(), epsilon=1.001e-5, name=name)


def _block_v1(x, filters, stride, conv_shortcut, name):
    shortcut = x
    if conv_shortcut:
        shortcut = _bn(name + "_0_bn")(layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x))
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(name + "_1_bn")(x))
    x = layers.Conv2D(filters, 3, padding="SAME", name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(name + "_2_bn")(x))
    x = _bn(name + "_3_bn")(layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x))
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _block_v2(x, filters, stride, conv_shortcut, name):
    preact = layers.Activation("relu", name=name + "_preact_relu")(_bn(name + "_preact_bn")(x))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(name + "_1_bn")(x))
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(name + "_2_bn")(x))
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _stages(x, depth, preact):
    """v1: the first block of each stage has the projection shortcut and the stride (1 in conv2); v2: the last
    block of each stage strides (1 in conv5) and the first has the projection shortcut."""
    for stage, (filters, blocks) in enumerate(zip(_FILTERS, _DEPTHS[depth])):
        name = f"conv{stage + 2}"
        for i in range(1, blocks + 1):
            if preact:
                stride = 2 if i == blocks and stage < 3 else 1
                x = _block_v2(x, filters, stride, i == 1, f"{name}_block{i}")
            else:
                stride = 2 if i == 1 and stage > 0 else 1
                x = _block_v1(x, filters, stride, i == 1, f"{name}_block{i}")
    return x


def _resnet(depth, preact, include_top, weights, input_tensor, input_shape, pooling, classes, activation, kwargs):
    iu.check_arguments(weights, include_top, classes, kwargs)
    input_shape = iu.obtain_input_shape(input_shape, 224, 32, iu.backend_ops.image_data_format(), include_top, weights)
    img_input = iu.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    if not preact:
        x = layers.Activation("relu", name="conv1_relu")(_bn("conv1_bn")(x))
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = _stages(x, depth, preact)
    if preact:
        x = layers.Activation("relu", name="post_relu")(_bn("post_bn")(x))
    x = iu.head(x, include_top, pooling, classes, activation, weights, pool_names=("avg_pool", "max_pool"))
    name = f"resnet{depth}{'v2' if preact else ''}"
    file = f"{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return iu.finish(img_input, input_tensor, x, name, weights, iu.STORAGE + "resnet/" + file)


def _vgg(convs, include_top, weights, input_tensor, input_shape, pooling, classes, activation, kwargs):
    iu.check_arguments(weights, include_top, classes, kwargs)
    input_shape = iu.obtain_input_shape(input_shape, 224, 32, iu.backend_ops.image_data_format(), include_top, weights)
    x = img_input = iu.image_input(input_tensor, input_shape)
    for block, (filters, n) in enumerate(zip((64, 128, 256, 512, 512), convs), start=1):
        for i in range(1, n + 1):
            x = layers.Conv2D(filters, 3, activation="relu", padding="same", name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D(2, strides=2, name=f"block{block}_pool")(x)

    def top(x):
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        return layers.Dense(classes, activation=activation, name="predictions")(x)

    x = iu.head(x, include_top, pooling, classes, activation, weights, top=top)
    name = f"vgg{sum(convs) + 3}"
    file = f"{name}/{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return iu.finish(img_input, input_tensor, x, name, weights, iu.STORAGE + file)


ResNet50 = iu.public(_resnet, (50, False), "ResNet50")
ResNet101 = iu.public(_resnet, (101, False), "ResNet101")
ResNet152 = iu.public(_resnet, (152, False), "ResNet152")
ResNet50V2 = iu.public(_resnet, (50, True), "ResNet50V2")
ResNet101V2 = iu.public(_resnet, (101, True), "ResNet101V2")
ResNet152V2 = iu.public(_resnet, (152, True), "ResNet152V2")
VGG16 = iu.public(_vgg, ((2, 2, 3, 3, 3),), "VGG16")
VGG19 = iu.public(_vgg, ((2, 2, 4, 4, 4),), "VGG19")
