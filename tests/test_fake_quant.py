"""Fake quantization (tw.quantization.fake_quant_with_min_max_*): values and gradients against TensorFlow where it is
installed (against a numpy transcription of TF's nudging otherwise), and the errors for bad ranges and shapes."""

import numpy as np
import pytest
import tensorweave as tw

X = np.array([-7.0, -1.0, -0.3, 0.0, 0.2, 0.26, 1.7, 2.5, 3.14, 6.1, np.nan, np.inf, -np.inf], np.float32)


def nudged(lo, hi, num_bits, narrow_range):
    """numpy transcription of TensorFlow's Nudge (float32 arithmetic)."""
    f = np.float32
    qmin, qmax = f(1 if narrow_range else 0), f(2**num_bits - 1)
    scale = (f(hi) - f(lo)) / (qmax - qmin)
    inv = (qmax - qmin) / (f(hi) - f(lo))
    zero = qmin - f(lo) / scale
    zero = qmin if zero < qmin else qmax if zero > qmax else f(np.floor(zero + f(0.5)))
    nmin, nmax = (qmin - zero) * scale, (qmax - zero) * scale
    return nmin, nmax, scale, inv


def oracle(x, lo, hi, num_bits=8, narrow_range=False):
    nmin, nmax, scale, inv = nudged(lo, hi, num_bits, narrow_range)
    qzero = np.floor(-nmin * inv + np.float32(0.5))
    clamped = np.where(np.isnan(x), x, np.clip(x, nmin, nmax)).astype(np.float32)
    return (np.floor((clamped - nmin) * inv - qzero + np.float32(0.5)) * scale).astype(np.float32)


def run(fetches, feed=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed)


def tf1():
    tf = pytest.importorskip("tensorflow")
    tf.compat.v1.disable_eager_execution()
    return tf.compat.v1


def run_tf(build):
    tf = tf1()
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            return sess.run(fetches)


RANGES = [
    (-6.0, 6.0, 8, False),
    (-1.0, 2.5, 4, False),
    (-1.0, 2.5, 8, True),
    (0.5, 3.0, 8, False),
    (-3.0, -0.5, 7, True),
]


@pytest.mark.parametrize("lo,hi,bits,narrow", RANGES)
def test_args_values_and_gradient_match_tensorflow(lo, hi, bits, narrow):
    kw = {"min": lo, "max": hi, "num_bits": bits, "narrow_range": narrow}
    x = tw.constant(X)
    y = tw.fake_quant_with_min_max_args(x, **kw)
    assert y.op.type == "FakeQuantWithMinMaxArgs" and y.shape.as_list() == [len(X)]
    (g,) = tw.gradients(y, [x], grad_ys=tw.constant(np.arange(len(X), dtype=np.float32)))
    got = run([y, g])
    np.testing.assert_array_equal(got[0], oracle(X, lo, hi, bits, narrow))

    def build(tf):
        t = tf.constant(X)
        ty = tf.fake_quant_with_min_max_args(t, **kw)
        return [ty, tf.gradients(ty, [t], grad_ys=tf.constant(np.arange(len(X), dtype=np.float32)))[0]]

    want = run_tf(build)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("lo,hi,bits,narrow", RANGES + [(0.0, 0.0, 8, False)])
def test_vars_values_and_gradients_match_tensorflow(lo, hi, bits, narrow):
    grad_ys = np.linspace(-1, 2, len(X)).astype(np.float32)

    def build(ns):
        x = ns.constant(X)
        mn, mx = ns.constant(lo), ns.constant(hi)
        y = ns.fake_quant_with_min_max_vars(x, mn, mx, num_bits=bits, narrow_range=narrow)
        return [y] + ns.gradients(y, [x, mn, mx], grad_ys=ns.constant(grad_ys))

    got = run(build(tw))
    want = run_tf(build)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=0)


