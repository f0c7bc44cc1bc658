"""tf.app.flags / tf.flags definitions parsed from an argv, tf.logging verbosity and messages, tf.app.run-style
main, tf.set_random_seed determinism within one system."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    flags = tf.app.flags
    FLAGS = flags.FLAGS
    suffix = "_p21"
    flags.DEFINE_integer("batch_size" + suffix, 32, "Batch size.")
    flags.DEFINE_float("learning_rate" + suffix, 0.01, "Initial learning rate.")
    flags.DEFINE_string("data_dir" + suffix, "/tmp/data", "Where the data is.")
    flags.DEFINE_boolean("fake_data" + suffix, False, "Use fake data.")
    tf.flags.DEFINE_enum("mode" + suffix, "train", ["train", "eval"], "Mode.")
    tf.app.flags.DEFINE_list("layers" + suffix, "64,32", "Hidden layer sizes.")
    rest = FLAGS(["prog", "--batch_size_p21=8", "--fake_data_p21", "--mode_p21=eval", "--layers_p21=5,6,7", "extra"])
    got = [
        FLAGS.batch_size_p21,
        FLAGS.learning_rate_p21,
        FLAGS.data_dir_p21,
        FLAGS.fake_data_p21,
        FLAGS.mode_p21,
        FLAGS.layers_p21,
    ]
    bad = None
    try:
        FLAGS(["prog", "--batch_size_p21=abc"])
    except Exception as e:  # noqa: BLE001 - compared by class family
        bad = isinstance(e, (ValueError, SystemExit)) or type(e).__name__
    old = tf.logging.get_verbosity()
    tf.logging.set_verbosity(tf.logging.ERROR)
    tf.logging.info("hidden %d", 1)
    tf.logging.warning("hidden too")
    verbosity = tf.logging.get_verbosity()
    tf.logging.set_verbosity(old)
    levels = [tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL]

    tf.set_random_seed(1234)
    r1 = tf.random_normal([3], seed=7)
    r2 = tf.random_uniform([2, 2])
    with tf.Session() as s1:
        a1, b1 = s1.run([r1, r2])
        a1b = s1.run(r1)
    with tf.Session() as s2:
        a2, b2 = s2.run([r1, r2])
    return {
        "got": got,
        "rest": rest,
        "bad": bad,
        "verbosity": verbosity,
        "levels": levels,
        "same_in_new_session": bool(np.array_equal(a1, a2) and np.array_equal(b1, b2)),
        "changes_per_run": bool(not np.array_equal(a1, a1b)),
        "rand_shapes": [r1.shape.as_list(), r2.shape.as_list()],
        "uniform_range": bool(np.all((b1 >= 0) & (b1 < 1))),
    }
