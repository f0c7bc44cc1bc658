"""tensorweave.profiler: TF1's `tf.profiler` — FLOPs and parameter counts of a
graph, per-node time and bytes of a traced step.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default() as g:
  ...     w = tw.Variable(tw.zeros([3, 3, 3, 5]), name="w")
  ...     opts = tw.profiler.ProfileOptionBuilder(
  ...         tw.profiler.ProfileOptionBuilder.trainable_variables_parameter()).with_empty_output().build()
  ...     tw.profiler.profile(g, options=opts).total_parameters
  135
"""

from tensorweave._src.client.profiler import GraphNodeProto
from tensorweave._src.client.profiler import MultiGraphNodeProto
from tensorweave._src.client.profiler import ProfileOptionBuilder
from tensorweave._src.client.profiler import Profiler
from tensorweave._src.client.profiler import profile

__all__ = ["GraphNodeProto", "MultiGraphNodeProto", "ProfileOptionBuilder", "Profiler", "profile"]
