"""MonitoredSession (TensorFlow v1's monitored_session): a session that initializes or restores the model,
runs hooks around every step, and closes cleanly.

`MonitoredTrainingSession` is the usual entry point: it restores the latest checkpoint of `checkpoint_dir` (or
runs the initializers), saves checkpoints on a timer (CheckpointSaverHook), logs the step rate and stops when a
hook asks (StopAtStepHook) or the input ends (OutOfRangeError is swallowed by `with`).
"""

import logging
import time

from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.training import coordinator
from tensorweave._src.training.basic_session_run_hooks import CheckpointSaverHook
from tensorweave._src.training.basic_session_run_hooks import StepCounterHook
from tensorweave._src.training.basic_session_run_hooks import SummarySaverHook
from tensorweave._src.training.session_run_hook import SessionRunArgs
from tensorweave._src.training.session_run_hook import SessionRunContext
from tensorweave._src.training.session_run_hook import SessionRunValues

_logger = logging.getLogger("tensorweave")

READY_OP = "ready_op"
READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
LOCAL_INIT_OP = "local_init_op"
USE_DEFAULT = object()


def _session_class():
    from tensorweave._src.client import session as session_lib

    return session_lib.Session


class Scaffold:
    """What a MonitoredSession needs to prepare a session: the init op (default: initialize the global
    variables), the ready op (default: report_uninitialized_variables), the local init op (default: initialize
    the local variables), an init_fn, and the saver (default: the one in SAVERS, else a new one over every
    variable, added to SAVERS). `finalize()` builds the defaults and finalizes the graph.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     v = tw.Variable(1.0, name="v")
      ...     scaffold = tw.train.Scaffold().finalize()
      ...     print(scaffold.init_op.type, tw.get_default_graph().finalized)
      NoOp True
    """

    def __init__(
        self,
        init_op=None,
        init_feed_dict=None,
        init_fn=None,
        ready_op=None,
        ready_for_local_init_op=None,
        local_init_op=None,
        summary_op=None,
        saver=None,
        copy_from_scaffold=None,
        local_init_feed_dict=None,
    ):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            coalesce = lambda a, b: a if a is not None else b  # noqa: E731
            init_op = coalesce(init_op, copy_from_scaffold.init_op)
            init_feed_dict = coalesce(init_feed_dict, copy_from_scaffold.init_feed_dict)
            init_fn = coalesce(init_fn, copy_from_scaffold._user_init_fn)
            ready_op = coalesce(ready_op, copy_from_scaffold.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op, copy_from_scaffold.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, copy_from_scaffold.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict, copy_from_scaffold.local_init_feed_dict)
            summary_op = coalesce(summary_op, copy_from_scaffold.summary_op)
            saver = coalesce(saver, copy_from_scaffold.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one item of collection `collection_key`, else `default_constructor()` (added to it)."""
        elements = ops.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    f"More than one item in the collection {collection_key}. Please indicate which one to use by "
                    f"passing it to the tf.Scaffold constructor as:  tf.Scaffold({arg_name}=item to use)"
                )
            return elements[0]
        op = default_constructor()
        if op is not None:
            ops.add_to_collection(collection_key, op)
        return op

    def finalize(self):
        """Creates the default ops and finalizes the graph; returns self."""
        from tensorweave._src.ops import variables
        from tensorweave._src.training import saver as saver_lib

        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", ops.GraphKeys.INIT_OP, lambda: ops.group(variables.global_variables_initializer())
            )
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default("ready_op", READY_OP, variables.report_uninitialized_variables)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                READY_FOR_LOCAL_INIT_OP,
                lambda: variables.report_uninitialized_variables(variables.global_variables()),
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            from tensorweave._src.summary import summary_ops

            self._summary_op = Scaffold.get_or_default("summary_op", ops.GraphKeys.SUMMARY_OP, summary_ops.merge_all)
        if self._saver is None:
            savers = ops.get_collection(ops.GraphKeys.SAVERS)
            if savers:
                if len(savers) > 1:
                    raise RuntimeError(
                        f"More than one item in collection {ops.GraphKeys.SAVERS}. Please indicate which one to use "
                        "by passing it to the constructor."
                    )
                self._saver = savers[0]
            else:
                self._saver = saver_lib.Saver(allow_empty=True)
                ops.add_to_collection(ops.GraphKeys.SAVERS, self._saver)
        ops.get_default_graph().finalize()
        return self

    @property
    def init_fn(self):
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def local_init_feed_dict(self):
        return self._local_init_feed_dict

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def default_local_init_op():
        """Local variables and lookup tables initialized (as TF's Scaffold)."""
        from tensorweave._src.framework import misc_api
        from tensorweave._src.ops import variables

        return ops.group(variables.local_variables_initializer(), misc_api.tables_initializer())


# --- SessionManager ------------------------------------------------------------------------------------------------


class SessionManager:
    """Creates sessions that are ready to use: restored from a checkpoint or initialized, then checked with the
    ready op (TF1's tf.train.SessionManager)."""

    def __init__(
        self,
        local_init_op=None,
        ready_op=None,
        ready_for_local_init_op=None,
        graph=None,
        recovery_wait_secs=30,
        local_init_run_options=None,
        local_init_feed_dict=None,
    ):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph or ops.get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_feed_dict = local_init_feed_dict

    def _restore_checkpoint(
        self,
        master,
        saver=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        config=None,
    ):
        sess = _session_class()(master, graph=self._graph, config=config)
        try:
            return self._restore_into(
                sess, saver, checkpoint_dir, checkpoint_filename_with_path, wait_for_checkpoint, max_wait_secs
            )
        except BaseException:
            sess.close()  # (a session that failed to restore, e.g. its ps is down, is not left to the collector)
            raise

    def _restore_into(
        self, sess, saver, checkpoint_dir, checkpoint_filename_with_path, wait_for_checkpoint, max_wait_secs
    ):
        from tensorweave._src.training import saver as saver_lib

        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = saver_lib.get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = saver_lib.get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(ckpt.all_model_checkpoint_paths)
        return sess, True

    def _ready(self, op, sess, msg):
        if op is None:
            return True, None
        value = sess.run(op)
        if value is None or getattr(value, "size", 0) == 0:
            return True, None
        names = ", ".join(v.decode() if isinstance(v, bytes) else str(v) for v in value.ravel())
        return False, f"Variables not initialized: {names}"

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is not None:
            ready, msg = self._ready(self._ready_for_local_init_op, sess, "Model not ready for local init")
            if not ready:
                return False, msg
            sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict)
        return True, None

    def prepare_session(
        self,
        master,
        init_op=None,
        saver=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        config=None,
        init_feed_dict=None,
        init_fn=None,
    ):
        """A session restored from the latest checkpoint of `checkpoint_dir` (or `checkpoint_filename_with_path`)
        when there is one, else initialized with `init_op` / `init_fn`; RuntimeError when the model is then not
        ready."""
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint,
            max_wait_secs=max_wait_secs,
            config=config,
        )
        try:
            self._initialize(sess, is_loaded_from_checkpoint, init_op, init_feed_dict, init_fn)
        except BaseException:
            sess.close()
            raise
        return sess

    def _initialize(self, sess, is_loaded_from_checkpoint, init_op, init_feed_dict, init_fn):
        if not is_loaded_from_checkpoint:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ok, msg = self._try_run_local_init_op(sess)
        if not ok:
            raise RuntimeError(
                f"Init operations did not make model ready for local_init.  Init op: {_name(init_op)}, init fn: "
                f"{init_fn}, error: {msg}"
            )
        ready, msg = self._ready(self._ready_op, sess, "Model not ready")
        if not ready:
            raise RuntimeError(
                f"Init operations did not make model ready.  Init op: {_name(init_op)}, init fn: {init_fn}, "
                f"local_init_op: {_name(self._local_init_op)}, error: {msg}"
            )

    def recover_session(
        self,
        master,
        saver=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        config=None,
    ):
        """(session, whether it is initialized): restored from a checkpoint when there is one."""
        sess, is_loaded = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint,
            max_wait_secs=max_wait_secs,
            config=config,
        )
        ok, _ = self._try_run_local_init_op(sess)
        if not is_loaded or not ok:
            return sess, False
        ready, msg = self._ready(self._ready_op, sess, "Model not ready")
        if not ready:
            _logger.info("Restoring model from %s did not make model ready: %s", checkpoint_dir, msg)
            return sess, False
        return sess, True

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A session once the model is ready (another process initialized it); DeadlineExceededError after
        `max_wait_secs`."""
        timer_start = time.time()
        while True:
            sess = _session_class()(master, graph=self._graph, config=config)
            ok, msg = self._try_run_local_init_op(sess)
            if ok:
                ready, msg = self._ready(self._ready_op, sess, "Session not ready")
                if ready:
                    return sess
            sess.close()
            remaining = max_wait_secs - (time.time() - timer_start)
            if remaining < self._recovery_wait_secs:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {max_wait_secs} secs."
                )
            time.sleep(self._recovery_wait_secs)


def _name(op):
    return None if op is None else op.name


# --- session creators ----------------------------------------------------------------------------------------------


class SessionCreator:
    """Creates a session (the interface of ChiefSessionCreator and WorkerSessionCreator)."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for {self}.")


