"""While loops and conds survive export_meta_graph / import_meta_graph: their WhileContext / CondContext are saved
in the "while_context" / "cond_context" collections (TF's WhileContextDef / CondContextDef) and rebuilt on import,
so that gradients through an imported loop or cond work and an imported model trains.

Oracles: the gradients of the original graph, central differences in float64 on the imported graph, TensorFlow 1's
values for a meta graph TensorFlow exported (tests/data/tf1_loop.meta, written by
tests/data/make_tf1_loop_meta_graph.py), and, where TensorFlow is installed, TensorFlow importing a meta graph that
tensorweave exported.
"""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.framework import control_flow_pb2
from tensorweave._src.ops import control_flow_ops

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
X = np.array([0.1, 0.2, -0.3])
W = np.array([0.5, -0.3, 0.8])


# --- the models: a loss of a placeholder x and a variable w, computed through control flow ---------------------


def _loop(x, w):
    _, h = tw.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tw.tanh(h * w + x)), [0, tw.ones([3], tw.float64)])
    return h


def _nested_loops(x, w):
    def body(i, h):
        _, a = tw.while_loop(lambda j, a: j < 2, lambda j, a: (j + 1, tw.sin(a) * w + x), [0, h])
        return i + 1, a * 0.9

    return tw.while_loop(lambda i, h: i < 3, body, [0, tw.ones([3], tw.float64)])[1]


def _cond_in_loop(x, w):
    def body(i, h):
        return i + 1, tw.cond(i < 2, lambda: tw.tanh(h + x), lambda: h * w)

    return tw.while_loop(lambda i, h: i < 4, body, [0, tw.ones([3], tw.float64)])[1]


def _loop_in_cond(x, w):
    # The cond's predicate depends on neither x nor w: the same branch runs at every finite-difference point.
    p = tw.placeholder_with_default(True, [], name="p")
    return tw.cond(p, lambda: _loop(x, w), lambda: x * w)


def _tf1_model(x, w):
    """The model of tests/data/make_tf1_loop_meta_graph.py: a loop holding a nested loop and a cond."""

    def body(i, h):
        _, a = tw.while_loop(lambda j, a: j < 2, lambda j, a: (j + 1, tw.sin(a) * w + x), [0, h])
        return i + 1, tw.cond(i < 2, lambda: tw.tanh(a + x), lambda: a * 1.5)

    return tw.while_loop(lambda i, h: i < 4, body, [0, tw.ones([3], tw.float64)])[1]


def _max_iterations(x, w):
    return tw.while_loop(lambda h: tw.constant(True), lambda h: tw.sin(h * w) + x, [x], maximum_iterations=3)


MODELS = {
    "loop": _loop,
    "nested_loops": _nested_loops,
    "cond_in_loop": _cond_in_loop,
    "loop_in_cond": _loop_in_cond,
    "max_iterations": _max_iterations,
}


def _build(model):
    x = tw.placeholder(tw.float64, [3], name="x")
    w = tw.Variable(W, name="w")
    loss = tw.reduce_sum(tw.square(model(x, w)), name="loss")
    tw.add_to_collection("loss", loss)
    return x, w, loss


def _export(model, path=None):
    """Builds `model` in a fresh graph, exports it; (meta graph, its loss / dx / dw at X)."""
    with tw.Graph().as_default():
        x, w, loss = _build(model)
        meta = tw.train.export_meta_graph(filename=path)
        dx, dw = tw.gradients(loss, [x, w])
        with tw.Session() as sess:
            sess.run(w.initializer)
            return meta, sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: X})


def _imported(graph, scope=None):
    """The loss, x and w of a model imported into `graph` (under `scope`)."""
    prefix = f"{scope}/" if scope else ""
    [loss] = [t for t in tw.get_collection("loss") if t.name.startswith(prefix)]
    x = graph.get_tensor_by_name(prefix + "x:0")
    [w] = [v for v in tw.global_variables() if v.op.name == prefix + "w"]
    return loss, x, w


