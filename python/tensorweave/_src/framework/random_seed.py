"""Graph- and op-level seeds, combined as TensorFlow combines them."""

from tensorweave._src.framework import ops

DEFAULT_GRAPH_SEED = 87654321


def get_seed(op_seed):
    """(seed, seed2) for a random op: deterministic when the graph or the op
    has a seed, (None, None) when neither does."""
    graph = ops.get_default_graph()
    graph_seed = graph.seed
    if graph_seed is not None:
        if op_seed is None:
            op_seed = graph._next_op_seed()
        return graph_seed, op_seed
    if op_seed is not None:
        return DEFAULT_GRAPH_SEED, op_seed
    return None, None


def set_random_seed(seed):
    """Sets the graph-level seed of the default graph: random ops created
    afterwards give the same values in every fresh session."""
    ops.get_default_graph().seed = seed
