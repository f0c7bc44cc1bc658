"""The four TF1 iterator kinds of the "Importing Data" guide in one training loop: one-shot, initializable with a
placeholder-parameterized dataset, reinitializable (Iterator.from_structure with output_types/output_shapes and
make_initializer for train and validation datasets of different sizes), and feedable (string_handle fed to
Iterator.from_string_handle, switching between a repeating training iterator and a re-initialized validation
one); plus Dataset.from_generator with output_shapes, window + flat_map, reduce, and OutOfRangeError at the end."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x_train = np.arange(20, dtype=np.float32).reshape(10, 2)
    y_train = np.arange(10, dtype=np.int64)
    train = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10, seed=4).batch(4)
    valid = tf.data.Dataset.from_tensor_slices((x_train[:5] * -1, y_train[:5])).batch(2)
    reinit = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    rx, ry = reinit.get_next()
    train_init, valid_init = reinit.make_initializer(train), reinit.make_initializer(valid)
    handle = tf.placeholder(tf.string, [])
    feedable = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
    fx, fy = feedable.get_next()
    train_it = train.repeat().make_one_shot_iterator()
    valid_it = valid.make_initializable_iterator()
    limit = tf.placeholder(tf.int64, [])
    param_it = tf.data.Dataset.range(100).filter(lambda i: i % 3 == 0).take(limit).make_initializable_iterator()

    def gen():
        for i in range(4):
            yield np.full([i + 1], i, np.int32), str(i).encode()

    from_gen = tf.data.Dataset.from_generator(gen, (tf.int32, tf.string), (tf.TensorShape([None]), tf.TensorShape([])))
    gen_next = from_gen.padded_batch(2, ([4], [])).make_one_shot_iterator().get_next()
    windows = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))
    win_next = windows.make_one_shot_iterator().get_next()
    total = tf.data.Dataset.range(1, 6).reduce(np.int64(0), lambda acc, v: acc + v * v)
    out = {
        "types": [str(t.name) for t in train.output_types],
        "shapes": [s.as_list() for s in train.output_shapes],
        "reinit_shapes": [rx.shape.as_list(), ry.shape.as_list()],
        "gen_shapes": [s.as_list() for s in from_gen.output_shapes],
    }

    def drain(fetch, feed=None):
        values = []
        while True:
            try:
                values.append(sess.run(fetch, feed))
            except tf.errors.OutOfRangeError:
                return values

    with tf.Session() as sess:
        sess.run(train_init)
        out["reinit_train"] = drain([rx, ry])
        sess.run(valid_init)
        out["reinit_valid"] = drain([rx, ry])
        train_handle, valid_handle = sess.run([train_it.string_handle(), valid_it.string_handle()])
        out["handles_are_bytes"] = [type(train_handle).__name__, type(valid_handle).__name__]
        feed_trace = []
        for epoch in range(2):
            feed_trace.append(sess.run([fx, fy], {handle: train_handle}))
            sess.run(valid_it.initializer)
            feed_trace.append(drain([fx, fy], {handle: valid_handle}))
        out["feedable"] = feed_trace
        for n in (2, 4):
            sess.run(param_it.initializer, {limit: n})
            out[f"param_{n}"] = drain(param_it.get_next())
        out["gen"] = drain(gen_next)
        out["windows"] = drain(win_next)
        out["reduce"] = sess.run(total)
    return out