def _finite_differences(sess, loss, x, w, eps=1e-6):
    """Central differences of the loss in x (fed) and w (loaded)."""
    dx, dw = np.zeros(3), np.zeros(3)
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        dx[i] = (sess.run(loss, {x: X + e}) - sess.run(loss, {x: X - e})) / (2 * eps)
        w.load(W + e, sess)
        up = sess.run(loss, {x: X})
        w.load(W - e, sess)
        dw[i] = (up - sess.run(loss, {x: X})) / (2 * eps)
    w.load(W, sess)
    return dx, dw


def _protos(contexts):
    return [c.to_proto() for c in contexts]


def _parsed(key, data):
    proto_type = control_flow_pb2.WhileContextDef if key == "while_context" else control_flow_pb2.CondContextDef
    return [proto_type.FromString(x) for x in data]


# --- round trips -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", [None, "imported"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_gradients_through_an_imported_loop(tmp_path, name, scope):
    path = str(tmp_path / "model.meta")
    _, original = _export(MODELS[name], path)
    with tw.Graph().as_default() as graph:
        tw.train.import_meta_graph(path, import_scope=scope)
        loss, x, w = _imported(graph, scope)
        dx, dw = tw.gradients(loss, [x, w])
        with tw.Session() as sess:
            sess.run(w.initializer)
            got = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: X})
            fd_x, fd_w = _finite_differences(sess, loss, x, w)
    for key in ("loss", "dx", "dw"):
        np.testing.assert_allclose(got[key], original[key], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["dx"], fd_x, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got["dw"], fd_w, rtol=1e-5, atol=1e-7)
    assert np.any(np.abs(got["dw"]) > 1e-3)  # the loss depends on w through the loop


@pytest.mark.parametrize("name", sorted(MODELS))
def test_contexts_round_trip_to_the_same_protos(name):
    with tw.Graph().as_default() as graph:
        _build(MODELS[name])
        saved = {key: _protos(tw.get_collection(key)) for key in ("while_context", "cond_context")}
        meta = tw.train.export_meta_graph()
    assert saved["while_context"] or saved["cond_context"]
    for key, protos in saved.items():
        assert _parsed(key, meta.collection_def[key].bytes_list.value if protos else []) == protos
    with tw.Graph().as_default() as graph:
        tw.train.import_meta_graph(meta)
        assert {key: _protos(tw.get_collection(key)) for key in saved} == saved
        # Every op of a loop belongs to its (imported) context, and only the loop variables' Switches are the
        # loop's switches.
        for context in tw.get_collection("while_context"):
            for enter in context.loop_enters:
                assert enter.op._control_flow_context is context
                assert enter.op.get_attr("frame_name") == context.name.encode()
            switches = [op for op in graph.get_operations() if control_flow_ops._is_loop_switch(op)]
            assert switches and all(op.inputs[1].op.type == "LoopCond" for op in switches)


def test_collections_hold_the_outermost_contexts_and_nest_the_others():
    with tw.Graph().as_default():
        _build(_tf1_model)
        [outer] = tw.get_collection(tw.GraphKeys.WHILE_CONTEXT)
        assert tw.get_collection(tw.GraphKeys.COND_CONTEXT) == []
        proto = outer.to_proto()
    assert (tw.GraphKeys.WHILE_CONTEXT, tw.GraphKeys.COND_CONTEXT) == ("while_context", "cond_context")
    assert proto.context_name == "while/while_context" and proto.pivot_name == "while/LoopCond:0"
    assert [n.WhichOneof("ctxt") for n in proto.nested_contexts] == ["while_ctxt", "cond_ctxt", "cond_ctxt"]
    inner, cond_t, cond_f = proto.nested_contexts
    assert inner.while_ctxt.context_name == "while/while/while_context"
    assert (cond_t.cond_ctxt.branch, cond_f.cond_ctxt.branch) == (1, 0)
    assert cond_t.cond_ctxt.pivot_name == "while/cond/switch_t:0"
    # A value from outside the loop enters through an Enter: an external value of the loop.
    assert proto.values_def.external_values["x:0"].startswith("while/")


