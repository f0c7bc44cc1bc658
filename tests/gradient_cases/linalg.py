"""Gradient cases for the linear-algebra ops (symmetric positive definite inputs built from the free input, so
that central differences stay inside the op's domain)."""

import numpy as np

import tensorweave as tw
from gradient_cases import GradientCase


def _spd(x):
    # x @ x^T + 3 I: symmetric positive definite for any x.
    return tw.matmul(x, x, transpose_b=True) + 3.0 * tw.eye(3, dtype=tw.float64)


def _sym(x):
    # A symmetric matrix with well separated eigenvalues (distinct, so eigenvectors are differentiable).
    return x + tw.matrix_transpose(x) + tw.constant(np.diag([-4.0, 0.0, 4.0]))


def _sign_free_qr(x):
    q, r = tw.qr(x)
    return tw.reduce_sum(q * q * [1.0, 2.0, 3.0]) + tw.reduce_sum(r * r * [[1.0, 2.0, 3.0]])


def _svd_terms(x):
    s, u, v = tw.svd(x)
    return tw.reduce_sum(s * [3.0, 2.0, 1.0]) + tw.reduce_sum(tw.matmul(u * u, v * v, transpose_b=True))


def _eig_terms(x):
    e, v = tw.self_adjoint_eig(_sym(x))
    return tw.reduce_sum(e * [1.0, -2.0, 3.0]) + tw.reduce_sum(v * v * [[1.0, 2.0, 3.0]])


CASES = [
    GradientCase("MatrixInverse", lambda x: tw.matrix_inverse(_spd(x)), [[2, 3, 3]], ops=["MatrixInverse"]),
    GradientCase(
        "MatrixInverse adjoint",
        lambda x: tw.matrix_inverse(_spd(x) + tw.matrix_band_part(x, 0, -1), adjoint=True),
        [[3, 3]],
    ),
    GradientCase(
        "MatrixDeterminant",
        lambda x: tw.matrix_determinant(x + 3.0 * tw.eye(3, dtype=tw.float64)),
        [[2, 3, 3]],
        ops=["MatrixDeterminant"],
    ),
    GradientCase(
        "LogMatrixDeterminant",
        lambda x: tw.linalg.slogdet(x - 3.0 * tw.eye(3, dtype=tw.float64))[1],
        [[3, 3]],
        ops=["LogMatrixDeterminant"],
    ),
    GradientCase("Cholesky", lambda x: tw.cholesky(_spd(x)), [[2, 3, 3]], ops=["Cholesky"]),
    GradientCase(
        "MatrixSolve",
        lambda x, b: tw.matrix_solve(_spd(x) + tw.matrix_band_part(x, 0, 0), b),
        [[3, 3], [3, 2]],
        ops=["MatrixSolve"],
    ),
    GradientCase("MatrixSolve adjoint", lambda x, b: tw.matrix_solve(_spd(x) + x, b, adjoint=True), [[3, 3], [3, 2]]),
    GradientCase(
        "MatrixTriangularSolve",
        lambda x, b: tw.matrix_triangular_solve(x + 3.0 * tw.eye(3, dtype=tw.float64), b),
        [[2, 3, 3], [2, 3, 2]],
        ops=["MatrixTriangularSolve"],
    ),
    GradientCase(
        "MatrixTriangularSolve upper adjoint",
        lambda x, b: tw.matrix_triangular_solve(x + 3.0 * tw.eye(3, dtype=tw.float64), b, lower=False, adjoint=True),
        [[3, 3], [3, 2]],
    ),
    GradientCase(
        "MatrixSolveLs (Cholesky composite, overdetermined)",
        lambda a, b: tw.matrix_solve_ls(a, b, l2_regularizer=0.1),
        [[4, 2], [4, 2]],
    ),
    GradientCase(
        "MatrixSolveLs op (large batch)",
        lambda a, b: tw.matrix_solve_ls(tw.tile(a, [5000, 1, 1]), tw.tile(b, [5000, 1, 1]))[:1],
        [[1, 4, 2], [1, 4, 1]],
        ops=["MatrixSolveLs"],
    ),
    GradientCase("Qr", _sign_free_qr, [[4, 3]], ops=["Qr"]),
    GradientCase("Qr wide", lambda x: tw.reduce_sum(tw.qr(x)[1] ** 2), [[2, 3]]),
    GradientCase("Svd", _svd_terms, [[4, 3]], ops=["Svd"]),
    GradientCase("Svd values only", lambda x: tw.svd(x, compute_uv=False), [[2, 3, 4]]),
    GradientCase("SelfAdjointEigV2", _eig_terms, [[3, 3]], ops=["SelfAdjointEigV2"]),
    GradientCase("self_adjoint_eigvals", lambda x: tw.self_adjoint_eigvals(_sym(x)), [[3, 3]]),
    GradientCase("MatrixBandPart", lambda x: tw.matrix_band_part(x, 1, 0), [[2, 3, 4]], ops=["MatrixBandPart"]),
    GradientCase("MatrixDiag", lambda d: tw.matrix_diag(d), [[2, 3]], ops=["MatrixDiag"]),
    GradientCase("MatrixDiagPart", lambda x: tw.matrix_diag_part(x), [[2, 3, 4]], ops=["MatrixDiagPart"]),
    GradientCase("MatrixSetDiag", lambda x, d: tw.matrix_set_diag(x, d), [[2, 3, 4], [2, 3]], ops=["MatrixSetDiag"]),
    GradientCase("norm ord=2 over two axes", lambda x: tw.norm(x, ord=2, axis=[0, 1]), [[3, 2]]),
    GradientCase("Cross", lambda a, b: tw.cross(a, b), [[2, 3], [2, 3]], ops=["Cross"]),
    GradientCase("logdet", lambda x: tw.linalg.logdet(_spd(x)), [[3, 3]]),
]
