"""tf.CriticalSection in graph mode: executes of one section never interleave, across concurrent Session.run
calls and within one step; their outputs are fn's; deadlocking uses are ValueErrors; a step waiting for the
section ends with its timeout. Compared with TensorFlow (tf.compat.v1, skipped where not installed) where the
result is deterministic."""

import threading
import time

import numpy as np
import pytest
import tensorweave as tw

_TF1 = None


def _tf1():
    """tensorflow.compat.v1 in graph mode, or a skip."""
    global _TF1
    if _TF1 is None:
        tf1 = pytest.importorskip("tensorflow.compat.v1")
        tf1.disable_eager_execution()
        _TF1 = tf1
    return _TF1


def _sleep(seconds):
    """A py_func that sleeps (releasing the GIL) and returns its input: widens the window between a read and
    the write that depends on it."""

    def fn(x):
        time.sleep(seconds)
        return x

    return fn


def _read_add_assign(v):
    """v = read(v) + 1, not atomic: the read, a 2 ms pause, then the assign. Returns the assign."""
    value = v.read_value()
    slow = tw.py_func(_sleep(0.002), [value], tw.int32)
    slow.set_shape([])
    return v.assign(slow + 1)


def _hammer(sess, op, threads=4, per_thread=8):
    def work():
        for _ in range(per_thread):
            sess.run(op)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return threads * per_thread


def test_concurrent_read_add_assign_through_execute_loses_no_update():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(0, name="v")
        cs = tw.CriticalSection()
        op = cs.execute(lambda: _read_add_assign(v))
        sess.run(v.initializer)
        total = _hammer(sess, op)
        assert int(sess.run(v)) == total


def test_the_same_read_add_assign_without_the_section_loses_updates():
    # What the test above guards against: without the critical section the steps interleave.
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(0, name="v")
        op = _read_add_assign(v)
        sess.run(v.initializer)
        total = _hammer(sess, op)
        assert int(sess.run(v)) < total


