"""tf.data as TF1 input code built it beyond map/batch: interleave and flat_map, batch(drop_remainder) + map,
zip, padded_batch with padded_shapes/padding_values, shuffle with a seed and reshuffle_each_iteration, repeat,
take/skip, filter, cache, prefetch, from_generator with output_types/output_shapes, an initializable iterator fed
through placeholders, a feedable string-handle iterator switching datasets, and output_types/output_shapes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}

    def gen():
        for i in range(5):
            yield np.arange(i + 1, dtype=np.int64), float(i)

    ds = tf.data.Dataset.from_generator(gen, (tf.int64, tf.float32), (tf.TensorShape([None]), tf.TensorShape([])))
    padded = ds.padded_batch(2, padded_shapes=([6], []), padding_values=(np.int64(-1), 0.0))
    out["padded_types"] = [repr(t) for t in tf.data.get_output_types(padded)]
    out["padded_shapes"] = [s.as_list() for s in tf.data.get_output_shapes(padded)]
    inter = tf.data.Dataset.range(3).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3), cycle_length=2, block_length=2
    )
    flat = tf.data.Dataset.range(3).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x + 1))
    windows = tf.data.Dataset.range(7).batch(3, drop_remainder=True).map(lambda w: w * 2)
    zipped = tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(10, 14).map(lambda x: x * 2)))
    chain = tf.data.Dataset.range(20).filter(lambda x: x % 3 == 0).skip(1).take(4).cache().repeat(2).prefetch(2)
    shuffled = tf.data.Dataset.range(8).shuffle(8, seed=5, reshuffle_each_iteration=True).repeat(2).batch(8)
    nexts = {
        name: tf.data.make_one_shot_iterator(d).get_next()
        for name, d in [
            ("padded", padded),
            ("inter", inter),
            ("flat", flat),
            ("windows", windows),
            ("zipped", zipped),
            ("chain", chain),
            ("shuffled", shuffled),
        ]
    }
    limit = tf.placeholder(tf.int64, [])
    init_it = tf.data.make_initializable_iterator(tf.data.Dataset.range(limit).map(lambda x: x * x))
    handle = tf.placeholder(tf.string, [])
    a = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    b = tf.data.Dataset.from_tensor_slices([10, 20])
    feedable = tf.data.Iterator.from_string_handle(handle, tf.data.get_output_types(a), tf.data.get_output_shapes(a))
    it_a, it_b = tf.data.make_one_shot_iterator(a), tf.data.make_one_shot_iterator(b)
    nxt = feedable.get_next()
    with tf.Session() as sess:
        for name, n in nexts.items():
            values = []
            while True:
                try:
                    values.append(sess.run(n))
                except tf.errors.OutOfRangeError:
                    break
            out[name] = values
        runs = []
        for lim in (3, 5):
            sess.run(init_it.initializer, {limit: lim})
            got = []
            while True:
                try:
                    got.append(sess.run(init_it.get_next()))
                except tf.errors.OutOfRangeError:
                    break
            runs.append(got)
        out["initializable"] = runs
        ha, hb = sess.run([it_a.string_handle(), it_b.string_handle()])
        out["feedable"] = [sess.run(nxt, {handle: ha}), sess.run(nxt, {handle: hb}), sess.run(nxt, {handle: ha})]
    return out
