"""TFRecord files: tf.python_io.TFRecordWriter of tf.train.Example, read back by tf.data.TFRecordDataset with
tf.parse_single_example (FixedLenFeature, VarLenFeature), and tf.python_io.tf_record_iterator."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    path = os.path.join(workdir, "data.tfrecords")
    with tf.python_io.TFRecordWriter(path) as writer:
        for i in range(5):
            example = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                        "image": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, i + 1.0, -i])),
                        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[("item%d" % i).encode()])),
                        "tags": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i % 3)))),
                    }
                )
            )
            writer.write(example.SerializeToString())
    n_records = sum(1 for _ in tf.python_io.tf_record_iterator(path))

    def parse(serialized):
        features = tf.parse_single_example(
            serialized,
            features={
                "label": tf.FixedLenFeature([], tf.int64),
                "image": tf.FixedLenFeature([3], tf.float32),
                "name": tf.FixedLenFeature([], tf.string),
                "tags": tf.VarLenFeature(tf.int64),
                "missing": tf.FixedLenFeature([], tf.int64, default_value=-1),
            },
        )
        return (
            features["image"],
            features["label"],
            features["name"],
            tf.sparse_tensor_to_dense(features["tags"]),
            features["missing"],
        )

    ds = tf.data.TFRecordDataset([path]).map(parse)
    it = ds.make_one_shot_iterator()
    el = it.get_next()
    got = []
    with tf.Session() as sess:
        try:
            while True:
                got.append(sess.run(el))
        except tf.errors.OutOfRangeError:
            pass
    batch = tf.data.TFRecordDataset(path).batch(5).make_one_shot_iterator().get_next()
    parsed = tf.parse_example(batch, {"label": tf.FixedLenFeature([1], tf.int64), "tags": tf.VarLenFeature(tf.int64)})
    with tf.Session() as sess:
        lab, tags = sess.run([parsed["label"], parsed["tags"]])
    return {
        "n_records": n_records,
        "got": got,
        "lab": lab,
        "tags": [tags.indices, tags.values, tags.dense_shape],
        "shapes": [t.shape.as_list() for t in el],
        "dtypes": [t.dtype.name for t in el],
        "batch_label_shape": parsed["label"].shape.as_list(),
    }
