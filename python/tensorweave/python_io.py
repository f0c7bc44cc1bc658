"""tw.python_io: TFRecord files (TensorFlow v1's `tf.python_io`), byte-compatible with TensorFlow's.

Example:
  >>> import os, tempfile
  >>> import tensorweave as tw
  >>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
  >>> with tw.python_io.TFRecordWriter(path, tw.python_io.TFRecordOptions("GZIP")) as writer:
  ...     writer.write(b"record")
  >>> list(tw.python_io.tf_record_iterator(path, options="GZIP"))
  [b'record']
"""

from tensorweave._src.platform.tf_record import TFRecordCompressionType
from tensorweave._src.platform.tf_record import TFRecordOptions
from tensorweave._src.platform.tf_record import TFRecordWriter
from tensorweave._src.platform.tf_record import tf_record_iterator
