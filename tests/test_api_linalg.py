"""tw.linalg and TF1's top-level linear-algebra names against numpy (independent of TensorFlow): batched
values, the op types built, and the errors of singular or malformed input naming the node."""

import numpy as np
import pytest

import tensorweave as tw

RNG = np.random.RandomState(3)
A = RNG.randn(2, 3, 4, 4)  # two batch dims
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)
B = RNG.randn(2, 3, 4, 2)


def run(fetch, feed=None):
    with tw.Session() as sess:
        return sess.run(fetch, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


@pytest.mark.parametrize(
    "build,want,op_type",
    [
        (lambda: tw.matrix_inverse(A), lambda: np.linalg.inv(A), "MatrixInverse"),
        (lambda: tw.linalg.inv(A, adjoint=True), lambda: np.linalg.inv(np.swapaxes(A, -1, -2)), "MatrixInverse"),
        (lambda: tw.matrix_determinant(A), lambda: np.linalg.det(A), "MatrixDeterminant"),
        (lambda: tw.linalg.slogdet(A)[1], lambda: np.linalg.slogdet(A)[1], "LogMatrixDeterminant"),
        (lambda: tw.linalg.slogdet(A)[0], lambda: np.linalg.slogdet(A)[0], "LogMatrixDeterminant"),
        (lambda: tw.cholesky(SPD), lambda: np.linalg.cholesky(SPD), "Cholesky"),
        (lambda: tw.matrix_solve(A, B), lambda: np.linalg.solve(A, B), "MatrixSolve"),
        (
            lambda: tw.matrix_triangular_solve(np.tril(A) + 4 * np.eye(4), B),
            lambda: np.linalg.solve(np.tril(A) + 4 * np.eye(4), B),
            "MatrixTriangularSolve",
        ),
        (lambda: tw.self_adjoint_eigvals(SPD), lambda: np.linalg.eigvalsh(SPD), "SelfAdjointEigV2"),
        (lambda: tw.svd(A, compute_uv=False), lambda: np.linalg.svd(A, compute_uv=False), "Svd"),
        (lambda: tw.matrix_band_part(A, 1, 0), lambda: np.tril(np.triu(A, -1)), "MatrixBandPart"),
        (lambda: tw.matrix_diag_part(A), lambda: np.diagonal(A, axis1=-2, axis2=-1), "MatrixDiagPart"),
        (lambda: tw.matrix_diag(A[..., 0]), lambda: A[..., 0][..., :, None] * np.eye(4), "MatrixDiag"),
        (
            lambda: tw.matrix_set_diag(A, np.zeros((2, 3, 4))),
            lambda: A * (1 - np.eye(4)),
            "MatrixSetDiag",
        ),
        (lambda: tw.trace(A), lambda: np.trace(A, axis1=-2, axis2=-1), "Sum"),
        (lambda: tw.norm(A, ord=2, axis=[-2, -1]), lambda: np.linalg.norm(A, 2, axis=(-2, -1)), "Squeeze"),
        (lambda: tw.linalg.pinv(A[0, 0, :, :3]), lambda: np.linalg.pinv(A[0, 0, :, :3]), "MatMul"),
    ],
)
def test_values_match_numpy(build, want, op_type):
    y = build()
    assert y.op.type == op_type
    np.testing.assert_allclose(run(y), want(), rtol=1e-9, atol=1e-9)


def test_factorizations_reconstruct_their_input():
    q, r = tw.qr(A[..., :3])
    s, u, v = tw.svd(A[..., :3, :])
    e, vecs = tw.self_adjoint_eig(SPD)
    qv, rv, sv, uv, vv, ev, vecv = run([q, r, s, u, v, e, vecs])
    np.testing.assert_allclose(qv @ rv, A[..., :3], atol=1e-12)
    np.testing.assert_allclose(np.triu(rv), rv)
    np.testing.assert_allclose((uv * sv[..., None, :]) @ np.swapaxes(vv, -1, -2), A[..., :3, :], atol=1e-12)
    np.testing.assert_allclose(vecv @ (ev[..., :, None] * np.swapaxes(vecv, -1, -2)), SPD, atol=1e-10)
    assert q.shape.as_list() == [2, 3, 4, 3] and u.shape.as_list() == [2, 3, 3, 3]


def test_least_squares_matches_numpy_with_and_without_fast():
    a, rhs = RNG.randn(6, 3), RNG.randn(6, 2)
    want = np.linalg.lstsq(a, rhs, rcond=None)[0]
    np.testing.assert_allclose(run(tw.matrix_solve_ls(a, rhs)), want, atol=1e-10)
    slow = tw.matrix_solve_ls(a, rhs, fast=False)
    assert slow.op.type == "MatrixSolveLs"
    np.testing.assert_allclose(run(slow), want, atol=1e-10)
    # A rank-deficient system: fast=False gives the minimum-norm solution, as numpy's lstsq.
    deficient = np.array([[1.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(
        run(tw.matrix_solve_ls(deficient, [[2.0], [2.0]], fast=False)), [[1.0], [1.0]], atol=1e-12
    )


def test_singular_input_is_invalid_argument_naming_the_node():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(tw.errors.InvalidArgumentError, match="not invertible") as info:
        run(tw.matrix_inverse(singular, name="my_inverse"))
    assert "my_inverse" in str(info.value)
    with pytest.raises(tw.errors.InvalidArgumentError, match="not invertible"):
        run(tw.matrix_solve(singular, [[1.0], [1.0]]))
    assert run(tw.matrix_determinant(singular)) == 0.0
    # A non-square matrix known when built is a ValueError; one fed at run time an InvalidArgumentError.
    with pytest.raises(ValueError):
        tw.cholesky(np.ones((2, 3)))
    p = tw.placeholder(tw.float64, [None, None])
    with pytest.raises(tw.errors.InvalidArgumentError, match="square"):
        run(tw.matrix_inverse(p), {p: np.ones((2, 3))})


def test_cholesky_of_an_indefinite_matrix_is_nan_as_tensorflow():
    out = run(tw.cholesky([[1.0, 2.0], [2.0, 1.0]]))
    lower = np.tril_indices(2)
    assert np.isnan(out[lower]).all() and out[0, 1] == 0


def test_lu_reconstructs_and_solves_as_numpy():
    lu, p = tw.linalg.lu(A)
    assert lu.op.type == "Lu" and p.dtype == tw.int32
    luv, pv = run([lu, p])
    lower = np.tril(luv, -1) + np.eye(4)
    upper = np.triu(luv)
    np.testing.assert_allclose(np.take_along_axis(A, pv[..., None], axis=-2), lower @ upper, atol=1e-12)
    np.testing.assert_allclose(run(tw.linalg.lu_solve(lu, p, B)), np.linalg.solve(A, B), atol=1e-10)
    np.testing.assert_allclose(run(tw.linalg.lu_matrix_inverse(lu, p)), np.linalg.inv(A), atol=1e-10)
    np.testing.assert_allclose(run(tw.linalg.lu_reconstruct(lu, p)), A, atol=1e-12)
