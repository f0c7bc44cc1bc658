"""SummarySaverHook, ProfilerHook, StepCounterHook's summary, MonitoredTrainingSession's summaries,
train.summary_iterator, hooks' RunOptions, and the maybe_batch family; event files compared with the ones
TensorFlow's own hooks write for the same program where TensorFlow is installed."""

import json
import os

import numpy as np
import pytest

import tensorweave as tw


def events_in(directory):
    found = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("events.out"):
            found.extend(tw.train.summary_iterator(os.path.join(directory, name)))
    return found


def summary_points(events):
    return [
        (e.step, v.tag, round(v.simple_value, 6)) for e in events for v in e.summary.value if v.tag != "global_step/sec"
    ]


def run_summary_program(ns, logdir, steps=7):
    with ns.Graph().as_default():
        step = ns.train.get_or_create_global_step()
        x = ns.placeholder(ns.float32, [])
        ns.summary.scalar("x", x)
        w = ns.Variable(1.0)
        # As a training program: the step's increment comes after the update (a bare assign_add would race with
        # the hook's read of the step, in TensorFlow as here).
        train = ns.train.GradientDescentOptimizer(0.1).minimize(ns.square(w * x), global_step=step)
        scaffold = ns.train.Scaffold()
        hook = ns.train.SummarySaverHook(save_steps=3, output_dir=logdir, scaffold=scaffold)
        creator = ns.train.ChiefSessionCreator(scaffold=scaffold)
        with ns.train.MonitoredSession(session_creator=creator, hooks=[hook]) as sess:
            for i in range(steps):
                sess.run(train, {x: float(i) * 1.5})
    return events_in(logdir)


def test_summary_saver_hook_writes_every_n_steps_like_tensorflow(tmp_path):
    events = run_summary_program(tw, str(tmp_path / "tw"))
    got = summary_points(events)
    # The first step, then every 3 global steps; each at the global step after the run.
    assert got == [(1, "x", 0.0), (4, "x", 4.5), (7, "x", 9.0)]
    starts = [e.step for e in events if e.HasField("session_log")]
    assert starts == [1]
    # TensorFlow's hooks read the step with `global_step + 0` early in each run, racing with its increment at the
    # end of the run; TensorFlow itself mostly gives these points (sometimes, under load, a later read shifts
    # one). tensorweave runs ready nodes in TensorFlow's (first-in, first-out) order, on one thread here.
    tf = pytest.importorskip("tensorflow").compat.v1
    tf.disable_eager_execution()
    tf_points = summary_points(run_summary_program(tf, str(tmp_path / "tf")))
    assert tf_points[:2] == got[:2]


def test_summary_saver_hook_arguments():
    with tw.Graph().as_default():
        tw.train.get_or_create_global_step()
        with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
            tw.train.SummarySaverHook(save_steps=1)
        with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
            tw.train.SummarySaverHook(save_steps=1, scaffold=tw.train.Scaffold(), summary_op=tw.constant(""))
        with pytest.raises(ValueError, match="every_secs or every_steps"):
            tw.train.SummarySaverHook(summary_op=tw.constant(""))
    with tw.Graph().as_default():
        hook = tw.train.SummarySaverHook(save_steps=1, summary_op=tw.constant(""))
        with pytest.raises(RuntimeError, match="Global step should be created to use SummarySaverHook"):
            hook.begin()


def test_monitored_training_session_writes_summaries_and_step_rate(tmp_path):
    d = str(tmp_path)
    with tw.Graph().as_default():
        step = tw.train.get_or_create_global_step()
        w = tw.Variable(2.0)
        loss = tw.square(w)
        tw.summary.scalar("loss", loss)
        train = tw.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
        with tw.train.MonitoredTrainingSession(
            checkpoint_dir=d, save_summaries_steps=2, log_step_count_steps=2, save_checkpoint_secs=None
        ) as sess:
            for _ in range(5):
                sess.run(train)
    events = events_in(d)
    losses = [(s, v) for s, tag, v in summary_points(events) if tag == "loss"]
    assert [s for s, _ in losses] == [1, 3, 5]
    # w halves each step (w -= 0.25 * 2w): the loss read during step s is (2 / 2**(s-1))**2.
    np.testing.assert_allclose([v for _, v in losses], [4.0, 0.25, 4.0 / 256], rtol=1e-5)
    rates = [v.simple_value for e in events for v in e.summary.value if v.tag == "global_step/sec"]
    assert rates and all(r > 0 for r in rates)


def test_profiler_hook_writes_chrome_traces(tmp_path):
    d = str(tmp_path)
    with tw.Graph().as_default():
        step = tw.train.get_or_create_global_step()
        y = tw.matmul(tw.ones([8, 8]), tw.ones([8, 8]), name="product")
        train = tw.group(tw.assign_add(step, 1), y)
        with tw.train.MonitoredSession(hooks=[tw.train.ProfilerHook(save_steps=2, output_dir=d)]) as sess:
            for _ in range(5):
                sess.run(train)
    traces = sorted(f for f in os.listdir(d) if f.startswith("timeline-"))
    assert traces == ["timeline-3.json", "timeline-5.json"]
    with open(os.path.join(d, traces[0])) as f:
        trace = json.load(f)
    names = {e.get("args", {}).get("name") for e in trace["traceEvents"]}
    assert "product" in names
    tags = [e.tagged_run_metadata.tag for e in events_in(d) if e.HasField("tagged_run_metadata")]
    assert tags == ["step_3", "step_5"]


