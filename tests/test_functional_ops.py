"""map_fn, scan, foldl and foldr (TF1's, built on while_loop + TensorArray): values against numpy, nested
elements and accumulators, TF1's errors, gradients against central differences; TensorArrays inside while loops;
an RNN written with while_loop + TensorArray trained by backpropagation through time."""

import numpy as np
import pytest
import tensorweave as tw


def _run(fetches, feed_dict=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed_dict)


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for j in range(x.size):
        d = np.zeros_like(x)
        d.flat[j] = eps
        g.flat[j] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


# --- TensorArray in a while loop -----------------------------------------------------------------------------------


def test_tensor_array_written_in_a_while_loop_with_dynamic_size():
    with tw.Graph().as_default():
        n = tw.placeholder(tw.int32, [])
        ta = tw.TensorArray(tw.float32, size=0, dynamic_size=True)

        def body(i, ta):
            return i + 1, ta.write(i, tw.cast(i * i, tw.float32))

        _, ta = tw.while_loop(lambda i, ta: i < n, body, [tw.constant(0), ta])
        out = _run([ta.stack(), ta.size()], {n: 5})
    np.testing.assert_array_equal(out[0], [0.0, 1.0, 4.0, 9.0, 16.0])
    assert out[1] == 5


def test_tensor_array_read_in_a_while_loop():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tw.Graph().as_default():
        ta = tw.TensorArray(tw.float32, size=3).unstack(x)
        _, total = tw.while_loop(
            lambda i, a: i < 3, lambda i, a: (i + 1, a + ta.read(i)), [tw.constant(0), tw.zeros([2])]
        )
        out = _run(total)
    np.testing.assert_array_equal(out, x.sum(0))


# --- map_fn --------------------------------------------------------------------------------------------------------


def test_map_fn_against_numpy_and_static_shape():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tw.Graph().as_default():
        y = tw.map_fn(lambda r: r * r + 1.0, tw.constant(x))
        assert y.shape.as_list() == [4, 3]
        np.testing.assert_array_equal(_run(y), x * x + 1.0)


def test_map_fn_nested_elems_and_dtype():
    a = np.arange(3, dtype=np.int32)
    b = np.arange(3, dtype=np.float32) * 0.5
    with tw.Graph().as_default():
        out = tw.map_fn(lambda t: (t[0] * 2, t[1] + tw.cast(t[0], tw.float32)), (a, b), dtype=(tw.int32, tw.float32))
        got = _run(out)
    np.testing.assert_array_equal(got[0], a * 2)
    np.testing.assert_array_equal(got[1], b + a)


def test_map_fn_of_unknown_length():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None])
        y = tw.map_fn(lambda v: v * 3.0, x)
        assert y.shape.as_list() == [None]
        np.testing.assert_array_equal(_run(y, {x: [1.0, 2.0]}), [3.0, 6.0])


def test_map_fn_errors():
    with tw.Graph().as_default():
        with pytest.raises(TypeError, match="fn must be callable"):
            tw.map_fn(3, [1.0])
        with pytest.raises(ValueError, match="elems must be a 1\\+ dimensional Tensor"):
            tw.map_fn(lambda v: v, tw.constant(1.0))
        with pytest.raises(ValueError, match="same nested structure"):
            tw.map_fn(lambda v: (v, v), tw.constant([1.0, 2.0]))


# --- scan, foldl, foldr --------------------------------------------------------------------------------------------


def test_scan_foldl_foldr_against_numpy():
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    with tw.Graph().as_default():
        c = tw.constant(x)
        s = tw.scan(lambda a, v: a + v, c)
        s_init = tw.scan(lambda a, v: a * v, c, initializer=tw.constant(2.0))
        s_rev = tw.scan(lambda a, v: a + v, c, reverse=True)
        fl = tw.foldl(lambda a, v: a * 10.0 + v, c)
        fr = tw.foldr(lambda a, v: a * 10.0 + v, c)
        fl_init = tw.foldl(lambda a, v: a - v, c, initializer=tw.constant(100.0))
        out = _run([s, s_init, s_rev, fl, fr, fl_init])
    np.testing.assert_array_equal(out[0], np.cumsum(x))
    np.testing.assert_array_equal(out[1], 2.0 * np.cumprod(x))
    np.testing.assert_array_equal(out[2], np.cumsum(x[::-1])[::-1])
    assert out[3] == 1234.0 and out[4] == 4321.0 and out[5] == 90.0


