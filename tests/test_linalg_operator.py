"""tf.linalg.LinearOperator*: every method of every class against numpy on the operator's dense matrix."""

import numpy as np
import pytest
import tensorweave as tw

L = tw.linalg
RNG = np.random.RandomState(42)


def _spd(n, batch=()):
    a = RNG.randn(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _well_conditioned(n, batch=()):
    return RNG.randn(*batch, n, n) + 3 * n * np.eye(n)


def _kron(a, b):
    return np.einsum("...ij,...kl->...ikjl", a, b).reshape(
        a.shape[:-2] + (a.shape[-2] * b.shape[-2], a.shape[-1] * b.shape[-1])
    )


def _cases():
    """(id, builder returning the operator, its dense numpy matrix, whether it is square and non-singular)."""
    d = RNG.rand(2, 3) + 0.5
    full = _well_conditioned(3, (2,))
    tril = np.tril(_well_conditioned(3))
    spd = _spd(3)
    a2, b3 = _well_conditioned(2), _well_conditioned(3)
    k_rect = RNG.randn(2, 2, 3)
    u = RNG.randn(3, 2)
    diag_update = RNG.rand(2) + 0.5
    v = RNG.randn(3, 2)
    axis = RNG.randn(4)
    col, row = RNG.randn(4) + np.array([8, 0, 0, 0]), RNG.randn(4)
    tri = RNG.randn(3, 5) + np.array([[0], [6], [0]])
    perm = np.array([2, 0, 3, 1])
    householder = np.eye(4) - 2 * np.outer(axis, axis) / axis.dot(axis)
    toeplitz = np.array([[col[i - j] if i >= j else row[j - i] for j in range(4)] for i in range(4)])
    tridiag = np.diag(tri[1]) + np.diag(tri[0, :-1], 1) + np.diag(tri[2, 1:], -1)
    return [
        ("full", lambda: L.LinearOperatorFullMatrix(full), full, True),
        (
            "full_spd",
            lambda: L.LinearOperatorFullMatrix(spd, is_self_adjoint=True, is_positive_definite=True),
            spd,
            True,
        ),
        ("diag", lambda: L.LinearOperatorDiag(d), np.stack([np.diag(x) for x in d]), True),
        ("tril", lambda: L.LinearOperatorLowerTriangular(tril + np.triu(np.ones((3, 3)), 1)), tril, True),
        ("identity", lambda: L.LinearOperatorIdentity(3, dtype=tw.float64), np.eye(3), True),
        (
            "identity_batch",
            lambda: L.LinearOperatorIdentity(2, batch_shape=[2], dtype=tw.float64),
            np.stack([np.eye(2)] * 2),
            True,
        ),
        (
            "scaled_identity",
            lambda: L.LinearOperatorScaledIdentity(3, np.array([2.0, -0.5])),
            np.stack([2.0 * np.eye(3), -0.5 * np.eye(3)]),
            True,
        ),
        (
            "zeros_rect",
            lambda: L.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False, dtype=tw.float64),
            np.zeros((2, 3)),
            False,
        ),
        (
            "composition",
            lambda: L.LinearOperatorComposition([L.LinearOperatorFullMatrix(b3), L.LinearOperatorDiag(d[0])]),
            b3 @ np.diag(d[0]),
            True,
        ),
        ("adjoint", lambda: L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(full)), np.swapaxes(full, -1, -2), True),
        ("inversion", lambda: L.LinearOperatorInversion(L.LinearOperatorFullMatrix(b3)), np.linalg.inv(b3), True),
        (
            "kronecker",
            lambda: L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(a2), L.LinearOperatorFullMatrix(b3)]),
            _kron(a2, b3),
            True,
        ),
        (
            "kronecker3_batched_rectangular",
            lambda: L.LinearOperatorKronecker(
                [L.LinearOperatorFullMatrix(k_rect), L.LinearOperatorDiag(d[:, :2]), L.LinearOperatorFullMatrix(a2)]
            ),
            _kron(_kron(k_rect, np.stack([np.diag(x) for x in d[:, :2]])), np.stack([a2, a2])),
            False,
        ),
        (
            "kronecker3_batched_square",
            lambda: L.LinearOperatorKronecker(
                [L.LinearOperatorDiag(d[:, :2]), L.LinearOperatorFullMatrix(b3), L.LinearOperatorLowerTriangular(tril)]
            ),
            _kron(_kron(np.stack([np.diag(x) for x in d[:, :2]]), np.stack([b3, b3])), np.stack([tril, tril])),
            True,
        ),
        (
            "block_diag",
            lambda: L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(a2), L.LinearOperatorDiag(d[1])]),
            np.block([[a2, np.zeros((2, 3))], [np.zeros((3, 2)), np.diag(d[1])]]),
            True,
        ),
        (
            "block_lower_triangular",
            lambda: L.LinearOperatorBlockLowerTriangular(
                [[L.LinearOperatorFullMatrix(a2)], [L.LinearOperatorFullMatrix(u), L.LinearOperatorFullMatrix(b3)]]
            ),
            np.block([[a2, np.zeros((2, 3))], [u, b3]]),
            True,
        ),
        (
            "low_rank_update",
            lambda: L.LinearOperatorLowRankUpdate(L.LinearOperatorFullMatrix(b3), u, diag_update=diag_update, v=v),
            b3 + u @ np.diag(diag_update) @ v.T,
            True,
        ),
        (
            "low_rank_update_spd",
            lambda: L.LinearOperatorLowRankUpdate(
                L.LinearOperatorDiag(d[0], is_positive_definite=True), u, is_diag_update_positive=True
            ),
            np.diag(d[0]) + u @ u.T,
            True,
        ),
        ("householder", lambda: L.LinearOperatorHouseholder(axis), householder, True),
        (
            "permutation",
            lambda: L.LinearOperatorPermutation(perm, dtype=tw.float64),
            np.eye(4)[perm],
            True,
        ),
        ("toeplitz", lambda: L.LinearOperatorToeplitz(col=col, row=row), toeplitz, True),
        ("tridiag", lambda: L.LinearOperatorTridiag(tri), tridiag, True),
        ("tridiag_matrix", lambda: L.LinearOperatorTridiag(tridiag, diagonals_format="matrix"), tridiag, True),
        (
            "tridiag_sequence",
            lambda: L.LinearOperatorTridiag([tri[0, :-1], tri[1], tri[2, 1:]], diagonals_format="sequence"),
            tridiag,
            True,
        ),
    ]


