"""tf.data input pipelines: from_tensor_slices + shuffle/batch/repeat with make_one_shot_iterator,
make_initializable_iterator over a placeholder, from_generator, map with num_parallel_calls, OutOfRangeError."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    features = np.arange(20, dtype=np.float32).reshape(10, 2)
    labels = np.arange(10, dtype=np.int64)

    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    ds = ds.map(lambda x, y: (x * 2.0, y + 1), num_parallel_calls=2).batch(4)
    it = ds.make_one_shot_iterator()
    next_x, next_y = it.get_next()
    one_shot = []
    with tf.Session() as sess:
        while True:
            try:
                one_shot.append(sess.run([next_x, next_y]))
            except tf.errors.OutOfRangeError:
                break

    x_ph = tf.placeholder(tf.float32, [None, 2])
    ds2 = tf.data.Dataset.from_tensor_slices(x_ph).repeat(2).batch(3, drop_remainder=True)
    it2 = tf.data.make_initializable_iterator(ds2)
    nxt2 = it2.get_next()
    runs = []
    with tf.Session() as sess:
        for n in (4, 2):
            sess.run(it2.initializer, feed_dict={x_ph: features[:n]})
            got = []
            try:
                while True:
                    got.append(sess.run(nxt2))
            except tf.errors.OutOfRangeError:
                pass
            runs.append(got)

    def gen():
        for i in range(5):
            yield np.full([i % 3 + 1], i, np.int32), "s%d" % i

    ds3 = tf.data.Dataset.from_generator(gen, (tf.int32, tf.string), (tf.TensorShape([None]), tf.TensorShape([])))
    ds3 = ds3.padded_batch(2, padded_shapes=([3], []))
    it3 = ds3.make_one_shot_iterator()
    el = it3.get_next()
    gen_out = []
    with tf.Session() as sess:
        try:
            while True:
                gen_out.append(sess.run(el))
        except tf.errors.OutOfRangeError:
            pass

    ds4 = tf.data.Dataset.range(10).filter(lambda v: tf.equal(v % 3, 0)).batch(10)
    ds5 = tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13))).take(2)
    e5 = ds5.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        zipped = [sess.run(e5) for _ in range(2)]
        filtered = sess.run(ds4.make_one_shot_iterator().get_next())
    return {
        "one_shot": one_shot,
        "runs": runs,
        "gen": gen_out,
        "zipped": zipped,
        "types": [str(t) for t in tf.data.get_output_types(ds)] if hasattr(tf.data, "get_output_types") else [],
        "shapes": [next_x.shape.as_list(), next_y.shape.as_list(), nxt2.shape.as_list(), el[0].shape.as_list()],
        "dtypes": [next_x.dtype.name, next_y.dtype.name, el[1].dtype.name],
        "filtered": filtered,
        "output_shapes": str(ds.output_shapes) if hasattr(ds, "output_shapes") else None,
    }