class ChiefSessionCreator(SessionCreator):
    """Creates the chief's session: restores the latest checkpoint of `checkpoint_dir` or initializes."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None, checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op,
                local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=ops.get_default_graph(),
            )
        return self._session_manager

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master,
            saver=self._scaffold.saver,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config,
            init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn,
        )


class WorkerSessionCreator(SessionCreator):
    """Creates a non-chief worker's session: waits until the chief has made the model ready."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        manager = SessionManager(
            local_init_op=self._scaffold.local_init_op,
            local_init_feed_dict=self._scaffold.local_init_feed_dict,
            ready_op=self._scaffold.ready_op,
            ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
            graph=ops.get_default_graph(),
        )
        return manager.wait_for_session(self._master, config=self._config, max_wait_secs=self._max_wait_secs)


# --- the monitored session -----------------------------------------------------------------------------------------


class StepContext:
    """What `run_step_fn`'s function gets: the raw session, `run_with_hooks` and `request_stop`."""

    def __init__(self, session, run_with_hooks_fn):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self):
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        raise _StopSignal()


class _StopSignal(Exception):
    pass


def _merge_feeds(base, extra, message):
    overlap = set(base) & set(extra)
    if overlap:
        raise RuntimeError(f"{message} Conflict(s): {sorted(str(getattr(t, 'name', t)) for t in overlap)}")
    merged = dict(base)
    merged.update(extra)
    return merged


