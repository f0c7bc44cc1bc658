"""Queues (FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue, PriorityQueue), step timeouts and cancellation,
QueueRunner / Coordinator and the tw.train input pipelines. Oracles: Python lists and numpy (what a queue must
hand back), TensorFlow's messages (checked in a TF1 process in tests/fidelity/cases_queues.py)."""

import threading
import time

import numpy as np
import pytest
import tensorweave as tw

TIMEOUT = tw.RunOptions(timeout_in_ms=200)


def _run_in_thread(fn):
    """Runs fn in a thread; returns (thread, box) where box gets ("ok", value) or ("error", exception)."""
    box = []

    def target():
        try:
            box.append(("ok", fn()))
        except Exception as e:  # noqa: BLE001 - the test inspects it
            box.append(("error", e))

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


# --- FIFOQueue ---------------------------------------------------------------------------------------------------


def test_fifo_order_enqueue_many_and_batches(sess):
    q = tw.FIFOQueue(10, [tw.int32, tw.float32], shapes=[[], [2]])
    x = tw.placeholder(tw.int32, [None])
    y = tw.placeholder(tw.float32, [None, 2])
    enq = q.enqueue_many((x, y))
    ints = np.arange(7, dtype=np.int32)
    floats = np.random.RandomState(0).randn(7, 2).astype(np.float32)
    sess.run(enq, {x: ints[:4], y: floats[:4]})
    sess.run(q.enqueue((4, floats[4])))
    sess.run(enq, {x: ints[5:], y: floats[5:]})
    assert sess.run(q.size()) == 7
    a, b = sess.run(q.dequeue())
    assert a == 0 and np.array_equal(b, floats[0])
    many = q.dequeue_many(4)
    assert many[0].shape.as_list() == [4] and many[1].shape.as_list() == [4, 2]
    got = sess.run(many)
    np.testing.assert_array_equal(got[0], ints[1:5])
    np.testing.assert_array_equal(got[1], floats[1:5])
    up_to = q.dequeue_up_to(5)
    assert up_to[0].shape.as_list() == [None]
    sess.run(q.close())
    got = sess.run(up_to)  # closed: the remaining two
    np.testing.assert_array_equal(got[0], ints[5:])
    assert sess.run(q.is_closed())


def test_closed_queue_errors_are_tf_errors(sess):
    q = tw.FIFOQueue(5, tw.float32, shapes=[[]])
    sess.run(q.enqueue_many([[1.0, 2.0]]))
    sess.run(q.close())
    with pytest.raises(tw.errors.CancelledError, match=r"FIFOQueue '_\d+_fifo_queue' is closed\."):
        sess.run(q.enqueue(3.0))
    with pytest.raises(tw.errors.OutOfRangeError) as info:
        sess.run(q.dequeue_many(3))
    assert "is closed and has insufficient elements (requested 3, current size 2)" in str(info.value)
    assert "fifo_queue_DequeueMany" in str(info.value)  # names the node
    # The failed dequeue_many took nothing: both elements are still there.
    assert sess.run(q.dequeue()) == 1.0
    assert sess.run(q.dequeue()) == 2.0
    with pytest.raises(tw.errors.OutOfRangeError, match=r"requested 1, current size 0"):
        sess.run(q.dequeue())
    with pytest.raises(tw.errors.OutOfRangeError):
        sess.run(q.dequeue_up_to(4))


def test_shape_and_dtype_errors(sess):
    q = tw.FIFOQueue(10, [tw.float32], shapes=[[2]])
    with pytest.raises(ValueError):
        q.enqueue([[1.0, 2.0, 3.0]])
    with pytest.raises((TypeError, ValueError)):
        q.enqueue(tw.constant([1, 2]))
    p = tw.placeholder(tw.float32)
    enq = q.enqueue(p, name="bad_enqueue")
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"Expected \[2\], got \[3\][\s\S]*bad_enqueue"):
        sess.run(enq, {p: [1.0, 2.0, 3.0]})
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"Expected \[1,2\], got \[1,3\]"):
        sess.run(q.enqueue_many(p), {p: [[1.0, 2.0, 3.0]]})
    unshaped = tw.FIFOQueue(10, tw.float32)
    sess.run(unshaped.enqueue(1.0))
    with pytest.raises(tw.errors.InvalidArgumentError, match="require the components to have specified shapes"):
        sess.run(unshaped.dequeue_many(1))
    with pytest.raises(ValueError, match="fully defined"):
        tw.FIFOQueue(3, tw.float32, shapes=[[None]])


