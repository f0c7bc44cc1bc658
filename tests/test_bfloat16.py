"""bfloat16 (tf.bfloat16) end to end against TensorFlow's CPU runtime in graph mode: the dtype object, TensorProto
encoding, Cast (round to nearest even, NaN, inf, overflow), the element-wise, reduction, matrix and layout
ops, variables, a small MLP training step, and checkpoints (TF's restored here, and our own round trip)."""

import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw

ml_dtypes = pytest.importorskip("ml_dtypes")
tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(11)


def _bits(a):
    return np.asarray(a, BF16).view(np.uint16)


def _run(lib, build, feeds):
    """Builds build(lib, placeholders) in a fresh graph of `lib` (tw or tf1) and runs it on feeds (name -> array)."""
    with lib.Graph().as_default():
        phs = {k: lib.placeholder(lib.as_dtype(v.dtype), shape=v.shape, name=k) for k, v in feeds.items()}
        out = build(lib, phs)
        with lib.Session() as sess:
            if any(True for _ in lib.global_variables()):
                sess.run(lib.global_variables_initializer())
            return sess.run(out, {phs[k]: v for k, v in feeds.items()})


def _both(build, **feeds):
    return _run(tw, build, feeds), _run(tf1, build, feeds)


def _bf16(shape, scale=4.0):
    return (RNG.standard_normal(shape) * scale).astype(BF16)


# The dtype object.


def test_dtype_matches_tensorflow():
    for got in (tw.bfloat16, tw.dtypes.bfloat16, tw.as_dtype("bfloat16"), tw.as_dtype(BF16), tw.as_dtype(14)):
        assert got is tw.bfloat16
    d, t = tw.bfloat16, tf.bfloat16
    assert d.name == t.name == "bfloat16"
    assert d.as_datatype_enum == t.as_datatype_enum == 14
    assert d.as_numpy_dtype is t.as_numpy_dtype is BF16
    assert (d.is_floating, d.is_integer, d.is_complex, d.is_unsigned) == (True, False, False, False)
    assert d.size == t.size == 2
    assert type(d.min) is type(t.min) is BF16
    assert float(d.min) == float(t.min) and float(d.max) == float(t.max) == 3.3895313892515355e38
    assert (repr(d), str(d)) == ("tf.bfloat16", "<dtype: 'bfloat16'>")
    assert tw.as_dtype(np.dtype(BF16)) is tw.bfloat16
    assert tw.bfloat16 != tw.float16
    with pytest.raises(TypeError, match="bfloat17"):
        tw.as_dtype("bfloat17")


def test_tensor_proto_matches_tensorflow():
    for value in (1.5, [1.5, -2.0, 3.0], np.array([[0.1, 7e30]], np.float32)):
        ours = tw.make_tensor_proto(value, tw.bfloat16)
        theirs = tf.make_tensor_proto(value, tf.bfloat16)
        assert ours.SerializeToString() == theirs.SerializeToString()
        got = tw.make_ndarray(ours)
        assert got.dtype == BF16
        np.testing.assert_array_equal(_bits(got), _bits(tf.make_ndarray(theirs)))
    # A scalar is one bit pattern in half_val (TF's encoding), read back filled.
    proto = tf.make_tensor_proto(1.5, tf.bfloat16, shape=[3])
    assert list(proto.half_val) == [0x3FC0]
    np.testing.assert_array_equal(tw.make_ndarray(proto), np.full(3, 1.5, BF16))