def test_per_channel_values_and_gradients_match_tensorflow():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 5, 3)) * 3).astype(np.float32)
    lo, hi = np.array([-1.0, 0.0, -3.0], np.float32), np.array([1.0, 5.0, 2.0], np.float32)
    grad_ys = rng.standard_normal(x.shape).astype(np.float32)

    def build(ns):
        tx, tlo, thi = ns.constant(x), ns.constant(lo), ns.constant(hi)
        y = ns.fake_quant_with_min_max_vars_per_channel(tx, tlo, thi, num_bits=6, narrow_range=True)
        return [y] + ns.gradients(y, [tx, tlo, thi], grad_ys=ns.constant(grad_ys))

    fetches = build(tw)
    assert fetches[0].op.type == "FakeQuantWithMinMaxVarsPerChannel"
    assert [f.shape.as_list() for f in fetches] == [[2, 5, 3], [2, 5, 3], [3], [3]]
    got = run(fetches)
    for c in range(3):
        np.testing.assert_array_equal(got[0][..., c], oracle(x[..., c], lo[c], hi[c], 6, True))
    want = run_tf(build)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_quantization_module_and_explicit_gradient_ops():
    x = tw.constant([-7.0, 0.5, 9.0])
    g = tw.quantization.fake_quant_with_min_max_args_gradient(tw.ones([3]), x)
    dx, dmin, dmax = tw.quantization.fake_quant_with_min_max_vars_gradient(tw.ones([3]), x, -6.0, 6.0)
    assert g.op.type == "FakeQuantWithMinMaxArgsGradient" and dx.op.type == "FakeQuantWithMinMaxVarsGradient"
    pc = tw.quantization.fake_quant_with_min_max_vars_per_channel_gradient(tw.ones([1, 3]), [x], [-6.0] * 3, [6.0] * 3)
    assert pc[0].op.type == "FakeQuantWithMinMaxVarsPerChannelGradient"
    assert [t.shape.as_list() for t in pc] == [[1, 3], [3], [3]]
    np.testing.assert_array_equal(run(pc[2]), [0, 0, 1])
    got = run([g, dx, dmin, dmax])
    np.testing.assert_array_equal(got[0], [0, 1, 0])
    np.testing.assert_array_equal(got[1], [0, 1, 0])
    assert got[2] == 1.0 and got[3] == 1.0


@pytest.mark.parametrize(
    "kw,message",
    [
        ({"min": 3.0, "max": 2.0}, "min has to be smaller than max"),
        ({"min": 0.0, "max": 0.0}, "min has to be smaller than max"),
        ({"num_bits": 1}, "num_bits is out of range"),
        ({"num_bits": 17}, "num_bits is out of range"),
    ],
)
def test_bad_attrs_are_invalid_argument_naming_the_node(kw, message):
    y = tw.fake_quant_with_min_max_args(tw.constant([1.0]), name="fq", **kw)
    with pytest.raises(tw.errors.InvalidArgumentError, match=message) as info:
        run(y)
    assert "fq" in str(info.value)


def test_bad_shapes():
    with pytest.raises(ValueError, match="rank 0"):
        tw.fake_quant_with_min_max_vars(tw.ones([2, 3]), [-1.0, 0.0], [1.0, 5.0])
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tw.fake_quant_with_min_max_vars_per_channel(tw.ones([2, 3]), [-1.0, 0.0], [1.0, 5.0])
    with pytest.raises(TypeError):
        tw.fake_quant_with_min_max_args(tw.constant([1.0], tw.float64))
    # Shapes known only when the step runs: the kernel checks them.
    lo = tw.placeholder(tw.float32)
    y = tw.fake_quant_with_min_max_vars_per_channel(tw.ones([2, 3]), lo, [1.0, 2.0, 3.0], name="pc")
    with pytest.raises(tw.errors.InvalidArgumentError, match="min must be a vector of 3 values") as info:
        run(y, {lo: [0.0, 1.0]})
    assert "pc" in str(info.value)
    g = tw.placeholder(tw.float32)
    for grad in (
        tw.quantization.fake_quant_with_min_max_args_gradient(g, tw.ones([2])),
        tw.quantization.fake_quant_with_min_max_vars_gradient(g, tw.ones([2]), -1.0, 1.0)[0],
    ):
        with pytest.raises(tw.errors.InvalidArgumentError, match="gradients and inputs must have the same shape"):
            run(grad, {g: [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="same shape"):
        tw.quantization.fake_quant_with_min_max_args_gradient(tw.ones([3]), tw.ones([2]))
