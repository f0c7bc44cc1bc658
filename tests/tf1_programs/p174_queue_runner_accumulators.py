"""Queue plumbing as TF 1.0-1.4 training code wired it by hand: a tf.train.QueueRunner of an enqueue op added with
tf.train.add_queue_runner and started by tf.train.start_queue_runners under a tf.train.Coordinator (the
coord.should_stop / request_stop / join loop), tf.train.batch_join over two producer lists, tf.train.maybe_batch
with keep_input, tf.ConditionalAccumulator aggregating gradients from "workers" (apply_grad with local_step,
stale gradients dropped, take_grad averaging, num_accumulated), tf.SparseConditionalAccumulator with IndexedSlices,
the queue's size / close / is_closed, and the errors for a too-old step and dequeue from a closed queue."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    counter = tf.Variable(0, name="counter")
    increment = tf.assign_add(counter, 1)
    queue = tf.FIFOQueue(10, [tf.int32], shapes=[[]], name="numbers")
    enqueue = queue.enqueue(increment)
    qr = tf.train.QueueRunner(queue, [enqueue])
    tf.train.add_queue_runner(qr)
    out["qr_names"] = [qr.name, qr.queue.name, [op.name for op in qr.enqueue_ops]]
    out["collection"] = len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS))
    deq = queue.dequeue()

    a = tf.constant([1, 2, 3])
    b = tf.constant([10, 20, 30])
    joined = tf.train.batch_join([[a[0]], [b[0]]], batch_size=2, name="joined")
    maybe = tf.train.maybe_batch([tf.constant(7)], keep_input=tf.constant(True), batch_size=1, name="maybe")
    out["joined_shape"] = joined.shape.as_list() if hasattr(joined, "shape") else joined[0].shape.as_list()

    acc = tf.ConditionalAccumulator(tf.float32, shape=[2], name="grad_acc")
    grad = tf.placeholder(tf.float32, [2])
    step = tf.placeholder(tf.int64, [])
    apply = acc.apply_grad(grad, local_step=step)
    take = acc.take_grad(2)
    set_step = acc.set_global_step(3)
    sacc = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2], name="sparse_acc")
    s_apply = sacc.apply_indexed_slices_grad(
        tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, 2.0]]), tf.constant([0, 2]), tf.constant([4, 2]))
    )
    s_apply2 = sacc.apply_grad(grad_indices=[2], grad_values=[[4.0, 0.0]], grad_shape=[4, 2])
    s_take = sacc.take_indexed_slices_grad(2)
    out["acc_names"] = [acc.name, acc.dtype.name, take.dtype.name, take.shape.as_list()]

    small = tf.FIFOQueue(3, tf.float32, shapes=[[]])
    fill = small.enqueue_many([[1.0, 2.0]])
    close = small.close()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got = []
        while not coord.should_stop():
            got.append(sess.run(deq))
            if len(got) == 5:
                out["joined"] = sorted(set(np.asarray(sess.run(joined)).ravel().tolist()) - {1, 10})  # threads race
                out["maybe"] = sess.run(maybe)
                coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
        out["dequeued"] = [len(got), min(got) >= 1]  # (the values race with the runner thread)
        out["threads"] = len(threads)
        out["acc_before"] = sess.run(acc.num_accumulated())
        sess.run(apply, {grad: [1.0, 2.0], step: 0})
        sess.run(apply, {grad: [3.0, 6.0], step: 0})
        out["acc_count"] = sess.run(acc.num_accumulated())
        out["taken"] = sess.run(take)
        sess.run(set_step)
        sess.run(apply, {grad: [100.0, 100.0], step: 1})  # stale: dropped silently
        out["after_stale"] = sess.run(acc.num_accumulated())
        sess.run([s_apply])
        sess.run([s_apply2])
        st = sess.run(s_take)
        out["sparse_taken"] = [st.indices, st.values, st.dense_shape]
        sess.run(fill)
        out["size"] = sess.run(small.size())
        sess.run(close)
        out["closed"] = sess.run(small.is_closed())
        out["drain"] = [sess.run(small.dequeue()), sess.run(small.dequeue())]
        try:
            sess.run(small.dequeue())
            out["closed_err"] = None
        except tf.errors.OutOfRangeError as e:
            out["closed_err"] = [type(e).__name__, "is closed and has insufficient elements" in e.message]
    return out
