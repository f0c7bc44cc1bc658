"""tw.summary event files read back by TensorBoard's own reader (tensorboard.backend.event_processing), and
compared with the event files TF1 (tf.compat.v1, in a subprocess) writes for the same program: tags, steps,
scalar values, histograms, image sizes, text tensors, the graph, session logs; the file's name and TFRecord
framing; FileWriter close/reopen/flush/get_logdir, FileWriterCache."""

import glob
import os
import socket
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.platform import tf_record

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
event_file_loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")


def _events(path):
    """The Event protos of one file, as TensorBoard's loader reads them (its own TFRecord reader and protos)."""
    return list(event_file_loader.LegacyEventFileLoader(path).Load())


# One program, run by tensorweave (tf = tensorweave) and by TF1 (tf = tensorflow.compat.v1).
PROGRAM = textwrap.dedent(
    """
    import numpy as np
    x = tf.placeholder(tf.float32, [None])
    with tf.name_scope("train"):
        tf.summary.scalar("mean", tf.reduce_mean(x))
        tf.summary.histogram("values", x)
    tf.summary.scalar("count", tf.size(x), family="stats")
    tf.summary.image("pic", tf.reshape(tf.tile(x[:1], [2 * 4 * 3]), [2, 4, 3, 1]), max_outputs=1)
    tf.summary.text("note", tf.constant(["step note"]))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(LOGDIR, graph=sess.graph)
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), global_step=0)
        for step in range(3):
            data = np.array([step, -1.5, 2.25, 100.0 * step + 0.5], np.float32)
            writer.add_summary(sess.run(merged, {x: data}), global_step=step)
        manual = tf.Summary(value=[tf.Summary.Value(tag="manual", simple_value=7.5)])
        writer.add_summary(manual, global_step=10)
        writer.add_summary(manual.SerializeToString(), global_step=11)
        writer.close()
    """
)


def _run_tensorweave(logdir):
    with tw.Graph().as_default():
        exec(PROGRAM, {"tf": tw, "LOGDIR": logdir})  # noqa: S102 - the same program text TF1 runs


def _run_tensorflow(logdir):
    script = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" + f"LOGDIR = {logdir!r}\n" + PROGRAM
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    subprocess.run([sys.executable, "-c", script], check=True, env=env, capture_output=True, timeout=300)


def _observations(logdir):
    acc = event_accumulator.EventAccumulator(
        logdir, size_guidance={event_accumulator.IMAGES: 0, event_accumulator.TENSORS: 0}
    )
    acc.Reload()
    tags = acc.Tags()
    out = {"tags": {k: sorted(v) for k, v in tags.items() if isinstance(v, list)}, "graph": tags["graph"]}
    out["scalars"] = {t: [(e.step, e.value) for e in acc.Scalars(t)] for t in tags["scalars"]}
    out["histograms"] = {
        t: [
            (
                e.step,
                e.histogram_value.min,
                e.histogram_value.max,
                e.histogram_value.num,
                e.histogram_value.sum,
                e.histogram_value.sum_squares,
                list(e.histogram_value.bucket_limit),
                list(e.histogram_value.bucket),
            )
            for e in acc.Histograms(t)
        ]
        for t in tags["histograms"]
    }
    out["images"] = {t: [(e.step, e.width, e.height) for e in acc.Images(t)] for t in tags["images"]}
    out["tensors"] = {
        t: [(e.step, bytes(e.tensor_proto.string_val[0])) for e in acc.Tensors(t)] for t in tags["tensors"]
    }
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    events = _events(path)
    out["first"] = events[0].file_version
    out["kinds"] = [e.WhichOneof("what") for e in events[1:]]
    out["session_log"] = [(e.step, e.session_log.status) for e in events if e.HasField("session_log")]
    return out, acc, path


def test_event_file_read_by_tensorboard(tmp_path):
    obs, acc, path = _observations(_write(tmp_path / "tw"))
    assert obs["first"] == "brain.Event:2"
    assert os.path.basename(path).startswith("events.out.tfevents.")
    assert os.path.basename(path).endswith("." + socket.gethostname())
    # TF1: "train/Mean" exists and names are unique case-insensitively, so the summary is "train/mean_1".
    assert obs["scalars"]["train/mean_1"] == [
        (s, pytest.approx(np.mean([s, -1.5, 2.25, 100.0 * s + 0.5]))) for s in range(3)
    ]
    assert obs["scalars"]["stats/stats/count"] == [(0, 4.0), (1, 4.0), (2, 4.0)]
    assert obs["scalars"]["manual"] == [(10, 7.5), (11, 7.5)]
    # The accumulator keeps the last histogram by default: step 2's.
    step, lo, hi, num, total, sq, limits, counts = obs["histograms"]["train/values"][-1]
    data = np.array([2, -1.5, 2.25, 200.5])
    assert (step, lo, hi, num) == (2, -1.5, 200.5, 4)
    assert total == pytest.approx(data.sum()) and sq == pytest.approx((data**2).sum())
    assert sum(counts) == 4
    assert limits[-1] == np.finfo(np.float64).max  # TF's last default bucket
    assert obs["images"]["pic/image"] == [(0, 3, 4), (1, 3, 4), (2, 3, 4)]
    assert obs["tensors"]["note"][0] == (0, b"step note")
    assert obs["graph"] is True
    graph = acc.Graph()
    assert any(n.name == "train/mean_1" and n.op == "ScalarSummary" for n in graph.node)
    assert obs["session_log"] == [(0, 1)]


