"""Traced steps: `RunOptions(trace_level=FULL_TRACE)` fills `RunMetadata.step_stats` (one DeviceStepStats per
device, one NodeExecStats per node run: times, thread, outputs' dtype/shape/bytes, TF's timeline label), for
one device and for partitioned steps; `timeline.Timeline` turns it into a Chrome trace. Oracles: numpy (the
fetched values' dtypes, shapes and sizes), the graph (every node run once, labels from the NodeDefs), the
wall clock around the step, and TensorFlow itself (in a subprocess): its RunMetadata class parses our
serialized bytes and its own Timeline class produces the same trace events from them as ours."""

import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.python.client import timeline

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
# TensorFlow's DataType numbers.
DT_FLOAT, DT_INT32 = 1, 3


def _traced_run(sess, fetches, feed_dict=None, level=tw.RunOptions.FULL_TRACE):
    metadata = tw.RunMetadata()
    before = time.time() * 1e6
    out = sess.run(fetches, feed_dict, options=tw.RunOptions(trace_level=level), run_metadata=metadata)
    after = time.time() * 1e6
    return out, metadata, (before, after)


def _small_graph():
    # The batch is unknown, so graph optimization cannot fold `n` (a Shape) into a constant.
    x = tw.placeholder(tw.float32, [None, 3], name="x")
    w = tw.constant(np.arange(12, dtype=np.float32).reshape(3, 4), name="w")
    y = tw.matmul(x, w, name="y")
    s = tw.reduce_sum(y, name="s")
    n = tw.shape(y, name="n")
    return x, y, s, n


def test_full_trace_records_every_node_with_times_threads_and_outputs():
    with tw.Graph().as_default() as g, tw.Session() as sess:
        x, y, s, n = _small_graph()
        feed = {x: np.ones((2, 3), np.float32)}
        (y_val, s_val, n_val), metadata, (before, after) = _traced_run(sess, [y, s, n], feed)
    (dev,) = metadata.step_stats.dev_stats
    assert dev.device == CPU0
    by_name = {ns.node_name: ns for ns in dev.node_stats}
    assert len(by_name) == len(dev.node_stats)  # each node once
    # The step's nodes: what the fetches need (x is fed, so its placeholder does not run).
    assert set(by_name) == {"w", "y", "s", "s/reduction_indices", "n"} or set(by_name) == {
        op.name for op in g.get_operations() if op.name != "x"
    }
    for ns in dev.node_stats:
        assert before <= ns.all_start_micros <= after
        assert ns.all_start_micros + ns.all_end_rel_micros <= after
        assert 0 <= ns.op_start_rel_micros <= ns.op_end_rel_micros <= ns.all_end_rel_micros
        assert ns.all_start_nanos == ns.all_start_micros * 1000
        assert ns.all_end_rel_nanos == ns.all_end_rel_micros * 1000
        assert ns.thread_id > 0
        node_def = g.get_operation_by_name(ns.node_name).node_def
        inputs = [i.removesuffix(":0") for i in node_def.input]  # TF names output 0 "x"
        assert ns.timeline_label == f"{node_def.name} = {node_def.op}({', '.join(inputs)})"
    # A consumer starts after its producer ended.
    assert by_name["s"].all_start_micros >= by_name["y"].all_start_micros + by_name["y"].all_end_rel_micros
    assert by_name["y"].timeline_label == "y = MatMul(x, w)"
    for name, value, dtype in (("y", y_val, DT_FLOAT), ("s", s_val, DT_FLOAT), ("n", n_val, DT_INT32)):
        (out,) = by_name[name].output
        assert out.slot == 0
        desc = out.tensor_description
        assert desc.dtype == dtype
        assert [d.size for d in desc.shape.dim] == list(np.shape(value))
        assert desc.allocation_description.requested_bytes == np.asarray(value).nbytes
        assert desc.allocation_description.allocator_name == "cpu"


