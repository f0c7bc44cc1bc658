"""Dynamic control flow as TensorFlow 1 builds it: `cond`, `case` and `while_loop` from the primitives Switch,
Merge, Enter, Exit, NextIteration and LoopCond (the design of TF's control_flow_ops.py).

A cond branch or a while body is built inside a control-flow context (`CondContext`, `WhileContext`), the graph's
current context while it is built. Every op created inside goes through the context (`_prepare_op`, called by
`Graph._create_op`): an input from outside a cond branch comes in through a Switch on the predicate (the branch's
output of it); an input from outside a while loop through an Enter (is_constant=True) of the loop's frame; an op
without inputs gets the context's pivot as a control input, so that it runs only in the taken branch / once per
iteration; a control input from outside a while loop is carried into the frame by an Identity of it.

The executor runs the untaken output of a Switch as *dead*: deadness flows through the branch's ops to the Merge,
which forwards its live input. A loop is Enter -> Merge -> (cond) -> LoopCond -> Switch -> (body) ->
NextIteration -> back into the Merge, and Switch's false output -> Exit.

A TensorArray crosses a cond or a while loop as its flow tensor: `tensor_array_ops.build_ta_with_new_flow(ta,
flow)` rebuilds it on the other side (TF's protocol).
"""

import collections
import functools

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.framework.nest import (
    _is_sequence,
    _sorted_keys,
    assert_same_structure,
    flatten,
    map_structure,
    pack_sequence_as,
)
from tensorweave._src.ops import gen_ops

# --- TensorArrays cross control flow as their flow tensor --------------------------------------------------------------


def _tensor_array_module():
    try:
        from tensorweave._src.ops import tensor_array_ops
    except ImportError:
        return None
    return tensor_array_ops


def _is_tensor_array(x):
    module = _tensor_array_module()
    return module is not None and isinstance(x, getattr(module, "TensorArray", ()))


def _convert_tensorarray_to_flow(x):
    return x.flow if _is_tensor_array(x) else x


def _convert_flow_to_tensorarray(original, flow):
    if _is_tensor_array(original):
        return _tensor_array_module().build_ta_with_new_flow(original, flow)
    return flow


def _to_tensor(x):
    """A loop variable or branch result as a Tensor (a Variable reads its value, a TensorArray stays)."""
    if isinstance(x, (ops.Tensor, ops.Operation)) or _is_tensor_array(x):
        return x
    if hasattr(x, "_variable") and hasattr(x, "value"):
        return x.value()
    return ops.convert_to_tensor(x)


# --- the primitives ---------------------------------------------------------------------------------------------------


def switch(data, pred, dtype=None, name=None):
    """Forwards `data` to the output chosen by `pred`: `(output_false, output_true)`; the other is dead.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import control_flow_ops
      >>> with tw.Graph().as_default():
      ...     f, t = control_flow_ops.switch(tw.constant(1.0), tw.constant(True))
      ...     print(f.op.type, t.name)
      Switch Switch:1
    """
    with ops.name_scope(name, "Switch", [data, pred]) as scope:
        data = ops.convert_to_tensor(data, dtype=dtype, name="data")
        pred = ops.convert_to_tensor(pred, name="pred")
        fn = gen_ops.ref_switch if data._is_ref else gen_ops.switch
        return tuple(fn(data, pred, name=scope))


def _switch_ref_or_tensor(data, pred, name="Switch"):
    """A Switch of `data` colocated with it (TF's _SwitchRefOrTensor)."""
    data = ops.convert_to_tensor(data, name="data")
    with ops.colocate_with(data, ignore_existing=True):
        return switch(data, pred, name=name)


