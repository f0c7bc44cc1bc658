"""Asynchronous between-graph training of a softmax-regression/MLP digits classifier on a tensorweave
cluster: parameter servers hold the variables (`tw.train.replica_device_setter`), every worker builds its own
graph and trains on its own shard of the data through its own server's master.

Each task reads its role from TW_CONFIG (set by the launcher, Kubernetes or Slurm, see this directory):

  python -m tensorweave.distributed.launch --ps 1 --workers 2 examples/distributed/train_digits_async.py

Each worker trains in a `MonitoredTrainingSession` (worker 0, the chief, initializes the variables; the others
wait for them) until the global step reaches --steps, then prints the test accuracy as `ACCURACY <value>`.
"""

import argparse
import sys
import time

import numpy as np

import tensorweave as tw
from tensorweave.distributed import cluster_resolver


def load_digits():
    from sklearn.datasets import load_digits as sk_load_digits

    d = sk_load_digits()
    x = (d.data.astype(np.float32) / 16.0).reshape(-1, 64)
    y = d.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def build(cluster, task_index, hidden=64, lr=0.1):
    """The model on the cluster: variables on the ps tasks, the rest on this worker."""
    device = None
    if cluster is not None:
        device = tw.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task_index}")
    with tw.device(device):
        tw.set_random_seed(7)
        x = tw.placeholder(tw.float32, [None, 64], name="x")
        y = tw.placeholder(tw.int64, [None], name="y")
        w1 = tw.Variable(tw.random_normal([64, hidden], stddev=0.1, seed=1), name="w1")
        b1 = tw.Variable(tw.zeros([hidden]), name="b1")
        w2 = tw.Variable(tw.random_normal([hidden, 10], stddev=0.1, seed=2), name="w2")
        b2 = tw.Variable(tw.zeros([10]), name="b2")
        global_step = tw.train.get_or_create_global_step()
        logits = tw.matmul(tw.nn.relu(tw.matmul(x, w1) + b1), w2) + b2
        loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tw.train.GradientDescentOptimizer(lr).minimize(loss, global_step=global_step)
        accuracy = tw.reduce_mean(tw.cast(tw.equal(tw.argmax(logits, 1), y), tw.float32))
        init = tw.global_variables_initializer()
        ready = tw.reduce_all(tw.stack([tw.is_variable_initialized(v) for v in (w1, b1, w2, b2, global_step)]))
    return {
        "x": x,
        "y": y,
        "loss": loss,
        "train": train,
        "accuracy": accuracy,
        "init": init,
        "ready": ready,
        "global_step": global_step,
    }


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300, help="global steps to train for (all workers together)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--plain", action="store_true", help="plain sessions instead of MonitoredTrainingSession")
    a = p.parse_args(argv)
    task = cluster_resolver()
    if task is None:
        sys.exit("TW_CONFIG is not set: start this script with python -m tensorweave.distributed.launch")
    server = tw.train.Server(task.cluster, task.task_type, task.task_id)
    if task.task_type == "ps":
        server.join()
        return
    num_workers = task.cluster.num_tasks("worker")
    (xtr, ytr), (xte, yte) = load_digits()
    xtr, ytr = xtr[task.task_id :: num_workers], ytr[task.task_id :: num_workers]  # this worker's shard
    with tw.Graph().as_default():
        m = build(task.cluster, task.task_id)
        if a.plain:  # a plain session: the chief initializes, the others wait until it has
            with tw.Session(server.target) as sess:
                if task.is_chief:
                    sess.run(m["init"])
                else:
                    while not sess.run(m["ready"]):
                        time.sleep(0.1)
                print("ACCURACY", train(sess, m, xtr, ytr, xte, yte, a.steps, a.batch, seed=task.task_id), flush=True)
            return
        # The chief's MonitoredTrainingSession initializes the variables on the ps; the others wait for them.
        hooks = [tw.train.StopAtStepHook(last_step=a.steps)]
        rng = np.random.default_rng(task.task_id)
        with tw.train.MonitoredTrainingSession(master=server.target, is_chief=task.is_chief, hooks=hooks) as sess:
            while not sess.should_stop():
                idx = rng.integers(0, len(xtr), a.batch)
                sess.run(m["train"], {m["x"]: xtr[idx], m["y"]: ytr[idx]})
        with tw.Session(server.target) as sess:  # the trained variables live on the ps
            print("ACCURACY", float(sess.run(m["accuracy"], {m["x"]: xte, m["y"]: yte})), flush=True)


def train(sess, m, xtr, ytr, xte, yte, steps, batch, seed=0):
    """Runs train steps until the global step reaches `steps`; the test accuracy then."""
    rng = np.random.default_rng(seed)
    step = 0
    while step < steps:
        idx = rng.integers(0, len(xtr), batch)
        _, step = sess.run([m["train"], m["global_step"]], {m["x"]: xtr[idx], m["y"]: ytr[idx]})
    return float(sess.run(m["accuracy"], {m["x"]: xte, m["y"]: yte}))


def train_single_process(steps=300, batch=32):
    """The same model and steps in one process (a local session): the accuracy to compare with."""
    (xtr, ytr), (xte, yte) = load_digits()
    with tw.Graph().as_default():
        m = build(None, 0)
        with tw.Session() as sess:
            sess.run(m["init"])
            return train(sess, m, xtr, ytr, xte, yte, steps, batch)


if __name__ == "__main__":
    main()
