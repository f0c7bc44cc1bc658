"""A task of the fault tests (started with TW_CONFIG by tests/test_distributed_training.py): the ps serves;
each worker adds 1 to a variable held by the ps, step after step, printing `STEPPING` after 20 steps and
`STEP <n>` every 20 steps, until a step fails; then it prints the error's class and the time it failed
(`ERROR <class> <unix time> | <message>`)."""

import time

import tensorweave as tw
from tensorweave.distributed import cluster_resolver


def main():
    task = cluster_resolver()
    server = tw.train.Server(task.cluster, task.task_type, task.task_id)
    if task.task_type == "ps":
        server.join()
    else:
        with tw.Graph().as_default():
            with tw.device("/job:ps/task:0"):
                v = tw.Variable(0.0, name="v")
            with tw.device(f"/job:worker/task:{task.task_id}"):
                step = tw.assign_add(v, 1.0)
                ready = tw.is_variable_initialized(v)
            with tw.Session(server.target) as sess:
                if task.is_chief:
                    sess.run(v.initializer)
                while not sess.run(ready):
                    time.sleep(0.05)
                n = 0
                try:
                    while True:
                        sess.run(step)
                        n += 1
                        if n == 20:
                            print("STEPPING", flush=True)
                        if n % 20 == 0:
                            print("STEP", n, flush=True)
                        time.sleep(0.005)
                except tw.errors.OpError as e:
                    print("ERROR", type(e).__name__, time.time(), "|", e.message, flush=True)


if __name__ == "__main__":
    main()
