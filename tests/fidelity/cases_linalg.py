"""Linear algebra against TensorFlow 1: values and static shapes of the factorizations, solves and determinants
(batched), TF1's top-level names and tf.linalg's, gradients, and the errors of singular or malformed input."""

import numpy as np

from tests.fidelity.harness import case

_RNG = np.random.RandomState(7)
_A = _RNG.randn(2, 3, 3)  # a batch of general matrices
_SPD = _A @ _A.transpose(0, 2, 1) + 3.0 * np.eye(3)  # symmetric positive definite
_B = _RNG.randn(2, 3, 2)
_TALL = _RNG.randn(4, 2)
_WIDE = _RNG.randn(2, 4)


@case(tol=1e-6)
def inverse_det_slogdet(tf, sess):
    a = tf.constant(_A)
    inv = tf.matrix_inverse(a)
    inv_adj = tf.linalg.inv(a, adjoint=True)
    det = tf.matrix_determinant(a)
    sign, logabs = tf.linalg.slogdet(a)
    f32 = tf.linalg.det(tf.constant(_A[0], tf.float32))
    return [inv, inv.shape, inv.op.type, inv_adj, det, det.shape, det.op.type, sign, logabs, sign.shape, f32]


@case(tol=1e-6)
def cholesky_and_solves(tf, sess):
    a = tf.constant(_SPD)
    b = tf.constant(_B)
    chol = tf.cholesky(a)
    x = tf.matrix_solve(a, b)
    xa = tf.linalg.solve(tf.constant(_A), b, adjoint=True)
    xc = tf.cholesky_solve(chol, b)
    lower = tf.matrix_triangular_solve(chol, b)
    upper = tf.linalg.triangular_solve(tf.constant(_A), b, lower=False, adjoint=True)
    logdet = tf.linalg.logdet(a)
    return [chol, chol.shape, chol.op.type, x, x.shape, xa, xc, lower, lower.op.type, upper, logdet, logdet.shape]


@case(tol=1e-6)
def least_squares(tf, sess):
    tall = tf.matrix_solve_ls(tf.constant(_TALL), tf.constant(_RNG.randn(4, 3)))
    wide = tf.matrix_solve_ls(tf.constant(_WIDE), tf.constant(_RNG.randn(2, 1)))
    reg = tf.linalg.lstsq(tf.constant(_TALL), tf.constant(_RNG.randn(4, 1)), l2_regularizer=0.5)
    return [tall, tall.shape, tall.op.type, wide, wide.shape, reg]


@case(tol=1e-6)
def qr_values(tf, sess):
    q, r = tf.qr(tf.constant(_RNG.randn(2, 4, 3)))
    qf, rf = tf.linalg.qr(tf.constant(_WIDE), full_matrices=True)
    qt, rt = tf.qr(tf.constant(_TALL), full_matrices=True)
    return [q, r, q.shape, r.shape, qf, rf, qf.shape, rf.shape, qt.shape, rt.shape, rt]


@case(tol=1e-6)
def svd_values(tf, sess):
    x = tf.constant(_RNG.randn(2, 4, 3))
    s, u, v = tf.svd(x)
    s_only = tf.svd(x, compute_uv=False)
    sf, uf, vf = tf.linalg.svd(tf.constant(_WIDE), full_matrices=True)
    # Singular vectors are defined up to sign: compare what does not depend on it.
    recon = tf.matmul(u * tf.expand_dims(s, -2), v, adjoint_b=True)
    return [s, s.shape, u.shape, v.shape, s_only, recon, sf, uf.shape, vf.shape, tf.abs(uf[:, :2])]


@case(tol=1e-6)
def eigh_values(tf, sess):
    e, v = tf.self_adjoint_eig(tf.constant(_SPD))
    ev = tf.self_adjoint_eigvals(tf.constant(_SPD))
    e2, v2 = tf.linalg.eigh(tf.constant([[2.0, 1.0], [1.0, 2.0]]))
    return [e, e.shape, v.shape, ev, ev.shape, tf.abs(v), e2, tf.abs(v2), tf.linalg.eigvalsh(tf.constant(_SPD[0]))]


@case(tol=1e-6)
def band_and_diag(tf, sess):
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    band = tf.matrix_band_part(x, 1, 0)
    upper = tf.linalg.band_part(x, 0, -1)
    d = tf.matrix_diag_part(x)
    m = tf.matrix_diag([[1, 2, 3]])
    s = tf.matrix_set_diag(x, tf.zeros([2, 3], tf.float64))
    t = tf.matrix_transpose(x)
    tr = tf.trace(x)
    return [band, band.op.type, upper, d, d.shape, m, m.shape, s, t, t.shape, t.op.type, tr, tr.shape]


