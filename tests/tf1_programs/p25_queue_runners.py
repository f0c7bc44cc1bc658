"""Queue-based input (TF 1.0 era): slice_input_producer + tf.train.batch, FIFOQueue enqueue/dequeue,
Coordinator + start_queue_runners, OutOfRangeError at the end of a num_epochs limit."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.arange(6, dtype=np.int32)
    x, y = tf.train.slice_input_producer([tf.constant(data), tf.constant(labels)], num_epochs=1, shuffle=False)
    bx, by = tf.train.batch([x, y], batch_size=4, allow_smaller_final_batch=True)
    q = tf.FIFOQueue(capacity=5, dtypes=[tf.int32], shapes=[[]])
    enq = q.enqueue_many([[1, 2, 3]])
    deq = q.dequeue()
    size = q.size()
    batches = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                batches.append(sess.run([bx, by]))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
        sess.run(enq)
        n = sess.run(size)
        items = [sess.run(deq) for _ in range(3)]
        q_closed = None
        sess.run(q.close())
        try:
            sess.run(deq)
        except tf.errors.OutOfRangeError as e:
            q_closed = type(e).__name__
    return {
        "batches": batches,
        "n": n,
        "items": items,
        "closed": q_closed,
        "shapes": [bx.shape.as_list(), by.shape.as_list(), deq.shape.as_list()],
        "n_runners": len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)),
    }
