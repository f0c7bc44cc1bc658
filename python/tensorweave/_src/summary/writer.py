"""TF1's `tf.summary.FileWriter` and `FileWriterCache`: Event protos in a TFRecord file
`<logdir>/events.out.tfevents.<seconds>.<hostname><suffix>` (masked CRC32C framing, tensorweave's TFRecord
writer), first the `file_version` event "brain.Event:2" as TensorFlow writes it, readable by TensorBoard.

Events are written as they are added (no writer thread) and flushed at `flush()`, `close()` and after
`flush_secs`. As TF1, using a closed writer warns and does nothing until `reopen()` (which starts a new file).
"""

import os
import socket
import threading
import time
import warnings

from tensorweave._src.framework import ops
from tensorweave._src.platform import tf_record
from tensorweave._src.summary import protos


class _EventFileWriter:
    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = str(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._writer = None
        self._closed = False
        self._open()

    def _open(self):
        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}{self._suffix}"
        self._path = os.path.join(self._logdir, name)
        self._writer = tf_record.TFRecordWriter(self._path)
        self._last_flush = now
        first = protos.pb2().Event(wall_time=now, file_version="brain.Event:2")
        self._writer.write(first.SerializeToString())
        self._writer.flush()

    def add_event(self, event):
        with self._lock:
            if self._closed:
                return
            self._writer.write(event.SerializeToString())
            if time.time() - self._last_flush >= self._flush_secs:
                self._writer.flush()
                self._last_flush = time.time()

    def flush(self):
        with self._lock:
            if not self._closed:
                self._writer.flush()
                self._last_flush = time.time()

    def close(self):
        with self._lock:
            if not self._closed:
                self._writer.close()
                self._closed = True

    def reopen(self):
        with self._lock:
            if self._closed:
                self._closed = False
                self._open()


def _serialized(message):
    return message if isinstance(message, bytes) else message.SerializeToString()


def _meta_graph_pb2():
    from tensorweave._src.training import meta_graph

    return meta_graph._pb2()


class FileWriter:
    """Writes Summary protocol buffers (and graphs, session logs, events) to event files for TensorBoard.

    Example:
      >>> import tempfile
      >>> import tensorweave as tw
      >>> logdir = tempfile.mkdtemp()
      >>> with tw.Graph().as_default() as g, tw.Session() as sess:
      ...     s = tw.summary.scalar("loss", tw.constant(0.25))
      ...     with tw.summary.FileWriter(logdir, graph=g) as writer:
      ...         writer.add_summary(sess.run(s), global_step=3)
    """

    def __init__(
        self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None, session=None
    ):
        self.event_writer = _EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        self._seen_summary_tags = set()
        self._session_run_tags = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
            # As TF1, a graph given at construction is also written as a MetaGraphDef (its graph only).
            gdef = graph.as_graph_def(add_shapes=True) if isinstance(graph, ops.Graph) else graph_def
            from tensorweave._src.training import meta_graph

            meta = _meta_graph_pb2().MetaGraphDef()
            meta_graph.set_graph_def(meta, gdef)
            self.add_meta_graph(meta)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def get_logdir(self):
        """The directory the event files are written in."""
        return self.event_writer._logdir

    def _warn_if_event_writer_is_closed(self):
        if self._closed:
            warnings.warn(
                "Attempting to use a closed FileWriter. The operation will be a noop unless the FileWriter "
                "is explicitly reopened.",
                stacklevel=3,
            )

    def _add_event(self, event, step):
        self._warn_if_event_writer_is_closed()
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Adds a Summary (a proto, or its serialized bytes as a summary op returns) at `global_step`. As TF1,
        a value's metadata is kept only the first time its tag is written."""
        pb2 = protos.pb2()
        if isinstance(summary, bytes):
            summary = pb2.Summary.FromString(summary)
        elif not isinstance(summary, pb2.Summary):
            # A tensorflow-built (or other) Summary proto: the same fields on the wire.
            summary = pb2.Summary.FromString(summary.SerializeToString())
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Adds a SessionLog (START, STOP, CHECKPOINT) at `global_step`."""
        self._add_event(protos.pb2().Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Adds a graph (a Graph, or the deprecated GraphDef, as `graph` or `graph_def`) for TensorBoard's
        graph view; anything else is a TypeError, both at once a ValueError (as TF1)."""
        from tensorweave._src.framework import graph_pb2

        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        given = graph if graph is not None else graph_def
        if isinstance(given, ops.Graph):
            true_graph_def = given.as_graph_def(add_shapes=True)
        elif isinstance(given, graph_pb2.GraphDef) or type(given).__name__ == "GraphDef":
            true_graph_def = given  # tensorweave's GraphDef, or another with TF's fields
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated `GraphDef`")
        self._add_event(protos.pb2().Event(graph_def=_serialized(true_graph_def)), global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Adds a MetaGraphDef (from which `train.import_meta_graph` rebuilds the graph); anything else is a
        TypeError (as TF1)."""
        if type(meta_graph_def).__name__ != "MetaGraphDef":
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}")
        self._add_event(protos.pb2().Event(meta_graph_def=meta_graph_def.SerializeToString()), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Adds a step's RunMetadata (`tw.RunMetadata` from a traced `Session.run`: its step_stats and
        partition graphs) under `tag`, for TensorBoard's graph view. A tag used before is a ValueError (as
        TF1)."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags.add(tag)
        pb2 = protos.pb2()
        data = run_metadata.SerializeToString()
        event = pb2.Event(tagged_run_metadata=pb2.TaggedRunMetadata(tag=tag, run_metadata=data))
        self._add_event(event, global_step)

    def add_event(self, event):
        """Adds an Event proto as it is."""
        self._warn_if_event_writer_is_closed()
        self.event_writer.add_event(event)

    def flush(self):
        """Writes the pending events to disk."""
        self._warn_if_event_writer_is_closed()
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the event file."""
        self.event_writer.close()
        self._closed = True

    def reopen(self):
        """After close(): a new event file in the same directory takes the events."""
        self.event_writer.reopen()
        self._closed = False


class FileWriterCache:
    """One FileWriter per log directory, shared (TF1's FileWriterCache)."""

    _cache = {}  # noqa: RUF012 - the shared cache, as TF1's
    _lock = threading.RLock()

    @staticmethod
    def clear():
        """Closes and forgets every cached FileWriter."""
        with FileWriterCache._lock:
            for item in FileWriterCache._cache.values():
                item.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir):
        """The FileWriter of `logdir`, created (with the default graph) the first time."""
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir, graph=ops.get_default_graph())
            return FileWriterCache._cache[logdir]


def summary_iterator(path):
    """Yields the `Event` protos of an event file that a FileWriter (or TensorFlow) wrote, in order
    (`tw.train.summary_iterator`, TF1's name); DataLossError at a corrupted or truncated record."""
    from tensorweave._src.platform.tf_record import tf_record_iterator
    from tensorweave._src.summary.protos import Event

    for record in tf_record_iterator(path):
        yield Event.FromString(record)
