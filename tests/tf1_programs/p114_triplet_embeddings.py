"""A FaceNet-style embedding model (2017 TF1 code): a small net to 8-d embeddings, tf.nn.l2_normalize(axis=1),
pairwise squared distances by the dot-product trick with tf.maximum(..., 0) and a diagonal mask, batch-hard
triplet mining with boolean masks from tf.equal of labels (tf.logical_not, tf.eye), the triplet loss with a
margin, embedding_lookup with max_norm, tf.clip_by_average_norm, tf.nn.relu6 and tf.nn.softsign activations,
and the fraction of positive triplets."""

import numpy as np


def pairwise_distances(tf, embeddings):
    dot = tf.matmul(embeddings, tf.transpose(embeddings))
    square_norm = tf.diag_part(dot)
    distances = tf.expand_dims(square_norm, 0) - 2.0 * dot + tf.expand_dims(square_norm, 1)
    return tf.maximum(distances, 0.0)


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(114)
    xs = rng.randn(12, 6).astype(np.float32)
    labels_np = np.repeat(np.arange(4), 3).astype(np.int32)
    xs += labels_np[:, None].astype(np.float32) * 0.5
    ids_np = rng.randint(0, 10, 12).astype(np.int32)
    x = tf.placeholder(tf.float32, [None, 6])
    labels = tf.placeholder(tf.int32, [None])
    ids = tf.placeholder(tf.int32, [None])
    table = tf.Variable(rng.randn(10, 4).astype(np.float32) * 2.0, name="id_table")
    id_emb = tf.nn.embedding_lookup(table, ids, max_norm=1.0)
    w1 = tf.Variable(rng.randn(10, 16).astype(np.float32) * 0.3, name="w1")
    w2 = tf.Variable(rng.randn(16, 8).astype(np.float32) * 0.3, name="w2")
    h = tf.nn.relu6(tf.matmul(tf.concat([x, id_emb], 1), w1) * 3.0)
    h = tf.nn.softsign(h) + tf.nn.softplus(h) * 0.1
    embeddings = tf.nn.l2_normalize(tf.matmul(h, w2), axis=1)
    dist = pairwise_distances(tf, embeddings)
    same = tf.equal(tf.expand_dims(labels, 0), tf.expand_dims(labels, 1))
    not_self = tf.logical_not(tf.cast(tf.eye(tf.shape(labels)[0]), tf.bool))
    pos_mask = tf.cast(tf.logical_and(same, not_self), tf.float32)
    neg_mask = 1.0 - tf.cast(same, tf.float32)
    hardest_pos = tf.reduce_max(dist * pos_mask, axis=1, keepdims=True)
    max_dist = tf.reduce_max(dist, axis=1, keepdims=True)
    hardest_neg = tf.reduce_min(dist + max_dist * (1.0 - neg_mask), axis=1, keepdims=True)
    margin = 0.3
    triplet = tf.maximum(hardest_pos - hardest_neg + margin, 0.0)
    loss = tf.reduce_mean(triplet)
    frac_positive = tf.reduce_mean(tf.cast(tf.greater(triplet, 1e-16), tf.float32))
    opt = tf.train.AdamOptimizer(0.01)
    grads_and_vars = opt.compute_gradients(loss)
    clipped = [(tf.clip_by_average_norm(g, 0.5), v) for g, v in grads_and_vars if g is not None]
    train = opt.apply_gradients(clipped)
    out = {
        "sparse_grads": [isinstance(g, tf.IndexedSlices) for g, _ in grads_and_vars],
        "shapes": [t.shape.as_list() for t in (id_emb, embeddings, dist, hardest_pos, triplet)],
        "steps": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: xs, labels: labels_np, ids: ids_np}
        e = sess.run(id_emb, feed)
        out["max_norm_ok"] = bool((np.linalg.norm(e, axis=1) <= 1.0 + 1e-5).all())
        out["id_emb"] = e[:3]
        out["dist_diag"] = sess.run(tf.diag_part(dist), feed)
        for _ in range(8):
            out["steps"].append(sess.run([loss, frac_positive, train], feed)[:2])
        out["norms"] = np.linalg.norm(sess.run(embeddings, feed), axis=1)
    return out
