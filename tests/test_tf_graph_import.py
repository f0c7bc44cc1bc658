"""GraphDefs written by TensorFlow import into tensorweave: every node of such a graph carries all the attrs of
TF's op definitions, defaults included (Conv2D/MaxPool `explicit_paddings`, MatMul `grad_a`/`grad_b`, Equal/NotEqual
`incompatible_shape_error`, GatherNd/ScatterNd/TensorScatterUpdate `bad_indices_policy`, TopKV2 `Tk`/`index_type`,
SparseSegment* `sparse_gradient`, FusedBatchNorm `exponential_avg_factor`), and each attr means what it means in TF.

Oracle: TensorFlow's own outputs for the same graph. tests/data/tf_graph_import.pb (+ .npz, TF's values), written
by tests/data/make_tf_graph_import.py, is checked in so that the import is tested without TensorFlow; where
TensorFlow is installed the script runs again in a separate process into a temporary directory and that fresh
graph is imported too. The attrs' semantics are also compared with TF case by case in
tests/fidelity/cases_tf_attrs.py.
"""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.framework import graph_pb2

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
MAKE = os.path.join(DATA, "make_tf_graph_import.py")
sys.path.insert(0, DATA)
import make_tf_graph_import as make

sys.path.remove(DATA)


def _needs_conv_explicit_paddings():
    # Conv2D's explicit_paddings (which every TF-written Conv2D carries) comes with the explicit padding of
    # convolutions, landed separately.
    from tensorweave import _pywrap_tensorweave as pywrap

    if "explicit_paddings" not in {a["name"] for a in pywrap.op_def("Conv2D")["attrs"]}:
        pytest.skip("Conv2D has no explicit_paddings attr yet (explicit padding of convolutions not landed)")


def _run_imported(pb_path, npz_path):
    _needs_conv_explicit_paddings()
    with open(pb_path, "rb") as f:
        data = f.read()
    expected = np.load(npz_path)
    with tw.Graph().as_default() as g:
        tw.import_graph_def(data, name="")
        with tw.Session(graph=g) as sess:
            got = sess.run([name + ":0" for name in make.FETCHES], {"x:0": expected["x"]})
    return data, expected, got


def _check(pb_path, npz_path):
    data, expected, got = _run_imported(pb_path, npz_path)
    for name, value in zip(make.FETCHES, got):
        want = expected[name]
        assert np.asarray(value).dtype == want.dtype, name
        assert np.asarray(value).shape == want.shape, name
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-5, err_msg=name)
    return graph_pb2.GraphDef.FromString(data)


def test_checked_in_tf_graph_def_imports_and_matches_tf():
    graph_def = _check(os.path.join(DATA, "tf_graph_import.pb"), os.path.join(DATA, "tf_graph_import.npz"))
    # The file really carries TF's attrs (the point of the test).
    attrs = {(n.op, k) for n in graph_def.node for k in n.attr}
    for needed in [
        ("Conv2D", "explicit_paddings"),
        ("MaxPool", "explicit_paddings"),
        ("MatMul", "grad_a"),
        ("Equal", "incompatible_shape_error"),
        ("GatherNd", "bad_indices_policy"),
        ("TopKV2", "index_type"),
        ("SparseSegmentSum", "sparse_gradient"),
        ("FusedBatchNorm", "exponential_avg_factor"),
    ]:
        assert needed in attrs, needed


def test_fresh_tf_graph_def_imports_and_matches_tf(tmp_path):
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed")
    done = subprocess.run(
        [sys.executable, MAKE, str(tmp_path)], capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        pytest.skip("TensorFlow did not run: " + done.stderr[-500:])
    _check(str(tmp_path / "tf_graph_import.pb"), str(tmp_path / "tf_graph_import.npz"))


def _tf_node_graph(op, attrs, inputs):
    """A GraphDef of Const inputs and one `op` node named "n", as TF writes it (all attrs given)."""
    gd = graph_pb2.GraphDef()
    names = []
    for i, value in enumerate(inputs):
        with tw.Graph().as_default() as g:
            tw.constant(value, name=f"c{i}")
        gd.node.extend(graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString()).node)
        names.append(f"c{i}")
    node = gd.node.add(name="n", op=op)
    node.input.extend(names)
    for key, setter in attrs.items():
        setter(node.attr[key])
    return gd


def _import_error(gd):
    with tw.Graph().as_default(), pytest.raises((ValueError, tw.errors.InvalidArgumentError)) as info:
        tw.import_graph_def(gd, name="")
    return str(info.value)