def test_software_trace_records_too_and_no_trace_records_nothing():
    with tw.Graph().as_default(), tw.Session() as sess:
        a = tw.placeholder_with_default(1.0, [], name="a")
        y = tw.add(a, tw.constant(2.0, name="b"), name="y")
        _, metadata, _ = _traced_run(sess, y, level=tw.RunOptions.SOFTWARE_TRACE)
        every_op = {op.name for op in tw.get_default_graph().get_operations()}
        assert {ns.node_name for ns in metadata.step_stats.dev_stats[0].node_stats} == every_op
        # The same RunMetadata given to an untraced run is cleared (as TF).
        assert sess.run(y, options=tw.RunOptions(), run_metadata=metadata) == 3.0
        assert len(metadata.step_stats.dev_stats) == 0
        assert sess.run(y, run_metadata=metadata) == 3.0
        assert len(metadata.step_stats.dev_stats) == 0
        # A callable made with accept_options traces too.
        call = sess.make_callable(y, accept_options=True)
        meta = tw.RunMetadata()
        call(options=tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE), run_metadata=meta)
        assert {ns.node_name for ns in meta.step_stats.dev_stats[0].node_stats} == every_op


def test_variable_and_ref_outputs_are_described():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(np.zeros((4, 5), np.float32), name="v")
        sess.run(tw.global_variables_initializer())
        inc = tw.assign_add(v, tw.ones((4, 5)), name="inc")
        _, metadata, _ = _traced_run(sess, inc)
    by_name = {ns.node_name: ns for ns in metadata.step_stats.dev_stats[0].node_stats}
    for name in ("v", "inc"):
        desc = by_name[name].output[0].tensor_description
        assert [d.size for d in desc.shape.dim] == [4, 5]
        assert desc.allocation_description.requested_bytes == 4 * 5 * 4


def test_partitioned_step_has_one_device_step_stats_per_device():
    config = tw.ConfigProto(device_count={"CPU": 2})
    with tw.Graph().as_default(), tw.Session(config=config) as sess:
        with tw.device("/cpu:0"):
            a = tw.placeholder_with_default(np.full((3,), 2.0, np.float32), [3], name="a")
        with tw.device("/cpu:1"):
            b = tw.multiply(a, 3.0, name="b")
        with tw.device("/cpu:0"):
            c = tw.add(b, 1.0, name="c")
        value, metadata, _ = _traced_run(sess, c)
    np.testing.assert_allclose(value, [7.0, 7.0, 7.0])
    devices = {d.device: d for d in metadata.step_stats.dev_stats}
    assert set(devices) == {CPU0, CPU1}
    names = {dev: {ns.node_name for ns in d.node_stats} for dev, d in devices.items()}
    assert {"a", "c"} <= names[CPU0] and "b" in names[CPU1]
    assert "b" not in names[CPU0] and "a" not in names[CPU1]
    # The cut edges' _Send/_Recv nodes are recorded with TF's labels ("name = _Send(tensor @peer)").
    labels = [ns.timeline_label for d in devices.values() for ns in d.node_stats]
    sends = [label for label in labels if " = _Send(" in label]
    recvs = [label for label in labels if " = _Recv(" in label]
    assert sends and recvs
    assert any(f"@{CPU1})" in label for label in sends) and any(f"@{CPU0})" in label for label in recvs)


def test_failed_step_raises_and_leaves_the_metadata_as_it_was():
    """As TF1 (checked with tensorflow.compat.v1): a step that fails does not touch its RunMetadata."""
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [None], name="x")
        bad = tw.check_numerics(x, "found a nan", name="bad")
        options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE)
        metadata = tw.RunMetadata()
        sess.run(bad, {x: [1.0]}, options=options, run_metadata=metadata)
        before = metadata.SerializeToString()
        assert [ns.node_name for d in metadata.step_stats.dev_stats for ns in d.node_stats] == ["bad"]
        with pytest.raises(tw.errors.InvalidArgumentError, match="found a nan"):
            sess.run(bad, {x: [np.nan]}, options=options, run_metadata=metadata)
        assert metadata.SerializeToString() == before
        fresh = tw.RunMetadata()
        with pytest.raises(tw.errors.InvalidArgumentError):
            sess.run(bad, {x: [np.nan]}, options=options, run_metadata=fresh)
        assert len(fresh.step_stats.dev_stats) == 0


def test_bad_options_are_type_errors():
    with tw.Graph().as_default(), tw.Session() as sess:
        y = tw.constant(1.0)
        with pytest.raises(TypeError, match="RunOptions"):
            sess.run(y, options="FULL_TRACE", run_metadata=tw.RunMetadata())
        with pytest.raises(ValueError, match="TraceLevel"):
            tw.RunOptions(trace_level="LOUD_TRACE")


