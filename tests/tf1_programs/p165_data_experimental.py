"""tf.data.experimental transformations that TF 1.12-1.15 input code used, single-threaded or sloppy=False so the
order is fixed: map_and_batch, parallel_interleave(sloppy=False) over files, CsvDataset with record_defaults and
header, ignore_errors after a failing map (tf.check_numerics), scan with a running state, unique, take_while,
dense_to_sparse_batch, get_single_element, group_by_reducer (sum per key), Dataset.reduce, shard, with_options /
Options, AUTOTUNE as num_parallel_calls, cardinality (INFINITE / UNKNOWN / a count), and
sample_from_datasets(seed) compared as a multiset."""

import os

import numpy as np


def _drain(tf, sess, nxt, limit=50):
    vals = []
    try:
        for _ in range(limit):
            vals.append(sess.run(nxt))
    except tf.errors.OutOfRangeError:
        pass
    return vals


def main(tf, workdir):
    tf.reset_default_graph()
    exp = tf.data.experimental
    paths = []
    for k in range(2):
        p = os.path.join(workdir, "f%d.csv" % k)
        with open(p, "w") as f:
            f.write("id,score,name\n")
            for i in range(3):
                f.write("%d,%.1f,n%d_%d\n" % (10 * k + i, i * 1.5, k, i))
        paths.append(p)
    datasets = {
        "map_and_batch": tf.data.Dataset.range(7).apply(exp.map_and_batch(lambda x: x * 3, batch_size=3)),
        "csv": exp.CsvDataset(paths, [tf.int32, tf.float32, tf.string], header=True),
        "interleave": tf.data.Dataset.from_tensor_slices(paths).apply(
            exp.parallel_interleave(lambda p: tf.data.TextLineDataset(p).skip(1), cycle_length=2, sloppy=False)
        ),
        "ignore_errors": tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0, -1.0])
        .map(lambda x: tf.check_numerics(1.0 / x, "inf"))
        .apply(exp.ignore_errors()),
        "scan": tf.data.Dataset.range(5).apply(exp.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10 + x))),
        "unique": tf.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1]).apply(exp.unique()),
        "take_while": tf.data.Dataset.range(10).apply(exp.take_while(lambda x: x < 4)),
        "dense_to_sparse": tf.data.Dataset.from_tensor_slices([[1, 0], [2, 3]])
        .map(lambda r: tf.boolean_mask(r, r > 0))
        .apply(exp.dense_to_sparse_batch(2, [3])),
        "group_by_reducer": tf.data.Dataset.range(10).apply(
            exp.group_by_reducer(
                lambda x: x % 3,
                exp.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s),
            )
        ),
        "shard": tf.data.Dataset.range(10).shard(3, 1),
        "autotune": tf.data.Dataset.range(4)
        .map(lambda x: x + 1, num_parallel_calls=exp.AUTOTUNE)
        .prefetch(exp.AUTOTUNE),
    }
    options = tf.data.Options()
    options.experimental_deterministic = True
    datasets["with_options"] = tf.data.Dataset.range(3).with_options(options)
    out = {}
    with tf.Session() as sess:
        for name, ds in datasets.items():
            vals = _drain(tf, sess, ds.make_one_shot_iterator().get_next())
            if name == "dense_to_sparse":
                vals = [[v.indices, v.values, v.dense_shape] for v in vals]
            if name == "group_by_reducer":
                vals = sorted(int(v) for v in vals)
            out[name] = vals
        out["single"] = sess.run(exp.get_single_element(tf.data.Dataset.from_tensors([5, 6])))
        out["reduce"] = sess.run(tf.data.Dataset.range(5).reduce(tf.constant(0, tf.int64), lambda s, x: s + x))
        sampled = exp.sample_from_datasets(
            [tf.data.Dataset.from_tensors(0).repeat(4), tf.data.Dataset.from_tensors(1).repeat(4)], seed=7
        )
        out["sampled_multiset"] = sorted(int(v) for v in _drain(tf, sess, sampled.make_one_shot_iterator().get_next()))
        out["cardinality"] = sess.run(
            [
                exp.cardinality(tf.data.Dataset.range(10).batch(3)),
                exp.cardinality(tf.data.Dataset.range(3).repeat()),
                exp.cardinality(tf.data.Dataset.range(10).filter(lambda x: x > 3)),
            ]
        )
    out["constants"] = [int(exp.INFINITE_CARDINALITY), int(exp.UNKNOWN_CARDINALITY), int(exp.AUTOTUNE)]
    out["types"] = {k: [str(t) for t in tf.nest.flatten(d.output_types)] for k, d in datasets.items()}
    return out
