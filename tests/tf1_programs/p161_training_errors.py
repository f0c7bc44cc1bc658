"""Training-setup mistakes and their errors, compared by class and first line: assigning a value of another shape
to a variable, tf.assign to a tensor that is not a variable, apply_gradients whose gradients are all None,
apply_gradients with a gradient of the wrong shape, compute_gradients with a tensor in var_list, a Saver over a
non-variable, ExponentialMovingAverage.apply on an int variable, piecewise_constant with boundaries and values of
mismatched lengths, exponential_decay without a global step, MomentumOptimizer without momentum, and a Variable whose initial value is None; and what works after each (a minimize step)."""

import numpy as np


def _err(tf, fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared by class and first line
        msg = e.message if isinstance(e, tf.errors.OpError) else str(e)
        return [type(e).__name__, msg.strip().split("\n")[0].split(" for '{{node")[0][:100]]


def main(tf, workdir):
    tf.reset_default_graph()
    v = tf.Variable([1.0, 2.0], name="v")
    c = tf.constant(3.0)
    iv = tf.Variable(1, name="counter")
    loss = tf.reduce_sum(tf.square(v))
    opt = tf.train.GradientDescentOptimizer(0.1)
    out = {
        "assign_shape": _err(tf, lambda: tf.assign(v, [1.0, 2.0, 3.0])),
        # (the class only: TF 2's message names its SymbolicTensor class, TF 1's "'Tensor' object has no ...")
        "assign_tensor": _err(tf, lambda: tf.assign(c, 1.0))[0],
        "all_none": _err(tf, lambda: opt.apply_gradients([(None, v)])),
        "grad_shape": _err(tf, lambda: opt.apply_gradients([(tf.ones([3]), v)])),
        "var_list_tensor": _err(tf, lambda: opt.compute_gradients(loss, var_list=[c])),
        "saver_tensor": _err(tf, lambda: tf.train.Saver([c])),
        "ema_int": _err(tf, lambda: tf.train.ExponentialMovingAverage(0.9).apply([iv])),
        "piecewise_lengths": _err(tf, lambda: tf.train.piecewise_constant(tf.constant(1), [1, 2], [0.1, 0.2])),
        # (the class only: TF 1 says "global_step is required for exponential_decay.", TF 2's compat.v1 "None values
        # not supported.")
        "decay_no_step": _err(tf, lambda: tf.train.exponential_decay(0.1, None, 10, 0.9))[0],
        "momentum_missing": _err(tf, lambda: tf.train.MomentumOptimizer(0.1)),
        "initial_none": _err(tf, lambda: tf.Variable(None)),
    }
    step = opt.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["assign_validate_false"] = sess.run(tf.assign(v, [5.0, 6.0, 7.0], validate_shape=False))
        sess.run(tf.assign(v, [1.0, 2.0], validate_shape=False))
        sess.run(step)
        out["after_step"] = sess.run(v)
        try:  # (TF 2's message starts "Graph execution error:")
            sess.run(tf.assign(v, tf.placeholder_with_default(np.zeros(3, np.float32), [None])))
            out["runtime_assign_shape"] = None
        except tf.errors.InvalidArgumentError as e:
            out["runtime_assign_shape"] = "Assign requires shapes of both tensors to match" in e.message
    return out
