"""tf.linalg.logm and tf.linalg.LinearOperatorCirculant / 2D / 3D (issue 16).

logm is checked against scipy.linalg.logm and TensorFlow (both skipped where missing) and by expm(logm(A)) = A;
the circulant operators against the dense circulant matrices built here from the definition (numpy FFTs) and
against TensorFlow's operators, for every method, hint and failure path."""

import numpy as np
import pytest
import tensorweave as tw


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed)


_TF1 = None


def _tf1():
    global _TF1
    if _TF1 is None:
        tf1 = pytest.importorskip("tensorflow.compat.v1")
        tf1.disable_eager_execution()
        _TF1 = tf1
    return _TF1


def _tf_run(build):
    tf1 = _tf1()
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        return sess.run(build(tf1))


def _random_complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# ------------------------------------------------------------------------------------------------ logm
@pytest.mark.parametrize("dtype,rtol", [(np.complex128, 1e-10), (np.complex64, 2e-4)])
def test_logm_matches_scipy_batched(dtype, rtol):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(0)
    # Near the identity, a rotation-like matrix, a non-normal one and a real matrix with a negative eigenvalue.
    mats = np.stack(
        [
            np.eye(4) + 0.3 * _random_complex(rng, (4, 4)),
            2.0 * np.eye(4) + _random_complex(rng, (4, 4)),
            np.triu(_random_complex(rng, (4, 4))) + 3 * np.eye(4),
            np.diag([-1.0, 2.0, 0.5, 3.0]) + 0.1 * rng.standard_normal((4, 4)),
        ]
    ).reshape(2, 2, 4, 4)
    got = _run(tw.linalg.logm(tw.constant(mats.astype(dtype))))
    assert got.dtype == dtype and got.shape == (2, 2, 4, 4)
    want = np.stack([scipy_linalg.logm(m) for m in mats.reshape(4, 4, 4)]).reshape(2, 2, 4, 4)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 10)
    # exp of the logarithm is the matrix again.
    back = np.stack([scipy_linalg.expm(m) for m in got.reshape(4, 4, 4).astype(np.complex128)]).reshape(mats.shape)
    np.testing.assert_allclose(back, mats, rtol=rtol * 10, atol=rtol * 10)


def test_logm_matches_tensorflow():
    rng = np.random.default_rng(1)
    mats = (np.eye(5) + 0.5 * _random_complex(rng, (3, 5, 5))).astype(np.complex128)
    got = _run(tw.linalg.logm(mats))
    want = _tf_run(lambda tf: tf.linalg.logm(mats))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_logm_shapes_names_and_empty():
    x = tw.linalg.logm(tw.zeros([3, 0, 0], tw.complex64))
    assert x.op.type == "MatrixLogarithm" and x.shape.as_list() == [3, 0, 0]
    assert _run(x).shape == (3, 0, 0)
    ph = tw.placeholder(tw.complex128, [None, 2, 2])
    y = tw.linalg.logm(ph, name="mylog")
    assert y.name == "mylog:0" and y.shape.as_list() == [None, 2, 2]
    v = _run(y, {ph: np.array([[[np.e, 0], [0, np.e**2]]], np.complex128)})
    np.testing.assert_allclose(v, [[[1, 0], [0, 2]]], atol=1e-14)


