"""Complex dtypes and the FFT family against TensorFlow 1 graph mode (values, static shapes, dtypes, gradients)
and numpy.fft."""

import numpy as np
import pytest

import tensorweave as tw

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

LENGTHS = [1, 2, 3, 5, 8, 12, 17, 64, 100, 1024]


def _rand(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _tw_run(build, *inputs):
    with tw.Graph().as_default(), tw.Session() as sess:
        out = build(*[tw.constant(v) for v in inputs])
        return out, sess.run(out)


def _tf_run(build, *inputs):
    with tf.Graph().as_default(), tf1.Session() as sess:
        out = build(*[tf.constant(v) for v in inputs])
        return out, sess.run(out)


def _tol(dtype):
    return 2e-4 if dtype in (np.complex64, np.float32) else 1e-10


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft_ifft_1d_numpy(n, dtype):
    x = _rand([3, n], dtype, seed=n)
    out, got = _tw_run(tw.signal.fft, x)
    assert out.dtype == tw.as_dtype(dtype) and out.shape.as_list() == [3, n]
    scale = max(1.0, np.sqrt(n))
    np.testing.assert_allclose(got, np.fft.fft(x), rtol=_tol(dtype), atol=_tol(dtype) * scale)
    _, back = _tw_run(tw.signal.ifft, x)
    np.testing.assert_allclose(back, np.fft.ifft(x), rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("n", LENGTHS)
def test_rfft_irfft_1d_numpy(n):
    x = _rand([2, n], np.float64, seed=n)
    out, got = _tw_run(lambda t: tw.signal.rfft(t), x)
    assert out.dtype == tw.complex128 and out.shape.as_list() == [2, n // 2 + 1]
    np.testing.assert_allclose(got, np.fft.rfft(x), atol=1e-9 * max(1, n))
    y = np.fft.rfft(x)
    out, back = _tw_run(lambda t: tw.signal.irfft(t, [n]), y)
    assert out.dtype == tw.float64 and out.shape.as_list() == [2, n]
    np.testing.assert_allclose(back, np.fft.irfft(y, n), atol=1e-10)


@pytest.mark.parametrize(
    "fns,shape",
    [
        (("fft2d", "ifft2d", np.fft.fft2, np.fft.ifft2), [2, 5, 8]),
        (("fft2d", "ifft2d", np.fft.fft2, np.fft.ifft2), [12, 17]),
        (
            (
                "fft3d",
                "ifft3d",
                lambda a: np.fft.fftn(a, axes=(-3, -2, -1)),
                lambda a: np.fft.ifftn(a, axes=(-3, -2, -1)),
            ),
            [2, 3, 4, 5],
        ),
    ],
)
def test_fft_nd_numpy(fns, shape):
    fwd, inv, np_fwd, np_inv = fns
    x = _rand(shape, np.complex128)
    _, got = _tw_run(getattr(tw, fwd), x)
    np.testing.assert_allclose(got, np_fwd(x), atol=1e-9)
    _, got = _tw_run(getattr(tw.spectral, inv), x)
    np.testing.assert_allclose(got, np_inv(x), atol=1e-12)


@pytest.mark.parametrize("rank,shape,length", [(2, [2, 6, 8], [6, 8]), (2, [5, 7], [4, 9]), (3, [3, 4, 5], [3, 4, 6])])
def test_rfft_irfft_nd_numpy(rank, shape, length):
    x = _rand(shape, np.float64)
    axes = tuple(range(-rank, 0))
    r = {2: tw.signal.rfft2d, 3: tw.signal.rfft3d}[rank]
    ir = {2: tw.signal.irfft2d, 3: tw.signal.irfft3d}[rank]
    out, got = _tw_run(lambda t: r(t, length), x)
    want = np.fft.rfftn(x, s=length, axes=axes)
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(got, want, atol=1e-9)
    out, back = _tw_run(lambda t: ir(t, length), want)
    np.testing.assert_allclose(back, np.fft.irfftn(want, s=length, axes=axes), atol=1e-10)


@pytest.mark.parametrize("op", ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d"])
def test_fft_against_tf(op):
    x = _rand([2, 3, 4, 6], np.complex64)
    out, got = _tw_run(getattr(tw.signal, op), x)
    tf_out, want = _tf_run(getattr(tf.signal, op), x)
    assert out.dtype.name == tf_out.dtype.name and out.shape.as_list() == tf_out.shape.as_list()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("length", [[5], [8], [12]])
def test_rfft_fft_length_crops_and_pads_as_tf(length):
    x = _rand([3, 8], np.float32)
    out, got = _tw_run(lambda t: tw.signal.rfft(t, length), x)
    tf_out, want = _tf_run(lambda t: tf.signal.rfft(t, length), x)
    assert out.shape.as_list() == tf_out.shape.as_list() and out.dtype == tw.complex64
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    y = np.fft.rfft(x).astype(np.complex64)
    _, got = _tw_run(lambda t: tw.signal.irfft(t, length), y)
    _, want = _tf_run(lambda t: tf.signal.irfft(t, length), y)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_fft_errors():
    with tw.Graph().as_default():
        with pytest.raises(TypeError):
            tw.signal.fft(tw.constant([1.0, 2.0]))
        with pytest.raises((ValueError, tw.errors.InvalidArgumentError)):
            tw.signal.fft2d(tw.constant(np.ones([4], np.complex64)))
        with pytest.raises(TypeError):
            tw.signal.rfft(tw.constant(np.ones([4], np.complex64)))
    with tw.Graph().as_default(), tw.Session() as sess:
        p = tw.placeholder(tw.complex64)
        with pytest.raises(tw.errors.InvalidArgumentError, match="rank of at least 3"):
            sess.run(tw.signal.fft3d(p), {p: np.ones([4, 4], np.complex64)})


def test_complex_parts_against_tf():
    x = _rand([3, 4], np.complex64)
    for name in ["real", "imag", "angle", "conj", "abs"]:
        out, got = _tw_run(getattr(tw, name) if name != "abs" else tw.abs, x)
        tf_out, want = _tf_run(getattr(tf.math, name), x)
        assert out.dtype.name == tf_out.dtype.name, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    re, im = np.float64([1.0, -2.0]), np.float64([0.5, 3.0])
    out, got = _tw_run(tw.complex, re, im)
    assert out.dtype == tw.complex128
    np.testing.assert_array_equal(got, re + 1j * im)
    with tw.Graph().as_default():
        with pytest.raises(TypeError):
            tw.complex(tw.constant([1, 2]), tw.constant([1, 2]))


def test_python_complex_and_feeds():
    with tw.Graph().as_default(), tw.Session() as sess:
        c = tw.constant(1 + 2j)
        assert c.dtype == tw.complex128
        p = tw.placeholder(tw.complex64, [None])
        y = p * p + p
        v = np.array([1 + 1j, 2 - 3j], np.complex64)
        np.testing.assert_allclose(sess.run(y, {p: v}), v * v + v, rtol=1e-6)
        assert sess.run(c) == 1 + 2j


def test_complex_arithmetic_and_cast_against_tf():
    a, b = _rand([2, 3], np.complex128, 1), _rand([3], np.complex128, 2)
    for fn in [
        lambda x, y: x + y,
        lambda x, y: x - y,
        lambda x, y: x * y,
        lambda x, y: x / y,
        lambda x, y: -x,
    ]:
        _, got = _tw_run(fn, a, b)
        _, want = _tf_run(fn, a, b)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    for name in ["exp", "log", "sqrt", "square", "reciprocal", "sign", "rsqrt"]:
        _, got = _tw_run(getattr(tw.math, name), a)
        _, want = _tf_run(getattr(tf.math, name), a)
        np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=name)
    for src, dst in [(a, tw.float32), (a, tw.int32), (np.float32([1.5, -2]), tw.complex64), (a, tw.complex64)]:
        _, got = _tw_run(lambda t, d=dst: tw.cast(t, d), src)
        _, want = _tf_run(lambda t, d=dst: tf.cast(t, d.name), src)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_complex_array_ops():
    a = _rand([2, 3], np.complex64)
    checks = [
        (lambda t: tw.transpose(t), lambda t: tf.transpose(t)),
        (lambda t: tw.concat([t, t], 0), lambda t: tf.concat([t, t], 0)),
        (lambda t: tw.pad(t, [[1, 0], [0, 2]]), lambda t: tf.pad(t, [[1, 0], [0, 2]])),
        (lambda t: tw.slice(t, [0, 1], [2, 2]), lambda t: tf.slice(t, [0, 1], [2, 2])),
        (lambda t: tw.gather(t, [1, 0]), lambda t: tf.gather(t, [1, 0])),
        (lambda t: tw.reshape(t, [3, 2]), lambda t: tf.reshape(t, [3, 2])),
    ]
    for mine, theirs in checks:
        _, got = _tw_run(mine, a)
        _, want = _tf_run(theirs, a)
        np.testing.assert_array_equal(got, want)


def _grads(lib, g1, build, *values):
    with lib.Graph().as_default():
        xs = [lib.constant(v) for v in values]
        loss = build(lib, *xs)
        grads = g1.gradients(loss, xs)
        with tw.Session() if lib is tw else tf1.Session() as sess:
            return sess.run(grads)


GRAD_CASES = [
    ("complex", lambda m, x, y: m.reduce_sum(m.abs(m.complex(x, y) * (1 + 2j)) ** 2), [np.float64]),
    ("real_imag", lambda m, z: m.reduce_sum(m.math.real(z) * 3.0 + m.math.imag(z) ** 2), [np.complex128]),
    ("conj", lambda m, z: m.reduce_sum(m.math.real(m.math.conj(z) * (2 - 1j))), [np.complex128]),
    ("abs", lambda m, z: m.reduce_sum(m.abs(z)), [np.complex128]),
    ("angle", lambda m, z: m.reduce_sum(m.math.angle(z)), [np.complex128]),
    ("fft", lambda m, z: m.reduce_sum(m.abs(m.signal.fft(z * (1 + 0.5j)))), [np.complex128]),
    ("ifft2d", lambda m, z: m.reduce_sum(m.math.real(m.signal.ifft2d(z)) * m.math.imag(z)), [np.complex128]),
    ("fft3d", lambda m, z: m.reduce_sum(m.math.imag(m.signal.fft3d(z)) ** 2), [np.complex128]),
    ("rfft", lambda m, x: m.reduce_sum(m.abs(m.signal.rfft(x, [5]))), [np.float64]),
    ("rfft_pad", lambda m, x: m.reduce_sum(m.math.imag(m.signal.rfft(x, [8])) ** 2), [np.float64]),
    ("irfft", lambda m, z: m.reduce_sum(m.signal.irfft(z, [6]) ** 3), [np.complex128]),
    ("irfft_odd", lambda m, z: m.reduce_sum(m.signal.irfft(z, [5]) * m.range(5.0, dtype=m.float64)), [np.complex128]),
    ("rfft2d", lambda m, x: m.reduce_sum(m.math.real(m.signal.rfft2d(x, [3, 4])) ** 2), [np.float64]),
    ("irfft2d", lambda m, z: m.reduce_sum(m.signal.irfft2d(z, [3, 4]) ** 2), [np.complex128]),
    ("cast", lambda m, z: m.reduce_sum(m.cast(z, m.float64) ** 2), [np.complex128]),
    ("matmul", lambda m, z: m.reduce_sum(m.abs(m.matmul(z, z * (1 - 2j), transpose_b=True))), [np.complex128]),
    ("matmul_adjoint", lambda m, z: m.reduce_sum(m.math.real(m.matmul(z, z + 1j, adjoint_a=True))), [np.complex128]),
    ("batch_matmul", lambda m, z: m.reduce_sum(m.abs(m.matmul(m.stack([z, z]), z, adjoint_b=True))), [np.complex128]),
    ("sum_mean", lambda m, z: m.abs(m.reduce_sum(z * z)) + m.math.imag(m.reduce_mean(z, 0)[1]), [np.complex128]),
    ("prod", lambda m, z: m.math.real(m.reduce_prod(z, 1)[0]), [np.complex128]),
    ("tanh_sigmoid", lambda m, z: m.reduce_sum(m.abs(m.tanh(z * 0.3) + m.sigmoid(z))), [np.complex128]),
    (
        "sqrt_rsqrt_recip",
        lambda m, z: m.reduce_sum(m.abs(m.sqrt(z) + m.math.rsqrt(z) + m.math.reciprocal(z))),
        [np.complex128],
    ),
    ("pow", lambda m, z: m.reduce_sum(m.abs(m.pow(z, z * 0.5))), [np.complex128]),
]


@pytest.mark.parametrize("name,build,dtypes_", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_against_tf(name, build, dtypes_):
    shape = [3, 3] if name not in ("fft3d",) else [2, 3, 4]
    values = [_rand(shape, dtypes_[0], seed=7 + i) for i in range(2 if name == "complex" else 1)]
    got = _grads(tw, tw, build, *values)
    want = _grads(tf, tf1, build, *values)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9, err_msg=name)


def test_complex_matmul_reductions_and_unary_against_numpy():
    a, b = _rand([3, 4], np.complex64, 1), _rand([4, 2], np.complex64, 2)
    batch = _rand([2, 3, 4], np.complex128, 3)
    checks = [
        (lambda x, y: tw.matmul(x, y), a @ b),
        (lambda x, y: tw.matmul(y, x, transpose_a=True, transpose_b=True), b.T @ a.T),
        (lambda x, y: tw.matmul(x, x, adjoint_a=True), a.conj().T @ a),
        (lambda x, y: tw.matmul(x, x, adjoint_b=True), a @ a.conj().T),
        (lambda x, y: tw.reduce_sum(x, 1), a.sum(1)),
        (lambda x, y: tw.reduce_mean(x), a.mean()),
        (lambda x, y: tw.reduce_prod(y, 0, keepdims=True), b.prod(0, keepdims=True)),
        (lambda x, y: tw.tanh(x), np.tanh(a)),
        (lambda x, y: tw.sigmoid(x), 1 / (1 + np.exp(-a))),
        (lambda x, y: tw.pow(x, tw.constant(0.5 + 1j, tw.complex64)), a ** (0.5 + 1j)),
    ]
    for build, want in checks:
        _, got = _tw_run(build, a, b)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    for kwargs, want in [
        ({}, batch @ batch.transpose(0, 2, 1)),
        ({"transpose_b": True}, batch @ batch.transpose(0, 2, 1)),
        ({"adjoint_b": True}, batch @ batch.conj().transpose(0, 2, 1)),
    ]:
        other = batch if kwargs else batch.transpose(0, 2, 1)
        _, got = _tw_run(lambda x, y, k=kwargs: tw.matmul(x, y, **k), batch, other)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    _, empty_mean = _tw_run(lambda x: tw.reduce_mean(x, 0), np.zeros([0, 2], np.complex64))
    assert np.isnan(empty_mean.real).all() and np.isnan(empty_mean.imag).all()
    with tw.Graph().as_default(), pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a"):
        tw.matmul(a, a, transpose_a=True, adjoint_a=True)


def test_complex_max_is_rejected():
    with tw.Graph().as_default(), tw.Session() as sess:
        with pytest.raises((TypeError, tw.errors.InvalidArgumentError)):
            sess.run(tw.reduce_max(tw.constant([1 + 1j])))


def test_real_complex_pairs_other_than_tensorflows_are_errors():
    from tensorweave._src.ops import gen_ops

    with tw.Graph().as_default(), tw.Session() as sess:
        z = tw.constant([1 + 2j], tw.complex128)
        bad = gen_ops.wrapper("Real")(z, Tout=tw.float32)
        with pytest.raises(tw.errors.InvalidArgumentError, match="double/complex128"):
            sess.run(bad)
