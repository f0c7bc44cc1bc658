"""Session configuration as TF1 scripts wrote it: ConfigProto(allow_soft_placement, log_device_placement,
gpu_options.allow_growth, intra/inter op threads), tf.device scopes (a GPU asked for softly on a CPU-only run),
RunOptions / RunMetadata tracing, sess.list_devices, tf.test.is_gpu_available, fetch structures."""

import collections

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.4
    config.intra_op_parallelism_threads = 2
    config.inter_op_parallelism_threads = 2
    with tf.device("/cpu:0"):
        a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
    with tf.device("/device:GPU:0" if not tf.test.is_gpu_available() else "/cpu:0"):
        b = tf.matmul(a, a, name="b")
    with tf.device(None):
        c = tf.reduce_sum(b, name="c")
    Pair = collections.namedtuple("Pair", ["first", "second"])
    with tf.Session(config=config) as sess:
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        metadata = tf.RunMetadata()
        v = sess.run(c, options=options, run_metadata=metadata)
        traced = len(metadata.step_stats.dev_stats) > 0
        fetched = sess.run({"b": b, "pair": Pair(a, c), "list": [c, (a,)]})
        op_fetch = sess.run([b.op, c])
        devices = [d.device_type for d in sess.list_devices()]
        by_name = sess.run("c:0")
        by_op_name = sess.run(["b:0", "a"])
    return {
        "v": v,
        "traced": traced,
        "b": fetched["b"],
        "pair_type": type(fetched["pair"]).__name__,
        "pair": [fetched["pair"].first, fetched["pair"].second],
        "list": [fetched["list"][0], fetched["list"][1][0]],
        "list_types": [type(fetched["list"]).__name__, type(fetched["list"][1]).__name__],
        "op_fetch": op_fetch,
        "has_cpu": "CPU" in devices,
        "by_name": by_name,
        "by_op_name": [by_op_name[0], by_op_name[1]],
        "device_attrs": [a.device, a.op.device],
        "config": [config.allow_soft_placement, config.gpu_options.allow_growth, config.intra_op_parallelism_threads],
    }
