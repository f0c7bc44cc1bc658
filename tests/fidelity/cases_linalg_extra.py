"""tf.linalg's matrix functions (expm, sqrtm), tridiagonal routines and the LinearOperator family against
TensorFlow 1: values, static shapes, gradients, NaNs for singular input and the construction errors."""

import numpy as np

from tests.fidelity.harness import case

_RNG = np.random.RandomState(11)
_A = _RNG.randn(3, 3, 3) * np.array([0.05, 1.0, 6.0])[:, None, None]  # small, medium and large norms
_G = _RNG.randn(3, 3) + 4.0 * np.eye(3)
_SPD = _G @ _G.T + np.eye(3)
_TRI = _RNG.randn(2, 3, 4) + np.array([[0.0], [4.0], [0.0]])
_RHS = _RNG.randn(2, 4, 2)
_W = _RNG.randn(3, 3)


def _error(fn):
    """The class name of what fn raises (None when it raises nothing)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        return type(e).__name__
    return None


# ------------------------------------------------------------------------------------------------ expm, sqrtm
@case(tol=1e-5)
def expm_batched_float32_float64(tf, sess):
    e64 = tf.linalg.expm(tf.constant(_A))
    e32 = tf.linalg.expm(tf.constant(_A, tf.float32))
    return [e64, e64.shape, e64.dtype, e32, e32.dtype]


@case(tol=1e-6)
def expm_gradient_and_unknown_shape(tf, sess):
    x = tf.placeholder(tf.float64, [None, 3, 3])
    e = tf.linalg.expm(x)
    (g,) = tf.gradients(tf.reduce_sum(e * _W), [x])
    return [e.shape, sess.run([e, g], {x: _A[:2]})]


@case
def expm_errors_and_non_finite(tf, sess):
    nan = tf.linalg.expm(tf.constant([[np.inf, 0.0], [0.0, 1.0]]))
    return [
        nan,
        _error(lambda: tf.linalg.expm(tf.constant([[1, 2], [3, 4]]))),
        _error(lambda: tf.linalg.expm(tf.constant(np.ones((2, 3)), tf.float32))),
    ]


@case(tol=1e-6)
def sqrtm_values(tf, sess):
    spd = tf.linalg.sqrtm(tf.constant(_SPD))
    general = tf.linalg.sqrtm(tf.constant(_G))
    upper = tf.matrix_square_root(tf.constant([[4.0, 1.0], [0.0, 9.0]]))
    negative = tf.linalg.sqrtm(tf.constant([[-4.0, 0.0], [0.0, 9.0]], tf.float64))
    return [spd, general, upper, upper.dtype, spd.shape, negative]


@case(tol=1e-4)
def sqrtm_gradient(tf, sess):
    x = tf.constant(_SPD)
    (g,) = tf.gradients(tf.reduce_sum(tf.linalg.sqrtm(x) * _W), [x])
    return g


# ------------------------------------------------------------------------------------------------ tridiagonal
@case(tol=1e-9)
def tridiagonal_solve_formats(tf, sess):
    d = tf.constant(_TRI)
    rhs = tf.constant(_RHS)
    seq = [d[:, 0, :-1], d[:, 1], d[:, 2, 1:]]
    dense = tf.linalg.LinearOperatorTridiag(d).to_dense()
    s = tf.linalg.tridiagonal_solve
    compact = s(d, rhs)
    return [
        compact,
        compact.shape,
        s(seq, rhs, diagonals_format="sequence"),
        s(dense, rhs, diagonals_format="matrix"),
        s(d, tf.linalg.matrix_transpose(rhs), transpose_rhs=True),
        s(d, rhs[..., 0]),
        s(d, rhs, partial_pivoting=False),
    ]


@case(tol=1e-6)
def tridiagonal_solve_gradient(tf, sess):
    d = tf.constant(_TRI[0])
    rhs = tf.constant(_RHS[0])
    x = tf.linalg.tridiagonal_solve(d, rhs)
    return tf.gradients(tf.reduce_sum(x * _RHS[1]), [d, rhs])


@case
def tridiagonal_solve_singular_is_nan(tf, sess):
    zero_first_pivot = tf.constant([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [0.0, 1.0, 1.0]])
    singular = tf.constant([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    ones = tf.ones([3, 1])
    s = tf.linalg.tridiagonal_solve
    return [s(zero_first_pivot, ones), s(zero_first_pivot, ones, partial_pivoting=False), s(singular, ones)]


@case
def tridiagonal_solve_errors(tf, sess):
    s = tf.linalg.tridiagonal_solve
    c = tf.constant
    return [
        _error(lambda: s(c(np.ones((4, 3))), c(np.ones((3, 1))))),
        _error(lambda: s(c(np.ones((3, 3))), c(np.ones((4, 1))))),
        _error(lambda: s([c(np.ones(3)), c(np.ones(3))], c(np.ones((3, 1))), diagonals_format="sequence")),
        _error(lambda: s(c(np.ones((3, 3))), c(np.ones((3, 1))), diagonals_format="banded")),
        _error(lambda: s(c(np.ones((3, 3))), c(np.ones((3, 1))), partial_pivoting=False, perturb_singular=True)),
        _error(lambda: s(c(np.ones((3, 3)), tf.float32), c(np.ones((3, 1)), tf.float64))),
        _error(lambda: s(c(np.ones((4, 3))), c(np.ones((3, 1))), diagonals_format="matrix")),
    ]


@case(tol=1e-9)
def tridiagonal_matmul_formats_and_gradient(tf, sess):
    d = tf.constant(_TRI)
    rhs = tf.constant(_RHS)
    m = tf.linalg.tridiagonal_matmul
    dense = tf.linalg.LinearOperatorTridiag(d).to_dense()
    y = m(d, rhs)
    grads = tf.gradients(tf.reduce_sum(y * _RHS), [d, rhs])
    return [
        y,
        y.shape,
        m([d[:, 0], d[:, 1], d[:, 2]], rhs, diagonals_format="sequence"),
        m(dense, rhs, "matrix"),
    ] + grads


@case(tol=1e-5)
def eigh_tridiagonal_values_and_vectors(tf, sess):
    alpha = tf.constant([1.0, 2.0, 3.0, 4.0])
    beta = tf.constant([1.0, 0.5, 1.0])
    w, v = tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)
    return [
        tf.linalg.eigh_tridiagonal(alpha, beta),
        w,
        tf.matmul(v * w, v, transpose_b=True),  # the matrix back: independent of the vectors' signs
        tf.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=(1, 2)),
        tf.linalg.eigh_tridiagonal(alpha, beta, select="v", select_range=(0.0, 3.0)),
        _error(lambda: tf.linalg.eigh_tridiagonal(alpha, tf.constant([1.0, 1.0, 1.0], tf.float64))),
    ]


# ------------------------------------------------------------------------------------------------ LinearOperator
def _observe(tf, op, square=True, invertible=True):
    n = tf.dimension_value(op.shape[-1])
    x = tf.constant(np.arange(1.0, 2.0 * n + 1.0).reshape(n, 2) / n, op.dtype)
    out = [
        op.shape,
        op.batch_shape,
        op.domain_dimension,
        op.range_dimension,
        op.tensor_rank,
        op.dtype,
        op.is_square,
        op.is_self_adjoint,
        op.is_non_singular,
        op.is_positive_definite,
        op.shape_tensor(),
        op.to_dense(),
        op.matmul(x),
        op.matmul(x, adjoint=True) if square else None,
        op.matvec(x[:, 0]),
    ]
    if square:
        out += [op.diag_part(), op.trace(), op.add_to_tensor(tf.ones(op.shape, op.dtype))]
    if invertible:
        out += [
            op.solve(x),
            op.solve(x, adjoint=True),
            op.solvevec(x[:, 0]),
            op.determinant(),
            op.log_abs_determinant(),
            op.inverse().to_dense(),
            op.adjoint().to_dense(),
        ]
    return out


@case(tol=1e-6)
def linop_full_matrix_diag_tril(tf, sess):
    L = tf.linalg
    return [
        _observe(tf, L.LinearOperatorFullMatrix(tf.constant(_G))),
        _observe(tf, L.LinearOperatorFullMatrix(tf.constant(_SPD), is_self_adjoint=True, is_positive_definite=True)),
        _observe(tf, L.LinearOperatorDiag(tf.constant([[1.0, -2.0, 3.0], [0.5, 1.0, 4.0]]))),
        _observe(tf, L.LinearOperatorLowerTriangular(tf.constant(_G))),
        L.LinearOperatorFullMatrix(tf.constant(_SPD), is_self_adjoint=True, is_positive_definite=True)
        .cholesky()
        .to_dense(),
        L.LinearOperatorDiag(tf.constant([3.0, 1.0, 2.0])).eigvals(),
    ]


@case(tol=1e-6)
def linop_identity_scaled_zeros(tf, sess):
    L = tf.linalg
    zeros = L.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False)
    x = tf.ones([3, 2])
    return [
        _observe(tf, L.LinearOperatorIdentity(3)),
        _observe(tf, L.LinearOperatorIdentity(2, batch_shape=[2], dtype=tf.float64)),
        _observe(tf, L.LinearOperatorScaledIdentity(3, tf.constant([2.0, -0.5]))),
        _observe(tf, L.LinearOperatorZeros(3), invertible=False),
        [zeros.shape, zeros.to_dense(), zeros.matmul(x), zeros.is_square],
        L.LinearOperatorZeros(2).log_abs_determinant(),
    ]


@case(tol=1e-6)
def linop_composition_adjoint_inversion(tf, sess):
    L = tf.linalg
    full = L.LinearOperatorFullMatrix(tf.constant(_G))
    diag = L.LinearOperatorDiag(tf.constant([1.0, 2.0, 3.0], tf.float64))
    comp = L.LinearOperatorComposition([full, diag])
    return [
        comp.name,
        _observe(tf, comp),
        _observe(tf, L.LinearOperatorAdjoint(full)),
        L.LinearOperatorAdjoint(full).name,
        _observe(tf, L.LinearOperatorInversion(full)),
        L.LinearOperatorInversion(full).name,
        (full @ diag).to_dense(),
    ]


@case(tol=1e-6)
def linop_kronecker_block_diag(tf, sess):
    L = tf.linalg
    a = L.LinearOperatorFullMatrix(tf.constant(_G[:2, :2] + np.eye(2)))
    b = L.LinearOperatorFullMatrix(tf.constant(_G))
    d = L.LinearOperatorDiag(tf.constant([1.0, 2.0], tf.float64))
    return [
        _observe(tf, L.LinearOperatorKronecker([a, b])),
        _observe(tf, L.LinearOperatorBlockDiag([a, b])),
        _observe(
            tf, L.LinearOperatorBlockLowerTriangular([[a], [L.LinearOperatorFullMatrix(tf.constant(_G[:, :2])), b]])
        ),
        L.LinearOperatorKronecker([d, d]).eigvals(),
    ]


@case(tol=1e-6)
def linop_low_rank_update(tf, sess):
    L = tf.linalg
    u = tf.constant(_RNG.randn(3, 2))
    v = tf.constant(_RNG.randn(3, 2))
    base = L.LinearOperatorDiag(tf.constant([1.0, 2.0, 3.0], tf.float64), is_positive_definite=True)
    spd = L.LinearOperatorLowRankUpdate(base, u)
    general = L.LinearOperatorLowRankUpdate(
        L.LinearOperatorFullMatrix(tf.constant(_G)), u, tf.constant([0.5, 2.0], tf.float64), v
    )
    return [_observe(tf, spd), spd.is_positive_definite, spd.is_self_adjoint, _observe(tf, general)]


@case(tol=1e-6)
def linop_householder_permutation_toeplitz_tridiag(tf, sess):
    L = tf.linalg
    return [
        _observe(tf, L.LinearOperatorHouseholder(tf.constant([1.0, 2.0, 2.0]))),
        _observe(tf, L.LinearOperatorPermutation(tf.constant([2, 0, 1]))),
        _observe(tf, L.LinearOperatorToeplitz(col=tf.constant([5.0, 1.0, 2.0]), row=tf.constant([5.0, -1.0, 0.5]))),
        _observe(tf, L.LinearOperatorTridiag(tf.constant(_TRI[0]))),
    ]


@case
def linop_construction_errors(tf, sess):
    L = tf.linalg
    eye = tf.constant(np.eye(2))
    return [
        _error(lambda: L.LinearOperatorFullMatrix(eye, is_positive_definite=True, is_non_singular=False)),
        _error(lambda: L.LinearOperatorFullMatrix(eye, is_self_adjoint=True, is_square=False)),
        _error(lambda: L.LinearOperatorFullMatrix(tf.constant([[1, 2], [3, 4]]))),
        _error(lambda: L.LinearOperatorFullMatrix(tf.constant([1.0, 2.0]))),
        _error(lambda: L.LinearOperatorDiag(tf.constant([1.0]), is_self_adjoint=False)),
        _error(lambda: L.LinearOperatorDiag(tf.constant(1.0))),
        _error(lambda: L.LinearOperatorIdentity(-1)),
        _error(lambda: L.LinearOperatorIdentity(2.0)),
        _error(lambda: L.LinearOperatorIdentity(2, is_non_singular=False)),
        _error(lambda: L.LinearOperatorIdentity(2, batch_shape=[-1])),
        _error(lambda: L.LinearOperatorScaledIdentity(2, 1.0, is_square=False)),
        _error(lambda: L.LinearOperatorZeros(2, 3)),
        _error(lambda: L.LinearOperatorZeros(2, is_non_singular=True)),
        _error(lambda: L.LinearOperatorLowerTriangular(eye, is_square=False)),
        _error(lambda: L.LinearOperatorComposition([])),
        _error(
            lambda: L.LinearOperatorComposition(
                [L.LinearOperatorDiag(tf.constant([1.0])), L.LinearOperatorDiag(tf.constant([1.0], tf.float64))]
            )
        ),
        _error(lambda: L.LinearOperatorInversion(L.LinearOperatorZeros(2))),
        _error(lambda: L.LinearOperatorPermutation(tf.constant([0, 0, 1]))),
        _error(lambda: L.LinearOperatorPermutation(tf.constant([0.0, 1.0]))),
        _error(lambda: L.LinearOperatorHouseholder(tf.constant([1.0, 0.0]), is_self_adjoint=False)),
        _error(lambda: L.LinearOperatorToeplitz(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))),
        _error(lambda: L.LinearOperatorTridiag(tf.ones([3, 3]), diagonals_format="banded")),
        _error(
            lambda: L.LinearOperatorBlockLowerTriangular(
                [[L.LinearOperatorDiag(tf.constant([1.0]))], [L.LinearOperatorDiag(tf.constant([1.0]))]]
            )
        ),
        _error(
            lambda: L.LinearOperatorLowRankUpdate(
                L.LinearOperatorIdentity(2), tf.ones([2, 1]), is_diag_update_positive=False
            )
        ),
    ]


@case
def linop_method_errors(tf, sess):
    L = tf.linalg
    wide = L.LinearOperatorFullMatrix(tf.ones([2, 3]))
    square = L.LinearOperatorFullMatrix(tf.constant([[2.0, 1.0], [1.0, 2.0]]))
    return [
        _error(lambda: wide.matmul(tf.ones([2, 1]))),
        _error(lambda: wide.matmul(tf.ones([3, 1], tf.float64))),
        _error(lambda: wide.solve(tf.ones([2, 1]))),
        _error(lambda: wide.determinant()),
        _error(lambda: wide.log_abs_determinant()),
        _error(lambda: wide.inverse()),
        _error(lambda: square.cholesky()),
        _error(lambda: square.eigvals()),
        _error(lambda: L.LinearOperatorZeros(2).solve(tf.ones([2, 1]))),
        _error(lambda: L.LinearOperatorZeros(2).inverse()),
        _error(lambda: sess.run(L.LinearOperatorDiag(tf.constant([1.0, 0.0])).assert_non_singular())),
        _error(lambda: sess.run(L.LinearOperatorDiag(tf.constant([1.0, 2.0])).assert_non_singular())),
        _error(lambda: sess.run(L.LinearOperatorFullMatrix(tf.ones([2, 2])).assert_non_singular())),
    ]


@case(
    known_difference="sqrtm is a Denman-Beavers iteration, which needs invertible matrices: a singular matrix "
    "gives NaNs, where TF's real Schur method returns its root"
)
def sqrtm_singular_matrix(tf, sess):
    return tf.linalg.sqrtm(tf.constant([[1.0, 0.0], [0.0, 0.0]], tf.float64))


@case(known_difference="tridiagonal_solve's perturb_singular=True is not implemented (NotImplementedError)")
def tridiagonal_solve_perturb_singular(tf, sess):
    singular = tf.constant([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    return tf.linalg.tridiagonal_solve(singular, tf.ones([3, 1]), perturb_singular=True)
