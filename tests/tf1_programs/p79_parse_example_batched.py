"""Batched tf.Example parsing as TF1 input pipelines did it: TFRecordWriter of Examples holding raw image bytes,
int64 and float lists of varying length and a string; a TFRecordDataset batched before map(tf.parse_example)
with FixedLenFeature (with default_value), VarLenFeature, FixedLenSequenceFeature(allow_missing=True) and
SparseFeature, tf.decode_raw + reshape of the bytes, the sparse parts made dense inside the map function (with
sparse_tensor_to_dense / sparse.to_indicator-free sparse_tensor_to_dense with validate_indices); static shapes
and dtypes of the parsed dict, read also by parse_example outside tf.data."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(79)
    path = os.path.join(workdir, "data.tfrecord")
    images = rng.randint(0, 255, (5, 2, 3)).astype(np.uint8)
    with tf.python_io.TFRecordWriter(path) as writer:
        for i in range(5):
            feats = {
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[images[i].tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
                "tokens": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i + 1)))),
                "scores": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * j for j in range(i % 3)])),
                "idx": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 4, (i + 1) % 4])),
                "val": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0 + i, 2.0])),
            }
            if i != 2:
                feats["name"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ex%d" % i]))
            writer.write(tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString())
    spec = {
        "image": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
        "name": tf.FixedLenFeature([], tf.string, default_value="unknown"),
        "tokens": tf.VarLenFeature(tf.int64),
        "scores": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
        "sp": tf.SparseFeature(index_key="idx", value_key="val", dtype=tf.float32, size=4),
    }

    def parse(serialized):
        parsed = tf.parse_example(serialized, spec)
        image = tf.reshape(tf.decode_raw(parsed["image"], tf.uint8), [-1, 2, 3])
        tokens = tf.sparse_tensor_to_dense(parsed["tokens"], default_value=-1)
        sp = tf.sparse_tensor_to_dense(parsed["sp"], validate_indices=False)
        return image, parsed["label"], parsed["name"], tokens, parsed["scores"], sp

    ds = tf.data.TFRecordDataset(path).batch(2).map(parse)
    image, label, name, tokens, scores, sp = ds.make_one_shot_iterator().get_next()
    records = tf.placeholder(tf.string, [None])
    direct = tf.parse_example(records, spec)
    out = {
        "shapes": [t.shape.as_list() for t in (image, label, name, tokens, scores, sp)],
        "dtypes": [t.dtype.name for t in (image, label, name, tokens, scores, sp)],
        "direct": [
            (
                k,
                isinstance(v, tf.SparseTensor),
                (v.dense_shape if isinstance(v, tf.SparseTensor) else v).shape.as_list(),
            )
            for k, v in sorted(direct.items())
        ],
        "batches": [],
    }
    with tf.Session() as sess:
        while True:
            try:
                im, lb, nm, tk, sc, spv = sess.run([image, label, name, tokens, scores, sp])
            except tf.errors.OutOfRangeError:
                break
            out["batches"].append([im, lb, list(nm), tk, sc, spv])
        serialized = list(tf.python_io.tf_record_iterator(path))[:3]
        got = sess.run(direct, {records: serialized})
        out["direct_tokens"] = [got["tokens"].indices, got["tokens"].values, got["tokens"].dense_shape]
        out["direct_sp"] = [got["sp"].indices, got["sp"].values, got["sp"].dense_shape]
    return out
