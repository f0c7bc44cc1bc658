"""float32 Tanh and Sigmoid (vectorized: Eigen's rational approximations, as TensorFlow) against float64 numpy,
over a dense range, the special values and a tensor large enough to be split over the intra-op pool; float64
keeps the exact libm functions."""

import numpy as np
import tensorweave as tw

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-5, 3e-4, 0.5, -2.0, 8.0, -9.5, 20.0, -100.0])


def _run(fn, x):
    with tw.Graph().as_default(), tw.Session() as sess:
        return sess.run(fn(tw.constant(x)))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_float32_tanh_and_sigmoid_agree_with_float64():
    x = np.concatenate([np.linspace(-30, 30, 200001), np.random.RandomState(0).standard_normal(70001) * 4])
    x = x.astype(np.float32)
    exact = x.astype(np.float64)
    for fn, ref in [(tw.tanh, np.tanh), (tw.sigmoid, _sigmoid)]:
        got = _run(fn, x)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, ref(exact), rtol=0, atol=5e-7, err_msg=fn.__name__)
    # tanh keeps its relative accuracy near 0 (the approximation returns x itself below 4e-4).
    small = np.float32([1e-30, -1e-8, 1e-5, -3e-4, 1e-3])
    np.testing.assert_allclose(_run(tw.tanh, small), np.tanh(small.astype(np.float64)), rtol=1e-6)


def test_special_values():
    x = SPECIAL.astype(np.float32)
    t = _run(tw.tanh, x)
    s = _run(tw.sigmoid, x)
    assert np.isnan(t[0]) and np.isnan(s[0])
    np.testing.assert_array_equal(t[1:3], [1.0, -1.0])
    np.testing.assert_array_equal(s[1:3], [1.0, 0.0])
    assert t[4] == 0 and np.signbit(t[4])
    np.testing.assert_allclose(t[3:], np.tanh(SPECIAL[3:]), rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(s[3:], _sigmoid(SPECIAL[3:]), rtol=1e-6, atol=1e-7)
    assert np.all((s[1:] >= 0) & (s[1:] <= 1)) and np.all(np.abs(t[1:]) <= 1)


def test_float64_is_exact():
    x = np.linspace(-20, 20, 4001)
    np.testing.assert_allclose(_run(tw.tanh, x), np.tanh(x), rtol=1e-15)
    np.testing.assert_allclose(_run(tw.sigmoid, x), _sigmoid(x), rtol=1e-15)


def test_denormal_results_are_zero_on_every_thread():
    """Kernels run with flush-to-zero as TensorFlow's (sigmoid(-100) and 1e-30 * 1e-10 are 0, not denormals), on
    the calling thread and on the intra-op pool's threads that share a large array (executor.cc, thread_pool.cc)."""
    n = 1 << 20
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [n])
        with tw.Session(config=tw.ConfigProto(intra_op_parallelism_threads=2)) as sess:
            s, p = sess.run([tw.sigmoid(x), x * np.float32(1e-10)], {x: np.full(n, -100.0, np.float32)})
            tiny = sess.run(x * np.float32(1e-10), {x: np.full(n, 1e-30, np.float32)})
    assert not np.any(s) and not np.any(tiny)
    np.testing.assert_array_equal(p, np.float32(-1e-8))