def test_names_give_dicts(sess):
    q = tw.FIFOQueue(4, [tw.int32, tw.string], shapes=[[], []], names=["i", "s"])
    sess.run(q.enqueue({"i": 1, "s": "one"}))
    out = sess.run(q.dequeue())
    assert out == {"i": 1, "s": b"one"}
    with pytest.raises(ValueError):
        q.enqueue((1, "x"))


def test_blocking_dequeue_is_served_by_a_later_step(sess):
    q = tw.FIFOQueue(3, tw.int32, shapes=[[]])
    deq = q.dequeue()
    t, box = _run_in_thread(lambda: sess.run(deq))
    time.sleep(0.2)
    assert not box  # still waiting
    sess.run(q.enqueue(42))
    t.join(10)
    assert box == [("ok", 42)]


def test_blocking_enqueue_into_a_full_queue_and_cancel_pending_enqueues(sess):
    q = tw.FIFOQueue(1, tw.int32, shapes=[[]])
    sess.run(q.enqueue(1))
    enqueue_2, enqueue_3 = q.enqueue(2), q.enqueue(3)  # ops are built in the test's graph, not the thread's
    t, box = _run_in_thread(lambda: sess.run(enqueue_2))
    time.sleep(0.2)
    assert not box
    assert sess.run(q.dequeue()) == 1  # room: the waiting enqueue goes in
    t.join(10)
    assert box and box[0][0] == "ok"
    assert sess.run(q.size()) == 1
    t, box = _run_in_thread(lambda: sess.run(enqueue_3))
    time.sleep(0.2)
    sess.run(q.close(cancel_pending_enqueues=True))
    t.join(10)
    assert isinstance(box[0][1], tw.errors.CancelledError)
    assert "Enqueue operation was cancelled" in str(box[0][1])
    assert sess.run(q.size()) == 1


def test_many_waiting_steps_hold_no_threads():
    # 16 dequeues wait at once on a session with 2 inter-op threads; 16 enqueues then serve them all. A kernel
    # that held a thread while waiting would leave no thread for the enqueues.
    with tw.Graph().as_default():
        q = tw.FIFOQueue(100, tw.int32, shapes=[[]])
        deq = q.dequeue()
        x = tw.placeholder(tw.int32, [])
        enq = q.enqueue(x)
        config = tw.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=1)
        with tw.Session(config=config) as sess:
            waiting = [_run_in_thread(lambda: sess.run(deq)) for _ in range(16)]
            time.sleep(0.3)
            for i in range(16):
                sess.run(enq, {x: i})
            got = []
            for t, box in waiting:
                t.join(10)
                got.append(box[0][1])
            assert sorted(got) == list(range(16))


# --- timeouts and cancellation -----------------------------------------------------------------------------------


def test_timeout_ends_a_blocked_step_and_keeps_the_session_and_elements(sess):
    q = tw.FIFOQueue(10, tw.int32, shapes=[[]])
    sess.run(q.enqueue(7))
    with pytest.raises(tw.errors.DeadlineExceededError, match="Timed out waiting for notification"):
        sess.run(q.dequeue_many(2), options=TIMEOUT)
    assert sess.run(q.size()) == 1  # the element the cancelled dequeue_many had taken is back
    assert sess.run(q.dequeue(), options=TIMEOUT) == 7
    with pytest.raises(tw.errors.DeadlineExceededError):
        sess.run(q.dequeue(), options=TIMEOUT)
    sess.run(q.enqueue(8))
    assert sess.run(q.dequeue()) == 8  # still usable


