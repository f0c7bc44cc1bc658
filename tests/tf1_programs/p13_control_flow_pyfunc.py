"""tf.while_loop / tf.cond / tf.map_fn / tf.scan / tf.py_func / tf.case, gradients through them."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None])
    n = tf.placeholder(tf.int32, [])
    i0 = tf.constant(0)
    acc0 = tf.zeros_like(x)

    def cond(i, acc):
        return tf.less(i, n)

    def body(i, acc):
        return i + 1, acc + x * tf.cast(i, tf.float32)

    i_final, acc_final = tf.while_loop(cond, body, [i0, acc0])
    grad_acc = tf.gradients(tf.reduce_sum(acc_final), x)[0]

    w = tf.Variable(2.0)
    pred = tf.placeholder(tf.bool)
    r = tf.cond(pred, lambda: tf.square(w) * 3.0, lambda: w + 1.0)
    grad_r = tf.gradients(r, w)[0]
    squares = tf.map_fn(lambda e: e * e + 1.0, x)
    pairs = tf.map_fn(lambda e: (e[0] + e[1], e[0] * e[1]), (x, x * 2.0), dtype=(tf.float32, tf.float32))
    cumsum = tf.scan(lambda a, e: a + e, x, initializer=tf.constant(0.0))
    fold = tf.foldl(lambda a, e: a * e, x, initializer=tf.constant(1.0))

    def np_op(a, b):
        return (np.sort(a) * b).astype(np.float32), np.int64(len(a))

    sorted_x, length = tf.py_func(np_op, [x, tf.constant(10.0)], [tf.float32, tf.int64], stateful=False)
    sorted_x.set_shape(x.shape)
    case = tf.case(
        [(tf.less(n, 2), lambda: tf.constant(10)), (tf.less(n, 5), lambda: tf.constant(20))],
        default=lambda: tf.constant(30),
    )
    counter = tf.Variable(0, name="counter")
    loop_assign = tf.while_loop(lambda k: k < 3, lambda k: k + 1, [tf.constant(0)], back_prop=False)

    data = np.array([3.0, -1.0, 2.0], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: data, n: 4, pred: True}
        out = sess.run(
            [i_final, acc_final, grad_acc, r, grad_r, squares, pairs, cumsum, fold, sorted_x, length, case], feed
        )
        out2 = sess.run([r, grad_r, case], {pred: False, n: 7})
        la = sess.run(loop_assign)
    return {
        "out": out,
        "out2": out2,
        "la": la,
        "shapes": [
            acc_final.shape.as_list(),
            squares.shape.as_list(),
            cumsum.shape.as_list(),
            sorted_x.shape.as_list(),
        ],
        "dtypes": [length.dtype.name, case.dtype.name, i_final.dtype.name],
    }
