"""tf.CriticalSection (graph mode): subgraphs that run one at a time, across the steps of a session.

A CriticalSection is a mutex of the session (MutexV2). `execute(fn)` builds fn's ops after a MutexLock and
returns fn's outputs once a ConsumeMutexLock has run after them; the lock is released when that node drops it.
A step waiting for the mutex holds no executor thread (MutexLock is asynchronous) and ends with the step's
cancellation (its timeout, Session.close).
"""

import collections
import contextlib
import threading

from tensorweave._src.framework import nest, ops
from tensorweave._src.framework.misc_api import tuple as _tuple
from tensorweave._src.ops import array_ops, control_flow_ops, gen_ops, gradients_impl

__all__ = ["CriticalSection"]

CRITICAL_SECTIONS = "critical_sections"
CRITICAL_SECTION_EXECUTIONS = "critical_section_executions"

for _op_type in ("MutexV2", "MutexLock", "ConsumeMutexLock"):
    gradients_impl.NotDifferentiable(_op_type)


class _ExecutionSignature(
    collections.namedtuple("_ExecutionSignature", ("op", "handle", "resources", "exclusive_resource_access"))
):
    """An execution of a CriticalSection: its MutexLock op, the mutex handle, the resources fn's ops use."""


def _identity(x):
    """An identity of a Tensor, TensorArray or Operation (a group of it)."""
    if hasattr(x, "flow") and hasattr(x, "identity"):  # a TensorArray
        return x.identity()
    if isinstance(x, ops.Operation):
        return ops.group(x)
    return array_ops.identity(x)


def _get_colocation(op):
    try:
        return op.get_attr("_class")
    except ValueError:
        return None


def _get_device_or_colocation(op):
    return op.device or _get_colocation(op)


def _is_resource(tensor):
    """Whether `tensor` names state of the session: a variable (TF1's reference) or a resource handle (a queue,
    a mutex, ...), i.e. the output of a stateful op with a shared_name. TF looks for `resource` tensors; here
    variables are references, so they count too (as TF's resource variables do)."""
    op_def = ops._op_defs().get(tensor.op.type)
    return bool(op_def and op_def["is_stateful"] and any(a["name"] == "shared_name" for a in op_def["attrs"]))


_CRITICAL_SECTION_STACK = threading.local()


def _get_critical_section_stack():
    stack = getattr(_CRITICAL_SECTION_STACK, "value", None)
    if stack is None:
        stack = _CRITICAL_SECTION_STACK.value = []
    return stack


@contextlib.contextmanager
def _push_critical_section_stack(signature):
    """Marks this thread as building inside the CriticalSection `signature`: building an execute of the same
    one inside (a certain deadlock) is a ValueError."""
    stack = _get_critical_section_stack()
    if signature in stack:
        raise ValueError(
            f"Attempting to lock a CriticalSection (signature={signature}) in which we are already running. "
            "This is illegal and may cause deadlocks."
        )
    stack.append(signature)
    try:
        yield
    finally:
        received = stack.pop()
        if received != signature:
            raise RuntimeError(
                f"CriticalSection stack inconsistency: expected signature {signature} but received {received}"
            )


