"""The variable-sharing mistakes TF1 users hit and the messages they read: get_variable twice without reuse
(ValueError "already exists, disallowed"), reuse=True for a variable never made ("does not exist"), a shape
mismatch on reuse, an int or string variable without an initializer, tf.layers.dense called twice in one scope, and what works: reuse=tf.AUTO_REUSE,
scope.reuse_variables(), name_scope vs variable_scope names, tf.get_variable_scope().name. (Messages are compared
up to their 60th character: ours then name `tw.` functions where TF names `tf.` ones.)"""


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error class and the first line of the message are the result
        return [type(e).__name__, str(e).split("\n")[0][:60]]
    return None


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2, 3])
    out["twice"] = error_of(lambda: tf.get_variable("layer/w", [2, 3]))

    def twice_in_scope():
        with tf.variable_scope("layer"):
            tf.get_variable("w", [2, 3])

    out["twice_scope"] = error_of(twice_in_scope)

    def missing():
        with tf.variable_scope("layer", reuse=True):
            tf.get_variable("nope", [1])

    out["missing"] = error_of(missing)

    def wrong_shape():
        with tf.variable_scope("layer", reuse=True):
            tf.get_variable("w", [3, 3])

    out["wrong_shape"] = error_of(wrong_shape)
    out["int_no_init"] = error_of(lambda: tf.get_variable("counter", [2], dtype=tf.int32))
    out["int_no_init_string"] = error_of(lambda: tf.get_variable("names", [2], dtype=tf.string))

    def dense_twice():
        x = tf.placeholder(tf.float32, [None, 4])
        tf.layers.dense(x, 3, name="fc")
        tf.layers.dense(x, 3, name="fc")

    out["dense_twice"] = error_of(dense_twice)

    with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
        a1 = tf.get_variable("a", [1])
    with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
        a2 = tf.get_variable("a", [1])
    out["auto_reuse_same"] = a1 is a2
    with tf.variable_scope("tower") as scope:
        v1 = tf.get_variable("v", [2])
        scope.reuse_variables()
        v2 = tf.get_variable("v", [2])
        out["reuse_flag"] = tf.get_variable_scope().reuse
    out["reused_same"] = v1 is v2
    with tf.name_scope("ns"):
        nv = tf.get_variable("nv", [1])
        op = tf.add(nv, 1.0, name="plus")
    with tf.variable_scope("vs"):
        vv = tf.get_variable("vv", [1])
        op2 = tf.add(vv, 1.0, name="plus")
        out["scope_name"] = tf.get_variable_scope().name
    out["names"] = [w.name, nv.name, op.name, vv.name, op2.name]
    out["all"] = sorted(v.name for v in tf.global_variables())
    return out