def test_scan_with_nested_accumulator():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    with tw.Graph().as_default():
        out = tw.scan(
            lambda acc, v: {"sum": acc["sum"] + v, "count": acc["count"] + 1},
            tw.constant(x),
            initializer={"sum": tw.constant(0.0), "count": tw.constant(0)},
        )
        got = _run(out)
    np.testing.assert_array_equal(got["sum"], np.cumsum(x))
    np.testing.assert_array_equal(got["count"], [1, 2, 3])


def test_gradients_through_map_fn_scan_and_foldl():
    rng = np.random.default_rng(2)
    x0 = rng.uniform(0.5, 1.5, (4, 2))
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float64, [4, 2])
        w = tw.constant(rng.standard_normal((4, 2)))
        ys = [
            tw.reduce_sum(tw.map_fn(lambda r: tw.sin(r) * r, x) * w),
            tw.reduce_sum(tw.scan(lambda a, r: a * r + 1.0, x) * w),
            tw.reduce_sum(tw.foldl(lambda a, r: a * r, x) * w[0]),
            tw.reduce_sum(tw.foldr(lambda a, r: a * tw.cos(r), x, initializer=tw.ones([2], tw.float64))),
        ]
        with tw.Session() as sess:
            for y in ys:
                (g,) = sess.run(tw.gradients(y, x), {x: x0})
                want = _numeric_grad(lambda v, y=y: sess.run(y, {x: v}), x0)
                np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)


# --- an RNN by while_loop + TensorArray, trained (BPTT) --------------------------------------------------------------


def test_rnn_with_while_loop_and_tensor_array_trains():
    rng = np.random.default_rng(3)
    steps, batch, features, hidden = 6, 8, 3, 8
    data = rng.standard_normal((steps, batch, features)).astype(np.float32)
    # Target: the sum over time of the first feature (needs memory across steps).
    target = data[:, :, :1].sum(0)
    with tw.Graph().as_default():
        tw.set_random_seed(0)
        x = tw.placeholder(tw.float32, [None, batch, features])
        y = tw.placeholder(tw.float32, [batch, 1])
        wx = tw.Variable(tw.random_normal([features, hidden], stddev=0.3, seed=1))
        wh = tw.Variable(tw.random_normal([hidden, hidden], stddev=0.3, seed=2))
        wo = tw.Variable(tw.random_normal([hidden, 1], stddev=0.3, seed=3))
        n = tw.shape(x)[0]
        inputs = tw.TensorArray(tw.float32, size=n).unstack(x)
        outputs = tw.TensorArray(tw.float32, size=n)

        # The weights' values are read once before the loop (a variable used directly in a while body cannot
        # be updated by an optimizer yet: the executor sees its update in the loop's frame; reported).
        wx_value, wh_value = tw.identity(wx), tw.identity(wh)

        def body(t, h, outputs):
            h = tw.tanh(tw.matmul(inputs.read(t), wx_value) + tw.matmul(h, wh_value))
            return t + 1, h, outputs.write(t, h)

        _, h_last, outputs = tw.while_loop(
            lambda t, h, o: t < n, body, [tw.constant(0), tw.zeros([batch, hidden]), outputs]
        )
        states = outputs.stack()
        pred = tw.matmul(h_last, wo)
        loss = tw.reduce_mean(tw.square(pred - y)) + 0.0 * tw.reduce_sum(states)
        train = tw.train.AdamOptimizer(0.05).minimize(loss)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            first = sess.run(loss, {x: data, y: target})
            for _ in range(150):
                sess.run(train, {x: data, y: target})
            last = sess.run(loss, {x: data, y: target})
    assert last < 0.2 * first, (first, last)
