"""The standard hooks of training loops (TensorFlow v1's basic_session_run_hooks): stopping at a step, failing
on a NaN loss, logging tensors, saving checkpoints, counting steps, final ops, feeds, waiting for a step."""

import logging
import os
import time

import numpy as np

from tensorweave._src.framework import ops
from tensorweave._src.training import training_util
from tensorweave._src.training.session_run_hook import SessionRunArgs
from tensorweave._src.training.session_run_hook import SessionRunHook

_logger = logging.getLogger("tensorweave")


class NanLossDuringTrainingError(RuntimeError):
    """The loss became NaN (what NanTensorHook raises with fail_on_nan_loss)."""

    def __str__(self):
        return "NaN loss during training."


class SecondOrStepTimer:
    """Triggers every `every_secs` seconds or every `every_steps` steps (exactly one of them).

    Example:
      >>> import tensorweave as tw
      >>> timer = tw.train.SecondOrStepTimer(every_steps=10)
      >>> timer.should_trigger_for_step(0), timer.update_last_triggered_step(0), timer.should_trigger_for_step(5)
      (True, (None, None), False)
    """

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if self._every_secs is None and self._every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if self._every_secs is not None and self._every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        """Whether the timer triggers at `step` (always the first time; never twice for one step)."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_triggered_time + self._every_secs:
            return True
        if self._every_steps is not None and step >= self._last_triggered_step + self._every_steps:
            return True
        return False

    def update_last_triggered_step(self, step):
        """Records a trigger at `step`; returns (seconds, steps) since the previous one, (None, None) the first
        time."""
        current_time = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = current_time - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = current_time
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(SecondOrStepTimer):
    """A timer that never triggers."""

    def __init__(self):
        self.reset()

    def should_trigger_for_step(self, step):
        return False


def _global_step_read_or_raise(hook_name):
    read = training_util._get_or_create_global_step_read()
    if read is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return read


def _global_step_or_raise(hook_name):
    global_step = training_util.get_global_step()
    if global_step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return global_step


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches `last_step`, or `num_steps` steps after the session
    starts (exactly one of them)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _global_step_or_raise("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results + 1
        if global_step >= self._last_step:
            # The global step may have moved in other sessions: read it again.
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class NanTensorHook(SessionRunHook):
    """Fetches `loss_tensor` each step: raises NanLossDuringTrainingError when it is NaN (or, with
    fail_on_nan_loss=False, logs it and requests a stop)."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            if self._fail_on_nan_loss:
                _logger.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            _logger.warning("Model diverged with loss = NaN. Requesting stop.")
            run_context.request_stop()