def _write(logdir):
    logdir = str(logdir)
    _run_tensorweave(logdir)
    return logdir


def test_event_file_matches_tensorflow(tmp_path):
    pytest.importorskip("tensorflow")
    tw_obs, _, _ = _observations(_write(tmp_path / "tw"))
    tf_dir = str(tmp_path / "tf")
    _run_tensorflow(tf_dir)
    tf_obs, _, _ = _observations(tf_dir)
    for key in ("tags", "graph", "scalars", "histograms", "images", "tensors", "first", "kinds", "session_log"):
        assert tw_obs[key] == tf_obs[key], key


def test_records_are_tfrecord_framed(tmp_path):
    logdir = _write(tmp_path)
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    records = list(tf_record.tf_record_iterator(path))
    events = [tw.Event.FromString(r) for r in records]
    assert events[0].file_version == "brain.Event:2"
    with open(path, "r+b") as f:  # a flipped payload byte is caught by the masked CRC32C
        f.seek(20)
        b = f.read(1)
        f.seek(20)
        f.write(bytes([b[0] ^ 1]))
    with pytest.raises(tw.errors.DataLossError):
        list(tf_record.tf_record_iterator(path))


def test_closed_writer_warns_and_reopen_starts_a_new_file(tmp_path):
    logdir = str(tmp_path)
    writer = tw.summary.FileWriter(logdir, filename_suffix=".v1")
    assert writer.get_logdir() == logdir
    summary = tw.Summary(value=[tw.Summary.Value(tag="a", simple_value=1.0)])
    writer.add_summary(summary, 1)
    writer.flush()
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_summary(summary, 2)  # TF1: a warning, and nothing written
    assert any("closed FileWriter" in str(w.message) for w in caught)
    (first,) = glob.glob(os.path.join(logdir, "events.*"))
    assert first.endswith(".v1")
    steps = [e.step for e in _events(first) if e.HasField("summary")]
    assert steps == [1]
    import time

    time.sleep(1.1)  # a new file name (seconds in the name)
    writer.reopen()
    writer.add_summary(summary, 3)
    writer.close()
    files = sorted(glob.glob(os.path.join(logdir, "events.*")))
    assert len(files) == 2


def test_metadata_kept_only_on_first_value_of_a_tag(tmp_path):
    with tw.Graph().as_default(), tw.Session() as sess:
        t = tw.summary.text("note", tw.constant(["x"]))
        writer = tw.summary.FileWriter(str(tmp_path))
        writer.add_summary(sess.run(t), 0)
        writer.add_summary(sess.run(t), 1)
        writer.close()
    (path,) = glob.glob(os.path.join(str(tmp_path), "events.*"))
    values = [e.summary.value[0] for e in _events(path) if e.HasField("summary")]
    assert [v.HasField("metadata") for v in values] == [True, False]
    assert values[0].metadata.plugin_data.plugin_name == "text"


def test_file_writer_cache(tmp_path):
    with tw.Graph().as_default():
        a = tw.summary.FileWriterCache.get(str(tmp_path))
        assert tw.summary.FileWriterCache.get(str(tmp_path)) is a
        tw.summary.FileWriterCache.clear()
        assert tw.summary.FileWriterCache.get(str(tmp_path)) is not a
        tw.summary.FileWriterCache.clear()


def test_add_graph_needs_a_graph(tmp_path):
    writer = tw.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError):
        writer.add_graph("not a graph")
    writer.close()


def test_serialized_summary_parses_with_tensorboards_proto():
    from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2

    with tw.Graph().as_default(), tw.Session() as sess:
        tw.summary.scalar("s", tw.constant(2.5))
        tw.summary.histogram("h", tw.constant([1.0, -2.0]))
        tw.summary.text("t", tw.constant("x"))
        parsed = tb_summary_pb2.Summary.FromString(sess.run(tw.summary.merge_all()))
    assert [v.tag for v in parsed.value] == ["s", "h", "t"]
    assert parsed.value[0].simple_value == 2.5
    assert (parsed.value[1].histo.min, parsed.value[1].histo.max, parsed.value[1].histo.num) == (-2.0, 1.0, 2.0)
    assert parsed.value[2].metadata.plugin_data.plugin_name == "text"
    assert list(parsed.value[2].tensor.string_val) == [b"x"]


def test_merge_of_garbage_is_invalid_argument():
    with tw.Graph().as_default(), tw.Session() as sess:
        merged = tw.summary.merge([tw.constant(b"\xff\xff\xff")], name="m")
        with pytest.raises(tw.errors.InvalidArgumentError, match="parse"):
            sess.run(merged)


def test_image_with_a_zero_dimension_as_tensorflow():
    # A zero-height or zero-width image is TF's InvalidArgument; an empty batch is an empty summary.
    with tw.Graph().as_default(), tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"non-zero dims. Found: \[2, 0, 3, 1\]"):
            sess.run(tw.summary.image("a", tw.constant(np.zeros((2, 0, 3, 1), np.uint8))))
        empty = sess.run(tw.summary.image("b", tw.constant(np.zeros((0, 2, 3, 1), np.uint8))))
    assert empty == b""
