"""The error messages TF1 users read (and pasted into Stack Overflow), compared by their first line or key
phrases: a feed of the wrong shape, a placeholder not fed, matmul / add shape mismatches at graph construction, a reshape to an
impossible size and a gather index out of range at run time, an uninitialized variable, adding int32 to float32,
a string constant cast to float, fetching None, and a feed key that is not a tensor. Where TF 2.21's wording
departs from TF1's (its "Graph execution error:" header, a shape function's phrasing) the key phrases are
compared instead of the whole line."""

import numpy as np


def first_line(fn, *phrases):
    """The error's class, and its message's first line or (with `phrases`) which of them it contains."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are the result
        msg = getattr(e, "message", None) or str(e)
        if phrases:
            return [type(e).__name__] + [p in msg for p in phrases]
        return [type(e).__name__, msg.split("\n")[0]]
    return None


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x, name="total")
    v = tf.Variable(1.0, name="v")
    p = tf.placeholder(tf.int32, [None], name="p")
    reshaped = tf.reshape(p, [2, 2], name="reshaped")
    table = tf.constant([1.0, 2.0, 3.0])
    gathered = tf.gather(table, p, name="gathered")
    out["matmul"] = first_line(
        lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])), "Dimensions must be equal, but are 3 and 4", "[2,3], [4,5]"
    )
    out["add"] = first_line(lambda: tf.ones([2, 3]) + tf.ones([4, 3]), "[2,3], [4,3]")
    out["int_float"] = first_line(lambda: tf.constant(1) + tf.constant(1.5), "int32", "float32")
    out["str_float"] = first_line(lambda: tf.constant("a", tf.float32), "Expected float32", "of type 'str'")
    with tf.Session() as sess:
        out["feed_shape"] = first_line(lambda: sess.run(y, {x: np.ones([3])}))
        out["no_feed"] = first_line(
            lambda: sess.run(y), "You must feed a value for placeholder tensor 'x' with dtype float"
        )
        out["reshape"] = first_line(
            lambda: sess.run(reshaped, {p: [1, 2, 3]}),
            "Input to reshape is a tensor with 3 values, but the requested shape has 4",
        )
        out["gather"] = first_line(lambda: sess.run(gathered, {p: [0, 5]}), "indices[1] = 5 is not in [0, 3)")
        out["uninit"] = first_line(lambda: sess.run(v), "uninitialized value v")
        out["fetch_none"] = first_line(lambda: sess.run(None), "None has invalid type")
        out["feed_key"] = first_line(lambda: sess.run(y, {"nope:0": np.ones([1, 2])}))
    return out
