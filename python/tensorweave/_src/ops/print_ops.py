"""tf.print (PrintV2's semantics) and tf.py_function, on tensorweave's py_func machinery."""

import sys

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, script_ops
from tensorweave._src.util import nest as structure


def _format(value, summarize):
    if isinstance(value, _TensorValue):
        value = value.value
        if value.dtype.kind in "SO" and value.ndim == 0:
            v = value.item()
            return '"%s"' % (v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
    elif isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    a = np.asarray(value)

    def fmt_float(x):
        return "%g" % x  # noqa: UP031

    def fmt_str(x):
        return '"%s"' % (x.decode("utf-8", "replace") if isinstance(x, bytes) else x)

    formatter = {"float_kind": fmt_float, "int_kind": str, "bool": lambda x: "1" if x else "0"}
    if a.dtype.kind in "SO":
        formatter = {"all": fmt_str}
    threshold = sys.maxsize if summarize is None or summarize < 0 else 0
    edge = 3 if summarize is None or summarize < 0 else summarize
    return np.array2string(
        a, separator=" ", threshold=threshold, edgeitems=edge, formatter=formatter, max_line_width=sys.maxsize
    )


def print_v2(*inputs, output_stream=sys.stderr, sep=" ", end="\n", summarize=3, name=None):
    """Prints `inputs` (tensors and Python values, nested) when the returned op runs (TF's tf.print).

    output_stream: sys.stderr (default), sys.stdout, "file://<path>" (appended to), or a logging function
    (tw.logging.info, ...). Returns the op (use it in control_dependencies or run it)."""
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(
                f"Unsupported output stream, logging level, or file.{output_stream}. Supported streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. File needs to be in the form of 'file://<filepath>'."
            )
    elif not (output_stream in (sys.stdout, sys.stderr) or callable(output_stream) or hasattr(output_stream, "write")):
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}.")
    flat = structure.flatten(list(inputs))
    tensor_positions = [
        i
        for i, x in enumerate(flat)
        if isinstance(x, (ops.Tensor,)) or hasattr(x, "_as_graph_element") or type(x).__name__ == "Variable"
    ]
    tensors = [ops.convert_to_tensor(flat[i]) for i in tensor_positions]

    def emit(*values):
        items = list(flat)
        for pos, v in zip(tensor_positions, values):
            items[pos] = _TensorValue(v)
        packed = structure.pack_sequence_as(list(inputs), items)
        text = sep.join(
            _format(x, summarize) if not isinstance(x, (list, tuple, dict)) else _format_nested(x, summarize)
            for x in packed
        )
        if isinstance(output_stream, str):
            with open(output_stream[len("file://") :], "a") as f:
                f.write(text + end)
        elif output_stream in (sys.stdout, sys.stderr) or hasattr(output_stream, "write"):
            output_stream.write(text + end)
            output_stream.flush()
        else:
            output_stream(text)
        return []

    with script_ops._LOCK:
        token = f"pyfunc_{next(script_ops._TOKENS)}"
        script_ops._FUNCS[token] = emit
    graph = ops.get_default_graph()
    with graph.name_scope(name or "PrintV2") as scope:
        result = gen_ops.py_func(tensors, token=token, Tout=[], name=scope)
    if isinstance(result, ops.Operation):
        return result
    return graph.get_operation_by_name(scope.removesuffix("/"))


class _TensorValue:
    """A fetched tensor's value (printed as TF prints tensors: strings quoted)."""

    def __init__(self, value):
        self.value = np.asarray(value)


def _format_nested(x, summarize):
    if isinstance(x, dict):
        return "{" + ", ".join(f"'{k}': {_format_nested(v, summarize)}" for k, v in sorted(x.items())) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_format_nested(v, summarize) for v in x) + "]"
    if isinstance(x, str):
        return "'" + x + "'"
    return _format(x, summarize)


class _EagerValue(np.ndarray):
    """A py_function argument: the input's numpy array, which also answers EagerTensor's .numpy() (a scalar
    for a 0-d tensor: bytes for a string, as TF's)."""

    def numpy(self):
        value = np.asarray(self)
        return value[()] if value.ndim == 0 else value


def _eagerly(func):
    """`func` run as TF runs a py_function's body, eagerly: the tw ops it applies to its arguments are built in
    a graph of their own and their values returned (where TF gives eager tensors)."""

    def call(*args):
        with ops.Graph().as_default() as graph:
            result = func(*[np.asarray(a).view(_EagerValue) for a in args])
            flat = structure.flatten(result)
            tensors = [t for t in flat if isinstance(t, ops.Tensor)]
            if not tensors:
                return result
            from tensorweave._src.client import session

            with session.Session(graph=graph) as sess:
                values = iter(sess.run(tensors))
            return structure.pack_sequence_as(result, [next(values) if isinstance(t, ops.Tensor) else t for t in flat])

    return call


def py_function(func=None, inp=None, Tout=None, name=None):
    """TF's tf.py_function in graph mode: `func` runs on the input values, arrays that also have EagerTensor's
    .numpy(), and the tw ops it applies to them run at once (as TF's eager body); Tout a dtype or a list of
    dtypes (None: no outputs, the op is returned).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y = tw.py_function(lambda x: tw.reduce_sum(x) * 2.0, [tw.constant([1.0, 2.0])], tw.float32)
      ...     print(sess.run(y))
      6.0
    """
    if Tout is None:
        return print_free_op(_eagerly(func), inp or [], name)
    return script_ops.py_func(_eagerly(func), inp or [], Tout, stateful=True, name=name or "EagerPyFunc")


def print_free_op(func, inp, name):
    def call(*args):
        func(*args)
        return []

    with script_ops._LOCK:
        token = f"pyfunc_{next(script_ops._TOKENS)}"
        script_ops._FUNCS[token] = call
    graph = ops.get_default_graph()
    with graph.name_scope(name or "EagerPyFunc") as scope:
        inputs = [ops.convert_to_tensor(x) for x in inp]
        result = gen_ops.py_func(inputs, token=token, Tout=[], name=scope)
    if isinstance(result, ops.Operation):
        return result
    return graph.get_operation_by_name(scope[:-1])


del dtypes