def test_operation_timeout_in_ms_is_the_default():
    with tw.Graph().as_default():
        q = tw.FIFOQueue(1, tw.int32, shapes=[[]])
        deq = q.dequeue()
        with tw.Session(config=tw.ConfigProto(operation_timeout_in_ms=150)) as sess:
            start = time.time()
            with pytest.raises(tw.errors.DeadlineExceededError):
                sess.run(deq)
            assert time.time() - start < 30
            sess.run(q.enqueue(1))
            assert sess.run(deq) == 1


def test_timeout_of_a_full_enqueue(sess):
    q = tw.FIFOQueue(1, tw.int32, shapes=[[]])
    sess.run(q.enqueue(1))
    with pytest.raises(tw.errors.DeadlineExceededError):
        sess.run(q.enqueue_many([[2, 3]]), options=TIMEOUT)
    assert sess.run(q.size()) == 1


def test_session_close_unblocks_a_step_in_another_thread():
    with tw.Graph().as_default():
        q = tw.FIFOQueue(1, tw.float32)
        deq = q.dequeue()
        sess = tw.Session()
        t, box = _run_in_thread(lambda: sess.run(deq))
        time.sleep(0.3)
        sess.close()
        t.join(10)
        assert not t.is_alive()
        assert isinstance(box[0][1], tw.errors.CancelledError)
        assert "Dequeue operation was cancelled" in str(box[0][1])


def test_timeout_ends_a_partitioned_step_waiting_in_recv():
    # Two devices: the dequeue waits on CPU:1, CPU:0's add waits for its value in a _Recv.
    with tw.Graph().as_default():
        with tw.device("/cpu:1"):
            q = tw.FIFOQueue(2, tw.float32, shapes=[[]])
            value = q.dequeue()
        with tw.device("/cpu:0"):
            out = value + 1.0
        with tw.Session(config=tw.ConfigProto(device_count={"CPU": 2})) as sess:
            with pytest.raises(tw.errors.DeadlineExceededError):
                sess.run(out, options=TIMEOUT)
            sess.run(q.enqueue(1.0))
            assert sess.run(out, options=TIMEOUT) == 2.0


# --- the other queues --------------------------------------------------------------------------------------------


def test_random_shuffle_queue_min_after_dequeue_and_permutation(sess):
    q = tw.RandomShuffleQueue(20, 3, tw.int32, shapes=[[]], seed=7)
    sess.run(q.enqueue_many([list(range(10))]))
    got = [int(sess.run(q.dequeue())) for _ in range(7)]
    with pytest.raises(tw.errors.DeadlineExceededError):  # 3 left: min_after_dequeue holds them while open
        sess.run(q.dequeue(), options=TIMEOUT)
    sess.run(q.close())
    got += sess.run(q.dequeue_many(3)).tolist()  # closed: min_after_dequeue no longer applies
    assert sorted(got) == list(range(10))
    assert got != list(range(10))  # shuffled
    with pytest.raises(tw.errors.OutOfRangeError, match="RandomShuffleQueue"):
        sess.run(q.dequeue())


def test_random_shuffle_queue_seed_repeats_in_a_fresh_session():
    def order():
        with tw.Graph().as_default():
            q = tw.RandomShuffleQueue(50, 0, tw.int32, shapes=[[]], seed=3)
            with tw.Session() as sess:
                sess.run(q.enqueue_many([list(range(30))]))
                return sess.run(q.dequeue_many(30)).tolist()

    first, second = order(), order()
    assert first == second and sorted(first) == list(range(30))


