"""tw.summary: TF1's tf.compat.v1.summary — summary ops, their protos and FileWriter for TensorBoard.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     _ = tw.summary.scalar("loss", tw.constant(0.5))
  ...     merged = tw.summary.merge_all()
  ...     print([v.simple_value for v in tw.summary.Summary.FromString(sess.run(merged)).value])
  [0.5]
"""

from tensorweave._src.summary import protos as _protos
from tensorweave._src.summary.summary_ops import (
    audio,
    get_summary_description,
    histogram,
    image,
    merge,
    merge_all,
    scalar,
    tensor_summary,
    text,
)
from tensorweave._src.summary.writer import FileWriter, FileWriterCache

_PROTOS = ("Summary", "SummaryDescription", "Event", "SessionLog", "TaggedRunMetadata")


def __getattr__(name):
    if name in _PROTOS:
        return getattr(_protos.pb2(), name)
    raise AttributeError(f"module 'tensorweave.summary' has no attribute '{name}'")


__all__ = [  # noqa: F822 - the protos come from __getattr__
    "Event",
    "FileWriter",
    "FileWriterCache",
    "SessionLog",
    "Summary",
    "SummaryDescription",
    "TaggedRunMetadata",
    "audio",
    "get_summary_description",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "tensor_summary",
    "text",
]