def test_logm_errors():
    with pytest.raises(TypeError, match="complex64, complex128"):
        tw.linalg.logm(tw.constant([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError):
        tw.linalg.logm(tw.zeros([2, 3], tw.complex64))
    with pytest.raises(ValueError):
        tw.linalg.logm(tw.zeros([3], tw.complex64))
    # No logarithm: a zero eigenvalue (Eigen's square roots would never approach the identity) or a non-finite
    # entry.
    singular = np.zeros((3, 3), np.complex128)
    with pytest.raises(tw.errors.InvalidArgumentError, match="singular"):
        _run(tw.linalg.logm(singular))
    with pytest.raises(tw.errors.InvalidArgumentError, match="non-finite"):
        _run(tw.linalg.logm(np.array([[1.0, np.nan], [0.0, 1.0]], np.complex64)))
    # TensorFlow registers no gradient for MatrixLogarithm: a LookupError as there.
    ph = tw.placeholder(tw.complex64, [2, 2])
    with pytest.raises(LookupError):
        tw.gradients(tw.math.real(tw.reduce_sum(tw.linalg.logm(ph))), ph)


# ------------------------------------------------------------------------------------------- circulant
def _dense_circulant(spectrum, depth):
    """The dense [[nested] block] circulant matrix of a spectrum, from the definition: column j is the
    operator applied to the j-th unit vector, IFFT(spectrum * FFT(e_j)) over the block dims."""
    spectrum = np.asarray(spectrum)
    block = spectrum.shape[-depth:]
    n = int(np.prod(block))
    axes = tuple(range(-depth, 0))
    eye = np.eye(n).reshape((n,) + block)
    cols = np.fft.ifftn(_expand(spectrum, depth) * np.fft.fftn(eye, axes=axes), axes=axes)
    # cols: [..., n(columns), *block] -> [..., n(rows), n(columns)]
    cols = cols.reshape(cols.shape[:-depth] + (n,))
    return np.swapaxes(cols, -1, -2)


def _expand(spectrum, depth):
    """spectrum [..., *block] -> [..., 1, *block] (broadcast over the unit vectors)."""
    return np.expand_dims(spectrum, axis=spectrum.ndim - depth)


def _hermitian_spectrum(rng, batch, block):
    """The spectrum of a real kernel: its FFT (so the operator is a real matrix)."""
    kernel = rng.standard_normal(tuple(batch) + tuple(block))
    return np.fft.fftn(kernel, axes=tuple(range(-len(block), 0)))


OPERATORS = [
    ("LinearOperatorCirculant", 1, (3,), (4,)),
    ("LinearOperatorCirculant2D", 2, (2,), (2, 3)),
    ("LinearOperatorCirculant3D", 3, (), (2, 2, 3)),
]


@pytest.mark.parametrize("cls,depth,batch,block", OPERATORS)
def test_circulant_methods_match_the_dense_matrix(cls, depth, batch, block):
    rng = np.random.default_rng(depth)
    spectrum = (_random_complex(rng, batch + block) + 3.0).astype(np.complex128)
    dense = _dense_circulant(spectrum, depth)
    n = int(np.prod(block))
    op = getattr(tw.linalg, cls)(tw.constant(spectrum), input_output_dtype=tw.complex128)
    x = _random_complex(rng, batch + (n, 2))
    assert op.shape.as_list() == list(batch) + [n, n] and op.block_depth == depth
    assert op.block_shape.as_list() == list(block) and op.dtype == tw.complex128
    assert op.is_square is True and op.is_self_adjoint is None
    fetches = {
        "dense": op.to_dense(),
        "matmul": op.matmul(x),
        "matmul_adj": op.matmul(x, adjoint=True),
        "matmul_adj_arg": op.matmul(np.conj(np.swapaxes(x, -1, -2)), adjoint_arg=True),
        "matvec": op.matvec(x[..., 0]),
        "solve": op.solve(x),
        "solve_adj": op.solve(x, adjoint=True),
        "solvevec": op.solvevec(x[..., 0]),
        "det": op.determinant(),
        "lad": op.log_abs_determinant(),
        "diag": op.diag_part(),
        "trace": op.trace(),
        "kernel": op.convolution_kernel(),
        "block_shape": op.block_shape_tensor(),
        "shape": op.shape_tensor(),
        "adjoint": op.adjoint().to_dense(),
        "inverse": op.inverse().to_dense(),
    }
    got = _run(fetches)
    adj = np.conj(np.swapaxes(dense, -1, -2))
    tol = {"rtol": 1e-10, "atol": 1e-10}
    np.testing.assert_allclose(got["dense"], dense, **tol)
    np.testing.assert_allclose(got["matmul"], dense @ x, **tol)
    np.testing.assert_allclose(got["matmul_adj"], adj @ x, **tol)
    np.testing.assert_allclose(got["matmul_adj_arg"], dense @ x, **tol)
    np.testing.assert_allclose(got["matvec"], (dense @ x)[..., 0], **tol)
    np.testing.assert_allclose(got["solve"], np.linalg.solve(dense, x), **tol)
    np.testing.assert_allclose(got["solve_adj"], np.linalg.solve(adj, x), **tol)
    np.testing.assert_allclose(got["solvevec"], np.linalg.solve(dense, x)[..., 0], **tol)
    np.testing.assert_allclose(got["det"], np.linalg.det(dense), rtol=1e-9)
    np.testing.assert_allclose(got["lad"], np.linalg.slogdet(dense)[1], rtol=1e-10)
    np.testing.assert_allclose(got["diag"], np.diagonal(dense, axis1=-2, axis2=-1), **tol)
    np.testing.assert_allclose(got["trace"], np.trace(dense, axis1=-2, axis2=-1), **tol)
    np.testing.assert_allclose(got["kernel"], np.fft.ifftn(spectrum, axes=tuple(range(-depth, 0))), **tol)
    assert list(got["block_shape"]) == list(block) and list(got["shape"]) == list(batch) + [n, n]
    np.testing.assert_allclose(got["adjoint"], adj, **tol)
    np.testing.assert_allclose(got["inverse"], np.linalg.inv(dense), **tol)


def test_circulant_real_operator_from_a_hermitian_spectrum():
    rng = np.random.default_rng(5)
    spectrum = _hermitian_spectrum(rng, (2,), (5,)) + 4.0
    dense = _dense_circulant(spectrum, 1)
    assert np.abs(dense.imag).max() < 1e-12
    op = tw.linalg.LinearOperatorCirculant(spectrum, input_output_dtype=tw.float64)
    x = rng.standard_normal((2, 5, 3))
    got = _run({"dense": op.to_dense(), "matmul": op.matmul(x), "solve": op.solve(x), "det": op.determinant()})
    assert got["dense"].dtype == np.float64 and got["det"].dtype == np.float64
    np.testing.assert_allclose(got["dense"], dense.real, atol=1e-12)
    np.testing.assert_allclose(got["matmul"], dense.real @ x, atol=1e-12)
    np.testing.assert_allclose(got["solve"], np.linalg.solve(dense.real, x), atol=1e-12)
    np.testing.assert_allclose(got["det"], np.linalg.det(dense.real), rtol=1e-10)
    _run(op.assert_hermitian_spectrum())
    bad = tw.linalg.LinearOperatorCirculant(spectrum + 1j, input_output_dtype=tw.float64)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Spectrum was not Hermitian"):
        _run(bad.assert_hermitian_spectrum())


def test_circulant_real_spectrum_is_self_adjoint_and_batches_broadcast():
    spectrum = np.array([[4.0, 1.0, 2.0, 1.0], [3.0, -1.0, 5.0, -1.0]])  # real and Hermitian: a symmetric matrix
    op = tw.linalg.LinearOperatorCirculant(spectrum.astype(np.float32), input_output_dtype=tw.float32)
    assert op.is_self_adjoint is True and op.adjoint() is op
    with pytest.raises(ValueError, match="real spectrum always corresponds to a self-adjoint"):
        tw.linalg.LinearOperatorCirculant(spectrum, is_self_adjoint=False)
    x = np.arange(12.0, dtype=np.float32).reshape(3, 1, 4, 1)  # batch [3, 1] against the operator's [2]
    dense = _dense_circulant(spectrum, 1).real
    got = _run({"y": op.matmul(x), "eig": op.eigvals(), "cond": op.cond()})
    np.testing.assert_allclose(got["y"], np.matmul(dense, x), rtol=1e-5, atol=1e-4)
    assert got["y"].shape == (3, 2, 4, 1)
    np.testing.assert_allclose(np.sort(got["eig"], -1), np.sort(spectrum, -1), rtol=1e-6)
    np.testing.assert_allclose(got["cond"], np.abs(spectrum).max(-1) / np.abs(spectrum).min(-1), rtol=1e-6)


def test_circulant_asserts_and_hints():
    op = tw.linalg.LinearOperatorCirculant([1.0 + 0j, 0.0, 2.0], is_non_singular=True)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Spectrum contained zero values"):
        _run(op.assert_non_singular())
    op = tw.linalg.LinearOperatorCirculant([1.0 + 0j, -1.0, 2.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="Real part of spectrum was not all positive"):
        _run(op.assert_positive_definite())
    op = tw.linalg.LinearOperatorCirculant([1.0 + 1j, 1.0, 2.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="non-zero imaginary part"):
        _run(op.assert_self_adjoint())
    ok = tw.linalg.LinearOperatorCirculant([1.0 + 0j, 2.0, 2.0])
    _run([ok.assert_non_singular(), ok.assert_positive_definite(), ok.assert_self_adjoint()])


def test_circulant_construction_errors():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        tw.linalg.LinearOperatorCirculant2D([1.0, 2.0])
    with pytest.raises(ValueError, match="always square"):
        tw.linalg.LinearOperatorCirculant([1.0, 2.0], is_square=False)
    with pytest.raises(TypeError, match="spectrum must have dtype"):
        tw.linalg.LinearOperatorCirculant(tw.constant([1, 2]))
    op = tw.linalg.LinearOperatorCirculant([1.0 + 0j, 2.0])
    with pytest.raises(TypeError, match="Expected argument to have dtype"):
        op.matmul(tw.ones([2, 1], tw.float32))
    with pytest.raises(ValueError):
        op.matmul(tw.ones([3, 1], tw.complex64))


def test_circulant_unknown_shapes():
    ph = tw.placeholder(tw.complex128, [None, None, None])
    op = tw.linalg.LinearOperatorCirculant2D(ph, input_output_dtype=tw.complex128)
    assert op.shape.as_list() == [None, None, None]
    x = tw.placeholder(tw.complex128, [None, None, 2])
    rng = np.random.default_rng(3)
    spectrum = _random_complex(rng, (2, 2, 3)) + 3
    xv = _random_complex(rng, (2, 6, 2))
    dense = _dense_circulant(spectrum, 2)
    got = _run([op.matmul(x), op.to_dense(), op.shape_tensor()], {ph: spectrum, x: xv})
    np.testing.assert_allclose(got[0], dense @ xv, atol=1e-10)
    np.testing.assert_allclose(got[1], dense, atol=1e-10)
    assert list(got[2]) == [2, 6, 6]


@pytest.mark.parametrize(
    "cls,depth", [("LinearOperatorCirculant", 1), ("LinearOperatorCirculant2D", 2), ("LinearOperatorCirculant3D", 3)]
)
def test_circulant_matches_tensorflow(cls, depth):
    rng = np.random.default_rng(10 + depth)
    block = (3, 2, 2)[:depth]
    spectrum = _hermitian_spectrum(rng, (2,), block).astype(np.complex64) + 2
    n = int(np.prod(block))
    x = rng.standard_normal((2, n, 3)).astype(np.float32)

    def build(m):
        op = getattr(m.linalg, cls)(m.constant(spectrum), input_output_dtype=m.float32)
        return [
            op.to_dense(),
            op.matmul(x),
            op.solve(x),
            op.determinant(),
            op.log_abs_determinant(),
            op.diag_part(),
            op.trace(),
            op.convolution_kernel(),
            op.shape_tensor(),
        ]

    got, want = _run(build(tw)), _tf_run(build)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