def test_one_meta_graph_imported_twice_runs_in_frames_of_its_own():
    meta, original = _export(_nested_loops)
    with tw.Graph().as_default() as graph:
        tw.train.import_meta_graph(meta, import_scope="a")
        tw.train.import_meta_graph(meta, import_scope="b")
        frames = {op.get_attr("frame_name") for op in graph.get_operations() if op.type == "Enter"}
        assert frames == {b"a/while/while_context", b"a/while/while/while_context"} | {
            b"b/while/while_context",
            b"b/while/while/while_context",
        }
        fetches = {}
        for scope in ("a", "b"):
            loss, x, w = _imported(graph, scope)
            fetches[scope] = (loss, tw.gradients(loss, [x, w]), x, w)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for scope, (loss, grads, x, w) in fetches.items():
                feed = {fetches["a"][2]: X, fetches["b"][2]: X}
                got_loss, (dx, dw) = sess.run([loss, grads], feed)
                np.testing.assert_allclose(got_loss, original["loss"], rtol=1e-12)
                np.testing.assert_allclose(dx, original["dx"], rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(dw, original["dw"], rtol=1e-12, atol=1e-12)


def test_an_imported_loop_model_trains(tmp_path):
    """optimizer.minimize on a loss computed by an imported while loop (with a cond in it) takes the same steps
    as on the original graph, and the loss goes down."""
    prefix = str(tmp_path / "model.ckpt")
    with tw.Graph().as_default(), tw.Session() as sess:
        x, w, loss = _build(_cond_in_loop)
        sess.run(w.initializer)
        path = tw.train.Saver().save(sess, prefix)  # writes model.ckpt.meta, before any gradient exists
        train = tw.train.GradientDescentOptimizer(0.05).minimize(loss)
        original = [sess.run([loss, train], {x: X})[0] for _ in range(15)]
    with tw.Graph().as_default() as graph, tw.Session() as sess:
        saver = tw.train.import_meta_graph(path + ".meta")
        saver.restore(sess, path)
        loss, x, w = _imported(graph)
        train = tw.train.GradientDescentOptimizer(0.05).minimize(loss)
        losses = [sess.run([loss, train], {x: X})[0] for _ in range(15)]
    np.testing.assert_allclose(losses, original, rtol=1e-12)
    assert losses[-1] < 0.5 * losses[0]
    assert all(b < a for a, b in zip(losses, losses[1:]))


def test_an_imported_loop_keeps_its_shapes():
    """Shape inference cannot see through a loop's back edges; the shapes the build gave the loop are written
    (`_output_shapes`, as TF1 writes them) and restored, so shape-dependent gradients (Sum's) work."""
    meta, _ = _export(_loop)
    with tw.Graph().as_default() as graph:
        tw.train.import_meta_graph(meta)
        for name in ("while/Enter_1:0", "while/Merge_1:0", "while/Exit_1:0", "Square:0"):
            assert graph.get_tensor_by_name(name).shape.as_list() == [3], name
        # The attr that carried them is not left on the imported nodes.
        assert all("_output_shapes" not in n.attr for n in graph.as_graph_def().node)


# --- failure paths -------------------------------------------------------------------------------------------


def test_a_context_naming_a_missing_tensor_is_a_clear_error():
    meta, _ = _export(_loop)
    [data] = meta.collection_def["while_context"].bytes_list.value
    context_def = control_flow_pb2.WhileContextDef.FromString(data)
    context_def.pivot_name = "while/NoSuchLoopCond:0"
    del meta.collection_def["while_context"].bytes_list.value[:]
    meta.collection_def["while_context"].bytes_list.value.append(context_def.SerializeToString())
    with tw.Graph().as_default(), pytest.raises(ValueError, match="while/NoSuchLoopCond:0"):
        tw.train.import_meta_graph(meta)


def test_a_malformed_context_proto_is_a_clear_error():
    meta, _ = _export(_cond_in_loop)
    meta.collection_def["while_context"].bytes_list.value.append(b"\x0a\xff\xff")
    with tw.Graph().as_default(), pytest.raises(ValueError, match="'while_context' collection .* malformed"):
        tw.train.import_meta_graph(meta)


# --- TensorFlow 1 ----------------------------------------------------------------------------------------------


def _import_tf1_file(graph, path):
    tw.train.import_meta_graph(path)
    [loss] = tw.get_collection("loss")
    [w] = tw.global_variables()
    return loss, graph.get_tensor_by_name("x:0"), w


def test_a_loop_exported_by_tensorflow_imports_with_tensorflows_gradients():
    with open(os.path.join(DATA, "tf1_loop.json")) as f:
        reference = json.load(f)
    with tw.Graph().as_default() as graph:
        loss, x, w = _import_tf1_file(graph, os.path.join(DATA, "tf1_loop.meta"))
        [context] = tw.get_collection("while_context")
        assert [c.name for c in context._nested_contexts] == [
            "while/while/while_context",
            "while/cond/cond_text",
            "while/cond/cond_text_1",
        ]
        dx, dw = tw.gradients(loss, [x, w])
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: reference["x"]})
            fd_x, fd_w = _finite_differences(sess, loss, x, w)
    for key in ("loss", "dx", "dw"):
        np.testing.assert_allclose(got[key], reference[key], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got["dx"], fd_x, rtol=1e-5)
    np.testing.assert_allclose(got["dw"], fd_w, rtol=1e-5)


