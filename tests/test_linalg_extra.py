"""tf.linalg.expm / sqrtm / tridiagonal_solve / tridiagonal_matmul / eigh_tridiagonal against scipy and numpy,
their gradients against central differences, and their errors."""

import numpy as np
import pytest
import scipy.linalg
import tensorweave as tw

RNG = np.random.RandomState(7)


def _run(fn, *args):
    with tw.Graph().as_default(), tw.Session() as sess:
        return sess.run(fn(*args))


def _numeric_jacobian(f, x, eps=1e-6):
    """d sum(w * f(x)) / dx by central differences, w fixed random weights."""
    base = f(x)
    w = np.random.RandomState(3).randn(*base.shape)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        grad[idx] = np.sum(w * (f(xp) - f(xm))) / (2 * eps)
    return w, grad


def _check_gradient(build, x, rtol=1e-5, atol=1e-7):
    """Compares tw.gradients of sum(w * build(x)) with central differences of the same graph's value."""
    with tw.Graph().as_default(), tw.Session() as sess:
        ph = tw.placeholder(tw.float64, x.shape)
        y = build(ph)

        def f(v):
            return sess.run(y, {ph: v})

        w, numeric = _numeric_jacobian(f, x)
        (g,) = tw.gradients(tw.reduce_sum(y * w), [ph])
        np.testing.assert_allclose(sess.run(g, {ph: x}), numeric, rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------------ expm
@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-4), (np.float64, 1e-11)])
@pytest.mark.parametrize("scale", [1e-3, 0.1, 0.7, 2.0, 8.0, 40.0])
def test_expm_matches_scipy(dtype, rtol, scale):
    a = (RNG.randn(3, 4, 4) * scale).astype(dtype)
    got = _run(tw.linalg.expm, a)
    assert got.dtype == dtype and got.shape == a.shape
    want = np.stack([scipy.linalg.expm(m.astype(np.float64)) for m in a])
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())


def test_expm_batch_of_mixed_norms_and_identities():
    a = np.stack([np.zeros((3, 3)), 30 * RNG.randn(3, 3), np.diag([1.0, 2.0, 3.0])])
    got = _run(tw.linalg.expm, a)
    np.testing.assert_allclose(got[0], np.eye(3), atol=1e-15)
    np.testing.assert_allclose(got[1], scipy.linalg.expm(a[1]), rtol=1e-9)
    np.testing.assert_allclose(got[2], np.diag(np.exp([1.0, 2.0, 3.0])), rtol=1e-12)


def test_expm_unknown_batch_and_non_finite_and_empty():
    a = RNG.randn(2, 2, 3, 3)
    with tw.Graph().as_default(), tw.Session() as sess:
        ph = tw.placeholder(tw.float64, [None, None, 3, 3])
        out = tw.linalg.expm(ph)
        got = sess.run(out, {ph: a})
        np.testing.assert_allclose(got[1, 0], scipy.linalg.expm(a[1, 0]), rtol=1e-10)
        bad = a.copy()
        bad[0, 0, 0, 0] = np.inf
        assert np.isnan(sess.run(out, {ph: bad})).all()
        assert sess.run(tw.linalg.expm(np.zeros((2, 0, 0)))).shape == (2, 0, 0)


def test_expm_gradient():
    _check_gradient(tw.linalg.expm, RNG.randn(3, 3) * 0.3)
    _check_gradient(tw.linalg.expm, RNG.randn(2, 3, 3) * 2.0, rtol=1e-4)
    # Norms past the Pade-13 threshold: the gradient flows through the scaling and the squaring loop.
    big = RNG.randn(2, 3, 3) * 6.0
    with tw.Graph().as_default(), tw.Session() as sess:
        l1_norms = sess.run(tw.reduce_max(tw.reduce_sum(tw.abs(big), axis=-2), axis=-1))
    assert (l1_norms > 2 * 5.371920351148152).all()  # at least one squaring each
    _check_gradient(tw.linalg.expm, big, rtol=1e-4, atol=1e-4)


def test_expm_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="does not support"):
            tw.linalg.expm(np.eye(2, dtype=np.int32))
        with pytest.raises(ValueError, match="square"):
            tw.linalg.expm(np.ones((2, 3)))