def test_run_metadata_serializes_and_round_trips():
    with tw.Graph().as_default(), tw.Session() as sess:
        _, _, s, _ = _small_graph()
        metadata = tw.RunMetadata()
        options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE, output_partition_graphs=True)
        sess.run(s, {"x:0": np.ones((2, 3), np.float32)}, options=options, run_metadata=metadata)
    data = metadata.SerializeToString()
    again = tw.RunMetadata.FromString(data)
    assert again == metadata
    assert len(again.partition_graphs) == 1
    assert [ns.node_name for ns in again.step_stats.dev_stats[0].node_stats] == [
        ns.node_name for ns in metadata.step_stats.dev_stats[0].node_stats
    ]


def _trace_events(json_text):
    trace = json.loads(json_text)
    events = trace["traceEvents"]
    for e in events:
        assert e["ph"] in "MXstNODC"
    return events


def test_timeline_has_a_region_per_node_and_consistent_flows():
    with tw.Graph().as_default(), tw.Session() as sess:
        x, _, s, n = _small_graph()
        _, metadata, _ = _traced_run(sess, [s, n], {x: np.ones((2, 3), np.float32)})
    stats = metadata.step_stats
    events = _trace_events(timeline.Timeline(stats).generate_chrome_trace_format())
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(processes.values()) == sorted(["Allocators", f"{CPU0} Compute", f"{CPU0} Tensors"])
    compute_pid = next(pid for pid, name in processes.items() if name == f"{CPU0} Compute")
    regions = {e["args"]["name"]: e for e in events if e["ph"] == "X"}
    nodes = {ns.node_name: ns for ns in stats.dev_stats[0].node_stats}
    assert set(regions) == set(nodes)
    for name, e in regions.items():
        ns = nodes[name]
        assert (e["ts"], e["dur"], e["pid"], e["cat"]) == (
            ns.all_start_micros,
            ns.all_end_rel_micros,
            compute_pid,
            "Op",
        )
        assert e["name"] == e["args"]["op"] == ns.timeline_label.split(" = ")[1].split("(")[0]
    assert regions["y"]["args"]["input0"] == "x" and regions["y"]["args"]["input1"] == "w"
    # Regions in one lane (tid) never overlap.
    by_lane = {}
    for e in regions.values():
        by_lane.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_lane.values():
        spans.sort()
        assert all(a_end < b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    # Each flow start has its end, from a producer's end to a consumer's start.
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "t"}
    assert set(starts) == set(ends)
    for flow_id, start in starts.items():
        end = ends[flow_id]
        assert start["ts"] <= end["ts"] and start["name"] == end["name"]
    # show_memory adds tensor lifetimes and an allocator counter; show_dataflow=False drops the flows.
    memory = _trace_events(timeline.Timeline(stats).generate_chrome_trace_format(show_memory=True))
    assert {e["ph"] for e in memory} >= {"N", "O", "D", "C"}
    assert not [
        e for e in _trace_events(timeline.Timeline(stats).generate_chrome_trace_format(False)) if e["ph"] in "st"
    ]
    with pytest.raises(ValueError, match="op_time"):
        timeline.Timeline(stats).generate_chrome_trace_format(op_time="wall")


