"""A traced step as a Chrome trace (TensorFlow's `tensorflow.python.client.timeline`).

Example:
  >>> import tensorweave as tw
  >>> from tensorweave.python.client import timeline
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     y = tw.constant(3.0) * 2.0
  ...     metadata = tw.RunMetadata()
  ...     _ = sess.run(y, options=tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE), run_metadata=metadata)
  >>> trace = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format()
  >>> trace.startswith("{")
  True
"""

from tensorweave._src.client.timeline import AllocationMaximum
from tensorweave._src.client.timeline import StepStatsAnalysis
from tensorweave._src.client.timeline import Timeline

__all__ = ["AllocationMaximum", "StepStatsAnalysis", "Timeline"]
