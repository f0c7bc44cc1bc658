"""Second-order optimization as TF1 numerical code wrote it: logistic regression trained by Newton's method
with tf.hessians of the loss in a flat parameter vector, tf.matrix_solve of the damped Hessian, the update applied
by tf.assign_sub; the Hessian cross-checked by tf.gradients of each gradient component (a Python loop of
tf.gradients on tf.unstack), gradients of an unconnected tensor (None, and zeros with
unconnected_gradients="zero"), tf.gradients of a list of ys with grad_ys, and a Gauss-Newton step for a
least-squares fit using the Jacobian built from stacked tf.gradients."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(112)
    n, d = 40, 3
    xs = np.concatenate([rng.randn(n, d - 1), np.ones((n, 1))], 1).astype(np.float32)
    true_w = np.array([1.5, -2.0, 0.3], np.float32)
    ys = (1 / (1 + np.exp(-xs @ true_w)) > rng.rand(n)).astype(np.float32)
    x = tf.constant(xs)
    y = tf.constant(ys)
    w = tf.Variable(tf.zeros([d]), name="w")
    logits = tf.reshape(tf.matmul(x, tf.expand_dims(w, 1)), [-1])
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    grad = tf.gradients(loss, w)[0]
    hess = tf.hessians(loss, w)[0]
    rows = [tf.gradients(g, w)[0] for g in tf.unstack(grad)]
    hess_by_rows = tf.stack(rows)
    step = tf.matrix_solve(hess + 1e-4 * tf.eye(d), tf.expand_dims(grad, 1))
    newton = tf.assign_sub(w, tf.reshape(step, [-1]))
    other = tf.Variable(1.0, name="other")
    unconnected = tf.gradients(loss, [w, other])
    zeros = tf.gradients(loss, [other], unconnected_gradients="zero")
    ys_list = tf.gradients([loss, 2.0 * loss], w, grad_ys=[tf.constant(1.0), tf.constant(0.5)])
    a = tf.Variable([0.5, 0.5], name="a")
    t = tf.constant(np.linspace(0, 1, 8, dtype=np.float32))
    target = tf.constant((2.0 * np.exp(-1.3 * np.linspace(0, 1, 8))).astype(np.float32))
    residual = a[0] * tf.exp(-a[1] * t) - target
    jac = tf.stack([tf.gradients(r, a)[0] for r in tf.unstack(residual)])
    gn_step = tf.matrix_solve_ls(jac, tf.expand_dims(residual, 1), l2_regularizer=0.0)
    gauss_newton = tf.assign_sub(a, tf.reshape(gn_step, [-1]))
    out = {
        "shapes": [t_.shape.as_list() for t_ in (grad, hess, hess_by_rows, step, jac, gn_step)],
        "unconnected": [g is None for g in unconnected],
        "hess_name": hess.name,
        "newton": [],
        "gauss_newton": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        h1, h2 = sess.run([hess, hess_by_rows])
        out["hess"] = h1
        out["hess_rows_match"] = bool(np.allclose(h1, h2, atol=1e-6))
        out["zeros"] = sess.run(zeros)
        out["ys_list"] = sess.run(ys_list)
        for _ in range(5):
            l, _ = sess.run([loss, newton])
            out["newton"].append(l)
        out["w"] = sess.run(w)
        for _ in range(6):
            r, _ = sess.run([tf.reduce_sum(tf.square(residual)), gauss_newton])
            out["gauss_newton"].append(r)
        out["a"] = sess.run(a)
    return out
