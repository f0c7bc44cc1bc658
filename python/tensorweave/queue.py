"""tensorweave.queue: the queues under TF's `tf.queue` names (the same classes as `tw.FIFOQueue`, ...).

Example:
  >>> import tensorweave as tw
  >>> tw.queue.FIFOQueue is tw.FIFOQueue
  True
"""

from tensorweave._src.ops.queue_ops import FIFOQueue
from tensorweave._src.ops.queue_ops import PaddingFIFOQueue
from tensorweave._src.ops.queue_ops import PriorityQueue
from tensorweave._src.ops.queue_ops import QueueBase
from tensorweave._src.ops.queue_ops import RandomShuffleQueue

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]
