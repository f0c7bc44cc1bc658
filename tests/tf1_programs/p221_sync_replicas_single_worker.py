"""SyncReplicasOptimizer as the distributed Inception/CIFAR scripts wrapped their optimizer, run on one worker
(replicas_to_aggregate=1, total_num_replicas=1) inside MonitoredTrainingSession with the optimizer's
make_session_run_hook(is_chief=True) and a StopAtStepHook: the losses and global steps per run, the local_step
and accumulator variables it adds, get_chief_queue_runner / get_init_tokens_op types, the final checkpoint in
checkpoint_dir, and the error for apply_gradients called twice."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(221)
    x_np = rng.randn(16, 3).astype(np.float32)
    y_np = x_np @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    step = tf.train.get_or_create_global_step()
    x = tf.constant(x_np)
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y_np))
    opt = tf.train.SyncReplicasOptimizer(
        tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=1, total_num_replicas=1
    )
    grads = opt.compute_gradients(loss)
    train = opt.apply_gradients(grads, global_step=step)
    out = {
        "globals": sorted(v.op.name for v in tf.global_variables()),
        "locals": sorted(v.op.name for v in tf.local_variables()),
        "chief_qr": type(opt.get_chief_queue_runner()).__name__,
        "init_tokens": opt.get_init_tokens_op().type in ("NoOp", "QueueEnqueueManyV2", "QueueEnqueueMany"),
    }
    try:
        opt.apply_gradients(grads, global_step=step)
        out["twice"] = None
    except ValueError as e:
        out["twice"] = type(e).__name__
    ckpt = os.path.join(workdir, "sync")
    hooks = [opt.make_session_run_hook(is_chief=True), tf.train.StopAtStepHook(last_step=6)]
    trace = []
    with tf.train.MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=ckpt, hooks=hooks,
                                           save_summaries_steps=None, save_summaries_secs=None) as sess:  # fmt: skip
        while not sess.should_stop():
            trace.append(sess.run([loss, train, step])[::2])
    out["trace"] = trace
    out["checkpoint"] = os.path.basename(tf.train.latest_checkpoint(ckpt))
    out["restored_w"] = tf.train.load_variable(ckpt, "w")
    return out
