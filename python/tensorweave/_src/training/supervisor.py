"""Supervisor (TensorFlow v1's tf.train.Supervisor, the training loop helper before MonitoredSession): prepares
a session (restores the latest checkpoint of `logdir` or initializes), saves checkpoints from a thread every
`save_model_secs` seconds, and stops threads together through its Coordinator. Summaries are not written
(tensorweave has no summary writer here): `summary_op`, `save_summaries_secs` and `summary_writer` are accepted
and left unused."""

import contextlib
import os

from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.training import coordinator
from tensorweave._src.training import training_util
from tensorweave._src.training.monitored_session import LOCAL_INIT_OP
from tensorweave._src.training.monitored_session import READY_FOR_LOCAL_INIT_OP
from tensorweave._src.training.monitored_session import READY_OP
from tensorweave._src.training.monitored_session import SessionManager


class _CheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every save_model_secs (the first right away)."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)


class Supervisor:
    """See the module docstring. The graph is finalized when the Supervisor is made.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> logdir = tempfile.mkdtemp()
      >>> with tw.Graph().as_default():
      ...     step = tw.train.get_or_create_global_step()
      ...     train = tw.assign_add(step, 1)
      ...     sv = tw.train.Supervisor(logdir=logdir)
      ...     with sv.managed_session() as sess:
      ...         while not sv.should_stop():
      ...             if sess.run(train) >= 3:
      ...                 sv.request_stop()
      >>> os.path.basename(tw.train.latest_checkpoint(logdir)).startswith("model.ckpt-")  # the checkpoint thread's
      True
    """

    USE_DEFAULT = 0

    def __init__(
        self,
        graph=None,
        ready_op=USE_DEFAULT,
        ready_for_local_init_op=USE_DEFAULT,
        is_chief=True,
        init_op=USE_DEFAULT,
        init_feed_dict=None,
        local_init_op=USE_DEFAULT,
        logdir=None,
        summary_op=USE_DEFAULT,
        saver=USE_DEFAULT,
        global_step=USE_DEFAULT,
        save_summaries_secs=120,
        save_model_secs=600,
        recovery_wait_secs=30,
        stop_grace_secs=120,
        checkpoint_basename="model.ckpt",
        session_manager=None,
        summary_writer=USE_DEFAULT,
        init_fn=None,
        local_init_run_options=None,
    ):
        from tensorweave._src.ops import variables
        from tensorweave._src.training import saver as saver_lib

        self._graph = graph or ops.get_default_graph()
        with self._graph.as_default():
            self._ready_op = self._default(ready_op, READY_OP, lambda: variables.report_uninitialized_variables())
            self._ready_for_local_init_op = self._default(
                ready_for_local_init_op,
                READY_FOR_LOCAL_INIT_OP,
                lambda: variables.report_uninitialized_variables(variables.global_variables()),
            )
            self._init_op = self._default(
                init_op, ops.GraphKeys.INIT_OP, lambda: variables.global_variables_initializer()
            )
            self._local_init_op = self._default(
                local_init_op, LOCAL_INIT_OP, lambda: ops.group(variables.local_variables_initializer())
            )
            if saver is Supervisor.USE_DEFAULT:
                savers = ops.get_collection(ops.GraphKeys.SAVERS)
                if savers:
                    if len(savers) > 1:
                        raise RuntimeError(f"More than one item in collection {ops.GraphKeys.SAVERS}.")
                    saver = savers[0]
                elif variables.global_variables():
                    saver = saver_lib.Saver()
                    ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
                else:
                    saver = None
            self._saver = saver
            if global_step is Supervisor.USE_DEFAULT:
                global_step = training_util.get_global_step()
            self._global_step = global_step
        self._summary_op = None if summary_op is Supervisor.USE_DEFAULT else summary_op
        self._summary_writer = None if summary_writer is Supervisor.USE_DEFAULT else summary_writer
        self._save_summaries_secs = save_summaries_secs
        self._is_chief = is_chief
        self._init_feed_dict = init_feed_dict
        self._init_fn = init_fn
        self._logdir = logdir
        self._save_model_secs = save_model_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._coord = coordinator.Coordinator()
        self._started_threads = []
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op,
            ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op,
            graph=self._graph,
            recovery_wait_secs=recovery_wait_secs,
        )
        self._graph.finalize()

    def _default(self, value, collection_key, make):
        if value is not Supervisor.USE_DEFAULT:
            return value
        found = ops.get_collection(collection_key)
        if found:
            return found[0]
        op = make()
        ops.add_to_collection(collection_key, op)
        return op

    # --- properties ------------------------------------------------------------------------------------------
    @property
    def is_chief(self):
        return self._is_chief

    @property
    def session_manager(self):
        return self._session_manager

    @property
    def coord(self):
        return self._coord

    @property
    def init_op(self):
        return self._init_op

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def summary_writer(self):
        return self._summary_writer

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def save_summaries_secs(self):
        return self._save_summaries_secs

    @property
    def global_step(self):
        return self._global_step

    @property
    def saver(self):
        return self._saver

    @property
    def save_model_secs(self):
        return self._save_model_secs

    @property
    def save_path(self):
        return self._save_path

    # --- sessions ----------------------------------------------------------------------------------------------
    def _write_graph(self):
        from tensorweave._src.training import graph_io

        if self._is_chief and self._logdir:
            graph_io.write_graph(self._graph.as_graph_def(), self._logdir, "graph.pbtxt")

    def start_standard_services(self, sess):
        """Starts the checkpoint thread (when there is a saver, a logdir and save_model_secs); returns the
        threads started."""
        if not self._is_chief:
            raise TypeError("Standard services need a 'logdir' passed to the SessionManager")
        threads = []
        if self._saver is not None and self._save_path and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        self._started_threads.extend(threads)
        return threads

    def prepare_or_wait_for_session(
        self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200, start_standard_services=True
    ):
        """The chief's session, restored from `logdir`'s latest checkpoint or initialized (and the standard
        services started); another worker's, once the chief has made the model ready."""
        self._coord.clear_stop()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master,
                init_op=self._init_op,
                saver=self._saver,
                checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs,
                config=config,
                init_feed_dict=self._init_feed_dict,
                init_fn=self._init_fn,
            )
            self._write_graph()
            if start_standard_services:
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        return sess

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Requests a stop and joins the services' threads (and `threads`); re-raises an exception a thread
        reported through the coordinator."""
        self._coord.request_stop()
        try:
            self._coord.join(
                list(threads or []) + self._started_threads,
                stop_grace_period_secs=self._stop_grace_secs,
                ignore_live_threads=ignore_live_threads,
            )
        finally:
            self._started_threads = []

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling `target` every `timer_interval_secs` until the stop."""
        looper = coordinator.LooperThread(self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A context yielding a prepared session; on exit (or an exception, which is re-raised unless it is an
        OutOfRangeError) it stops the services and closes the session."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services
            )
            yield sess
        except Exception as e:  # noqa: BLE001 - reported through the coordinator, re-raised by stop()
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception:  # noqa: BLE001 - TF1 ignores errors closing the session here
                        pass


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls `train_step_fn(session, *args, **kwargs)` until the supervisor says to stop, inside
    `supervisor.managed_session(master)`; starts over after an AbortedError."""
    args = list(args or [])
    kwargs = dict(kwargs or {})
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
