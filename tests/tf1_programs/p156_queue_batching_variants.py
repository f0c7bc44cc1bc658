"""The queue batching helpers beyond tf.train.batch's defaults, single-threaded so the order is fixed:
tf.train.batch(dynamic_pad=True) of variable-length rows (padded to each batch's longest) with
allow_smaller_final_batch=True (the last short batch, its static shape None), tf.train.limit_epochs on a
tensor (OutOfRangeError after n), tf.train.batch_join of two readers' tuples, tf.train.maybe_batch with a
keep_input predicate dropping odd items, tf.train.input_producer of a tensor (shuffle=False, num_epochs=1),
enqueue_many=True with a batch of examples, batch capacity and the queue's size() reported by the summary
scalar's name; Coordinator request_stop / join."""

import numpy as np


def _drain(tf, sess, fetch, limit=20):
    vals = []
    try:
        for _ in range(limit):
            vals.append(sess.run(fetch))
    except tf.errors.OutOfRangeError:
        vals.append("OutOfRange")
    return vals


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    # dynamic_pad with variable-length rows from a producer
    lengths = tf.train.input_producer(tf.constant([1, 3, 2, 4, 2]), shuffle=False, num_epochs=1)
    n = lengths.dequeue()
    row = tf.range(1, n + 1)
    padded = tf.train.batch([row], batch_size=2, num_threads=1, dynamic_pad=True, allow_smaller_final_batch=True)
    out["padded_static"] = padded.shape.as_list()
    # limit_epochs
    limited = tf.train.limit_epochs(tf.constant([1.0, 2.0]), num_epochs=3)
    # enqueue_many + maybe_batch with keep_input
    items = tf.train.input_producer(tf.range(10), shuffle=False, num_epochs=1).dequeue()
    kept = tf.train.maybe_batch([items], keep_input=tf.equal(items % 2, 0), batch_size=2, num_threads=1,
                                allow_smaller_final_batch=True)  # fmt: skip
    many = tf.train.batch(
        [tf.constant(np.arange(6).reshape(3, 2)), tf.constant(["a", "b", "c"])],
        batch_size=4, enqueue_many=True, num_threads=1, capacity=8,
    )  # fmt: skip
    out["many_static"] = [t.shape.as_list() for t in many]
    # batch_join of two "readers"
    r1 = tf.train.input_producer(tf.constant([10, 11, 12]), shuffle=False, num_epochs=1, name="r1").dequeue()
    joined = tf.train.batch_join([[r1]], batch_size=3, allow_smaller_final_batch=True)
    out["summaries"] = sorted(t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES))
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        out["padded"] = [v.tolist() if hasattr(v, "tolist") else v for v in _drain(tf, sess, padded)]
        out["limited"] = _drain(tf, sess, limited)
        out["kept"] = _drain(tf, sess, kept)
        out["many"] = [sess.run(many) for _ in range(2)]
        out["joined"] = _drain(tf, sess, joined)
        coord.request_stop()
        coord.join(threads)
        out["should_stop"] = coord.should_stop()
    return out
