"""tw.data: input pipelines (TensorFlow 1's `tf.compat.v1.data`).

A `Dataset` describes a sequence of elements (nests of tensors) built from tensors, Python generators or files
and transformed (`map`, `filter`, `batch`, `shuffle`, `repeat`, ...); an `Iterator` walks it in the session, one
element per run of `get_next()`, and fails with `OutOfRangeError` at the end.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     ds = tw.data.Dataset.range(10).filter(lambda x: tw.equal(x % 3, 0)).batch(2)
  ...     nxt = tw.data.make_one_shot_iterator(ds).get_next()
  ...     with tw.Session() as sess:
  ...         out = []
  ...         try:
  ...             while True:
  ...                 out.append(sess.run(nxt).tolist())
  ...         except tw.errors.OutOfRangeError:
  ...             pass
  >>> out
  [[0, 3], [6, 9]]
"""

from tensorweave._src.data.dataset_ops import (
    AUTOTUNE,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from tensorweave._src.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tensorweave._src.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from tensorweave._src.data.dataset_ops import DatasetV1 as Dataset
from tensorweave._src.data.dataset_ops import FixedLengthRecordDatasetV1 as FixedLengthRecordDataset
from tensorweave._src.data.dataset_ops import TextLineDatasetV1 as TextLineDataset
from tensorweave._src.data.dataset_ops import TFRecordDatasetV1 as TFRecordDataset
from tensorweave._src.data.iterator_ops import Iterator
from tensorweave._src.data.options import Options, ThreadingOptions
from tensorweave._src.data.structure import DatasetSpec
from tensorweave.data import experimental

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "Iterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "ThreadingOptions",
    "experimental",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