def merge(inputs, name=None):
    """The first available of `inputs`: `(output, value_index)`; dead when all inputs are dead.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import control_flow_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     out, index = control_flow_ops.merge([tw.constant(1.0), tw.constant(2.0)])
      ...     print(out.op.type, index.dtype.name)
      Merge int32
    """
    if any(x is None for x in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    with ops.name_scope(name, "Merge", inputs) as scope:
        inputs = [ops.convert_to_tensor(x) for x in inputs]
        # TF merges references with RefMerge; the values they hold are what a cond returns, and a Merge of them
        # (reading each) gives the same (tensorweave's variables are read as values, see the README).
        return tuple(gen_ops.merge(inputs, name=scope))


def _enter(data, frame_name, is_constant=False, parallel_iterations=10, use_input_shape=True, name="Enter"):
    """Makes `data` available in the child frame `frame_name` (RefEnter for a reference)."""
    data = ops.convert_to_tensor(data)
    fn = gen_ops.ref_enter if data._is_ref else gen_ops.enter
    result = fn(
        data, frame_name=frame_name, is_constant=is_constant, parallel_iterations=parallel_iterations, name=name
    )
    if use_input_shape:
        _force_shape(result, data.shape)
    return result


def exit(data, name=None):
    """Makes `data` available to the parent frame (the loop's result)."""
    data = ops.convert_to_tensor(data)
    return (gen_ops.ref_exit if data._is_ref else gen_ops.exit)(data, name=name)


def _next_iteration(data, name=None):
    data = ops.convert_to_tensor(data)
    return (gen_ops.ref_next_iteration if data._is_ref else gen_ops.next_iteration)(data, name=name)


def loop_cond(input, name=None):
    """The loop-termination predicate of a while loop (LoopCond)."""
    return gen_ops.loop_cond(input, name=name)


def control_trigger(name=None):
    """A ControlTrigger: a no-op that runs even when its control inputs are dead."""
    return gen_ops.control_trigger(name=name)


def _identity(data, name=None):
    from tensorweave._src.ops import array_ops

    if data._is_ref and "RefIdentity" in ops._op_defs():
        return gen_ops.ref_identity(data, name=name)
    return array_ops.identity(data, name=name)


def _force_shape(tensor, shape):
    """Sets the static shape of `tensor` to `shape`, also where that is less specific than what is known."""
    shape = tensor_shape.as_shape(shape)
    graph = tensor.graph
    graph._c.set_output_shape(tensor.op._id, tensor.value_index, tensor_shape.as_attr(shape))
    tensor._shape = shape


def _update_input(op, index, tensor):
    """Re-points data input `index` of `op` to `tensor` (the back edge of a loop: Merge <- NextIteration)."""
    graph = op.graph
    graph._c.update_input(op._id, index, tensor.op._id, tensor.value_index)
    inputs = list(op._inputs)
    inputs[index] = tensor
    op._inputs = tuple(inputs)


# --- contexts --------------------------------------------------------------------------------------------------------


def _op_context(op):
    return getattr(op, "_control_flow_context", None)


def _is_loop_exit(op):
    return op.type in ("Exit", "RefExit")


def _is_loop_constant_enter(op):
    return op.type in ("Enter", "RefEnter") and op.get_attr("is_constant")


def _is_loop_switch(op):
    """Whether `op` is the Switch of a while loop's variable (not a cond's)."""
    return getattr(op, "_is_loop_switch", False)


def _output_context(op):
    """The context an op's outputs live in: a loop Exit's outputs are in the loop's outer context."""
    context = _op_context(op)
    if context is not None and _is_loop_exit(op):
        context = context.outer_context
    return context


def _while_context_of(op):
    context = _op_context(op)
    return context.GetWhileContext() if context is not None else None


class ControlFlowContext:
    """The base of CondContext and WhileContext: which values are defined inside, and the outer context.

    A context is saved in a meta graph as its proto (`to_proto`, TF's CondContextDef / WhileContextDef in
    core/framework/control_flow.proto) and rebuilt from it (`from_proto`), which also sets the context of every
    op that the proto's values name, so that gradients and new ops can be built through imported control flow.
    """

    def __init__(self, values_def=None, import_scope=None):
        self._nested_contexts = []  # the contexts built inside this one (saved in its proto)
        self._outer_context = ops.get_default_graph()._get_control_flow_context()
        if self._outer_context is not None:
            self._outer_context._nested_contexts.append(self)
        self._context_stack = []
        self._values = set()  # names of the tensors defined in (or made available to) this context
        self._external_values = {}  # name of an outside tensor -> the tensor that stands for it inside
        if values_def is not None:
            self._init_values_from_proto(values_def, import_scope)

    def _to_values_def(self, export_scope=None):
        """The ValuesDef of this context: its values and external values, by name."""
        values_def = _control_flow_pb2().ValuesDef()
        values_def.values.extend(_strip_name_scope(v, export_scope) for v in sorted(self._values))
        for k, v in self._external_values.items():
            values_def.external_values[_strip_name_scope(k, export_scope)] = _strip_name_scope(v.name, export_scope)
        return values_def

    def _init_values_from_proto(self, values_def, import_scope=None):
        """Reads the values of a ValuesDef and makes this the context of the ops that define them (not of the
        outside tensors, the keys of its external values)."""
        graph = ops.get_default_graph()
        self._values = {_prepend_name_scope(v, import_scope) for v in values_def.values}
        self._external_values = {
            _prepend_name_scope(k, import_scope): _graph_element(graph, _prepend_name_scope(v, import_scope))
            for k, v in values_def.external_values.items()
        }
        for op_name in sorted({v.split(":")[0] for v in self._values - set(self._external_values)}):
            _graph_element(graph, op_name)._control_flow_context = self

    def to_control_flow_context_def(self, context_def, export_scope=None):
        """Fills a ControlFlowContextDef (the proto of a nested context) with this context."""
        raise NotImplementedError("Abstract method")

    @property
    def name(self):
        return self._name

    @property
    def outer_context(self):
        return self._outer_context

    @property
    def grad_state(self):
        return None

    def Enter(self):
        """Makes this the graph's current context."""
        graph = ops.get_default_graph()
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def Exit(self):
        """Restores the context current before `Enter`."""
        ops.get_default_graph()._set_control_flow_context(self._context_stack.pop())

    def AddName(self, name):
        self._values.add(name)

    def ExitResult(self, result):
        """Makes the tensors of `result` known to the outer context."""
        if self._outer_context is not None:
            for x in flatten(result):
                if isinstance(x, ops.Tensor):
                    self._outer_context.AddName(x.name)

    def GetWhileContext(self):
        """The innermost WhileContext containing this context, or None."""
        return self._outer_context.GetWhileContext() if self._outer_context is not None else None

    def GetControlPivot(self):
        return None

    def IsWhileContext(self):
        return False

    def IsCondContext(self):
        return False

    def _split_control_inputs(self, controls):
        """(internal, external): the control inputs inside / outside the enclosing while loop."""
        while_context = self.GetWhileContext()
        if while_context is None:
            return list(controls), []
        internal, external = [], []
        for c in controls:
            context = _output_context(c)
            if context is not None and context.GetWhileContext() is while_context:
                internal.append(c)
            else:
                external.append(c)
        return internal, external

    def _carry_external_controls(self, external):
        """Control inputs from outside the loop, carried into the frame as Identity ops (TF's design)."""
        from tensorweave._src.ops import array_ops

        graph = ops.get_default_graph()
        carried = []
        with graph.control_dependencies(None):
            self.Enter()
            try:
                for c in external:
                    if c.outputs:
                        carried.append(array_ops.identity(c.outputs[0]).op)
            finally:
                self.Exit()
        return carried

    def _op_added(self, op):
        for x in op.outputs:
            self._values.add(x.name)

    def __str__(self):
        return self.name


# --- contexts in meta graphs (TF's to_proto / from_proto) -------------------------------------------------------------


def _control_flow_pb2():
    from tensorweave._src.framework import control_flow_pb2  # protobuf loads lazily (a fast `import tensorweave`)

    return control_flow_pb2


def _strip_name_scope(name, export_scope):
    """`name` without the leading `export_scope/` (TF's ops.strip_name_scope)."""
    if export_scope and name.startswith(export_scope + "/"):
        return name[len(export_scope) + 1 :]
    return name


def _prepend_name_scope(name, import_scope):
    """`import_scope/name` (TF's ops.prepend_name_scope)."""
    return f"{import_scope}/{name}" if import_scope else name


def _graph_element(graph, name):
    """The tensor or op `name` names in `graph`; a proto naming something the graph lacks is a ValueError."""
    try:
        return graph.as_graph_element(name)
    except (KeyError, ValueError) as e:
        raise ValueError(
            f"The control-flow context being imported names '{name}', which is not in the graph: {e}"
        ) from None


def _from_control_flow_context_def(context_def, import_scope=None):
    """A CondContext or WhileContext from a ControlFlowContextDef (a nested context in a proto)."""
    kind = context_def.WhichOneof("ctxt")
    if kind == "cond_ctxt":
        return CondContext.from_proto(context_def.cond_ctxt, import_scope=import_scope)
    if kind == "while_ctxt":
        return WhileContext.from_proto(context_def.while_ctxt, import_scope=import_scope)
    raise ValueError(f"Unknown ControlFlowContextDef field: {kind}")


def _nested_from_proto(context, nested_defs, import_scope):
    """Rebuilds the nested contexts of `context` inside it (their ops then belong to them, not to `context`)."""
    context.Enter()
    try:
        for nested_def in nested_defs:
            _from_control_flow_context_def(nested_def, import_scope=import_scope)
    finally:
        context.Exit()
    return context


def _create_inside(context, fn, name_scope=None):
    """Runs fn() with no control-flow context and no control dependencies (ops TF's contexts add themselves:
    Switch, Enter), then marks the ops it created as belonging to `context`."""
    graph = ops.get_default_graph()
    first = len(graph._ops)
    with graph.control_dependencies(None):
        if name_scope is not None:
            with graph.name_scope(name_scope):
                result = fn()
        else:
            result = fn()
    for op in graph._ops[first:]:
        op._control_flow_context = context
    return result


class CondContext(ControlFlowContext):
    """The context of one branch of a `cond`: `pred` chooses, `pivot` (an Identity of the Switch of the predicate)
    stands for "this branch is taken", `branch` is 1 for the true branch and 0 for the false one."""

    def __init__(self, pred=None, pivot=None, branch=None, name="cond_text", context_def=None, import_scope=None):
        if context_def is not None:
            self._init_from_proto(context_def, import_scope)
            return
        super().__init__()
        self._name = ops.get_default_graph().unique_name(name)
        self._pred = pred
        self._pivot = pivot
        self._branch = branch
        self._values.add(pred.name)
        self._external_values[pred.name] = pred
        self._values.add(pivot.name)
        pivot.op._control_flow_context = self

    def _init_from_proto(self, context_def, import_scope=None):
        graph = ops.get_default_graph()
        self._name = _prepend_name_scope(context_def.context_name, import_scope)
        self._pred = _graph_element(graph, _prepend_name_scope(context_def.pred_name, import_scope))
        self._pivot = _graph_element(graph, _prepend_name_scope(context_def.pivot_name, import_scope))
        self._branch = context_def.branch
        super().__init__(values_def=context_def.values_def, import_scope=import_scope)

    def to_proto(self, export_scope=None):
        """This branch as a CondContextDef (names relative to `export_scope`); None when it is outside it.

        Example:
          >>> import tensorweave as tw
          >>> with tw.Graph().as_default():
          ...     y = tw.cond(tw.constant(True), lambda: tw.constant(1.0), lambda: tw.constant(2.0))
          ...     proto = tw.get_collection(tw.GraphKeys.COND_CONTEXT)[0].to_proto()
          ...     print(proto.context_name, proto.pred_name, proto.pivot_name, proto.branch)
          cond/cond_text cond/pred_id:0 cond/switch_t:0 1
        """
        if export_scope and not self.name.startswith(export_scope):
            return None
        context_def = _control_flow_pb2().CondContextDef()
        context_def.context_name = _strip_name_scope(self.name, export_scope)
        context_def.pred_name = _strip_name_scope(self._pred.name, export_scope)
        context_def.pivot_name = _strip_name_scope(self._pivot.name, export_scope)
        context_def.branch = self._branch
        context_def.values_def.MergeFrom(self._to_values_def(export_scope))
        for nested in self._nested_contexts:
            nested.to_control_flow_context_def(context_def.nested_contexts.add(), export_scope)
        return context_def

    @staticmethod
    def from_proto(context_def, import_scope=None):
        """The CondContext a CondContextDef describes, over the ops of the default graph (named with
        `import_scope/` before them), with its nested contexts; the ops it names get it as their context."""
        return _nested_from_proto(
            CondContext(context_def=context_def, import_scope=import_scope), context_def.nested_contexts, import_scope
        )

    def to_control_flow_context_def(self, context_def, export_scope=None):
        context_def.cond_ctxt.CopyFrom(self.to_proto(export_scope=export_scope))

    @property
    def pred(self):
        return self._pred

    @property
    def pivot(self):
        return self._pivot

    @property
    def branch(self):
        return self._branch

    @property
    def grad_state(self):
        while_context = self.GetWhileContext()
        return while_context.grad_state if while_context is not None else None

    @property
    def back_prop(self):
        while_context = self.GetWhileContext()
        return while_context.back_prop if while_context is not None else False

    def GetControlPivot(self):
        return self._pivot

    def IsCondContext(self):
        return True

    def AddValue(self, val, name_scope=None):
        """The tensor that stands for `val` in this branch: `val` itself when defined inside, else the branch's
        output of a Switch of it on the predicate."""
        if val.name in self._values:
            result = self._external_values.get(val.name)
            return val if result is None else result
        result = val
        self._values.add(val.name)
        if self._outer_context is not None:
            result = self._outer_context.AddValue(val, name_scope)
            self._values.add(result.name)
            self._external_values[result.name] = result
        source = result
        result = _create_inside(self, lambda: _switch_ref_or_tensor(source, self._pred)[self._branch], name_scope)
        context = self
        while context is not None:
            context._values.add(result.name)
            context = context._outer_context
        self._external_values[val.name] = result
        return result

    def _prepare_op(self, name, op_type, inputs, controls):
        if not inputs:
            internal, _ = self._split_control_inputs(controls)
            controls = internal
            if not any(_in_context(c, self) for c in controls):
                controls = controls + [self._pivot.op]
            return inputs, controls
        inputs = [self.AddValue(x, name + "/") for x in inputs]
        internal, _ = self._split_control_inputs(controls)
        return inputs, internal

    def _op_added(self, op):
        names = [x.name for x in op.outputs]
        context = self
        while context is not None:
            context._values.update(names)
            context = context._outer_context

    def _process_output_tensor(self, val):
        """A branch's result as a tensor of this branch (a value from outside comes through a Switch)."""
        if val.name not in self._values:
            self._values.add(val.name)
            real = val
            if self._outer_context is not None:
                real = self._outer_context.AddValue(val)
                self._values.add(real.name)
                self._external_values[real.name] = real
            result = _create_inside(self, lambda: _switch_ref_or_tensor(real, self._pred)[self._branch])
            self._external_values[val.name] = result
            return result
        external = self._external_values.get(val.name)
        return val if external is None else external

    def _build_cond_tensor(self, v):
        if isinstance(v, ops.Operation):
            return with_dependencies([v], self._pivot)  # the pivot stands for the op
        return self._process_output_tensor(ops.convert_to_tensor(_convert_tensorarray_to_flow(v)))

    def BuildCondBranch(self, fn):
        """Builds fn() in this branch: (its result as returned, the flat list of the branch's output tensors)."""
        original = fn()
        if original is None:
            return None, None
        result = [self._build_cond_tensor(_to_tensor(v)) for v in flatten(original)]
        return original, result


def _in_context(op, context):
    """Whether `op` was created in `context` or a context nested in it."""
    c = _op_context(op)
    while c is not None:
        if c is context:
            return True
        c = c.outer_context
    return False


class WhileContext(ControlFlowContext):
    """The context of a while loop: its frame name, its pivots and the values defined in it."""

    def __init__(
        self,
        maximum_iterations=None,
        parallel_iterations=10,
        back_prop=True,
        swap_memory=False,
        name="while_context",
        grad_state=None,
        context_def=None,
        import_scope=None,
    ):
        if context_def is not None:
            self._init_from_proto(context_def, import_scope)
            return
        super().__init__()
        self._name = ops.get_default_graph().unique_name(name)
        self._maximum_iterations = maximum_iterations
        self._parallel_iterations = parallel_iterations
        self._back_prop = back_prop
        self._swap_memory = swap_memory
        self._pivot_for_pred = None  # the first loop variable's Merge: the pivot while the cond is built
        self._pivot_for_body = None  # the first loop variable's Identity: the pivot while the body is built
        self._pivot = None  # the LoopCond
        self._loop_exits = []
        self._loop_enters = []
        self._grad_state = grad_state

    def _init_from_proto(self, context_def, import_scope=None):
        graph = ops.get_default_graph()

        def element(name):
            return _graph_element(graph, _prepend_name_scope(name, import_scope))

        self._name = _prepend_name_scope(context_def.context_name, import_scope)
        names = context_def.maximum_iterations_name
        self._maximum_iterations = element(names) if names else None
        self._parallel_iterations = context_def.parallel_iterations
        self._back_prop = context_def.back_prop
        self._swap_memory = context_def.swap_memory
        self._pivot_for_pred = element(context_def.pivot_for_pred_name)
        self._pivot_for_body = element(context_def.pivot_for_body_name)
        self._pivot = element(context_def.pivot_name)
        self._loop_exits = [element(name) for name in context_def.loop_exit_names]
        self._loop_enters = [element(name) for name in context_def.loop_enter_names]
        self._grad_state = None
        super().__init__(values_def=context_def.values_def, import_scope=import_scope)
        # The Switches of the loop variables (on the LoopCond) are the loop's switches for its gradient.
        for name in self._values:
            op = graph.as_graph_element(name).op
            if (
                op.type in ("Switch", "RefSwitch")
                and op._control_flow_context is self
                and op.inputs[1].op is self._pivot.op
            ):
                op._is_loop_switch = True

    def to_proto(self, export_scope=None):
        """This loop as a WhileContextDef (names relative to `export_scope`); None when it is outside it.

        Example:
          >>> import tensorweave as tw
          >>> with tw.Graph().as_default():
          ...     i = tw.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
          ...     proto = tw.get_collection(tw.GraphKeys.WHILE_CONTEXT)[0].to_proto()
          ...     print(proto.context_name, proto.pivot_name, list(proto.loop_exit_names))
          while/while_context while/LoopCond:0 ['while/Exit:0']
        """
        if export_scope and not self.name.startswith(export_scope):
            return None
        context_def = _control_flow_pb2().WhileContextDef()
        context_def.context_name = _strip_name_scope(self.name, export_scope)
        context_def.parallel_iterations = self._parallel_iterations
        if self._maximum_iterations is not None:
            context_def.maximum_iterations_name = _strip_name_scope(self._maximum_iterations.name, export_scope)
        context_def.back_prop = self._back_prop
        context_def.swap_memory = self._swap_memory
        context_def.pivot_for_pred_name = _strip_name_scope(self._pivot_for_pred.name, export_scope)
        context_def.pivot_for_body_name = _strip_name_scope(self._pivot_for_body.name, export_scope)
        context_def.pivot_name = _strip_name_scope(self._pivot.name, export_scope)
        context_def.loop_exit_names.extend(_strip_name_scope(x.name, export_scope) for x in self._loop_exits)
        context_def.loop_enter_names.extend(_strip_name_scope(x.name, export_scope) for x in self._loop_enters)
        context_def.values_def.MergeFrom(self._to_values_def(export_scope))
        for nested in self._nested_contexts:
            nested.to_control_flow_context_def(context_def.nested_contexts.add(), export_scope)
        return context_def

    @staticmethod
    def from_proto(context_def, import_scope=None):
        """The WhileContext a WhileContextDef describes, over the ops of the default graph (named with
        `import_scope/` before them), with its nested contexts; the ops it names get it as their context.
        The loop's Enter ops must already have the frame name `import_scope/context_name` (import_meta_graph
        renames the frames of the GraphDef it imports)."""
        return _nested_from_proto(
            WhileContext(context_def=context_def, import_scope=import_scope), context_def.nested_contexts, import_scope
        )

    def to_control_flow_context_def(self, context_def, export_scope=None):
        context_def.while_ctxt.CopyFrom(self.to_proto(export_scope=export_scope))

    @property
    def maximum_iterations(self):
        return self._maximum_iterations

    @property
    def parallel_iterations(self):
        return self._parallel_iterations

    @property
    def back_prop(self):
        return self._back_prop

    @property
    def swap_memory(self):
        return self._swap_memory

    @property
    def pivot(self):
        return self._pivot

    @property
    def loop_enters(self):
        return self._loop_enters

    @property
    def loop_exits(self):
        return self._loop_exits

    @property
    def grad_state(self):
        return self._grad_state

    def GetWhileContext(self):
        return self

    def GetControlPivot(self):
        return self._pivot_for_body if self._pivot_for_body is not None else self._pivot_for_pred

    def IsWhileContext(self):
        return True

    def AddValue(self, val, name_scope=None):
        """The tensor that stands for `val` in this loop: `val` when defined inside, else an Enter of it
        (is_constant=True) into this loop's frame, made once per value."""
        if val.name in self._values or _op_context(val.op) is self:
            actual = self._external_values.get(val.name)
            return val if actual is None else actual
        self._values.add(val.name)
        grad_context = ops.get_default_graph()._get_control_flow_context()
        if grad_context is not None:
            grad_context = grad_context.GetWhileContext()
            if grad_context is not None and grad_context.grad_state is not None:
                forward = _while_context_of(val.op)
                if _is_loop_exit(val.op):
                    forward = forward.outer_context.GetWhileContext() if forward.outer_context else None
                if forward is grad_context.grad_state.forward_context:
                    real = grad_context.grad_state.GetRealValue(val)
                    self._external_values[val.name] = real
                    return real
        result = val
        if self._outer_context is not None:
            result = self._outer_context.AddValue(val, name_scope)
        source = result
        outer_controls = self._outer_controls()

        def make_enter():
            with ops.control_dependencies(outer_controls):
                return _enter(source, self._name, is_constant=True, parallel_iterations=self._parallel_iterations)

        enter = _create_inside(self, make_enter, name_scope)
        self._values.add(enter.name)
        self._external_values[val.name] = enter
        return enter

    def _outer_controls(self):
        """The current control dependencies that an Enter of this loop keeps: those of ops in the contexts
        around the loop, up to the enclosing while loop (TF's _FixControlInputsAndContext)."""
        kept = []
        outer_while = self._outer_context.GetWhileContext() if self._outer_context is not None else None
        for c in ops.get_default_graph()._current_control_dependencies():
            context, outer = _output_context(c), self._outer_context
            keep = True
            while outer is not context:
                if outer is None or outer is outer_while:
                    keep = False
                    break
                outer = outer.outer_context
            if keep and c not in kept:
                kept.append(c)
        return kept

    def _prepare_op(self, name, op_type, inputs, controls):
        if not inputs:
            internal, external = self._split_control_inputs(controls)
            if not internal:
                internal = [self.GetControlPivot().op]
        else:
            inputs = [self.AddValue(x, name + "/") for x in inputs]
            internal, external = self._split_control_inputs(controls)
            # An op that only reads loop invariants would run once, not per iteration: tie it to the pivot.
            if not internal and all(_is_loop_constant_enter(x.op) for x in inputs):
                internal = [self.GetControlPivot().op]
        if external:
            internal = internal + self._carry_external_controls(external)
        return inputs, internal

    # --- building the loop ---
    def _build_loop(self, pred, body, original_flat, flat_loop_vars, structure, shape_invariants):
        graph = ops.get_default_graph()
        self._values = {x.name for x in flat_loop_vars}
        if self._outer_context is not None:
            real_vars = [self._outer_context.AddValue(x) for x in flat_loop_vars]
        else:
            real_vars = flat_loop_vars
        # The closest enclosing pivot: an Enter of a loop invariant of an enclosing loop runs only with it.
        outer, control_pivot = self._outer_context, None
        while outer is not None and control_pivot is None:
            control_pivot = outer.GetControlPivot()
            outer = outer.outer_context
        outer_controls = self._outer_controls()
        enter_vars = []
        with graph.control_dependencies(None):
            for real_var, invariant in zip(real_vars, shape_invariants):
                controls = list(outer_controls)
                if control_pivot is not None and _is_loop_constant_enter(real_var.op):
                    controls.append(control_pivot.op)
                with graph.control_dependencies(controls):
                    enter_var = _enter(
                        real_var,
                        self._name,
                        is_constant=False,
                        parallel_iterations=self._parallel_iterations,
                        use_input_shape=False,
                    )
                if not _shape_less_than_or_equal(real_var.shape, invariant):
                    raise ValueError(
                        f"The shape invariant specified for {real_var.name} is not compatible with the initial "
                        f"shape of the loop variable. It enters the loop with shape {real_var.shape}, but the "
                        f"specified shape invariant is {invariant}."
                    )
                _force_shape(enter_var, invariant)
                enter_var.op._control_flow_context = self
                enter_vars.append(enter_var)
        self._values = {x.name for x in enter_vars}
        self._loop_enters = enter_vars

        merge_vars = [merge([x, x])[0] for x in enter_vars]
        for m in merge_vars:
            _force_shape(m, m.op.inputs[0].shape)
        self._pivot_for_pred = merge_vars[0]

        packed = pack_sequence_as(structure, list(map(_convert_flow_to_tensorarray, original_flat, merge_vars)))
        c = ops.convert_to_tensor(pred(*packed))
        if c.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"The loop's condition must return a bool tensor, got {c.dtype.name} ({c.name})")
        self._pivot = loop_cond(c, name="LoopCond")
        switch_vars = [_switch_ref_or_tensor(x, self._pivot) for x in merge_vars]
        for x in switch_vars:
            x[0].op._is_loop_switch = True

        vars_for_body = [_identity(x[1]) for x in switch_vars]
        self._pivot_for_body = vars_for_body[0]
        packed = pack_sequence_as(structure, list(map(_convert_flow_to_tensorarray, original_flat, vars_for_body)))
        body_result = body(*packed)
        if not _is_sequence(body_result):
            body_result = [body_result]
        if any(x is None for x in flatten(body_result)):
            raise ValueError(
                f"while_loop: body returned None among its results {body_result!r}; it must return the loop variables' new values"
            )
        body_result = map_structure(_to_tensor, body_result)
        assert_same_structure(list(packed), list(body_result))
        original_body_result = body_result
        result = [ops.convert_to_tensor(_convert_tensorarray_to_flow(x)) for x in flatten(body_result)]
        if len(merge_vars) != len(result):
            raise ValueError(
                "Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
                f"{len(merge_vars)} for the number of inputs/outputs, and {len(result)} for 'loop_vars'."
            )
        for m, v in zip(merge_vars, result):
            _add_next_and_back_edge(m, v)
        exit_vars = [exit(x[0]) for x in switch_vars]
        self._loop_exits = exit_vars
        self.ExitResult(exit_vars)
        return original_body_result, exit_vars

    def BuildLoop(self, pred, body, loop_vars, shape_invariants, return_same_structure):
        """Adds the loop to the graph; returns its results (the Exit tensors) packed as the loop variables."""
        original_flat = flatten(loop_vars)
        loop_vars = map_structure(_to_tensor, loop_vars)
        flat_loop_vars = [_convert_tensorarray_to_flow(x) for x in flatten(loop_vars)]
        if shape_invariants is None:
            flat_invariants = [x.shape for x in flat_loop_vars]
        else:
            flat_invariants = [
                tensor_shape.TensorShape(None) if s is None else tensor_shape.as_shape(s)
                for s in _flatten_invariants(shape_invariants, loop_vars)
            ]
            flat_invariants = [
                inv if not _is_tensor_array(o) else tensor_shape.TensorShape([])
                for inv, o in zip(flat_invariants, original_flat)
            ]
        try:
            self.Enter()
            original_body_result, exit_vars = self._build_loop(
                pred, body, original_flat, flat_loop_vars, loop_vars, flat_invariants
            )
        finally:
            self.Exit()
        flat_result = flatten(original_body_result)
        exit_with_arrays = list(map(_convert_flow_to_tensorarray, flat_result, exit_vars))
        packed = pack_sequence_as(original_body_result, exit_with_arrays)
        if return_same_structure:
            return packed
        return packed[0] if len(exit_vars) == 1 else packed


