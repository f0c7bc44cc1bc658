"""Convolution and pooling variants of segmentation and detection backbones: atrous_conv2d (rate 2),
conv2d_transpose to an explicit output_shape (stride 2, SAME and VALID), separable_conv2d with rate,
depthwise_conv2d with a channel multiplier, tf.nn.pool with dilation_rate, max_pool_with_argmax (values and flat
argmax indices), avg_pool3d / max_pool3d, local_response_normalization, conv1d with stride, tf.nn.convolution with
dilation, the static shapes of each, gradients of transpose/atrous/separable convolutions, and the error for a
transposed convolution whose output_shape does not fit."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(219)
    x = tf.Variable(rng.randn(2, 9, 9, 3).astype(np.float32))
    k = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
    kt = tf.constant(rng.randn(3, 3, 5, 3).astype(np.float32))
    dw = tf.constant(rng.randn(3, 3, 3, 2).astype(np.float32))
    pw = tf.constant(rng.randn(1, 1, 6, 4).astype(np.float32))
    vol = tf.constant(rng.randn(1, 4, 4, 4, 2).astype(np.float32))
    sig = tf.constant(rng.randn(2, 10, 3).astype(np.float32))
    k1 = tf.constant(rng.randn(3, 3, 5).astype(np.float32))
    fetch = {
        "atrous": tf.nn.atrous_conv2d(x, k, rate=2, padding="SAME"),
        "atrous_valid": tf.nn.atrous_conv2d(x, k, rate=2, padding="VALID"),
        "transpose_same": tf.nn.conv2d_transpose(x, kt, [2, 18, 18, 5], [1, 2, 2, 1], padding="SAME"),
        "transpose_valid": tf.nn.conv2d_transpose(x, kt, [2, 19, 19, 5], [1, 2, 2, 1], padding="VALID"),
        "separable": tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME", rate=[2, 2]),
        "depthwise": tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "VALID"),
        "pool_dilated": tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2]),
        "pool_avg_strided": tf.nn.pool(x, [3, 3], "AVG", "VALID", strides=[2, 2]),
        "avg3d": tf.nn.avg_pool3d(vol, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
        "max3d": tf.nn.max_pool3d(vol, [1, 3, 3, 3, 1], [1, 1, 1, 1, 1], "SAME"),
        "lrn": tf.nn.local_response_normalization(x, depth_radius=1, bias=1.0, alpha=0.5, beta=0.75),
        "conv1d": tf.nn.conv1d(sig, k1, stride=2, padding="SAME"),
        "convolution": tf.nn.convolution(x, k, "SAME", dilation_rate=[2, 1]),
    }
    pooled, argmax = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    loss = sum(tf.reduce_sum(tf.square(fetch[n])) for n in ("atrous", "transpose_same", "separable"))
    grad = tf.gradients(loss, x)[0]
    out = {"shapes": {k: v.shape.as_list() for k, v in fetch.items()}, "argmax_dtype": argmax.dtype.name}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run(fetch)
        out["argmax"] = sess.run([pooled, argmax])
        out["grad"] = sess.run(grad)
        try:
            sess.run(tf.nn.conv2d_transpose(x, kt, [2, 10, 10, 5], [1, 2, 2, 1], padding="SAME"))
            out["bad_output_shape"] = None
        except (ValueError, tf.errors.OpError):  # TF's class depends on its kernel (oneDNN's: AbortedError)
            out["bad_output_shape"] = "raised"
    return out