CASES = _cases()


@pytest.mark.parametrize("case_id,build,dense,invertible", CASES, ids=[c[0] for c in CASES])
def test_operator_against_dense(case_id, build, dense, invertible):
    dense = np.asarray(dense, np.float64)
    with tw.Graph().as_default(), tw.Session() as sess:
        op = build()
        assert op.dtype == tw.float64
        assert op.shape.as_list() == list(dense.shape)
        assert op.batch_shape.as_list() == list(dense.shape[:-2])
        assert op.tensor_rank == dense.ndim
        assert tw.dimension_value(op.range_dimension) == dense.shape[-2]
        assert tw.dimension_value(op.domain_dimension) == dense.shape[-1]
        m, n = dense.shape[-2:]
        x = RNG.randn(*dense.shape[:-2], n, 2)
        xa = RNG.randn(*dense.shape[:-2], m, 2)
        vec = RNG.randn(*dense.shape[:-2], n)
        dt = np.swapaxes(dense, -1, -2)
        fetch = {
            "shape_tensor": op.shape_tensor(),
            "to_dense": op.to_dense(),
            "matmul": op.matmul(x),
            "matmul_adjoint": op.matmul(xa, adjoint=True),
            "matmul_adjoint_arg": op.matmul(np.swapaxes(x, -1, -2), adjoint_arg=True),
            "matmul_operator": (op @ x),
            "matvec": op.matvec(vec),
            "add_to_tensor": op.add_to_tensor(np.ones_like(dense)),
        }
        expect = {
            "shape_tensor": np.array(dense.shape),
            "to_dense": dense,
            "matmul": dense @ x,
            "matmul_adjoint": dt @ xa,
            "matmul_adjoint_arg": dense @ x,
            "matmul_operator": dense @ x,
            "matvec": np.einsum("...ij,...j->...i", dense, vec),
            "add_to_tensor": dense + 1.0,
        }
        if m == n:
            fetch["diag_part"] = op.diag_part()
            fetch["trace"] = op.trace()
            expect["diag_part"] = np.diagonal(dense, axis1=-2, axis2=-1)
            expect["trace"] = np.trace(dense, axis1=-2, axis2=-1)
        if invertible:
            fetch.update(
                solve=op.solve(x),
                solve_adjoint=op.solve(x, adjoint=True),
                solve_adjoint_arg=op.solve(np.swapaxes(x, -1, -2), adjoint_arg=True),
                solvevec=op.solvevec(vec),
                determinant=op.determinant(),
                log_abs_determinant=op.log_abs_determinant(),
                inverse=op.inverse().to_dense(),
                adjoint=op.adjoint().to_dense(),
                adjoint_h=op.H.matmul(x),
            )
            expect.update(
                solve=np.linalg.solve(dense, x),
                solve_adjoint=np.linalg.solve(dt, x),
                solve_adjoint_arg=np.linalg.solve(dense, x),
                solvevec=np.linalg.solve(dense, vec[..., None])[..., 0],
                determinant=np.linalg.det(dense),
                log_abs_determinant=np.linalg.slogdet(dense)[1],
                inverse=np.linalg.inv(dense),
                adjoint=dt,
                adjoint_h=dt @ x,
            )
        got = sess.run(fetch)
        for key, value in expect.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-8, atol=1e-8, err_msg=f"{case_id}.{key}")
        if op.is_self_adjoint:
            np.testing.assert_allclose(
                np.sort(sess.run(op.eigvals()), axis=-1), np.linalg.eigvalsh(dense), rtol=1e-8, atol=1e-8
            )
        if op.is_self_adjoint and op.is_positive_definite:
            chol = sess.run(op.cholesky().to_dense())
            np.testing.assert_allclose(chol, np.linalg.cholesky(dense), rtol=1e-8, atol=1e-8)


