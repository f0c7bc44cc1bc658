"""Graph-construction and run-time errors beyond the usual feed/shape ones, as TF1 users met them, compared by
class and full first line: concat of tensors of different ranks, stack of different shapes, squeeze of a
non-1 dimension, split into uneven parts, tile with the wrong number of multiples, one_hot of float indices,
matmul of a vector, a while_loop body changing a loop variable's structure, cond with a non-boolean predicate,
get_variable with an initializer whose shape differs, tf.slice past the end and tf.gather_nd out of range at run
time, a variable initialized from an uninitialized one, and set_shape with an incompatible shape."""

import numpy as np


def first_line(fn):
    """The error's class and its message's first line; for a run-time error the line before the node
    ("[[...]]") line, as TF 2.21 puts a traceback block before the kernel's message."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are the result
        msg = getattr(e, "message", None) or str(e)
        lines = [line.strip() for line in msg.split("\n") if line.strip()]
        at = next((i for i, line in enumerate(lines) if line.startswith("[[")), None)
        return [type(e).__name__, lines[at - 1] if at else lines[0]]
    return None


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    a = tf.constant([[1.0, 2.0]], name="a")
    b = tf.constant([3.0], name="b")
    out["concat"] = first_line(lambda: tf.concat([a, b], 0, name="joined"))
    out["stack"] = first_line(lambda: tf.stack([tf.zeros([2]), tf.zeros([3])], name="stacked"))
    out["squeeze"] = first_line(lambda: tf.squeeze(tf.zeros([2, 3]), axis=1))
    out["split"] = first_line(lambda: tf.split(tf.zeros([5, 2]), 2))
    out["tile"] = first_line(lambda: tf.tile(tf.zeros([2, 3]), [2]))
    out["one_hot"] = first_line(lambda: tf.one_hot(tf.constant([0.0, 1.0]), 3))
    out["matmul_vector"] = first_line(lambda: tf.matmul(tf.zeros([3]), tf.zeros([3, 2])))
    out["while_structure"] = first_line(lambda: tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [tf.constant(0)]))
    out["cond_pred"] = first_line(lambda: tf.cond(tf.constant(1.0), lambda: a, lambda: a))
    out["init_shape"] = first_line(
        lambda: tf.get_variable("w", [2, 2], initializer=tf.constant_initializer(np.ones(3, np.float32)))
    )
    out["init_value_shape"] = first_line(lambda: tf.get_variable("w2", [3], initializer=tf.constant([1.0, 2.0])))
    out["set_shape"] = first_line(lambda: tf.placeholder(tf.float32, [None, 3]).set_shape([2, 4]))
    sl = tf.slice(tf.placeholder_with_default(tf.zeros([3, 3]), [None, 3]), [1, 0], [4, 2])
    gnd = tf.gather_nd(tf.zeros([2, 2]), tf.placeholder_with_default([[0, 5]], [None, 2]))
    v1 = tf.Variable(tf.ones([2]), name="v1")
    v2 = tf.Variable(v1 * 2.0, name="v2")
    with tf.Session() as sess:
        out["slice"] = first_line(lambda: sess.run(sl))
        out["gather_nd"] = first_line(lambda: sess.run(gnd))
        out["init_from_uninit"] = first_line(lambda: sess.run(v2.initializer))
        out["v2_initialized_value"] = first_line(lambda: sess.run(v2.initialized_value()))
    return out
