"""A denoising autoencoder: exponential_decay + global_step, compute_gradients / clip_by_global_norm /
apply_gradients, tf.stop_gradient, tf.gradients with grad_ys."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(9)
    data = rng.rand(32, 20).astype(np.float32)
    enc0 = (rng.randn(20, 6) * 0.3).astype(np.float32)
    dec0 = (rng.randn(6, 20) * 0.3).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 20])
    noisy = x + 0.1 * tf.sin(x * 10.0)
    W_enc = tf.Variable(enc0, name="W_enc")
    b_enc = tf.Variable(tf.zeros([6]), name="b_enc")
    W_dec = tf.Variable(dec0, name="W_dec")
    b_dec = tf.Variable(tf.zeros([20]), name="b_dec")
    code = tf.nn.sigmoid(tf.matmul(noisy, W_enc) + b_enc)
    recon = tf.nn.sigmoid(tf.matmul(code, W_dec) + b_dec)
    loss = tf.reduce_mean(tf.pow(x - recon, 2))

    global_step = tf.Variable(0, name="global_step", trainable=False)
    lr = tf.train.exponential_decay(0.5, global_step, decay_steps=2, decay_rate=0.5, staircase=True)
    lr2 = tf.train.exponential_decay(0.5, global_step, 3, 0.9)
    opt = tf.train.GradientDescentOptimizer(lr)
    grads_and_vars = opt.compute_gradients(loss)
    grads, variables = zip(*grads_and_vars)
    clipped, gnorm = tf.clip_by_global_norm(grads, clip_norm=0.05)
    train_op = opt.apply_gradients(zip(clipped, variables), global_step=global_step)

    frozen = tf.stop_gradient(code)
    y2 = tf.reduce_sum(frozen * W_enc[0, 0] + code)
    g_stop = tf.gradients(y2, W_enc)[0]
    gy = tf.gradients(recon, [W_dec, b_dec], grad_ys=tf.ones_like(recon) * 2.0)
    none_grad = tf.gradients(loss, tf.Variable(1.0, name="unused"))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        hist = []
        for _ in range(5):
            # (lr and lr2 feed the update, so they read the step before its increment; the step itself is read
            # after the run: fetched beside train_op it would race with the increment, in TF as here.)
            _, l, n, r, r2 = sess.run([train_op, loss, gnorm, lr, lr2], {x: data})
            step = sess.run(global_step)
            hist.append((l, n, r, r2, step))
        gs, gys = sess.run([g_stop, gy], {x: data})
    return {
        "hist": hist,
        "g_stop": gs,
        "grad_ys": gys,
        "none_grad": [g is None for g in none_grad],
        "gv_names": [v.name for _, v in grads_and_vars],
        "step_dtype": global_step.dtype.base_dtype.name,
        "lr_dtype": lr.dtype.name,
        "clipped_shapes": [c.shape.as_list() for c in clipped],
    }
