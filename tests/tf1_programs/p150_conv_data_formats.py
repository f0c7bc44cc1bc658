"""Convolutions as TF1 performance-minded code wrote them: tf.layers.conv2d / max_pooling2d with
data_format="channels_first" on NCHW input (the tf_cnn_benchmarks style; TF runs NCHW convolutions on CPU),
tf.nn.conv2d(data_format="NHWC") with explicit strides and dilations, tf.nn.convolution with dilation_rate and
padding, tf.nn.pool (AVG / MAX, with dilation), tf.nn.conv1d (stride, "SAME"), tf.nn.bias_add(data_format=
"NCHW"), space_to_batch_nd / batch_to_space_nd around a conv (the atrous trick), tf.nn.atrous_conv2d agreeing with
it, and channels_last vs channels_first results equal after transposes; variable names and static shapes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(150)
    rng = np.random.RandomState(150)
    nhwc = rng.randn(2, 8, 8, 3).astype(np.float32)
    x = tf.constant(nhwc)
    x_nchw = tf.transpose(x, [0, 3, 1, 2])
    kinit = tf.constant_initializer(rng.randn(3, 3, 3, 4).astype(np.float32) * 0.3)
    last = tf.layers.conv2d(x, 4, 3, padding="same", kernel_initializer=kinit, name="conv_last")
    first = tf.layers.conv2d(
        x_nchw, 4, 3, padding="same", data_format="channels_first", kernel_initializer=kinit, name="conv_first"
    )
    pool_last = tf.layers.max_pooling2d(last, 2, 2)
    pool_first = tf.layers.max_pooling2d(first, 2, 2, data_format="channels_first")
    w = tf.constant(rng.randn(3, 3, 3, 5).astype(np.float32))
    b = tf.constant(rng.randn(5).astype(np.float32))
    ops = {
        "last": last,
        "first_as_last": tf.transpose(first, [0, 2, 3, 1]),
        "pool_last": pool_last,
        "pool_first_as_last": tf.transpose(pool_first, [0, 2, 3, 1]),
        "conv_strided": tf.nn.conv2d(x, w, strides=[1, 2, 2, 1], padding="VALID", data_format="NHWC"),
        "conv_dilated": tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME", dilations=[1, 2, 2, 1]),
        "convolution": tf.nn.convolution(x, w, padding="VALID", dilation_rate=[2, 1]),
        "pool_avg": tf.nn.pool(x, window_shape=[2, 2], pooling_type="AVG", padding="SAME", strides=[2, 2]),
        "pool_max_dilated": tf.nn.pool(
            x, window_shape=[2, 2], pooling_type="MAX", padding="VALID", dilation_rate=[2, 2]
        ),
        "conv1d": tf.nn.conv1d(tf.reshape(x, [2, 64, 3]), w[0], stride=2, padding="SAME"),
        "bias_nchw": tf.nn.bias_add(
            tf.transpose(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), [0, 3, 1, 2]), b, data_format="NCHW"
        ),
    }
    s2b = tf.space_to_batch_nd(x, block_shape=[2, 2], paddings=[[0, 0], [0, 0]])
    conv_s2b = tf.nn.conv2d(s2b, w, [1, 1, 1, 1], "VALID")
    ops["s2b_shape_probe"] = s2b
    ops["atrous_trick"] = tf.batch_to_space_nd(conv_s2b, block_shape=[2, 2], crops=[[0, 0], [0, 0]])
    ops["atrous"] = tf.nn.atrous_conv2d(x, w, rate=2, padding="VALID")
    out = {
        "shapes": {k: v.shape.as_list() for k, v in ops.items()},
        "first_shape": first.shape.as_list(),
        "vars": [(v.name, v.shape.as_list()) for v in tf.global_variables()],
    }
    grads = tf.gradients(
        tf.reduce_sum(first * first) + tf.reduce_sum(ops["convolution"]), tf.trainable_variables("conv_first") + [x]
    )
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run(ops)
        out["values"] = vals
        out["grads"] = sess.run(grads)
    out["last_equals_first"] = bool(np.allclose(vals["last"], vals["first_as_last"], atol=1e-5))
    out["atrous_equal"] = bool(np.allclose(vals["atrous"], vals["atrous_trick"], atol=1e-5))
    for name, call in (
        ("bad_data_format", lambda: tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", data_format="NWHC")),
        ("channels_mismatch", lambda: tf.nn.conv2d(x, tf.ones([3, 3, 4, 2]), [1, 1, 1, 1], "SAME")),
        ("pool_bad_type", lambda: tf.nn.pool(x, [2, 2], "MIN", "SAME")),
    ):
        try:
            call()
            out[name] = None
        except (ValueError, TypeError) as e:
            out[name] = type(e).__name__
    return out
