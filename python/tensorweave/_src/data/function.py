"""Tracing of tf.data functions (the bodies of map, filter, flat_map, interleave) into graphs of their own.

`trace(flat_fn, input_dtypes, input_shapes)` calls `flat_fn` once, with a new function graph as the default graph,
on one placeholder per element component, and serializes that graph. The C++ runtime (core/data/
captured_function.h) runs it once per element. The serialized form, the op's `f` / `predicate` string attr:

    b"twfn1\\n" name b"\\n" num_args b"\\n" arg tensor names (one a line) num_rets b"\\n" ret tensor names
    (one a line), then the GraphDef's bytes.

The args are placeholders of the function graph: first the element's components (`args_<i>`), then the captured
tensors (`captured_<i>`). A tensor of an outer graph that an op of the body takes (or that the body returns) is
*captured*: it becomes a placeholder of the body and an entry of `captured_inputs` (once per tensor), which the
caller passes as the op's `other_arguments`. A body traced inside another body (a flat_map whose function maps)
captures through each level: the outer body captures the tensor first, the inner one the outer's placeholder.

A variable the body uses is captured as its value (the `<var>/read` snapshot): its value when the dataset op runs
(when the iterator is initialized), not at each element. TensorFlow 1 with ref variables does the same (the
snapshot is an input of the dataset op); with resource variables TF captures the handle and reads at each call.

The body graph starts clean: no name scope, device scope, control dependencies, control-flow context or
collections of the outer graph apply inside. Control dependencies on ops of an outer graph are dropped (a
function cannot wait on an op of another graph; TF records them on the call op, which dataset ops lack). The
graph-level random seed is the outer graph's, so seeded random ops in a body repeat from run to run.
"""

import contextlib

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape

_MAGIC = b"twfn1"


class TracedFunction:
    """A traced function: what the dataset op needs."""

    def __init__(self, name, serialized, captured_inputs, output_dtypes, output_shapes, graph):
        self.name = name
        self.serialized = serialized  # bytes: the op's `f` / `predicate` attr
        self.captured_inputs = captured_inputs  # outer-graph tensors: the op's `other_arguments`
        self.output_dtypes = output_dtypes  # DType per output
        self.output_shapes = output_shapes  # TensorShape per output
        self.graph = graph  # the function graph (for inspection and tests)

    def __repr__(self):
        return (
            f"<TracedFunction {self.name!r}: {len(self.captured_inputs)} captured, "
            f"outputs {[d.name for d in self.output_dtypes]}>"
        )


