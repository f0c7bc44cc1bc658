"""A task of the fault tests (started with TW_CONFIG by tests/test_distributed_training.py): the ps serves;
the worker trains a variable held by the ps until a step fails, then prints the error's class and the time
it failed (`ERROR <class> <unix time>`)."""

import time

import tensorweave as tw
from tensorweave.distributed import cluster_resolver

task = cluster_resolver()
server = tw.train.Server(task.cluster, task.task_type, task.task_id)
if task.task_type == "ps":
    server.join()
else:
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            v = tw.Variable(0.0, name="v")
        with tw.device("/job:worker/task:0"):
            step = tw.assign_add(v, 1.0)
        with tw.Session(server.target) as sess:
            sess.run(v.initializer)
            n = 0
            try:
                while True:
                    sess.run(step)
                    n += 1
                    if n == 20:
                        print("STEPPING", flush=True)
                    time.sleep(0.005)
            except tw.errors.OpError as e:
                print("ERROR", type(e).__name__, time.time(), "|", e.message, flush=True)
