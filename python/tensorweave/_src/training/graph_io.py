"""Writing a graph to a file (TensorFlow v1's `tf.train.write_graph` / `tf.io.write_graph`)."""

import os

from tensorweave._src.framework import ops


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph's GraphDef to `logdir/name`, as protobuf text (`as_text`, the default) or binary;
    creates `logdir` when needed, writes atomically and returns the path.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default() as g:
      ...     _ = tw.constant(1.0, name="c")
      ...     path = tw.train.write_graph(g, tempfile.mkdtemp(), "graph.pbtxt")
      >>> print(open(path).read().splitlines()[:3])
      ['node {', '  name: "c"', '  op: "Const"']
    """
    from google.protobuf import text_format

    if isinstance(graph_or_graph_def, ops.Graph):
        graph_def = graph_or_graph_def.as_graph_def()
    elif hasattr(graph_or_graph_def, "SerializeToString"):
        graph_def = graph_or_graph_def
    else:
        raise TypeError(f"write_graph takes a Graph or a GraphDef, got {type(graph_or_graph_def).__name__}")
    logdir = os.fspath(logdir)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = text_format.MessageToString(graph_def).encode() if as_text else graph_def.SerializeToString()
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path
