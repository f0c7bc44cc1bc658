"""Learning-rate schedules printed over training steps, as tutorials plotted them: exponential_decay (staircase),
natural_exp_decay, inverse_time_decay, polynomial_decay (power and cycle), piecewise_constant with an int64 global
step and with int32 boundaries, cosine_decay (alpha), cosine_decay_restarts (t_mul, m_mul), linear_cosine_decay,
a warmup built from tf.cond, the schedule driving MomentumOptimizer through a global step incremented by
minimize, and the errors for mismatched boundaries/values and a missing global step."""


def main(tf, workdir):
    tf.reset_default_graph()
    step = tf.train.get_or_create_global_step()
    s32 = tf.placeholder(tf.int32, [])
    lrs = {
        "exp": tf.train.exponential_decay(0.1, step, 3, 0.5),
        "exp_stair": tf.train.exponential_decay(0.1, step, 3, 0.5, staircase=True),
        "natural": tf.train.natural_exp_decay(0.1, step, 2, 0.3),
        "natural_stair": tf.train.natural_exp_decay(0.1, step, 2, 0.3, staircase=True),
        "inverse": tf.train.inverse_time_decay(0.1, step, 2, 0.5),
        "poly": tf.train.polynomial_decay(0.1, step, 5, 0.01, power=2.0),
        "poly_cycle": tf.train.polynomial_decay(0.1, step, 4, 0.01, cycle=True),
        "piecewise": tf.train.piecewise_constant(
            step, [tf.constant(2, tf.int64), tf.constant(5, tf.int64)], [1.0, 0.5, 0.1]
        ),
        "piecewise32": tf.train.piecewise_constant(s32, [3, 6], [0.3, 0.2, 0.1]),
        "cosine": tf.train.cosine_decay(0.1, step, 8, alpha=0.1),
        "restarts": tf.train.cosine_decay_restarts(0.1, step, 3, t_mul=2.0, m_mul=0.5),
        "linear_cosine": tf.train.linear_cosine_decay(0.1, step, 8),
    }
    warm = tf.cond(step < 3, lambda: 0.1 * tf.cast(step + 1, tf.float32) / 3.0, lambda: lrs["exp"])
    w = tf.Variable([1.0, -2.0])
    loss = tf.reduce_sum(tf.square(w))
    train = tf.train.MomentumOptimizer(warm, 0.9).minimize(loss, global_step=step)
    out = {
        "dtypes": {k: v.dtype.name for k, v in lrs.items()},
        "names": {k: v.op.name for k, v in lrs.items() if "piecewise" not in k},
    }
    # (TF's piecewise_constant ends in a tf.case's Merge, an implementation detail)
    errors = []
    for build in (
        lambda: tf.train.piecewise_constant(step, [2, 5], [1.0, 0.5]),
        lambda: tf.train.exponential_decay(0.1, None, 3, 0.5),
        lambda: tf.train.piecewise_constant(step, [2.0], [1, 2]),
    ):
        try:
            build()
            errors.append(None)
        except (ValueError, TypeError) as e:
            errors.append(type(e).__name__)
    out["errors"] = errors
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        trace = []
        for i in range(10):
            values = sess.run(lrs, {s32: i})
            values["warm"], values["loss"], values["step"] = sess.run([warm, loss, step])
            trace.append(values)
            sess.run(train)
        out["trace"] = trace
        out["w"] = sess.run(w)
    return out
