"""The Optimizer base class, TensorFlow v1's: gradients from the graph, then
one fused update op per variable, with per-variable slots (accumulators)
kept as non-trainable variables named `<var>/<OptimizerName>`."""

import contextlib

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import math_ops
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


def _gathered_row_mask(indices, var):
    """A bool tensor [rows, 1, ...] (broadcasting against var) true for the rows `indices` name."""
    flat = array_ops.reshape(indices, [-1])
    ones = array_ops.ones_like(flat, dtype=var.dtype.base_dtype)
    num_rows = array_ops.gather(array_ops.shape(var), 0)
    counts = array_ops.unsorted_segment_sum(ones, flat, num_rows)
    mask = math_ops.greater(counts, array_ops.zeros_like(counts))
    rank = var.shape.ndims
    if rank is None:
        raise NotImplementedError(f"a sparse update of {var.op.name} needs its rank")
    return array_ops.reshape(mask, [-1] + [1] * (rank - 1))


def _unique_gathered_rows(grad, indices, var):
    """(rows, grad_rows): the distinct rows `indices` names, increasing, and those rows of the dense gather gradient
    `grad` (repeated indices already summed there), for the SparseApply* ops (TensorFlow's
    `_apply_sparse_duplicate_indices`)."""
    mask = _gathered_row_mask(indices, var)
    flat_mask = array_ops.reshape(mask, [-1])
    rows = array_ops.reshape(math_ops.where(flat_mask), [-1])
    return rows, array_ops.gather(grad, rows)


def _select_rows(mask, updated, kept):
    return math_ops.where_v2(mask, updated, kept)


def _readers_in_step(grads, var_list):
    """For each variable, the ops that read its value and that computing
    `grads` runs anyway (the forward and backward ops using the variable).

    An update waits for these: a reader holds a snapshot of the variable's
    buffer until it has run, and an update meeting a snapshot must copy the
    whole variable (copy-on-write). Only ops the step runs anyway are
    waited for, so the update pulls nothing new into the step."""
    snapshots = {id(v.value()): _var_key(v) for v in var_list}
    readers = {key: [] for key in snapshots.values()}
    seen = set()
    stack = [g.op for g in grads]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op.inputs:
            key = snapshots.get(id(t))
            if key is not None:
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
            var_list = [_as_variable(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients_impl.gradients(loss, var_list, grad_ys=grad_loss)
        if gate_gradients == Optimizer.GATE_GRAPH:
            present = [g for g in grads if g is not None]
            with ops.control_dependencies(present):
                grads = [None if g is None else array_ops.identity(g) for g in grads]
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
                    g = ops.convert_to_tensor(g)
                except (TypeError, ValueError) as e:
                    raise TypeError(f"Gradient must be convertible to a Tensor: {g!r} ({e})") from None
                if g.dtype != v.dtype:
                    raise ValueError(
                        f"The gradient of {v.op.name} is {g.dtype.name} but the variable is {v.dtype.name}"
                    )
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in converted]}.")
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
                        rows = gradients_impl.gathered_rows(grad)
                        sparse = None if rows is None else self._apply_gathered_rows(grad, rows, var)
                        update_ops.append(sparse if sparse is not None else self._apply_dense(grad, var))
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

    def _apply_gathered_rows(self, grad, indices, var):
        """The update for a gather's gradient `grad`, zero outside the rows `indices` (TensorFlow's
        `_apply_sparse`): optimizers whose slots decay implement it so that rows the step did not touch keep
        their slots and values; None (the default) applies `grad` densely, which is what TensorFlow computes
        for GradientDescent, Adagrad and Adam."""
        return None

    def _finish(self, update_ops, name_scope):
        graph = ops.get_default_graph()
        # TF's control_flow_ops.group: one NoOp per device of the updates.
        return ops.group(*update_ops, name=name_scope)

    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param
