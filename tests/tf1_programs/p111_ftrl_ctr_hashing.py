"""A click-through-rate logistic regression as TF1 ad-tech code wrote it: hashed categorical features
(tf.string_to_hash_bucket_fast) looked up in a weight table with embedding_lookup_sparse-free gather +
segment_sum, FtrlOptimizer with l1/l2 regularization and l2_shrinkage (sparsity of the learned weights with
tf.nn.zero_fraction and tf.count_nonzero), the same model with ProximalAdagradOptimizer and AdagradDAOptimizer
(global_step), sigmoid cross entropy, tf.metrics.auc-free AUC from tf.nn.top_k ranking, and log loss."""

import numpy as np


def main(tf, workdir):
    rng = np.random.RandomState(111)
    n, buckets = 64, 50
    cats = np.array([[f"site_{rng.randint(8)}", f"ad_{rng.randint(12)}", f"dev_{rng.randint(3)}"] for _ in range(n)])
    signal = np.array([int(c[0][-1]) % 2 for c in cats])
    labels_np = (rng.rand(n) < 0.3 + 0.4 * signal).astype(np.float32)
    results = {}
    for name in ("ftrl", "proximal_adagrad", "adagrad_da"):
        tf.reset_default_graph()
        feats = tf.placeholder(tf.string, [None, 3])
        labels = tf.placeholder(tf.float32, [None])
        ids = tf.string_to_hash_bucket_fast(feats, buckets)
        weights = tf.get_variable("w", [buckets], initializer=tf.zeros_initializer())
        bias = tf.get_variable("bias", [], initializer=tf.zeros_initializer())
        rows = tf.tile(tf.expand_dims(tf.range(tf.shape(ids)[0]), 1), [1, 3])
        logits = tf.segment_sum(tf.gather(weights, tf.reshape(ids, [-1])), tf.reshape(rows, [-1])) + bias
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        global_step = tf.train.get_or_create_global_step()
        if name == "ftrl":
            opt = tf.train.FtrlOptimizer(
                0.5,
                l1_regularization_strength=0.05,
                l2_regularization_strength=0.01,
                l2_shrinkage_regularization_strength=0.01,
            )
        elif name == "proximal_adagrad":
            opt = tf.train.ProximalAdagradOptimizer(
                0.5, l1_regularization_strength=0.01, l2_regularization_strength=0.01
            )
        else:
            opt = tf.train.AdagradDAOptimizer(0.5, global_step, l1_regularization_strength=0.01)
        train = opt.minimize(loss, global_step=global_step)
        probs = tf.sigmoid(logits)
        _, order = tf.nn.top_k(probs, k=tf.shape(probs)[0])
        ranked = tf.gather(labels, order)
        n_pos = tf.reduce_sum(labels)
        n_neg = tf.cast(tf.shape(labels)[0], tf.float32) - n_pos
        neg_above = tf.cumsum(1.0 - ranked)
        auc = 1.0 - tf.reduce_sum(ranked * neg_above) / (n_pos * n_neg)
        record = {"slots": sorted(opt.get_slot_names()), "losses": []}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {feats: cats, labels: labels_np}
            record["ids"] = sess.run(ids, {feats: cats[:3]})
            for _ in range(10):
                record["losses"].append(sess.run([loss, train], feed)[0])
            record["zero_fraction"] = sess.run(tf.nn.zero_fraction(weights))
            record["nonzero"] = sess.run(tf.count_nonzero(weights))
            record["auc"] = sess.run(auc, feed)
            record["step"] = sess.run(global_step)
            record["slot_vars"] = sorted(v.op.name for v in tf.global_variables())
        results[name] = record
    return results
