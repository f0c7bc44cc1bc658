"""tf.nn ops of 2017-2018 vision code that the earlier programs leave out, values and gradients compared:
tf.nn.dilation2d and tf.nn.erosion2d (grayscale morphology, rates and "SAME"/"VALID"), tf.nn.pool with
pooling_type "AVG" / "MAX" and dilation_rate, tf.space_to_batch_nd / tf.batch_to_space_nd (the atrous trick by
hand), tf.nn.conv2d_backprop_input / conv2d_backprop_filter called directly, tf.nn.conv1d with stride and
dilations, tf.nn.fractional_max_pool / fractional_avg_pool with deterministic=True and seeds (their shapes and
the pooling sequences' properties; a seed without deterministic=True is TF's run-time error), tf.nn.max_pool with ksize as lists, and the errors for a bad padding string."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    rng = np.random.RandomState(189)
    img = tf.constant(rng.rand(1, 6, 6, 2).astype(np.float32))
    selem = tf.constant(rng.rand(3, 3, 2).astype(np.float32) * 0.1)
    dil = tf.nn.dilation2d(img, selem, strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME")
    dil_r = tf.nn.dilation2d(img, selem, strides=[1, 1, 1, 1], rates=[1, 2, 2, 1], padding="VALID")
    ero = tf.nn.erosion2d(img, selem, strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME")
    avg = tf.nn.pool(img, window_shape=[2, 2], pooling_type="AVG", padding="SAME", strides=[2, 2])
    mx = tf.nn.pool(img, window_shape=[2, 2], pooling_type="MAX", padding="VALID", dilation_rate=[2, 2])
    s2b = tf.space_to_batch_nd(img, block_shape=[2, 2], paddings=[[0, 0], [0, 0]])
    kernel = tf.constant(rng.rand(3, 3, 2, 4).astype(np.float32))
    atrous = tf.batch_to_space_nd(tf.nn.conv2d(s2b, kernel, [1, 1, 1, 1], "SAME"), [2, 2], [[0, 0], [0, 0]])
    reference = tf.nn.atrous_conv2d(img, kernel, rate=2, padding="SAME")
    conv = tf.nn.conv2d(img, kernel, [1, 2, 2, 1], "SAME")
    dy = tf.ones_like(conv)
    back_in = tf.nn.conv2d_backprop_input(tf.shape(img), kernel, dy, [1, 2, 2, 1], "SAME")
    back_f = tf.nn.conv2d_backprop_filter(img, tf.shape(kernel), dy, [1, 2, 2, 1], "SAME")
    auto_in, auto_f = tf.gradients(conv, [img, kernel], grad_ys=dy)
    sig = tf.constant(rng.rand(2, 10, 3).astype(np.float32))
    k1 = tf.constant(rng.rand(3, 3, 2).astype(np.float32))
    c1 = tf.nn.conv1d(sig, k1, stride=2, padding="SAME")
    c1d = tf.nn.conv1d(sig, k1, stride=1, padding="VALID", dilations=2)
    fmp, rows, cols = tf.nn.fractional_max_pool(img, [1.0, 1.5, 1.5, 1.0], deterministic=True, seed=1, seed2=2)
    fap, arows, acols = tf.nn.fractional_avg_pool(
        img, [1.0, 2.0, 2.0, 1.0], pseudo_random=True, deterministic=True, seed=3, seed2=4
    )
    seeded_nondet = tf.nn.fractional_avg_pool(img, [1.0, 2.0, 2.0, 1.0], seed=3)[0]
    mp = tf.nn.max_pool(img, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="VALID")
    grads = tf.gradients(tf.reduce_sum(dil) + tf.reduce_sum(ero) + tf.reduce_sum(mx), [img, selem])
    out["shapes"] = [t.shape.as_list() for t in (dil, dil_r, ero, avg, mx, s2b, atrous, c1, c1d, fmp, fap, mp)]
    try:
        tf.nn.max_pool(img, [1, 2, 2, 1], [1, 2, 2, 1], "same")
        out["bad_padding"] = None
    except (ValueError, TypeError) as e:
        out["bad_padding"] = type(e).__name__
    with tf.Session() as sess:
        vals = sess.run([dil, dil_r, ero, avg, mx, c1, c1d, mp])
        out["values"] = vals
        a, r = sess.run([atrous, reference])
        out["atrous_by_hand"] = bool(np.allclose(a, r, atol=1e-5))
        bi, bf, ai, af = sess.run([back_in, back_f, auto_in, auto_f])
        out["backprop"] = [bi, bf, bool(np.allclose(bi, ai, atol=1e-5)), bool(np.allclose(bf, af, atol=1e-4))]
        out["grads"] = sess.run(grads)
        f, fr, fc, av, ar, ac = sess.run([fmp, rows, cols, fap, arows, acols])
        try:
            sess.run(seeded_nondet)
            out["seeded_nondeterministic"] = None
        except tf.errors.InvalidArgumentError as e:
            out["seeded_nondeterministic"] = "Both seed and seed2 should be 0 if deterministic is false" in e.message
        out["fractional"] = [
            f.shape, fr[0] == 0, fr[-1] == 6, bool(np.all(np.diff(fr) >= 1)), fc[-1] == 6,
            av.shape, ar[-1] == 6, ac[-1] == 6,
        ]  # fmt: skip
    return out