class FunctionGraph(ops.Graph):
    """The graph of a function body: ops built in it that take tensors of the graphs around it capture them."""

    def __init__(self, outer_graph, name):
        super().__init__()
        self._outer_graph = outer_graph
        self.name = name
        self.seed = outer_graph.seed
        self.captured_inputs = []  # tensors of the outer graph, in the order of their placeholders
        self.captured_placeholders = []
        self._captures = {}  # (id(graph), tensor name) -> placeholder in this graph

    @property
    def outer_graph(self):
        return self._outer_graph

    def _encloses(self, graph):
        outer = self._outer_graph
        while outer is not None:
            if outer is graph:
                return True
            outer = getattr(outer, "_outer_graph", None)
        return False

    @contextlib.contextmanager
    def _clean_state(self):
        """No name scope, control dependency, control-flow context, device or colocation scope of the body's
        code applies to the placeholders of captures (they are the function's arguments)."""
        saved = (
            self._name_stack,
            self._control_stack,
            self._control_flow_context,
            self._device_stack,
            self._colocation_stack,
            self._attr_scope_map,
        )
        self._name_stack = ""
        self._control_stack = []
        self._control_flow_context = None
        self._device_stack = []
        self._colocation_stack = []
        self._attr_scope_map = {}
        try:
            yield
        finally:
            (
                self._name_stack,
                self._control_stack,
                self._control_flow_context,
                self._device_stack,
                self._colocation_stack,
                self._attr_scope_map,
            ) = saved

    def capture(self, tensor):
        """The placeholder of this graph that stands for `tensor` of an enclosing graph (made once)."""
        if tensor.graph is self:
            return tensor
        key = (id(tensor.graph), tensor.name)
        placeholder = self._captures.get(key)
        if placeholder is not None:
            return placeholder
        if not self._encloses(tensor.graph):
            raise ValueError(
                f"Tensor {tensor.name} is from a graph that does not enclose the function '{self.name}' being traced "
                "(a tensor of another graph, or of a function traced earlier): it cannot be captured."
            )
        outer_tensor = tensor
        if tensor.graph is not self._outer_graph:
            outer_tensor = self._outer_graph.capture(tensor)  # the outer function captures it first
        from tensorweave._src.ops import array_ops

        with self._clean_state(), self.as_default():
            placeholder = array_ops.placeholder(
                outer_tensor.dtype, outer_tensor.shape, name=f"captured_{len(self.captured_inputs)}"
            )
        self._captures[key] = placeholder
        self.captured_inputs.append(outer_tensor)
        self.captured_placeholders.append(placeholder)
        return placeholder

    def _maybe_capture(self, t):
        if isinstance(t, ops.Tensor) and t.graph is not self:
            return self.capture(t)
        return t

    def _current_control_dependencies(self):
        return [c for c in super()._current_control_dependencies() if c.graph is self]

    def _create_op(self, op_type, inputs, attrs=None, name=None, control_inputs=None):
        captured = []
        for item in inputs:
            if isinstance(item, (list, tuple)):
                captured.append(type(item)(self._maybe_capture(t) for t in item))
            else:
                captured.append(self._maybe_capture(item))
        if control_inputs:
            control_inputs = [c for c in control_inputs if (c if isinstance(c, ops.Operation) else c.op).graph is self]
        return super()._create_op(op_type, captured, attrs=attrs, name=name, control_inputs=control_inputs)


def _check_name(name):
    name = str(name)
    if "\n" in name or not name:
        raise ValueError(f"A function name must be a non-empty single line, got {name!r}")
    return name


def trace(flat_fn, input_dtypes, input_shapes, name="fn"):
    """Traces `flat_fn(list of placeholders) -> list of Tensors` into a function graph of its own.

    `input_dtypes` / `input_shapes`: one per element component (the placeholders' dtypes and static shapes).
    Returns a `TracedFunction` (its `serialized` is the dataset op's function attr, its `captured_inputs` the op's
    `other_arguments`).
    """
    name = _check_name(name)
    input_dtypes = [dtypes.as_dtype(d) for d in input_dtypes]
    input_shapes = [tensor_shape.as_shape(s) for s in input_shapes]
    if len(input_dtypes) != len(input_shapes):
        raise ValueError(f"trace: {len(input_dtypes)} input dtypes but {len(input_shapes)} input shapes")
    outer = ops.get_default_graph()
    graph = FunctionGraph(outer, name)
    from tensorweave._src.ops import array_ops

    with graph.as_default():
        args = [
            array_ops.placeholder(d, s, name=f"args_{i}") for i, (d, s) in enumerate(zip(input_dtypes, input_shapes))
        ]
        results = flat_fn(list(args))
        if isinstance(results, (ops.Tensor,)) or not isinstance(results, (list, tuple)):
            results = [results]
        outputs = []
        for i, r in enumerate(results):
            if isinstance(r, ops.Tensor) and r.graph is not graph:
                r = graph.capture(r)
            elif not isinstance(r, ops.Tensor):
                r = ops.convert_to_tensor(r, name=f"output_{i}")
            if r._is_ref:
                r = array_ops.identity(r, name=f"output_{i}")
            outputs.append(r)
    arg_names = [t.name for t in args] + [t.name for t in graph.captured_placeholders]
    ret_names = [t.name for t in outputs]
    header = [_MAGIC, name.encode(), str(len(arg_names)).encode()]
    header += [n.encode() for n in arg_names]
    header += [str(len(ret_names)).encode()] + [n.encode() for n in ret_names]
    serialized = b"\n".join(header) + b"\n" + graph._c.to_graph_def()
    graph.finalize()
    return TracedFunction(
        name,
        serialized,
        list(graph.captured_inputs),
        [t.dtype for t in outputs],
        [t.shape for t in outputs],
        graph,
    )
