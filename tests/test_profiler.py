"""tw.profiler (TF1's tfprof): FLOPs and parameters of a graph, against
TensorFlow's own profiler on the same graph, and per-node times of a traced step."""

import contextlib
import io

import numpy as np
import pytest
import tensorweave.compat.v1 as tw


def _build(t):
    """A small CNN + MLP forward graph, built the same way under either library."""
    g = t.Graph()
    with g.as_default():
        x = t.placeholder(t.float32, [4, 8, 8, 3], name="x")
        w = t.get_variable("w", [3, 3, 3, 5])
        c = t.nn.relu(t.nn.bias_add(t.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), t.get_variable("b", [5])))
        t.nn.depthwise_conv2d(c, t.get_variable("dw", [3, 3, 5, 2]), [1, 2, 2, 1], "SAME")
        p = t.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        t.nn.avg_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        w2 = t.get_variable("w2", [80, 10])
        y = t.matmul(t.reshape(p, [4, -1]), w2) + 1.0
        with t.variable_scope("head"):
            t.reduce_mean(t.nn.softmax(y))
            t.square(y) * 2.0 - y / 3.0
            t.nn.l2_loss(w2)
            t.sqrt(t.abs(y))
            t.argmax(y, 1)
            t.reduce_sum(y, 0)
            t.add_n([y, y, y])
        t.matmul(t.ones([2, 3, 4]), t.ones([2, 4, 5]))
        z = t.placeholder(t.float32, [None, 10], name="z")
        t.matmul(z, t.transpose(w2))  # incomplete shape: no FLOPs, counted as such
    return g


def _profile(t, graph, options, cmd="scope"):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        root = t.profiler.profile(graph, options=options, cmd=cmd)
    return root, out.getvalue()


def _flat(node, depth=0, rows=None):
    rows = [] if rows is None else rows
    for child in node.children:
        rows.append(
            (depth, child.name, child.float_ops, child.total_float_ops, child.parameters, child.total_parameters)
        )
        _flat(child, depth + 1, rows)
    return rows


def test_float_operations_by_formula():
    root, text = _profile(tw, _build(tw), tw.profiler.ProfileOptionBuilder.float_operation())
    own = {n.name: n.float_ops for n in _walk(root)}
    assert own["Conv2D"] == 2 * (4 * 8 * 8 * 5) * 3 * 3 * 3
    assert own["depthwise"] == 2 * (4 * 4 * 4 * 10) * 3 * 3
    assert own["MatMul"] == 2 * 80 * 4 * 10
    assert own["MatMul_1"] == 2 * 4 * (2 * 3 * 5)  # BatchMatMulV2
    assert own["MaxPool"] == own["AvgPool"] == 4 * (4 * 4 * 4 * 5)
    assert own["BiasAdd"] == 4 * 8 * 8 * 5
    assert own["head/L2Loss"] == 3 * 800 - 1
    assert own["head/Softmax"] == 5 * 40
    assert own["head/Mean"] == 40 and own["head/Sum"] == 40 - 10 and own["head/ArgMax"] == 40 - 4
    assert own["head/AddN"] == 2 * 40
    assert "Relu" not in own and "head/Sqrt" not in own  # no formula: not shown (min_float_ops=1)
    assert root.total_float_ops == sum(own.values())
    assert "1 ops no flops stats due to incomplete shapes." in text
    assert "_TFProfRoot (--/" in text and "Conv2D (69.12k/69.12k flops)" in text


def _walk(node):
    for child in node.children:
        yield child
        yield from _walk(child)


def test_parameters_of_trainable_variables():
    g = _build(tw)
    with g.as_default():
        tw.Variable(np.zeros([7], np.float32), trainable=False, name="counter")
    root, text = _profile(tw, g, tw.profiler.ProfileOptionBuilder.trainable_variables_parameter())
    assert root.total_parameters == 135 + 5 + 90 + 800
    assert sorted(c.name for c in root.children) == ["b", "dw", "w", "w2"]
    assert "w (3x3x3x5, 135/135 params)" in text


@pytest.mark.parametrize("cmd", ["scope", "op"])
@pytest.mark.parametrize("kind", ["float_operation", "trainable_variables_parameter"])
def test_agrees_with_tensorflow(kind, cmd):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    want, _ = _profile(tf, _build(tf), getattr(tf.profiler.ProfileOptionBuilder, kind)(), cmd)
    got, _ = _profile(tw, _build(tw), getattr(tw.profiler.ProfileOptionBuilder, kind)(), cmd)
    assert (got.total_float_ops, got.total_parameters) == (want.total_float_ops, want.total_parameters)
    assert _flat(got) == _flat(want)


def test_builder_options_and_outputs(tmp_path):
    g = _build(tw)
    opts = (
        tw.profiler.ProfileOptionBuilder(tw.profiler.ProfileOptionBuilder.float_operation())
        .with_node_names(show_name_regexes=["head/.*"])
        .with_file_output(str(tmp_path / "report.txt"))
        .build()
    )
    root, text = _profile(tw, g, opts)
    assert text == ""
    assert all(c.name.startswith("head/") for c in root.children)
    assert "head/Softmax" in (tmp_path / "report.txt").read_text()
    quiet = tw.profiler.ProfileOptionBuilder(tw.profiler.ProfileOptionBuilder.float_operation()).with_empty_output()
    root, text = _profile(tw, g, quiet.with_max_depth(0).build())
    assert text == "" and root.children == [] and root.total_float_ops == 0
    with pytest.raises(ValueError, match="cmd 'code'"):
        tw.profiler.profile(g, cmd="code", options=quiet.build())
    with pytest.raises(ValueError, match="unknown attributes"):
        tw.profiler.ProfileOptionBuilder().select(["flops"])


def test_time_and_memory_of_a_traced_step():
    with tw.Graph().as_default() as g:
        a = tw.placeholder(tw.float32, [64, 64], name="a")
        y = tw.matmul(a, a, name="product")
        with tw.Session() as sess:
            meta = tw.RunMetadata()
            opts = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE)
            sess.run(y, {a: np.ones([64, 64], np.float32)}, options=opts, run_metadata=meta)
    profiler = tw.profiler.Profiler(g)
    profiler.add_step(1, meta)
    options = (
        tw.profiler.ProfileOptionBuilder(tw.profiler.ProfileOptionBuilder.time_and_memory(min_micros=0))
        .with_empty_output()
        .build()
    )
    root = profiler.profile_name_scope(options)
    product = next(c for c in root.children if c.name == "product")
    assert product.run_count == 1 and product.requested_bytes == 64 * 64 * 4
    assert root.total_requested_bytes >= product.requested_bytes
    by_type = profiler.profile_operations(options)
    assert by_type.children[0].total_requested_bytes == root.total_requested_bytes
