"""TF 2 names in TF1 graph mode: GradientTape, Module, TensorSpec, function,
tf.queue, tf.manip — values checked against numpy and TensorFlow's graph mode."""

import numpy as np
import pytest
import tensorweave.compat.v1 as tw


def _tf():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    return tf


def _tape_program(t):
    """Gradients through a tape of watched tensors and of an unwatched one (TF's
    tape in graph mode takes no reference variables as sources)."""
    with t.Graph().as_default():
        x = t.placeholder(t.float32, [3], name="x")
        w = t.constant([0.5, -1.0, 2.0], name="w")
        c = t.constant([1.0, 1.0, 1.0])
        with t.GradientTape(persistent=True) as tape:
            tape.watch([x, w])
            y = t.reduce_sum(x * x * w + c)
            z = x * w
        gx, gw, gc = tape.gradient(y, [x, w, c])
        (gseed,) = tape.gradient(z, [x], output_gradients=[t.constant([1.0, 2.0, 3.0])])
        jac = tape.jacobian(z, x)
        with t.Session() as sess:
            sess.run(t.global_variables_initializer())
            out = sess.run([gx, gw, gseed, jac], {x: [1.0, 2.0, 3.0]})
    return out, gc


def test_gradient_tape_values():
    (gx, gw, gseed, jac), gc = _tape_program(tw)
    x, w = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(gx, 2 * x * w)
    np.testing.assert_allclose(gw, x * x)
    np.testing.assert_allclose(gseed, w * [1.0, 2.0, 3.0])
    np.testing.assert_allclose(jac, np.diag(w))
    assert gc is None  # a constant that was not watched


def test_gradient_tape_matches_tensorflow():
    tf = _tf()
    want, want_gc = _tape_program(tf)
    got, got_gc = _tape_program(tw)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert got_gc is None and want_gc is None


def test_trainable_variables_are_watched():
    with tw.Graph().as_default():
        v = tw.Variable([1.0, 2.0])
        with tw.GradientTape() as tape:
            y = tw.reduce_sum(v * v)
        g = tape.gradient(y, v)
        with tw.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_allclose(sess.run(g), [2.0, 4.0])


def test_non_persistent_tape_is_used_once():
    with tw.Graph().as_default():
        v = tw.Variable(2.0)
        with tw.GradientTape() as tape:
            y = v * v
        assert tape.gradient(y, v) is not None
        assert tape.watched_variables() == ()
        with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
            tape.gradient(y, v)
        with tw.GradientTape(watch_accessed_variables=False) as tape2:
            y2 = v * 3.0
        assert tape2.gradient(y2, v) is None
        with pytest.raises(ValueError, match="not a Tensor"):
            tape2.watch("x")


class _Dense(tw.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tw.Variable(np.ones([n_in, n_out], np.float32), name="w")
            self.b = tw.Variable(np.zeros([n_out], np.float32), name="b")
            self.steps = tw.Variable(0, trainable=False, name="steps")

    @tw.Module.with_name_scope
    def __call__(self, x):
        return tw.matmul(x, self.w) + self.b


class Mlp(tw.Module):
    def __init__(self):
        super().__init__()
        self.layers = [_Dense(2, 3, name="first"), _Dense(3, 1, name="second")]


def test_module_tracks_variables_and_submodules():
    with tw.Graph().as_default():
        mlp = Mlp()
        assert mlp.name == "mlp"
        assert [m.name for m in mlp.submodules] == ["first", "second"]
        assert [v.op.name for v in mlp.trainable_variables] == ["first/b", "first/w", "second/b", "second/w"]
        assert [v.op.name for v in mlp.non_trainable_variables] == ["first/steps", "second/steps"]
        assert len(mlp.variables) == 6
        y = mlp.layers[1](mlp.layers[0](tw.constant([[1.0, 2.0]])))
        assert y.op.name.startswith("second/")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), [[9.0]])
    with pytest.raises(ValueError, match="not a valid module name"):
        tw.Module(name="a b")


def test_module_order_matches_tensorflow():
    tf = _tf()

    def names(t):
        class Block(t.Module):
            def __init__(self):
                super().__init__(name="block")
                self.zeta = t.Variable(1.0, name="zeta")
                self.alpha = {"k": t.Variable(2.0, name="alpha")}
                self.inner = t.Module(name="inner")
                self.inner.v = t.Variable(3.0, name="v")

        with t.Graph().as_default():
            b = Block()
            return [v.name for v in b.variables], [m.name for m in b.submodules]

    assert names(tw) == names(tf)


def test_tensor_spec():
    spec = tw.TensorSpec([None, 3], tw.float32, name="x")
    assert repr(spec) == "TensorSpec(shape=(?, 3), dtype=tf.float32, name='x')"
    with tw.Graph().as_default():
        a = tw.placeholder(tw.float32, [5, 3], name="a")
        assert spec.is_compatible_with(a)
        assert not spec.is_compatible_with(tw.placeholder(tw.int32, [5, 3]))
        assert not spec.is_compatible_with(tw.placeholder(tw.float32, [5, 4]))
        assert tw.TensorSpec.from_tensor(a) == tw.TensorSpec([5, 3], tw.float32, "a")
    assert spec == tw.TensorSpec([None, 3], "float32", "x") and spec != tw.TensorSpec([None, 3], tw.float32)
    assert len({spec, tw.TensorSpec([None, 3], tw.float32, "x")}) == 1


def test_function_traces_into_the_graph():
    calls = []

    @tw.function(input_signature=[tw.TensorSpec([None], tw.float32)])
    def scale(x):
        calls.append(1)
        return x * 2.0

    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None])
        y = scale(x)
        assert y.op.name.startswith("scale/")
        with tw.Session() as sess:
            np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
        with pytest.raises(ValueError, match="not compatible"):
            scale(tw.placeholder(tw.float32, [2, 2]))
        with pytest.raises(TypeError, match="input_signature has 1"):
            scale(x, x)
    assert scale.python_function(3.0) == 6.0


def test_queue_and_manip_modules():
    with tw.Graph().as_default():
        q = tw.queue.FIFOQueue(3, tw.int32)
        enq = q.enqueue_many([[1, 2, 3]])
        r = tw.manip.roll(tw.constant([1, 2, 3, 4]), shift=1, axis=0)
        with tw.Session() as sess:
            sess.run(enq)
            assert sess.run(q.dequeue()) == 1
            np.testing.assert_array_equal(sess.run(r), [4, 1, 2, 3])
    assert tw.graph_util.import_graph_def is tw.import_graph_def
