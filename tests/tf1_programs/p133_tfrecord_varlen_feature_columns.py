"""The Estimator-era input pipeline without the Estimator: tf.Examples with a variable-length string feature
(tags) and int64 / float features written to a TFRecord file, read with TFRecordDataset, batched, parsed with
tf.parse_example (a VarLenFeature gives a SparseTensor inside the dataset), features and label split in a
map, and the batch fed to tf.feature_column.input_layer with categorical_column_with_vocabulary_list (sparse,
multi-valued) as embedding_column(combiner="mean") and indicator_column, plus numeric_column; a linear model
trained over the iterator, the SparseTensor batch's shapes and values."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    path = os.path.join(workdir, "data.tfrecord")
    rng = np.random.RandomState(133)
    vocab = ["red", "green", "blue", "big", "small"]
    with tf.python_io.TFRecordWriter(path) as writer:
        for i in range(12):
            tags = [vocab[j].encode() for j in sorted(rng.choice(5, rng.randint(0, 4), replace=False))]
            ex = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=tags)),
                        "age": tf.train.Feature(float_list=tf.train.FloatList(value=[float(20 + i)])),
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
                    }
                )
            )
            writer.write(ex.SerializeToString())
    spec = {
        "tags": tf.VarLenFeature(tf.string),
        "age": tf.FixedLenFeature([1], tf.float32),
        "label": tf.FixedLenFeature([], tf.int64),
    }

    def parse(serialized):
        parsed = tf.parse_example(serialized, spec)
        label = parsed.pop("label")
        return parsed, label

    ds = tf.data.TFRecordDataset(path).batch(4).map(parse).repeat(2)
    it = ds.make_initializable_iterator()
    features, labels = it.get_next()
    tags = tf.feature_column.categorical_column_with_vocabulary_list("tags", vocab)
    age = tf.feature_column.numeric_column("age", normalizer_fn=lambda x: (x - 25.0) / 5.0)
    columns = [
        tf.feature_column.embedding_column(tags, 3, combiner="mean", initializer=tf.constant_initializer(0.1)),
        tf.feature_column.indicator_column(tags),
        age,
    ]
    net = tf.feature_column.input_layer(features, columns)
    logits = tf.layers.dense(net, 2, kernel_initializer=tf.constant_initializer(0.05), name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    out = {
        "classes": sorted((k, c.__name__) for k, c in tf.data.get_output_classes(ds)[0].items()),
        "shapes": sorted((k, s.as_list()) for k, s in tf.data.get_output_shapes(ds)[0].items()),
        "net_shape": net.shape.as_list(),
        "vars": sorted(v.op.name for v in tf.global_variables()),
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer(), it.initializer])
        f, n = sess.run([features, net])
        out["first_tags"] = [f["tags"].indices, f["tags"].values, f["tags"].dense_shape]
        out["first_net"] = n
        while True:
            try:
                out["losses"].append(sess.run([loss, train])[0])
            except tf.errors.OutOfRangeError:
                break
    return out
