"""Gradient tools as TF1 code used them: a while_loop whose body reads variables directly (trained by an
optimizer), tf.custom_gradient (gradient clipping inside the graph), stop_gradient, gradients with grad_ys and
stop_gradients, hessians, gradients of a cond, AggregationMethod, clip_by_norm/clip_by_value on gradients, and
the gradient of tf.gather that is IndexedSlices (converted with convert_to_tensor)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(46)
    out = {}
    w = tf.get_variable("w", [3, 3], initializer=tf.random_normal_initializer(stddev=0.5))
    u = tf.get_variable("u", [3], initializer=tf.ones_initializer())
    x0 = tf.constant([1.0, -0.5, 0.25])

    def body(i, h):
        return i + 1, tf.tanh(tf.linalg.matvec(w, h) + u)

    _, h = tf.while_loop(lambda i, h: i < 4, body, [tf.constant(0), x0])
    loss = tf.reduce_sum(tf.square(h - 0.5))
    train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)

    @tf.custom_gradient
    def clip_grad(v):
        def grad(dy):
            return tf.clip_by_value(dy, -0.1, 0.1)

        return tf.identity(v), grad

    a = tf.constant([1.0, 2.0, 3.0])
    out["custom"] = tf.gradients(tf.reduce_sum(clip_grad(a) * 5.0), a)[0]
    out["stop"] = tf.gradients(a * tf.stop_gradient(a * a), a)[0]
    out["grad_ys"] = tf.gradients(a * a, a, grad_ys=tf.constant([1.0, 0.0, -2.0]))[0]
    b = a * 2.0
    out["stop_gradients"] = tf.gradients(b * b + a, [a, b], stop_gradients=[b])
    out["hessian"] = tf.hessians(tf.reduce_sum(a**3) + a[0] * a[1], a)[0]
    p = tf.placeholder(tf.bool, [])
    c = tf.cond(p, lambda: tf.reduce_sum(a * a), lambda: tf.reduce_sum(tf.sin(a)))
    gc = tf.gradients(c, a)[0]
    out["agg"] = tf.gradients(
        a * a + a * 3.0 + tf.exp(a), a, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N
    )[0]
    table = tf.get_variable("table", [5, 2], initializer=tf.constant_initializer(np.arange(10.0).reshape(5, 2)))
    g_sparse = tf.gradients(tf.reduce_sum(tf.gather(table, [1, 3, 1]) * 2.0), table)[0]
    out["indexed_slices"] = [g_sparse.indices, g_sparse.values, tf.convert_to_tensor(g_sparse)]
    grads = tf.gradients(loss, [w, u])
    out["clip_norm"] = [tf.clip_by_norm(g, 0.1) for g in grads]
    out["global_norm"] = tf.global_norm(grads)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(5):
            losses.append(sess.run([loss, train])[0])
        got = sess.run(out)
        got["cond"] = [sess.run(gc, {p: True}), sess.run(gc, {p: False})]
        got["w"] = sess.run(w)
    got["losses"] = losses
    got["sparse_type"] = type(g_sparse).__name__
    return got
