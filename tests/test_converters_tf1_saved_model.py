"""TF1 SavedModels that TensorFlow wrote (simple_save, SavedModelBuilder) convert without TensorFlow: the core
loads the graph and TF's checkpoint (converters/tf1_saved_model.py). Each is written by TensorFlow, then
converted with TensorFlow hidden from the converter, and run on the lite runtime and in onnxruntime."""

import sys

import numpy as np
import pytest

from converters import lite_runner
from converters.cli import main as cli_main
from tf2_behavior import tf2_behavior

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1


def _saved(tmp_path, builder=False):
    """A TF1 CNN + dense head saved by TensorFlow; returns (path, input, {output key: TF's value})."""
    path = str(tmp_path / "tf1")
    rng = np.random.default_rng(0)
    x = rng.standard_normal([2, 6, 6, 3]).astype(np.float32)
    with tf.Graph().as_default() as g, v1.Session(graph=g) as sess:
        images = v1.placeholder(tf.float32, [None, 6, 6, 3], name="images")
        filt = v1.get_variable("conv/w", initializer=rng.standard_normal([3, 3, 3, 4]).astype(np.float32) * 0.3)
        h = tf.nn.relu(tf.nn.conv2d(images, filt, [1, 2, 2, 1], "SAME"))
        h = tf.reshape(h, [-1, 3 * 3 * 4])
        w = v1.get_variable("fc/w", initializer=rng.standard_normal([36, 5]).astype(np.float32) * 0.2)
        b = v1.get_variable("fc/b", initializer=np.linspace(-1, 1, 5, dtype=np.float32))
        logits = tf.nn.bias_add(tf.matmul(h, w), b, name="logits")
        scores = tf.nn.softmax(logits, name="scores")
        sess.run(v1.global_variables_initializer())
        want = dict(zip(["logits", "scores"], sess.run([logits, scores], {images: x})))
        if builder:
            b = v1.saved_model.builder.SavedModelBuilder(path)
            sig = v1.saved_model.signature_def_utils.predict_signature_def({"x": images}, {"scores": scores})
            b.add_meta_graph_and_variables(sess, [v1.saved_model.tag_constants.SERVING], {"classify": sig})
            b.save()
            want = {"scores": want["scores"]}
        else:
            v1.saved_model.simple_save(sess, path, {"x": images}, {"logits": logits, "scores": scores})
    return path, x, want


def _hide_tensorflow(monkeypatch):
    """TensorFlow hidden until the test ends: importing it fails, as on a machine without it."""
    for name in [m for m in sys.modules if m == "tensorflow" or m.startswith("tensorflow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorflow", None)


@pytest.mark.skipif(not lite_runner.available(), reason="needs bazel build //lite/c:libtensorweave_lite.so")
def test_simple_save_converts_without_tensorflow(tmp_path, monkeypatch):
    path, x, want = _saved(tmp_path)
    _hide_tensorflow(monkeypatch)
    with pytest.raises(ImportError):
        import tensorflow  # noqa: F401
    twl = str(tmp_path / "m.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    got = lite_runner.LiteRunner(open(twl, "rb").read()).run({"x": x})
    assert sorted(got) == ["logits", "scores"]
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5)
    onnxruntime = pytest.importorskip("onnxruntime")
    onnx_path = str(tmp_path / "m.onnx")
    assert cli_main(["--input", path, "--output", onnx_path]) == 0
    session = onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    for name, value in zip(names, session.run(None, {session.get_inputs()[0].name: x})):
        np.testing.assert_allclose(value, want[name], rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(not lite_runner.available(), reason="needs bazel build //lite/c:libtensorweave_lite.so")
def test_builder_signature_key_and_refusals_without_tensorflow(tmp_path, monkeypatch, capsys):
    path, x, want = _saved(tmp_path, builder=True)
    _hide_tensorflow(monkeypatch)
    twl = str(tmp_path / "m.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0  # its only signature, "classify"
    got = lite_runner.LiteRunner(open(twl, "rb").read()).run({"x": x})
    np.testing.assert_allclose(got["scores"], want["scores"], rtol=1e-4, atol=1e-5)
    assert cli_main(["--input", path, "--output", twl, "--signature", "nope"]) == 1
    assert "no signature 'nope'; it has ['classify']" in capsys.readouterr().err
    with open(f"{path}/saved_model.pb", "wb") as f:
        f.write(b"\x0a\xff garbage")
    assert cli_main(["--input", path, "--output", twl]) == 1
    assert "needs TensorFlow" in capsys.readouterr().err  # not readable as TF1: TensorFlow would be needed


def test_meta_graph_tensorflow_2_wrote_restores_and_trains_on_in_the_core(tmp_path):
    """A TF1 training program run on TensorFlow 2 (resource variables, ResourceApplyAdam, ResourceGather) saves a
    checkpoint and its meta graph; the core imports both (tw.train.import_meta_graph) and its next training steps
    give TensorFlow's values."""
    import tensorweave as tw

    prefix = str(tmp_path / "model.ckpt")
    rng = np.random.default_rng(1)
    ids, target = rng.integers(0, 6, [4, 3]), rng.standard_normal([4, 2]).astype(np.float32)
    with tf2_behavior(), tf.Graph().as_default() as g, v1.Session(graph=g) as sess:
        x = v1.placeholder(tf.int64, [None, 3], name="ids")
        y = v1.placeholder(tf.float32, [None, 2], name="y")
        table = v1.get_variable("table", initializer=rng.standard_normal([6, 4]).astype(np.float32))
        w = v1.get_variable("w", initializer=rng.standard_normal([4, 2]).astype(np.float32))
        pred = tf.matmul(tf.reduce_mean(tf.nn.embedding_lookup(table, x), 1), w, name="pred")
        loss = tf.reduce_mean(tf.square(pred - y), name="loss")
        step = v1.train.get_or_create_global_step()
        v1.train.AdamOptimizer(0.1).minimize(loss, global_step=step, name="train")
        saver = v1.train.Saver()
        sess.run(v1.global_variables_initializer())
        sess.run("train", {x: ids, y: target})
        saver.save(sess, prefix)
        assert any(op.type == "VarHandleOp" for op in g.get_operations())
        want = [sess.run(["train", "loss:0"], {x: ids, y: target})[1] for _ in range(3)]
        want_w = sess.run(w)
    with tw.Graph().as_default(), tw.Session() as sess:
        saver = tw.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        got = [sess.run(["train", "loss:0"], {"ids:0": ids, "y:0": target})[1] for _ in range(3)]
        np.testing.assert_allclose(got, want, rtol=1e-5)
        np.testing.assert_allclose(sess.run("w:0"), want_w, rtol=1e-5)
        assert sess.run("global_step:0") == 4
