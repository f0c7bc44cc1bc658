"""Between-graph replication as TF1 distributed scripts set it up (the graph only; no server is started):
tf.train.ClusterSpec from a dict, its jobs / num_tasks / task_address / as_dict, tf.train.replica_device_setter
placing variables round-robin over ps tasks (ps_tasks / ps_device without a cluster too), ops on the worker
device, merge_devices with an explicit tf.device inside, the global step on ps 0, optimizer slots colocated with
their variables, and each op's device string."""


def main(tf, workdir):
    tf.reset_default_graph()
    cluster = tf.train.ClusterSpec({"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]})
    out = {
        "jobs": sorted(cluster.jobs),
        "num_tasks": [cluster.num_tasks("ps"), cluster.num_tasks("worker")],
        "address": cluster.task_address("worker", 2),
        "dict": {k: list(v) for k, v in cluster.as_dict().items()},
        "task_indices": list(cluster.task_indices("worker")),
    }
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:1", cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        w1 = tf.get_variable("w1", [4, 3])
        b1 = tf.get_variable("b1", [3])
        w2 = tf.get_variable("w2", [3, 2])
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf.device("/job:worker/task:1/device:CPU:0"):
            logits = tf.matmul(h, w2, name="logits")
        loss = tf.reduce_mean(tf.square(logits))
        opt = tf.train.AdamOptimizer(0.1)
        train = opt.minimize(loss, global_step=global_step)
    out["var_devices"] = [(v.op.name, v.device) for v in tf.global_variables()]
    out["op_devices"] = [(t.op.name, t.device) for t in (x, h, logits, loss)]
    out["train_device"] = train.device
    tf.reset_default_graph()
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_device="/job:ps", worker_device="/job:worker/task:0")):
        vs = [tf.Variable(tf.zeros([n]), name=f"v{n}") for n in (10, 1, 1, 100, 1)]
        s = tf.add_n([tf.reduce_sum(v) for v in vs])
    out["round_robin"] = [(v.op.name, v.device) for v in vs]
    out["sum_device"] = s.device
    return out