def test_hook_run_options_reach_the_step():
    class Tracer(tw.train.SessionRunHook):
        def before_run(self, run_context):
            return tw.train.SessionRunArgs(None, options=tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE))

        def after_run(self, run_context, run_values):
            self.stats = run_values.run_metadata.step_stats
            self.options = run_values.options

    hook = Tracer()
    with tw.Graph().as_default():
        y = tw.add(tw.constant(1.0), 2.0, name="sum")
        with tw.train.MonitoredSession(hooks=[hook]) as sess:
            assert sess.run(y, options=tw.RunOptions(timeout_in_ms=5000)) == 3.0
    assert hook.options.trace_level == tw.RunOptions.FULL_TRACE and hook.options.timeout_in_ms == 5000
    nodes = {n.node_name for d in hook.stats.dev_stats for n in d.node_stats}
    assert "sum" in nodes


def test_summary_iterator_reads_tensorflow_event_files(tmp_path):
    tf = pytest.importorskip("tensorflow").compat.v1
    tf.disable_eager_execution()
    with tf.Graph().as_default():
        writer = tf.summary.FileWriter(str(tmp_path))
        summary = tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=3.5)])
        writer.add_summary(summary, 7)
        writer.close()
    events = events_in(str(tmp_path))
    assert events[0].file_version.startswith("brain.Event")
    assert summary_points(events) == [(7, "a", 3.5)]


def run_queue(batch_tensor, batches):
    with tw.Session() as sess:
        sess.run(tw.local_variables_initializer())
        coord = tw.train.Coordinator()
        threads = tw.train.start_queue_runners(sess, coord)
        try:
            return [sess.run(batch_tensor).tolist() for _ in range(batches)]
        finally:
            coord.request_stop()
            coord.join(threads)


def test_maybe_batch_keeps_the_selected_rows():
    with tw.Graph().as_default():
        x = tw.train.limit_epochs(tw.constant(np.arange(10)), num_epochs=1)
        b = tw.train.maybe_batch(
            [x], tw.equal(x % 3, 0), batch_size=2, enqueue_many=True, allow_smaller_final_batch=True
        )
        assert run_queue(b, 2) == [[0, 3], [6, 9]]


def test_maybe_batch_with_a_scalar_keep_input_keeps_whole_enqueues():
    with tw.Graph().as_default():
        keep = tw.placeholder_with_default(True, [])
        b = tw.train.maybe_batch([tw.constant([1, 2])], keep, batch_size=3)
        assert run_queue(b, 1) == [[[1, 2]] * 3]
    with tw.Graph().as_default():
        b = tw.train.maybe_batch([tw.constant(1)], tw.constant(False), batch_size=1)
        with tw.Session() as sess:
            coord = tw.train.Coordinator()
            threads = tw.train.start_queue_runners(sess, coord)
            with pytest.raises(tw.errors.DeadlineExceededError):
                sess.run(b, options=tw.RunOptions(timeout_in_ms=300))
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)


def test_maybe_shuffle_batch_and_joins():
    with tw.Graph().as_default():
        x = tw.train.limit_epochs(tw.constant(np.arange(20)), num_epochs=1)
        b = tw.train.maybe_shuffle_batch(
            [x], 4, capacity=20, min_after_dequeue=2, keep_input=tw.less(x, 8), enqueue_many=True, seed=3
        )
        got = run_queue(b, 2)
        assert sorted(sum(got, [])) == list(range(8))
    with tw.Graph().as_default():
        a = tw.train.limit_epochs(tw.constant([1, 2, 3, 4]), num_epochs=1)
        c = tw.train.limit_epochs(tw.constant([10, 20, 30, 40]), num_epochs=1)
        b = tw.train.maybe_batch_join(
            [[a], [c]], [True, False, True, False], batch_size=4, enqueue_many=True, allow_smaller_final_batch=True
        )
        assert sorted(run_queue(b, 1)[0]) == [1, 3, 10, 30]
        d = tw.train.limit_epochs(tw.constant([5, 6]), num_epochs=1)
        s = tw.train.maybe_shuffle_batch_join(
            [[d]], 2, capacity=4, min_after_dequeue=0, keep_input=True, enqueue_many=True
        )
        assert sorted(run_queue(s, 1)[0]) == [5, 6]


def test_maybe_batch_keep_input_errors():
    with tw.Graph().as_default():
        x = tw.constant([1, 2])
        with pytest.raises(ValueError, match="cannot be a vector when `enqueue_many=False`"):
            tw.train.maybe_batch([x], [True, False], batch_size=1)
        with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
            tw.train.maybe_batch([x], [[True]], batch_size=1, enqueue_many=True)
        with pytest.raises(ValueError, match="must be known"):
            tw.train.maybe_batch([x], tw.placeholder(tw.bool), batch_size=1, enqueue_many=True)
