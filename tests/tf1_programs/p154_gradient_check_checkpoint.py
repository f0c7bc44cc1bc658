"""Checking hand-written gradients the way TF1 research code did, and object-based checkpoints in a TF1 graph
(TF 1.11+): tf.test.compute_gradient_error of a custom_gradient op (a numerically stable softplus and a
"safe norm"), tf.test.compute_gradient's theoretical / numerical Jacobians (shapes and closeness), gradients of
tf.norm at zero with the safe version, tf.gradients with unconnected_gradients="zero"; then tf.train.Checkpoint
(model=, optimizer=, step=) in graph mode: save(file_prefix, session=), the checkpoint files, restore(path)
.run_restore_ops(session) / assert_consumed() on a new graph, and tf.train.list_variables keys of the file."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}

    @tf.custom_gradient
    def stable_softplus(x):
        y = tf.nn.relu(x) + tf.log1p(tf.exp(-tf.abs(x)))

        def grad(dy):
            return dy * tf.sigmoid(x)

        return y, grad

    @tf.custom_gradient
    def safe_norm(x):
        n = tf.sqrt(tf.reduce_sum(tf.square(x), axis=-1, keepdims=True) + 1e-12)

        def grad(dy):
            return dy * x / n

        return n, grad

    x_np = np.array([[-3.0, 0.5, 2.0], [1.0, -1.0, 0.25]], np.float64)
    x = tf.constant(x_np)
    sp = stable_softplus(x)
    sn = safe_norm(x)
    with tf.Session() as sess:
        out["softplus_err"] = float(tf.test.compute_gradient_error(x, [2, 3], sp, [2, 3], x_init_value=x_np)) < 1e-6
        out["norm_err"] = float(tf.test.compute_gradient_error(x, [2, 3], sn, [2, 1], x_init_value=x_np)) < 1e-6
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], sp, [2, 3], x_init_value=x_np)
        out["jacobian_shapes"] = [list(theoretical.shape), list(numerical.shape)]
        out["jacobian_close"] = bool(np.allclose(theoretical, numerical, atol=1e-6))
        z = tf.zeros([3], tf.float64)
        out["norm_grad_at_zero"] = sess.run(tf.gradients(tf.norm(z), z)[0])
        out["safe_grad_at_zero"] = sess.run(tf.gradients(safe_norm(z), z)[0])
        a = tf.constant(1.0)
        b = tf.constant(2.0)
        out["unconnected_none"] = tf.gradients(a * 2.0, b)[0] is None
        out["unconnected_zero"] = sess.run(tf.gradients(a * 2.0, b, unconnected_gradients="zero")[0])

    # object-based checkpoints in graph mode
    prefix = os.path.join(workdir, "tf_ckpt", "ckpt")
    with tf.Graph().as_default():
        w = tf.Variable([[1.0, 2.0]], name="w")
        step = tf.train.get_or_create_global_step()
        opt = tf.train.AdamOptimizer(0.1)
        train = opt.minimize(tf.reduce_sum(tf.square(w)), global_step=step)
        ckpt = tf.train.Checkpoint(w=w, optimizer=opt, step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            path = ckpt.save(prefix, session=sess)
            out["saved_w"] = sess.run(w)
    out["save_path"] = os.path.basename(path)
    # the checkpoint's files by prefix (tensorweave's data files are its own format, not .index / .data-*)
    out["file_prefixes"] = sorted({f.split(".")[0] for f in os.listdir(os.path.dirname(prefix))})
    out["keys"] = sorted(k for k, _ in tf.train.list_variables(path) if not k.startswith("_CHECKPOINTABLE"))
    out["latest"] = os.path.basename(tf.train.latest_checkpoint(os.path.dirname(prefix)))
    with tf.Graph().as_default():
        w2 = tf.Variable([[0.0, 0.0]], name="other_name")
        step2 = tf.train.get_or_create_global_step()
        opt2 = tf.train.AdamOptimizer(0.1)
        train2 = opt2.minimize(tf.reduce_sum(tf.square(w2)), global_step=step2)
        status = tf.train.Checkpoint(w=w2, optimizer=opt2, step=step2).restore(path)
        with tf.Session() as sess:
            status.run_restore_ops(sess)
            status.assert_consumed()
            out["restored"] = sess.run([w2, step2])
            sess.run(train2)
            out["continued"] = sess.run([w2, step2])
    return out
