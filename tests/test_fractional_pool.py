"""tw.nn.fractional_max_pool / fractional_avg_pool ("FractionalMaxPool", "FractionalAvgPool") and their gradients
("FractionalMaxPoolGrad", "FractionalAvgPoolGrad"): pooled values against a numpy oracle over the sequences the op
returns; the sequences' properties (TensorFlow's draws are its own Philox numbers, so random sequences are
compared in distribution); values, sequences and static shapes against TensorFlow where the sequence is fixed
(input length divisible by output length); gradients against TensorFlow's gradient kernels fed the same sequences
and against central differences; the errors, by class and message, against TensorFlow's."""

import numpy as np
import pytest
import tensorweave as tw

pytestmark = pytest.mark.usefixtures("graph")

_TF1 = None


def _tf1():
    """tensorflow.compat.v1 in graph mode, or a skip."""
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


def _tf_error(build):
    """The class name of what TensorFlow raises building or running build(tf1) (None when it runs)."""
    tf1 = _tf1()
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        try:
            sess.run(build(tf1))
        except Exception as e:
            return type(e).__name__
    return None


def _tw_error(build):
    with tw.Graph().as_default() as g, tw.Session(graph=g) as sess:
        try:
            sess.run(build(tw))
        except Exception as e:
            return type(e).__name__, str(e)
    return None, ""


def _run(fetches, feed=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed)


def _regions(seq, limit, overlapping):
    """The inclusive [first, last] index range of each pooling cell."""
    return [(seq[i], min(seq[i + 1] if overlapping else seq[i + 1] - 1, limit - 1)) for i in range(len(seq) - 1)]


