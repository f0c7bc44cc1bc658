"""The CIFAR CNN's kernels outside the large convolutions, against TensorFlow 1: a first layer of 3 -> 64
channels (conv2d + bias_add + relu, its filter gradient) and 2 -> 16 dilated VALID, max_pool and its gradient over
64 and 37 channels (SAME/VALID, overlapping windows, ties after a relu), the dense layer's weight gradient
applied by GradientDescentOptimizer, and ReluGrad/Relu6 gradients read through fused layers."""

import numpy as np

from tests.fidelity.harness import case

RNG = np.random.RandomState(16)


def _f32(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


@case(tol=1e-4)
def cnn_first_layer_forward_and_gradients(tf, sess):
    x = tf.constant(_f32(2, 12, 11, 3))
    f = tf.constant(_f32(3, 3, 3, 64, scale=0.3))
    b = tf.constant(_f32(64))
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b))
    p = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(p * tf.constant(_f32(2, 6, 6, 64)))
    df, db = tf.gradients(loss, [f, b])
    # Samples of the activations (the reference file stays small), all of the gradients.
    return [h[:, ::5, ::4, ::7], tf.reduce_sum(p, [1, 2]), df[:, :, :, ::3], db]


@case(tol=1e-4)
def cnn_dilated_valid_few_channels(tf, sess):
    x = tf.constant(_f32(1, 9, 10, 2))
    f = tf.constant(_f32(2, 3, 2, 16))
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])
    dy = tf.constant(_f32(1, 7, 6, 16))
    dx, df = tf.gradients(y, [x, f], grad_ys=dy)
    return [y, dx, df]


@case
def cnn_max_pool_grad_many_channels(tf, sess):
    out = []
    for shape, k, s, pad in [
        ((1, 6, 6, 64), 2, 2, "SAME"),
        ((1, 7, 9, 37), 2, 2, "SAME"),
        ((2, 9, 7, 37), 3, 2, "VALID"),
        ((1, 5, 6, 20), 3, 1, "SAME"),
    ]:
        # Small integers after a relu: many ties, each routed to the first maximum.
        v = np.maximum(RNG.randint(-2, 4, size=shape), 0).astype(np.float32)
        x = tf.constant(v)
        y = tf.nn.max_pool(x, [1, k, k, 1], [1, s, s, 1], pad)
        g = tf.constant(RNG.randint(1, 9, size=y.shape.as_list()).astype(np.float32))
        out += [y, tf.gradients(y, x, grad_ys=g)[0]]
    return out


@case(tol=1e-4)
def cnn_dense_layer_sgd_step(tf, sess):
    x = tf.constant(_f32(64, 128))
    w = tf.Variable(_f32(128, 32, scale=0.1))
    b = tf.Variable(_f32(32))
    h = tf.nn.relu6(tf.nn.bias_add(tf.matmul(x, w), b) * 3.0)
    loss = tf.reduce_mean(tf.square(h - 1.0))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    sess.run(train)
    return [w[::9], tf.reduce_sum(w, 0), b, loss]
