"""Quantization-aware training as TF1 code did it by hand (before tf.contrib.quantize rewrote graphs): weights
through tf.quantization.fake_quant_with_min_max_vars with min/max variables, activations through
fake_quant_with_min_max_args(num_bits=8, narrow_range), per-channel fake quant, their straight-through
gradients (zero outside the range, for the inputs and the min/max variables), and the quantization error of the
trained weights."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(98)
    xs = rng.randn(16, 3).astype(np.float32)
    ys = (xs @ np.array([[0.5], [-1.0], [2.0]], np.float32) + 0.1).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(rng.randn(3, 4).astype(np.float32) * 0.5, name="w")
    w_min = tf.Variable(-1.0, name="w_min")
    w_max = tf.Variable(1.0, name="w_max")
    wq = tf.quantization.fake_quant_with_min_max_vars(w, w_min, w_max, num_bits=8, name="wq")
    h = tf.quantization.fake_quant_with_min_max_args(
        tf.nn.relu(tf.matmul(x, wq)), min=0.0, max=6.0, num_bits=8, narrow_range=True
    )
    w2 = tf.Variable(rng.randn(4, 1).astype(np.float32) * 0.5, name="w2")
    w2q = tf.fake_quant_with_min_max_vars_per_channel(w2, [-1.5], [1.5], num_bits=4)
    pred = tf.matmul(h, w2q)
    loss = tf.reduce_mean(tf.square(pred - y))
    opt = tf.train.GradientDescentOptimizer(0.05)
    grads = opt.compute_gradients(loss)
    train = opt.apply_gradients(grads)
    out = {
        "names": [wq.name, h.name, w2q.name],
        "grad_vars": [(v.op.name, g is not None) for g, v in grads],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: xs, y: ys}
        for _ in range(8):
            out["losses"].append(sess.run([loss, train], feed)[0])
        out["w_range"] = sess.run([w_min, w_max])
        w_np = sess.run(w)
        out["wq"] = sess.run(wq)
        out["fq_args"] = sess.run(
            tf.quantization.fake_quant_with_min_max_args([-0.3, 0.0, 0.37, 1.0, 6.2], min=-0.5, max=1.5, num_bits=4)
        )
        out["fq_grad"] = sess.run(
            tf.gradients(
                tf.reduce_sum(
                    tf.quantization.fake_quant_with_min_max_args(tf.constant([-2.0, 0.5, 3.0]), min=-1.0, max=1.0)
                ),
                [],
            )[0]
            if False
            else tf.gradients(tf.reduce_sum(tf.quantization.fake_quant_with_min_max_args(x, min=-1.0, max=1.0)), x)[0],
            {x: xs[:2] * 2},
        )
        out["max_err_ok"] = bool(np.abs(out["wq"] - w_np).max() <= 2.0 / 255 + 1e-6)
    return out
