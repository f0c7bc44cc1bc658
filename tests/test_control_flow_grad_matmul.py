"""The backward loop of a while_loop that multiplies by a loop-invariant matrix: the invariant's gradient
a_t^T b_t is summed by one MatMul after the backward loop (the rows collected in TensorArrays), and a MatMul
that reads the invariant transposed reads a Transpose made once before the loop. Gradients against
TensorFlow's v1 while_loop (and central differences); loops where the rewrite does not apply are left as
TF builds them (a per-iteration accumulator)."""

import numpy as np
import pytest
import tensorweave as tw

RNG = np.random.RandomState(0)
W0 = RNG.standard_normal((6, 5))
X0 = RNG.standard_normal((4, 3, 6))


@pytest.fixture
def tf_v1_loops():
    """TensorFlow with v1 control flow (Enter/Exit loops, as tensorweave's) for the test, restored after."""
    tf = pytest.importorskip("tensorflow")
    was_v2 = tf.compat.v1.control_flow_v2_enabled()
    tf.compat.v1.disable_control_flow_v2()
    yield tf
    if was_v2:
        tf.compat.v1.enable_control_flow_v2()


def _run(tf, v1, build, feed, dtype):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(dtype, [None, None, 6], name="x")
        w = v1.Variable(W0.astype(dtype.as_numpy_dtype), name="w")
        loss = build(tf, x, w)
        grads = tf.gradients(loss, [w, x])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = sess.run([loss] + grads, {x: feed})
    return g, values


def _both(tf, build, feed=X0, dtype="float64"):
    v1 = tf.compat.v1
    g, ours = _run(tw, tw.compat.v1, build, feed, tw.as_dtype(dtype))
    _, theirs = _run(tf, v1, build, feed, tf.as_dtype(dtype))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    return g, ours


def _types(g):
    return {op.type for op in g.get_operations()}


def _rnn(tf, x, w, n=None):
    """A recurrent loop: h_t = tanh((x_t + h_{t-1}[:, :1]) w), loss = sum_t |h_t|^2 + sum h_T."""
    n = tf.shape(x)[0] if n is None else n

    def body(t, h, acc):
        y = tf.tanh(tf.matmul(x[t] + h[:, :1], w))
        return t + 1, tf.concat([y, y[:, :1]], 1), acc + tf.reduce_sum(y * y)

    zeros = tf.zeros(tf.stack([tf.shape(x)[1], 6]), dtype=x.dtype)
    _, h, acc = tf.while_loop(lambda t, h, a: t < n, body, [tf.constant(0), zeros, tf.constant(0.0, x.dtype)])
    return acc + tf.reduce_sum(h)


def test_invariant_weight_gradient_is_one_matmul_after_the_loop(tf_v1_loops):
    g, _ = _both(tf_v1_loops, _rnn)
    assert {"TensorArrayConcatV3", "Transpose"} <= _types(g)
    # The sum is a MatMul outside any loop of the concatenated rows; no per-iteration Add of a [6, 5] sum.
    hoisted = [op for op in g.get_operations() if op.type == "MatMul" and op.name.endswith("b_acc")]
    assert len(hoisted) == 1 and hoisted[0]._control_flow_context is None
    assert hoisted[0].get_attr("transpose_a") and not hoisted[0].get_attr("transpose_b")
    assert [t.op.type for t in hoisted[0].inputs] == ["TensorArrayConcatV3"] * 2
    assert hoisted[0].outputs[0].shape.as_list() == [6, 5]


@pytest.mark.parametrize(
    "form",
    [
        lambda tf, xt, w: tf.matmul(w, xt, transpose_a=True, transpose_b=True),  # w^T x^T: [5, batch]
        lambda tf, xt, w: tf.matmul(w, tf.transpose(xt), transpose_a=True),  # w^T x^T
        lambda tf, xt, w: tf.matmul(xt[:, :5], w, transpose_b=True),  # x w^T
    ],
)
def test_invariant_weight_in_any_operand_position(tf_v1_loops, form):
    def build(tf, x, w):
        def body(t, acc):
            return t + 1, acc + tf.reduce_sum(tf.tanh(form(tf, x[t], w)) ** 2)

        return tf.while_loop(lambda t, a: t < tf.shape(x)[0], body, [tf.constant(0), tf.constant(0.0, x.dtype)])[1]

    g, _ = _both(tf_v1_loops, build)
    assert "TensorArrayConcatV3" in _types(g)


def test_weight_transposed_in_the_loop_is_accumulated(tf_v1_loops):
    def build(tf, x, w):
        def body(t, acc):
            return t + 1, acc + tf.reduce_sum(tf.tanh(tf.matmul(tf.transpose(w), x[t], transpose_b=True)) ** 2)

        return tf.while_loop(lambda t, a: t < 4, body, [tf.constant(0), tf.constant(0.0, x.dtype)])[1]

    g, _ = _both(tf_v1_loops, build)
    # The invariant's gradient is a Transpose's, not a MatMul's.
    assert "TensorArrayConcatV3" not in _types(g)


def test_float32_and_batch_size_unknown_until_run(tf_v1_loops):
    tf = tf_v1_loops
    v1 = tf.compat.v1
    feed = X0[:, :2].astype(np.float32)
    _, ours = _run(tw, tw.compat.v1, _rnn, feed, tw.float32)
    _, theirs = _run(tf, v1, _rnn, feed, tf.float32)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