@pytest.mark.parametrize("shared", [False, True])
def test_executes_never_overlap_in_time(shared):
    # Each execute records when it entered and left; with shared=True two CriticalSection objects of one
    # shared_name take turns on the same mutex.
    intervals, lock = [], threading.Lock()

    def record(x):
        start = time.monotonic()
        time.sleep(0.003)
        with lock:
            intervals.append((start, time.monotonic()))
        return x

    with tw.Graph().as_default(), tw.Session() as sess:
        sections = [tw.CriticalSection(shared_name="s"), tw.CriticalSection(shared_name="s")] if shared else None
        cs = tw.CriticalSection()
        ops = []
        for i in range(2):
            section = sections[i] if shared else cs
            ops.append(section.execute(lambda: tw.py_func(record, [tw.constant(1.0)], tw.float32)))

        def work(op):
            for _ in range(6):
                sess.run(op)

        pool = [threading.Thread(target=work, args=(ops[i % 2],)) for i in range(4)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    intervals.sort()
    assert len(intervals) == 24
    overlaps = [(a, b) for a, b in zip(intervals, intervals[1:]) if b[0] < a[1]]
    assert not overlaps


def test_two_executes_in_one_step_take_turns_as_in_tensorflow():
    # TF's docstring example: a snapshot-and-increment counter executed twice in one step.
    def build(t, v):
        cs = t.CriticalSection()

        def count():
            value = v.read_value()
            with t.control_dependencies([value]), t.control_dependencies([v.assign_add(1)]):
                return t.identity(value)

        f1, f2 = cs.execute(count), cs.execute(count)
        return [f1 + f2, f1, f2]

    results = []
    for t in (tw, _tf1()):
        with t.Graph().as_default(), t.Session() as sess:
            v = t.Variable(0, name="v", use_resource=True) if t is not tw else t.Variable(0, name="v")
            fetches = build(t, v)
            sess.run(v.initializer)
            total, a, b = sess.run(fetches)
            results.append((int(total), sorted([int(a), int(b)]), int(sess.run(v))))
    assert results[0] == results[1] == (1, [0, 1], 2)


def test_outputs_are_fns_as_in_tensorflow():
    def build(t):
        v = t.Variable([1.0, 2.0], name="v")
        cs = t.CriticalSection(name="cs")
        out = cs.execute(lambda: (v.read_value() * 2.0, {"n": t.constant(3), "s": t.constant("x")}))
        single = cs.execute(lambda: t.reduce_sum(v.read_value()))
        return v, out, single, cs.name

    results = []
    for t in (tw, _tf1()):
        with t.Graph().as_default(), t.Session() as sess:
            v, out, single, name = build(t)
            sess.run(v.initializer)
            (doubled, rest), total = sess.run([out, single])
            results.append((doubled.tolist(), sorted(rest), int(rest["n"]), rest["s"], float(total), name))
            assert isinstance(out, tuple) and isinstance(out[1], dict)
    assert results[0] == results[1] == ([2.0, 4.0], ["n", "s"], 3, b"x", 3.0, "cs")


def test_an_op_as_output_and_gradients_through_execute():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(5, name="v")
        cs = tw.CriticalSection()
        update = cs.execute(lambda: v.assign_add(2).op)
        assert isinstance(update, tw.Operation)
        x = tw.constant([1.0, -2.0, 3.0])
        y = cs.execute(lambda: x * x)
        (grad,) = tw.gradients(tw.reduce_sum(y), [x])
        sess.run(v.initializer)
        assert sess.run(update) is None
        assert int(sess.run(v)) == 7
        np.testing.assert_allclose(sess.run(grad), [2.0, -4.0, 6.0])


def test_an_execute_using_anothers_output_waits_for_it_instead_of_deadlocking():
    # fn's inputs made outside fn are computed before the section is taken (else r2 could take it first and
    # wait for r1, which waits for the section).
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(1.0, name="v")
        cs = tw.CriticalSection()
        r1 = cs.execute(lambda: v.assign_add(1.0))
        r2 = cs.execute(lambda: r1 * 10.0)
        sess.run(v.initializer)
        options = tw.RunOptions(timeout_in_ms=10000)
        for _ in range(20):
            a, b = sess.run([r1, r2], options=options)
            assert b == a * 10.0


def test_nested_execute_of_the_same_section_is_a_value_error_as_in_tensorflow():
    raised = []
    for t in (tw, _tf1()):
        with t.Graph().as_default():
            cs = t.CriticalSection()
            with pytest.raises(ValueError, match="Attempting to lock a CriticalSection") as info:
                cs.execute(lambda cs=cs, t=t: cs.execute(lambda: t.constant(1.0)))
            raised.append(type(info.value))
            # fn that uses the section's mutex handle itself
            with pytest.raises(ValueError, match="already running"):
                cs.execute(lambda cs=cs, t=t: t.identity(cs._handle))
    assert raised[0] is raised[1] is ValueError


def test_exclusive_resource_access_across_sections_as_in_tensorflow():
    def raises(fn):
        try:
            fn()
        except ValueError as e:
            return "exclusive_resource_access=False" in str(e)
        return False

    def outcomes(t, make_var):
        out = []
        with t.Graph().as_default():
            v, w = make_var(t), make_var(t)
            t.CriticalSection().execute(lambda: v.read_value() + 1)
            out.append(raises(lambda: t.CriticalSection().execute(lambda: v.read_value() + 2)))
            # an exclusive execution on v exists: a shared one on v is refused too
            out.append(
                raises(lambda: t.CriticalSection().execute(lambda: v.read_value() + 3, exclusive_resource_access=False))
            )
            out.append(raises(lambda: t.CriticalSection().execute(lambda: w.read_value() + 4)))  # another variable
        with t.Graph().as_default():
            v = make_var(t)
            out += [
                raises(lambda: t.CriticalSection().execute(lambda: v.read_value(), exclusive_resource_access=False))
                for _ in range(2)
            ]
        return out

    ours = outcomes(tw, lambda t: t.Variable(1.0))
    # TF checks `resource` tensors: its resource variables are the counterpart of tensorweave's variables here.
    theirs = outcomes(_tf1(), lambda t: t.Variable(1.0, use_resource=True))
    assert ours == theirs == [True, True, False, False, False]


def test_a_step_waiting_for_the_section_ends_with_its_timeout():
    entered, release = threading.Event(), threading.Event()

    def hold(x):
        entered.set()
        release.wait(10)
        return x

    with tw.Graph().as_default(), tw.Session() as sess:
        cs = tw.CriticalSection()
        holder = cs.execute(lambda: tw.py_func(hold, [tw.constant(1.0)], tw.float32))
        waiter = cs.execute(lambda: tw.constant(2.0) * 1.0)
        result = []
        thread = threading.Thread(target=lambda: result.append(sess.run(holder)))
        thread.start()
        assert entered.wait(10)
        with pytest.raises(tw.errors.DeadlineExceededError):
            sess.run(waiter, options=tw.RunOptions(timeout_in_ms=100))
        release.set()
        thread.join()
        assert result == [1.0]
        assert sess.run(waiter) == 2.0  # the timed-out waiter left the section free


def test_critical_section_collections_and_unsupported_def():
    with tw.Graph().as_default():
        cs = tw.CriticalSection(name="a")
        assert cs.name == "a" and cs._handle.op.type == "MutexV2"
        assert cs._handle.op.get_attr("shared_name") == b"a/"
        assert tw.get_collection("critical_sections") == [cs]
        out = cs.execute(lambda: tw.constant(1))
        (execution,) = tw.get_collection("critical_section_executions")
        assert execution.op.type == "MutexLock" and execution.handle is cs._handle
        assert {op.type for op in tw.get_default_graph().get_operations()} >= {"MutexLock", "ConsumeMutexLock"}
        assert out.dtype == tw.int32
        with pytest.raises(ValueError, match="not supported"):
            tw.CriticalSection(critical_section_def=object())