TF_BOTH_WAYS = textwrap.dedent(
    """
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    import make_tf1_loop_meta_graph as make
    import tensorflow.compat.v1 as tf
    make.main(sys.argv[2])  # TensorFlow exports its meta graph again (and disables v2 behaviour)
    results = []
    for path in sys.argv[3:]:
        with tf.Graph().as_default() as g:
            tf.train.import_meta_graph(path)
            [loss] = tf.get_collection("loss")
            [w] = tf.global_variables()
            x = g.get_tensor_by_name("x:0")
            contexts = [[c.name for c in tf.get_collection(key)] for key in ("while_context", "cond_context")]
            dx, dw = tf.gradients(loss, [x, w])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                values = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: make.X})
        results.append({"contexts": contexts, **{k: v.tolist() for k, v in values.items()}})
    # A loop inside a top-level cond, exported by TensorFlow (raw Add: TF's `+` builds AddV2).
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3], name="x")
        w = tf.Variable([0.5, -0.3, 0.8], dtype=tf.float64, name="w")
        p = tf.placeholder_with_default(True, [], name="p")
        loop = lambda: tf.while_loop(lambda i, h: i < 4, lambda i, h: (tf.raw_ops.Add(x=i, y=1),
                                     tf.tanh(tf.raw_ops.Add(x=h * w, y=x))), [0, tf.ones([3], tf.float64)])[1]
        loss = tf.reduce_sum(tf.square(tf.cond(p, loop, lambda: x * w)), name="loss")
        tf.add_to_collection("loss", loss)
        tf.train.export_meta_graph(os.path.join(sys.argv[2], "tf1_loop_in_cond.meta"))
        dx, dw = tf.gradients(loss, [x, w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: make.X})
        results.append({k: v.tolist() for k, v in values.items()})
    print(json.dumps(results))
    """
)


