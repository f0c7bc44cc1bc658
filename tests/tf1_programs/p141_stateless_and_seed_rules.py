"""Random numbers with the TF1 seed rules that tutorials and Stack Overflow spelled out: only a graph-level
seed (ops numbered by creation), only an op-level seed, both, the same op run twice in a session (different) and in
two sessions (the same), two ops with the same op seed (the same), tf.set_random_seed changing results of ops
created after it in a fresh graph, and the stateless ops (tf.random.stateless_uniform / stateless_normal /
stateless_truncated_normal / stateless_categorical / stateless_random_uniform with int dtype and maxval) whose
values depend only on the seed pair; all values must equal TensorFlow's."""


def main(tf, workdir):
    out = {}
    with tf.Graph().as_default():
        a = tf.random_uniform([3], seed=7)
        b = tf.random_uniform([3], seed=7)
        with tf.Session() as sess:
            out["op_seed_only"] = sess.run([a, b, a])
        with tf.Session() as sess:
            out["op_seed_only_new_session"] = sess.run(a)
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        a = tf.random_uniform([2])
        b = tf.random_normal([2])
        with tf.Session() as sess:
            out["graph_seed_only"] = sess.run([a, b, a])
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        _ = tf.constant(1.0)
        a = tf.random_uniform([2])
        with tf.Session() as sess:
            out["graph_seed_after_other_op"] = sess.run(a)
    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        a = tf.random_uniform([2], seed=1)
        b = tf.random_normal([2], seed=1)
        c = tf.truncated_normal([4], seed=2, dtype=tf.float64)
        d = tf.random_uniform([3], maxval=10, dtype=tf.int32, seed=3)
        with tf.Session() as sess:
            out["both"] = sess.run([a, b, c, d])
    with tf.Graph().as_default():
        seed = tf.constant([1, 2], dtype=tf.int64)
        ops = {
            "uniform": tf.random.stateless_uniform([2, 3], seed=[1, 2]),
            "uniform_t": tf.random.stateless_uniform([2, 3], seed=seed),
            "uniform_range": tf.random.stateless_uniform([4], seed=[3, 4], minval=-2.0, maxval=2.0),
            "uniform_int": tf.random.stateless_uniform([5], seed=[5, 6], minval=0, maxval=100, dtype=tf.int32),
            "normal": tf.random.stateless_normal([3], seed=[7, 8], mean=1.0, stddev=0.5),
            "normal64": tf.random.stateless_normal([2], seed=[7, 8], dtype=tf.float64),
            "truncated": tf.random.stateless_truncated_normal([4], seed=[9, 10]),
            "categorical": tf.random.stateless_categorical([[0.0, 1.0, 2.0]], 6, seed=[11, 12]),
        }
        placeholder_seed = tf.placeholder(tf.int32, [2])
        fed = tf.random.stateless_normal([2], seed=placeholder_seed)
        with tf.Session() as sess:
            out["stateless"] = sess.run(ops)
            out["stateless_again"] = sess.run(ops["uniform"])
            out["stateless_fed"] = [
                sess.run(fed, {placeholder_seed: [1, 2]}),
                sess.run(fed, {placeholder_seed: [2, 1]}),
            ]
        out["stateless_dtypes"] = {k: v.dtype.name for k, v in ops.items()}
        out["stateless_shapes"] = {k: v.shape.as_list() for k, v in ops.items()}
        for name, call in (
            ("bad_seed_shape", lambda: tf.random.stateless_uniform([2], seed=[1, 2, 3])),
            ("int_without_maxval", lambda: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)),
        ):
            try:
                call()
                out[name] = None
            except (ValueError, TypeError) as e:
                out[name] = type(e).__name__
    return out
