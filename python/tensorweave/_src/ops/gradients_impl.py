"""Automatic differentiation as a library: `gradients(ys, xs)` adds the
gradient computation to the graph, op by op, from one table of gradient
functions (one registration per op type).

A gradient function takes the forward `Operation` and the gradients of its
outputs (one argument per output; None for an output nothing depends on)
and returns one gradient per input (None where there is none).
"""

import collections
import contextlib
import weakref

from tensorweave._src.framework import ops

_GRADIENTS = {}
_NOT_DIFFERENTIABLE = set()

# The op types whose gradient functions take an IndexedSlices gradient as it is (a gather's gradient passing
# through a variable's read); every other gradient function gets it converted to a dense tensor first.
_TAKES_INDEXED_SLICES = {"Identity", "Snapshot", "ReadVariableOp"}


def _indexed_slices_class():
    from tensorweave._src.framework.indexed_slices import IndexedSlices

    return IndexedSlices


def _densify(grad):
    if isinstance(grad, _indexed_slices_class()):
        return ops.convert_to_tensor(grad)
    return grad


class RegisterGradient:
    """Decorator registering the gradient function of an op type.

    Example:
      >>> import tensorweave as tw
      >>> @tw.RegisterGradient("MyIdentityForDocs")
      ... def _my_identity_grad(op, grad):
      ...     return [grad]
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _GRADIENTS or self._op_type in _NOT_DIFFERENTIABLE:
            raise KeyError(f"A gradient for op type '{self._op_type}' is already registered")
        _GRADIENTS[self._op_type] = fn
        return fn


def NotDifferentiable(op_type):  # noqa: N802 - TensorFlow's name
    """Declares that ops of `op_type` have no gradient (e.g. Shape, ArgMax):
    gradients do not flow through them."""
    if op_type in _GRADIENTS:
        raise KeyError(f"op type '{op_type}' already has a gradient")
    _NOT_DIFFERENTIABLE.add(op_type)


no_gradient = NotDifferentiable


def get_gradient_function(op):
    """The registered gradient function of `op`, None if not differentiable."""
    override = getattr(op, "_custom_gradient_fn", None)  # tw.custom_gradient's IdentityN
    if override is not None:
        return override
    try:
        op_type = op.get_attr("_gradient_op_type")  # set under Graph.gradient_override_map
        op_type = op_type.decode() if isinstance(op_type, bytes) else op_type
    except ValueError:
        op_type = op.type
    if op_type in _NOT_DIFFERENTIABLE:
        return None
    try:
        return _GRADIENTS[op_type]
    except KeyError:
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op.type}). "
            "Register one with tw.RegisterGradient, or tw.NotDifferentiable."
        ) from None


def registered_gradients():
    """(differentiable op types, not-differentiable op types)."""
    return set(_GRADIENTS), set(_NOT_DIFFERENTIABLE)


def _as_tensor_list(values, what, as_ref=False):
    """Tensors of `values`; a variable as its snapshot, or with `as_ref` as the variable itself (as TF1's
    gradients take xs), so that every read of it (the snapshot, or a fresh read under control dependencies)
    carries gradient to it."""
    if values is None:
        return []
    if not isinstance(values, (list, tuple)):
        values = [values]
    out = []
    for v in values:
        if hasattr(v, "value") and hasattr(v, "_variable"):
            v = v._ref() if as_ref and hasattr(v, "_ref") else v.value()
        if not isinstance(v, ops.Tensor):
            v = ops.convert_to_tensor(v)
        out.append(v)
    return out


def _is_trainable(tensor):
    """Whether gradients flow along `tensor`: floating-point and complex dtypes only (as TensorFlow: an integer or
    bool tensor carries no gradient, so `gradients(y, int_x)` is [None])."""
    dtype = tensor.dtype.base_dtype
    return dtype.is_floating or dtype.is_complex


def _ops_between(ys, xs, stop_ops):
    """Ops on a path from some x to some y along floating-point or complex tensors (backward, not through
    stop_ops)."""
    reached = set()
    queue = collections.deque(x.op for x in xs)
    consumers = collections.defaultdict(list)
    graph = ys[0].graph
    for op in graph.get_operations():
        for t in op.inputs:
            consumers[t].append(op)
    while queue:
        op = queue.popleft()
        if op in reached:
            continue
        reached.add(op)
        # Forward, a stop op passes reachability on (an x that is its output still gets the gradients its
        # consumers send, as TF's stop_gradients do); backward, gradients stop at it.
        for t in op.outputs:
            if _is_trainable(t):
                queue.extend(consumers[t])
    between = set()
    queue = collections.deque(y.op for y in ys)
    while queue:
        op = queue.popleft()
        if op in between or op not in reached:
            continue
        between.add(op)
        if op in stop_ops:
            continue
        queue.extend(t.op for t in op.inputs)
    return between


def _loop_state(between):
    """control_flow_grad's ControlFlowState when a while loop's Exit is among `between` (which then also gets
    the loops' other Exits), else None."""
    if not any(op.type in ("Exit", "RefExit") for op in between):
        return None
    from tensorweave._src.ops import control_flow_grad

    return control_flow_grad.maybe_create_control_flow_state(list(between), between)


def _aggregate_indexed_slices(grads):
    """TF's _AggregateIndexedSlicesGradients: IndexedSlices summed by concatenating their values and indices
    (int64 indices when their dtypes differ)."""
    from tensorweave._src.framework import dtypes
    from tensorweave._src.ops import array_ops, math_ops

    indices = [g.indices for g in grads]
    if len({i.dtype for i in indices}) > 1:
        indices = [math_ops.cast(i, dtypes.int64) for i in indices]
    return _indexed_slices_class()(
        array_ops.concat([g.values for g in grads], 0), array_ops.concat(indices, 0), grads[0].dense_shape
    )


def _aggregate(grads, name):
    """The sum of `grads` as TF's _MultiDeviceAddN: the gradients on each device summed there (an AddN
    colocated with the first of them), then the per-device sums. IndexedSlices alone stay IndexedSlices
    (concatenated, as TF); mixed with dense gradients they are converted to dense first."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    sliced = _indexed_slices_class()
    if all(isinstance(g, sliced) for g in grads):
        return _aggregate_indexed_slices(grads)
    grads = [_densify(g) for g in grads]
    from tensorweave._src.ops import math_ops

    graph = grads[0].graph
    on_device = {}
    for g in grads:
        on_device.setdefault(g.device, []).append(g)
    summands = []
    for device in sorted(on_device):
        tensors = on_device[device]
        with graph.colocate_with(tensors[0].op, ignore_existing=True):
            summands.append(math_ops.add_n(tensors))
    return math_ops.add_n(summands, name=name)


def _gate(op, in_grads):
    """As TF's gate_gradients: an op's input gradients (when more than one) all computed before any is used,
    through tf.tuple ("<op>_grad/tuple/control_dependency", ...). Not for an op in a while loop: there the gate
    runs two more nodes per op and iteration and holds each input gradient back for the slowest, where the
    backward loop's critical path (a cell's input gradient) should not wait for its weight gradient (the 2-layer
    LSTM training step of benchmarks/rnn_while_loop.py took 19% longer gated). The values are the same."""
    from tensorweave._src.ops import control_flow_ops

    if sum(g is not None for g in in_grads) <= 1 or control_flow_ops._while_context_of(op) is not None:
        return in_grads
    from tensorweave._src.framework import misc_api

    return misc_api.tuple(list(in_grads))


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    colocate_gradients_with_ops=False,
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients="none",
):
    """The symbolic derivatives of sum(ys) with respect to each x in xs.

    Args:
      ys: a Tensor or list of Tensors to differentiate.
      xs: a Tensor, Variable or list of them.
      grad_ys: optional gradients of ys (default: ones).
      stop_gradients: Tensors treated as constants.
      unconnected_gradients: "none" (tw.UnconnectedGradients.NONE): None for an x that ys do not depend on;
        "zero": zeros of x's shape.

    Returns:
      A list with one Tensor per x (an IndexedSlices where x is read only by gathers along axis 0, as in TF1),
      None where x does not affect ys.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(3.0)
      ...     [dx] = tw.gradients(x * x, [x])
      ...     print(sess.run(dx))
      6.0
    """
    ys = _as_tensor_list(ys, "ys")
    xs = _as_tensor_list(xs, "xs", as_ref=True)
    if not ys:
        raise ValueError("gradients() needs at least one y")
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    if len(grad_ys) != len(ys):
        raise ValueError(f"grad_ys has {len(grad_ys)} entries but ys has {len(ys)}")
    if aggregation_method not in (None, 0, 1, 2):  # tw.AggregationMethod's values
        raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. Accepted values are [0, 1, 2].")
    graph = ys[0].graph
    for t in list(ys[1:]) + list(xs):
        if t.graph is not graph:
            raise ValueError(f"{t} must be from the same graph as {ys[0]}")
    stop_ops = {t.op for t in _as_tensor_list(stop_gradients, "stop_gradients")}
    from tensorweave._src.ops import array_ops

    with graph.name_scope(name):
        between = _ops_between(ys, xs, stop_ops)
        loop_state = _loop_state(between)  # the gradients' while loops (control_flow_grad); None without loops
        # Gradients received so far, per tensor.
        received = collections.defaultdict(list)
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            if gy is None:
                with graph.colocate_with(y.op) if colocate_gradients_with_ops else contextlib.nullcontext():
                    gy = array_ops.ones(array_ops.shape(y), dtype=y.dtype, name=f"grad_ys_{i}")
            else:
                if isinstance(gy, ops.Tensor) and gy.dtype.base_dtype != y.dtype.base_dtype:
                    raise TypeError(
                        f"grad_ys[{i}] is {gy.dtype.base_dtype.name}, but ys[{i}] ({y.name}) is {y.dtype.base_dtype.name}"
                    )
                gy = ops.convert_to_tensor(gy, dtype=y.dtype)
                if gy.graph is not graph:
                    raise ValueError(f"{gy} must be from the same graph as {y}")
            received[y].append(gy)
        # An op is ready when every consumer inside `between` has sent its
        # gradients back.
        pending = collections.Counter()
        for op in between:
            for t in op.inputs:
                if t.op in between:
                    pending[t.op] += 1
        ready = [op for op in between if pending[op] == 0]
        if loop_state is not None:
            ready = loop_state.initial_ready(ready, {y.op for y in ys}, pending, received)
        done = set()
        while ready:
            op = ready.pop()
            if op in done and not (loop_state is not None and loop_state.is_loop_switch(op)):
                continue
            done.add(op)
            # colocate_gradients_with_ops: an op's gradient ops go with it (its device and colocation group).
            with graph.colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext():
                with loop_state.grad_context(op, before=True) if loop_state else contextlib.nullcontext():
                    out_grads = [_aggregate(received.get(t, []), None) for t in op.outputs]
            for t, g in zip(op.outputs, out_grads):
                received[t] = [] if g is None else [g]  # summed once: an x's gradient is this sum
            # Only ops with inputs inside `between` pass gradients on.
            propagate = (
                op not in stop_ops and any(g is not None for g in out_grads) and any(t.op in between for t in op.inputs)
            )
            if propagate:
                fn = get_gradient_function(op)
                if fn is not None:
                    with graph.colocate_with(op) if colocate_gradients_with_ops else contextlib.nullcontext():
                        with loop_state.grad_context(op, before=False) if loop_state else contextlib.nullcontext():
                            # (in the backward loop's context: an IndexedSlices made there is densified there)
                            if op.type not in _TAKES_INDEXED_SLICES:
                                out_grads = [_densify(g) for g in out_grads]
                            if loop_state is not None:
                                out_grads = loop_state.fill_missing(op, out_grads)
                            with graph.name_scope(op.name + "_grad"):
                                in_grads = fn(op, *out_grads)
                                if gate_gradients and isinstance(in_grads, (list, tuple)):
                                    in_grads = _gate(op, in_grads)
                    if not isinstance(in_grads, (list, tuple)):
                        in_grads = [in_grads]
                    if len(in_grads) != len(op.inputs):
                        raise ValueError(
                            f"The gradient function of op type {op.type} returned "
                            f"{len(in_grads)} gradients for {len(op.inputs)} inputs (op '{op.name}')"
                        )
                    for t, g in zip(op.inputs, in_grads):
                        if g is not None and t.op in between:
                            received[t].append(g)
            if loop_state is not None:
                loop_state.update_pending(op, between, pending, ready, received)
                continue
            for t in op.inputs:
                if t.op in between:
                    pending[t.op] -= 1
                    if pending[t.op] == 0:
                        ready.append(t.op)
        if loop_state is not None:
            loop_state.PostProcessing()
        unconnected = getattr(unconnected_gradients, "value", unconnected_gradients)
        if unconnected not in ("none", "zero"):
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
        results = []
        for x in xs:
            g = _aggregate(received.get(x, []), None)
            if g is None and unconnected == "zero":
                g = array_ops.zeros_like(x)
            results.append(g)
        return results
