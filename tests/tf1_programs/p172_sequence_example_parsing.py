"""Sequence data in TFRecords as TF1 video / NLP input code stored it: tf.train.SequenceExample protos built by
hand (context features plus feature_lists of token ids and per-step float frames), written with
tf.python_io.TFRecordWriter, read with TFRecordDataset and tf.parse_single_sequence_example (context_features /
sequence_features with FixedLenSequenceFeature and VarLenFeature), padded_batch on the parsed lengths; the
batched tf.io.parse_sequence_example (context, feature lists, lengths); tf.decode_raw of a bytes context feature;
FixedLenSequenceFeature(allow_missing=True) in tf.parse_example; and the error for a missing required feature."""

import os

import numpy as np


def _sequence_example(tf, ident, tokens, frames, raw):
    ex = tf.train.SequenceExample()
    ex.context.feature["id"].int64_list.value.append(ident)
    ex.context.feature["raw"].bytes_list.value.append(raw)
    ex.context.feature["label"].float_list.value.append(ident * 0.5)
    tok = ex.feature_lists.feature_list["tokens"]
    fr = ex.feature_lists.feature_list["frames"]
    for t, f in zip(tokens, frames):
        tok.feature.add().int64_list.value.append(t)
        fr.feature.add().float_list.value.extend(f)
    return ex


def main(tf, workdir):
    tf.reset_default_graph()
    path = os.path.join(workdir, "seq.tfrecord")
    rng = np.random.RandomState(172)
    data = []
    with tf.python_io.TFRecordWriter(path) as writer:
        for i, n in enumerate([3, 5, 2, 4]):
            tokens = list(rng.randint(1, 20, size=n))
            frames = rng.rand(n, 2).astype(np.float32).round(3).tolist()
            raw = np.arange(i, i + 4, dtype=np.uint8).tobytes()
            ex = _sequence_example(tf, i, [int(t) for t in tokens], frames, raw)
            data.append(ex.SerializeToString())
            writer.write(ex.SerializeToString())

    context_features = {
        "id": tf.FixedLenFeature([], tf.int64),
        "raw": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.float32, default_value=0.0),
    }
    sequence_features = {
        "tokens": tf.FixedLenSequenceFeature([], tf.int64),
        "frames": tf.FixedLenSequenceFeature([2], tf.float32),
    }

    def parse(record):
        context, seq = tf.parse_single_sequence_example(
            record, context_features=context_features, sequence_features=sequence_features
        )
        raw = tf.decode_raw(context["raw"], tf.uint8)
        length = tf.shape(seq["tokens"])[0]
        return context["id"], raw, seq["tokens"], seq["frames"], length

    ds = tf.data.TFRecordDataset(path).map(parse)
    out = {"types": [t.name for t in ds.output_types], "shapes": [s.as_list() for s in ds.output_shapes]}
    batched = ds.padded_batch(
        2,
        padded_shapes=([], [4], [None], [None, 2], []),
        padding_values=(tf.constant(0, tf.int64), tf.constant(0, tf.uint8), tf.constant(-1, tf.int64), 0.0, 0),
    )
    it = batched.make_one_shot_iterator()
    nxt = it.get_next()

    varlen = tf.parse_single_sequence_example(data[1], sequence_features={"tokens": tf.VarLenFeature(tf.int64)})[1][
        "tokens"
    ]

    serialized = tf.placeholder(tf.string, [None])
    ctx, fl, lengths = tf.io.parse_sequence_example(
        serialized,
        context_features={"id": tf.FixedLenFeature([], tf.int64)},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([], tf.int64)},
    )
    ex = tf.train.Example()
    ex.features.feature["v"].float_list.value.extend([1.0, 2.0, 3.0])
    ex2 = tf.train.Example()
    ex2.features.feature["v"].float_list.value.extend([4.0])
    allow = tf.parse_example(
        [ex.SerializeToString(), ex2.SerializeToString()],
        {"v": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True, default_value=-1.0)},
    )["v"]
    missing = tf.parse_single_sequence_example(data[0], context_features={"nope": tf.FixedLenFeature([], tf.int64)})[0][
        "nope"
    ]
    out["batched_fl_shape"] = fl["tokens"].shape.as_list()
    out["lengths_keys"] = sorted(lengths)
    with tf.Session() as sess:
        out["batches"] = []
        while True:
            try:
                out["batches"].append(list(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                break
        v = sess.run(varlen)
        out["varlen"] = [v.indices, v.values, v.dense_shape]
        c, f, ln = sess.run([ctx, fl, lengths], {serialized: data})
        out["batched"] = [c["id"], f["tokens"], ln["tokens"]]
        out["allow_missing"] = sess.run(allow)
        try:
            sess.run(missing)
            out["missing"] = None
        except tf.errors.InvalidArgumentError as e:
            out["missing"] = [type(e).__name__, "nope" in e.message]
    return out
