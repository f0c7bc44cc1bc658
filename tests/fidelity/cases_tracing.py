"""Traced steps against TF1: what `RunOptions(trace_level=...)` puts in `RunMetadata.step_stats` (devices, the
fetched nodes' outputs: dtype, shape, bytes), what an untraced step leaves there, the Timeline's processes and
regions, and FileWriter.add_run_metadata / add_meta_graph's errors. TF rewrites and adds nodes of its own
(_SOURCE, _Arg, _Retval, oneDNN's _Mkl ops, constant folding), so the cases look at the user's nodes only."""

import importlib
import json

import numpy as np

from tests.fidelity.harness import case


def _timeline(tf):
    return importlib.import_module(tf.__name__.split(".")[0] + ".python.client.timeline")


def _graph(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4), name="w")
    y = tf.matmul(x, w, name="y")
    s = tf.reduce_sum(y, name="s")
    return x, y, s


def _traced(tf, sess, fetch, feed, level):
    metadata = tf.RunMetadata()
    sess.run(fetch, feed, options=tf.RunOptions(trace_level=level), run_metadata=metadata)
    return metadata


def _outputs(node_stats):
    return [
        [
            o.slot,
            o.tensor_description.dtype,
            [d.size for d in o.tensor_description.shape.dim],
            o.tensor_description.allocation_description.requested_bytes,
        ]
        for o in node_stats.output
    ]


@case
def tracing_step_stats_of_user_nodes(tf, sess):
    x, _, s = _graph(tf)
    feed = {x: np.ones((2, 3), np.float32)}
    full = _traced(tf, sess, s, feed, tf.RunOptions.FULL_TRACE)
    software = _traced(tf, sess, s, feed, tf.RunOptions.SOFTWARE_TRACE)
    untraced = _traced(tf, sess, s, feed, tf.RunOptions.NO_TRACE)
    nodes = {n.node_name: n for d in full.step_stats.dev_stats for n in d.node_stats}
    return {
        "devices": [d.device for d in full.step_stats.dev_stats],
        "outputs": {name: _outputs(nodes[name]) for name in ("w", "y", "s")},
        "labels": {name: nodes[name].timeline_label.split(" = ")[0] for name in ("w", "y", "s")},
        "software": sorted(
            n.node_name for d in software.step_stats.dev_stats for n in d.node_stats if n.node_name in ("w", "y", "s")
        ),
        "untraced": len(untraced.step_stats.dev_stats),
        "times": all(
            n.all_start_micros > 0 and 0 <= n.op_start_rel_micros <= n.op_end_rel_micros <= n.all_end_rel_micros
            for n in nodes.values()
        ),
    }


@case
def tracing_run_metadata_round_trips(tf, sess):
    x, _, s = _graph(tf)
    metadata = _traced(tf, sess, s, {x: np.ones((2, 3), np.float32)}, tf.RunOptions.FULL_TRACE)
    again = tf.RunMetadata.FromString(metadata.SerializeToString())
    names = [n.node_name for d in again.step_stats.dev_stats for n in d.node_stats]
    return [again == metadata, "y" in names, [d.device for d in again.step_stats.dev_stats]]


@case
def tracing_timeline_processes_and_regions(tf, sess):
    x, _, s = _graph(tf)
    metadata = _traced(tf, sess, s, {x: np.ones((2, 3), np.float32)}, tf.RunOptions.FULL_TRACE)
    out = {}
    for memory in (False, True):
        trace = json.loads(_timeline(tf).Timeline(metadata.step_stats).generate_chrome_trace_format(show_memory=memory))
        events = trace["traceEvents"]
        out[f"processes_{memory}"] = sorted(e["args"]["name"] for e in events if e["ph"] == "M")
        out[f"regions_{memory}"] = sorted(
            e["args"]["name"] for e in events if e["ph"] == "X" and e["args"]["name"] in ("w", "y", "s")
        )
        out[f"phases_{memory}"] = sorted({e["ph"] for e in events} & set("MXNODC"))
    return out


@case
def tracing_file_writer_run_metadata_errors(tf, sess):
    import tempfile

    x, _, s = _graph(tf)
    metadata = _traced(tf, sess, s, {x: np.ones((2, 3), np.float32)}, tf.RunOptions.FULL_TRACE)
    writer = tf.summary.FileWriter(tempfile.mkdtemp())
    out = []
    writer.add_run_metadata(metadata, "step_1", global_step=1)
    for attempt in (
        lambda: writer.add_run_metadata(metadata, "step_1"),
        lambda: writer.add_meta_graph(b"not a MetaGraphDef"),
        lambda: writer.add_graph("not a graph"),
        lambda: writer.add_graph(sess.graph, graph_def=sess.graph.as_graph_def()),
    ):
        try:
            attempt()
            out.append(None)
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    writer.add_graph(sess.graph.as_graph_def())  # a GraphDef as `graph` is accepted (deprecated in TF1)
    writer.close()
    return out
