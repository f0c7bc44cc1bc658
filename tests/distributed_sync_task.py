"""A task of tests/test_sync_replicas.py's multi-process test: synchronous between-graph training of the digits
model of examples/distributed/train_digits_async.py with tw.train.SyncReplicasOptimizer on a local cluster
(TW_CONFIG from the launcher). Every worker builds its own graph; the accumulators and the token queue live on
the parameter server; worker 0 is the chief (it initializes and runs the chief's queue runner).

  python tests/distributed_sync_task.py --steps 150 --aggregate 2 [--slow_worker 2 --slow_seconds 0.05]
      [--checkpoint PREFIX]

Each worker prints `STEPS <its train runs>` and `ACCURACY <test accuracy>`.
"""

import argparse
import os
import sys
import time

import tensorweave as tw
from tensorweave.distributed import cluster_resolver

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "distributed"))
import train_digits_async as digits


def build(cluster, task_index, aggregate, total, lr=0.1, hidden=64):
    device = tw.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task_index}")
    with tw.device(device):
        tw.set_random_seed(7)
        x = tw.placeholder(tw.float32, [None, 64], name="x")
        y = tw.placeholder(tw.int64, [None], name="y")
        w1 = tw.Variable(tw.random_normal([64, hidden], stddev=0.1, seed=1), name="w1")
        b1 = tw.Variable(tw.zeros([hidden]), name="b1")
        w2 = tw.Variable(tw.random_normal([hidden, 10], stddev=0.1, seed=2), name="w2")
        b2 = tw.Variable(tw.zeros([10]), name="b2")
        global_step = tw.Variable(0, dtype=tw.int64, trainable=False, name="global_step")
        logits = tw.matmul(tw.nn.relu(tw.matmul(x, w1) + b1), w2) + b2
        loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        opt = tw.train.SyncReplicasOptimizer(
            tw.train.GradientDescentOptimizer(lr), replicas_to_aggregate=aggregate, total_num_replicas=total
        )
        train = opt.minimize(loss, global_step=global_step)
        accuracy = tw.reduce_mean(tw.cast(tw.equal(tw.argmax(logits, 1), y), tw.float32))
        init = tw.global_variables_initializer()
        ready = tw.reduce_all(tw.stack([tw.is_variable_initialized(v) for v in (w1, b1, w2, b2, global_step)]))
        local_init = tw.local_variables_initializer()
        release = opt.get_init_tokens_op(num_tokens=total)  # the chief frees waiting workers when it stops
        saver = tw.train.Saver(sharded=True)  # a shard per ps task, written by that task
    return locals()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--aggregate", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--slow_worker", type=int, default=-1)
    p.add_argument("--slow_seconds", type=float, default=0.0)
    p.add_argument("--checkpoint", default="", help="the chief saves a sharded checkpoint here at the end")
    a = p.parse_args()
    task = cluster_resolver()
    server = tw.train.Server(task.cluster, task.task_type, task.task_id)
    if task.task_type == "ps":
        server.join()
        return
    total = task.cluster.num_tasks("worker")
    (xtr, ytr), (xte, yte) = digits.load_digits()
    xtr, ytr = xtr[task.task_id :: total], ytr[task.task_id :: total]
    with tw.Graph().as_default():
        m = build(task.cluster, task.task_id, a.aggregate, total)
        opt = m["opt"]
        with tw.Session(server.target) as sess:
            coord = tw.train.Coordinator()
            if task.is_chief:
                sess.run(m["init"])
                sess.run(m["local_init"])
                sess.run(opt.chief_init_op)
                sess.run(opt.get_init_tokens_op())
                threads = opt.get_chief_queue_runner().create_threads(sess, coord=coord, daemon=True, start=True)
            else:
                while not sess.run(m["ready"]):
                    time.sleep(0.1)
                sess.run(m["local_init"])
                sess.run(opt.local_step_init_op)
            import numpy as np

            rng = np.random.default_rng(task.task_id)
            runs = 0
            # The global step is read after the train run: its token comes after the step's update.
            while sess.run(m["global_step"]) < a.steps:
                if task.task_id == a.slow_worker:
                    time.sleep(a.slow_seconds)
                idx = rng.integers(0, len(xtr), a.batch)
                sess.run(m["train"], {m["x"]: xtr[idx], m["y"]: ytr[idx]})
                runs += 1
            accuracy = float(sess.run(m["accuracy"], {m["x"]: xte, m["y"]: yte}))
            if task.is_chief:
                if a.checkpoint:
                    print("SAVED", m["saver"].save(sess, a.checkpoint, global_step=m["global_step"]), flush=True)
                sess.run(m["release"])
                coord.request_stop()
                del threads
            print("STEPS", runs, flush=True)
            print("ACCURACY", accuracy, flush=True)
    os._exit(0)  # the chief's queue runner may still wait in take_grad on the ps


if __name__ == "__main__":
    main()
