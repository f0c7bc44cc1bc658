"""Gradients of the control-flow primitives, and the state `gradients()` keeps for while loops (TF1's design).

Through a `cond`: the gradient of a Merge is a Switch on the cond's predicate, the gradient of a Switch a Merge
of the two branches' gradients (the untaken branch's is dead; a branch with no gradient gets zeros built only
in that branch).

Through a `while_loop`: the backward pass is another while loop (the *grad loop*) that runs the forward loop's
iteration count in reverse. A forward loop gets a counter of its iterations; the grad loop counts it down. Each
forward value the backward pass needs is pushed on a stack (StackV2 / StackPushV2) once per forward iteration and
popped (StackPopV2) once per backward iteration, in reverse order. A loop variable's gradient is an Enter
(`b_exit`) of the gradient of its Exit, a Merge (`b_switch`) with a NextIteration back edge; a loop invariant's
gradient is accumulated over the iterations (`b_acc`), or, when it is one MatMul (a weight read in the loop),
computed by one MatMul after the backward loop from the rows of its operands collected in TensorArrays.

The pushes of one forward iteration are ordered before the next iteration's counter step, and the pops of one
backward iteration before the next, by gating the counters' NextIteration inputs with Identity ops that depend
on the pushes and pops (TF adds those control edges to existing nodes; here the input is re-pointed instead).
"""

import contextlib

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import control_flow_ops as cf
from tensorweave._src.ops import gen_ops, gradients_impl

# --- the primitives' gradients -----------------------------------------------------------------------------------


def _zeros_like_outside_loop(op, index):
    """Zeros for output `index` of `op`; for a cond's Switch, built only when that output's branch is taken."""
    from tensorweave._src.ops import array_ops

    val = op.outputs[index]
    context = cf._op_context(op)
    if op.type not in ("Switch", "RefSwitch") or context is None or not context.IsCondContext():
        return array_ops.zeros_like(val)
    switch_val = cf.switch(op.inputs[0], context.pred)[1 - context.branch]
    pivot = array_ops.identity(switch_val)
    zeros_shape = array_ops.shape(switch_val)
    with ops.control_dependencies([pivot]):
        return array_ops.zeros(zeros_shape, dtype=val.dtype)


def _switch_grad(op, *grad):
    graph = ops.get_default_graph()
    op_context = cf._op_context(op)
    grad_context = graph._get_control_flow_context()
    if op_context is not None and op_context.IsWhileContext():
        grad_state = grad_context.grad_state
        merge_grad = grad_state.switch_map.get(op)
        if merge_grad is not None:
            # Second visit: the gradient from the body closes the backward loop.
            if grad[1] is not None:
                cf._add_next_and_back_edge(merge_grad, grad[1], enforce_shape_invariant=False)
            return None, None
        if grad[0] is not None:
            # First visit: the gradient from the Exit enters the backward loop's Merge.
            merge_grad = cf.merge([grad[0], grad[0]], name="b_switch")[0]
            grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None
    if op_context is not None and op_context.IsCondContext():
        grads = list(grad)
        missing = 1 - op_context.branch
        if grads[missing] is None:
            grads[missing] = _zeros_like_outside_loop(op, missing)
        if grads[op_context.branch] is None:
            return None, None
        return cf.merge(grads, name="cond_grad")[0], None
    false_grad = cf.switch(grad[0], op.inputs[1])[0] if grad[0] is not None else None
    true_grad = cf.switch(grad[1], op.inputs[1])[1] if grad[1] is not None else None
    live = [g for g in (false_grad, true_grad) if g is not None]
    return cf.merge(live)[0], None


gradients_impl.RegisterGradient("Switch")(_switch_grad)


