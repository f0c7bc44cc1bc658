"""Variable-length text batching with tf.data as TF1 NMT-style code did it: from_generator of token lists,
tf.data.experimental.bucket_by_sequence_length with padded shapes, group_by_window keyed by length,
unbatch, shuffle_and_repeat with a seed (the order compared as a multiset), choose_from_datasets,
Dataset.range/enumerate/window(flat_map), and the static output shapes/types of each."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    sentences = [[1, 2], [3, 4, 5, 6], [7], [8, 9, 10], [11, 12], [13, 14, 15, 16, 17], [18], [19, 20, 21]]

    def gen():
        yield from sentences

    ds = tf.data.Dataset.from_generator(gen, tf.int32, tf.TensorShape([None]))
    out = {"gen_shapes": str(ds.output_shapes)}
    bucketed = ds.apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda s: tf.shape(s)[0], bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 2]
        )
    )
    out["bucket_shapes"] = str(bucketed.output_shapes)
    grouped = ds.apply(
        tf.data.experimental.group_by_window(
            key_func=lambda s: tf.cast(tf.shape(s)[0] % 2, tf.int64),
            reduce_func=lambda key, w: w.padded_batch(3, padded_shapes=[None]),
            window_size=3,
        )
    )
    unb = tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(3, 4)).apply(tf.data.experimental.unbatch())
    sr = tf.data.Dataset.range(5).apply(tf.data.experimental.shuffle_and_repeat(5, count=2, seed=3))
    a = tf.data.Dataset.from_tensors(tf.constant(1, tf.int64)).repeat()
    b = tf.data.Dataset.from_tensors(tf.constant(2, tf.int64)).repeat()
    chooser = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 1], tf.int64))
    chosen = tf.data.experimental.choose_from_datasets([a, b], chooser)
    windows = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))
    enum = tf.data.Dataset.from_tensor_slices(tf.constant([10, 20, 30])).apply(
        tf.data.experimental.enumerate_dataset(start=5)
    )
    out["static"] = [str(unb.output_shapes), str(windows.output_shapes), str(enum.output_types)]

    def drain(dataset):
        nxt = dataset.make_one_shot_iterator().get_next()
        got = []
        with tf.Session() as sess:
            while True:
                try:
                    got.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return got

    out["bucketed"] = sorted((x.tolist() for x in drain(bucketed)), key=str)
    out["grouped"] = sorted((x.tolist() for x in drain(grouped)), key=str)
    out["unbatch"] = drain(unb)
    sr_values = drain(sr)
    out["shuffle_repeat"] = [len(sr_values), sorted(int(v) for v in sr_values)]
    out["chosen"] = drain(chosen)
    out["windows"] = drain(windows)
    out["enum"] = [list(t) for t in drain(enum)]
    return out
