"""Variable handling and checkpoint utilities as TF1 code used them: assign with validate_shape=False, a Variable
with a constraint applied after each step, local/model/trainable collections, tf.train.list_variables and
load_variable, NewCheckpointReader, init_from_checkpoint with a scope mapping, Saver with var_list dicts,
max_to_keep and checkpoint_state, restore into a renamed variable, and tf.train.warm_start."""

import os

import numpy as np


def main(tf, workdir):
    out = {}
    tf.reset_default_graph()
    tf.set_random_seed(47)
    with tf.variable_scope("enc"):
        w = tf.get_variable("w", [4, 3], constraint=lambda t: tf.clip_by_norm(t, 1.0, axes=[0]))
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    counter = tf.get_local_variable("counter", [], dtype=tf.int64, initializer=tf.zeros_initializer())
    grow = tf.Variable([1.0, 2.0], validate_shape=False, name="grow")
    grow_op = tf.assign(grow, tf.concat([grow, [3.0]], 0), validate_shape=False)
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - 1.0))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    step = tf.assign_add(counter, 1)
    out["collections"] = {
        "global": sorted(v.op.name for v in tf.global_variables()),
        "local": sorted(v.op.name for v in tf.local_variables()),
        "trainable": sorted(v.op.name for v in tf.trainable_variables()),
    }
    project = tf.assign(w, w.constraint(w))  # what Keras-style constrained training runs after each step
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        paths = []
        for i in range(3):
            sess.run([train, step])
            sess.run(project)
            paths.append(saver.save(sess, os.path.join(workdir, "m"), global_step=i))
        out["grow"] = sess.run(grow_op)
        out["w_norms"] = np.linalg.norm(sess.run(w), axis=0)
        out["counter"] = sess.run(counter)
        out["loss"] = sess.run(loss)
    state = tf.train.get_checkpoint_state(workdir)
    out["kept"] = [os.path.basename(p) for p in state.all_model_checkpoint_paths]
    out["latest"] = os.path.basename(tf.train.latest_checkpoint(workdir))
    last = tf.train.latest_checkpoint(workdir)
    out["listed"] = sorted(n for n, _ in tf.train.list_variables(last))
    out["shapes"] = {n: s for n, s in tf.train.list_variables(last)}
    out["loaded_b"] = tf.train.load_variable(last, "enc/b")
    reader = tf.train.NewCheckpointReader(last)
    out["reader_has"] = [reader.has_tensor("enc/w"), reader.has_tensor("nope")]
    out["reader_map"] = sorted(reader.get_variable_to_shape_map())

    tf.reset_default_graph()
    with tf.variable_scope("dec"):
        w2 = tf.get_variable("w", [4, 3])
        b2 = tf.get_variable("b", [3])
    tf.train.init_from_checkpoint(last, {"enc/": "dec/"})
    renamed = tf.Variable(tf.zeros([3]), name="renamed")
    restorer = tf.train.Saver({"enc/b": renamed})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restorer.restore(sess, last)
        out["init_from"] = sess.run([w2, b2, renamed])
    return out