def test_padding_fifo_queue_pads_like_numpy(sess):
    q = tw.PaddingFIFOQueue(5, [tw.int32, tw.string], shapes=[[None, 2], [None]])
    a = tw.placeholder(tw.int32, [None, 2])
    s = tw.placeholder(tw.string, [None])
    enq = q.enqueue((a, s))
    rows = [np.arange(2).reshape(1, 2), np.arange(6).reshape(3, 2), np.zeros((0, 2), np.int32)]
    strs = [["a"], ["b", "c"], []]
    for r, st in zip(rows, strs):
        sess.run(enq, {a: r, s: np.array(st, dtype=object)})
    out = q.dequeue_many(3)
    assert out[0].shape.as_list() == [3, None, 2]
    got_a, got_s = sess.run(out)
    expected = np.zeros((3, 3, 2), np.int32)
    for i, r in enumerate(rows):
        expected[i, : len(r)] = r
    np.testing.assert_array_equal(got_a, expected)
    assert got_s.tolist() == [[b"a", b""], [b"b", b"c"], [b"", b""]]
    with pytest.raises(TypeError):
        tw.PaddingFIFOQueue(5, [tw.int32])  # shapes are required


def test_priority_queue_orders_by_priority(sess):
    q = tw.PriorityQueue(10, [tw.string], shapes=[[]])
    priorities = [5, 1, 9, 3, 7, 2]
    sess.run(q.enqueue_many((priorities, [f"p{p}" for p in priorities])))
    first = sess.run(q.dequeue())
    assert first[0] == 1 and first[1] == b"p1"
    rest = sess.run(q.dequeue_many(5))
    assert rest[0].tolist() == sorted(priorities)[1:]
    assert rest[1].tolist() == [f"p{p}".encode() for p in sorted(priorities)[1:]]


def test_shared_name_shares_within_a_session_not_across_sessions():
    with tw.Graph().as_default():
        q1 = tw.FIFOQueue(10, tw.float32, shared_name="shared_q")
        q2 = tw.FIFOQueue(10, tw.float32, shared_name="shared_q")
        with tw.Session() as s1, tw.Session() as s2:
            s1.run(q1.enqueue(1.0))
            assert s1.run(q2.size()) == 1  # one queue in s1
            assert s2.run(q1.size()) == 0  # s2 has its own (as TF's DirectSession)
            mismatch = tw.FIFOQueue(5, tw.float32, shared_name="shared_q")
            with pytest.raises(tw.errors.InvalidArgumentError, match="capacity"):
                s1.run(mismatch.size())


def test_queue_ops_are_not_differentiable(sess):
    q = tw.FIFOQueue(3, tw.float32, shapes=[[]])
    x = tw.constant(2.0)
    sess.run(q.enqueue(x))
    y = q.dequeue() * x
    (g,) = tw.gradients(y, [x])
    sess.run(q.enqueue(x))
    assert sess.run(g) == 2.0  # only the direct path: the dequeued value has no gradient


# --- Coordinator, QueueRunner and the input pipelines --------------------------------------------------------------


def test_coordinator_reports_the_first_exception():
    coord = tw.train.Coordinator()

    def fail():
        with coord.stop_on_exception():
            raise ValueError("boom")

    def wait():
        while not coord.should_stop():
            time.sleep(0.01)

    threads = [threading.Thread(target=fail), threading.Thread(target=wait)]
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join(threads)
    assert coord.joined
    with pytest.raises(ValueError, match="boom"):
        coord.raise_requested_exception()
    coord2 = tw.train.Coordinator()
    coord2.request_stop(tw.errors.OutOfRangeError(None, None, "done"))  # a clean stop
    coord2.join([])
    coord2.raise_requested_exception()


def test_queue_runner_closes_the_queue_when_its_input_runs_out(sess):
    data = np.arange(10, dtype=np.int32)
    values = tw.train.limit_epochs(tw.constant(data), num_epochs=2)
    q = tw.FIFOQueue(4, tw.int32, shapes=[[]])
    qr = tw.train.QueueRunner(q, [q.enqueue_many([values])])
    tw.train.add_queue_runner(qr)
    assert tw.get_collection(tw.GraphKeys.QUEUE_RUNNERS) == [qr]
    sess.run(tw.local_variables_initializer())
    coord = tw.train.Coordinator()
    threads = tw.train.start_queue_runners(sess, coord)
    deq = q.dequeue()
    seen = []
    with pytest.raises(tw.errors.OutOfRangeError):
        while True:
            seen.append(int(sess.run(deq)))
    coord.request_stop()
    coord.join(threads)
    assert sorted(seen) == sorted(list(data) * 2)


