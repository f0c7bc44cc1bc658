"""tf.layers (issue 16): every TF1 layer, functional and class form, against TensorFlow 1 — output values and
static shapes (kernels from constant initializers, so both frameworks hold the same weights), variable names,
the update ops of batch normalization, `training=` of dropout and batch normalization, layer reuse."""

import numpy as np

from tests.fidelity.harness import case


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(np.float32)


def _init(tf, *shape, seed=1):
    return tf.constant_initializer(_rand(*shape, seed=seed))


def _run_all(tf, sess, outputs):
    """Initializes the variables; returns the outputs, their static shapes and the variable names."""
    sess.run(tf.global_variables_initializer())
    names = [v.name for v in tf.global_variables()]
    return [sess.run(outputs), [o.shape for o in outputs], names]


@case
def conv1d_layers(tf, sess):
    x = tf.constant(_rand(2, 9, 3))
    a = tf.layers.conv1d(x, 4, 3, strides=2, padding="same", kernel_initializer=_init(tf, 3, 3, 4))
    b = tf.layers.conv1d(
        x, 2, 2, dilation_rate=2, activation=tf.nn.relu, kernel_initializer=_init(tf, 2, 3, 2, seed=2),
        bias_initializer=tf.constant_initializer(0.5),
    )  # fmt: skip
    layer = tf.layers.Conv1D(3, 3, kernel_initializer=_init(tf, 3, 3, 3, seed=3), name="c1")
    c = layer(x)
    return _run_all(tf, sess, [a, b, c]) + [layer.name, [v.name for v in layer.trainable_weights]]


@case
def conv2d_and_conv3d_layers(tf, sess):
    x2 = tf.constant(_rand(2, 6, 6, 2))
    x3 = tf.constant(_rand(1, 4, 5, 6, 2))
    a = tf.layers.conv2d(x2, 3, [3, 2], strides=(2, 1), padding="same", kernel_initializer=_init(tf, 3, 2, 2, 3))
    b = tf.layers.Conv2D(2, 3, use_bias=False, kernel_initializer=_init(tf, 3, 3, 2, 2, seed=2))(x2)
    c = tf.layers.conv3d(x3, 2, 2, strides=(1, 2, 2), kernel_initializer=_init(tf, 2, 2, 2, 2, 2, seed=3))
    d = tf.layers.Conv3D(3, [1, 2, 3], padding="same", kernel_initializer=_init(tf, 1, 2, 3, 2, 3, seed=4))(x3)
    return _run_all(tf, sess, [a, b, c, d])


@case
def conv_transpose_layers(tf, sess):
    x2 = tf.constant(_rand(2, 3, 4, 3))
    x3 = tf.constant(_rand(1, 2, 3, 2, 2))
    a = tf.layers.conv2d_transpose(x2, 2, 3, strides=2, kernel_initializer=_init(tf, 3, 3, 2, 3))
    b = tf.layers.Conv2DTranspose(
        4, [2, 3], strides=(2, 1), padding="same", kernel_initializer=_init(tf, 2, 3, 4, 3, seed=2)
    )(x2)
    c = tf.layers.conv3d_transpose(x3, 2, 2, strides=2, padding="same", kernel_initializer=_init(tf, 2, 2, 2, 2, 2))
    d = tf.layers.Conv3DTranspose(1, 3, kernel_initializer=_init(tf, 3, 3, 3, 1, 2, seed=3))(x3)
    return _run_all(tf, sess, [a, b, c, d])


@case
def conv2d_transpose_layer_unknown_batch(tf, sess):
    x = tf.placeholder(tf.float32, [None, 3, 3, 2])
    y = tf.layers.conv2d_transpose(x, 2, 3, strides=2, padding="same", kernel_initializer=_init(tf, 3, 3, 2, 2))
    sess.run(tf.global_variables_initializer())
    return [y.shape, sess.run(y, {x: _rand(2, 3, 3, 2)})]


@case
def separable_conv_layers(tf, sess):
    x1 = tf.constant(_rand(2, 9, 3))
    x2 = tf.constant(_rand(2, 6, 6, 3))
    a = tf.layers.separable_conv1d(
        x1, 4, 3, depth_multiplier=2, depthwise_initializer=_init(tf, 3, 3, 2),
        pointwise_initializer=_init(tf, 1, 6, 4, seed=2),
    )  # fmt: skip
    b = tf.layers.separable_conv2d(
        x2, 2, 3, strides=2, padding="same", depthwise_initializer=_init(tf, 3, 3, 3, 1, seed=3),
        pointwise_initializer=_init(tf, 1, 1, 3, 2, seed=4),
    )  # fmt: skip
    layer = tf.layers.SeparableConv2D(
        2, 2, dilation_rate=2, depthwise_initializer=_init(tf, 2, 2, 3, 1, seed=5),
        pointwise_initializer=_init(tf, 1, 1, 3, 2, seed=6),
    )  # fmt: skip
    c = layer(x2)
    return _run_all(tf, sess, [a, b, c]) + [sorted(v.name for v in layer.weights)]


