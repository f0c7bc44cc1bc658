"""tf.data pipelines that carry SparseTensors, as TF1 text / recommender input code did: a map that tokenizes
with tf.string_split (a SparseTensor per line), batching those (the batch's dense_shape grows to the longest
line), a map that builds a SparseTensor of feature ids, from_tensor_slices over a SparseTensor, the iterator's
output_classes/output_shapes, sparse_tensor_to_dense / sparse.to_indicator on the batches, and a model reading
the sparse batch through embedding_lookup_sparse."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    lines = ["a b c", "b", "c a", "a a b d"]
    vocab = tf.constant(["a", "b", "c", "d"])

    def tokenize(line):
        sp = tf.string_split([line])
        return tf.SparseTensor(sp.indices[:, 1:], sp.values, sp.dense_shape[1:])

    ds = tf.data.Dataset.from_tensor_slices(lines).map(tokenize).batch(2)
    it = ds.make_one_shot_iterator()
    batch = it.get_next()

    def to_ids(line):
        toks = tf.string_split([line]).values
        ids = tf.argmax(tf.cast(tf.equal(tf.expand_dims(toks, 1), vocab), tf.int64), axis=1)
        n = tf.shape(ids, out_type=tf.int64)[0]
        return {"ids": tf.SparseTensor(tf.expand_dims(tf.range(n), 1), ids, [4]), "n": n}

    ids_ds = tf.data.Dataset.from_tensor_slices(lines).map(to_ids).batch(4)
    ids_it = ids_ds.make_initializable_iterator()
    feats = ids_it.get_next()
    emb = tf.Variable((np.arange(8, dtype=np.float32) ** 2).reshape(4, 2) / 4.0, name="emb")
    pooled = tf.nn.embedding_lookup_sparse(emb, feats["ids"], None, combiner="mean")
    dense_ids = tf.sparse_tensor_to_dense(feats["ids"], default_value=-1)
    indicator = tf.sparse.to_indicator(feats["ids"], 4)
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2], [3, 1]], values=[1.0, 2.0, 3.0], dense_shape=[4, 3])
    rows = tf.data.Dataset.from_tensor_slices(sp).map(lambda r: tf.sparse.reduce_sum(r)).batch(4)
    rows_next = rows.make_one_shot_iterator().get_next()
    out = {
        "batch_shape": batch.dense_shape.shape.as_list(),
        "classes": [c.__name__ for c in tf.data.get_output_classes(ds)]
        if isinstance(tf.data.get_output_classes(ds), tuple)
        else tf.data.get_output_classes(ds).__name__,
        "feat_classes": sorted((k, c.__name__) for k, c in tf.data.get_output_classes(ids_ds).items()),
        "out_shapes": tf.data.get_output_shapes(ds).as_list(),
        "ids_shape": tf.data.get_output_shapes(ids_ds)["ids"].as_list(),
        "pooled_shape": pooled.shape.as_list(),
        "batches": [],
    }
    with tf.Session() as sess:
        while True:
            try:
                b = sess.run(batch)
            except tf.errors.OutOfRangeError:
                break
            out["batches"].append([b.indices, b.values, b.dense_shape])
        sess.run([ids_it.initializer, emb.initializer])
        f, p, d, ind = sess.run([feats, pooled, dense_ids, indicator])
        out["feats"] = [f["ids"].indices, f["ids"].values, f["ids"].dense_shape, f["n"]]
        out["pooled"], out["dense_ids"], out["indicator"] = p, d, ind
        out["row_sums"] = sess.run(rows_next)
    return out