def test_bad_attr_values_are_clear_errors():
    # An unknown bad_indices_policy (TF: no kernel) is rejected at import, naming the attr and the allowed values.
    gd = _tf_node_graph(
        "GatherNd",
        {
            "Tparams": lambda a: setattr(a, "type", 1),
            "Tindices": lambda a: setattr(a, "type", 3),
            "bad_indices_policy": lambda a: setattr(a, "s", b"SKIP"),
        },
        [np.ones([2, 2], np.float32), np.array([[0]], np.int32)],
    )
    message = _import_error(gd)
    assert "bad_indices_policy" in message and "IGNORE" in message
    # Non-empty explicit_paddings on MaxPool (padding stays SAME/VALID).
    gd = _tf_node_graph(
        "MaxPool",
        {
            "T": lambda a: setattr(a, "type", 1),
            "ksize": lambda a: a.list.i.extend([1, 2, 2, 1]),
            "strides": lambda a: a.list.i.extend([1, 2, 2, 1]),
            "padding": lambda a: setattr(a, "s", b"SAME"),
            "explicit_paddings": lambda a: a.list.i.extend([0, 0, 1, 1, 1, 1, 0, 0]),
        },
        [np.ones([1, 4, 4, 1], np.float32)],
    )
    assert "explicit_paddings must be empty" in _import_error(gd)
    # TopKV2 index_type outside {int16, int32, int64}.
    gd = _tf_node_graph(
        "TopKV2",
        {"T": lambda a: setattr(a, "type", 1), "index_type": lambda a: setattr(a, "type", 1)},
        [np.ones([4], np.float32), np.array(2, np.int32)],
    )
    assert "index_type" in _import_error(gd)


def test_top_k_int16_indices_must_hold_every_index():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None])
        top = tw.raw_ops.TopKV2(input=x, k=tw.constant(1, tw.int16), index_type=tw.int16)
        assert top.indices.dtype == tw.int16
        with tw.Session() as sess:
            row = np.zeros(32768, np.float32)
            row[-1] = 1.0
            values, indices = sess.run(top, {x: row})
            assert values.tolist() == [1.0] and indices.tolist() == [32767]
            # A row with an index past int16's range is an error, never a wrapped index.
            with pytest.raises(tw.errors.InvalidArgumentError, match="index_type"):
                sess.run(top, {x: np.zeros(32769, np.float32)})


def test_exponential_avg_factor_needs_running_statistics():
    with tw.Graph().as_default():
        x = tw.constant(np.ones([1, 2, 2, 3], np.float32))
        r = tw.raw_ops.FusedBatchNorm(
            x=x,
            scale=tw.ones([3]),
            offset=tw.zeros([3]),
            mean=tw.placeholder(tw.float32, [None]),
            variance=tw.placeholder(tw.float32, [None]),
            exponential_avg_factor=0.5,
            is_training=True,
        )
        feeds = {r.y.op.inputs[3]: np.zeros([0], np.float32), r.y.op.inputs[4]: np.zeros([0], np.float32)}
        with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="exponential_avg_factor"):
            sess.run(r.batch_mean, feeds)


def test_tf_data_function_attrs_are_a_clear_unimplemented_error():
    # TF's tf.data graph: a OneShotIterator whose dataset is built by its `dataset_factory` function (and MapDataset
    # `f`), functions of the GraphDef's library, which tensorweave does not import.
    gd = graph_pb2.GraphDef()
    node = gd.node.add(name="OneShotIterator", op="OneShotIterator")
    node.attr["dataset_factory"].func.name = "_make_dataset_abc"
    node.attr["output_types"].list.type.append(9)
    node.attr["output_shapes"].list.shape.add()
    with (
        tw.Graph().as_default(),
        pytest.raises(tw.errors.UnimplementedError, match="'OneShotIterator'.*dataset_factory"),
    ):
        tw.import_graph_def(gd, name="")


def test_tf_dataset_attrs_have_tf_defaults():
    # The attrs TF's dataset ops gained (metadata, replicate_on_split, is_files, force_synchronous...) are declared
    # with TF's defaults, so tensorweave's own pipelines keep running and carry them.
    with tw.Graph().as_default() as g:
        ds = tw.data.Dataset.range(5).map(lambda v: v * 2).batch(2)
        value = tw.data.make_one_shot_iterator(ds).get_next()
        ops = {op.type: op for op in g.get_operations()}
        assert ops["RangeDataset"].get_attr("metadata") == b""
        assert ops["RangeDataset"].get_attr("replicate_on_split") is False
        assert ops["MapDataset"].get_attr("force_synchronous") is False
        assert ops["BatchDatasetV2"].get_attr("metadata") == b""
        with tw.Session() as sess:
            assert sess.run(value).tolist() == [0, 2]