def test_queue_runner_reports_errors_to_the_coordinator(sess):
    q = tw.FIFOQueue(4, tw.float32, shapes=[[]])
    bad = tw.placeholder(tw.float32, [])  # never fed: the enqueue fails
    qr = tw.train.QueueRunner(q, [q.enqueue(bad)])
    coord = tw.train.Coordinator()
    threads = qr.create_threads(sess, coord=coord, start=True)
    with pytest.raises(tw.errors.InvalidArgumentError):
        coord.join(threads)
    with pytest.raises(TypeError):
        tw.train.QueueRunner(q, [q.enqueue(1.0)], queue_closed_exception_types=(ValueError,))


def test_training_loop_over_epochs_sees_every_element_exactly_once_per_epoch():
    n, epochs, batch_size = 37, 3, 5
    with tw.Graph().as_default():
        features = np.arange(n, dtype=np.float32)[:, None] * np.array([[1.0, -2.0]], np.float32)
        ids = np.arange(n, dtype=np.int32)
        id_t, feat_t = tw.train.slice_input_producer([ids, features], num_epochs=epochs, shuffle=True, seed=1)
        id_b, feat_b = tw.train.shuffle_batch(
            [id_t, feat_t],
            batch_size=batch_size,
            capacity=20,
            min_after_dequeue=5,
            num_threads=2,
            allow_smaller_final_batch=True,
        )
        w = tw.Variable(tw.zeros([2, 1]))
        loss = tw.reduce_mean(tw.square(tw.matmul(feat_b, w) - tw.cast(tw.reshape(id_b, [-1, 1]), tw.float32)))
        train = tw.train.GradientDescentOptimizer(1e-5).minimize(loss)
        with tw.Session() as sess:
            sess.run([tw.global_variables_initializer(), tw.local_variables_initializer()])
            coord = tw.train.Coordinator()
            threads = tw.train.start_queue_runners(sess, coord)
            seen = []
            try:
                while not coord.should_stop():
                    got_ids, got_feats, _ = sess.run([id_b, feat_b, train])
                    np.testing.assert_array_equal(got_feats, features[got_ids])  # rows stay together
                    seen.extend(got_ids.tolist())
            except tw.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads)
    counts = np.bincount(seen, minlength=n)
    assert counts.tolist() == [epochs] * n


def test_batch_with_dynamic_pad_and_batch_join(sess):
    x = tw.train.limit_epochs(tw.constant([[1, 2], [3, 4], [5, 6]]), num_epochs=1)
    b = tw.train.batch({"x": x}, batch_size=2, enqueue_many=True, allow_smaller_final_batch=True)
    assert set(b) == {"x"}
    assert b["x"].shape.as_list() == [None, 2]
    j1 = tw.train.limit_epochs(tw.constant([1, 2]), num_epochs=1)
    j2 = tw.train.limit_epochs(tw.constant([10, 20]), num_epochs=1)
    joined = tw.train.batch_join([[j1], [j2]], batch_size=4, enqueue_many=True)
    sess.run(tw.local_variables_initializer())
    coord = tw.train.Coordinator()
    threads = tw.train.start_queue_runners(sess, coord)
    assert sess.run(b)["x"].tolist() == [[1, 2], [3, 4]]
    assert sess.run(b)["x"].tolist() == [[5, 6]]
    assert sorted(sess.run(joined).tolist()) == [1, 2, 10, 20]
    coord.request_stop()
    coord.join(threads)