@case(tol=1e-6)
def norms(tf, sess):
    x = tf.constant([[3.0, -4.0], [1.0, 2.0]])
    return [
        tf.norm(x),
        tf.norm(x, axis=1),
        tf.norm(x, ord=1, axis=0),
        tf.norm(x, ord=np.inf, axis=1),
        tf.norm(x, ord=3, axis=1, keepdims=True),
        tf.norm(x, ord="fro", axis=[0, 1]),
        tf.norm(x, ord=2, axis=[0, 1]),
        tf.norm(x, ord=1, axis=[0, 1]),
        tf.norm(x, ord=np.inf, axis=[-2, -1]),
        tf.linalg.norm(x, keep_dims=True).shape,
    ]


@case(tol=1e-6)
def linalg_aliases(tf, sess):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [
        tf.linalg.adjoint(a),
        tf.linalg.matvec(a, [1.0, -1.0]),
        tf.linalg.pinv(tf.constant([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0]])),
        tf.linalg.eye(2, batch_shape=[1]),
        tf.linalg.tensor_diag([1.0, 2.0]),
        tf.linalg.diag_part(a),
        tf.linalg.set_diag(a, [0.0, 0.0]),
        tf.linalg.transpose(a),
        tf.linalg.trace(a),
        tf.linalg.matmul(a, a),
        tf.linalg.l2_normalize([3.0, 4.0]),
    ]


@case(tol=1e-5)
def gradients_inverse_det_solve(tf, sess):
    a = tf.constant(_A)
    b = tf.constant(_B)
    loss = (
        tf.reduce_sum(tf.matrix_inverse(a) * tf.constant(_A[::-1]))
        + tf.reduce_sum(tf.matrix_determinant(a))
        + tf.reduce_sum(tf.linalg.slogdet(a)[1])
        + tf.reduce_sum(tf.matrix_solve(a, b) ** 2)
        + tf.reduce_sum(tf.linalg.solve(a, b, adjoint=True))
    )
    return tf.gradients(loss, [a, b])


@case(tol=1e-5)
def gradients_cholesky_triangular(tf, sess):
    a = tf.constant(_SPD)
    b = tf.constant(_B)
    chol = tf.cholesky(a)
    loss = (
        tf.reduce_sum(chol * tf.constant(_A))
        + tf.reduce_sum(tf.matrix_triangular_solve(chol, b) ** 2)
        + tf.reduce_sum(tf.matrix_triangular_solve(tf.constant(_A), b, lower=False, adjoint=True))
        + tf.reduce_sum(tf.linalg.logdet(a))
    )
    return tf.gradients(loss, [a, b])


@case(tol=1e-5)
def gradients_solve_ls(tf, sess):
    tall = tf.constant(_TALL)
    wide = tf.constant(_WIDE)
    rhs_t = tf.constant(np.arange(8.0).reshape(4, 2))
    rhs_w = tf.constant(np.arange(4.0).reshape(2, 2))
    loss = tf.reduce_sum(tf.matrix_solve_ls(tall, rhs_t, l2_regularizer=0.1) ** 2) + tf.reduce_sum(
        tf.matrix_solve_ls(wide, rhs_w)
    )
    return tf.gradients(loss, [tall, wide, rhs_t, rhs_w])


@case(tol=1e-5)
def gradients_qr_svd_eigh(tf, sess):
    x = tf.constant(_RNG.randn(4, 3))
    w = tf.constant(_WIDE)
    sym = tf.constant(_SPD[0])
    q, r = tf.qr(x)
    qw, rw = tf.qr(w)
    s, u, _ = tf.svd(x)
    e, vecs = tf.self_adjoint_eig(sym)
    loss = (
        tf.reduce_sum(q * tf.constant(_RNG.randn(4, 3)))
        + tf.reduce_sum(r**2)
        + tf.reduce_sum(qw)
        + tf.reduce_sum(rw)
        + tf.reduce_sum(s * [1.0, 2.0, 3.0])
        + tf.reduce_sum(tf.matmul(u, u, transpose_b=True) * tf.constant(_RNG.randn(4, 4)))
        + tf.reduce_sum(e * [1.0, -1.0, 2.0])
        + tf.reduce_sum(tf.matmul(vecs * vecs, tf.constant(_RNG.randn(3, 3))))
        + tf.reduce_sum(tf.svd(w, compute_uv=False))
        + tf.reduce_sum(tf.self_adjoint_eigvals(sym) ** 2)
    )
    return tf.gradients(loss, [x, w, sym])