def test_float32_and_gradient_of_log_abs_determinant():
    a = _well_conditioned(3)
    with tw.Graph().as_default(), tw.Session() as sess:
        t = tw.constant(a)
        op = L.LinearOperatorLowRankUpdate(L.LinearOperatorFullMatrix(t), np.ones((3, 1)))
        (g,) = tw.gradients(op.log_abs_determinant(), [t])
        # d log|det(A + 11^T)| / dA = (A + 11^T)^-T
        np.testing.assert_allclose(sess.run(g), np.linalg.inv(a + 1.0).T, rtol=1e-7)
        op32 = L.LinearOperatorDiag(np.array([1.0, 2.0], np.float32))
        assert op32.dtype == tw.float32
        np.testing.assert_allclose(sess.run(op32.matvec([1.0, 1.0])), [1.0, 2.0])


def test_hint_and_argument_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="always non-singular"):
            L.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True, is_non_singular=False)
        with pytest.raises(ValueError, match="always square"):
            L.LinearOperatorFullMatrix(np.eye(2), is_self_adjoint=True, is_square=False)
        with pytest.raises(TypeError, match="dtype"):
            L.LinearOperatorFullMatrix(np.eye(2, dtype=np.int32))
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            L.LinearOperatorFullMatrix([1.0, 2.0])
        with pytest.raises(ValueError, match="always self adjoint"):
            L.LinearOperatorDiag([1.0], is_self_adjoint=False)
        with pytest.raises(ValueError, match="non-negative"):
            L.LinearOperatorIdentity(-1)
        with pytest.raises(TypeError, match="integer"):
            L.LinearOperatorIdentity(2.0)
        with pytest.raises(ValueError, match="always non-singular"):
            L.LinearOperatorIdentity(2, is_non_singular=False)
        with pytest.raises(ValueError, match="num_rows\\(2\\) != num_columns\\(3\\)"):
            L.LinearOperatorZeros(2, 3)
        with pytest.raises(ValueError, match="non-empty"):
            L.LinearOperatorComposition([])
        with pytest.raises(TypeError, match="same dtype"):
            L.LinearOperatorComposition(
                [L.LinearOperatorDiag([1.0]), L.LinearOperatorDiag(np.array([1.0], np.float64))]
            )
        with pytest.raises(ValueError, match="unique integers"):
            L.LinearOperatorPermutation([0, 0, 1])
        with pytest.raises(ValueError, match="must contain `2` blocks"):
            L.LinearOperatorBlockLowerTriangular([[L.LinearOperatorDiag([1.0])], [L.LinearOperatorDiag([1.0])]])
        with pytest.raises(ValueError, match="diagonals_format"):
            L.LinearOperatorTridiag(np.ones((3, 3)), diagonals_format="banded")
        op = L.LinearOperatorFullMatrix(np.ones((2, 3)))
        with pytest.raises(ValueError):
            op.matmul(np.ones((2, 1)))  # needs 3 rows
        with pytest.raises(TypeError, match="dtype"):
            op.matmul(np.ones((3, 1), np.float32))
        with pytest.raises(NotImplementedError, match="not be square"):
            op.solve(np.ones((2, 1)))
        with pytest.raises(NotImplementedError, match="not be square"):
            op.determinant()
        with pytest.raises(ValueError, match="non square"):
            op.inverse()
        with pytest.raises(ValueError, match="Cholesky"):
            L.LinearOperatorFullMatrix(np.eye(2)).cholesky()
        with pytest.raises(NotImplementedError, match="self-adjoint"):
            L.LinearOperatorFullMatrix(np.eye(2)).eigvals()
        zeros = L.LinearOperatorZeros(2)
        with pytest.raises(NotImplementedError, match="singular"):
            zeros.solve(np.ones((2, 1)))


