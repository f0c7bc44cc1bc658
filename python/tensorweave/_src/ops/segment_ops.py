"""Segment reductions (tf.math.segment_* and unsorted_segment_*), as TensorFlow 1 builds them: one op each, and
TF's composites for unsorted_segment_mean and unsorted_segment_sqrt_n."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops.array_ops import _index_tensor
from tensorweave._src.ops.array_ops import unsorted_segment_sum


def _segment(op_type, data, segment_ids, name):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        data = ops.convert_to_tensor(data, name="data")
        ids = _index_tensor(segment_ids, "segment_ids")
        return gen_ops.wrapper(op_type)(data, ids, name=scope)


def _unsorted(op_type, data, segment_ids, num_segments, name):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        data = ops.convert_to_tensor(data, name="data")
        ids = _index_tensor(segment_ids, "segment_ids")
        n = _index_tensor(num_segments, "num_segments")
        return gen_ops.wrapper(op_type)(data, ids, n, name=scope)


def segment_sum(data, segment_ids, name=None):
    """The sum of the rows of data in each segment (segment_ids: sorted, one per row).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.segment_sum([1, 2, 3, 4], [0, 0, 2, 2])))
      [3 0 7]
    """
    return _segment("SegmentSum", data, segment_ids, name)


def segment_mean(data, segment_ids, name=None):
    """The mean of the rows of data in each segment (0 for an empty one)."""
    return _segment("SegmentMean", data, segment_ids, name)


def segment_prod(data, segment_ids, name=None):
    """The product of the rows of data in each segment (1 for an empty one)."""
    return _segment("SegmentProd", data, segment_ids, name)


def segment_min(data, segment_ids, name=None):
    """The minimum of the rows of data in each segment (0 for an empty one)."""
    return _segment("SegmentMin", data, segment_ids, name)


def segment_max(data, segment_ids, name=None):
    """The maximum of the rows of data in each segment (0 for an empty one)."""
    return _segment("SegmentMax", data, segment_ids, name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product over each of num_segments segments (ids in any order; negative ids dropped)."""
    return _unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The minimum over each segment (the dtype's largest value for an empty one)."""
    return _unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The maximum over each segment (the dtype's lowest value for an empty one).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.unsorted_segment_max([1, 5, 3], [1, 0, 1], 2)))
      [5 3]
    """
    return _unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def _unsorted_segment_n(data, segment_ids, num_segments):
    """The number of elements in each segment, at least 1, shaped to broadcast against the segment sums."""
    num_segments = ops.convert_to_tensor(num_segments)
    ones_tensor = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = gen_ops.unsorted_segment_sum(ones_tensor, segment_ids, num_segments)
    ones = array_ops.ones(
        array_ops.reshape(array_ops.rank(data) - array_ops.rank(segment_ids), [1]), dtype=num_segments.dtype
    )
    broadcastable_shape = array_ops.concat([array_ops.reshape(num_segments, [1]), ones], axis=0)
    n = array_ops.reshape(n, broadcastable_shape)
    return math_ops.maximum(n, ops.convert_to_tensor(1, dtype=data.dtype))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean over each segment (0 for an empty one): the sum divided by the count."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "UnsortedSegmentMean"):
        data = ops.convert_to_tensor(data, name="data")
        segment_ids = _index_tensor(segment_ids, "segment_ids")
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = unsorted_segment_sum(data, segment_ids, num_segments)
        return summed / n


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum over each segment divided by the square root of its count."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "UnsortedSegmentSqrtN"):
        data = ops.convert_to_tensor(data, name="data")
        if not data.dtype.is_floating:
            raise TypeError(f"unsorted_segment_sqrt_n needs float data, got {data.dtype.name}")
        segment_ids = _index_tensor(segment_ids, "segment_ids")
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = unsorted_segment_sum(data, segment_ids, num_segments)
        return summed / math_ops.sqrt(n)
