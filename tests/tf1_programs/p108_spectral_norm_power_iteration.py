"""Spectral normalization as SN-GAN (2018) TF1 code wrote it: a non-trainable u vector variable per weight,
one power iteration per call (l2_normalize of matmuls, tf.stop_gradient on u and v), sigma = v^T W u, the
weight divided by sigma, the u update run through tf.control_dependencies with tf.assign, the layers' variables
and UPDATE-free training of a tiny discriminator with a hinge loss, and sigma converging to the largest singular
value (compared with numpy's SVD)."""

import numpy as np


def spectral_norm(tf, w, name, iteration=1):
    w_shape = w.shape.as_list()
    w_mat = tf.reshape(w, [-1, w_shape[-1]])
    u = tf.get_variable(
        name + "_u", [1, w_shape[-1]], initializer=tf.random_normal_initializer(seed=3), trainable=False
    )
    u_hat = u
    v_hat = None
    for _ in range(iteration):
        v_hat = tf.nn.l2_normalize(tf.matmul(u_hat, tf.transpose(w_mat)))
        u_hat = tf.nn.l2_normalize(tf.matmul(v_hat, w_mat))
    u_hat = tf.stop_gradient(u_hat)
    v_hat = tf.stop_gradient(v_hat)
    sigma = tf.squeeze(tf.matmul(tf.matmul(v_hat, w_mat), tf.transpose(u_hat)))
    with tf.control_dependencies([u.assign(u_hat)]):
        w_norm = tf.reshape(w_mat / sigma, w_shape)
    return w_norm, sigma, u


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(108)
    w1_np = rng.randn(3, 3, 2, 4).astype(np.float32)
    w2_np = rng.randn(16, 1).astype(np.float32)
    real = rng.randn(6, 4, 4, 2).astype(np.float32) + 1.0
    fake = rng.randn(6, 4, 4, 2).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    with tf.variable_scope("disc"):
        w1 = tf.get_variable("conv_w", initializer=tf.constant(w1_np))
        w1_sn, sigma1, u1 = spectral_norm(tf, w1, "conv_w")
        h = tf.nn.leaky_relu(tf.nn.conv2d(x, w1_sn, [1, 2, 2, 1], "SAME"), alpha=0.2)
        w2 = tf.get_variable("fc_w", initializer=tf.constant(w2_np))
        w2_sn, sigma2, u2 = spectral_norm(tf, w2, "fc_w")
        logits = tf.matmul(tf.reshape(h, [-1, 16]), w2_sn)
    n_real = tf.shape(x)[0] // 2
    d_real, d_fake = logits[:n_real], logits[n_real:]
    loss = tf.reduce_mean(tf.nn.relu(1.0 - d_real)) + tf.reduce_mean(tf.nn.relu(1.0 + d_fake))
    d_vars = tf.trainable_variables(scope="disc")
    train = tf.train.AdamOptimizer(0.01, beta1=0.0, beta2=0.9).minimize(loss, var_list=d_vars)
    out = {
        "globals": [v.op.name for v in tf.global_variables()],
        "trainable": [v.op.name for v in d_vars],
        "shapes": [t.shape.as_list() for t in (w1_sn, sigma1, w2_sn, logits)],
        "losses": [],
    }
    batch = np.concatenate([real, fake])
    with tf.Session() as sess:
        sess.run(tf.variables_initializer([w1, w2]))
        sess.run(tf.variables_initializer([u1, u2]))
        sess.run(tf.variables_initializer([v for v in tf.global_variables() if "Adam" in v.name or "beta" in v.name]))
        sess.run(tf.global_variables_initializer())
        for _ in range(8):
            out["losses"].append(sess.run([loss, train], {x: batch})[0])
        sigmas = []
        for _ in range(30):
            sigmas.append(sess.run([sigma1, sigma2, logits], {x: batch})[:2])
        w1_now, w2_now = sess.run([w1, w2])
        out["sigma_final"] = sigmas[-1]
        top1 = np.linalg.svd(w1_now.reshape(-1, 4), compute_uv=False)[0]
        top2 = np.linalg.svd(w2_now, compute_uv=False)[0]
        out["sigma_close_to_svd"] = [
            bool(abs(sigmas[-1][0] - top1) < 1e-3 * top1),
            bool(abs(sigmas[-1][1] - top2) < 1e-4),
        ]
        out["u_norm"] = np.linalg.norm(sess.run(u1))
    return out