def test_constant_and_feed_fetch():
    with tw.Graph().as_default():
        c = tw.constant(1.5, tw.bfloat16)
        v = tw.constant([[1.0, 2.0], [3.0, 0.1]], dtype=tw.bfloat16)
        p = tw.placeholder(tw.bfloat16, [None])
        ident = tw.identity(p)
        with tw.Session() as sess:
            got_c, got_v = sess.run([c, v])
            feed = np.array([1.0, -0.0, np.inf, 3.3895e38], BF16)
            got_i = sess.run(ident, {p: feed})
            got_f32 = sess.run(ident, {p: np.array([1.00390625], np.float32)})  # converted, rounded to even
    assert c.dtype == tw.bfloat16 and got_c.dtype == BF16 and float(got_c) == 1.5
    np.testing.assert_array_equal(_bits(got_v), _bits(np.array([[1, 2], [3, 0.1]], np.float32).astype(BF16)))
    assert got_i.dtype == BF16
    np.testing.assert_array_equal(_bits(got_i), _bits(feed))
    assert _bits(got_f32).tolist() == [0x3F80]
    assert tw.to_bfloat16(tw.constant([1.0])).dtype == tw.bfloat16
    with tw.Graph().as_default():
        assert tw.to_bfloat16(tw.constant([1.0])).op.name == "ToBFloat16"  # TF's default name
        assert tw.constant(2, tw.bfloat16).dtype == tw.bfloat16  # a Python int is fine, as TF
        with pytest.raises(TypeError, match="bfloat16"):
            tw.constant(1 + 2j, tw.bfloat16)


# Cast.

CAST_INPUTS = np.array(
    [
        1.00390625,  # tie: rounds to even (1.0)
        1.01171875,  # tie: rounds to even (1.015625)
        1.0 + 2**-8 + 2**-20,  # just above a tie
        -1.00390625,
        np.nan,
        -np.nan,
        np.inf,
        -np.inf,
        3.4e38,  # rounds up into inf
        3.3895e38,
        1e-40,  # subnormal, kept
        0.0,
        -0.0,
        65504.0,
        123456.789,
    ],
    np.float32,
)


def test_cast_float32_to_bfloat16_rounds_as_tensorflow():
    ours, theirs = _both(lambda lib, p: lib.cast(p["x"], lib.bfloat16), x=CAST_INPUTS)
    assert ours.dtype == BF16
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))
    assert _bits(ours)[:3].tolist() == [0x3F80, 0x3F82, 0x3F81]
    assert _bits(ours)[5] == 0x7FC0  # every NaN is the positive quiet NaN, as TF's Cast


@pytest.mark.parametrize("src", ["float64", "float16", "int32", "int64", "int8", "uint8", "int16", "bool"])
def test_cast_to_bfloat16_from(src):
    values = np.array([0, 1, -3, 100, 127, 257, 259, 3, 1], np.float64)
    if src == "float64":
        values = np.concatenate([values, [1 + 2**-8 + 2**-40, 1e300, np.nan, 0.1]])  # through float first
    x = values.astype(np.dtype(src)) if src != "uint8" else np.abs(values).astype(np.uint8)
    ours, theirs = _both(lambda lib, p: lib.cast(p["x"], lib.bfloat16), x=x)
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))


@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "int32", "int64", "int8", "uint8", "bool"])
def test_cast_from_bfloat16_to(dst):
    x = np.array([0, 1.5, -2.5, 100, 120, -0.0, 2.75, 1e-3], BF16)
    if dst.startswith("float"):
        x = np.concatenate([x, np.array([np.inf, -np.inf, 1e38, 7e4], BF16)])
    if dst == "uint8":
        x = np.abs(x)
    ours, theirs = _both(lambda lib, p: lib.cast(p["x"], lib.as_dtype(dst)), x=x)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_cast_nan_from_bfloat16():
    x = np.array([np.nan, 1.0], BF16)
    ours, theirs = _both(lambda lib, p: [lib.cast(p["x"], lib.float32), lib.cast(p["x"], lib.bool)], x=x)
    assert np.isnan(ours[0][0]) and ours[0][1] == 1.0
    np.testing.assert_array_equal(ours[1], theirs[1])


# Element-wise ops: exact where TF computes in float and rounds once.

BINARY = ["add", "subtract", "multiply", "truediv", "maximum", "minimum", "squared_difference", "pow"]


