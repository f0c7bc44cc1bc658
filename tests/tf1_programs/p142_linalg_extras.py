"""tf.linalg beyond the basics, as numerical TF1 code used it: band_part (lower / upper triangles, a causal mask),
eigh of a symmetric matrix (eigenvalues, eigenvectors compared up to sign by |v^T A v|), lstsq / matrix_solve_ls
with l2_regularizer, expm, logdet / slogdet, tensor_diag / tensor_diag_part / diag_part / set_diag, trace, norm
(fro, ord=1, ord=inf, axis pairs), tf.linalg.cross, tf.linalg.matvec, matmul with adjoint flags on complex64, batched
inverse with adjoint=True, pinv-free least squares by tf.matrix_solve of normal equations, tf.roll, tf.unravel_index
and tf.batch_gather; with gradients of logdet and of a least-squares loss."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(142)
    a = rng.randn(4, 4)
    spd = (a @ a.T + 4 * np.eye(4)).astype(np.float32)
    A = tf.constant(spd)
    x = tf.constant(rng.randn(6, 3).astype(np.float64))
    y = tf.constant(rng.randn(6, 2).astype(np.float64))
    out = {}
    eigvals, eigvecs = tf.linalg.eigh(A)
    ops = {
        "band_lower": tf.linalg.band_part(A, -1, 0),
        "band_upper1": tf.matrix_band_part(A, 0, 1),
        "causal": 1.0 - tf.linalg.band_part(tf.ones([3, 3]), -1, 0),
        "eigvals": eigvals,
        "eig_quadratic": tf.abs(tf.reduce_sum(eigvecs * tf.matmul(A, eigvecs), axis=0)),
        "eigvalsh": tf.linalg.eigvalsh(A),
        "lstsq": tf.linalg.lstsq(x, y),
        "lstsq_l2": tf.matrix_solve_ls(x, y, l2_regularizer=0.5),
        "lstsq_fast_false": tf.matrix_solve_ls(x, y, fast=False),
        "normal_eq": tf.matrix_solve(tf.matmul(x, x, transpose_a=True), tf.matmul(x, y, transpose_a=True)),
        "expm": tf.linalg.expm(tf.constant([[0.0, 1.0], [-1.0, 0.0]], tf.float64)),
        "logdet": tf.linalg.logdet(A),
        "slogdet": tf.linalg.slogdet(tf.constant([[1.0, 2.0], [3.0, 4.0]])),
        "tensor_diag": tf.linalg.tensor_diag([1.0, 2.0, 3.0]),
        "tensor_diag_part": tf.linalg.tensor_diag_part(A),
        "diag_part": tf.matrix_diag_part(tf.reshape(tf.range(18.0), [2, 3, 3])),
        "set_diag": tf.matrix_set_diag(tf.zeros([2, 2, 3]), [[1.0, 2.0], [3.0, 4.0]]),
        "trace": tf.trace(tf.reshape(tf.range(18.0), [2, 3, 3])),
        "norm_fro": tf.norm(A, ord="fro", axis=[-2, -1]),
        "norm_1": tf.norm(A, ord=1, axis=[-2, -1]),
        "norm_inf": tf.norm(A, ord=np.inf, axis=[0, 1]),
        "norm_vec": tf.norm(tf.constant([3.0, -4.0]), ord=1),
        "norm_euclid_keep": tf.norm(A, axis=1, keepdims=True),
        "cross": tf.linalg.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        "matvec": tf.linalg.matvec(A, [1.0, 2.0, 3.0, 4.0]),
        "adjoint": tf.matmul(
            tf.constant([[1 + 2j, 3j], [2, 1 - 1j]], tf.complex64), tf.eye(2, dtype=tf.complex64), adjoint_a=True
        ),
        "linalg_adjoint": tf.linalg.adjoint(tf.constant([[1 + 1j, 2j]], tf.complex64)),
        "inv_adjoint": tf.matrix_inverse(tf.stack([A, 2 * A]), adjoint=True),
        "roll": tf.roll(tf.reshape(tf.range(12), [3, 4]), shift=[1, -1], axis=[0, 1]),
        "roll_scalar": tf.roll(tf.range(5), 2, 0),
        "unravel": tf.unravel_index([5, 11, 0], [3, 4]),
        "batch_gather": tf.batch_gather(tf.reshape(tf.range(24), [2, 3, 4]), [[[0, 3]] * 3, [[1, 1]] * 3]),
        "batch_gather_2d": tf.batch_gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]]),
    }
    w = tf.Variable(tf.zeros([3, 2], tf.float64))
    lsq_loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - y))
    grads = {
        "logdet": tf.gradients(tf.linalg.logdet(A), A)[0],
        "lstsq": tf.gradients(lsq_loss, w)[0],
        "expm": tf.gradients(tf.reduce_sum(tf.linalg.expm(A * 0.1)), A)[0],
    }
    out["shapes"] = {k: v.shape.as_list() for k, v in ops.items() if isinstance(v, tf.Tensor)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run(ops)
        out["grads"] = sess.run(grads)
    for name, call in (
        ("eigh_nonsquare", lambda: tf.linalg.eigh(tf.ones([2, 3]))),
        ("cross_bad", lambda: tf.linalg.cross([1.0, 2.0], [3.0, 4.0])),
        ("batch_gather_rank", lambda: tf.batch_gather(tf.ones([2, 3]), [1, 2])),
    ):
        try:
            call()
            out[name] = None
        except (ValueError, TypeError) as e:
            out[name] = type(e).__name__
    return out
