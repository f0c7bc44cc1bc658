"""Regression tests for the differences the s18 sweep of TF1 programs (tests/tf1_programs/p51..) found, each
checked against TensorFlow's compat.v1 behaviour."""

import numpy as np
import pytest
import tensorweave as tw


def test_cast_sparse_tensor_casts_values():
    """tf.cast of a SparseTensor (a CTC decoding cast to int32 for edit_distance, p51) casts its values."""
    with tw.Graph().as_default():
        st = tw.SparseTensor([[0, 1], [1, 0]], tw.constant([1, 2], tw.int64), [2, 3])
        cast = tw.cast(st, tw.int32)
        assert isinstance(cast, tw.SparseTensor)
        assert cast.values.dtype == tw.int32 and cast.values.op.name == "Cast"
        sl = tw.IndexedSlices(tw.constant([[1.5, 2.5]]), tw.constant([1]), tw.constant([3, 2]))
        sl_cast = tw.cast(sl, tw.int32)
        assert isinstance(sl_cast, tw.IndexedSlices) and sl_cast.values.dtype == tw.int32
        with tw.Session() as sess:
            got = sess.run(cast)
            assert got.values.tolist() == [1, 2] and got.values.dtype == np.int32
            assert got.indices.tolist() == [[0, 1], [1, 0]] and got.dense_shape.tolist() == [2, 3]
            assert sess.run(sl_cast.values).tolist() == [[1, 2]]


def test_partial_run_feeds_in_stages():
    """sess.partial_run_setup / partial_run (p52): feeds given in stages, each fetch computed once, and TF's
    InvalidArgumentError for a feed or fetch not set up, or fetched twice."""
    with tw.Graph().as_default():
        a = tw.placeholder(tw.float32, [])
        b = tw.placeholder(tw.float32, [])
        c = tw.placeholder(tw.float32, [])
        r1 = a + b
        noise = tw.random_uniform([])
        r1n = r1 + noise
        r2 = r1n * c
        with tw.Session() as sess:
            h = sess.partial_run_setup([r1, r1n, r2], [a, b, c])
            assert sess.partial_run(h, r1, feed_dict={a: 1.0, b: 2.0}) == 3.0
            v1 = sess.partial_run(h, r1n)
            # r2 uses the same draw of `noise` as the r1n already fetched (one step for the handle)
            assert sess.partial_run(h, r2, feed_dict={c: 2.0}) == pytest.approx(v1 * 2.0)
            with pytest.raises(tw.errors.InvalidArgumentError, match="has already been fetched"):
                sess.partial_run(h, r1)
            h2 = sess.partial_run_setup([r1], [a, b])
            with pytest.raises(tw.errors.InvalidArgumentError, match="was not specified in partial_run_setup"):
                sess.partial_run(h2, r1, feed_dict={c: 1.0})
            with pytest.raises(tw.errors.InvalidArgumentError, match="was not specified in partial_run_setup"):
                sess.partial_run(h2, r2, feed_dict={a: 1.0, b: 1.0})
            sess.partial_run(h2, r1, feed_dict={a: 1.0, b: 1.0})
            with pytest.raises(tw.errors.InvalidArgumentError, match="has already been fed"):
                h3 = sess.partial_run_setup([r1, r2], [a, b, c])
                sess.partial_run(h3, r1, feed_dict={a: 1.0, b: 1.0})
                sess.partial_run(h3, r2, feed_dict={a: 1.0, c: 1.0})


def test_partial_run_matches_tensorflow():
    tf = pytest.importorskip("tensorflow").compat.v1
    results = []
    for mod in (tf, tw):
        with mod.Graph().as_default():
            a = mod.placeholder(mod.float32, [])
            b = mod.placeholder(mod.float32, [])
            r1 = a * 2.0
            r2 = r1 + b
            with mod.Session() as sess:
                h = sess.partial_run_setup([r1, r2], [a, b])
                got = [sess.partial_run(h, r1, {a: 3.0}), sess.partial_run(h, [r2], {b: 1.0})]
                results.append(got)
    assert results[0] == results[1] == [6.0, [7.0]]


