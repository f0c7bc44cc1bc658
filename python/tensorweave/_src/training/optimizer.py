"""The Optimizer base class, TensorFlow v1's: gradients from the graph, then
one fused update op per variable, with per-variable slots (accumulators)
kept as non-trainable variables named `<var>/<OptimizerName>`."""

import contextlib

from tensorweave._src.framework import device_spec
from tensorweave._src.framework import indexed_slices
from tensorweave._src.framework import ops
from tensorweave._src.framework.indexed_slices import IndexedSlices
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import selection_ops
from tensorweave._src.ops import state_ops
from tensorweave._src.ops import variables

GraphKeys = ops.GraphKeys


@contextlib.contextmanager
def _outside_scopes(graph, colocate_with=None):
    """What TensorFlow's init_scope gives: no name scope, no control
    dependencies (the device scopes stay); colocated with `colocate_with`
    (a variable) when given, as TF makes slots."""
    saved = graph._name_stack
    graph._name_stack = ""
    try:
        with graph.control_dependencies(None):
            with graph.colocate_with(colocate_with) if colocate_with is not None else contextlib.nullcontext():
                yield
    finally:
        graph._name_stack = saved


def _var_key(var):
    return (var.graph, var.op.name)


def _as_variable(value):
    if not isinstance(value, variables.Variable):
        raise TypeError(f"Expected a tw.Variable, got {value!r}")
    return value


def _cast(value, dtype):
    return math_ops.cast(value, dtype.base_dtype if hasattr(dtype, "base_dtype") else dtype)


def _deduplicate_indexed_slices(values, indices):
    """(summed values, unique indices): the rows of `values` with the same index summed, the indices in order of
    first appearance (TensorFlow's `_deduplicate_indexed_slices`)."""
    unique_indices, new_index_positions = selection_ops.unique(indices)
    summed_values = array_ops.unsorted_segment_sum(values, new_index_positions, array_ops.shape(unique_indices)[0])
    return summed_values, unique_indices


def _identity(grad):
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(array_ops.identity(grad.values), array_ops.identity(grad.indices), grad.dense_shape)
    return array_ops.identity(grad)


def _grad_tensors(grad):
    if isinstance(grad, IndexedSlices):
        return [grad.values, grad.indices]
    return [grad]


def _readers_in_step(grads, var_list):
    """For each variable, the ops that read its value and that computing
    `grads` runs anyway (the forward and backward ops using the variable).

    An update waits for these: a reader holds a snapshot of the variable's
    buffer until it has run, and an update meeting a snapshot must copy the
    whole variable (copy-on-write). Only ops the step runs anyway are
    waited for, so the update pulls nothing new into the step. An Enter
    (the variable read inside a while loop) is not waited for: its control
    edge would lead into the loop's frame, and the gradient already waits
    for the loop. Nor is a reader placed on another device or task: it works
    on a copy of the value sent to it, and waiting for it would only add a
    control edge across devices (a Send/Recv pair per reader and step)."""
    snapshots = {id(v.value()): _var_key(v) for v in var_list}
    devices = {_var_key(v): v.device for v in var_list}
    readers = {key: [] for key in snapshots.values()}
    seen = set()
    stack = [t.op for g in grads for t in _grad_tensors(g)]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op.inputs:
            key = snapshots.get(id(t))
            if (
                key is not None
                and op.type not in ("Enter", "RefEnter")
                and device_spec.may_be_same(op.device, devices[key])
            ):
                readers[key].append(op)
            stack.append(t.op)
        stack.extend(op.control_inputs)
    return readers