@case
def pooling_layers(tf, sess):
    x1 = tf.constant(_rand(2, 9, 3))
    x2 = tf.constant(_rand(2, 6, 6, 3))
    x3 = tf.constant(_rand(1, 4, 5, 6, 2))
    outs = [
        tf.layers.max_pooling1d(x1, 2, 2),
        tf.layers.average_pooling1d(x1, 3, 2, padding="same"),
        tf.layers.max_pooling2d(x2, 3, 2, padding="same"),
        tf.layers.average_pooling2d(x2, 2, 2),
        tf.layers.max_pooling3d(x3, 2, 2),
        tf.layers.average_pooling3d(x3, [2, 3, 2], 1, padding="same"),
        tf.layers.MaxPooling1D(3, 1)(x1),
        tf.layers.AveragePooling1D(2, 2)(x1),
        tf.layers.MaxPooling2D(2, 2)(x2),
        tf.layers.AveragePooling2D(3, 1, padding="same")(x2),
        tf.layers.MaxPooling3D(2, 1)(x3),
        tf.layers.AveragePooling3D(2, 2, padding="same")(x3),
    ]
    return [outs, [o.shape for o in outs]]


@case
def dense_class_reuses_its_variables(tf, sess):
    x = tf.constant(_rand(3, 4))
    layer = tf.layers.Dense(2, activation=tf.nn.tanh, kernel_initializer=_init(tf, 4, 2))
    a, b = layer(x), layer(x * 2.0)
    c = tf.layers.Dense(5, use_bias=False, name="out", kernel_initializer=_init(tf, 2, 5, seed=2))(a)
    return _run_all(tf, sess, [a, b, c]) + [
        [v.name for v in layer.weights],
        layer.kernel.name,
        layer.bias.name,
        len(tf.trainable_variables()),
    ]


@case
def dense_3d_input(tf, sess):
    x = tf.constant(_rand(2, 3, 4))
    y = tf.layers.dense(x, 2, kernel_initializer=_init(tf, 4, 2))
    return _run_all(tf, sess, [y])


@case
def flatten_and_dropout_layers(tf, sess):
    x = tf.constant(_rand(2, 3, 4))
    flat = tf.layers.Flatten()(x)
    off = tf.layers.dropout(x, 0.5, training=False)
    off_class = tf.layers.Dropout(0.3)(x)
    on = tf.layers.dropout(tf.ones([1000]), rate=0.5, training=True, seed=1)
    kept = tf.reduce_sum(tf.cast(tf.not_equal(on, 0.0), tf.float32))
    return [flat, flat.shape, off, off_class, sess.run(kept) > 350, sess.run(kept) < 650, sess.run(tf.reduce_max(on))]


@case
def dropout_training_placeholder(tf, sess):
    x = tf.ones([200])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.dropout(x, rate=0.5, training=training)
    return [sess.run(y, {training: False}), sess.run(tf.reduce_max(y), {training: True})]


@case
def batch_normalization_layer_updates(tf, sess):
    x = tf.constant(_rand(4, 3, 3, 2) * 3.0 + 1.0)
    layer = tf.layers.BatchNormalization(momentum=0.9, epsilon=0.01)
    y = layer(x, training=True)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    sess.run(tf.global_variables_initializer())
    out = sess.run(y)
    sess.run(updates)
    moving = sess.run([layer.moving_mean, layer.moving_variance])
    infer = layer(x, training=False)
    return [
        out,
        moving,
        sess.run(infer),
        len(updates),
        len(layer.updates),
        sorted(v.name for v in layer.weights),
        sorted(v.name for v in layer.trainable_weights),
    ]


@case
def batch_normalization_functional_2d(tf, sess):
    x = tf.constant(_rand(6, 3) * 2.0)
    y = tf.layers.batch_normalization(x, training=True, momentum=0.5)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        step = tf.identity(y)
    sess.run(tf.global_variables_initializer())
    out = sess.run(step)
    mm = next(v for v in tf.global_variables() if "moving_mean" in v.name)
    mv = next(v for v in tf.global_variables() if "moving_variance" in v.name)
    return [out, sess.run(mm), sess.run(mv), y.shape]


@case
def layer_errors(tf, sess):
    outcomes = []
    for build in (
        lambda: tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2),
        lambda: tf.layers.conv2d(tf.ones([1, 4, 4, 1]), 2, 2, padding="full"),
        lambda: tf.layers.max_pooling3d(tf.ones([1, 4, 4, 1]), 2, 2),
    ):
        try:
            build()
            outcomes.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is what a TF1 program would catch
            outcomes.append(type(e).__name__ if type(e).__module__ == "builtins" else "other")
    return outcomes


@case
def batch_normalization_channels_first(tf, sess):
    x = tf.constant(_rand(4, 3, 2, 5) * 2.0 + 0.5)
    layer = tf.layers.BatchNormalization(axis=1, momentum=0.8)
    y = layer(x, training=True)
    sess.run(tf.global_variables_initializer())
    out = sess.run(y)
    sess.run(layer.updates)
    return [out, y.shape, sess.run([layer.moving_mean, layer.moving_variance]), layer.gamma.shape]
