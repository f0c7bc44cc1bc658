"""FileWriter's graph, meta graph and run-metadata events read back by TensorBoard's own reader
(tensorboard.backend.event_processing: its protos parse ours), TF1's errors for misuse (a run-metadata tag used
twice, a meta graph that is not a MetaGraphDef, a graph that is neither Graph nor GraphDef, writing after
close), and summary.get_summary_description."""

import glob
import os
import warnings

import numpy as np
import pytest
import tensorweave as tw

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
event_file_loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")


def _accumulator(logdir):
    acc = event_accumulator.EventAccumulator(logdir)
    acc.Reload()
    return acc


def _events(logdir):
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    return list(event_file_loader.LegacyEventFileLoader(path).Load())


def _traced_step():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [3], name="x")
        y = tw.reduce_sum(tw.square(x, name="sq"), name="y")
        with tw.Session() as sess:
            metadata = tw.RunMetadata()
            options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE, output_partition_graphs=True)
            sess.run(y, {x: np.arange(3, dtype=np.float32)}, options=options, run_metadata=metadata)
    return g, metadata


def test_run_metadata_is_read_by_tensorboard(tmp_path):
    logdir = str(tmp_path)
    g, metadata = _traced_step()
    with tw.summary.FileWriter(logdir, graph=g) as writer:
        writer.add_run_metadata(metadata, "step_7", global_step=7)
        with pytest.raises(ValueError, match="already used"):
            writer.add_run_metadata(metadata, "step_7")
    acc = _accumulator(logdir)
    assert acc.Tags()["run_metadata"] == ["step_7"]
    theirs = acc.RunMetadata("step_7")  # TensorBoard's own RunMetadata proto, parsed from our bytes
    ours = [
        (n.node_name, n.all_start_micros, n.timeline_label) for d in metadata.step_stats.dev_stats for n in d.node_stats
    ]
    assert [
        (n.node_name, n.all_start_micros, n.timeline_label) for d in theirs.step_stats.dev_stats for n in d.node_stats
    ] == ours
    assert {name for name, _, _ in ours} == {"sq", "y", "y/reduction_indices"} or {"sq", "y"} <= {n for n, _, _ in ours}
    assert [n.name for n in theirs.partition_graphs[0].node] == [n.name for n in metadata.partition_graphs[0].node]
    (event,) = [e for e in _events(logdir) if e.HasField("tagged_run_metadata")]
    assert event.step == 7


def test_graph_and_meta_graph_are_read_by_tensorboard(tmp_path):
    logdir = str(tmp_path)
    g, _ = _traced_step()
    graph_def = g.as_graph_def()
    with tw.summary.FileWriter(logdir) as writer:
        writer.add_graph(graph_def)  # a GraphDef as `graph`: TF1 accepts it (deprecated)
        writer.add_meta_graph(tw.train.export_meta_graph(graph=g))
    acc = _accumulator(logdir)
    assert [n.name for n in acc.Graph().node] == [n.name for n in graph_def.node]
    assert [n.op for n in acc.Graph().node] == [n.op for n in graph_def.node]
    assert [n.name for n in acc.MetaGraph().graph_def.node] == [n.name for n in graph_def.node]


def test_writer_misuse_raises_as_tf1(tmp_path):
    g, _ = _traced_step()
    writer = tw.summary.FileWriter(str(tmp_path))
    with pytest.raises(TypeError, match="MetaGraphDef"):
        writer.add_meta_graph(b"not a meta graph")
    with pytest.raises(TypeError, match="Graph"):
        writer.add_graph("not a graph")
    with pytest.raises(ValueError, match="not both"):
        writer.add_graph(g, graph_def=g.as_graph_def())
    with pytest.raises(AttributeError):
        writer.add_run_metadata(b"bytes are not a RunMetadata", "t")  # TF1 calls SerializeToString on it
    writer.close()


def test_events_after_close_warn_and_are_not_written(tmp_path):
    logdir = str(tmp_path)
    g, metadata = _traced_step()
    writer = tw.summary.FileWriter(logdir)
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_graph(g)
        writer.add_run_metadata(metadata, "late")
        writer.add_summary(tw.Summary(value=[tw.Summary.Value(tag="late", simple_value=1.0)]))
    assert len([w for w in caught if "closed FileWriter" in str(w.message)]) == 3
    assert [e.WhichOneof("what") for e in _events(logdir)] == ["file_version"]


def test_get_summary_description():
    from tensorweave._src.framework import graph_pb2

    with tw.Graph().as_default():
        s = tw.summary.tensor_summary("t", tw.constant([1.0]))
        with pytest.raises(ValueError, match="Can't get_summary_description on TensorSummaryV2"):
            tw.summary.get_summary_description(s.op.node_def)
    node = graph_pb2.NodeDef(name="old", op="TensorSummary")
    node.attr["description"].s = b'{"typeHint": "scalar"}'
    description = tw.summary.get_summary_description(node)
    assert description.type_hint == "scalar"
    assert isinstance(description, type(tw.summary.SummaryDescription()))
