"""The in-process distributed setup TF1 tutorials started with: tf.train.Server.create_local_server(), a
tf.Session(server.target) running a graph placed with tf.device("/job:localhost/replica:0/task:0/cpu:0"), the
server's server_def (job name, task index, protocol), a ClusterSpec for a one-task "local" job with a
tf.train.Server(cluster, job_name="local", task_index=0, start=True), variables shared by two sessions on the same
server (one session's assign seen by the other), and Session.reset clearing them."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    server = tf.train.Server.create_local_server()
    target = server.target.decode() if isinstance(server.target, bytes) else server.target
    out["target_scheme"] = target.split(":")[0]
    out["server_def"] = [server.server_def.job_name, server.server_def.task_index, server.server_def.protocol]
    with tf.device("/job:localhost/replica:0/task:0/cpu:0"):
        v = tf.Variable(np.arange(3, dtype=np.float32), name="shared")
        inc = tf.assign_add(v, [1.0, 1.0, 1.0])
    init = tf.global_variables_initializer()
    with tf.Session(server.target) as s1:
        s1.run(init)
        s1.run(inc)
        with tf.Session(server.target) as s2:
            out["seen_by_second"] = s2.run(v)
            s2.run(inc)
        out["after_second"] = s1.run(v)
    with tf.Session(server.target) as s3:
        out["persists"] = s3.run(v)
    tf.Session.reset(server.target)
    with tf.Session(server.target) as s4:
        try:
            s4.run(v)
            out["after_reset"] = None
        except tf.errors.FailedPreconditionError as e:
            out["after_reset"] = ["FailedPreconditionError", "uninitialized" in e.message.lower()]
    return out
