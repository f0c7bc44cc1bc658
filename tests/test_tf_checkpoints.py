"""Checkpoints that TensorFlow wrote (format V2: P.index + P.data-*) read by tensorweave: Saver.restore,
NewCheckpointReader, list_variables, load_variable and init_from_checkpoint, with every dtype TF saves
(strings included), partitioned variables (saved as slices), several shards, and the failure paths (a
corrupted data file or index, a missing shard, a dtype or shape other than the graph's). Each checkpoint is
written by TensorFlow itself in a subprocess (so TF's graph state never mixes with ours)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw

pytest.importorskip("tensorflow")

RNG = np.random.default_rng(7)
VALUES = {
    "dense/kernel": RNG.standard_normal((5, 3)).astype(np.float32),
    "dense/bias": RNG.standard_normal(3).astype(np.float64),
    "step": np.int64(1234567890123),
    "counts": np.array([1, -2, 3], np.int32),
    "flags": np.array([True, False]),
    "half": np.array([1.5, -2.25], np.float16),
    "bytes": np.array([[1, 255]], np.uint8),
    "cplx": np.array([1 + 2j, -3j], np.complex64),
    "vocab": np.array([b"ab", b"", b"x\x00y", "é".encode()], object),
}
PARTITIONED = RNG.standard_normal((7, 4)).astype(np.float32)

WRITER = """
import os, sys, numpy as np
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
values = np.load(sys.argv[2], allow_pickle=True)
with tf.Graph().as_default():
    for i, name in enumerate(values.files):
        with tf.device(f"/cpu:{i % 2}"):  # a sharded saver writes one data file per device
            if name == "partitioned":
                tf.get_variable(name, initializer=tf.constant(values[name]),
                                partitioner=tf.fixed_size_partitioner(3))
            else:
                tf.Variable(values[name], name=name)
    saver = tf.train.Saver(sharded=len(sys.argv) > 3)
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        print(saver.save(sess, sys.argv[1]))
"""


def _tf_save(tmp_path, values, sharded=False):
    prefix = str(tmp_path / "model.ckpt")
    np.savez(tmp_path / "values.npz", **values)
    args = [sys.executable, "-c", WRITER, prefix, str(tmp_path / "values.npz")] + (["sharded"] if sharded else [])
    out = subprocess.run(args, check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def tf_checkpoint(tmp_path_factory):
    return _tf_save(tmp_path_factory.mktemp("tfckpt"), dict(VALUES, partitioned=PARTITIONED))


def _assert_same(got, want):
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_reader_lists_and_reads_every_dtype(tf_checkpoint):
    reader = tw.train.NewCheckpointReader(tf_checkpoint)
    shapes = reader.get_variable_to_shape_map()
    assert shapes == {**{k: list(np.shape(v)) for k, v in VALUES.items()}, "partitioned": [7, 4]}
    assert reader.get_variable_to_dtype_map()["vocab"] == tw.string
    for name, value in VALUES.items():
        _assert_same(reader.get_tensor(name), value)
    _assert_same(reader.get_tensor("partitioned"), PARTITIONED)
    assert dict(tw.train.list_variables(tf_checkpoint))["dense/kernel"] == [5, 3]
    _assert_same(tw.train.load_variable(os.path.dirname(tf_checkpoint), "dense/bias"), VALUES["dense/bias"])
    with pytest.raises(tw.errors.NotFoundError, match="not found"):
        reader.get_tensor("nope")


def test_saver_restores_a_tensorflow_checkpoint(tf_checkpoint):
    with tw.Graph().as_default():
        zeros = {k: np.full(np.shape(v), b"", object) if k == "vocab" else np.zeros_like(v) for k, v in VALUES.items()}
        variables = {name: tw.Variable(zeros[name], name=name) for name in VALUES}
        # TF saved the partitioned variable in 3 slices of one tensor; here it is one variable.
        whole = tw.Variable(np.zeros((7, 4), np.float32), name="partitioned")
        saver = tw.train.Saver()
        with tw.Session() as sess:
            assert tw.train.latest_checkpoint(os.path.dirname(tf_checkpoint)) == tf_checkpoint
            saver.restore(sess, tf_checkpoint)
            for name, value in VALUES.items():
                _assert_same(sess.run(variables[name]), value)
            _assert_same(sess.run(whole), PARTITIONED)
    # ... and here 2 parts, each restored from its slice of the 3 TF saved.
    with tw.Graph().as_default():
        parts = tw.get_variable("partitioned", shape=[7, 4], partitioner=tw.fixed_size_partitioner(2))
        with tw.Session() as sess:
            tw.train.Saver([parts]).restore(sess, tf_checkpoint)
            _assert_same(sess.run(parts.as_tensor()), PARTITIONED)
            _assert_same(sess.run(list(parts)[1]), PARTITIONED[4:])


def test_init_from_checkpoint_maps_tensorflow_names(tf_checkpoint):
    with tw.Graph().as_default():
        kernel = tw.get_variable("model/w", shape=[5, 3])
        tw.train.init_from_checkpoint(tf_checkpoint, {"dense/kernel": "model/w"})
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            _assert_same(sess.run(kernel), VALUES["dense/kernel"])


def test_sharded_tensorflow_checkpoint(tmp_path):
    values = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([b"s"], object)}
    prefix = _tf_save(tmp_path, values, sharded=True)
    assert os.path.exists(prefix + ".data-00001-of-00002")
    reader = tw.train.NewCheckpointReader(prefix)
    for name, value in values.items():
        _assert_same(reader.get_tensor(name), value)


def _corrupt_copy(tf_checkpoint, tmp_path, suffix, edit):
    prefix = str(tmp_path / "copy")
    for name in os.listdir(os.path.dirname(tf_checkpoint)):
        if name.startswith(os.path.basename(tf_checkpoint) + "."):
            with open(os.path.join(os.path.dirname(tf_checkpoint), name), "rb") as f:
                data = f.read()
            tail = name[len(os.path.basename(tf_checkpoint)) :]
            with open(prefix + tail, "wb") as f:
                f.write(edit(data) if tail == suffix else data)
    return prefix


def test_corrupted_data_is_a_data_loss_error(tf_checkpoint, tmp_path):
    flipped = _corrupt_copy(tf_checkpoint, tmp_path, ".data-00000-of-00001", lambda d: d[:-1] + bytes([d[-1] ^ 1]))
    reader = tw.train.NewCheckpointReader(flipped)
    with pytest.raises(tw.errors.DataLossError, match="checksum mismatch for tensor"):
        for name in VALUES:
            reader.get_tensor(name)
    truncated = _corrupt_copy(tf_checkpoint, tmp_path / "..", ".data-00000-of-00001", lambda d: d[: len(d) // 2])
    with pytest.raises(tw.errors.DataLossError):
        for name in VALUES:
            tw.train.NewCheckpointReader(truncated).get_tensor(name)


@pytest.mark.parametrize("edit", [lambda d: d[:-3], lambda d: d[:20] + bytes([d[20] ^ 0x40]) + d[21:], lambda d: b""])
def test_corrupted_index_is_a_data_loss_error(tf_checkpoint, tmp_path, edit):
    prefix = _corrupt_copy(tf_checkpoint, tmp_path, ".index", edit)
    with pytest.raises(tw.errors.DataLossError, match="index .* is corrupt"):
        tw.train.NewCheckpointReader(prefix)
    with tw.Graph().as_default():
        v = tw.Variable(np.zeros(3, np.int32), name="counts")
        with tw.Session() as sess, pytest.raises(tw.errors.DataLossError, match="corrupt"):
            tw.train.Saver([v]).restore(sess, prefix)


def test_missing_shard_and_mismatched_variables(tf_checkpoint, tmp_path):
    prefix = _corrupt_copy(tf_checkpoint, tmp_path, ".index", lambda d: d)
    with tw.Graph().as_default():
        wrong_dtype = tw.Variable(np.zeros(3, np.float32), name="counts")
        wrong_shape = tw.Variable(np.zeros((3, 5), np.float32), name="dense/kernel")
        with tw.Session() as sess:
            with pytest.raises(tw.errors.InvalidArgumentError, match="'counts' .* is int32, but float32"):
                tw.train.Saver([wrong_dtype]).restore(sess, prefix)
            with pytest.raises(tw.errors.InvalidArgumentError, match=r"'dense/kernel' .* has shape \[5,3\]"):
                tw.train.Saver([wrong_shape]).restore(sess, prefix)
            os.remove(prefix + ".data-00000-of-00001")
            right = tw.Variable(np.zeros(3, np.int32), name="counts")
            with pytest.raises(tw.errors.DataLossError, match="cannot be opened"):
                tw.train.Saver({"counts": right}).restore(sess, prefix)


def test_index_parser_refuses_what_is_not_a_table(tmp_path):
    (tmp_path / "x.index").write_bytes(b"not a table at all, but long enough to have a footer")
    with pytest.raises(tw.errors.DataLossError, match="no footer magic"):
        tw.train.list_variables(str(tmp_path / "x"))


SAVED_MODEL_WRITER = """
import sys, numpy as np, os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()  # TF1's reference variables
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(3, 2) / 5)
    b = tf.get_variable("b", initializer=np.array([0.5, -1], np.float32))
    y = tf.nn.softmax(tf.matmul(x, w) + b, name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, sys.argv[1], {"x": x}, {"y": y})
        np.save(sys.argv[2], sess.run(y, {x: [[1, 2, 3], [-1, 0, 1]]}))