class Optimizer:
    """Base class of optimizers: `minimize` = `compute_gradients` + `apply_gradients`.

    Subclasses implement `_create_slots(var_list)`, `_prepare()` and
    `_apply_dense(grad, var)` (and optionally `_finish(update_ops, name)`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, 2.0], name="w")
      ...     opt = tw.train.GradientDescentOptimizer(0.5)
      ...     train = opt.apply_gradients([(tw.constant([2.0, 2.0]), w)])
      ...     sess.run(tw.global_variables_initializer())
      ...     sess.run(train)
      ...     print(sess.run(w))
      [0. 1.]
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}  # slot name -> {variable key: slot variable}
        self._non_slot_dict = {}  # (name, graph) -> variable

    def get_name(self):
        """The optimizer's name (the suffix of its slot variables)."""
        return self._name

    # --- the public steps ------------------------------------------------------
    def minimize(
        self,
        loss,
        global_step=None,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        name=None,
        grad_loss=None,
    ):
        """An op that takes one step down the gradient of `loss` and increments
        `global_step` (when given) after the updates.

        Args:
          loss: a Tensor to minimize.
          global_step: an integer variable, incremented by one per step.
          var_list: the variables to update (default: trainable_variables()).
          name: the name of the returned op.
          grad_loss: optional gradient of `loss` (default: ones).

        Returns:
          The training op.
        """
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[v.name for _, v in grads_and_vars]} "
                f"and loss {loss!r}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss,
        var_list=None,
        gate_gradients=GATE_OP,
        aggregation_method=None,
        colocate_gradients_with_ops=False,
        grad_loss=None,
    ):
        """[(gradient, variable)] of `loss` for each variable of `var_list`
        (default: trainable_variables()); the gradient is None where `loss`
        does not depend on the variable."""
        if callable(loss):
            raise NotImplementedError("a callable loss (eager execution) is not supported")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(f"gate_gradients must be one of GATE_NONE, GATE_OP, GATE_GRAPH, got {gate_gradients}")
        loss = ops.convert_to_tensor(loss)
        if not loss.dtype.is_floating:
            raise ValueError(f"Invalid type {loss.dtype.name} for {loss.name}, expected a floating type")
        if var_list is None:
            var_list = variables.trainable_variables()
        else:
            # TF1's optimizers take Tensors too (their gradients only: a Tensor cannot be updated).
            var_list = [v if isinstance(v, ops.Tensor) else _as_variable(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients_impl.gradients(
            loss, var_list, grad_ys=grad_loss, gate_gradients=gate_gradients == Optimizer.GATE_OP
        )
        if gate_gradients == Optimizer.GATE_GRAPH:
            present = [g for g in grads if g is not None]
            with ops.control_dependencies([t for g in present for t in _grad_tensors(g)]):
                grads = [None if g is None else _identity(g) for g in grads]
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op applying the gradients: one update op per variable with a
        gradient, then `global_step += 1` (when given) after all of them.

        Args:
          grads_and_vars: [(gradient, variable)], as from compute_gradients.
          global_step: an integer variable to increment.
          name: the name of the returned op (default: the optimizer's name).
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            v = _as_variable(v)
            if g is not None:
                try:
                    g = indexed_slices.convert_to_tensor_or_indexed_slices(g)
                except (TypeError, ValueError) as e:
                    raise TypeError(f"Gradient must be convertible to a Tensor: {g!r} ({e})") from None
                if g.dtype != v.dtype:
                    raise ValueError(
                        f"The gradient of {v.op.name} is {g.dtype.name} but the variable is {v.dtype.name}"
                    )
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in converted]}.")
        graph = var_list[0].graph
        with _outside_scopes(graph):
            self._create_slots(var_list)
        update_ops = []
        readers = _readers_in_step([g for g, _ in converted if g is not None], var_list)
        with graph.name_scope(name or self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with graph.name_scope("update_" + var.op.name), graph.colocate_with(var):
                    with graph.control_dependencies(readers[_var_key(var)]):
                        if isinstance(grad, IndexedSlices):
                            update_ops.append(self._apply_sparse_duplicate_indices(grad, var))
                        else:
                            update_ops.append(self._apply_dense(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]):
                    with graph.colocate_with(global_step):
                        apply_updates = state_ops.assign_add(global_step, 1, name=scope).op
        train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    # --- slots -------------------------------------------------------------
    def get_slot_names(self):
        """The names of the slots this optimizer makes ("m", "v", "momentum", ...)."""
        return sorted(self._slots)

    def get_slot(self, var, name):
        """The slot variable `name` of `var`, or None."""
        named = self._slots.get(name)
        if named is None:
            return None
        return named.get(_var_key(var))

    def variables(self):
        """The variables this optimizer made (slots and non-slot variables),
        sorted by name."""
        current = ops.get_default_graph()
        found = [v for (_, graph), v in self._non_slot_dict.items() if graph is current]
        for named in self._slots.values():
            found.extend(v for (graph, _), v in named.items() if graph is current)
        return sorted(found, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name, op_name):
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            shape = shape.as_list() if hasattr(shape, "as_list") else list(shape)
            named[key] = self._make_slot_variable(var, lambda: initializer(shape, dtype=dtype), op_name)
        return named[key]

    def _zeros_slot(self, var, slot_name, op_name):
        return self._get_or_make_slot_with_initializer(
            var, init_ops.zeros_initializer(), var.shape, var.dtype, slot_name, op_name
        )

    def _make_slot_variable(self, var, initial_value, op_name):
        graph = var.graph
        if not var.shape.is_fully_defined():
            raise ValueError(f"The slots of {var.op.name} need its shape fully defined, got {var.shape}")
        with _outside_scopes(graph, colocate_with=var):
            return variables.Variable(
                initial_value,
                trainable=False,
                collections=[GraphKeys.GLOBAL_VARIABLES],
                name=f"{var.op.name}/{op_name}",
                dtype=var.dtype,
            )

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        graph = colocate_with.graph
        key = (name, graph)
        if key not in self._non_slot_dict:
            with _outside_scopes(graph, colocate_with=colocate_with):
                self._non_slot_dict[key] = variables.Variable(
                    initial_value, trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES], name=name
                )
        return self._non_slot_dict[key]

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or ops.get_default_graph()))

    # --- what subclasses implement ----------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_dense")

    def _apply_sparse_duplicate_indices(self, grad, var):
        """The update for an IndexedSlices gradient whose indices may repeat (a gather's gradient): TensorFlow's
        default sums the rows of each index first, then `_apply_sparse`."""
        summed_values, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed_values, unique_indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        """The update for an IndexedSlices gradient with distinct indices (only those rows of `var` and its
        slots change, as TensorFlow's SparseApply* ops)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_sparse")

    def _finish(self, update_ops, name_scope):
        graph = ops.get_default_graph()
        # TF's control_flow_ops.group: one NoOp per device of the updates.
        return ops.group(*update_ops, name=name_scope)

    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param