@case
def gradients_band_diag(tf, sess):
    x = tf.constant(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    d = tf.constant([1.0, 2.0, 3.0])
    loss = (
        tf.reduce_sum(tf.matrix_band_part(x, 1, 1) * 2.0)
        + tf.reduce_sum(tf.matrix_diag_part(x) * [1.0, 2.0, 3.0])
        + tf.reduce_sum(tf.matrix_set_diag(x, d) ** 2)
        + tf.reduce_sum(tf.matrix_diag(d) * tf.constant(np.arange(9.0, dtype=np.float32).reshape(3, 3)))
        + tf.reduce_sum(tf.trace(x * x))
    )
    return tf.gradients(loss, [x, d]) + [
        _error(lambda: tf.matrix_set_diag(x, tf.constant([1.0, 2.0, 3.0], tf.float64)))
    ]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        return type(e).__mro__[0].__name__ if type(e).__module__ == "builtins" else _tf_class(e)
    return "no error"


def _tf_class(e):
    for cls in type(e).__mro__:
        if cls.__name__.endswith("Error") and cls.__module__ != "builtins":
            return cls.__name__
    return type(e).__name__


@case
def singular_and_bad_input(tf, sess):
    singular = tf.constant([[1.0, 2.0], [2.0, 4.0]])
    not_pd = tf.constant([[1.0, 2.0], [2.0, 1.0]])
    p = tf.placeholder(tf.float32, [None, None])
    return [
        _error(lambda: sess.run(tf.matrix_inverse(singular))),
        _error(lambda: sess.run(tf.matrix_solve(singular, [[1.0], [1.0]]))),
        sess.run(tf.matrix_band_part(tf.cholesky(not_pd), -1, 0)),  # TF: NaN, no error
        sess.run(tf.matrix_determinant(singular)),
        sess.run(tf.linalg.slogdet(singular)),
        _error(lambda: tf.matrix_inverse(tf.ones([2, 3]))),
        _error(lambda: tf.matrix_solve(tf.ones([2, 2]), tf.ones([3, 1]))),
        _error(lambda: tf.cholesky(tf.ones([3]))),
        _error(lambda: sess.run(tf.matrix_inverse(p), {p: np.ones((2, 3))})),
        _error(lambda: tf.matrix_inverse(tf.constant([[1, 2], [3, 4]]))),
        _error(lambda: tf.norm([1.0], ord=-1)),
        _error(lambda: sess.run(tf.matrix_band_part(tf.ones([2, 2]), 3, 0))),
    ]


@case
def empty_and_unknown_shapes(tf, sess):
    p = tf.placeholder(tf.float64, [None, 3, 3])
    inv = tf.matrix_inverse(p)
    s, u, v = tf.svd(tf.placeholder(tf.float32, [5, None, 2]))
    e = tf.self_adjoint_eigvals(tf.placeholder(tf.float32, None))
    return [
        inv.shape,
        s.shape,
        u.shape,
        v.shape,
        e.shape,
        sess.run(tf.matrix_inverse(tf.zeros([0, 2, 2]))).shape,
        sess.run(tf.matrix_determinant(tf.zeros([2, 0, 0]))),
        sess.run(inv, {p: np.tile(np.eye(3), (2, 1, 1))}),
    ]


@case
def cross_product(tf, sess):
    a = tf.constant([[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]])
    b = tf.constant([[4.0, 5.0, 6.0], [1.0, 1.0, 1.0]])
    c = tf.cross(a, b)
    ci = tf.linalg.cross(tf.constant([1, 0, 0]), tf.constant([0, 1, 0]))
    return [
        c,
        c.shape,
        c.op.type,
        ci,
        tf.gradients(tf.reduce_sum(c * [[1.0, 2.0, 3.0]]), [a, b]),
        _error(lambda: tf.cross(tf.ones([2, 2]), tf.ones([2, 2]))),
    ]


@case(tol=1e-6)
def rank_normalize_einsum(tf, sess):
    r = tf.linalg.matrix_rank(tf.constant([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]]))
    n, nn = tf.linalg.normalize(tf.constant([[3.0, 4.0], [1.0, 0.0]]), axis=1)
    f, fn = tf.linalg.normalize(tf.constant([[3.0, 4.0], [1.0, 0.0]]), ord="fro", axis=[0, 1])
    e = tf.linalg.einsum("ij,jk->ik", tf.constant([[1.0, 2.0]]), tf.constant([[3.0], [4.0]]))
    t = tf.linalg.tensordot(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), 1)
    return [r, r.shape, r.dtype, n, nn, nn.shape, f, fn, e, t]


@case(tol=1e-6)
def lu_family(tf, sess):
    a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], tf.float64)
    lu, p = tf.linalg.lu(a)
    batch = tf.constant(_A)
    blu, bp = tf.linalg.lu(batch)
    p64 = tf.linalg.lu(batch, output_idx_type=tf.int64)[1]
    rhs = tf.constant(_B)
    return [
        lu,
        p,
        lu.shape,
        p.shape,
        p.dtype,
        lu.op.type,
        blu,
        bp,
        p64,
        p64.dtype,
        tf.linalg.lu_solve(lu, p, tf.constant([[1.0], [2.0], [3.0]], tf.float64)),
        tf.linalg.lu_solve(blu, bp, rhs),
        tf.linalg.lu_matrix_inverse(lu, p),
        tf.linalg.lu_matrix_inverse(blu, bp),
        tf.linalg.lu_reconstruct(lu, p),
        tf.linalg.lu_reconstruct(blu, bp),
        _error(lambda: sess.run(tf.linalg.lu(tf.constant([[0.0, 1.0], [0.0, 1.0]])))),
        _error(lambda: tf.linalg.lu(tf.ones([2, 3]))),
    ]