# A session that fails with these (a worker or parameter server restarted) is re-created by MonitoredSession.
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
_RECREATE_BACKOFF_SECS = 0.2


class _MonitoredSession:
    def __init__(self, session_creator, hooks, stop_grace_period_secs, should_recover):
        graph = ops.get_default_graph()
        self._graph = graph
        self._graph_was_finalized = graph.finalized
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._session_creator = session_creator or ChiefSessionCreator()
        self._stop_grace_period_secs = stop_grace_period_secs
        self._should_recover = should_recover
        self._should_stop = False
        self._closed = False
        self._create_session()

    def _create_session(self):
        while True:
            try:
                self._tf_sess = self._session_creator.create_session()
                break
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    raise
                _logger.info("An error was raised while a session was being created (%s); trying again.", e)
                time.sleep(_RECREATE_BACKOFF_SECS)  # (a task that is down fails at once: no busy loop)
        self._coord = coordinator.Coordinator(clean_stop_exception_types=[])
        # As TF1: the graph's queue runners start with the session, and stop with its coordinator.
        if self._tf_sess.graph.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
            from tensorweave._src.training import queue_runner

            queue_runner.start_queue_runners(sess=self._tf_sess, coord=self._coord)
        for hook in self._hooks:
            hook.after_create_session(self._tf_sess, self._coord)

    def _recover(self, error):
        _logger.info(
            "An error was raised. This may be due to a preemption in a connected worker or parameter server. The "
            "current session will be closed and a new session will be created. Error: %s",
            error,
        )
        try:
            self._coord.request_stop()
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
            self._tf_sess.close()
        except Exception:  # noqa: BLE001 - the session is being replaced; TF1 ignores errors closing it
            pass
        self._create_session()

    @property
    def graph(self):
        return self._tf_sess.graph

    def should_stop(self):
        return self._closed or self._should_stop or self._coord.should_stop()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs one step with the hooks: their before_run fetches and feeds join the caller's; returns the
        caller's fetches. A MonitoredSession re-creates its session (and runs the step again) after an
        AbortedError or UnavailableError."""
        if self._closed:
            raise RuntimeError("Session is already closed.")
        if self._should_stop:
            raise RuntimeError("Run called even after should_stop requested.")
        while True:
            try:
                return self._run_with_hooks(fetches, feed_dict, options, run_metadata)
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    raise
                self._recover(e)

    def _run_with_hooks(self, fetches, feed_dict, options, run_metadata):
        run_context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._tf_sess)
        hook_fetches = {}
        hook_feeds = {}
        hook_options = []
        for i, hook in enumerate(self._hooks):
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                hook_fetches[i] = request.fetches
            if request.feed_dict:
                hook_feeds = _merge_feeds(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
            if request.options is not None:
                hook_options.append(request.options)
        if hook_feeds:
            feed_dict = _merge_feeds(hook_feeds, feed_dict or {}, "Same tensor is fed by a SessionRunHook and user.")
        if hook_options:
            options = _merge_run_options(options, hook_options)
            run_metadata = run_metadata if run_metadata is not None else _session_config().RunMetadata()
        try:
            outputs = self._tf_sess.run(
                {"caller": fetches, "hooks": hook_fetches},
                feed_dict=feed_dict,
                options=options,
                run_metadata=run_metadata,
            )
        except errors.OpError:
            self._coord.raise_requested_exception()
            raise
        for i, hook in enumerate(self._hooks):
            hook.after_run(run_context, SessionRunValues(outputs["hooks"].get(i), options, run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def run_step_fn(self, step_fn):
        """Calls `step_fn(step_context)` and returns its value; step_context.request_stop() stops the session."""
        try:
            return step_fn(StepContext(self._tf_sess, self.run))
        except _StopSignal:
            self._should_stop = True
            return None

    def close(self):
        self._close_internal()

    def _close_internal(self, exception_type=None):
        if self._closed:
            raise RuntimeError("Session is already closed.")
        try:
            if not exception_type:
                for hook in self._hooks:
                    hook.end(self._tf_sess)
        finally:
            try:
                self._coord.request_stop()
                self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
            finally:
                self._closed = True
                self._tf_sess.close()
                if not self._graph_was_finalized:
                    self._graph._finalized = False

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type is not None and issubclass(exception_type, (errors.OutOfRangeError, StopIteration)):
            exception_type = None
        if not self._closed:
            self._close_internal(exception_type)
        return exception_type is None


class MonitoredSession(_MonitoredSession):
    """A session made by `session_creator` (default: ChiefSessionCreator()) with `hooks` run around every
    step. Use it as a context manager; OutOfRangeError and StopIteration end the `with` block quietly.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     step = tw.train.get_or_create_global_step()
      ...     train = tw.assign_add(step, 1)
      ...     hooks = [tw.train.StopAtStepHook(last_step=3)]
      ...     with tw.train.MonitoredSession(hooks=hooks) as sess:
      ...         while not sess.should_stop():
      ...             last = sess.run(train)
      >>> print(last)
      3
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, stop_grace_period_secs, should_recover=True)