def _keras_run(keras, workdir):
    """fit, then train_on_batch (metric totals carried from fit), save to HDF5, load_model, train on."""
    import os

    rng = np.random.RandomState(0)
    x = rng.randn(32, 3).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    init = keras.initializers.Constant(0.1)
    inp = keras.Input((3,))
    out = keras.layers.Dense(2, activation="softmax", kernel_initializer=init)(
        keras.layers.Dense(4, kernel_initializer=init)(inp)
    )
    model = keras.Model(inp, out)
    model.compile(keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy", metrics=["accuracy"])
    got = {"fit": model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history}
    got["after_fit"] = model.train_on_batch(x[:8], y[:8])
    got["second"] = model.train_on_batch(x[:8], y[:8], reset_metrics=False)
    got["third"] = model.test_on_batch(x[8:16], y[8:16])
    model.evaluate(x, y, verbose=0)
    got["after_eval"] = model.test_on_batch(x[:8], y[:8])
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, "m.h5")
    model.save(path)
    loaded = keras.models.load_model(path)
    got["iterations"] = int(keras.backend.get_value(loaded.optimizer.iterations))
    got["slots"] = [
        np.allclose(a, b) for a, b in zip(loaded.optimizer.get_weights()[1:], model.optimizer.get_weights()[1:])
    ]
    got["loaded_train"] = loaded.train_on_batch(x[:8], y[:8])
    got["weights"] = loaded.get_weights()[0]
    return got


def test_keras_metric_totals_and_optimizer_state_match_tf_keras(tmp_path):
    """tf_keras (v1 graph mode) leaves its metrics' totals after fit / evaluate, so the next train_on_batch /
    test_on_batch reports them with its batch (p55); load_model restores the optimizer's iterations and slots
    from the file's `optimizer_weights`, so training continues where it stopped."""
    tf = pytest.importorskip("tensorflow")
    tf_keras = pytest.importorskip("tf_keras")
    import subprocess
    import sys

    code = (
        "import pickle; from tests.tf1_programs.runner import import_system; tf = import_system('tensorflow');"
        "from tests.test_tf1_sweep_s18 import _keras_run;"
        f"pickle.dump(_keras_run(tf.keras, {str(tmp_path)!r}), open({str(tmp_path / 'tf.pkl')!r}, 'wb'))"
    )
    del tf, tf_keras
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import pickle

    with open(tmp_path / "tf.pkl", "rb") as f:
        theirs = pickle.load(f)
    tw.keras.backend.clear_session()
    try:
        ours = _keras_run(tw.keras, str(tmp_path / "tw"))
    finally:
        tw.keras.backend.clear_session()
    from tests.tf1_programs.compare import differences

    assert not differences(ours, theirs)
    assert ours["iterations"] == 10 and all(ours["slots"])


def test_gradient_override_map():
    """Graph.gradient_override_map (p57): ops of a mapped type made inside use the gradient registered under the
    new name, ops outside keep theirs; TF's TypeError for a map that is not strings to strings."""
    tf = pytest.importorskip("tensorflow").compat.v1
    results = []
    for mod, name in ((tf, "S18TfSquareGrad"), (tw, "S18TwSquareGrad")):

        @mod.RegisterGradient(name)
        def _grad(op, grad):
            return grad * 3.0 + 1.0

        g = mod.Graph()
        with g.as_default():
            x = mod.constant([1.0, 2.0])
            with g.gradient_override_map({"Square": name}):
                y = mod.square(x)
            z = mod.square(x)
            grads = mod.gradients([mod.reduce_sum(y), mod.reduce_sum(z)], x)[0]
            assert y.op.get_attr("_gradient_op_type") == name.encode()
            with pytest.raises(ValueError):
                z.op.get_attr("_gradient_op_type")
            with pytest.raises(TypeError, match="op_type_map must be a dictionary mapping strings to strings"):
                g.gradient_override_map({"Square": 1}).__enter__()
            with mod.Session() as sess:
                results.append(sess.run(grads).tolist())
    assert results[0] == results[1] == [6.0, 8.0]


def test_variable_load_in_finalized_graph():
    """Variable.load inside a Scaffold init_fn (the graph finalized by the monitored session, p62) feeds the
    initializer's value as TF does instead of adding ops; the graph stays unchanged."""
    with tw.Graph().as_default() as g:
        w = tw.get_variable("w", [2], initializer=tw.zeros_initializer())
        v = tw.Variable(1.0, name="v")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            g.finalize()
            n_ops = len(g.get_operations())
            w.load([1.5, -2.0], sess)
            v.load(4.0, sess)
            assert sess.run(w).tolist() == [1.5, -2.0] and sess.run(v) == 4.0
            assert len(g.get_operations()) == n_ops
            with pytest.raises(ValueError):
                w.load([1.0, 2.0, 3.0], sess)


def test_feed_key_not_a_tensor_message():
    """A feed_dict key naming no tensor: TF's TypeError wording, "Cannot interpret feed_dict key as Tensor: "
    followed by the lookup's message (p69)."""
    tf = pytest.importorskip("tensorflow").compat.v1
    messages = []
    for mod in (tf, tw):
        with mod.Graph().as_default():
            x = mod.placeholder(mod.float32, [None], name="x")
            with mod.Session() as sess, pytest.raises(TypeError) as info:
                sess.run(x * 2.0, {"nope:0": [1.0]})
            messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[1].startswith("Cannot interpret feed_dict key as Tensor: The name 'nope:0' refers to a Tensor")
