"""A task of the recovery test (started with TW_CONFIG by tests/test_distributed_recovery.py): the ps serves;
the one worker (the chief) trains with `MonitoredTrainingSession(checkpoint_dir=...)` (a checkpoint every
`--every` steps) until global step `--last-step`. Each step adds 1 to `count` (a variable on the ps beside the
global step) and prints `STEP <global step> <count> <time>` after it, so the test sees
where training stood after the ps was killed and started again (restored from the latest checkpoint, the two
move together)."""

import argparse
import faulthandler
import logging
import signal
import time

import tensorweave as tw
from tensorweave.distributed import cluster_resolver


def main():
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a stack dump of a hung task (the test sends it)
    logging.basicConfig(level=logging.INFO, format="LOG %(name)s %(message)s")  # the MonitoredSession's recovery
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint-dir", required=True)
    p.add_argument("--every", type=int, default=10)
    p.add_argument("--last-step", type=int, default=100)
    a = p.parse_args()
    task = cluster_resolver()
    server = tw.train.Server(task.cluster, task.task_type, task.task_id)
    if task.task_type == "ps":
        server.join()
    with tw.Graph().as_default():
        with tw.device(tw.train.replica_device_setter(cluster=task.cluster)):
            step = tw.train.get_or_create_global_step()
            count = tw.Variable(0, dtype=tw.int64, name="count")
            train = [tw.assign_add(step, 1), tw.assign_add(count, 1)]
        hooks = [tw.train.StopAtStepHook(last_step=a.last_step)]
        with tw.train.MonitoredTrainingSession(
            master=server.target,
            is_chief=True,
            checkpoint_dir=a.checkpoint_dir,
            save_checkpoint_steps=a.every,
            save_checkpoint_secs=None,
            log_step_count_steps=0,
            hooks=hooks,
        ) as sess:
            while not sess.should_stop():
                s, c = sess.run(train)
                print("STEP", s, c, time.time(), flush=True)
                time.sleep(0.01)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