# ------------------------------------------------------------------------------------------------ sqrtm
def test_sqrtm_matches_scipy():
    spd = RNG.randn(2, 4, 4)
    spd = spd @ np.swapaxes(spd, -1, -2) + 0.5 * np.eye(4)
    general = RNG.randn(4, 4) + 5 * np.eye(4)
    rotation = np.array([[np.cos(1.0), -np.sin(1.0)], [np.sin(1.0), np.cos(1.0)]])  # complex eigenvalues
    for a in [spd, general, rotation]:
        got = _run(tw.linalg.sqrtm, a)
        want = np.stack([scipy.linalg.sqrtm(m).real for m in a.reshape(-1, *a.shape[-2:])]).reshape(a.shape)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(got @ got, a, rtol=1e-9, atol=1e-10)
    got32 = _run(tw.matrix_square_root, spd.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, np.stack([scipy.linalg.sqrtm(m).real for m in spd]), rtol=1e-4, atol=1e-5)


def test_sqrtm_negative_eigenvalue_is_nan_and_errors():
    assert np.isnan(_run(tw.linalg.sqrtm, np.diag([-4.0, 9.0]))).all()
    # Per matrix: a negative eigenvalue or a singular matrix gives NaNs for that matrix only.
    good = np.array([[2.0, 1.0], [1.0, 2.0]])
    batch = np.stack([np.diag([-4.0, 9.0]), good, np.zeros((2, 2)), np.diag([1.0, 0.0]), 4.0 * good])
    got = _run(tw.linalg.sqrtm, batch)
    assert np.isnan(got[[0, 2, 3]]).all()
    np.testing.assert_allclose(got[1], scipy.linalg.sqrtm(good).real, rtol=1e-12)
    np.testing.assert_allclose(got[4], 2.0 * scipy.linalg.sqrtm(good).real, rtol=1e-12)
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="square"):
            tw.linalg.sqrtm(np.ones((2, 3)))
        with pytest.raises(TypeError):
            tw.linalg.sqrtm(np.eye(2, dtype=np.int32))


def test_sqrtm_gradient():
    a = RNG.randn(3, 3)
    _check_gradient(tw.linalg.sqrtm, a @ a.T + np.eye(3), rtol=1e-4, atol=1e-6)


# ------------------------------------------------------------------------------------------------ tridiagonal
def _dense_of_compact(d):
    return np.diag(d[1]) + np.diag(d[0, :-1], 1) + np.diag(d[2, 1:], -1)


def test_tridiagonal_solve_formats_and_options():
    d = RNG.randn(2, 3, 5) + np.array([[0], [4], [0]])
    rhs = RNG.randn(2, 5, 3)
    dense = np.stack([_dense_of_compact(x) for x in d])
    want = np.linalg.solve(dense, rhs)
    seq = [d[:, 0, :-1], d[:, 1], d[:, 2, 1:]]
    seq_full = [d[:, 0], d[:, 1], d[:, 2]]
    s = tw.linalg.tridiagonal_solve
    with tw.Graph().as_default(), tw.Session() as sess:
        got = sess.run(
            {
                "compact": s(d, rhs),
                "sequence": s(seq, rhs, diagonals_format="sequence"),
                "sequence_full": s(seq_full, rhs, diagonals_format="sequence"),
                "matrix": s(dense + np.triu(np.ones((5, 5)), 2), rhs, diagonals_format="matrix"),
                "transpose": s(d, np.swapaxes(rhs, -1, -2), transpose_rhs=True),
                "vector": s(d, rhs[..., 0]),
                "no_pivot": s(d, rhs, partial_pivoting=False),
            }
        )
    for key in ["compact", "sequence", "sequence_full", "matrix", "transpose", "no_pivot"]:
        np.testing.assert_allclose(got[key], want, rtol=1e-10, err_msg=key)
    np.testing.assert_allclose(got["vector"], want[..., 0], rtol=1e-10)


def test_tridiagonal_solve_pivoting_and_singular():
    f32 = np.float32
    zero_first_pivot = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [0.0, 1.0, 1.0]], f32)
    singular = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]], f32)
    ones = np.ones((3, 1), f32)
    s = tw.linalg.tridiagonal_solve
    with tw.Graph().as_default(), tw.Session() as sess:
        pivoted, unpivoted, sing = sess.run(
            [s(zero_first_pivot, ones), s(zero_first_pivot, ones, partial_pivoting=False), s(singular, ones)]
        )
        # A batch keeps its good entries.
        batch = sess.run(s(np.stack([singular, zero_first_pivot]), np.stack([ones, ones])))
    np.testing.assert_allclose(pivoted.ravel(), [-1.0, 1.0, 0.0], atol=1e-6)
    assert np.isnan(unpivoted).all() and np.isnan(sing).all()
    assert np.isnan(batch[0]).all()
    np.testing.assert_allclose(batch[1].ravel(), [-1.0, 1.0, 0.0], atol=1e-6)


