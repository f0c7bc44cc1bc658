"""Learning-rate schedules driven by the global step as TF1 training scripts set them up: exponential_decay
(staircase and smooth), natural_exp_decay, polynomial_decay with cycle=True, cosine_decay, cosine_decay_restarts,
linear_cosine_decay (noise-free), piecewise_constant with float boundaries cast from int64 steps, each read
while MomentumOptimizer(use_nesterov=True) trains a small model with the decayed rate and increments the step;
tf.summary.scalar of the rate and the step's dtype and name."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(65)
    xs = rng.randn(16, 3).astype(np.float32)
    ys = (xs @ np.array([1.0, -1.0, 2.0], np.float32))[:, None]
    gs = tf.train.get_or_create_global_step()
    schedules = {
        "exp_stair": tf.train.exponential_decay(0.1, gs, 3, 0.5, staircase=True),
        "exp": tf.train.exponential_decay(0.1, gs, 3, 0.5),
        "natural": tf.train.natural_exp_decay(0.1, gs, 2, 0.3),
        "poly_cycle": tf.train.polynomial_decay(0.1, gs, 4, end_learning_rate=0.01, power=2.0, cycle=True),
        "cosine": tf.train.cosine_decay(0.1, gs, 8, alpha=0.1),
        "restarts": tf.train.cosine_decay_restarts(0.1, gs, 3, t_mul=2.0, m_mul=0.5),
        "linear_cosine": tf.train.linear_cosine_decay(0.1, gs, 8),
        "piecewise": tf.train.piecewise_constant(gs, [2, 5], [0.1, 0.05, 0.01]),
        "inverse": tf.train.inverse_time_decay(0.1, gs, 2, 0.5, staircase=True),
    }
    x = tf.constant(xs)
    w = tf.Variable(np.zeros([3, 1], np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - ys))
    opt = tf.train.MomentumOptimizer(schedules["exp_stair"], 0.9, use_nesterov=True)
    train = opt.minimize(loss, global_step=gs)
    summ = tf.summary.scalar("learning_rate", schedules["exp_stair"])
    out = {
        "gs": [gs.op.name, gs.dtype.base_dtype.name],
        "rate_dtypes": {k: v.dtype.name for k, v in schedules.items()},
        "summary_name": summ.op.name,
        "slot": opt.get_slot(w, "momentum").op.name,
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        rates, losses = [], []
        for _ in range(10):
            rates.append(sess.run(schedules))
            losses.append(sess.run([loss, train])[0])
        out["rates"] = {k: [r[k] for r in rates] for k in schedules}
        out["losses"] = losses
        out["final_step"] = sess.run(gs)
    return out
