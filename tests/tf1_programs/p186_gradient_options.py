"""tf.gradients' less common arguments as TF1 research code used them, values compared: stop_gradients= (the
"treat as constant" alternative to tf.stop_gradient, as in the docs' a/b example), unconnected_gradients="zero"
versus None, gradients of several ys summed, grad_ys weighting, aggregation_method
EXPERIMENTAL_ACCUMULATE_N, colocate_gradients_with_ops, gradients through integer casts (None), through
tf.while_loop with maximum_iterations and a tf.cond, through tf.gather (IndexedSlices converted by
tf.convert_to_tensor), tf.hessians of a function of two variables, and the errors for a y that is not a tensor of
the graph."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    a = tf.constant(0.0)
    b = 2.0 * a
    g_stop = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    g_plain = tf.gradients(a + b, [a, b])
    x = tf.constant([1.0, 2.0, 3.0])
    unused = tf.constant([4.0])
    y = tf.reduce_sum(x * x)
    g_none = tf.gradients(y, [x, unused])
    g_zero = tf.gradients(y, [x, unused], unconnected_gradients="zero")
    y2 = tf.reduce_sum(tf.sin(x))
    g_multi = tf.gradients([y, y2], x)
    g_ys = tf.gradients([x * 2.0], x, grad_ys=[tf.constant([1.0, 0.5, 0.25])])
    v = tf.Variable([0.5, -1.0, 2.0])
    many = tf.add_n([v * float(i) for i in range(1, 5)])
    g_acc = tf.gradients(many, v, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)
    g_coloc = tf.gradients(tf.reduce_sum(tf.exp(v)), v, colocate_gradients_with_ops=True)
    as_int = tf.cast(v, tf.int32)
    g_int = tf.gradients(tf.reduce_sum(tf.cast(as_int, tf.float32)), v)

    def body(i, acc):
        return i + 1, tf.cond(acc < 10.0, lambda: acc * v[0] + 1.0, lambda: acc)

    try:  # a list of loop_vars and a body returning a tuple: TF's maximum_iterations wrapper rejects the mix
        tf.while_loop(lambda i, acc: i < 100, body, [0, tf.constant(1.0)], maximum_iterations=4)
        out["list_vs_tuple"] = None
    except TypeError as e:
        out["list_vs_tuple"] = ["TypeError", "don't have the same nested structure" in str(e)]
    _, loop_out = tf.while_loop(lambda i, acc: i < 100, body, (0, tf.constant(1.0)), maximum_iterations=4)
    g_loop = tf.gradients(loop_out, v)
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    picked = tf.reduce_sum(tf.gather(emb, [0, 2, 2]))
    g_gather = tf.gradients(picked, emb)[0]
    out["gather_grad_type"] = type(g_gather).__name__
    dense_gather = tf.convert_to_tensor(g_gather)
    p = tf.Variable(1.0)
    q = tf.Variable(2.0)
    f = p * p * q + tf.sin(q) * p
    hess = tf.hessians(f, [p, q])
    out["none_positions"] = [g is None for g in g_none + g_int]
    try:
        tf.gradients("not a tensor", [x])
        out["bad_y"] = None
    except (TypeError, ValueError) as e:
        out["bad_y"] = type(e).__name__
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["stop"] = sess.run(g_stop)
        out["plain"] = sess.run(g_plain)
        out["none_first"] = sess.run(g_none[0])
        out["zero"] = sess.run(g_zero)
        out["multi"] = sess.run(g_multi)
        out["grad_ys"] = sess.run(g_ys)
        out["acc"] = sess.run(g_acc)
        out["coloc"] = sess.run(g_coloc)
        out["loop"] = sess.run([loop_out, g_loop])
        out["gather_dense"] = sess.run(dense_gather)
        out["hessians"] = sess.run(hess)
    return out