def test_tridiagonal_solve_gradient():
    d = RNG.randn(3, 4) + np.array([[0], [4], [0]])
    rhs = RNG.randn(4, 2)
    _check_gradient(lambda t: tw.linalg.tridiagonal_solve(t, rhs), d)
    _check_gradient(lambda t: tw.linalg.tridiagonal_solve(d, t), rhs)


def test_tridiagonal_solve_errors():
    s = tw.linalg.tridiagonal_solve
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Expected 3 diagonals got 4"):
            s(np.ones((4, 3)), np.ones((3, 1)))
        with pytest.raises(ValueError, match="got 3 and 4"):
            s(np.ones((3, 3)), np.ones((4, 1)))
        with pytest.raises(ValueError, match="length 3"):
            s([np.ones(3), np.ones(3)], np.ones((3, 1)), diagonals_format="sequence")
        with pytest.raises(ValueError, match="Unrecognized diagonals_format"):
            s(np.ones((3, 3)), np.ones((3, 1)), diagonals_format="banded")
        with pytest.raises(ValueError, match="partial_pivoting must be True"):
            s(np.ones((3, 3)), np.ones((3, 1)), partial_pivoting=False, perturb_singular=True)
        with pytest.raises(TypeError, match="does not match"):
            s(np.ones((3, 3), np.float32), tw.constant(np.ones((3, 1), np.float64)))
        with pytest.raises(TypeError):
            s(np.ones((3, 3), np.int32), np.ones((3, 1), np.int32))
        with pytest.raises(ValueError, match="same, got 3 and 4"):
            s(np.ones((4, 3)), np.ones((3, 1)), diagonals_format="matrix")


def test_tridiagonal_matmul_formats_and_gradient():
    d = RNG.randn(2, 3, 4)
    rhs = RNG.randn(2, 4, 3)
    dense = np.stack([_dense_of_compact(x) for x in d])
    m = tw.linalg.tridiagonal_matmul
    with tw.Graph().as_default(), tw.Session() as sess:
        got = sess.run(
            [
                m(d, rhs),
                m([d[:, 0], d[:, 1], d[:, 2]], rhs, diagonals_format="sequence"),
                m(dense + np.triu(np.ones((4, 4)), 2), rhs, diagonals_format="matrix"),
            ]
        )
    for value in got:
        np.testing.assert_allclose(value, dense @ rhs, rtol=1e-12)
    _check_gradient(lambda t: tw.linalg.tridiagonal_matmul(t, rhs[0]), d[0])
    _check_gradient(lambda t: tw.linalg.tridiagonal_matmul(d[0], t), rhs[0])
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Unrecognized diagonals_format"):
            m(d, rhs, diagonals_format="banded")
        with pytest.raises(TypeError):
            m(np.ones((3, 3), np.int32), np.ones((3, 1), np.int32))


def test_eigh_tridiagonal():
    alpha, beta = RNG.randn(5), RNG.randn(4)
    dense = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    want = np.linalg.eigvalsh(dense)
    e = tw.linalg.eigh_tridiagonal
    with tw.Graph().as_default(), tw.Session() as sess:
        values, (w, v), by_index, by_value = sess.run(
            [
                e(alpha, beta),
                e(alpha, beta, eigvals_only=False),
                e(alpha, beta, select="i", select_range=(1, 3)),
                e(alpha, beta, select="v", select_range=(want[1] - 1e-6, want[3] + 1e-6)),
            ]
        )
        with pytest.raises(ValueError, match="same type"):
            e(alpha, beta.astype(np.float32))
        with pytest.raises(ValueError, match="select"):
            e(alpha, beta, select="x")
    np.testing.assert_allclose(values, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dense @ v, v * w, atol=1e-10)
    np.testing.assert_allclose(by_index, want[1:4], rtol=1e-10)
    np.testing.assert_allclose(by_value, want[1:4], rtol=1e-10)
