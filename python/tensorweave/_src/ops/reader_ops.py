"""TF1's readers: `tf.ReaderBase`, `TFRecordReader`, `TextLineReader`, `WholeFileReader`,
`FixedLengthRecordReader`, `IdentityReader` (kernels in core/kernels/reader_ops.cc).

A reader turns work units (filenames) from a queue of strings into records: `read(queue)` gives the next
(key, value), dequeuing a filename when the current file is done; a closed, empty queue ends it with
`OutOfRangeError`, which a `tf.train.Coordinator` treats as the normal end of the input.
"""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, gradients_impl
from tensorweave._src.platform.tf_record import TFRecordOptions


def _queue_ref(queue):
    return queue if isinstance(queue, ops.Tensor) else queue.queue_ref


class ReaderBase:
    """A reader: a handle of a reader resource of the session, with its methods.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> path = os.path.join(tempfile.mkdtemp(), "lines.txt")
      >>> with open(path, "w") as f:
      ...     _ = f.write("a\\nb\\n")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     queue = tw.FIFOQueue(2, tw.string)
      ...     sess.run(queue.enqueue_many([[path]]))
      ...     sess.run(queue.close())
      ...     key, value = tw.TextLineReader().read(queue)
      ...     print(sess.run(value), sess.run(value))
      b'a' b'b'
    """

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        """The reader's handle (a string scalar tensor)."""
        return self._reader_ref

    @property
    def supports_serialize(self):
        """Whether `serialize_state` and `restore_state` work for this reader."""
        return self._supports_serialize

    def read(self, queue, name=None):
        """The next record (key, value): string scalars. Dequeues a work unit from `queue` (a queue or its
        handle) when the reader needs one, waiting for it; OutOfRangeError when the queue is closed and empty."""
        return tuple(gen_ops.wrapper("ReaderReadV2")(self._reader_ref, _queue_ref(queue), name=name))

    def read_up_to(self, queue, num_records, name=None):
        """Up to `num_records` (>= 0) records (keys, values), string vectors; fewer where a work unit ends after at
        least one record of this call."""
        num = ops.convert_to_tensor(num_records, dtype=dtypes.int64)
        return tuple(gen_ops.wrapper("ReaderReadUpToV2")(self._reader_ref, _queue_ref(queue), num, name=name))

    def num_records_produced(self, name=None):
        """How many records the reader has produced (int64 scalar)."""
        return gen_ops.wrapper("ReaderNumRecordsProducedV2")(self._reader_ref, name=name)

    def num_work_units_completed(self, name=None):
        """How many work units (files) the reader has finished (int64 scalar)."""
        return gen_ops.wrapper("ReaderNumWorkUnitsCompletedV2")(self._reader_ref, name=name)

    def serialize_state(self, name=None):
        """The reader's state as a string scalar (UnimplementedError where `supports_serialize` is False)."""
        return gen_ops.wrapper("ReaderSerializeStateV2")(self._reader_ref, name=name)

    def restore_state(self, state, name=None):
        """Restores a state `serialize_state` produced (InvalidArgumentError for one that does not parse)."""
        return gen_ops.wrapper("ReaderRestoreStateV2")(
            self._reader_ref, ops.convert_to_tensor(state, dtype=dtypes.string), name=name
        )

    def reset(self, name=None):
        """Returns the reader to its initial state (no work unit, counts 0)."""
        return gen_ops.wrapper("ReaderResetV2")(self._reader_ref, name=name)


def _create(op_type, name, **attrs):
    # As TF1's readers: the creating op waits on no surrounding control dependencies.
    with ops.get_default_graph().control_dependencies(None):
        return gen_ops.wrapper(op_type)(name=name, **attrs)


class TFRecordReader(ReaderBase):
    """Reads the records of TFRecord files; a key is "<filename>:<byte offset of the record>".

    `options`: a `tf.io.TFRecordOptions` or `TFRecordCompressionType` (GZIP/ZLIB files), or None.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
      >>> with tw.io.TFRecordWriter(path) as w:
      ...     w.write(b"x")
      ...     w.write(b"yz")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     queue = tw.FIFOQueue(2, tw.string)
      ...     sess.run(queue.enqueue([path]))
      ...     keys, values = tw.TFRecordReader().read_up_to(queue, 5)
      ...     print(sess.run(values))
      [b'x' b'yz']
    """

    def __init__(self, name=None, options=None):
        compression_type = TFRecordOptions.get_compression_type_string(options)
        super().__init__(_create("TFRecordReaderV2", name, compression_type=compression_type))


class TextLineReader(ReaderBase):
    """Reads the lines of files (without the newline); a key is "<filename>:<line number from 1>".
    `skip_header_lines` lines of each file are skipped (they still count in the line numbers)."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_create("TextLineReaderV2", name, skip_header_lines=int(skip_header_lines or 0)))


class WholeFileReader(ReaderBase):
    """Reads each file as one record: key the filename, value its contents."""

    def __init__(self, name=None):
        super().__init__(_create("WholeFileReaderV2", name), supports_serialize=True)


class FixedLengthRecordReader(ReaderBase):
    """Reads records of `record_bytes` bytes after `header_bytes`, starting `hop_bytes` apart (None or 0:
    `record_bytes`), while a whole record and `footer_bytes` remain; a key is "<filename>:<record number from 0>".
    `encoding`: None, "ZLIB" or "GZIP" (compressed files)."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None, encoding=None):
        super().__init__(
            _create(
                "FixedLengthRecordReaderV2",
                name,
                record_bytes=int(record_bytes),
                header_bytes=int(header_bytes or 0),
                footer_bytes=int(footer_bytes or 0),
                hop_bytes=int(hop_bytes or 0),
                encoding=encoding or "",
            )
        )


class IdentityReader(ReaderBase):
    """Outputs each work unit itself as one record (key and value), e.g. to test a pipeline."""

    def __init__(self, name=None):
        super().__init__(_create("IdentityReaderV2", name), supports_serialize=True)


for _op in (
    "TFRecordReaderV2",
    "TextLineReaderV2",
    "WholeFileReaderV2",
    "FixedLengthRecordReaderV2",
    "IdentityReaderV2",
    "ReaderReadV2",
    "ReaderReadUpToV2",
    "ReaderNumRecordsProducedV2",
    "ReaderNumWorkUnitsCompletedV2",
    "ReaderSerializeStateV2",
    "ReaderRestoreStateV2",
    "ReaderResetV2",
):
    gradients_impl.NotDifferentiable(_op)
