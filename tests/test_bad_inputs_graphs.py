"""Malformed graphs, meta graphs, saved models and checkpoints: each is a clear error of TensorFlow's class
(tensorflow.compat.v1 run on the same input where it has the API), never a crash or a silent success."""

import json
import os
import struct

import numpy as np
import pytest
import tensorweave as tw
from google.protobuf import text_format

from tests.bad_inputs_util import expect_error, need_tf, tf1


def _graph_def(tf, text):
    graph_def = tf.GraphDef()
    text_format.Parse(text, graph_def)
    return graph_def


_PLACEHOLDER = 'node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'


def test_import_graph_def_input_map_key_not_in_the_graph_def():
    # It was silently ignored: the imported graph kept its own placeholder.
    def build(tf):
        tf.import_graph_def(_graph_def(tf, _PLACEHOLDER), input_map={"nope:0": tf.constant(1.0)}, name="")

    expect_error(tw, build, ValueError, "Attempted to map inputs that were not found in graph_def: [nope:0]")


def test_import_graph_def_return_element_not_in_the_graph_def():
    def build(tf):
        tf.import_graph_def(_graph_def(tf, _PLACEHOLDER), return_elements=["nope:0"], name="")

    expect_error(tw, build, ValueError, "'nope:0' not found in graph def")


def test_import_graph_def_nothing_imported_when_a_name_is_wrong(graph):
    with pytest.raises(ValueError):
        tw.import_graph_def(_graph_def(tw, _PLACEHOLDER), return_elements=["p:0", "q"], name="")
    assert graph.get_operations() == []


def test_import_graph_def_of_something_else_is_type_error():
    expect_error(tw, lambda tf: tf.import_graph_def("node { }"), TypeError, "must be a GraphDef proto")


@pytest.mark.parametrize(
    "text,fragment,tf_class",
    [
        ('node { name: "a" op: "NoSuchOp" }', "'NoSuchOp'", "NotFoundError"),
        (
            'node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }\n'
            'node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }',
            "cycle",
            ValueError,
        ),
        (
            'node { name: "a" op: "Identity" input: "zz" attr { key: "T" value { type: DT_FLOAT } } }',
            "'zz'",
            ValueError,
        ),
        ('node { name: "a" op: "Placeholder" attr { key: "dtype" value { s: "float" } } }', "'dtype'", ValueError),
        (
            _PLACEHOLDER
            + '\nnode { name: "a" op: "Identity" input: "p:7" attr { key: "T" value { type: DT_FLOAT } } }',
            "p:7",
            ValueError,
        ),
    ],
    ids=["unknown_op", "cycle", "missing_input", "wrong_attr_type", "bad_output_index"],
)
def test_import_graph_def_malformed(text, fragment, tf_class):
    error_class = tw.errors.NotFoundError if tf_class == "NotFoundError" else ValueError
    expect_error(
        tw, lambda tf: tf.import_graph_def(_graph_def(tf, text), name=""), error_class, fragment, tf_class=tf_class
    )


def test_import_meta_graph_of_garbage_is_os_error_and_data_loss(tmp_path):
    path = tmp_path / "x.meta"
    path.write_text("graph_def { node { name: ")
    expect_error(tw, lambda tf: tf.train.import_meta_graph(str(path)), OSError, "Cannot parse file", str(path))
    with pytest.raises(tw.errors.DataLossError):  # tensorweave's class for a corrupt file, too
        with tw.Graph().as_default():
            tw.train.import_meta_graph(str(path))


def test_saved_model_of_garbage_is_os_error(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"\xff\xfe garbage" * 5)

    def build(tf):
        with tf.Session() as sess:
            tf.saved_model.loader.load(sess, ["serve"], str(tmp_path))

    expect_error(tw, build, OSError, "Cannot parse file", "saved_model.pb")


def test_write_graph_then_read_back(tmp_path, graph):
    x = tw.placeholder(tw.float32, [None, 3], name="x")
    tw.nn.relu(x, name="y")
    tw.train.write_graph(graph, str(tmp_path), "g.pbtxt", as_text=True)
    graph_def = _graph_def(tw, (tmp_path / "g.pbtxt").read_text())
    with tw.Graph().as_default(), tw.Session() as sess:
        tw.import_graph_def(graph_def, name="")
        np.testing.assert_array_equal(sess.run("y:0", {"x:0": [[1, -1, 2]]}), [[1, 0, 2]])


