"""Gradient clipping on an embedding model, as NMT and language-model code did it: embedding_lookup gradients as
IndexedSlices (their indices, dense_shape, the duplicate ids), clip_by_global_norm over a mix of IndexedSlices,
dense gradients and None, global_norm, clip_by_norm of IndexedSlices (axes), clip_by_average_norm,
clip_by_value, apply_gradients of IndexedSlices by Momentum/Adagrad/Adam (sparse updates touching only the looked-up
rows), tf.convert_to_tensor of IndexedSlices, and the error for clipping a list holding a non-tensor."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    ids = tf.constant([[1, 3, 1], [4, 1, 0]])
    out = {}
    results = {}
    for name, make_opt in (
        ("momentum", lambda: tf.train.MomentumOptimizer(0.5, 0.9)),
        ("adagrad", lambda: tf.train.AdagradOptimizer(0.5)),
        ("adam", lambda: tf.train.AdamOptimizer(0.1)),
    ):
        with tf.variable_scope(name):
            emb = tf.get_variable("emb", [6, 3], initializer=tf.constant_initializer(
                np.arange(18, dtype=np.float32).reshape(6, 3) / 10.0))  # fmt: skip
            w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer([[1.0, -1.0], [0.5, 0.2], [0.0, 1.0]]))
            unused = tf.get_variable("unused", [2], initializer=tf.ones_initializer())
            h = tf.reduce_mean(tf.nn.embedding_lookup(emb, ids), axis=1)
            loss = tf.reduce_sum(tf.square(tf.matmul(h, w) - 1.0))
            grads = tf.gradients(loss, [emb, w, unused])
            clipped, norm = tf.clip_by_global_norm(grads, 1.0)
            opt = make_opt()
            train = opt.apply_gradients(zip(clipped, [emb, w, unused]))
            results[name] = (emb, loss, train, grads, clipped, norm)
    emb_grad = results["momentum"][3][0]
    kind = lambda g: None if g is None else "IndexedSlices" if isinstance(g, tf.IndexedSlices) else "Tensor"
    out["grad_type"] = [kind(g) for g in results["momentum"][3]]
    out["clipped_type"] = [kind(g) for g in results["momentum"][4]]
    dense_grad = tf.convert_to_tensor(emb_grad)
    by_norm = tf.clip_by_norm(emb_grad, 0.5, axes=[1])
    fetch = {
        "indices": emb_grad.indices,
        "values": emb_grad.values,
        "dense_shape": emb_grad.dense_shape,
        "dense": dense_grad,
        "global_norm": tf.global_norm([g for g in results["momentum"][3] if g is not None]),
        "by_norm": [by_norm.indices, by_norm.values],
        "avg_norm": tf.clip_by_average_norm(results["momentum"][3][1], 0.1),
        "by_value": tf.clip_by_value(results["momentum"][3][1], -0.5, 0.5),
    }
    try:
        tf.clip_by_global_norm([tf.ones([2]), "oops"], 1.0)
        out["bad_list"] = None
    except (TypeError, ValueError) as e:
        out["bad_list"] = type(e).__name__
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["grads"] = sess.run(fetch)
        for name, (emb, loss, train, _, _, norm) in results.items():
            trace = []
            for _ in range(4):
                trace.append(sess.run([loss, norm]))
                sess.run(train)
            out[name] = {"trace": trace, "emb": sess.run(emb)}
    return out
