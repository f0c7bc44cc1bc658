"""Graph- and op-level seeds, combined as TensorFlow 1 combines them
(`tf.compat.v1.get_seed`)."""

import contextlib

from tensorweave._src.framework import ops

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_UNROLLED_STEP_SEEDS = 2**30  # where the op-seed offsets of unrolled loop steps start (far above a graph's count)


def _truncate_seed(seed):
    return seed % _MAXINT32  # Truncate to fit into 32-bit integer


def get_seed(op_seed):
    """The (graph seed, op seed) pair a random op uses, by TF1's rules.

    With a graph seed: (graph seed, op_seed), an unseeded op taking the
    graph's next seed offset (0, 1, 2, ... per call, as TensorFlow's graphs
    count them), so the same program gives the same numbers in every fresh
    session. With only an op seed: (DEFAULT_GRAPH_SEED, op_seed). With
    neither: (None, None), different numbers every time. Seeds are taken
    modulo 2**31 - 1, and (0, 0) becomes (0, 2**31 - 1): the kernels read
    (0, 0) as "no seed".

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     tw.set_random_seed(1)
      ...     print(tw.get_seed(5), tw.get_seed(None), tw.get_seed(None))
      (1, 5) (1, 0) (1, 1)
    """
    graph = ops.get_default_graph()
    graph_seed = graph.seed
    if graph_seed is not None:
        if op_seed is None:
            op_seed = graph._last_op_seed  # TensorFlow's graph._seed_offset
            graph._last_op_seed += 1
        seeds = _truncate_seed(graph_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def set_random_seed(seed):
    """Sets the graph-level seed of the default graph: random ops created
    afterwards give the same values in every fresh session."""
    ops.get_default_graph().seed = seed


@contextlib.contextmanager
def unrolled_loop_steps(graph):
    """Inside: unseeded random ops take graph-seed offsets from a range of their own, not the graph's count.

    dynamic_rnn unrolls a loop over a known number of steps that TensorFlow builds once, as a while_loop body:
    running the steps after the first in here, only the first step's random ops (a DropoutWrapper's) take the
    graph's offsets, as in TF, and every op built after the loop gets the seed it would get in TF. The later
    steps still draw with offsets of their own, different from each other and from the graph's other ops.
    """
    counted = graph._last_op_seed
    graph._last_op_seed = getattr(graph, "_unrolled_op_seed", _UNROLLED_STEP_SEEDS)
    try:
        yield
    finally:
        graph._unrolled_op_seed = graph._last_op_seed
        graph._last_op_seed = counted