# --- checkpoints ------------------------------------------------------------------------------------------------


def _save(tmp_path):
    with tw.Graph().as_default(), tw.Session() as sess:
        tw.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        saver = tw.train.Saver()
        sess.run(tw.global_variables_initializer())
        return saver.save(sess, str(tmp_path / "model"))


def _restore(prefix, shape=(2, 3), dtype=np.float32):
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(np.zeros(shape, dtype), name="v")
        tw.train.Saver().restore(sess, prefix)
        return sess.run(v)


def test_restore_of_no_checkpoint_is_value_error_and_not_found(tmp_path):
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint") as info:
        _restore(str(tmp_path / "nope"))
    assert isinstance(info.value, tw.errors.NotFoundError)
    if tf1 is not None:  # TF 2.x's compat.v1 Saver raises ValueError here
        with tf1.Graph().as_default(), tf1.Session() as sess:
            tf1.Variable(np.zeros([2, 3], np.float32), name="v")
            with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint"):
                tf1.train.Saver().restore(sess, str(tmp_path / "nope"))


def test_corrupt_data_header_with_invalid_utf8_is_data_loss(tmp_path):
    # The message quoted the header's bytes: UnicodeDecodeError instead of the error.
    prefix = _save(tmp_path)
    data = tmp_path / "model.safetensors"
    raw = bytearray(data.read_bytes())
    raw[8:20] = b"\xff" * 12
    data.write_bytes(bytes(raw))
    with pytest.raises(tw.errors.DataLossError, match="model.safetensors is corrupt"):
        _restore(prefix)
    with pytest.raises(tw.errors.DataLossError, match="model.safetensors is corrupt"):
        tw.train.load_variable(prefix, "v")


@pytest.mark.parametrize(
    "corrupt,error_class,fragment",
    [
        (lambda t: (t / "model.manifest.json").write_text('{"format": "tensor'), tw.errors.DataLossError, "corrupt"),
        (lambda t: _truncate(t / "model.safetensors", 8), tw.errors.DataLossError, "is truncated"),
        (lambda t: _flip(t / "model.safetensors", -3), tw.errors.DataLossError, "checksum mismatch for tensor 'v'"),
        (lambda t: os.remove(t / "model.safetensors"), tw.errors.DataLossError, "is missing"),
        (lambda t: _header_length(t / "model.safetensors", 2**62), tw.errors.DataLossError, "header length"),
        (lambda t: _manifest(t, shape=[2**40, 2**40]), tw.errors.DataLossError, "tensor 'v' is malformed"),
    ],
    ids=["manifest_truncated", "data_truncated", "data_flipped", "data_missing", "header_huge", "manifest_huge_shape"],
)
def test_corrupt_checkpoint(tmp_path, corrupt, error_class, fragment):
    prefix = _save(tmp_path)
    corrupt(tmp_path)
    for read in (_restore, lambda p: tw.train.NewCheckpointReader(p).get_tensor("v")):
        with pytest.raises(error_class) as info:
            read(prefix)
        assert fragment in str(info.value)


def _truncate(path, n):
    path.write_bytes(path.read_bytes()[:-n])


def _flip(path, at):
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0xFF
    path.write_bytes(bytes(raw))


def _header_length(path, n):
    raw = bytearray(path.read_bytes())
    raw[0:8] = struct.pack("<Q", n)
    path.write_bytes(bytes(raw))


def _manifest(tmp_path, shape):
    path = tmp_path / "model.manifest.json"
    manifest = json.loads(path.read_text())
    manifest["tensors"]["v"]["shape"] = shape
    path.write_text(json.dumps(manifest))


def test_restore_into_another_shape_or_dtype_names_the_variable(tmp_path):
    prefix = _save(tmp_path)
    with pytest.raises(tw.errors.InvalidArgumentError, match="tensor 'v' .* has shape \\[2,3\\]"):
        _restore(prefix, shape=(3, 2))
    with pytest.raises(tw.errors.InvalidArgumentError, match="tensor 'v' .* is float32, but int32 was asked for"):
        _restore(prefix, dtype=np.int32)


def test_tf_oracle_available_or_skipped():
    need_tf()  # the TF halves above ran (or this test is the skip that says why they did not)
