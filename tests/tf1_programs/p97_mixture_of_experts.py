"""A mixture-of-experts layer as 2017 TF1 research code wrote it without tf.contrib: a gating network's top-1
expert per example (tf.argmax), examples routed with tf.dynamic_partition, each expert a small dense net of
its own variables, outputs put back in order with tf.dynamic_stitch of the partitioned indices, a load-balancing
loss from tf.unsorted_segment_sum counts, tf.accumulate_n / tf.add_n of expert losses, and training with
gradients flowing through the partition (zero-example experts included)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(97)
    n_experts, d_in, d_out = 3, 4, 2
    xs = rng.randn(10, d_in).astype(np.float32)
    ys = rng.randn(10, d_out).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, d_in], name="x")
    y = tf.placeholder(tf.float32, [None, d_out], name="y")
    wg = tf.Variable(rng.randn(d_in, n_experts).astype(np.float32) * 0.5, name="gate_w")
    gate_logits = tf.matmul(x, wg)
    gates = tf.nn.softmax(gate_logits)
    expert = tf.cast(tf.argmax(gates, axis=1), tf.int32)
    idx = tf.range(tf.shape(x)[0])
    parts = tf.dynamic_partition(x, expert, n_experts)
    part_idx = tf.dynamic_partition(idx, expert, n_experts)
    part_gate = tf.dynamic_partition(tf.reduce_max(gates, 1), expert, n_experts)
    outs = []
    for e in range(n_experts):
        with tf.variable_scope(f"expert_{e}"):
            w = tf.get_variable(
                "w", [d_in, d_out], initializer=tf.constant_initializer(rng.randn(d_in, d_out).astype(np.float32) * 0.3)
            )
            b = tf.get_variable("b", [d_out], initializer=tf.zeros_initializer())
            outs.append(tf.expand_dims(part_gate[e], 1) * tf.nn.relu6(tf.matmul(parts[e], w) + b))
    combined = tf.dynamic_stitch(part_idx, outs, name="combine")
    counts = tf.unsorted_segment_sum(tf.ones_like(expert, tf.float32), expert, n_experts)
    importance = tf.reduce_sum(gates, 0)
    mean, var = tf.nn.moments(importance, [0])
    balance = var / (tf.square(mean) + 1e-10)
    expert_losses = [tf.reduce_sum(tf.square(o)) * 1e-3 for o in outs]
    reg = tf.accumulate_n(expert_losses)
    loss = tf.losses.mean_squared_error(y, combined) + 0.1 * balance + tf.add_n([reg, 0.0 * reg])
    opt = tf.train.GradientDescentOptimizer(0.2)
    grads = opt.compute_gradients(loss)
    train = opt.apply_gradients(grads)
    out = {
        "shapes": [t.shape.as_list() for t in parts + part_idx + [combined, counts]],
        "names": [combined.name, parts[0].name, parts[2].name, part_idx[1].name, counts.name],
        "grad_none": [g is None for g, _ in grads],
        "steps": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: xs, y: ys}
        out["assign"] = sess.run(expert, feed)
        out["parts0"] = sess.run(parts[0], feed)
        for _ in range(6):
            out["steps"].append(sess.run([loss, counts, balance, train], feed)[:3])
        out["combined"] = sess.run(combined, feed)
        out["empty_expert"] = sess.run([tf.shape(p)[0] for p in parts], {x: xs[:1], y: ys[:1]})
        out["stitch_merge"] = sess.run(tf.dynamic_stitch([[0, 1], [1, 2]], [[10.0, 20.0], [30.0, 40.0]]))
        try:
            sess.run(tf.dynamic_partition([1, 2, 3], [0, 5, 1], 2))
        except tf.errors.InvalidArgumentError as e:
            out["bad_partition"] = ("InvalidArgumentError", "partitions[1] = 5 is not in [0, 2)" in e.message)
    return out
