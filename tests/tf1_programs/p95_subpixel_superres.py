"""An ESPCN-style super-resolution toy (2016-2017 TF1 code): low-resolution inputs made by tf.image.resize_area,
conv2d layers ending in r*r channels rearranged by tf.depth_to_space (and the inverse tf.space_to_depth), a
bicubic baseline by tf.image.resize_bicubic(align_corners=True), MSE + total-variation loss, and the evaluation
with tf.image.psnr and tf.image.ssim (max_val=1.0), plus batch_to_space_nd / space_to_batch_nd shapes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(95)
    yy, xx = np.mgrid[0:16, 0:16].astype(np.float32) / 15.0
    base = np.stack([np.sin(3 * xx + k) * np.cos(2 * yy - k) for k in range(4)])[..., None]
    hr_np = (0.5 + 0.4 * base + 0.05 * rng.rand(4, 16, 16, 1)).astype(np.float32)
    r = 2
    hr = tf.placeholder(tf.float32, [None, 16, 16, 1], name="hr")
    lr = tf.image.resize_area(hr, [8, 8])
    bicubic = tf.image.resize_bicubic(lr, [16, 16], align_corners=True)
    w1 = tf.get_variable(
        "conv1/w", [3, 3, 1, 8], initializer=tf.constant_initializer(rng.randn(3, 3, 1, 8).astype(np.float32) * 0.2)
    )
    w2 = tf.get_variable(
        "conv2/w",
        [3, 3, 8, r * r],
        initializer=tf.constant_initializer(rng.randn(3, 3, 8, r * r).astype(np.float32) * 0.1),
    )
    b2 = tf.get_variable("conv2/b", [r * r], initializer=tf.zeros_initializer())
    h = tf.nn.tanh(tf.nn.conv2d(lr, w1, [1, 1, 1, 1], "SAME"))
    feat = tf.nn.bias_add(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME"), b2)
    sr = tf.depth_to_space(feat, r, name="subpixel")
    back = tf.space_to_depth(sr, r)
    sr_clipped = tf.clip_by_value(sr, 0.0, 1.0)
    mse = tf.reduce_mean(tf.squared_difference(sr, hr))
    tv = tf.reduce_mean(tf.image.total_variation(sr)) * 1e-4
    loss = mse + tv
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    psnr = tf.image.psnr(sr_clipped, hr, max_val=1.0)
    psnr_bicubic = tf.image.psnr(tf.clip_by_value(bicubic, 0.0, 1.0), hr, max_val=1.0)
    ssim = tf.image.ssim(sr_clipped, hr, max_val=1.0, filter_size=5)
    ssim_bicubic = tf.image.ssim(bicubic, hr, max_val=1.0, filter_size=5)
    s2b = tf.space_to_batch_nd(hr, [2, 2], [[0, 0], [0, 0]])
    b2s = tf.batch_to_space_nd(s2b, [2, 2], [[0, 0], [0, 0]])
    out = {
        "shapes": [t.shape.as_list() for t in (lr, bicubic, feat, sr, back, psnr, ssim, s2b, b2s)],
        "names": [sr.name, back.name, psnr.name.split("/")[0], ssim.name.split("/")[0]],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {hr: hr_np}
        out["lr"] = sess.run(lr, feed)
        out["bicubic_psnr"] = sess.run(psnr_bicubic, feed)
        out["bicubic_ssim"] = sess.run(ssim_bicubic, feed)
        for _ in range(15):
            out["losses"].append(sess.run([loss, train], feed)[0])
        out["psnr"], out["ssim"] = sess.run([psnr, ssim], feed)
        out["roundtrip"] = bool(np.allclose(*sess.run([feat, back], feed)))
        out["b2s_exact"] = bool((sess.run(b2s, feed) == hr_np).all())
        out["tv"] = sess.run(tv, feed)
    return out
