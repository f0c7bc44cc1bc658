"""Linear algebra of classical-ML-in-TF1 code: matrix_solve_ls (fast and with l2_regularizer, and fast=False),
matrix_triangular_solve (lower/upper, adjoint), slogdet / logdet, self_adjoint_eig / self_adjoint_eigvals,
matrix_inverse with adjoint, linalg.expm, tensordot with axes forms, trace, matrix_diag_part / matrix_set_diag /
matrix_band_part, tf.norm with ord 'fro' / 1 / inf / 2 over axes, tf.cross, linalg.lu, batched shapes, gradients
through solve and logdet, and the error for a singular matrix."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(214)
    a_np = rng.randn(2, 4, 3).astype(np.float64)
    b_np = rng.randn(2, 4, 2).astype(np.float64)
    spd_np = np.einsum("bij,bkj->bik", rng.randn(2, 3, 3), rng.randn(2, 3, 3)) + 3 * np.eye(3)
    spd = tf.Variable(spd_np)
    a, b = tf.constant(a_np), tf.constant(b_np)
    lower = tf.matrix_band_part(spd, -1, 0)
    rhs = tf.constant(rng.randn(2, 3, 2))
    sign, logabs = tf.linalg.slogdet(spd)
    eigvals, eigvecs = tf.self_adjoint_eig(spd)
    lu, perm = tf.linalg.lu(spd)
    solve = tf.matrix_solve(spd, rhs)
    fetch = {
        "ls_fast": tf.matrix_solve_ls(a, b),
        "ls_l2": tf.matrix_solve_ls(a, b, l2_regularizer=0.5),
        "ls_slow": tf.matrix_solve_ls(a, b, fast=False),
        "tri_lower": tf.matrix_triangular_solve(lower, rhs, lower=True),
        "tri_adjoint": tf.matrix_triangular_solve(lower, rhs, lower=True, adjoint=True),
        "solve_adjoint": tf.matrix_solve(spd, rhs, adjoint=True),
        "slogdet": [sign, logabs],
        "logdet": tf.linalg.logdet(spd),
        "eigvals": eigvals,
        "eigvecs_abs": tf.abs(eigvecs),
        "eigvals_only": tf.self_adjoint_eigvals(spd),
        "inverse_adj": tf.matrix_inverse(spd, adjoint=True),
        "expm": tf.linalg.expm(spd * 0.1),
        "tensordot_int": tf.tensordot(a, b, axes=[[1], [1]]),
        "tensordot_2": tf.tensordot(tf.ones([3, 4]), tf.ones([4, 5]), 1),
        "trace": tf.trace(spd),
        "diag_part": tf.matrix_diag_part(spd),
        "set_diag": tf.matrix_set_diag(spd, tf.zeros([2, 3], tf.float64)),
        "band": tf.matrix_band_part(spd, 0, 1),
        "norm_fro": tf.norm(spd, ord="fro", axis=[-2, -1]),
        "norm_1": tf.norm(spd, ord=1, axis=[-2, -1]),
        "norm_inf": tf.norm(spd, ord=np.inf, axis=[-2, -1]),
        "norm_vec": tf.norm(a, ord=3, axis=1, keepdims=True),
        "cross": tf.cross(tf.constant([[1.0, 0.0, 0.0]]), tf.constant([[0.0, 1.0, 0.0]])),
        "lu_perm": perm,
        "grads": tf.gradients([tf.reduce_sum(solve), tf.reduce_sum(tf.linalg.logdet(spd))], spd),
    }
    out = {"shapes": {k: v.shape.as_list() for k, v in fetch.items() if not isinstance(v, list)}}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run(fetch)
        out["lu_reconstructs"] = bool(np.allclose(*sess.run([tf.linalg.lu_reconstruct(lu, perm), spd])))
        try:
            sess.run(tf.matrix_inverse(tf.zeros([2, 2])))
            out["singular"] = None
        except tf.errors.InvalidArgumentError as e:
            out["singular"] = type(e).__name__
    return out