def _pool_numpy(x, rows, cols, overlapping, mode):
    n, h, w, c = x.shape
    out = np.zeros([n, len(rows) - 1, len(cols) - 1, c], x.dtype)
    for i, (r0, r1) in enumerate(_regions(rows, h, overlapping)):
        for j, (c0, c1) in enumerate(_regions(cols, w, overlapping)):
            cell = x[:, r0 : r1 + 1, c0 : c1 + 1, :].reshape(n, -1, c)
            if mode == "max":
                out[:, i, j, :] = cell.max(1)
            elif x.dtype.kind == "i":  # the kernel's integer mean: the sum divided, rounded toward zero
                s = cell.astype(np.int64).sum(1)
                out[:, i, j, :] = np.sign(s) * (np.abs(s) // cell.shape[1])
            else:
                out[:, i, j, :] = cell.sum(1) / x.dtype.type(cell.shape[1])
    return out


def _check_sequence(seq, length, ratio):
    out = int(np.floor(np.float32(length) / np.float32(ratio)))
    assert seq.dtype == np.int64 and len(seq) == out + 1
    assert seq[0] == 0 and seq[-1] == length
    k = length // out
    assert set(np.diff(seq).tolist()) <= {k, k + 1}
    assert np.count_nonzero(np.diff(seq) == k + 1) == length % out


_POOLS = {"max": tw.nn.fractional_max_pool, "avg": tw.nn.fractional_avg_pool}


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_values_match_numpy_over_the_returned_sequences(mode, pseudo_random, overlapping, dtype):
    rng = np.random.default_rng(7)
    x = rng.integers(-50, 50, size=[2, 11, 13, 3]).astype(dtype)
    if dtype in (np.float32, np.float64):
        x = x + rng.random(x.shape).astype(dtype)
    ratio = [1.0, 1.44, 1.73, 1.0]
    out, rows, cols = _POOLS[mode](tw.constant(x), ratio, pseudo_random=pseudo_random, overlapping=overlapping)
    assert out.shape.as_list() == [2, 7, 7, 3] and out.dtype == tw.as_dtype(dtype)
    assert rows.shape.as_list() == [8] and cols.shape.as_list() == [8]
    for _ in range(3):  # each run draws new sequences
        got, r, c = _run([out, rows, cols])
        _check_sequence(r, 11, 1.44)
        _check_sequence(c, 13, 1.73)
        want = _pool_numpy(x, r, c, overlapping, mode)
        if dtype in (np.float32, np.float64):
            np.testing.assert_allclose(got, want, rtol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)


def _pseudo_random_u_range(seq, length):
    """The u in [0, u_max) for which seq is Graham's pseudo-random sequence a_i - 1 = ceil(alpha * (i + u)) - 1
    (empty when none is)."""
    out = len(seq) - 1
    alpha, k = length / out, length // out
    low, high = 0.0, min((k + 2) / alpha - 1, (length + 1 - k) / alpha - (out - 1))
    for i in range(1, out):  # seq[i] < alpha * (i + u) <= seq[i] + 1
        low, high = max(low, seq[i] / alpha - i), min(high, (seq[i] + 1) / alpha - i)
    return low, high


@pytest.mark.parametrize("pseudo_random", [False, True])
def test_sequences_have_the_documented_distribution(pseudo_random):
    # 45 rows at ratio 1.5: 30 cells, 15 of them 2 long and 15 one long, in an order drawn each run.
    x = tw.placeholder(tw.float32, [1, 45, 7, 1])
    _, rows, cols = tw.nn.fractional_max_pool(x, [1.0, 1.5, 1.0, 1.0], pseudo_random=pseudo_random)
    seen = set()
    first_long = []
    with tw.Session() as sess:
        for _ in range(40):
            r, c = sess.run([rows, cols], {x: np.zeros([1, 45, 7, 1])})
            _check_sequence(r, 45, 1.5)
            np.testing.assert_array_equal(c, np.arange(8))
            seen.add(tuple(r))
            first_long.append(r[1] == 2)
            low, high = _pseudo_random_u_range(r, 45)
            # Pseudo-random sequences are those of one u; a shuffle almost never is.
            assert (low < high) == pseudo_random, (r, low, high)
    # The draws differ from run to run (pseudo-random: only u varies, so only a few sequences exist).
    assert len(seen) > (1 if pseudo_random else 10)
    # Both step lengths occur first in some run (a fixed sequence, or one always short first, would not).
    assert 0 < sum(first_long) < 40


def test_deterministic_gives_the_same_sequences_every_run_and_session():
    x = np.random.default_rng(1).random([1, 23, 19, 2]).astype(np.float32)

    def draw(**kw):
        with tw.Graph().as_default():
            _, rows, cols = tw.nn.fractional_avg_pool(x, [1.0, 1.6, 1.3, 1.0], **kw)
            with tw.Session() as sess:
                return [np.concatenate(sess.run([rows, cols])) for _ in range(3)]

    seeded = draw(deterministic=True, seed=5, seed2=9)
    assert all(np.array_equal(s, seeded[0]) for s in seeded)
    assert np.array_equal(draw(deterministic=True, seed=5, seed2=9)[0], seeded[0])  # a fresh session
    # Seeds 0: drawn once for the node, so its runs agree with one another.
    unseeded = draw(deterministic=True)
    assert all(np.array_equal(s, unseeded[0]) for s in unseeded)
    # Different seeds give other sequences (23 rows in 14 cells: C(14, 9) orders; 19 in 14: C(14, 5)).
    others = [draw(deterministic=True, seed=s, seed2=1)[0] for s in range(1, 6)]
    assert len({tuple(o) for o in others}) > 1


def test_the_op_is_stateful_and_named_as_in_tensorflow():
    out, rows, cols = tw.nn.fractional_max_pool(tw.ones([1, 4, 4, 1]), [1.0, 2.0, 2.0, 1.0])
    assert out.op.type == "FractionalMaxPool" and out.op.name == "FractionalMaxPool"
    assert (rows.name, cols.name) == ("FractionalMaxPool:1", "FractionalMaxPool:2")
    assert out.op.get_attr("deterministic") is False and out.op.get_attr("seed") == 0
    y = tw.nn.fractional_avg_pool(tw.ones([1, 4, 4, 1]), [1.0, 2.0, 2.0, 1.0], name="pool")[0]
    assert y.op.type == "FractionalAvgPool" and y.op.name == "pool"


# --- against TensorFlow where the sequences are fixed --------------------------------


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_divisible_lengths_match_tensorflow(mode, pseudo_random, overlapping):
    # 12 rows at ratio 3 and 10 columns at ratio 2: every cell is 3 (2) long, whatever the draw.
    x = np.random.default_rng(3).standard_normal([2, 12, 10, 3]).astype(np.float32)
    ratio = [1.0, 3.0, 2.0, 1.0]
    kw = {"pseudo_random": pseudo_random, "overlapping": overlapping}
    name = f"fractional_{mode}_pool"
    want = _tf_run(lambda tf: list(getattr(tf.nn, name)(x, ratio, **kw)))
    got = _run(list(getattr(tw.nn, name)(x, ratio, **kw)))
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


def test_static_output_shapes_match_tensorflow():
    def shapes(tf):
        x = tf.placeholder(tf.float32, [None, 17, None, 3])
        y = tf.placeholder(tf.float32, [2, 11, 13, 3])
        return [
            tf.nn.fractional_max_pool(x, [1.0, 1.5, 1.5, 1.0])[0].shape.as_list(),
            tf.nn.fractional_avg_pool(y, [1.0, 1.44, 1.73, 1.0])[0].shape.as_list(),
            tf.nn.fractional_avg_pool(y, [1.0, 1.1, 1.0, 1.0])[0].shape.as_list(),
        ]

    tf1 = _tf1()
    with tf1.Graph().as_default():
        want = shapes(tf1)
    assert shapes(tw) == want == [[None, 11, None, 3], [2, 7, 7, 3], [2, 10, 13, 3]]
    # The sequences' static lengths are the kernel's (cells + 1); TensorFlow's shape function says cells.
    _, rows, cols = tw.nn.fractional_max_pool(tw.placeholder(tw.float32, [1, 17, None, 1]), [1.0, 1.5, 1.5, 1.0])
    assert rows.shape.as_list() == [12] and cols.shape.as_list() == [None]


# --- gradients --------------------------------------------------------------------


def _tf_grad(mode, x, out, grad, rows, cols, overlapping):
    def build(tf):
        if mode == "max":
            return tf.raw_ops.FractionalMaxPoolGrad(
                orig_input=x,
                orig_output=out,
                out_backprop=grad,
                row_pooling_sequence=rows,
                col_pooling_sequence=cols,
                overlapping=overlapping,
            )
        return tf.raw_ops.FractionalAvgPoolGrad(
            orig_input_tensor_shape=np.array(x.shape, np.int64),
            out_backprop=grad,
            row_pooling_sequence=rows,
            col_pooling_sequence=cols,
            overlapping=overlapping,
        )

    return _tf_run(build)


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_gradients_match_tensorflows_kernels_on_the_same_sequences(mode, pseudo_random, overlapping):
    rng = np.random.default_rng(11)
    x = rng.permutation(2 * 10 * 9 * 2).reshape([2, 10, 9, 2]).astype(np.float64)  # no ties
    xt = tw.constant(x)
    out, rows, cols = _POOLS[mode](xt, [1.0, 1.4, 1.7, 1.0], pseudo_random=pseudo_random, overlapping=overlapping)
    g = rng.standard_normal(out.shape.as_list())
    (dx,) = tw.gradients(out, xt, grad_ys=tw.constant(g))
    grad_type = "FractionalMaxPoolGrad" if mode == "max" else "FractionalAvgPoolGrad"
    assert dx.op.type == grad_type
    # One run gives the forward's sequences and the gradient over those same sequences.
    got_out, got_dx, r, c = _run([out, dx, rows, cols])
    np.testing.assert_array_equal(got_out, _pool_numpy(x, r, c, overlapping, mode))
    want = _tf_grad(mode, x, got_out, g, r, c, overlapping)
    np.testing.assert_allclose(got_dx, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["max", "avg"])
def test_gradients_match_central_differences(mode):
    rng = np.random.default_rng(5)
    x = (rng.permutation(3 * 11 * 7) / 50.0).reshape([1, 11, 7, 3])
    xp = tw.placeholder(tw.float64, x.shape)
    # Fixed sequences (deterministic, seeded), so that every perturbed run pools the same regions.
    out = _POOLS[mode](xp, [1.0, 1.6, 1.3, 1.0], pseudo_random=True, overlapping=True, deterministic=True, seed=3)[0]
    w = rng.standard_normal(out.shape.as_list())
    loss = tw.reduce_sum(out * w)
    (dx,) = tw.gradients(loss, xp)
    with tw.Session() as sess:
        got = sess.run(dx, {xp: x})
        eps = 1e-6
        numeric = np.zeros_like(x)
        for i in np.ndindex(*x.shape):
            up, down = x.copy(), x.copy()
            up[i] += eps
            down[i] -= eps
            numeric[i] = (sess.run(loss, {xp: up}) - sess.run(loss, {xp: down})) / (2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_avg_gradient_of_an_unknown_shape_reads_it_at_run_time():
    xp = tw.placeholder(tw.float32, [None, None, None, 2])
    out = tw.nn.fractional_avg_pool(xp, [1.0, 2.0, 2.0, 1.0])[0]
    (dx,) = tw.gradients(out, xp)
    got = _run(dx, {xp: np.ones([1, 4, 6, 2], np.float32)})
    np.testing.assert_allclose(got, np.full([1, 4, 6, 2], 0.25, np.float32))


def test_integer_gradients_match_tensorflow():
    x = np.arange(36, dtype=np.int32).reshape(1, 6, 6, 1)
    g = np.array([[[[7], [-9]], [[11], [13]]]], np.int32)
    rows = cols = np.array([0, 3, 6], np.int64)
    got_avg = _run(tw.raw_ops.FractionalAvgPoolGrad(
        orig_input_tensor_shape=[1, 6, 6, 1], out_backprop=g, row_pooling_sequence=rows, col_pooling_sequence=cols
    ))  # fmt: skip
    got_max = _run(tw.raw_ops.FractionalMaxPoolGrad(
        orig_input=x, orig_output=g, out_backprop=g, row_pooling_sequence=rows, col_pooling_sequence=cols
    ))  # fmt: skip
    np.testing.assert_array_equal(got_avg, _tf_grad("avg", x, None, g, rows, cols, False))
    np.testing.assert_array_equal(got_max, _tf_grad("max", x, g, g, rows, cols, False))


def test_second_derivatives_are_missing_as_in_tensorflow():
    xt = tw.constant(np.ones([1, 4, 4, 1]))
    (dx,) = tw.gradients(tw.nn.fractional_max_pool(xt, [1.0, 2.0, 2.0, 1.0])[0], xt)
    with pytest.raises(LookupError, match="No gradient defined .* FractionalMaxPoolGrad"):
        tw.gradients(dx, xt)
    # The average's gradient reads only the input's (static) shape: it does not depend on the input.
    (dx,) = tw.gradients(tw.nn.fractional_avg_pool(xt, [1.0, 2.0, 2.0, 1.0])[0], xt)
    assert tw.gradients(dx, xt) == [None]
    g = tw.placeholder(tw.float64, [1, 2, 2, 1])
    (dx,) = tw.gradients(tw.nn.fractional_avg_pool(xt, [1.0, 2.0, 2.0, 1.0])[0], xt, grad_ys=g)
    with pytest.raises(LookupError, match="FractionalAvgPoolGrad"):
        tw.gradients(dx, g)


def test_gradient_ops_refuse_inconsistent_sequences():
    x = np.zeros([1, 4, 4, 1], np.float32)
    g = np.ones([1, 2, 2, 1], np.float32)
    good = np.array([0, 2, 4], np.int64)

    def max_grad(rows=good, cols=good, out=g, grad=g, orig=x):
        return tw.raw_ops.FractionalMaxPoolGrad(
            orig_input=orig, orig_output=out, out_backprop=grad, row_pooling_sequence=rows, col_pooling_sequence=cols
        )

    def avg_grad(rows=good, cols=good, shape=(1, 4, 4, 1), grad=g):
        return tw.raw_ops.FractionalAvgPoolGrad(
            orig_input_tensor_shape=np.array(shape, np.int64),
            out_backprop=grad,
            row_pooling_sequence=rows,
            col_pooling_sequence=cols,
        )

    bad = {
        "short": (np.array([0, 2], np.int64), "must have 3 elements"),
        "long": (np.array([0, 1, 2, 4], np.int64), "must have 3 elements"),
        "negative": (np.array([-5, 2, 4], np.int64), "must increase"),
        "decreasing": (np.array([0, 3, 1], np.int64), "must increase"),
        "starts outside": (np.array([0, 4, 6], np.int64), "must increase"),
    }
    for fn in (max_grad, avg_grad):
        for seq, message in bad.values():
            for kw in ({"rows": seq}, {"cols": seq}):
                with tw.Graph().as_default(), pytest.raises(tw.errors.InvalidArgumentError, match=message):
                    _run(fn(**kw))
    # The last boundary may pass the input (the region is clipped), as TensorFlow allows.
    np.testing.assert_array_equal(
        _run(avg_grad(rows=np.array([0, 2, 9], np.int64)))[0, :, 0, 0], [0.25, 0.25, 0.25, 0.25]
    )
    with pytest.raises(tw.errors.InvalidArgumentError, match="orig_output"):
        _run(max_grad(out=np.ones([1, 3, 2, 1], np.float32)))
    with pytest.raises(tw.errors.InvalidArgumentError, match="batch and depth"):
        _run(avg_grad(shape=(3, 4, 4, 1)))
    with pytest.raises(tw.errors.InvalidArgumentError, match="4 elements"):
        _run(tw.raw_ops.FractionalAvgPoolGrad(
            orig_input_tensor_shape=tw.placeholder_with_default(np.array([1, 4, 4], np.int64), [None]),
            out_backprop=g, row_pooling_sequence=good, col_pooling_sequence=good,
        ))  # fmt: skip
    with pytest.raises(ValueError, match="rank 4"):
        max_grad(orig=x[0])
    with pytest.raises(ValueError, match="rank 1"):
        avg_grad(rows=good[None])


# --- errors -----------------------------------------------------------------------


def _placeholder_like(tf, value):
    return tf.placeholder_with_default(value, None)


_X = np.arange(63, dtype=np.float32).reshape(1, 7, 9, 1)
_ERROR_CASES = {
    # name: (build(tf), tensorweave's message)
    "ratio of 3": (lambda tf: tf.nn.fractional_max_pool(_X, [1.0, 1.5, 1.0]), "pooling_ratio"),
    "ratio of 5": (lambda tf: tf.nn.fractional_max_pool(_X, [1.0, 1.5, 1.5, 1.0, 1.0]), "4 dimensions"),
    "ratio below 1": (lambda tf: tf.nn.fractional_avg_pool(_X, [1.0, 0.5, 1.5, 1.0]), "smaller than 1"),
    "ratio on batch": (lambda tf: tf.nn.fractional_max_pool(_X, [2.0, 1.5, 1.5, 1.0]), "batch nor channel"),
    "ratio on depth": (lambda tf: tf.nn.fractional_avg_pool(_X, [1.0, 1.5, 1.5, 2.0]), "batch nor channel"),
    "rank 3": (lambda tf: tf.nn.fractional_max_pool(_X[0], [1.0, 1.5, 1.5, 1.0]), "rank 4"),
    "rank 3 at run time": (
        lambda tf: tf.nn.fractional_max_pool(_placeholder_like(tf, _X[0]), [1.0, 1.5, 1.5, 1.0]),
        "4-dimensional",
    ),
    "ratio above the size": (lambda tf: tf.nn.fractional_max_pool(_X, [1.0, 8.0, 1.5, 1.0]), "Input dim size: 7"),
    "empty batch": (
        lambda tf: tf.nn.fractional_avg_pool(np.zeros([0, 7, 9, 1], np.float32), [1.0, 1.5, 1.5, 1.0]),
        "dimension 0",
    ),
    "int8": (lambda tf: tf.nn.fractional_max_pool(_X.astype(np.int8), [1.0, 1.5, 1.5, 1.0]), "int8"),
    "seeds without deterministic": (
        lambda tf: tf.nn.fractional_max_pool(_X, [1.0, 1.5, 1.5, 1.0], seed=5, seed2=7),
        "Both seed and seed2 should be 0",
    ),
}


@pytest.mark.parametrize("case", sorted(_ERROR_CASES))
def test_errors_are_tensorflows(case):
    build, message = _ERROR_CASES[case]
    got, text = _tw_error(build)
    assert got is not None and message in text, text
    assert got == _tf_error(build)


def test_a_run_time_error_names_the_node():
    x = tw.placeholder(tw.float32)
    y = tw.nn.fractional_max_pool(x, [1.0, 2.0, 2.0, 1.0], name="frac")[0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="frac") as info:
        _run(y, {x: np.ones([1, 1, 4, 1], np.float32)})
    assert "Pooling ratio is higher than input dimension size for dimension 1" in str(info.value)
