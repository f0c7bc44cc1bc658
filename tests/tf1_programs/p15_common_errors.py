"""The mistakes people make, and the error class each gives: feeding a wrong shape or dtype, not feeding a
placeholder, running an uninitialized variable, mismatched matmul shapes, a fetch from another graph, a closed
session, reshape to an impossible size, an out-of-range gather index."""

import numpy as np


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return None


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    y = tf.matmul(x, w)
    idx = tf.placeholder(tf.int32, [None])
    gathered = tf.gather(tf.constant([1.0, 2.0, 3.0]), idx)
    shape_ph = tf.placeholder(tf.int32, [2])
    reshaped = tf.reshape(tf.range(6), shape_ph)
    sess = tf.Session()
    errors = {
        "wrong_shape": _err(lambda: sess.run(y, {x: np.ones([2, 4])})),
        "wrong_rank": _err(lambda: sess.run(y, {x: np.ones([3])})),
        "uninitialized": _err(lambda: sess.run(y, {x: np.ones([2, 3])})),
        "bad_gather": _err(lambda: sess.run(gathered, {idx: [0, 5]})),
        "bad_reshape": _err(lambda: sess.run(reshaped, {shape_ph: [4, 4]})),
        "fetch_none": _err(lambda: sess.run(None)),
        "fetch_int": _err(lambda: sess.run(3)),
        "feed_string_to_float": _err(lambda: sess.run(x, {x: [["a", "b", "c"]]})),
        "static_matmul": _err(lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))),
        "static_add": _err(lambda: tf.ones([2, 3]) + tf.ones([4])),
        "static_reshape": _err(lambda: tf.reshape(tf.ones([2, 3]), [4])),
        "bad_dtype_add": _err(lambda: tf.constant(1) + tf.constant(1.0)),
        "concat_rank": _err(lambda: tf.concat([tf.ones([2]), tf.ones([2, 2])], 0)),
        "no_variables": _err(lambda: tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0))),
        "no_grad": _err(lambda: tf.train.AdamOptimizer().minimize(tf.reduce_sum(x), var_list=[w])),
        "feed_non_tensor": _err(lambda: sess.run(y, {"nope:0": 1.0})),
        "by_name_missing": _err(lambda: tf.get_default_graph().get_tensor_by_name("missing:0")),
        "by_name_no_colon": _err(lambda: tf.get_default_graph().get_tensor_by_name("x")),
        "op_by_name": tf.get_default_graph().get_operation_by_name("x").type,
    }
    sess.run(w.initializer)
    errors["not_fed"] = _err(lambda: sess.run(y))
    ok = sess.run(y, {x: np.ones([2, 3])})
    other = tf.Graph()
    with other.as_default():
        c = tf.constant(1.0)
    errors["other_graph"] = _err(lambda: sess.run(c))
    errors["other_graph_op"] = _err(lambda: tf.add(c, 1.0))
    sess.close()
    errors["closed"] = _err(lambda: sess.run(w))
    g = tf.get_default_graph()
    g.finalize()
    errors["finalized"] = _err(lambda: tf.constant(2.0))
    messages = {}
    with tf.Session() as s2:
        try:
            s2.run(tf.get_default_graph().get_tensor_by_name("x:0"))
        except tf.errors.InvalidArgumentError as e:
            messages["not_fed_mentions_x"] = "x" in e.message
            messages["has_op"] = e.op is not None
    return {
        "errors": errors,
        "ok": ok,
        "messages": messages,
        "is_op_error": issubclass(tf.errors.NotFoundError, tf.errors.OpError),
    }