def _flatten_invariants(shape_invariants, loop_vars):
    """The shape invariants, one per flat loop variable (a TensorShape is a leaf, not a sequence)."""
    if isinstance(shape_invariants, tensor_shape.TensorShape) or not _is_sequence(shape_invariants):
        return [shape_invariants]

    def walk(s, v):
        if isinstance(s, tensor_shape.TensorShape) or s is None or not _is_sequence(v):
            return [s]
        if isinstance(v, dict):
            return [x for k in _sorted_keys(v) for x in walk(s[k], v[k])]
        if len(s) != len(v):
            raise ValueError(
                "The two structures don't have the same nested structure: shape_invariants has "
                f"{len(s)} entries where loop_vars has {len(v)}."
            )
        return [x for a, b in zip(s, v) for x in walk(a, b)]

    return walk(shape_invariants, loop_vars)


def _shape_less_than_or_equal(shape1, shape2):
    """Whether shape1 is at least as specific as shape2 (every dimension shape2 knows, shape1 has the same)."""
    shape1, shape2 = tensor_shape.as_shape(shape1), tensor_shape.as_shape(shape2)
    if shape2.dims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    for d1, d2 in zip(shape1.dims, shape2.dims):
        v2 = tensor_shape.dimension_value(d2)
        if v2 is not None and tensor_shape.dimension_value(d1) != v2:
            return False
    return True


