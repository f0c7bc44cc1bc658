"""The TF 1.0 file-queue input pipeline: CSV files written to disk, tf.train.string_input_producer over them
(shuffle=False, num_epochs), tf.TextLineReader(skip_header_lines=1).read, tf.decode_csv with record_defaults,
tf.train.batch and tf.train.shuffle_batch (seeded; compared as multisets), local variables initialized for
num_epochs, Coordinator + start_queue_runners, the OutOfRangeError at the end, coord.request_stop / join."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    paths = []
    for f in range(2):
        path = os.path.join(workdir, f"part{f}.csv")
        rows = [f"{f * 10 + i},{i * 0.5:.1f},{'yes' if i % 2 else 'no'}\n" for i in range(5)]
        with open(path, "w") as fh:
            fh.write("id,value,label\n" + "".join(rows))
        paths.append(path)
    queue = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    key, line = reader.read(queue)
    ident, value, label = tf.decode_csv(line, record_defaults=[[0], [0.0], ["none"]])
    features = tf.stack([tf.cast(ident, tf.float32), value])
    batch = tf.train.batch([features, label], batch_size=4, allow_smaller_final_batch=True)
    out = {
        "shapes": [features.shape.as_list(), batch[0].shape.as_list(), batch[1].shape.as_list()],
        "dtypes": [ident.dtype.name, value.dtype.name, label.dtype.name, key.dtype.name],
        "locals": [v.op.name for v in tf.local_variables()],
        "queue_runners": len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)),
    }
    batches = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                f, lb = sess.run(batch)
                batches.append([f.tolist(), [s.decode() for s in lb]])
        except tf.errors.OutOfRangeError:
            batches.append("done")
        finally:
            coord.request_stop()
        coord.join(threads)
    out["batches"] = batches
    tf.reset_default_graph()
    tf.set_random_seed(86)
    queue = tf.train.string_input_producer(paths, num_epochs=2, shuffle=True, seed=3)
    _, line = tf.TextLineReader(skip_header_lines=1).read(queue)
    ident, value, label = tf.decode_csv(line, record_defaults=[[0], [0.0], ["none"]])
    ids, vals = tf.train.shuffle_batch([ident, value], batch_size=5, capacity=20, min_after_dequeue=5, seed=4)
    seen = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            for _ in range(3):
                i, v = sess.run([ids, vals])
                seen.extend(zip(i.tolist(), v.tolist()))
        finally:
            coord.request_stop()
            coord.join(threads)
    out["shuffled_count"] = len(seen)
    out["shuffled_valid"] = all(v == (i % 10) * 0.5 for i, v in seen)
    out["shuffle_shapes"] = [ids.shape.as_list(), vals.shape.as_list()]
    return out