def _merge_grad(op, grad, _):
    from tensorweave._src.ops import math_ops

    graph = ops.get_default_graph()
    op_context = cf._output_context(op.inputs[0].op)
    grad_context = graph._get_control_flow_context()
    if op_context is not None and op_context.IsWhileContext():
        return list(cf._switch_ref_or_tensor(grad, grad_context.pivot))
    if op_context is not None and op_context.IsCondContext():
        pred = op_context.pred
        if grad_context is not None and grad_context.grad_state is not None:
            # A cond inside a loop: the backward pass needs the predicate of every forward iteration.
            grad_state = grad_context.grad_state
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_context = grad_state.grad_context
                grad_context.Exit()
                history_pred = grad_state.AddForwardAccumulator(pred)
                grad_context.Enter()
                real_pred = grad_state.AddBackpropAccumulatedValue(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        return list(cf._switch_ref_or_tensor(grad, pred, name="cond_grad"))
    conditions = [math_ops.equal(op.outputs[1], i) for i in range(len(op.inputs))]
    return [cf._switch_ref_or_tensor(grad, c)[1] for c in conditions]


gradients_impl.RegisterGradient("Merge")(_merge_grad)


def _exit_grad(op, grad):
    """The gradient of a loop's result enters the backward loop (`b_exit`)."""
    graph = ops.get_default_graph()
    grad_context = graph._get_control_flow_context()
    if grad_context is None or not grad_context.back_prop:
        return None
    if cf._op_context(op).grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    grad_context.AddName(grad.name)
    grad_context.Enter()
    try:
        result = cf._enter(
            grad,
            grad_context.name,
            is_constant=False,
            parallel_iterations=grad_context.parallel_iterations,
            name="b_exit",
        )
    finally:
        grad_context.Exit()
    grad_context.loop_enters.append(result)
    return result


gradients_impl.RegisterGradient("Exit")(_exit_grad)


def _next_iteration_grad(_, grad):
    return grad  # the backward NextIteration is added by the Switch's second visit


gradients_impl.RegisterGradient("NextIteration")(_next_iteration_grad)


def _enter_grad(op, grad):
    """A loop variable's gradient leaves the backward loop through an Exit; a loop invariant's is summed over the
    iterations."""
    graph = ops.get_default_graph()
    grad_context = graph._get_control_flow_context()
    if grad_context is None or not grad_context.back_prop or grad_context.grad_state is None:
        return grad
    if op.get_attr("is_constant"):
        return add_backprop_accumulator(grad_context, op, grad)
    result = cf.exit(grad)
    grad_context.loop_exits.append(result)
    grad_context.ExitResult([result])
    return result


gradients_impl.RegisterGradient("Enter")(_enter_grad)

# The reference forms carry a variable itself into a branch or a loop, for ops that update it (assign, scatter):
# tensorweave reads a variable as a value (its `read` Identity) everywhere a value is differentiated, so no
# gradient flows along a reference (TF registers the value forms' functions for them; nothing here reaches them).
for _op in ("RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration"):
    gradients_impl.NotDifferentiable(_op)

gradients_impl.NotDifferentiable("LoopCond")
gradients_impl.NotDifferentiable("ControlTrigger")


# --- the loops the gradient adds ---------------------------------------------------------------------------------


def _gate(op, index, controls):
    """Re-points input `index` of `op` to an Identity of it that runs after `controls` (TF adds the control edges
    to `op` itself)."""
    from tensorweave._src.ops import array_ops

    graph = op.graph
    with ops.control_dependencies(None):  # restores the graph's context on exit
        graph._set_control_flow_context(cf._op_context(op))
        with ops.control_dependencies(controls):
            gated = array_ops.identity(op.inputs[index], name="gate")
    cf._update_input(op, index, gated)


def add_forward_loop_counter(context, outer_grad_state):
    """Adds a counter of iterations to the forward loop `context`: (total iterations, the NextIteration of the
    counter)."""
    from tensorweave._src.ops import constant_op, math_ops

    graph = ops.get_default_graph()
    controls = []
    if outer_grad_state is not None:
        controls = [outer_grad_state.forward_add_op]
    with ops.control_dependencies(controls):
        n = constant_op.constant(0, name="f_count")
    context.Enter()
    try:
        context.AddName(n.name)
        enter_n = cf._enter(
            n, context.name, is_constant=False, parallel_iterations=context.parallel_iterations, name="f_count"
        )
        context.loop_enters.append(enter_n)
        merge_n = cf.merge([enter_n, enter_n])[0]
        switch_n = cf.switch(merge_n, context.pivot)
        index = math_ops.add(switch_n[1], 1)
        next_n = cf._next_iteration(index)
        cf._update_input(merge_n.op, 1, next_n)
        total = cf.exit(switch_n[0], name="f_count")
        context.loop_exits.append(total)
        context.ExitResult([total])
    finally:
        context.Exit()
    del graph
    return total, next_n


def add_backprop_loop_counter(context, count, outer_grad_state):
    """Builds the backward loop's counter in `context`, counting `count` down to 0: its NextIteration."""
    from tensorweave._src.ops import constant_op, math_ops

    one = constant_op.constant(1, name="b_count")
    context.Enter()
    try:
        context.AddName(count.name)
        enter_count = cf._enter(
            count, context.name, is_constant=False, parallel_iterations=context.parallel_iterations, name="b_count"
        )
        context.loop_enters.append(enter_count)
        merge_count = cf.merge([enter_count, enter_count])[0]
        context._pivot_for_pred = merge_count
        pred = math_ops.greater_equal(merge_count, one)
        context._pivot = cf.loop_cond(pred, name="b_count")
        switch_count = cf.switch(merge_count, context.pivot)
        index = math_ops.subtract(switch_count[1], one)
        context._pivot_for_body = index
        next_count = cf._next_iteration(index)
        cf._update_input(merge_count.op, 1, next_count)
        final_zero = cf.exit(switch_count[0], name="b_count")
        context.loop_exits.append(final_zero)
        if outer_grad_state is not None:
            # The pops of the i-th run of an inner loop come before those of the (i+1)-th.
            outer_grad_state.order_pop(final_zero.op)
        context.ExitResult([final_zero])
    finally:
        context.Exit()
    return next_count


def loop_invariant_transpose(value):
    """For `value` a loop invariant of a top-level while loop (a constant Enter of a value from outside any
    loop) read by the backward loop being built: the transpose of its outside value, computed once before the
    loop (a rank-2 matrix); None otherwise. A MatMul in the backward loop that reads `value` transposed
    (transpose_b) reads this instead and so does not transpose the same matrix in every iteration."""
    from tensorweave._src.ops import array_ops

    graph = ops.get_default_graph()
    context = graph._get_control_flow_context()
    if context is None or not context.IsWhileContext() or context.grad_state is None:
        return None
    op = value.op
    if context.outer_context is not None or not cf._is_loop_constant_enter(op):
        return None
    outside = op.inputs[0]
    if cf._op_context(outside.op) is not None or outside.shape.ndims != 2:
        return None
    with ops.control_dependencies(None):  # restores the graph's context on exit
        graph._set_control_flow_context(None)
        return array_ops.transpose(outside)


def _contraction_rows(grad):
    """For `grad` a MatMul op(a) op(b) of rank-2 operands: (x, transpose) for each operand, where the rows of
    x (x = the operand, or its transpose when `transpose`) are the terms of the contraction."""
    m = grad.op
    a, b = m.inputs
    return [(a, not m.get_attr("transpose_a")), (b, m.get_attr("transpose_b"))]


def _hoistable_matmul(context, grad):
    """Whether `grad` is a MatMul of the backward loop `context` (not nested in another loop) that nothing else
    reads, with rank-2 operands whose dimensions other than the contraction's are static."""
    if grad.op.type != "MatMul" or context.outer_context is not None:
        return False
    if cf._op_context(grad.op) is not context or grad.consumers():
        return False
    for x, transpose in _contraction_rows(grad):
        dims = x.shape.dims
        if dims is None or len(dims) != 2 or dims[0 if transpose else 1].value is None:
            return False
    return True


def _hoisted_matmul(context, grad):
    """The sum over the iterations of `grad` = op(a_t) op(b_t) as one MatMul after the backward loop `context`:
    concat_t(r_t)^T concat_t(s_t), where the rows of r_t and s_t are the contraction's terms (a_t^T = r_t^T
    s_t for the gradient of a weight read as matmul(x, w); other forms transpose an operand in the loop). The
    rows of every iteration are collected in TensorArrays, written at the iteration's index, instead of one
    small MatMul and an Add of the whole sum per iteration."""
    from tensorweave._src.ops import array_ops, math_ops

    rows = [array_ops.transpose(x) if transpose else x for x, transpose in _contraction_rows(grad)]
    context.Exit()
    try:
        arrays = []
        for x in rows:
            handle, flow = gen_ops.tensor_array_v3(
                0,
                dtype=x.dtype,
                element_shape=x.shape,
                identical_element_shapes=False,
                dynamic_size=True,
                clear_after_read=True,
                tensor_array_name="",
                name="b_acc_rows",
            )
            arrays.append((handle, flow, x))
    finally:
        context.Enter()
    exits = [
        _carried(
            context,
            flow,
            lambda f, handle=handle, x=x: gen_ops.tensor_array_write_v3(handle, context._pivot_for_body, x, f),
            "b_acc_rows",
        )
        for handle, flow, x in arrays
    ]
    context.ExitResult(exits)
    context.Exit()
    try:
        concats = [
            gen_ops.tensor_array_concat_v3(
                handle, flow_out, dtype=x.dtype, element_shape_except0=x.shape[1:], name="b_acc_rows"
            )[0]
            for (handle, _, x), flow_out in zip(arrays, exits)
        ]
        return math_ops.matmul(concats[0], concats[1], transpose_a=True, name="b_acc")
    finally:
        context.Enter()


def add_backprop_accumulator(context, op, grad):
    """The sum over the iterations of `grad`, the gradient of the loop invariant that `op` (an Enter) brings
    into the loop: a loop (`b_acc`) inside the backward loop `context`, returning its Exit. A MatMul gradient
    (a weight read in the loop) is summed by one MatMul after the loop (`_hoisted_matmul`)."""
    from tensorweave._src.ops import array_ops, constant_op, math_ops

    if _hoistable_matmul(context, grad):
        return _hoisted_matmul(context, grad)
    context.Exit()
    outer = context.outer_context
    shape = grad.shape
    if outer is not None:
        outer.Enter()
    try:
        if shape.is_fully_defined():
            acc = constant_op.constant(0, grad.dtype, shape=shape.as_list(), name="b_acc")
        elif outer is not None and outer.IsWhileContext() and outer.grad_state is not None:
            # A nested loop: the shape of the invariant, per outer iteration, comes from a stack.
            forward = context.grad_state.forward_context
            outer.Exit()
            forward.outer_context.Enter()
            zeros_shape = array_ops.shape(op.inputs[0])
            forward.outer_context.Exit()
            outer_grad_state = context.grad_state.outer_grad_state
            history = outer_grad_state.AddForwardAccumulator(zeros_shape)
            outer.Enter()
            real_shape = outer_grad_state.AddBackpropAccumulatedValue(history, zeros_shape)
            acc = array_ops.zeros(real_shape, grad.dtype)
        else:
            acc = array_ops.zeros(array_ops.shape(op.inputs[0]), grad.dtype)
    finally:
        if outer is not None:
            outer.Exit()
    context.Enter()
    result = _carried(context, acc, lambda total: math_ops.add(total, grad), "b_acc")
    context.ExitResult([result])
    return result


def _carried(context, initial, step, name):
    """A value carried through the backward loop `context` (inside it): `initial` enters, each iteration
    replaces the value by `step(value)`; returns the loop's Exit of it."""
    context.AddName(initial.name)
    enter = cf._enter(
        initial, context.name, is_constant=False, parallel_iterations=context.parallel_iterations, name=name
    )
    context.loop_enters.append(enter)
    merge = cf.merge([enter, enter], name=name)[0]
    switch_false, switch_true = cf.switch(merge, context.pivot)
    cf._update_input(merge.op, 1, cf._next_iteration(step(switch_true)))
    result = cf.exit(switch_false, name=name)
    context.loop_exits.append(result)
    return result


class GradLoopState:
    """What the backward pass of one forward while loop needs: the forward and backward contexts, the
    iteration counters and the stacks of forward values (`history_map`), the backward Merges of the loop
    variables (`switch_map`)."""

    def __init__(self, forward_context, outer_grad_state):
        self.outer_grad_state = outer_grad_state
        self.forward_context = forward_context
        self.history_map = {}
        self.switch_map = {}
        self.unused_exits = []
        self.deferred_exits = []
        self.forward_loop_exits = list(forward_context.loop_exits)
        self.pending_exits_count = len(forward_context.loop_exits)
        self._forward_sync = None
        self._grad_sync = None
        outer_forward = outer_grad_state.forward_context if outer_grad_state else forward_context.outer_context
        if outer_forward is not None:
            outer_forward.Enter()
        try:
            count, self.forward_index = add_forward_loop_counter(forward_context, outer_grad_state)
        finally:
            if outer_forward is not None:
                outer_forward.Exit()
        # The op that steps the counter in each forward iteration: pushes run after it.
        self.forward_add_op = self.forward_index.op.inputs[0].op
        if outer_grad_state is not None:
            outer_forward.AddName(count.name)
            history_count = outer_grad_state.AddForwardAccumulator(count)
            outer_grad_context = outer_grad_state.grad_context
            outer_grad_context.Enter()
            try:
                self.grad_context = self._new_grad_context(forward_context)
                real_count = outer_grad_state.AddBackpropAccumulatedValue(history_count, count)
                self.grad_index = add_backprop_loop_counter(self.grad_context, real_count, outer_grad_state)
            finally:
                outer_grad_context.Exit()
        else:
            if outer_forward is not None:
                outer_forward.Enter()
            try:
                self.grad_context = self._new_grad_context(forward_context)
                self.grad_index = add_backprop_loop_counter(self.grad_context, count, outer_grad_state)
            finally:
                if outer_forward is not None:
                    outer_forward.Exit()

    def _new_grad_context(self, forward_context):
        return cf.WhileContext(
            maximum_iterations=forward_context.maximum_iterations,
            parallel_iterations=forward_context.parallel_iterations,
            back_prop=forward_context.back_prop,
            swap_memory=forward_context.swap_memory,
            name=forward_context.name,
            grad_state=self,
        )

    def order_push(self, push_op, in_cond):
        """The forward counter steps to the next iteration only after `push_op` (a push in a cond branch may be
        dead: it is waited for through a ControlTrigger)."""
        if in_cond:
            with ops.control_dependencies(None):
                trigger = _created_in(self.forward_context, lambda: _control_trigger_after([push_op], "f_sync"))
            push_op = trigger
        _gate(self.forward_index.op, 0, [push_op])

    def order_pop(self, pop_op, in_cond=False):
        """The backward counter steps to the next iteration only after `pop_op` (a pop in a cond branch may be
        dead: it is waited for through a ControlTrigger, as TF's grad_sync)."""
        if in_cond:
            with ops.control_dependencies(None):
                trigger = _created_in(self.grad_context, lambda: _control_trigger_after([pop_op], "b_sync"))
            pop_op = trigger
        _gate(self.grad_index.op, 0, [pop_op])

    def AddForwardAccumulator(self, value, dead_branch=False):
        """A stack with `value` pushed in every forward iteration (built in the forward loop)."""
        from tensorweave._src.ops import constant_op

        graph = ops.get_default_graph()
        current = graph._get_control_flow_context()
        with ops.control_dependencies(None):
            if current is not None:
                current.Enter()
            try:
                with ops.colocate_with(value):
                    max_size = constant_op.constant(-1, dtypes.int32)
                    acc = gen_ops.stack_v2(max_size, elem_type=value.dtype.base_dtype, name="f_acc")
            finally:
                if current is not None:
                    current.Exit()
            enter_acc = self.forward_context.AddValue(acc)
            swap = self.forward_context.swap_memory
            value_context = cf._output_context(value.op)
            if value_context is self.forward_context:
                push = _created_in(
                    self.forward_context,
                    lambda: _push(enter_acc, value, swap, [self.forward_add_op]),
                    enter=True,
                )
                self.order_push(push.op, in_cond=False)
            else:
                if value_context is None or not value_context.IsCondContext():
                    raise TypeError(f"value_ctxt is not a CondContext: {value_context}")
                if dead_branch:
                    push = _created_in(
                        value_context.outer_context,
                        lambda: _push(enter_acc, value, swap, [self.forward_add_op]),
                        enter=True,
                    )
                    push.op._control_flow_context = value_context
                else:
                    push = _created_in(
                        value_context, lambda: _push(enter_acc, value, swap, [self.forward_add_op]), enter=True
                    )
                self.order_push(push.op, in_cond=True)
        return acc

    def AddBackpropAccumulatedValue(self, history_value, value, dead_branch=False):
        """A pop of the stack `history_value` in the backward loop: the value of `value` in the matching forward
        iteration (guarded by the predicate of the cond `value` is in, if any)."""
        history_context = cf._op_context(history_value.op)
        cond_context = None
        value_context = cf._op_context(value.op)
        while value_context is not None and value_context is not history_context:
            if value_context.IsCondContext():
                cond_context = value_context
                break
            value_context = value_context.outer_context
        with ops.control_dependencies(None):
            self.grad_context.Enter()
            try:
                if cond_context is not None:
                    grad_state, pred = self, None
                    while pred is None and grad_state is not None:
                        pred = grad_state.history_map.get(cond_context.pred.name)
                        grad_state = grad_state.outer_grad_state
                    if pred is None:
                        pred = cond_context.pred
                    branch = (1 - cond_context.branch) if dead_branch else cond_context.branch
                    history_value = cf._switch_ref_or_tensor(history_value, pred)[branch]
                pop = gen_ops.stack_pop_v2(history_value, elem_type=value.dtype.base_dtype)
                cf._force_shape(pop, value.shape)
            finally:
                self.grad_context.Exit()
        if self.grad_context.parallel_iterations > 1:
            self.order_pop(pop.op, in_cond=cond_context is not None)
        return pop

    def GetRealValue(self, value):
        """The value of forward tensor `value` in the matching forward iteration, for use in the backward loop
        (pushed on a stack in the forward loop the first time it is asked for)."""
        from tensorweave._src.ops import array_ops, constant_op

        real_value = self.history_map.get(value.name)
        if real_value is not None:
            return real_value
        current_value, current_state, history_value = value, self, None
        while True:
            enter_op = _loop_constant_enter(current_value)
            if enter_op is not None:
                # A loop invariant: its value from outside the loop.
                current_value = enter_op.inputs[0]
                current_state = current_state.outer_grad_state
                if current_state is None:
                    real_value = self.grad_context.AddValue(current_value)
                    break
            elif current_value.op.type == "Const":
                real_value = constant_op.constant(array_ops.constant_value(current_value), dtype=current_value.dtype)
                break
            else:
                self.grad_context.Exit()
                try:
                    history_value = current_state.AddForwardAccumulator(current_value)
                finally:
                    self.grad_context.Enter()
                break
        if real_value is None:
            real_value = current_state.AddBackpropAccumulatedValue(history_value, current_value)
            if current_state is not self:
                real_value = self.grad_context.AddValue(real_value)
        self.history_map[value.name] = real_value
        return real_value


def _push(handle, value, swap, controls):
    with ops.control_dependencies(controls):
        return gen_ops.stack_push_v2(handle, value, swap_memory=swap)


def _control_trigger_after(controls, name):
    with ops.control_dependencies(controls):
        return cf.control_trigger(name=name)


def _created_in(context, fn, enter=False):
    """fn() built with `context` as the graph's control-flow context (`enter`: through its own Enter/Exit, so the
    context processes the op's inputs; else the ops are only marked as belonging to it)."""
    graph = ops.get_default_graph()
    if enter:
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(context)
        try:
            return fn()
        finally:
            graph._set_control_flow_context(saved)
    return cf._create_inside(context, fn)


def _loop_constant_enter(value):
    op = value.op
    while op.type in ("Switch", "RefSwitch", "Identity", "RefIdentity"):
        op = op.inputs[0].op
    return op if cf._is_loop_constant_enter(op) else None


class ControlFlowState:
    """The GradLoopState of every forward while loop one `gradients()` call goes through, and the hooks
    `gradients()` calls when loops are involved."""

    def __init__(self):
        self._map = {}  # forward WhileContext -> GradLoopState

    @staticmethod
    def is_loop_switch(op):
        return cf._is_loop_switch(op)

    @contextlib.contextmanager
    def grad_context(self, op, before):
        """The backward loop's context where the gradient of `op` is built (`before`: where its incoming
        gradients are summed: outside the loop for an Exit)."""
        self.EnterGradWhileContext(op, before)
        try:
            yield
        finally:
            self.ExitGradWhileContext(op, before)

    def initial_ready(self, ready, to_ops, pending, received):
        """The ops to start from: the ys, and the unused Exits of loops that get a zero gradient."""
        ready = [op for op in ready if op in to_ops]
        for y in self.ProcessUnusedLoopExits(pending, set(ready)):
            if y.dtype.base_dtype.is_floating:
                received[y].append(self.ZerosLikeForExit(y))
            ready.append(y.op)
        return ready

    def fill_missing(self, op, out_grads):
        """Zeros for the missing gradients of a cond's Switch inside a loop (built in the branch not taken)."""
        context = cf._op_context(op)
        if op.type not in ("Switch", "RefSwitch") or context is None or not context.IsCondContext():
            return out_grads
        if self.GetGradState(op, before=False) is None:
            return out_grads
        return [
            g if g is not None or not t.dtype.base_dtype.is_floating else self.ZerosLike(op, i)
            for i, (g, t) in enumerate(zip(out_grads, op.outputs))
        ]

    def update_pending(self, op, between, pending, ready, received):
        """TF's _UpdatePendingAndEnqueueReady: a loop Switch is ready at each gradient it gets; the Exits of a
        loop are taken together once all of them are ready."""
        for x in op.inputs:
            if x.op not in between:
                continue
            pending[x.op] -= 1
            is_ready = pending[x.op] == 0 or (pending[x.op] > 0 and cf._is_loop_switch(x.op))
            if not is_ready:
                continue
            if not cf._is_loop_exit(x.op):
                ready.append(x.op)
                continue
            grad_state = self.GetGradState(x.op, before=False)
            grad_state.deferred_exits.append(x)
            grad_state.pending_exits_count -= 1
            if grad_state.pending_exits_count != 0:
                continue
            has_gradient = False
            for y in grad_state.deferred_exits:
                if any(received.get(t) for t in y.op.outputs):
                    has_gradient = True
                    ready.append(y.op)
                else:
                    grad_state.unused_exits.append(y)
            for y in grad_state.unused_exits:
                if has_gradient and y.dtype.base_dtype.is_floating:
                    received[y].append(self.ZerosLikeForExit(y))
                ready.append(y.op)

    def GetGradState(self, op, before):
        if before and cf._is_loop_exit(op):
            forward = cf._op_context(op).outer_context
            forward = forward.GetWhileContext() if forward is not None else None
        else:
            forward = cf._while_context_of(op)
        return self._map.get(forward) if forward is not None else None

    def EnterGradWhileContext(self, op, before):
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Enter()

    def ExitGradWhileContext(self, op, before):
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Exit()

    def AddWhileContext(self, op, between_list, between):
        """Makes the GradLoopState of the loop of `op` (an Exit); its other Exits join `between`."""
        forward = cf._while_context_of(op)
        grad_state = self._map.get(forward)
        if grad_state is not None:
            return
        outer_forward = forward.outer_context.GetWhileContext() if forward.outer_context is not None else None
        outer_grad_state = self._map.get(outer_forward) if outer_forward is not None else None
        grad_state = GradLoopState(forward, outer_grad_state)
        self._map[forward] = grad_state
        for loop_exit in grad_state.forward_loop_exits:
            if loop_exit.op not in between:
                between.add(loop_exit.op)
                between_list.append(loop_exit.op)

    def ProcessUnusedLoopExits(self, pending_count, to_ops):
        """Exits nothing asks a gradient of: those that get zeros (when another Exit of the loop has a
        gradient)."""
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending_count[y.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending_count[y.op] == 0:
                    pending_count[y.op] = 1
        return loop_exits

    def ZerosLikeForExit(self, val):
        """The zero gradient of an Exit `val` nothing asks a gradient of."""
        from tensorweave._src.ops import array_ops

        forward = cf._op_context(val.op)
        outer_forward = forward.outer_context.GetWhileContext() if forward.outer_context is not None else None
        outer_grad_state = self._map.get(outer_forward) if outer_forward is not None else None
        if outer_grad_state is not None:
            if val.shape.is_fully_defined():
                outer_grad_state.grad_context.Enter()
                try:
                    return array_ops.zeros(val.shape.as_list(), val.dtype)
                finally:
                    outer_grad_state.grad_context.Exit()
            forward.outer_context.Enter()
            shape = array_ops.shape(val)
            forward.outer_context.Exit()
            history = outer_grad_state.AddForwardAccumulator(shape)
            outer_grad_state.grad_context.Enter()
            try:
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history, shape)
                return array_ops.zeros(real_shape, val.dtype)
            finally:
                outer_grad_state.grad_context.Exit()
        if val.shape.is_fully_defined():
            return array_ops.zeros(val.shape.as_list(), val.dtype)
        return array_ops.zeros_like(val)

    def ZerosLike(self, op, index):
        """Zeros for output `index` of `op`, in the backward loop when `op` is in a forward loop (None for a loop
        Switch)."""
        from tensorweave._src.ops import array_ops, constant_op

        if cf._is_loop_switch(op):
            return None
        dead_branch = op.type in ("Switch", "RefSwitch")
        forward = cf._while_context_of(op)
        grad_state = self._map.get(forward) if forward is not None else None
        if grad_state is None:
            return _zeros_like_outside_loop(op, index)
        op_context = cf._op_context(op)
        val = op.outputs[index]
        if val.shape.is_fully_defined():
            result = constant_op.constant(0, shape=val.shape.as_list(), dtype=val.dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_context.pred.name)
                result = cf._switch_ref_or_tensor(result, pred)[1 - op_context.branch]
            return result
        if dead_branch:
            pred = op_context.pred
            op_context.outer_context.Enter()
            val = cf._switch_ref_or_tensor(op.inputs[0], pred)[1 - op_context.branch]
            zeros_shape = array_ops.shape(val)
            op_context.outer_context.Exit()
            val.op._control_flow_context = op_context
            zeros_shape.op._control_flow_context = op_context
        else:
            op_context.Enter()
            zeros_shape = array_ops.shape(val)
            op_context.Exit()
        grad_state.grad_context.Exit()
        history = grad_state.AddForwardAccumulator(zeros_shape, dead_branch=dead_branch)
        grad_state.grad_context.Enter()
        shape = grad_state.AddBackpropAccumulatedValue(history, zeros_shape, dead_branch)
        return array_ops.zeros(shape, val.dtype)

    def PostProcessing(self):
        """A loop variable whose next value does not depend on its value: its gradient for the iterations
        after the first is zeros (the backward Merge's back edge)."""
        from tensorweave._src.ops import array_ops, constant_op

        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is not b_merge.op.inputs[1]:
                    continue
                dtype = b_merge.op.inputs[0].dtype
                shape = b_merge.op.inputs[0].shape
                if shape.is_fully_defined():
                    grad_state.grad_context.Enter()
                    try:
                        grad_val = constant_op.constant(0, dtype=dtype, shape=shape.as_list())
                        next_grad_val = cf._next_iteration(grad_val)
                    finally:
                        grad_state.grad_context.Exit()
                else:
                    outer = grad_state.grad_context.outer_context
                    if outer is not None:
                        outer.Enter()
                    try:
                        enter_grad = b_merge.op.inputs[0].op.inputs[0]
                        grad_val = array_ops.zeros(array_ops.shape(enter_grad), dtype=dtype)
                    finally:
                        if outer is not None:
                            outer.Exit()
                    grad_state.grad_context.Enter()
                    try:
                        next_grad_val = cf._next_iteration(grad_val)
                    finally:
                        grad_state.grad_context.Exit()
                cf._update_input(b_merge.op, 1, next_grad_val)


def maybe_create_control_flow_state(between_list, between):
    """A ControlFlowState when the ops between xs and ys include a loop's Exit, else None (adds the loops'
    other Exits to `between`)."""

    def depth(op):  # outer loops first: an inner loop's grad loop is built inside its outer loop's
        count, context = 0, cf._while_context_of(op)
        while context is not None:
            count += 1
            context = context.outer_context.GetWhileContext() if context.outer_context is not None else None
        return count

    state = None
    for op in sorted((op for op in between_list if cf._is_loop_exit(op)), key=depth):
        if state is None:
            state = ControlFlowState()
        state.AddWhileContext(op, between_list, between)
    return state
