"""Loop machinery as TF1 research code used it: while_loop with shape_invariants growing a tensor, TensorArray
unstack/read/write/gather/scatter/split/concat/size with element_shape and clear_after_read=False,
parallel_iterations and back_prop=False, tf.case with exclusive=True and a default, tf.cond returning tuples,
gradients through a TensorArray-based loop, and maximum_iterations. (TensorArray.gather's static first dimension
is not compared: TF leaves it unknown, our shape function gives the number of indices.)"""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    i0 = tf.constant(0)
    m0 = tf.ones([1, 2])
    _, grown = tf.while_loop(
        lambda i, m: i < 3,
        lambda i, m: (i + 1, tf.concat([m, m * tf.cast(i + 2, tf.float32)], axis=0)),
        [i0, m0],
        shape_invariants=[i0.get_shape(), tf.TensorShape([None, 2])],
    )
    out["grown_shape"] = grown.shape.as_list()
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    w = tf.Variable(np.full([3], 0.5, np.float32), name="w")
    ta_in = tf.TensorArray(tf.float32, size=4, element_shape=[3]).unstack(x)

    def body(t, acc, ta_out):
        row = ta_in.read(t)
        acc = acc * 0.5 + row * w
        return t + 1, acc, ta_out.write(t, tf.reduce_sum(acc))

    _, acc, ta_out = tf.while_loop(
        lambda t, *_: t < 4,
        body,
        [tf.constant(0), tf.zeros([3]), tf.TensorArray(tf.float32, size=4)],
        parallel_iterations=1,
    )
    seq = ta_out.stack()
    grad = tf.gradients(tf.reduce_sum(seq), w)[0]
    ta2 = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta2 = ta2.scatter([2, 0, 1], tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    g = ta2.gather([1, 1, 2])
    r = ta2.read(0) + ta2.read(0)
    ta3 = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(
        tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), [1, 2, 3]
    )
    cat = ta3.concat()
    _, counted = tf.while_loop(lambda i, c: i < 100, lambda i, c: [i + 1, c + 2], [0, 0], maximum_iterations=7)
    _, nobp = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), [0, tf.constant(1.5)], back_prop=False)
    k = tf.placeholder(tf.int32, [])
    case = tf.case(
        [(tf.equal(k, 1), lambda: tf.constant(10)), (tf.equal(k, 2), lambda: tf.constant(20))],
        default=lambda: tf.constant(-1),
        exclusive=True,
    )
    pair = tf.cond(
        k > 1, lambda: (tf.constant(1.0), tf.constant([1, 2])), lambda: (tf.constant(0.0), tf.constant([3, 4]))
    )
    out["static"] = [seq.shape.as_list(), g.shape[1:].as_list(), str(cat.shape), str(pair[1].shape)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["grown"] = sess.run(grown)
        out["seq"], out["acc"], out["grad"] = sess.run([seq, acc, grad])
        out["gather"], out["read_twice"], out["size"] = sess.run([g, r, ta2.size()])
        out["concat"] = sess.run(cat)
        out["counted"], out["nobp"] = sess.run([counted, nobp])
        out["case"] = [sess.run(case, {k: v}) for v in (1, 2, 3)]
        out["pair"] = [sess.run(pair, {k: v}) for v in (1, 2)]
    return out
