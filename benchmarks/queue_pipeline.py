"""Queue costs: one enqueue + dequeue step pair of a FIFOQueue (scalar element), an enqueue_many + dequeue_many
of 128 x 32 float rows (both timed interleaved), and the throughput of a running shuffle_batch pipeline
(slice_input_producer + 2 queue-runner threads filling a RandomShuffleQueue, batch 64), measured for each system
alone (its runner threads would otherwise fill its queue while the other system is timed), in tensorweave and
TensorFlow's compat.v1 Session, in one run.

  python benchmarks/queue_pipeline.py [--rounds 15]
"""

import argparse
import os
import statistics
import time

import numpy as np
from harness import report, time_interleaved


def build(tf, sess_config):
    cases = {}
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(1000, tf.float32, shapes=[[]])
        enq, deq = q.enqueue(1.0), q.dequeue()
        rows = tf.FIFOQueue(1000, tf.float32, shapes=[[32]])
        batch = tf.constant(np.ones((128, 32), np.float32))
        enq_many, deq_many = rows.enqueue_many([batch]), rows.dequeue_many(128)
        data = tf.constant(np.random.RandomState(0).randn(1024, 32).astype(np.float32))
        row = tf.train.slice_input_producer([data], shuffle=True, seed=1)[0]
        shuffled = tf.train.shuffle_batch([row], 64, capacity=2000, min_after_dequeue=500, num_threads=2, seed=1)
        sess = tf.Session(graph=g, config=sess_config)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)

        def pair():
            sess.run(enq)
            sess.run(deq)

        def many():
            sess.run(enq_many)
            sess.run(deq_many)

        cases["enqueue+dequeue (scalar)"] = pair
        cases["enqueue_many+dequeue_many"] = many
        pipeline = sess.make_callable(shuffled)

    def stop():
        coord.request_stop()  # the runners' close_on_stop threads cancel the waiting enqueues
        coord.join(threads, stop_grace_period_secs=5, ignore_live_threads=True)
        sess.close()

    def pipeline_seconds_per_batch(batches=200, repeats=3):
        for _ in range(20):
            pipeline()
        best = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(batches):
                pipeline()
            best.append((time.perf_counter() - t0) / batches)
        return statistics.median(best)

    return cases, stop, pipeline_seconds_per_batch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    import tensorweave as tw

    fns, stops, pipelines = {}, [], {}
    tw_cases, tw_stop, tw_pipeline = build(
        tw, tw.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    )
    stops.append(tw_stop)
    pipelines["tensorweave"] = tw_pipeline
    for name, fn in tw_cases.items():
        fns[(name, "tensorweave")] = fn
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        tf_cases, tf_stop, tf_pipeline = build(
            tf, tf.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        )
        stops.append(tf_stop)
        pipelines["tensorflow"] = tf_pipeline
        for name, fn in tf_cases.items():
            fns[(name, "tensorflow")] = fn
    except ImportError:
        pass
    times = time_interleaved(fns, rounds=args.rounds)
    rows = {}
    for (case, system), t in times.items():
        rows.setdefault(case, {})[system] = t
    for system, measure in pipelines.items():
        rows.setdefault("shuffle_batch batch (64)", {})[system] = measure()
    report("queue steps (median per call)", rows, ["tensorflow"])
    for stop in stops:
        stop()


if __name__ == "__main__":
    main()