@pytest.mark.parametrize("op", BINARY)
def test_binary_ops_bit_exact(op):
    x = _bf16((4, 5))
    y = _bf16((5,)) if op != "pow" else np.abs(_bf16((5,), 1.0)).astype(BF16)
    if op == "pow":
        x = np.abs(x).astype(BF16)
    if op == "truediv":
        y = np.where(np.asarray(y, np.float32) == 0, 1.0, y).astype(BF16)
    ours, theirs = _both(lambda lib, p: getattr(lib.math, op)(p["x"], p["y"]), x=x, y=y)
    assert ours.dtype == BF16
    if op in ("squared_difference", "pow"):  # TF rounds x - y (and pow's float steps) once more: within an ulp
        np.testing.assert_allclose(np.float32(ours), np.float32(theirs), rtol=2**-7, atol=0)
    else:
        np.testing.assert_array_equal(_bits(ours), _bits(theirs))


@pytest.mark.parametrize("op", ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"])
def test_comparisons(op):
    x = np.array([1, 2, 3, np.nan, -0.0, 5], BF16)
    y = np.array([1, 3, 2, np.nan, 0.0, 4], BF16)
    ours, theirs = _both(lambda lib, p: getattr(lib.math, op)(p["x"], p["y"]), x=x, y=y)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("op", ["negative", "abs", "square", "sign", "floor", "ceil", "round", "reciprocal"])
def test_exact_unary_ops(op):
    x = np.concatenate([_bf16((20,)), np.array([0.5, -1.5, 2.5, 0.0], BF16)])
    ours, theirs = _both(lambda lib, p: getattr(lib.math, op)(p["x"]), x=x)
    assert ours.dtype == BF16
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))


@pytest.mark.parametrize("op", ["sqrt", "rsqrt", "exp", "log", "log1p", "tanh", "sigmoid"])
def test_transcendental_unary_ops_within_one_ulp(op):
    x = np.abs(_bf16((64,), 2.0)).astype(BF16) + BF16(0.01)
    ours, theirs = _both(lambda lib, p: getattr(lib.math, op)(p["x"]), x=x)
    assert ours.dtype == BF16
    np.testing.assert_allclose(np.float32(ours), np.float32(theirs), rtol=2**-7, atol=0)


def test_activations():
    x = _bf16((3, 7))
    ours, theirs = _both(
        lambda lib, p: [lib.nn.relu(p["x"]), lib.nn.relu6(p["x"]), lib.nn.softmax(p["x"]), lib.nn.log_softmax(p["x"])],
        x=x,
    )
    for o, t in zip(ours, theirs):
        assert o.dtype == BF16
    np.testing.assert_array_equal(_bits(ours[0]), _bits(theirs[0]))
    np.testing.assert_array_equal(_bits(ours[1]), _bits(theirs[1]))
    np.testing.assert_allclose(np.float32(ours[2]), np.float32(theirs[2]), rtol=2**-7, atol=2**-9)
    np.testing.assert_allclose(np.float32(ours[3]), np.float32(theirs[3]), rtol=2**-7, atol=2**-7)


# Reductions and matrix products: TF accumulates in float and rounds once.


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions(op, axis):
    x = _bf16((6, 5), 1.0) if op != "reduce_prod" else (1 + _bf16((6, 5), 0.1).astype(np.float32)).astype(BF16)
    ours, theirs = _both(lambda lib, p: getattr(lib, op)(p["x"], axis=axis), x=x)
    assert ours.dtype == BF16
    if op in ("reduce_max", "reduce_min"):
        np.testing.assert_array_equal(_bits(ours), _bits(theirs))
    else:
        np.testing.assert_allclose(np.float32(ours), np.float32(theirs), rtol=2**-7, atol=2**-7)


