"""Train / validation switching with tf.data: a reinitializable iterator (Iterator.from_structure +
make_initializer), a feedable one (from_string_handle + string_handle), from_tensors / flat_map / interleave /
cache / prefetch / experimental.map_and_batch, and a model reading from get_next."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    train_x = np.arange(24, dtype=np.float32).reshape(12, 2) / 10.0
    val_x = -np.arange(8, dtype=np.float32).reshape(4, 2) / 10.0
    train_ds = tf.data.Dataset.from_tensor_slices(train_x).map(lambda v: v * 2.0).batch(4).repeat()
    val_ds = tf.data.Dataset.from_tensor_slices(val_x).batch(2)
    iterator = tf.data.Iterator.from_structure(train_ds.output_types, train_ds.output_shapes)
    batch = iterator.get_next()
    train_init = iterator.make_initializer(train_ds)
    val_init = iterator.make_initializer(val_ds)
    w = tf.Variable([[1.0], [-1.0]])
    pred = tf.matmul(batch, w)
    loss = tf.reduce_mean(tf.square(pred - 0.5))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)

    handle = tf.placeholder(tf.string, shape=[])
    feed_it = tf.data.Iterator.from_string_handle(handle, train_ds.output_types, train_ds.output_shapes)
    feed_next = feed_it.get_next()
    a_it = (
        tf.data.Dataset.range(3).map(lambda i: tf.fill([2], tf.cast(i, tf.float32))).batch(1).make_one_shot_iterator()
    )
    b_it = tf.data.Dataset.from_tensors(tf.constant([[9.0, 9.0]])).repeat(2).make_initializable_iterator()

    fm = tf.data.Dataset.range(3).flat_map(lambda i: tf.data.Dataset.from_tensors(i).repeat(i + 1))
    il = tf.data.Dataset.range(2).interleave(
        lambda i: tf.data.Dataset.range(i * 10, i * 10 + 3), cycle_length=2, block_length=1
    )
    mb = (
        tf.data.Dataset.range(7)
        .cache()
        .apply(tf.data.experimental.map_and_batch(lambda i: i * i, batch_size=3))
        .prefetch(2)
    )
    nexts = [d.make_one_shot_iterator().get_next() for d in (fm, il, mb)]
    out = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_init)
        out["train"] = [sess.run([train, loss])[1] for _ in range(5)]
        sess.run(val_init)
        vals = []
        try:
            while True:
                vals.append(sess.run(loss))
        except tf.errors.OutOfRangeError:
            pass
        out["val"] = vals
        ha, hb = sess.run([a_it.string_handle(), b_it.string_handle()])
        sess.run(b_it.initializer)
        out["feedable"] = [
            sess.run(feed_next, {handle: ha}),
            sess.run(feed_next, {handle: hb}),
            sess.run(feed_next, {handle: ha}),
        ]
        for name, t in zip(("flat_map", "interleave", "map_and_batch"), nexts):
            got = []
            try:
                while True:
                    got.append(sess.run(t))
            except tf.errors.OutOfRangeError:
                pass
            out[name] = got
    out["shapes"] = [batch.shape.as_list(), feed_next.shape.as_list(), nexts[2].shape.as_list()]
    out["types"] = [str(train_ds.output_types), str(train_ds.output_shapes)]
    return out
