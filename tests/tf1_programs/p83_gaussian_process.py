"""Gaussian-process regression as 2017 TF1 code wrote it: an RBF kernel from pairwise squared distances, the
posterior mean and variance through tf.cholesky + tf.matrix_triangular_solve / tf.cholesky_solve, the log
marginal likelihood with log-determinant from the Cholesky diagonal, hyperparameters (log lengthscale, log
noise) trained by Adam on it; plus tf.matrix_solve, tf.svd, tf.qr and tf.self_adjoint_eig of the kernel matrix
(eigenvalues, singular values and reconstructions compared, not the sign-ambiguous vectors)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(83)
    xs = np.sort(rng.uniform(-3, 3, (8, 1)), axis=0)
    ys = np.sin(xs[:, 0]) + 0.1 * rng.randn(8)
    xt = np.linspace(-3, 3, 5)[:, None]
    X = tf.placeholder(tf.float64, [None, 1], name="X")
    Y = tf.placeholder(tf.float64, [None], name="Y")
    Xs = tf.placeholder(tf.float64, [None, 1], name="Xs")
    log_ls = tf.Variable(0.0, dtype=tf.float64, name="log_lengthscale")
    log_noise = tf.Variable(-2.0, dtype=tf.float64, name="log_noise")

    def rbf(a, b):
        sq = tf.reduce_sum(a * a, 1)[:, None] - 2 * tf.matmul(a, b, transpose_b=True) + tf.reduce_sum(b * b, 1)[None]
        return tf.exp(-0.5 * sq / tf.exp(2 * log_ls))

    n = tf.shape(X)[0]
    K = rbf(X, X) + tf.exp(2 * log_noise) * tf.eye(n, dtype=tf.float64)
    L = tf.cholesky(K)
    alpha = tf.cholesky_solve(L, Y[:, None])
    Ks = rbf(X, Xs)
    mean = tf.squeeze(tf.matmul(Ks, alpha, transpose_a=True), 1)
    v = tf.matrix_triangular_solve(L, Ks, lower=True)
    var = 1.0 - tf.reduce_sum(v * v, 0)
    logdet = 2.0 * tf.reduce_sum(tf.log(tf.matrix_diag_part(L)))
    nll = 0.5 * tf.squeeze(tf.matmul(Y[None], alpha)) + 0.5 * logdet + 0.5 * tf.cast(n, tf.float64) * np.log(2 * np.pi)
    train = tf.train.AdamOptimizer(0.05).minimize(nll)
    solved = tf.matrix_solve(K, Y[:, None])
    s, u, vv = tf.svd(K)
    q, r = tf.qr(K)
    e, ev = tf.self_adjoint_eig(K)
    out = {
        "shapes": [
            L.shape.as_list(),
            alpha.shape.as_list(),
            mean.shape.as_list(),
            s.shape.as_list(),
            q.shape.as_list(),
            e.shape.as_list(),
        ],
        "dtypes": [L.dtype.name, nll.dtype.name],
        "nll": [],
    }
    feed = {X: xs, Y: ys, Xs: xt}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(8):
            out["nll"].append(sess.run([nll, train], feed)[0])
        m, va, sol, al = sess.run([mean, var, solved, alpha], feed)
        out["posterior"] = [m, va, np.abs(sol - al).max() < 1e-6]
        sv, uv, vvv, qv, rv, ew, evv, kv = sess.run([s, u, vv, q, r, e, ev, K], feed)
        out["decomp"] = [
            sv,
            ew,
            np.allclose(uv @ np.diag(sv) @ vvv.T, kv),
            np.allclose(qv @ rv, kv),
            np.allclose(evv @ np.diag(ew) @ evv.T, kv),
            np.abs(np.diag(rv)),
        ]
        out["hyper"] = sess.run([log_ls, log_noise])
    return out