def test_partitioned_trace_shows_send_before_recv():
    config = tw.ConfigProto(device_count={"CPU": 2})
    with tw.Graph().as_default(), tw.Session(config=config) as sess:
        with tw.device("/cpu:0"):
            a = tw.Variable([1.0, 2.0], name="a")  # a variable: graph optimization cannot fold it away
        with tw.device("/cpu:1"):
            b = tw.square(a, name="b")
        sess.run(a.initializer)
        _, metadata, _ = _traced_run(sess, b)
    events = _trace_events(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
    pids = {e["args"]["name"]: e["pid"] for e in events if e["ph"] == "M"}
    regions = [e for e in events if e["ph"] == "X"]
    (send,) = [e for e in regions if e["name"] == "_Send"]
    (recv,) = [e for e in regions if e["name"] == "_Recv"]
    assert send["pid"] == pids[f"{CPU0} Compute"] and recv["pid"] == pids[f"{CPU1} Compute"]
    assert send["ts"] <= recv["ts"] + recv["dur"]  # the value arrived after it was sent
    assert send["args"]["input0"].startswith("a/read:0 @" + CPU1)
    # Inputs are named as TF names them (output 0 by its node's name), in partition graphs too.
    (read,) = [e for e in regions if e["name"] == "Identity"]
    assert (read["args"]["name"], read["args"]["input0"]) == ("a/read", "a")
    (square,) = [e for e in regions if e["name"] == "Square"]
    assert square["args"]["input0"] == recv["args"]["name"]
    assert square["ts"] >= recv["ts"] + recv["dur"]


def _synthetic_step_stats():
    """Two devices; on the first, p and q overlap (two lanes) and r consumes both; s on the second consumes
    r and r's second output: flows from q's lane and across devices, and one from p in r's own lane (none)."""
    from tensorweave._src.framework import step_stats_pb2

    stats = step_stats_pb2.StepStats()

    def node(dev, name, start, dur, label, outputs):
        ns = dev.node_stats.add(node_name=name, all_start_micros=start, all_end_rel_micros=dur, op_end_rel_micros=dur)
        ns.timeline_label = label
        for slot, nbytes in enumerate(outputs):
            out = ns.output.add(slot=slot)
            out.tensor_description.dtype = 1
            out.tensor_description.allocation_description.requested_bytes = nbytes
            out.tensor_description.allocation_description.allocator_name = "cpu"

    d0 = stats.dev_stats.add(device=CPU0)
    node(d0, "p", 1000, 10, "p = Const()", [400])
    node(d0, "q", 1005, 10, "q = Const()", [800])
    node(d0, "r", 1020, 5, "r = AddN(p, q, ^p)", [400, 16])
    d1 = stats.dev_stats.add(device=CPU1)
    node(d1, "s", 1030, 2, "s = Mul(r, r:1)", [400])
    return stats


def test_timeline_of_synthetic_steps_has_exact_lanes_flows_and_memory():
    stats = _synthetic_step_stats()
    events = _trace_events(timeline.Timeline(stats).generate_chrome_trace_format(show_memory=True))
    regions = {e["args"]["name"]: e for e in events if e["ph"] == "X"}
    assert {n: (e["pid"], e["tid"]) for n, e in regions.items()} == {"p": (1, 0), "q": (1, 1), "r": (1, 0), "s": (3, 0)}
    assert regions["r"]["args"] == {"name": "r", "op": "AddN", "input0": "p", "input1": "q", "input2": "^p"}
    flows = sorted((e["ph"], e["name"], e["pid"], e["tid"], e["ts"]) for e in events if e["ph"] in "st")
    assert flows == sorted(
        [
            ("s", "q", 1, 1, 1015),  # q's lane to r's
            ("t", "q", 1, 0, 1020),
            ("s", "r", 1, 0, 1025),  # r on CPU:0 to s on CPU:1
            ("t", "r", 3, 0, 1030),
            ("s", "r:1", 1, 0, 1025),
            ("t", "r:1", 3, 0, 1030),
        ]
    )
    # Live bytes on the "cpu" allocator: p 400 (1000..1024), q 800 (1005..1024), r 400 + 16 (1020..1031).
    counters = [(e["ts"], e["args"]["cpu"]) for e in events if e["ph"] == "C"]
    assert max(v for _, v in counters) == 400 + 800 + 400 + 16
    assert counters[-1][1] == 0
    analysis = timeline.Timeline(stats).analyze_step_stats(show_memory=True)
    peak = analysis.allocator_maximums["cpu"]
    assert (peak.num_bytes, peak.tensors) == (1616, {"p", "q", "r", "r:1"})


def test_tensorflows_timeline_agrees_on_synthetic_steps(tmp_path):
    metadata = tw.RunMetadata()
    metadata.step_stats = _synthetic_step_stats()
    path = str(tmp_path / "synthetic.pb")
    with open(path, "wb") as f:
        f.write(metadata.SerializeToString())
    theirs = _tensorflow_reads(path)
    for memory in (False, True):
        ours = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format(show_memory=memory)
        assert _trace_events(ours) == _trace_events(theirs[f"trace_{memory}"])


TF_TIMELINE = textwrap.dedent(
    """
    import json, sys
    from tensorflow.core.protobuf import config_pb2
    from tensorflow.python.client import timeline
    data = open(sys.argv[1], "rb").read()
    metadata = config_pb2.RunMetadata.FromString(data)
    out = {"devices": [d.device for d in metadata.step_stats.dev_stats],
           "nodes": [[n.node_name, n.all_start_micros, n.all_end_rel_micros, n.thread_id, n.timeline_label,
                      [[o.slot, o.tensor_description.dtype, [d.size for d in o.tensor_description.shape.dim],
                        o.tensor_description.allocation_description.requested_bytes] for o in n.output]]
                     for d in metadata.step_stats.dev_stats for n in d.node_stats],
           "partition_graphs": [[n.name for n in g.node] for g in metadata.partition_graphs]}
    for memory in (False, True):
        out["trace_%s" % memory] = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format(
            show_memory=memory)
    print(json.dumps(out))
    """
)


def _tensorflow_reads(path):
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        pytest.skip("tensorflow is not installed")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [sys.executable, "-c", TF_TIMELINE, path], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _without_object_ids(events):
    """Trace events comparable across implementations: the order within one timestamp aside."""
    return sorted(json.dumps(e, sort_keys=True) for e in events)


def test_tensorflow_parses_our_run_metadata_and_its_timeline_agrees(tmp_path):
    config = tw.ConfigProto(device_count={"CPU": 2})
    with tw.Graph().as_default(), tw.Session(config=config) as sess:
        x = tw.placeholder(tw.float32, [4, 3], name="x")
        with tw.device("/cpu:1"):
            h = tw.nn.relu(tw.matmul(x, tw.ones([3, 5]), name="mm"), name="h")
        loss = tw.reduce_mean(tw.square(h), name="loss")
        grad = tw.gradients(loss, x)[0]
        metadata = tw.RunMetadata()
        options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE, output_partition_graphs=True)
        sess.run([loss, grad], {x: np.ones((4, 3), np.float32)}, options=options, run_metadata=metadata)
    path = str(tmp_path / "run_metadata.pb")
    with open(path, "wb") as f:
        f.write(metadata.SerializeToString())
    theirs = _tensorflow_reads(path)
    stats = metadata.step_stats
    assert theirs["devices"] == [d.device for d in stats.dev_stats] and len(theirs["devices"]) == 2
    ours_nodes = [
        [
            n.node_name,
            n.all_start_micros,
            n.all_end_rel_micros,
            n.thread_id,
            n.timeline_label,
            [
                [
                    o.slot,
                    o.tensor_description.dtype,
                    [d.size for d in o.tensor_description.shape.dim],
                    o.tensor_description.allocation_description.requested_bytes,
                ]
                for o in n.output
            ],
        ]
        for d in stats.dev_stats
        for n in d.node_stats
    ]
    assert theirs["nodes"] == ours_nodes
    assert theirs["partition_graphs"] == [[n.name for n in g.node] for g in metadata.partition_graphs]
    for memory in (False, True):
        ours = _trace_events(timeline.Timeline(stats).generate_chrome_trace_format(show_memory=memory))
        tf_events = _trace_events(theirs[f"trace_{memory}"])
        assert _without_object_ids(ours) == _without_object_ids(tf_events)