class LoggingTensorHook(SessionRunHook):
    """Logs the values of `tensors` (a dict {tag: tensor or name} or a list) every `every_n_iter` steps or
    `every_n_secs` seconds, and/or at the end (`at_end`), on the "tensorweave" logger at INFO level."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors)
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (
            NeverTriggerTimer()
            if only_log_at_end
            else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        )
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        graph = ops.get_default_graph()
        self._current_tensors = {
            tag: graph.as_graph_element(t) if isinstance(t, str) else t for tag, t in self._tensors.items()
        }

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter:
            _logger.info(self._formatter(tensor_values))
        else:
            stats = [f"{tag} = {tensor_values[tag]}" for tag in self._tag_order]
            if elapsed_secs is not None:
                _logger.info("%s (%.3f sec)", ", ".join(stats), elapsed_secs)
            else:
                _logger.info("%s", ", ".join(stats))
        np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class CheckpointSaverListener:
    """Called around each save of a CheckpointSaverHook; `after_save` returning True requests a stop."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints `<checkpoint_dir>/<checkpoint_basename>-<step>` every `save_secs` seconds or
    `save_steps` steps (exactly one), when the session starts and at the end; writes graph.pbtxt beside them."""

    def __init__(
        self,
        checkpoint_dir,
        save_secs=None,
        save_steps=None,
        saver=None,
        checkpoint_basename="model.ckpt",
        scaffold=None,
        listeners=None,
        save_graph_def=True,
    ):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])
        self._save_graph_def = save_graph_def

    def begin(self):
        self._global_step_tensor = _global_step_or_raise("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        from tensorweave._src.training import graph_io

        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            graph_io.write_graph(ops.get_default_graph().as_graph_def(), self._checkpoint_dir, "graph.pbtxt")
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + 1):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        _logger.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = ops.get_collection(ops.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(
                f"No items in collection {ops.GraphKeys.SAVERS}. Please add a saver to the collection or provide a "
                "saver or scaffold."
            )
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {ops.GraphKeys.SAVERS}. Please indicate which one to use."
            )
        self._saver = savers[0]
        return savers[0]


def _summary_writer(summary_writer, output_dir):
    """The writer a hook gives its summaries to: its own, else the shared one of `output_dir`, else None."""
    if summary_writer is None and output_dir:
        from tensorweave._src.summary.writer import FileWriterCache

        summary_writer = FileWriterCache.get(output_dir)
    return summary_writer


class StepCounterHook(SessionRunHook):
    """Logs the global steps per second every `every_n_steps` steps or `every_n_secs` seconds, and writes it as
    the scalar summary `global_step/sec` when given `output_dir` or `summary_writer`."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None, steps_per_run=1):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._steps_per_run = steps_per_run
        self._output_dir = output_dir
        self._summary_writer = summary_writer
        self.steps_per_sec = None

    def begin(self):
        self._summary_writer = _summary_writer(self._summary_writer, self._output_dir)
        self._global_step_tensor = _global_step_read_or_raise("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    self.steps_per_sec = elapsed_steps / elapsed_time
                    _logger.info("%s: %g", self._summary_tag, self.steps_per_sec)
                    if self._summary_writer is not None:
                        from tensorweave._src.summary.protos import Summary

                        value = Summary.Value(tag=self._summary_tag, simple_value=self.steps_per_sec)
                        self._summary_writer.add_summary(Summary(value=[value]), global_step)

    def end(self, session):
        if self._summary_writer is not None:
            self._summary_writer.flush()


class SummarySaverHook(SessionRunHook):
    """Runs the summary op(s) every `save_steps` steps or `save_secs` seconds (and at the first step) and writes
    their output to `summary_writer` or the shared FileWriter of `output_dir`, at the global step; the first step
    also writes a SessionLog START. Give exactly one of `summary_op` (a tensor or a list) and `scaffold` (whose
    summary_op is `tw.summary.merge_all()` unless set).

    Example:
      >>> import tempfile
      >>> import tensorweave as tw
      >>> d = tempfile.mkdtemp()
      >>> with tw.Graph().as_default():
      ...     step = tw.train.get_or_create_global_step()
      ...     rate = tw.summary.scalar("rate", tw.constant(0.5))
      ...     train = tw.assign_add(step, 1)
      ...     hook = tw.train.SummarySaverHook(save_steps=2, output_dir=d, summary_op=rate)
      ...     with tw.train.MonitoredSession(hooks=[hook]) as sess:
      ...         for _ in range(5):
      ...             _ = sess.run(train)
      >>> events = [e for f in tw.gfile.ListDirectory(d) for e in tw.train.summary_iterator(d + "/" + f)]
      >>> [(e.step, v.simple_value) for e in events for v in e.summary.value]
      [(1, 0.5), (3, 0.5), (5, 0.5)]
    """

    def __init__(
        self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None, summary_op=None
    ):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._summary_writer = _summary_writer(self._summary_writer, self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_read_or_raise("SummarySaverHook")

    def _summary_ops(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return list(op) if isinstance(op, (list, tuple)) else [op]

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        summary_ops = self._summary_ops() if self._request_summary else None
        if summary_ops:
            requests["summary"] = summary_ops
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if self._summary_writer is None:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            from tensorweave._src.summary.protos import SessionLog

            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer is not None:
            self._summary_writer.flush()


class ProfilerHook(SessionRunHook):
    """Traces one step every `save_steps` steps or `save_secs` seconds (RunOptions FULL_TRACE) and writes its
    Chrome trace (chrome://tracing, Perfetto) to `<output_dir>/timeline-<global step>.json`."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = _summary_writer(None, output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_read_or_raise("ProfilerHook")

    def before_run(self, run_context):
        from tensorweave._src.client.session_config import RunOptions

        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None:
            # The first step: the timer starts counting here (it is not traced: it includes graph setup).
            self._timer.update_last_triggered_step(global_step)
        elif self._request_summary and run_values.run_metadata is not None:
            from tensorweave._src.client.timeline import Timeline

            self._timer.update_last_triggered_step(global_step)
            trace = Timeline(step_stats=run_values.run_metadata.step_stats).generate_chrome_trace_format(
                show_dataflow=self._show_dataflow, show_memory=self._show_memory
            )
            with open(self._output_file.format(global_step), "w") as f:
                f.write(trace)
            if self._file_writer is not None:
                self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}", global_step)
        self._next_step = global_step + 1

    def end(self, session):
        if self._file_writer is not None:
            self._file_writer.flush()


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` (with `final_ops_feed_dict`) at the end; their values are `final_ops_values`."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)


class FeedFnHook(SessionRunHook):
    """Adds the feeds `feed_fn()` returns to each step."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Delays each step until the global step reaches `wait_until_step` (a non-chief worker waiting for the
    chief)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _global_step_or_raise("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            time.sleep(0.5)
