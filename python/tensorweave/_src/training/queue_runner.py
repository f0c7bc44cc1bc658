"""QueueRunner: threads that keep a queue filled (TensorFlow v1's tf.train.QueueRunner, add_queue_runner,
start_queue_runners)."""

import logging
import threading
import weakref

from tensorweave._src.framework import errors, ops

_logger = logging.getLogger("tensorweave")


class QueueRunner:
    """Holds the enqueue ops of a queue; `create_threads` starts one thread per op, each running it in a loop.

    When every op's loop has ended with one of `queue_closed_exception_types` (default: OutOfRangeError, e.g. an
    input producer that has run out of epochs), the queue is closed with `close_op`, so that its consumers see
    OutOfRangeError once it is empty. With a coordinator, a further thread runs `cancel_op` (close with
    cancel_pending_enqueues) once a stop is requested, and an error in an enqueue op is reported to the
    coordinator.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     q = tw.FIFOQueue(10, tw.float32, shapes=[[]])
      ...     qr = tw.train.QueueRunner(q, [q.enqueue(1.0)] * 2)
      ...     with tw.Session() as sess:
      ...         coord = tw.train.Coordinator()
      ...         threads = qr.create_threads(sess, coord=coord, start=True)
      ...         print(sess.run(q.dequeue_many(3)).tolist())
      ...         coord.request_stop()
      ...         coord.join(threads)
      [1.0, 1.0, 1.0]
    """

    def __init__(
        self,
        queue=None,
        enqueue_ops=None,
        close_op=None,
        cancel_op=None,
        queue_closed_exception_types=None,
        queue_runner_def=None,
        import_scope=None,
    ):
        if queue_runner_def:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope=import_scope)
        else:
            self._init_from_args(queue, enqueue_ops, close_op, cancel_op, queue_closed_exception_types)
        self._lock = threading.Lock()
        # The number of enqueue loops still running, per session.
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    def _init_from_args(self, queue, enqueue_ops, close_op, cancel_op, queue_closed_exception_types):
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op
        self._cancel_op = cancel_op
        if queue_closed_exception_types is not None and (
            not isinstance(queue_closed_exception_types, tuple)
            or not queue_closed_exception_types
            or not all(isinstance(t, type) and issubclass(t, errors.OpError) for t in queue_closed_exception_types)
        ):
            raise TypeError(
                "queue_closed_exception_types, when provided, must be a tuple of tf.error types, but saw: "
                f"{queue_closed_exception_types}"
            )
        self._queue_closed_exception_types = queue_closed_exception_types
        if self._close_op is None:
            self._close_op = self._queue.close()
        if self._cancel_op is None:
            self._cancel_op = self._queue.close(cancel_pending_enqueues=True)
        if not self._queue_closed_exception_types:
            self._queue_closed_exception_types = (errors.OutOfRangeError,)
        else:
            self._queue_closed_exception_types = tuple(self._queue_closed_exception_types)

    def _init_from_proto(self, queue_runner_def, import_scope=None):
        # A dict with QueueRunnerDef's fields (tensorweave has no QueueRunnerDef protobuf).
        graph = ops.get_default_graph()

        def lookup(name):
            if import_scope:
                name = f"{import_scope}/{name}"
            return graph.as_graph_element(name)

        queue_name = queue_runner_def["queue_name"]
        self._queue = _QueueByName(lookup(queue_name))
        self._enqueue_ops = [lookup(op) for op in queue_runner_def["enqueue_op_name"]]
        self._close_op = lookup(queue_runner_def["close_op_name"])
        self._cancel_op = lookup(queue_runner_def["cancel_op_name"])
        codes = queue_runner_def.get("queue_closed_exception_types") or [errors.OUT_OF_RANGE]
        self._queue_closed_exception_types = tuple(errors.exception_type_from_error_code(c) for c in codes)

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """Exceptions raised by the enqueue threads (only those started without a coordinator)."""
        return self._exceptions_raised

    @property
    def name(self):
        """The name of the queue's op."""
        return self._queue.name

    def _run(self, sess, enqueue_op, coord=None):
        decremented = False
        try:
            enqueue_callable = sess.make_callable(enqueue_op)
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    enqueue_callable()
                except self._queue_closed_exception_types:
                    # This loop is done; the last one to end closes the queue.
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - as TF1: the session may be gone
                                _logger.debug("Ignored exception: %s", e)
                        return
        except Exception as e:
            if coord and coord.should_stop() and isinstance(e, errors.CancelledError):
                # The stop asked for is under way: closing the session cancelled this enqueue (TF1 raised it from
                # the thread, a traceback at every MonitoredTrainingSession exit of a SyncReplicasOptimizer chief).
                _logger.debug("Enqueue cancelled while stopping: %s", e)
            elif coord:
                coord.request_stop(e)
            else:
                _logger.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - as TF1: the session may be closed already
            _logger.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """Threads that run the enqueue ops in `sess` (none when this runner's threads for `sess` still run);
        with `coord`, they stop when it asks and are registered with it."""
        with self._lock:
            try:
                if self._runs_per_session[sess] > 0:
                    return []
            except KeyError:
                pass
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        ret_threads = []
        for op in self._enqueue_ops:
            name = f"QueueRunnerThread-{self.name}-{op.name}"
            ret_threads.append(threading.Thread(target=self._run, args=(sess, op, coord), name=name))
        if coord:
            name = f"QueueRunnerThread-{self.name}-close_on_stop"
            ret_threads.append(
                threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord), name=name)
            )
        for t in ret_threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return ret_threads

    def to_proto(self, export_scope=None):
        """QueueRunnerDef's fields as a dict (queue_name, enqueue_op_name, close_op_name, cancel_op_name,
        queue_closed_exception_types); None when the queue is outside `export_scope`."""

        def strip(name):
            if export_scope is None:
                return name
            if not name.startswith(export_scope + "/"):
                return None
            return name[len(export_scope) + 1 :]

        if export_scope is not None and strip(self.queue.name) is None:
            return None
        return {
            "queue_name": strip(self.queue.name),
            "enqueue_op_name": [strip(op.name) for op in self.enqueue_ops],
            "close_op_name": strip(self.close_op.name),
            "cancel_op_name": strip(self.cancel_op.name),
            "queue_closed_exception_types": [_error_code(t) for t in self._queue_closed_exception_types],
        }

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        """A QueueRunner from `to_proto`'s dict."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


def _error_code(exception_type):
    for code, cls in errors._CODE_TO_CLASS.items():
        if cls is exception_type:
            return code
    return errors.UNKNOWN


class _QueueByName:
    """The queue of a QueueRunner rebuilt from its def: what the runner uses of it (its name)."""

    def __init__(self, queue_ref):
        self.queue_ref = queue_ref
        self.name = queue_ref.op.name


def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Adds `qr` to the graph's collection (start_queue_runners starts what is there)."""
    ops.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in the graph's collection and returns them.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.train.limit_epochs(tw.constant([1, 2, 3]), num_epochs=1)
      ...     batch = tw.train.batch([x], batch_size=3, enqueue_many=True)
      ...     with tw.Session() as sess:
      ...         sess.run(tw.local_variables_initializer())
      ...         coord = tw.train.Coordinator()
      ...         threads = tw.train.start_queue_runners(sess, coord)
      ...         print(sess.run(batch).tolist())
      ...         coord.request_stop(); coord.join(threads)
      [1, 2, 3]
    """
    if sess is None:
        sess = ops.get_default_session()
        if not sess:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. Use `with sess.as_default()` or "
                "pass an explicit session to tf.start_queue_runners(sess=sess)"
            )
    from tensorweave._src.client.session import BaseSession

    if not isinstance(sess, BaseSession):
        if sess.__class__.__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    queue_runners = ops.get_collection(collection)
    if not queue_runners:
        _logger.warning(
            "`tf.train.start_queue_runners()` was called when no queue runners were defined. You can safely "
            "remove the call to this deprecated function."
        )
    with sess.graph.as_default():
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
