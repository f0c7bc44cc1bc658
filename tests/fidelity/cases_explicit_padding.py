"""Explicit padding of convolutions, against TensorFlow 1: `padding=[[0, 0], [top, bottom], [left, right], [0, 0]]`
in tf.nn.conv2d, conv2d_backprop_input/filter, depthwise_conv2d(_native) (padding "EXPLICIT" with the op's
explicit_paddings attr), their gradients, the fused conv + bias + relu of a training step (on the Winograd
algorithm for 3x3 layers with 16+ channels), strides, static shapes, and the errors for malformed paddings."""

import numpy as np

from tests.fidelity.harness import case

RNG = np.random.RandomState(23)
PADS = [[0, 0], [2, 0], [1, 3], [0, 0]]


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@case(tol=1e-4)
def conv2d_explicit_padding_forward_gradients_and_shapes(tf, sess):
    x = tf.constant(_f32(2, 7, 6, 3))
    f = tf.constant(_f32(3, 2, 3, 4))
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], PADS)
    ys = tf.nn.conv2d(x, f, [1, 2, 3, 1], [[0, 0], [1, 1], [0, 2], [0, 0]])
    dy = tf.constant(_f32(2, 7, 9, 4))
    dx, df = tf.gradients(y, [x, f], grad_ys=dy)
    return [
        y.shape.as_list(),
        ys.shape.as_list(),
        y.op.get_attr("padding"),
        y.op.get_attr("explicit_paddings"),
        y,
        ys,
        dx,
        df,
    ]


@case(tol=1e-4)
def conv2d_explicit_padding_winograd_fused_training_step(tf, sess):
    # 3x3, 20 -> 24 channels: the Winograd algorithm, fused with the bias and relu in the training graph.
    x = tf.constant(_f32(2, 9, 8, 20))
    w = tf.Variable(_f32(3, 3, 20, 24) * 0.2)
    b = tf.Variable(_f32(24))
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], PADS), b))
    loss = tf.reduce_mean(tf.square(h))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess.run(tf.global_variables_initializer())
    before = sess.run(loss)
    sess.run(step)
    return [before, sess.run(loss), sess.run(w)[:, :, ::5, ::6], sess.run(b)]


@case(tol=1e-4)
def conv2d_backprop_ops_take_explicit_padding(tf, sess):
    f = tf.constant(_f32(3, 3, 2, 5))
    dy = tf.constant(_f32(1, 6, 8, 5))
    x = tf.constant(_f32(1, 4, 4, 2))
    dx = tf.nn.conv2d_backprop_input([1, 4, 4, 2], f, dy, [1, 1, 1, 1], PADS)
    df = tf.nn.conv2d_backprop_filter(x, [3, 3, 2, 5], dy, [1, 1, 1, 1], PADS)
    return [dx, df]


@case(tol=1e-4)
def depthwise_conv2d_explicit_padding(tf, sess):
    x = tf.constant(_f32(1, 6, 5, 3))
    f = tf.constant(_f32(3, 3, 3, 2))
    y = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], PADS)
    yn = tf.nn.depthwise_conv2d_native(x, f, [1, 2, 2, 1], [[0, 0], [1, 0], [0, 1], [0, 0]])
    dx, df = tf.gradients(tf.reduce_sum(y * y), [x, f])
    return [y.shape.as_list(), y, yn, dx, df]


@case
def explicit_padding_list_of_three_pairs_is_a_value_error(tf, sess):
    return tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], [[0, 0], [1, 1], [1, 1]])


@case
def explicit_padding_of_the_batch_dimension_is_a_value_error(tf, sess):
    return tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], [[1, 0], [1, 1], [1, 1], [0, 0]])


@case
def negative_explicit_padding_is_a_value_error(tf, sess):
    return tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], [[0, 0], [-1, 1], [1, 1], [0, 0]])


@case
def padding_named_explicit_is_a_value_error(tf, sess):
    return tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "EXPLICIT")


@case
def explicit_padding_smaller_than_the_window_is_a_value_error(tf, sess):
    return tf.nn.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([4, 4, 1, 1]), [1, 1, 1, 1], [[0, 0], [1, 0], [0, 1], [0, 0]])