class CriticalSection:
    """A critical section: the subgraphs given to `execute` run in serial order, also across concurrent
    `Session.run` calls (TF's tf.CriticalSection in graph mode).

    `CriticalSection(name=None, shared_name=None)`: critical sections of one session with the same
    `shared_name` (default: the name) share their mutex. `execute(fn, exclusive_resource_access=True,
    name=None)` returns fn's outputs (a structure of tensors and ops); fn's ops run only while the section is
    held, and their inputs made outside fn are computed before it is taken. A ValueError when the execute would
    deadlock (fn executes in the same section) or, with `exclusive_resource_access`, when another section
    executes on a variable or resource fn uses.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable(0, name="v")
      ...     cs = tw.CriticalSection()
      ...     def count():
      ...         value = v.read_value()
      ...         with tw.control_dependencies([value]):
      ...             with tw.control_dependencies([v.assign(value + 1)]):
      ...                 return tw.identity(value)
      ...     f1, f2 = cs.execute(count), cs.execute(count)
      ...     sess.run(v.initializer)
      ...     print(sorted(int(x) for x in sess.run([f1, f2])), int(sess.run(v)))
      [0, 1] 2
    """

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        del import_scope
        if critical_section_def and name is not None:
            raise ValueError(
                f"Arguments critical_section_def={critical_section_def} and shared_name={shared_name} are "
                "mutually exclusive. Please only specify one of them."
            )
        if critical_section_def:
            raise ValueError("Argument `critical_section_def` is not supported.")
        graph = ops.get_default_graph()
        with ops.name_scope(name, "CriticalSection", []) as scope, graph.control_dependencies(None):
            container = graph._container or ""
            if shared_name is None:
                shared_name = scope
            self._handle = gen_ops.wrapper("MutexV2")(shared_name=shared_name, container=container, name=scope)
        # Unique per mutex: an empty shared_name makes the node's own.
        self._signature = (container, shared_name or id(self._handle), _get_device_or_colocation(self._handle.op))
        ops.add_to_collections(CRITICAL_SECTIONS, self)

    @property
    def name(self):
        return self._handle.op.name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """Builds `fn()` (no arguments: close over them) inside the critical section and returns its outputs.

        Args:
          fn: builds the subgraph; returns tensors or ops (at least one), possibly nested.
          exclusive_resource_access: whether the variables and resources fn's ops use may be used by no other
            CriticalSection's executions (False: allow it where they are only read).
          name: the name scope of the ops made here.

        Raises:
          ValueError: when fn executes in this same section (a deadlock), or another section's execution uses
            a resource fn's ops use and this one or that one asked for exclusive access.
        """
        graph = ops.get_default_graph()
        with ops.name_scope(name, "critical_section_execute", []):
            # The section is taken only after every input of fn's ops made outside fn is computed (the
            # MutexLock's handle input comes through an Identity that waits for them), so that a step never
            # holds it while waiting for work that may itself wait for it.
            with _push_critical_section_stack(self._signature):
                lock = gen_ops.wrapper("MutexLock")(self._handle)
                with graph._lock:  # no op of another thread among fn's
                    existing = len(graph.get_operations())
                    with ops.control_dependencies([lock]):
                        r = fn()
                    created_ops = graph.get_operations()[existing:]
            self._add_control_dependencies_to_lock(created_ops, lock.op)
            captured = {}  # name -> tensor, in order
            for op in created_ops:
                for t in op.inputs:
                    if _is_resource(t):
                        captured.setdefault(t.name, t)
            captured_resources = list(captured.values())
            if any(self._is_self_handle(t) for t in captured_resources):
                raise ValueError(
                    "Attempting to lock a CriticalSection in which we are already running "
                    f"(signature={self._signature}). This is illegal and may cause deadlocks."
                )
            self._check_multiple_access_to_resources(captured_resources, exclusive_resource_access)

            r_flat = [_identity(x) for x in nest.flatten(r)]
            with ops.control_dependencies(r_flat):
                with ops.colocate_with(self._handle.op):
                    ensure_lock_exists = gen_ops.wrapper("ConsumeMutexLock")(lock)
                # If any element of r is used, all of them are computed together.
                r = nest.pack_sequence_as(r, _tuple(nest.flatten(r)))
            with ops.control_dependencies([ensure_lock_exists]):
                outputs = nest.map_structure(_identity, r)
            ops.add_to_collections(
                CRITICAL_SECTION_EXECUTIONS,
                _ExecutionSignature(
                    op=lock.op,
                    handle=self._handle,
                    resources=captured_resources,
                    exclusive_resource_access=exclusive_resource_access,
                ),
            )
            return outputs

    def _add_control_dependencies_to_lock(self, created_ops, lock_op):
        """Makes the lock wait for every input (data or control) of fn's ops made outside fn: its handle input
        is re-pointed to an Identity of the handle with those as control inputs."""
        created = {op.name for op in created_ops}
        skip = created | {c.name for c in lock_op.control_inputs} | {t.op.name for t in lock_op.inputs}
        skip.add(lock_op.name)
        args = {}
        for op in created_ops:
            for arg in [t.op for t in op.inputs] + list(op.control_inputs):
                if arg.name not in skip:
                    args.setdefault(arg.name, arg)
        if not args:
            return
        with ops.control_dependencies(list(args.values())):
            gated = array_ops.identity(lock_op.inputs[0], name="gated_mutex")
        control_flow_ops._update_input(lock_op, 0, gated)

    def _is_self_handle(self, x):
        """Whether the tensor `x` is this section's mutex (or one of the same shared_name and device)."""
        if x is self._handle:
            return True
        if x.op.type != "MutexV2":
            return False
        shared_name = x.op.get_attr("shared_name")
        return bool(shared_name) and (
            shared_name == self._handle.op.get_attr("shared_name")
            and (x.op.device == self._handle.op.device or _get_colocation(x.op) == _get_colocation(self._handle.op))
        )

    def _check_multiple_access_to_resources(self, captured_resources, exclusive_resource_access):
        """ValueError when another CriticalSection's execution uses one of `captured_resources` and this one or
        that one asked for exclusive access."""
        names = {t.name for t in captured_resources}
        for sg in ops.get_collection(CRITICAL_SECTION_EXECUTIONS):
            if self._is_self_handle(sg.handle):
                continue  # other executions of the same section are fine
            if not (exclusive_resource_access or sg.exclusive_resource_access):
                continue
            shared = [t for t in sg.resources if t.name in names]
            if shared:
                raise ValueError(
                    f"This execution would access resources: {[t.name for t in shared]}. Either this lock "
                    f"(CriticalSection: {self._handle}) or lock '{sg}' (CriticalSection: {sg.handle}) requested "
                    "exclusive resource access of this resource. Did you mean to call execute with keyword "
                    "argument exclusive_resource_access=False?"
                )