def test_zero_iterations_give_zero_weight_gradient(tf_v1_loops):
    _, (loss, gw, gx) = _both(tf_v1_loops, lambda tf, x, w: _rnn(tf, x, w, n=0))
    assert gw.shape == (6, 5) and not gw.any() and not gx.any() and loss == 0.0


def test_gradient_matches_central_differences():
    g = tw.Graph()
    with g.as_default():
        x = tw.constant(X0)
        w = tw.placeholder(tw.float64, [6, 5])
        loss = _rnn(tw, x, w)
        (gw,) = tw.gradients(loss, [w])
        with tw.Session() as sess:
            got = sess.run(gw, {w: W0})
            eps, want = 1e-6, np.zeros_like(W0)
            for i in range(6):
                for j in range(5):
                    d = np.zeros_like(W0)
                    d[i, j] = eps
                    want[i, j] = (sess.run(loss, {w: W0 + d}) - sess.run(loss, {w: W0 - d})) / (2 * eps)
    assert "TensorArrayConcatV3" in _types(g)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_weight_read_twice_per_iteration_is_accumulated(tf_v1_loops):
    def build(tf, x, w):
        def body(t, acc):
            h = tf.tanh(tf.matmul(x[t], w))
            return t + 1, acc + tf.reduce_sum(tf.matmul(h, w, transpose_b=True) ** 2)

        return tf.while_loop(lambda t, a: t < 4, body, [tf.constant(0), tf.constant(0.0, x.dtype)])[1]

    g, _ = _both(tf_v1_loops, build)
    # The invariant's gradient in an iteration is the sum of two products: accumulated per iteration.
    assert "TensorArrayConcatV3" not in _types(g)


def test_operand_that_changes_per_iteration_is_not_rewritten(tf_v1_loops):
    def build(tf, x, w):
        def body(t, v, acc):
            return t + 1, v * 0.9, acc + tf.reduce_sum(tf.tanh(tf.matmul(x[t], v)))

        return tf.while_loop(lambda t, v, a: t < 4, body, [tf.constant(0), w, tf.constant(0.0, x.dtype)])[2]

    g, _ = _both(tf_v1_loops, build)
    assert not {"TensorArrayConcatV3", "Transpose"} & _types(g)


def test_nested_loops_keep_the_accumulator(tf_v1_loops):
    def build(tf, x, w):
        def outer(i, acc):
            def inner(j, a):
                return j + 1, a + tf.reduce_sum(tf.tanh(tf.matmul(x[i] * tf.cast(j + 1, x.dtype), w)))

            return i + 1, tf.while_loop(lambda j, a: j < 3, inner, [tf.constant(0), acc])[1]

        return tf.while_loop(lambda i, a: i < 4, outer, [tf.constant(0), tf.constant(0.0, x.dtype)])[1]

    g, _ = _both(tf_v1_loops, build)
    assert "TensorArrayConcatV3" not in _types(g)


# --- MatMul's packed B, kept while the same B comes again (a loop's weight) ------------------------------------------


def _loop_product(x, w, steps):
    """sum_t tanh(x_t w) over a while_loop: w is multiplied in every iteration (float32, [32, 64] x [64, 64])."""

    def body(t, acc):
        return t + 1, acc + tw.tanh(tw.matmul(x[t], w))

    return tw.while_loop(lambda t, a: t < steps, body, [tw.constant(0), tw.zeros([32, 64])])[1]


def _want(xv, wv):
    return np.tanh(np.einsum("tbk,kn->tbn", xv.astype(np.float64), wv.astype(np.float64))).sum(0)


def test_packed_weight_follows_variable_updates_between_and_within_steps():
    rng = np.random.RandomState(1)
    xv = rng.standard_normal((5, 32, 64)).astype(np.float32)
    w0 = rng.standard_normal((64, 64)).astype(np.float32) * 0.1
    g = tw.Graph()
    with g.as_default():
        x = tw.constant(xv)
        w = tw.Variable(w0)
        y = _loop_product(x, w, 5)
        update = w.assign_add(tw.ones([64, 64]) * 0.01)

        # A loop that updates the weight in each iteration and multiplies by the value read after the update.
        def body(t, acc):
            with tw.control_dependencies([w.assign_add(tw.ones([64, 64]) * 0.01)]):
                value = w.read_value()
            return t + 1, acc + tw.tanh(tw.matmul(x[t], value))

        z = tw.while_loop(lambda t, a: t < 5, body, [tw.constant(0), tw.zeros([32, 64])], parallel_iterations=1)[1]
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for step in range(3):
                np.testing.assert_allclose(sess.run(y), _want(xv, w0 + 0.01 * step), rtol=1e-4, atol=1e-4)
                sess.run(update)
            w3 = w0 + 0.03
            want = sum(np.tanh(xv[t].astype(np.float64) @ (w3 + 0.01 * (t + 1))) for t in range(5))
            np.testing.assert_allclose(sess.run(z), want, rtol=1e-4, atol=1e-4)


def test_packed_weight_is_not_kept_for_a_fed_array_changed_in_place():
    rng = np.random.RandomState(2)
    xv = rng.standard_normal((4, 32, 64)).astype(np.float32)
    wv = rng.standard_normal((64, 64)).astype(np.float32) * 0.1
    g = tw.Graph()
    with g.as_default():
        w = tw.placeholder(tw.float32, [64, 64])
        y = _loop_product(tw.constant(xv), w, 4)
        with tw.Session() as sess:
            for _ in range(3):
                np.testing.assert_allclose(sess.run(y, {w: wv}), _want(xv, wv), rtol=1e-4, atol=1e-4)
                wv *= -1.5  # the same array, new values
