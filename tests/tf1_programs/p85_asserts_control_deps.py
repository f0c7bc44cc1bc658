"""Runtime checks the TF1 way: tf.assert_equal / assert_positive / assert_non_negative / assert_less /
assert_rank / assert_type / assert_integer with messages and data, wired in by tf.control_dependencies, the
InvalidArgumentError each raises when fed bad data (class and the user's message in it), static failures
raised at graph construction (ValueError / TypeError), tf.check_numerics on a NaN, tf.verify_tensor_all_finite,
and tf.debugging.assert_shapes-free rank checks."""


def _run(tf, sess, t, feed, phrase=None):
    """The value, or the error class and whether the message names what was wrong (TF 2's messages start with
    "Graph execution error:", so the first line is not compared)."""
    try:
        return ["ok", sess.run(t, feed).tolist()]
    except tf.errors.InvalidArgumentError as e:
        return [type(e).__name__, phrase is not None and any(p in e.message for p in phrase.split("|"))]


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.placeholder(tf.float32, [None], name="y")
    checks = [
        tf.assert_positive(x, message="x must be positive"),
        tf.assert_less(x, y, message="x < y violated", data=[x, y]),
        tf.assert_equal(tf.shape(x), tf.shape(y), message="shape mismatch"),
    ]
    with tf.control_dependencies(checks):
        ratio = tf.identity(x / y, name="ratio")
    # Fed y of another length, the assert_equal or assert_less's Less (broadcasting) fails first, whichever runs.
    nonneg = tf.assert_non_negative(y - x, message="gap")
    with tf.control_dependencies([nonneg]):
        gap = tf.sqrt(y - x)
    numerics = tf.check_numerics(tf.log(x), "log of x")
    finite = tf.verify_tensor_all_finite(x * 2.0, "x finite")
    out = {"names": [c.name for c in checks], "ratio": ratio.op.type}
    static = {}
    for key, fn in [
        ("equal", lambda: tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="static")),
        ("rank", lambda: tf.assert_rank(tf.constant([1.0, 2.0]), 2)),
        ("type", lambda: tf.assert_type(tf.constant([1, 2]), tf.float32)),
        ("integer", lambda: tf.assert_integer(tf.constant([1.0]))),
        ("positive", lambda: tf.assert_positive(tf.constant([-1.0, 2.0]))),
    ]:
        try:
            fn()
            static[key] = None
        except (ValueError, TypeError, tf.errors.InvalidArgumentError) as e:
            static[key] = type(e).__name__
    out["static"] = static
    with tf.Session() as sess:
        out["good"] = _run(tf, sess, ratio, {x: [1.0, 2.0], y: [2.0, 4.0]})
        out["negative"] = _run(tf, sess, ratio, {x: [-1.0, 2.0], y: [2.0, 4.0]}, "x must be positive")
        out["not_less"] = _run(tf, sess, ratio, {x: [3.0, 2.0], y: [2.0, 4.0]}, "x < y violated")
        out["shape"] = _run(tf, sess, ratio, {x: [1.0, 2.0], y: [2.0, 4.0, 5.0]}, "shape mismatch|Incompatible shapes")
        out["gap_ok"] = _run(tf, sess, gap, {x: [1.0], y: [5.0]})
        out["gap_bad"] = _run(tf, sess, gap, {x: [6.0], y: [5.0]}, "gap")
        out["numerics_ok"] = _run(tf, sess, numerics, {x: [1.0]})
        out["numerics_bad"] = _run(tf, sess, numerics, {x: [-1.0]}, "log of x : Tensor had NaN values")
        out["finite_bad"] = _run(tf, sess, finite, {x: [float("inf")]}, "x finite : Tensor had Inf values")
    return out