"""


def test_tensorflow_saved_model_loads_and_its_saver_saves(tmp_path):
    export = str(tmp_path / "export")
    out = subprocess.run(
        [sys.executable, "-c", SAVED_MODEL_WRITER, export, str(tmp_path / "y.npy")],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    with tw.Graph().as_default(), tw.Session() as sess:
        meta = tw.saved_model.loader.load(sess, ["serve"], export)
        signature = meta.signature_def["serving_default"]
        y = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: [[1, 2, 3], [-1, 0, 1]]})
        np.testing.assert_allclose(y, np.load(tmp_path / "y.npy"), rtol=1e-6)
        # TensorFlow's own saver graph (StaticRegexFullMatch, ShardedFilename, SaveV2 to a temporary shard,
        # MergeV2Checkpoints) runs here and writes a tensorweave checkpoint.
        assert "MergeV2Checkpoints" in {op.type for op in tw.get_default_graph().get_operations()}
        w = next(v for v in tw.global_variables() if v.op.name == "w")
        sess.run(w.assign(w * 2))
        prefix = tw.train.Saver(saver_def=meta.saver_def).save(sess, str(tmp_path / "again" / "model"))
    assert sorted(os.listdir(tmp_path / "again")) == [
        "checkpoint",
        "model.manifest.json",
        "model.meta",
        "model.safetensors",
    ]
    np.testing.assert_allclose(tw.train.load_variable(prefix, "w"), np.arange(6).reshape(3, 2) / 5 * 2, rtol=1e-6)


def test_sharded_filename_ops_and_static_regex_ops_as_tensorflow():
    from tensorweave._src.ops import gen_ops

    with tw.Graph().as_default(), tw.Session() as sess:
        name = gen_ops.sharded_filename("/ck/model", 2, 12)
        spec = gen_ops.sharded_filespec("/ck/model", 12)
        assert (name.op.type, spec.op.type) == ("ShardedFilename", "ShardedFilespec")
        assert sess.run([name, spec]) == [b"/ck/model-00002-of-00012", b"/ck/model-?????-of-00012"]
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"shard 12 is not in \[0, 12\)"):
            sess.run(gen_ops.sharded_filename("/ck/model", 12, 12))
        match = tw.strings.regex_full_match(["s3://b/k", "/tmp/x"], "^s3://.*")
        replaced = tw.strings.regex_replace(["a1b22"], "[0-9]+", "#", replace_global=False)
        dynamic = tw.strings.regex_full_match(["ab"], tw.constant("a."))
        assert (match.op.type, replaced.op.type, dynamic.op.type) == (
            "StaticRegexFullMatch",
            "StaticRegexReplace",
            "RegexFullMatch",
        )
        got = sess.run([match, replaced, dynamic])
        assert got[0].tolist() == [True, False] and got[1].tolist() == [b"a#b22"] and got[2].tolist() == [True]
        with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid pattern"):
            sess.run(tw.strings.regex_full_match(["a"], "("))


def test_a_file_that_is_no_checkpoint_is_a_data_loss_error(tmp_path):
    # As TF: a prefix naming a file that is no checkpoint is data loss; one naming nothing is not found.
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(tw.errors.DataLossError, match="not an sstable"):
        tw.train.NewCheckpointReader(str(tmp_path / "notes.txt"))
    with pytest.raises(tw.errors.NotFoundError, match="Failed to find any matching files"):
        tw.train.NewCheckpointReader(str(tmp_path / "nothing"))
