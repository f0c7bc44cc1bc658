"""Queues beyond the FIFOQueue basics, as TF1 input and producer/consumer code used them: PaddingFIFOQueue with
dequeue_many of variable-length rows, RandomShuffleQueue(min_after_dequeue, seed) drained (compared as a
multiset), PriorityQueue ordered by int64 priority, enqueue_many / dequeue_up_to after close, queue.size(),
is_closed, close(cancel_pending_enqueues), the errors on a closed queue (CancelledError / OutOfRangeError), and
tf.train.batch_join / tf.train.maybe_batch with a keep_input predicate through queue runners."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    pq = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], []])
    row = tf.placeholder(tf.int32, [None])
    tag = tf.placeholder(tf.string, [])
    enq = pq.enqueue([row, tag])
    deq_rows, deq_tags = pq.dequeue_many(3)
    rq = tf.RandomShuffleQueue(20, min_after_dequeue=2, dtypes=[tf.int64], shapes=[[]], seed=5)
    rq_enq = rq.enqueue_many([tf.range(10, dtype=tf.int64)])
    rq_deq = rq.dequeue_up_to(4)
    prio = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    pr_enq = prio.enqueue_many([tf.constant([5, 1, 3], tf.int64), tf.constant(["five", "one", "three"])])
    pr_deq = prio.dequeue_many(3)
    fq = tf.FIFOQueue(5, tf.float32, shapes=[[]])
    fq_enq = fq.enqueue_many([[1.0, 2.0, 3.0]])
    fq_close = fq.close()
    fq_up_to = fq.dequeue_up_to(5)
    fq_one = fq.dequeue()
    out["static"] = [
        deq_rows.shape.as_list(),
        deq_tags.shape.as_list(),
        rq_deq.shape.as_list(),
        [t.shape.as_list() for t in pr_deq],
        fq_up_to.shape.as_list(),
        pq.name,
        rq.name,
    ]
    with tf.Session() as sess:
        for r, t in (([1, 2, 3], "a"), ([4], "b"), ([5, 6], "c")):
            sess.run(enq, {row: r, tag: t})
        out["padded"] = sess.run([deq_rows, deq_tags])
        sess.run(rq_enq)
        drained = []
        sess.run(rq.close())
        while True:
            try:
                drained.extend(sess.run(rq_deq).tolist())
            except tf.errors.OutOfRangeError:
                break
        out["shuffled_multiset"] = sorted(drained)
        sess.run(pr_enq)
        out["priority"] = sess.run(pr_deq)
        sess.run(fq_enq)
        out["size_before"] = sess.run(fq.size())
        sess.run(fq_close)
        out["closed"] = sess.run(fq.is_closed())
        try:
            sess.run(fq.enqueue(4.0))
        except tf.errors.CancelledError as e:
            out["enqueue_closed"] = ["CancelledError", "is closed" in e.message]
        out["up_to"] = sess.run(fq_up_to)
        try:
            sess.run(fq_one)
        except tf.errors.OutOfRangeError as e:
            out["dequeue_closed"] = ["OutOfRangeError", "is closed and has insufficient elements" in e.message]
    tf.reset_default_graph()
    a = tf.train.slice_input_producer([tf.range(6)], shuffle=False, num_epochs=1)[0]
    b = tf.train.slice_input_producer([tf.range(100, 104)], shuffle=False, num_epochs=1)[0]
    joined = tf.train.batch_join([[a], [b]], batch_size=3, allow_smaller_final_batch=True)
    c = tf.train.slice_input_producer([tf.range(8)], shuffle=False, num_epochs=1)[0]
    kept = tf.train.maybe_batch([c], keep_input=tf.equal(c % 2, 0), batch_size=2, allow_smaller_final_batch=True)
    out["join_static"] = [
        joined[0].shape.as_list() if isinstance(joined, list) else joined.shape.as_list(),
        kept[0].shape.as_list() if isinstance(kept, list) else kept.shape.as_list(),
    ]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        got, evens = [], []
        try:
            while True:
                got.extend(np.ravel(sess.run(joined)).tolist())
        except tf.errors.OutOfRangeError:
            pass
        try:
            while True:
                evens.extend(np.ravel(sess.run(kept)).tolist())
        except tf.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
        out["joined_multiset"] = sorted(got)
        out["evens"] = sorted(evens)
    return out
