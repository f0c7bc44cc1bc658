"""Queues, queue runners and input pipelines: what a TF1 program observes (op types and names, static shapes,
dequeued values, error classes and the queue's messages)."""

import re

from tests.fidelity.harness import case


def _last_line(error):
    """The kernel's own message (TF1 adds node and traceback lines around it)."""
    lines = [line.strip() for line in str(getattr(error, "message", error)).splitlines() if line.strip()]
    for line in lines:
        if re.search(r"Queue .|cancelled|Timed out|Shape mismatch|specified shapes|Reached limit", line):
            return re.sub(r"'_\d+_", "'_N_", line)
    return lines[-1]


@case
def fifo_queue_ops_and_names(tf, sess):
    q = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []])
    enq = q.enqueue(([1.0, 2.0], 3))
    enq_many = q.enqueue_many(([[1.0, 2.0]], [4]))
    d = q.dequeue()
    dm = q.dequeue_many(2)
    du = q.dequeue_up_to(2)
    ops = [q.queue_ref.op, enq, enq_many, d[0].op, dm[0].op, du[0].op, q.close(), q.size().op, q.is_closed().op]
    return {
        "types": [op.type for op in ops],
        "names": [op.name for op in ops],
        "shapes": [[t.shape.as_list() for t in out] for out in (d, dm)] + [[t.shape.ndims for t in du]],
        "dequeued_dtypes": [t.dtype.name for t in d],
        "queue_name": q.name,
        "enqueue_inputs": [t.op.name for t in enq.inputs[1:]],
    }


@case
def fifo_queue_values_and_close(tf, sess):
    q = tf.FIFOQueue(5, [tf.int32, tf.string], shapes=[[], []])
    sess.run(q.enqueue_many(([1, 2, 3], ["a", "b", "c"])))
    first = sess.run(q.dequeue())
    size = sess.run(q.size())
    sess.run(q.close())
    closed = sess.run(q.is_closed())
    rest = sess.run(q.dequeue_up_to(5))
    errors = []
    for fetch in (q.dequeue(), q.dequeue_many(2), q.enqueue((4, "d"))):
        try:
            sess.run(fetch)
        except tf.errors.OpError as e:
            errors.append((type(e).__name__, _last_line(e)))
    return first, size, closed, rest, errors


@case
def dequeue_timeout_leaves_session_usable(tf, sess):
    q = tf.FIFOQueue(5, tf.float32, shapes=[[]])
    sess.run(q.enqueue(1.0))
    first = sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
    try:
        sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
        timed_out = None
    except tf.errors.DeadlineExceededError as e:
        timed_out = _last_line(e)
    sess.run(q.enqueue(2.0))
    return first, timed_out, sess.run(q.dequeue())


@case
def queue_shape_errors(tf, sess):
    q = tf.FIFOQueue(10, [tf.float32], shapes=[[2]])
    out = []
    try:
        q.enqueue([[1.0, 2.0, 3.0]])
    except ValueError:
        out.append("ValueError")
    p = tf.placeholder(tf.float32)
    for enq, value in ((q.enqueue(p), [1.0, 2.0, 3.0]), (q.enqueue_many(p), [[1.0, 2.0, 3.0]])):
        try:
            sess.run(enq, {p: value})
        except tf.errors.InvalidArgumentError as e:
            out.append(_last_line(e))
    unshaped = tf.FIFOQueue(10, tf.float32)
    sess.run(unshaped.enqueue(1.0))
    try:
        sess.run(unshaped.dequeue_many(1))
    except tf.errors.InvalidArgumentError as e:
        out.append(_last_line(e))
    for bad in (lambda: tf.FIFOQueue(3, tf.float32, shapes=[[None]]), lambda: tf.PaddingFIFOQueue(3, [tf.int32])):
        try:
            bad()
        except (ValueError, TypeError) as e:
            out.append(type(e).__name__)
    return out


@case
def cancel_pending_enqueues_and_names(tf, sess):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]], names="x")
    sess.run(q.enqueue({"x": 1}))
    c = q.close(cancel_pending_enqueues=True)
    sess.run(c)
    return c.get_attr("cancel_pending_enqueues"), sess.run(q.dequeue()), sess.run(q.size())


@case
def random_shuffle_queue(tf, sess):
    q = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=1)
    sess.run(q.enqueue_many([list(range(6))]))
    got = sorted(int(sess.run(q.dequeue())) for _ in range(4))
    try:
        sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
        blocked = False
    except tf.errors.DeadlineExceededError:
        blocked = True
    sess.run(q.close())
    got += sorted(sess.run(q.dequeue_many(2)).tolist())
    attrs = {k: q.queue_ref.op.get_attr(k) for k in ("capacity", "min_after_dequeue", "seed", "seed2")}
    return q.queue_ref.op.type, attrs, blocked, sorted(got)


@case
def padding_and_priority_queues(tf, sess):
    pq = tf.PaddingFIFOQueue(10, [tf.int32], shapes=[[None]])
    p = tf.placeholder(tf.int32, [None])
    e = pq.enqueue(p)
    dm = pq.dequeue_many(2)
    sess.run(e, {p: [1]})
    sess.run(e, {p: [1, 2, 3]})
    prio = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    sess.run(prio.enqueue_many(([3, 1, 2], ["c", "a", "b"])))
    d = prio.dequeue()
    return (
        pq.queue_ref.op.type,
        dm.shape.as_list(),
        sess.run(dm),
        prio.queue_ref.op.type,
        [t.dtype.name for t in d],
        sess.run(d),
        sess.run(prio.dequeue_many(2)),
    )


@case
def input_pipeline_graph(tf, sess):
    x = tf.constant([1, 2, 3])
    b = tf.train.batch([x, x], 2, enqueue_many=True)
    sb = tf.train.shuffle_batch([x], 2, 10, 2, enqueue_many=True)
    bj = tf.train.batch_join([[x], [x]], 2, enqueue_many=True)
    runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    producer = tf.train.string_input_producer(["a", "b"], num_epochs=2, shuffle=False)
    sliced = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant([4.0, 5.0, 6.0])], shuffle=False)
    return {
        "outputs": [t.name for t in b] + [sb.name, bj.name],
        "shapes": [t.shape.as_list() for t in b],
        "runners": [(r.name, [op.name for op in r.enqueue_ops], r.close_op.name, r.cancel_op.name) for r in runners],
        "producer": producer.name,
        "local_variables": [v.op.name for v in tf.local_variables()],
        "sliced": [(t.dtype.name, t.shape.as_list()) for t in sliced],
    }


@case
def input_pipeline_runs_to_the_end_of_its_epochs(tf, sess):
    x = tf.train.limit_epochs(tf.constant([1, 2, 3, 4, 5]), num_epochs=2)
    b = tf.train.batch([x], batch_size=4, enqueue_many=True, allow_smaller_final_batch=True)
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    batches = []
    try:
        while True:
            batches.append(sess.run(b).tolist())
    except tf.errors.OutOfRangeError:
        pass
    coord.request_stop()
    coord.join(threads)
    return batches


@case
def limit_epochs_errors(tf, sess):
    x = tf.train.limit_epochs(tf.constant(1), 1)
    sess.run(tf.local_variables_initializer())
    first = sess.run(x)
    try:
        sess.run(x)
        second = None
    except tf.errors.OutOfRangeError as e:
        second = _last_line(e)
    try:
        tf.train.limit_epochs(tf.constant(1), 0)
        bad = None
    except ValueError as e:
        bad = str(e)
    return first, second, bad, x.op.name