def test_matmul_and_batch_matmul():
    a, b = _bf16((5, 8), 1.0), _bf16((8, 3), 1.0)
    x, y = _bf16((2, 4, 8), 1.0), _bf16((2, 8, 3), 1.0)
    ours, theirs = _both(
        lambda lib, p: [
            lib.matmul(p["a"], p["b"]),
            lib.matmul(p["b"], p["a"], transpose_a=True, transpose_b=True),
            lib.matmul(p["x"], p["y"]),
        ],
        a=a,
        b=b,
        x=x,
        y=y,
    )
    # In float (exact products of bfloat16s), rounded once: what numpy's float32 product rounds to.
    want = (np.float32(a) @ np.float32(b)).astype(BF16)
    np.testing.assert_allclose(np.float32(ours[0]), np.float32(want), rtol=2**-8, atol=1e-6)
    for o, t in zip(ours, theirs):
        assert o.dtype == BF16 and o.shape == t.shape
        np.testing.assert_allclose(np.float32(o), np.float32(t), rtol=2**-7, atol=2**-7)


def test_bias_add_and_its_gradient():
    x, b = _bf16((4, 3)), _bf16((3,))
    ours, theirs = _both(
        lambda lib, p: [lib.nn.bias_add(p["x"], p["b"]), lib.gradients(lib.nn.bias_add(p["x"], p["b"]), p["b"])[0]],
        x=x,
        b=b,
    )
    np.testing.assert_array_equal(_bits(ours[0]), _bits(theirs[0]))
    np.testing.assert_array_equal(_bits(ours[1]), _bits(theirs[1]))  # 4 ones per channel: exact


def test_layout_ops_accept_bfloat16():
    x = _bf16((2, 3, 4))

    def build(lib, p):
        v = p["x"]
        return [
            lib.reshape(v, [6, 4]),
            lib.transpose(v, [2, 0, 1]),
            lib.concat([v, v], axis=1),
            lib.gather(v, [1, 0, 1], axis=2),
            lib.slice(v, [0, 1, 1], [2, 2, 2]),
            lib.pad(v, [[0, 0], [1, 0], [0, 2]]),
            lib.tile(v, [1, 2, 1]),
            lib.stack([v, v]),
            lib.expand_dims(v, 0),
            v[:, ::-1, 1:3],
            lib.reverse(v, [1]),
            lib.where(v > 0, v, lib.zeros_like(v)),
            lib.zeros_like(v),
            lib.ones_like(v),
            lib.fill([2], lib.constant(2.5, lib.bfloat16)),
        ]

    ours, theirs = _both(build, x=x)
    for o, t in zip(ours, theirs):
        assert o.dtype == t.dtype == BF16
        np.testing.assert_array_equal(_bits(o), _bits(t))


def test_mixed_dtypes_are_a_type_error():
    with tw.Graph().as_default():
        a = tw.constant([[1.0]], tw.bfloat16)
        b = tw.constant([[1.0]], tw.float32)
        with pytest.raises((TypeError, ValueError)):
            tw.matmul(a, b)
        with pytest.raises((TypeError, ValueError)):
            a + b


# Variables and training.


def test_variables_assign_and_assign_add():
    def build(lib, p):
        v = lib.Variable(np.array([1.0, 2.0, 3.0], BF16), name="v")
        a = v.assign(p["x"])
        with lib.control_dependencies([a]):
            b = v.assign_add(p["x"])
        with lib.control_dependencies([b]):
            c = v.assign_sub(lib.constant([0.5, 0.5, 0.5], lib.bfloat16))
        return [v.dtype.name, c]

    x = np.array([1.00390625, 3.0, -7.5], BF16)
    ours, theirs = _both(lambda lib, p: build(lib, p)[1], x=x)
    assert ours.dtype == BF16
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))
    with tw.Graph().as_default():
        v = tw.Variable(np.zeros(2, BF16))
        assert v.dtype.base_dtype == tw.bfloat16