def _add_next_and_back_edge(m, v, enforce_shape_invariant=True):
    """NextIteration(v) and the back edge from it into the Merge `m`."""
    v = ops.convert_to_tensor(v)
    if v.dtype.base_dtype != m.dtype.base_dtype:
        raise TypeError(
            f"The body of the while loop returns {v.dtype.base_dtype.name} for the loop variable that enters "
            f"as {m.dtype.base_dtype.name} ('{m.op.inputs[0].op.inputs[0].name}')"
        )
    v = _next_iteration(v)
    if enforce_shape_invariant and not _shape_less_than_or_equal(v.shape, m.shape):
        input_t = m.op.inputs[0].op.inputs[0]
        raise ValueError(
            f"Input tensor '{input_t.name}' enters the loop with shape {input_t.shape}, but has shape {v.shape} "
            "after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
            "argument of tf.while_loop to specify a less-specific shape."
        )
    _update_input(m.op, 1, v)
    return v


# --- the public constructs ------------------------------------------------------------------------------------------


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor` passed on (an Identity) only after `dependencies` have run.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import control_flow_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(control_flow_ops.with_dependencies([tw.no_op()], tw.constant(2.0))))
      2.0
    """
    from tensorweave._src.ops import array_ops

    values = list(dependencies) + [output_tensor]
    with (
        ops.name_scope(name, "control_dependency", values) as scope,
        ops.colocate_with(output_tensor),
        ops.control_dependencies(dependencies),
    ):
        if hasattr(output_tensor, "indices") and hasattr(output_tensor, "dense_shape"):  # IndexedSlices
            values = array_ops.identity(output_tensor.values, name=scope)
            return type(output_tensor)(values, output_tensor.indices, output_tensor.dense_shape)
        output_tensor = ops.convert_to_tensor(output_tensor)
        if output_tensor._is_ref:
            return _identity(output_tensor, name=scope)
        return array_ops.identity(output_tensor, name=scope)


def _unpack_if_singleton(res):
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`true_fn()` if `pred` else `false_fn()`; only the taken branch runs (TF1's `tf.cond`).

    Both functions must return the same structure (nested lists, tuples, dicts) of tensors of the same dtypes;
    the result has that structure (a one-element list is unpacked unless `strict=True`). A branch may return an
    Operation (the result is then a bool tensor that is ready when the op has run). Tensors from outside used in
    a branch are routed in through a Switch on `pred`, so nothing of the untaken branch runs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [])
      ...     y = tw.cond(x > 0, lambda: x * 2.0, lambda: -x)
      ...     print(sess.run(y, {x: 3.0}), sess.run(y, {x: -4.0}))
      6.0 4.0
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    from tensorweave._src.ops import array_ops

    with ops.name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        p_2, p_1 = switch(pred, pred)
        pivot_1 = array_ops.identity(p_1, name="switch_t")
        pivot_2 = array_ops.identity(p_2, name="switch_f")
        pred = array_ops.identity(pred, name="pred_id")

        context_t = CondContext(pred, pivot_1, branch=1)
        try:
            context_t.Enter()
            orig_res_t, res_t = context_t.BuildCondBranch(true_fn)
            if orig_res_t is None:
                raise ValueError("'true_fn' must have a return value.")
            context_t.ExitResult(res_t)
        finally:
            context_t.Exit()
        context_f = CondContext(pred, pivot_2, branch=0)
        try:
            context_f.Enter()
            orig_res_f, res_f = context_f.BuildCondBranch(false_fn)
            if orig_res_f is None:
                raise ValueError("'false_fn' must have a return value.")
            context_f.ExitResult(res_f)
        finally:
            context_f.Exit()
        # Only the outermost conds go into the collection: a nested context is saved inside its outer one.
        if context_t.outer_context is None:
            ops.add_to_collection(ops.GraphKeys.COND_CONTEXT, context_t)
            ops.add_to_collection(ops.GraphKeys.COND_CONTEXT, context_f)

        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        assert_same_structure(orig_res_t, orig_res_f)
        if not res_t:
            raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
        for x, y in zip(res_t, res_f):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                    f"Received {x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn'."
                )
        merges = [merge(pair)[0] for pair in zip(res_f, res_t)]
        merges = list(map(_convert_flow_to_tensorarray, flatten(orig_res_t), merges))
        merges = pack_sequence_as(orig_res_t, merges)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _assert_at_most_n_true(predicates, n, msg):
    from tensorweave._src.ops import array_ops, constant_op, logging_ops, math_ops

    preds_c = array_ops.stack(predicates, name="preds_c")
    num_true = math_ops.reduce_sum(math_ops.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true, constant_op.constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error = [f"{msg}: more than {n} conditions ({names}) evaluated as True:", preds_c]
    return logging_ops.Assert(condition, data=error, summarize=len(predicates))


def _case_create_default_action(predicates, actions):
    from tensorweave._src.ops import array_ops, logging_ops

    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_msg = (
            f"Implementation error: selected default action #{k} was called, but some of other predicates are True: "
        )
        default_msg = (
            "Input error: None of conditions evaluated as True:",
            array_ops.stack(predicates, name="preds_c"),
        )
        with ops.control_dependencies(
            [
                _assert_at_most_n_true(other_predicates, n=0, msg=others_msg),
                logging_ops.Assert(predicate, data=list(default_msg)),
            ]
        ):
            return action()

    return default_action, other_predicates, other_actions


def _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, ops.Tensor):
            if pred.dtype != dtypes.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    if not pred_fn_pairs:
        return (), ()
    predicates, actions = zip(*pred_fn_pairs)
    return predicates, actions


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first callable whose predicate is True, else of `default` (TF1's `tf.case`).

    `pred_fn_pairs` is a list of `(bool scalar tensor, callable)` pairs or a dict of them (taken in the order of
    the predicates' names); it builds nested `cond`s. Without `default`, the last pair's callable is the default
    and runs under Asserts that its predicate is True and no other is. `exclusive=True` adds an Assert that at
    most one predicate is True.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.int32, [])
      ...     y = tw.case([(x < 0, lambda: tw.constant(-1)), (x > 0, lambda: tw.constant(1))],
      ...                 default=lambda: tw.constant(0))
      ...     print([int(sess.run(y, {x: v})) for v in (-5, 0, 7)])
      [-1, 0, 1]
    """
    predicates, actions = _case_verify_and_canonicalize_args(pred_fn_pairs, exclusive, name)
    with ops.name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _case_create_default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with ops.control_dependencies([_assert_at_most_n_true(predicates, n=1, msg="Input error: exclusive=True")]):
                return fn()
        return fn()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """The result of `branch_fns[branch_index]()` (TF1's `tf.switch_case`); only that branch runs.

    `branch_fns` is a list of callables, a list of `(int, callable)` pairs or a dict, its keys forming the range
    `[0, n)`. An index outside it runs `default`, or the last branch when there is none. Built as `case` over
    `branch_index == k` (TensorFlow builds a functional Case op; the values are the same).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     i = tw.placeholder(tw.int32, [])
      ...     y = tw.switch_case(i, [lambda: tw.constant(10), lambda: tw.constant(20)], default=lambda: tw.constant(-1))
      ...     print([int(sess.run(y, {i: v})) for v in (0, 1, 7)])
      [10, 20, -1]
    """
    from tensorweave._src.ops import math_ops

    if not isinstance(branch_index, ops.Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        found = ",".join(map(str, sorted(keys)))
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found {{{found}}}"
        )
    actions = [fn for _, fn in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    with ops.name_scope(name, "switch_case", [branch_index]):
        pairs = [(math_ops.equal(branch_index, k), fn) for k, fn in enumerate(actions[:-1])]
        if not pairs:
            return actions[-1]()
        return case(pairs, default=actions[-1])


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
    maximum_iterations=None,
    return_same_structure=False,
):
    """Repeats `body` while `cond` is True (TF1's `tf.while_loop`).

    `loop_vars` is a (nested) structure of tensors (and TensorArrays); `cond(*loop_vars)` returns a bool scalar
    tensor, `body(*loop_vars)` the next values in the same structure. Each loop variable must keep its shape
    across iterations unless `shape_invariants` (the same structure of TensorShapes) allows it to vary: a body that
    changes a shape otherwise is a ValueError naming the loop variable. `maximum_iterations` bounds the number
    of iterations. Iterations run as data allows (up to `parallel_iterations` at once); the result is the loop
    variables' values when `cond` is False (a single tensor for a single loop variable unless
    `return_same_structure=True`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     i, total = tw.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [0, 0])
      ...     print([int(v) for v in sess.run([i, total])])
      [5, 10]
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    with ops.name_scope(name, "while", flatten(loop_vars)):
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            from tensorweave._src.ops import constant_op, math_ops

            maximum_iterations = ops.convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {maximum_iterations.shape}")
            if not maximum_iterations.dtype.is_integer:
                raise TypeError(f"'maximum_iterations' must be an integer, got {maximum_iterations.dtype.name}")
            counter = constant_op.constant(0, dtype=maximum_iterations.dtype, name="iteration_counter")
            orig_cond, orig_body = cond, body
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: math_ops.logical_and(i < maximum_iterations, orig_cond(lv))
                body = lambda i, lv: (i + 1, orig_body(lv))
            else:
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: math_ops.logical_and(i < maximum_iterations, orig_cond(*lv))
                body = lambda i, lv: (i + 1, orig_body(*lv))
            try_to_pack = False
            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        context = WhileContext(
            maximum_iterations=maximum_iterations,
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
        )
        result = context.BuildLoop(cond, body, loop_vars, shape_invariants, return_same_structure)
        # Only the outermost loops go into the collection (a nested context is saved inside its outer one), and
        # only once built: a loop whose construction raised is not exported.
        if context.outer_context is None:
            ops.add_to_collection(ops.GraphKeys.WHILE_CONTEXT, context)
        if maximum_iterations is not None:
            return result[1]
        return result
