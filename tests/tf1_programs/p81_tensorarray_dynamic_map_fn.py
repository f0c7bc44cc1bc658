"""Loops with growing TensorArrays and multi-output map_fn as TF1 research code wrote them: a Collatz-length
while_loop writing into a TensorArray(dynamic_size=True) until a data-dependent stop, stacked (static shape of
the result, with and without element_shape), a TensorArray gather of chosen indices, tf.map_fn with dtype=
(tf.float32, tf.int32) returning a tuple, and map_fn over a tuple of inputs; gradients through a map_fn."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    start = tf.placeholder(tf.int32, [], name="start")
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)

    def cond(i, n, ta):
        return n > 1

    def body(i, n, ta):
        ta = ta.write(i, n)
        n = tf.cond(tf.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
        return i + 1, n, ta

    steps, _, ta = tf.while_loop(cond, body, [0, start, ta])
    seq = ta.stack()
    once_ta = tf.TensorArray(tf.float32, size=2).unstack(tf.constant([[1.0], [2.0]]))
    read_twice = [once_ta.read(0), once_ta.stack()]
    pairs_ta = tf.TensorArray(tf.float32, size=4, element_shape=[2], clear_after_read=False)
    for i in range(4):
        pairs_ta = pairs_ta.write(i, tf.constant([i, i * i], tf.float32))
    gathered = pairs_ta.gather([3, 1])
    stacked_pairs = pairs_ta.stack()
    unknown_ta = tf.TensorArray(tf.float32, size=3).unstack(tf.placeholder(tf.float32, [3, None]))
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    maxes, argmaxes = tf.map_fn(
        lambda r: (tf.reduce_max(r), tf.argmax(r, output_type=tf.int32)), x, dtype=(tf.float32, tf.int32)
    )
    w = tf.Variable([1.0, 2.0, 3.0], name="w")
    scaled = tf.map_fn(
        lambda args: args[0] * w * tf.cast(args[1], tf.float32), (x, tf.range(tf.shape(x)[0])), dtype=tf.float32
    )
    grad = tf.gradients(tf.reduce_sum(scaled), w)[0]
    out = {
        "shapes": [
            seq.shape.as_list(),
            gathered.shape.as_list(),
            stacked_pairs.shape.as_list(),
            unknown_ta.stack().shape.as_list(),
            maxes.shape.as_list(),
            argmaxes.shape.as_list(),
            scaled.shape.as_list(),
        ],
        "dtypes": [maxes.dtype.name, argmaxes.dtype.name],
        "names": [seq.op.type, gathered.op.type],
    }
    xs = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, -1.0]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["collatz"] = sess.run([steps, seq], {start: 6})
        out["collatz27"] = sess.run(steps, {start: 27})
        out["ta"] = sess.run([gathered, stacked_pairs])
        try:
            sess.run(read_twice)
            out["read_twice"] = None
        except tf.errors.InvalidArgumentError as e:
            out["read_twice"] = ["InvalidArgumentError", "clear_after_read" in e.message]
        out["map"] = sess.run([maxes, argmaxes, scaled, grad], {x: xs})
    return out