TF_TRACE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    from tensorflow.python.client import timeline
    x = tf.placeholder(tf.float32, [8, 30], name="x")
    h = x
    for i in range(3):
        h = tf.nn.relu(tf.matmul(h, tf.ones([30, 30])), name="h%d" % i)
    loss = tf.reduce_sum(h)
    with tf.Session() as sess:
        md = tf.RunMetadata()
        sess.run([loss, tf.gradients(loss, x)], {x: np.ones((8, 30))},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    open(sys.argv[1], "wb").write(md.SerializeToString())
    traces = {str(m): timeline.Timeline(md.step_stats).generate_chrome_trace_format(show_memory=m)
              for m in (False, True)}
    traces["no_flow"] = timeline.Timeline(md.step_stats).generate_chrome_trace_format(show_dataflow=False)
    print(json.dumps(traces))
    """
)


def test_our_timeline_matches_tensorflows_on_a_tensorflow_trace(tmp_path):
    """TensorFlow traces a step and makes its Timeline; ours, given the same (serialized) RunMetadata, makes
    the same trace event for event."""
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        pytest.skip("tensorflow is not installed")
    path = str(tmp_path / "tf_run_metadata.pb")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [sys.executable, "-c", TF_TRACE, path], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    with open(path, "rb") as f:
        metadata = tw.RunMetadata.FromString(f.read())
    assert len(metadata.step_stats.dev_stats[0].node_stats) > 10
    tl = timeline.Timeline(metadata.step_stats)
    for key, kwargs in (("False", {}), ("True", {"show_memory": True}), ("no_flow", {"show_dataflow": False})):
        assert _trace_events(tl.generate_chrome_trace_format(**kwargs)) == _trace_events(theirs[key])