class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession with a ChiefSessionCreator built from these arguments; `raw_session()` is the plain
    session underneath."""

    def __init__(
        self,
        hooks=None,
        scaffold=None,
        master="",
        config=None,
        checkpoint_dir=None,
        stop_grace_period_secs=120,
        checkpoint_filename_with_path=None,
    ):
        creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(creator, hooks, stop_grace_period_secs, should_recover=False)

    def raw_session(self):
        return self._tf_sess


def _session_config():
    from tensorweave._src.client import session_config

    return session_config


def _merge_run_options(options, requested):
    """The caller's RunOptions (a copy) with the hooks' requests merged as TF1 does: the highest trace level and
    timeout, partition graphs if any asks."""
    merged = _session_config().RunOptions()
    for source in ([options] if options is not None else []) + requested:
        merged.trace_level = max(merged.trace_level, source.trace_level)
        merged.timeout_in_ms = max(merged.timeout_in_ms, source.timeout_in_ms)
        merged.inter_op_thread_pool = max(merged.inter_op_thread_pool, source.inter_op_thread_pool)
        merged.output_partition_graphs = merged.output_partition_graphs or source.output_partition_graphs
        merged.report_tensor_allocations_upon_oom = (
            merged.report_tensor_allocations_upon_oom or source.report_tensor_allocations_upon_oom
        )
    return merged


def MonitoredTrainingSession(  # noqa: N802 - TensorFlow's name
    master="",
    is_chief=True,
    checkpoint_dir=None,
    scaffold=None,
    hooks=None,
    chief_only_hooks=None,
    save_checkpoint_secs=USE_DEFAULT,
    save_summaries_steps=USE_DEFAULT,
    save_summaries_secs=USE_DEFAULT,
    config=None,
    stop_grace_period_secs=120,
    log_step_count_steps=100,
    max_wait_secs=7200,
    save_checkpoint_steps=USE_DEFAULT,
    summary_dir=None,
    save_graph_def=True,
):
    """A MonitoredSession for training, as TF1 builds it: the chief restores or initializes the model and
    (with `checkpoint_dir`) saves checkpoints every `save_checkpoint_secs` seconds (600 by default) or
    `save_checkpoint_steps` steps and logs the step rate every `log_step_count_steps` steps; other workers wait
    for the model to be ready. The chief writes the summaries (`tw.summary.merge_all()` unless the scaffold has a
    summary_op) to `summary_dir` (default: `checkpoint_dir`) every `save_summaries_steps` steps (100 by default)
    or `save_summaries_secs` seconds.

    Example:
      >>> import tempfile
      >>> import tensorweave as tw
      >>> d = tempfile.mkdtemp()
      >>> with tw.Graph().as_default():
      ...     step = tw.train.get_or_create_global_step()
      ...     train = tw.assign_add(step, 1)
      ...     with tw.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=2,
      ...                                            hooks=[tw.train.StopAtStepHook(num_steps=5)]) as sess:
      ...         while not sess.should_stop():
      ...             _ = sess.run(train)
      >>> print(tw.train.load_variable(d, "global_step"))
      5
    """
    if save_checkpoint_secs is USE_DEFAULT and save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
        save_checkpoint_secs = 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    all_hooks = []
    if is_chief and chief_only_hooks:
        all_hooks.extend(chief_only_hooks)
    if hooks:
        all_hooks.extend(hooks)
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    if summary_dir and log_step_count_steps and log_step_count_steps > 0:
        all_hooks.append(StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
    if summary_dir and ((save_summaries_steps or 0) > 0 or (save_summaries_secs or 0) > 0):
        all_hooks.append(
            SummarySaverHook(
                scaffold=scaffold,
                save_steps=save_summaries_steps,
                save_secs=save_summaries_secs,
                output_dir=summary_dir,
            )
        )
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(
                CheckpointSaverHook(
                    checkpoint_dir,
                    save_steps=save_checkpoint_steps,
                    save_secs=save_checkpoint_secs,
                    scaffold=scaffold,
                    save_graph_def=save_graph_def,
                )
            )
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