def test_tensorflow_and_tensorweave_import_each_others_loops(tmp_path):
    """TensorFlow 1 (in a subprocess) imports meta graphs tensorweave exported (the model of
    make_tf1_loop_meta_graph.py, and a loop inside a cond) and gets tensorweave's values and gradients; the meta
    graph it exports again imports into tensorweave with the same values as the checked-in one (which is thereby
    current)."""
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("tensorflow is not installed")
    paths, ours = [], []
    for name, model in (("tf1_model", _tf1_model), ("loop_in_cond", _loop_in_cond)):
        paths.append(str(tmp_path / f"tensorweave_{name}.meta"))
        ours.append(_export(model, paths[-1])[1])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run(
        [sys.executable, "-c", TF_BOTH_WAYS, DATA, str(tmp_path), *paths],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    assert [t.get("contexts") for t in theirs] == [
        [["while/while_context"], []],
        [[], ["cond/cond_text", "cond/cond_text_1"]],
        None,
    ]
    for mine, their in zip(ours, theirs):
        for key in ("loss", "dx", "dw"):
            np.testing.assert_allclose(their[key], mine[key], rtol=1e-10, atol=1e-12)
    # TensorFlow's loop-in-cond imports here with its cond contexts and TensorFlow's values and gradients.
    with tw.Graph().as_default() as graph:
        loss, x, w = _import_tf1_file(graph, str(tmp_path / "tf1_loop_in_cond.meta"))
        assert [c.name for c in tw.get_collection("cond_context")] == ["cond/cond_text", "cond/cond_text_1"]
        dx, dw = tw.gradients(loss, [x, w])
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: X})
    for key in ("loss", "dx", "dw"):
        np.testing.assert_allclose(got[key], theirs[2][key], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[key], ours[1][key], rtol=1e-10, atol=1e-12)
    with open(os.path.join(DATA, "tf1_loop.json")) as f:
        checked_in = json.load(f)
    with open(tmp_path / "tf1_loop.json") as f:
        fresh = json.load(f)
    for key in ("loss", "dx", "dw"):
        np.testing.assert_allclose(fresh[key], checked_in[key], rtol=1e-12)
        np.testing.assert_allclose(ours[0][key], checked_in[key], rtol=1e-10, atol=1e-12)
    with tw.Graph().as_default() as graph:
        loss, x, w = _import_tf1_file(graph, str(tmp_path / "tf1_loop.meta"))
        dx, dw = tw.gradients(loss, [x, w])
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: X})
    for key in ("loss", "dx", "dw"):
        np.testing.assert_allclose(got[key], fresh[key], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["nested_loops", "cond_in_loop", "loop_in_cond"])
def test_a_meta_graph_saved_after_minimize_resumes_training_and_differentiates_again(tmp_path, name):
    """The exported graph already holds the backward loops (its train op): the imported train op takes the
    original's steps, and gradients taken again through the imported loops are the original's."""
    prefix = str(tmp_path / "model.ckpt")
    with tw.Graph().as_default(), tw.Session() as sess:
        x, w, loss = _build(MODELS[name])
        train = tw.train.GradientDescentOptimizer(0.05).minimize(loss)
        sess.run(w.initializer)
        path = tw.train.Saver().save(sess, prefix)
        original = [sess.run([loss, train], {x: X})[0] for _ in range(4)]
        original_grads = sess.run(tw.gradients(loss, [x, w]), {x: X})
    with tw.Graph().as_default() as graph, tw.Session() as sess:
        tw.train.import_meta_graph(path + ".meta").restore(sess, path)
        loss, x, w = _imported(graph)
        [train] = tw.get_collection(tw.GraphKeys.TRAIN_OP)
        losses = [sess.run([loss, train], {x: X})[0] for _ in range(4)]
        grads = sess.run(tw.gradients(loss, [x, w]), {x: X})
    np.testing.assert_allclose(losses, original, rtol=1e-12)
    np.testing.assert_allclose(grads, original_grads, rtol=1e-12, atol=1e-12)
    assert losses[-1] < losses[0]


def test_a_loop_whose_construction_failed_is_not_exported():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="shape"):
            tw.while_loop(lambda v: tw.size(v) < 4, lambda v: tw.concat([v, v], 0), [tw.ones([1])])
        assert tw.get_collection(tw.GraphKeys.WHILE_CONTEXT) == []
        _build(_loop)
        meta = tw.train.export_meta_graph()
    assert len(meta.collection_def["while_context"].bytes_list.value) == 1


def test_new_ops_built_in_an_imported_loop_context_enter_its_frame():
    meta, original = _export(_loop)
    with tw.Graph().as_default() as graph:
        tw.train.import_meta_graph(meta, import_scope="m")
        [context] = tw.get_collection(tw.GraphKeys.WHILE_CONTEXT)
        outside = tw.constant(np.ones(3), name="outside")
        body_value = graph.get_tensor_by_name("m/while/Identity_1:0")
        context.Enter()
        try:
            added = body_value + outside
        finally:
            context.Exit()
        enter = added.op.inputs[1].op
        assert added.op._control_flow_context is context
        assert enter.type == "Enter" and enter.get_attr("is_constant")
        assert enter.get_attr("frame_name") == b"m/while/while_context" == context.name.encode()
        # The imported loop still runs as before.
        loss, x, _ = _imported(graph, "m")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            np.testing.assert_allclose(sess.run(loss, {x: X}), original["loss"], rtol=1e-12)
