"""TF1's `tf.recompute_grad` (a function whose gradient recomputes its forward pass instead of keeping its
activations) and `tf.vectorized_map` (fn mapped over the leading dimension; here always by TF's fallback, a
while loop over the elements)."""

import functools

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_nd_ops, array_ops, functional_ops, gradients_impl, math_ops
from tensorweave._src.ops import variables as variables_lib
from tensorweave._src.util import nest


def _trainable_variables_read_by(new_ops, graph):
    """The trainable variables whose value (`<var>/read`) the ops in `new_ops` read, in their first-read order."""
    by_snapshot = {v.value().name: v for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)}
    found = []
    for op in new_ops:
        for t in op.inputs:
            var = by_snapshot.get(t.name)
            if var is not None and var not in found:
                found.append(var)
    return found


def _after(dresult, x):
    """x, made to depend on the incoming gradient dresult (TF's trick: + 0 computed from dresult, NaN never),
    so that the recomputation runs in the backward pass, not in the forward one."""
    if not x.dtype.is_floating:
        with ops.control_dependencies([dresult]):
            return array_ops.identity(x)
    elem = math_ops.reduce_max(array_ops.reshape(dresult, [-1])[:1])
    elem_bool = math_ops.cast(elem, dtypes.bool)
    dep = math_ops.where_v2(math_ops.equal(elem_bool, elem_bool), 0.0, float("nan"))
    return array_ops.identity(x) + math_ops.cast(dep, x.dtype)


def recompute_grad(f):
    """`f` with a gradient that recomputes `f`'s forward pass from its inputs when the gradient runs, instead
    of keeping the activations of the forward pass: memory for compute. Gradients flow to `f`'s tensor
    arguments and to the trainable variables `f` reads (variables that `f` makes with get_variable are
    reused by the recomputation, in `f`'s variable scope).

    Example:
      >>> import tensorweave as tw
      >>> @tw.recompute_grad
      ... def block(x):
      ...     return tw.tanh(x) * x
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant([0.5, 1.0])
      ...     g = tw.gradients(tw.reduce_sum(block(x)), x)[0]
      ...     print(sess.run(g).round(4))
      [0.8553 1.1816]
    """

    @functools.wraps(f)
    def inner(*args, **kwargs):
        if kwargs:
            # As TF1 in a graph (its recompute_grad is a custom_gradient).
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments only when eager execution "
                "is enabled."
            )
        graph = ops.get_default_graph()
        args = [ops.convert_to_tensor(a) for a in args]
        var_scope = variables_lib.get_variable_scope()
        first_new_op = len(graph.get_operations())
        result = f(*args)
        flat_result = [ops.convert_to_tensor(r) for r in nest.flatten(result)]
        used = _trainable_variables_read_by(graph.get_operations()[first_new_op:], graph)
        var_reads = [v.value() for v in used]
        passed = array_nd_ops.identity_n(flat_result + args + var_reads)
        n = len(flat_result)

        def grad_fn(op, *result_grads):
            dresult = [g if g is not None else array_ops.zeros_like(r) for g, r in zip(result_grads[:n], flat_result)]
            with graph.name_scope("recompute_grad") as scope:
                id_args = [_after(dresult[0], a) for a in args]
                # f's variable scope (reused) for get_variable, this name scope for the recomputed ops.
                with variables_lib.variable_scope(var_scope, reuse=True), graph.name_scope(scope):
                    recomputed = [ops.convert_to_tensor(r) for r in nest.flatten(f(*id_args))]
                grads = gradients_impl.gradients(
                    recomputed, id_args + var_reads, grad_ys=dresult, unconnected_gradients="zero"
                )
            return [None] * n + list(grads)

        passed[0].op._custom_gradient_fn = grad_fn
        return nest.pack_sequence_as(result, passed[:n])

    return inner


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """fn applied to each slice of `elems` (a tensor or a nest of tensors) along their leading dimension, the
    results stacked: TF's `tf.vectorized_map`. TF converts fn to batched ops where its pfor can and otherwise
    falls back to a while loop; tensorweave always runs that while loop (as `map_fn`, with fn's output
    structure and dtypes found by tracing it once). The results are TF's either way; `fallback_to_while_loop`
    and `warn` change nothing here.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y = tw.vectorized_map(lambda row: tw.reduce_sum(row) * row, tw.constant([[1.0, 2.0], [3.0, 4.0]]))
      ...     print(sess.run(y).tolist())
      [[3.0, 6.0], [21.0, 28.0]]
    """
    del fallback_to_while_loop, warn  # the while loop is the only path here
    flat_elems = [ops.convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    if not flat_elems:
        raise ValueError("vectorized_map needs at least one tensor in elems")
    for e in flat_elems:
        if e.shape.ndims == 0:
            raise ValueError(f"elems must be 1+ dimensional tensors, not scalars: {e.name}")
    elems = nest.pack_sequence_as(elems, flat_elems)
    with ops.name_scope("loop_body"):
        # fn's output structure and dtypes, from one trace on the first elements (TF traces fn once too); the
        # traced ops feed nothing and never run.
        probe = fn(nest.pack_sequence_as(elems, [e[0] for e in flat_elems]))
    dtype = nest.map_structure(lambda t: ops.convert_to_tensor(t).dtype, probe)
    return functional_ops.map_fn(fn, elems, dtype=dtype)