def test_string_and_range_input_producers(sess):
    names = tw.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    r = tw.train.range_input_producer(4, num_epochs=1, shuffle=False)
    assert names.name.endswith("input_producer")
    name = names.dequeue()
    i = r.dequeue()
    sess.run(tw.local_variables_initializer())
    coord = tw.train.Coordinator()
    threads = tw.train.start_queue_runners(sess, coord)
    assert [sess.run(name) for _ in range(6)] == [b"a", b"b", b"c"] * 2
    assert [int(sess.run(i)) for _ in range(4)] == [0, 1, 2, 3]
    with pytest.raises(tw.errors.OutOfRangeError):
        sess.run(name)
    coord.request_stop()
    coord.join(threads)
    with pytest.raises(ValueError, match="non-null"):
        tw.train.string_input_producer([])
    with pytest.raises(ValueError, match="num_epochs must be > 0 not 0"):
        tw.train.limit_epochs(tw.constant(1), 0)


def test_each_queue_op_is_the_op_tensorflow_builds(sess):
    fifo = tw.FIFOQueue(3, tw.int32, shapes=[[]])
    shuffle = tw.RandomShuffleQueue(3, 0, tw.int32, shapes=[[]], seed=1)
    padding = tw.PaddingFIFOQueue(3, [tw.int32], shapes=[[None]])
    priority = tw.PriorityQueue(3, [tw.int32], shapes=[[]])
    built = {
        "FIFOQueueV2": fifo.queue_ref.op,
        "RandomShuffleQueueV2": shuffle.queue_ref.op,
        "PaddingFIFOQueueV2": padding.queue_ref.op,
        "PriorityQueueV2": priority.queue_ref.op,
        "QueueEnqueueV2": fifo.enqueue(1),
        "QueueEnqueueManyV2": fifo.enqueue_many([[2, 3]]),
        "QueueDequeueV2": fifo.dequeue().op,
        "QueueDequeueManyV2": fifo.dequeue_many(1).op,
        "QueueDequeueUpToV2": fifo.dequeue_up_to(1).op,
        "QueueCloseV2": fifo.close(),
        "QueueSizeV2": fifo.size().op,
        "QueueIsClosedV2": fifo.is_closed().op,
    }
    for op_type, op in built.items():
        assert op.type == op_type
    assert built["QueueCloseV2"].get_attr("cancel_pending_enqueues") is False
    assert shuffle.queue_ref.op.get_attr("seed2") == 1
    sess.run(built["QueueEnqueueV2"])
    sess.run(built["QueueEnqueueManyV2"])
    assert sess.run(built["QueueSizeV2"].outputs[0]) == 3


def test_monitored_session_starts_the_queue_runners_and_stops_at_the_end_of_input():
    with tw.Graph().as_default():
        x = tw.train.limit_epochs(tw.constant([1, 2, 3, 4, 5, 6]), num_epochs=1)
        b = tw.train.batch([x], batch_size=2, enqueue_many=True)
        seen = []
        with tw.train.MonitoredSession() as sess:
            while not sess.should_stop():
                seen.extend(sess.run(b).tolist())
        assert seen == [1, 2, 3, 4, 5, 6]


def test_enqueue_cancelled_by_the_close_after_a_stop_is_quiet():
    """A runner blocked in an enqueue when the coordinator stops and the session closes (a SyncReplicasOptimizer
    chief's token runner at the end of MonitoredTrainingSession): the cancel ends its thread without an exception
    escaping it, and the coordinator keeps no error."""
    raised = []
    hook, threading.excepthook = threading.excepthook, lambda args: raised.append(args.exc_value)
    try:
        with tw.Graph().as_default():
            queue, empty = tw.FIFOQueue(1, tw.float32), tw.FIFOQueue(1, tw.float32)
            # Its enqueue waits on another queue, which the runner's cancel op does not close (the chief's waits
            # on the gradient accumulators).
            runner = tw.train.QueueRunner(queue, [queue.enqueue(empty.dequeue())])
            coord = tw.train.Coordinator()
            sess = tw.Session()
            threads = runner.create_threads(sess, coord=coord, start=True)
            time.sleep(0.2)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=0.1, ignore_live_threads=True)
            sess.close()
            for t in threads:
                t.join(5)
            assert not any(t.is_alive() for t in threads)
        assert raised == []
        coord.raise_requested_exception()
    finally:
        threading.excepthook = hook
