"""tw.quantization.quantize_and_dequantize (QuantizeAndDequantizeV2) and quantize_and_dequantize_v2 (V4), their
gradients and QuantizeAndDequantizeV3, against TensorFlow's compat.v1 on the same inputs: every value equal."""

import itertools

import numpy as np
import pytest
import tensorweave as tw

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1

V4_GRAD = "QuantizeAndDequantizeV4Grad"  # (the gradient op, by name)
X = (np.random.default_rng(0).standard_normal((4, 3, 5)) * 3).astype(np.float32)
X[0, 0, :3] = [0.5, 1.5, -2.5]  # (halves, for the rounding modes)


def _run(lib, fn, *args, **kwargs):
    graph = tw.Graph() if lib is tw else tf.Graph()
    with graph.as_default():
        out = fn(lib)(*args, **kwargs) if callable(fn(lib)) else None
        with tw.Session() if lib is tw else v1.Session() as sess:
            return sess.run(out)


def _both(fn, *args, **kwargs):
    """(tensorweave's, TensorFlow's) values of fn(module)(...) in graph mode."""
    return tuple(_run(lib, fn, *args, **kwargs) for lib in (tw, v1))


CASES = [
    {
        "signed_input": s,
        "num_bits": b,
        "narrow_range": n,
        "round_mode": m,
        "range_given": g,
        "lo": lo,
        "hi": hi,
        "axis": a,
    }
    for s, b, n, m, (g, lo, hi), a in itertools.product(
        (True, False),
        (2, 8),
        (False, True),
        ("HALF_TO_EVEN", "HALF_UP"),
        ((False, 0.0, 0.0), (True, -2.5, 4.0), (True, 0.5, 3.0), (True, -3.0, -1.0)),
        (None, 1, -1),
    )
    if not (g and a is not None)  # (TF 2.21 refuses per-axis ranges: "input_min must be a scalar")
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_quantize_and_dequantize_equals_tensorflow(case):
    kwargs = {k: v for k, v in case.items() if k not in ("lo", "hi")}
    lo, hi = case["lo"], case["hi"]
    if case["axis"] is not None:  # (a vector per slice, unread when the range is not given)
        lo = hi = np.zeros(X.shape[case["axis"]], np.float32)
    for name in ("quantize_and_dequantize", "quantize_and_dequantize_v2"):
        ours, theirs = _both(
            lambda lib, name=name: lambda: getattr(lib.quantization, name)(lib.constant(X), lo, hi, **kwargs)
        )
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_per_axis_ranges_given_as_vectors_quantize_each_slice():
    """TF's documented per-slice ranges (TF 2.21's kernel refuses vectors; TF's doc and this take them)."""
    lo, hi = np.array([-1.0, -2.0, -4.0], np.float32), np.array([1.0, 2.0, 4.0], np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        got = sess.run(tw.quantization.quantize_and_dequantize_v2(X, lo, hi, range_given=True, num_bits=4, axis=1))
    for c in range(3):
        _, theirs_alone = _both(
            lambda lib, c=c: (
                lambda: lib.quantization.quantize_and_dequantize_v2(
                    lib.constant(X[:, c]), lo[c], hi[c], range_given=True, num_bits=4
                )
            )
        )
        np.testing.assert_array_equal(got[:, c], theirs_alone)


def test_gradients_pass_straight_through_v2_and_only_in_range_v4():
    def grads(lib, name):
        x = lib.constant(X)
        y = getattr(lib.quantization, name)(x, -2.0, 3.0, range_given=True)
        return lib.gradients(lib.reduce_sum(y * y), x)[0]

    for name in ("quantize_and_dequantize", "quantize_and_dequantize_v2"):
        ours, theirs = _both(lambda lib, name=name: lambda: grads(lib, name))
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, err_msg=name)
    ours, _ = _both(lambda lib: lambda: grads(lib, "quantize_and_dequantize_v2"))
    assert np.all(ours[(X < -2.0) | (X > 3.0)] == 0) and np.any(ours != 0)


def test_v3_takes_num_bits_as_a_tensor():
    ours, theirs = _both(
        lambda lib: (
            lambda: lib.raw_ops.QuantizeAndDequantizeV3(
                input=lib.constant(X), input_min=-1.0, input_max=2.0, num_bits=lib.constant(3), range_given=True
            )
        )
    )
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"input_min": 3.0, "input_max": 1.0, "range_given": True}, "Invalid range: input_min 3 > input_max 1"),
        ({"input_min": 0.0, "input_max": 1.0, "num_bits": 0}, "num_bits is out of range: 0"),
        ({"input_min": 0.0, "input_max": 1.0, "num_bits": 63, "signed_input": False}, "num_bits is out of range: 63"),
    ],
)
def test_bad_ranges_and_bit_counts_are_invalid_arguments(kwargs, message):
    with tw.Graph().as_default(), tw.Session() as sess:
        y = tw.quantization.quantize_and_dequantize_v2(X, **kwargs)
        with pytest.raises(tw.errors.InvalidArgumentError, match=message):
            sess.run(y)


def test_per_axis_range_of_the_wrong_length_is_refused_when_built():
    with tw.Graph().as_default(), pytest.raises(ValueError, match="one value per index of axis 1"):
        tw.quantization.quantize_and_dequantize_v2(X, [0.0, 0.0], [1.0, 1.0], range_given=True, axis=1)


def test_v4_grad_op_masks_the_gradient_outside_each_slice_range():
    """QuantizeAndDequantizeV4Grad itself, per axis: the gradient where each slice is in its range."""
    grad = np.random.default_rng(1).standard_normal(X.shape).astype(np.float32)
    lo, hi = np.array([-1.0, 0.0, -3.0], np.float32), np.array([1.0, 2.0, 0.5], np.float32)
    ours, theirs = _both(
        lambda lib: (
            lambda: getattr(lib.raw_ops, V4_GRAD)(
                gradients=lib.constant(grad), input=lib.constant(X), input_min=lo, input_max=hi, axis=1
            )
        )
    )
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
