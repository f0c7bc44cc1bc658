"""Training-loop tricks of 2018 research code without tf.contrib: a linear learning-rate warmup chosen by
tf.cond on the global step before an exponential decay, and gradient accumulation over k minibatches in
non-trainable tf.Variable accumulators (assign_add per minibatch, apply_gradients of the mean, then zeroing),
with tf.train.AdamOptimizer; learning rates, losses, accumulator and weight values each step."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(77)
    rng = np.random.RandomState(77)
    xs = rng.randn(12, 5).astype(np.float32)
    ys = (xs @ rng.randn(5, 1) + 0.1).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5])
    y = tf.placeholder(tf.float32, [None, 1])
    pred = tf.layers.dense(tf.layers.dense(x, 4, activation=tf.nn.tanh, name="h"), 1, name="out")
    loss = tf.losses.mean_squared_error(y, pred)
    global_step = tf.train.get_or_create_global_step()
    warmup_steps, base_lr = 3, 0.05
    step_f = tf.cast(global_step, tf.float32)
    lr = tf.cond(
        global_step < warmup_steps,
        lambda: base_lr * (step_f + 1.0) / warmup_steps,
        lambda: tf.train.exponential_decay(base_lr, global_step - warmup_steps, 2, 0.5, staircase=True),
        name="learning_rate",
    )
    opt = tf.train.AdamOptimizer(lr)
    tvars = tf.trainable_variables()
    accums = [
        tf.Variable(tf.zeros_like(v.initialized_value()), trainable=False, name=v.op.name.replace("/", "_") + "_acc")
        for v in tvars
    ]
    grads = tf.gradients(loss, tvars)
    accumulate = tf.group(*[a.assign_add(g) for a, g in zip(accums, grads)], name="accumulate")
    k = 3
    apply = opt.apply_gradients([(a / k, v) for a, v in zip(accums, tvars)], global_step=global_step)
    with tf.control_dependencies([apply]):
        zero = tf.group(*[a.assign(tf.zeros_like(a)) for a in accums], name="zero_accums")
    out = {
        "accums": [(a.op.name, a.shape.as_list(), a.trainable) for a in accums],
        "lr_op": [lr.op.type, lr.name],
        "n_trainable": len(tf.trainable_variables()),
        "lrs": [],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for update in range(6):
            for i in range(k):
                lo = (update * k + i) % 4 * 3
                sess.run(accumulate, {x: xs[lo : lo + 3], y: ys[lo : lo + 3]})
            acc_norm = sess.run(tf.add_n([tf.reduce_sum(tf.abs(a)) for a in accums]))
            out["lrs"].append(sess.run(lr))
            sess.run(zero)
            out["losses"].append([acc_norm, sess.run(loss, {x: xs, y: ys}), sess.run(global_step)])
        out["after_zero"] = sess.run(accums[0])
        out["weights"] = sess.run(tvars[-2])
    return out