@pytest.mark.parametrize("optimizer", [False, True])
def test_mlp_training_step_matches_tensorflow(optimizer):
    """Two dense layers in bfloat16 (relu, squared loss), four steps of gradient descent: by assign_sub, or by
    GradientDescentOptimizer.minimize."""
    w1 = _bf16((4, 8), 0.5)
    w2 = _bf16((8, 1), 0.5)
    xs = _bf16((16, 4), 1.0)
    ys = _bf16((16, 1), 1.0)

    def build(lib, p):
        v1 = lib.Variable(w1, name="w1")
        b1 = lib.Variable(np.zeros(8, BF16), name="b1")
        v2 = lib.Variable(w2, name="w2")
        h = lib.nn.relu(lib.nn.bias_add(lib.matmul(p["x"], v1), b1))
        loss = lib.reduce_mean(lib.square(lib.matmul(h, v2) - p["y"]))
        if optimizer:
            step = lib.train.GradientDescentOptimizer(0.05).minimize(loss)
        else:
            grads = lib.gradients(loss, [v1, b1, v2])
            lr = lib.constant(0.05, lib.bfloat16)
            step = lib.group(*[v.assign_sub(g * lr) for v, g in zip([v1, b1, v2], grads)])
        return loss, step, [v1, b1, v2]

    def train(lib):
        with lib.Graph().as_default():
            phs = {"x": lib.placeholder(lib.bfloat16, [None, 4]), "y": lib.placeholder(lib.bfloat16, [None, 1])}
            loss, step, vs = build(lib, phs)
            assert all(g is not None for g in lib.gradients(loss, vs))
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                feed = {phs["x"]: xs, phs["y"]: ys}
                losses = []
                for _ in range(4):
                    losses.append(float(sess.run(loss, feed)))
                    sess.run(step, feed)
                return losses, sess.run(vs)

    ours, ours_vars = train(tw)
    theirs, theirs_vars = train(tf1)
    assert ours[-1] < ours[0]
    np.testing.assert_allclose(ours, theirs, rtol=0.05)
    for o, t in zip(ours_vars, theirs_vars):
        assert o.dtype == BF16
        np.testing.assert_allclose(np.float32(o), np.float32(t), rtol=0.05, atol=0.02)


# Checkpoints: TensorFlow's read by tensorweave (TF in a subprocess: its graph state stays out of ours), and our own.

VALUE = np.array([[1.5, -2.25, 1e-30], [3.3895e38, 0.1, -0.0]], BF16)

TF_SAVE = """
import os, sys, numpy as np, ml_dtypes
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
value = np.load(sys.argv[2]).view(ml_dtypes.bfloat16)
with tf.Graph().as_default():
    v = tf.Variable(value, name="layer/w")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(saver.save(sess, sys.argv[1]))
"""


def _python(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()


def _restored_bfloat16(prefix):
    """The value a bfloat16 variable "layer/w" [2, 3] restores from `prefix`."""
    with tw.Graph().as_default():
        v = tw.Variable(np.zeros((2, 3), BF16), name="layer/w")
        with tw.Session() as sess:
            tw.train.Saver().restore(sess, prefix)
            return sess.run(v)


def test_tensorflow_checkpoint_restored(tmp_path):
    np.save(tmp_path / "value.npy", VALUE.view(np.uint16))
    prefix = _python(TF_SAVE, str(tmp_path / "model.ckpt"), str(tmp_path / "value.npy"))[-1]
    reader = tw.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_dtype_map()["layer/w"] == tw.bfloat16
    np.testing.assert_array_equal(_bits(reader.get_tensor("layer/w")), _bits(VALUE))
    got = _restored_bfloat16(prefix)
    assert got.dtype == BF16
    np.testing.assert_array_equal(_bits(got), _bits(VALUE))
    # A float32 variable of the same name is a dtype mismatch, as TF.
    with tw.Graph().as_default():
        tw.Variable(np.zeros((2, 3), np.float32), name="layer/w")
        with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="bfloat16"):
            tw.train.Saver().restore(sess, prefix)


def test_checkpoint_round_trip(tmp_path):
    """tensorweave's own checkpoint format keeps bfloat16 (safetensors' "BF16"); TensorFlow reads none of it."""
    with tw.Graph().as_default():
        tw.Variable(VALUE, name="layer/w")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            prefix = tw.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    reader = tw.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_dtype_map()["layer/w"] == tw.bfloat16
    np.testing.assert_array_equal(_bits(reader.get_tensor("layer/w")), _bits(VALUE))
    np.testing.assert_array_equal(_bits(_restored_bfloat16(prefix)), _bits(VALUE))