def test_assert_non_singular_runs():
    with tw.Graph().as_default(), tw.Session() as sess:
        sess.run(L.LinearOperatorDiag([1.0, 2.0]).assert_non_singular())
        with pytest.raises(tw.errors.InvalidArgumentError):
            sess.run(L.LinearOperatorDiag([1.0, 0.0]).assert_non_singular())
        sess.run(L.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 2.0]]).assert_non_singular())
        with pytest.raises(tw.errors.InvalidArgumentError):
            sess.run(L.LinearOperatorFullMatrix([[1.0, 1.0], [1.0, 1.0]]).assert_non_singular())


def test_matmul_of_operators_is_a_composition():
    a, b = _well_conditioned(2), _well_conditioned(2)
    with tw.Graph().as_default(), tw.Session() as sess:
        op = L.LinearOperatorFullMatrix(a) @ L.LinearOperatorFullMatrix(b)
        assert isinstance(op, L.LinearOperatorComposition)
        np.testing.assert_allclose(sess.run(op.to_dense()), a @ b)
        assert isinstance(L.LinearOperatorDiag([1.0, 2.0]).inverse(), L.LinearOperatorDiag)


def test_unknown_batch_dimension():
    """Operators over placeholders with an unknown batch dim: shape_tensor, to_dense, matmul, solve and
    log_abs_determinant at run time, against numpy on the fed values."""
    dv = RNG.rand(2, 3) + 1.0
    mv = RNG.randn(2, 3, 3) + 5 * np.eye(3)
    xv = RNG.randn(2, 3, 2)
    with tw.Graph().as_default(), tw.Session() as sess:
        pd = tw.placeholder(tw.float64, [None, 3])
        pm = tw.placeholder(tw.float64, [None, 3, 3])
        px = tw.placeholder(tw.float64, [None, 3, 2])
        feed = {pd: dv, pm: mv, px: xv}
        diag_dense = np.stack([np.diag(x) for x in dv])
        ops = {
            "diag": (L.LinearOperatorDiag(pd), diag_dense),
            "full": (L.LinearOperatorFullMatrix(pm), mv),
            "tril": (L.LinearOperatorLowerTriangular(pm), np.tril(mv)),
            "composition": (
                L.LinearOperatorComposition([L.LinearOperatorFullMatrix(pm), L.LinearOperatorDiag(pd)]),
                mv @ diag_dense,
            ),
            "low_rank_update": (
                L.LinearOperatorLowRankUpdate(
                    L.LinearOperatorDiag(pd, is_positive_definite=True), tw.ones([3, 1], tw.float64)
                ),
                diag_dense + 1.0,
            ),
            "kronecker": (
                L.LinearOperatorKronecker(
                    [L.LinearOperatorDiag(tw.constant([1.0, 2.0], tw.float64)), L.LinearOperatorFullMatrix(pm)]
                ),
                _kron(np.stack([np.diag([1.0, 2.0])] * 2), mv),
            ),
            "block_diag": (
                L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(pm), L.LinearOperatorDiag(pd)]),
                np.stack([np.block([[m, np.zeros((3, 3))], [np.zeros((3, 3)), np.diag(d)]]) for m, d in zip(mv, dv)]),
            ),
            "scaled_identity": (L.LinearOperatorScaledIdentity(3, pd[:, 0]), dv[:, 0, None, None] * np.eye(3)),
            "tridiag": (
                L.LinearOperatorTridiag(pm, diagonals_format="matrix"),
                np.triu(np.tril(mv, 1), -1),
            ),
        }
        for key, (op, dense) in ops.items():
            assert op.shape.as_list()[0] is None, key
            x = px if dense.shape[-1] == 3 else tw.concat([px, px], axis=1)
            xx = np.concatenate([xv] * (dense.shape[-1] // 3), axis=1)
            got = sess.run(
                [op.shape_tensor(), op.to_dense(), op.matmul(x), op.solve(x), op.log_abs_determinant()], feed
            )
            np.testing.assert_array_equal(got[0], dense.shape, err_msg=key)
            np.testing.assert_allclose(got[1], dense, rtol=1e-10, err_msg=key)
            np.testing.assert_allclose(got[2], dense @ xx, rtol=1e-10, err_msg=key)
            np.testing.assert_allclose(got[3], np.linalg.solve(dense, xx), rtol=1e-9, err_msg=key)
            np.testing.assert_allclose(got[4], np.linalg.slogdet(dense)[1], rtol=1e-10, err_msg=key)


def test_cond_and_assert_self_adjoint():
    a = _well_conditioned(3)
    spd = _spd(3)
    with tw.Graph().as_default(), tw.Session() as sess:
        np.testing.assert_allclose(sess.run(L.LinearOperatorFullMatrix(a).cond()), np.linalg.cond(a), rtol=1e-10)
        np.testing.assert_allclose(
            sess.run(L.LinearOperatorFullMatrix(spd, is_self_adjoint=True).cond()), np.linalg.cond(spd), rtol=1e-10
        )
        sess.run(L.LinearOperatorFullMatrix(spd).assert_self_adjoint())
        with pytest.raises(tw.errors.InvalidArgumentError):
            sess.run(L.LinearOperatorFullMatrix(a).assert_self_adjoint())
        sess.run(L.LinearOperatorFullMatrix(spd, is_self_adjoint=True).assert_positive_definite())
        with pytest.raises(tw.errors.InvalidArgumentError):
            sess.run(L.LinearOperatorFullMatrix(-spd, is_self_adjoint=True).assert_positive_definite())
