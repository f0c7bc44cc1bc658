"""Graphs, operations and tensors: the Python face of the C++ graph.

The graph lives in C++ (`_pywrap_tensorweave.Graph`); each node added is
checked and its output shapes inferred there, so a mistake is raised where
the user made it, with their file and line.
"""

import contextlib
import os
import re
import sys
import threading

import numpy as np

from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.framework import device_spec as pydev
from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import tensor_shape

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_location():
    """(filename, line) of the innermost caller outside tensorweave."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0)
    return (frame.f_code.co_filename, frame.f_lineno)


class GraphKeys:
    """Names of the standard collections."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MODEL_VARIABLES = "model_variables"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SUMMARIES = "summaries"
    SUMMARY_OP = "summary_op"
    INIT_OP = "init_op"
    TRAIN_OP = "train_op"
    GLOBAL_STEP = "global_step"
    SAVERS = "savers"
    QUEUE_RUNNERS = "queue_runners"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    WHILE_CONTEXT = "while_context"
    COND_CONTEXT = "cond_context"
    VARIABLES = "variables"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"
    CONCATENATED_VARIABLES = "concatenated_variables"
    EVAL_STEP = "eval_step"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    SAVEABLE_OBJECTS = "saveable_objects"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"


class Tensor:
    """One output of an `Operation`: a symbolic value, computed by
    `Session.run`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     c = tw.constant([[1.0, 2.0]])
      ...     print(c.name, c.shape, c.dtype.name)
      Const:0 (1, 2) float32
    """

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_is_ref", "__weakref__")
    # Make numpy defer to our operators (`np_array + tensor`).
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape, is_ref=False):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape
        self._is_ref = is_ref

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op.graph

    @property
    def name(self):
        return f"{self._op.name}:{self._value_index}"

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape (must be compatible with what is known, else ValueError); ops added
        afterwards see the refined shape."""
        shape = tensor_shape.as_shape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(_merge_error(self._shape, shape))
        merged = self._shape.merge_with(shape)
        self._op._graph._c.set_output_shape(self._op._id, self._value_index, tensor_shape.as_attr(merged))
        self._shape = merged

    def consumers(self):
        return [op for op in self.graph.get_operations() if any(t is self for t in op.inputs)]

    def eval(self, feed_dict=None, session=None):
        """Runs this tensor in `session` (default: the default session)."""
        session = _session_or_default(session)
        return session.run(self, feed_dict)

    # As TF1 prints them (programs print tensors): str `Tensor("x:0", shape=(?, 3), dtype=float32)`,
    # repr `<tf.Tensor 'x:0' shape=(?, 3) dtype=float32>`.
    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __bool__(self):
        raise TypeError(
            "Using a tw.Tensor as a Python bool is not allowed: the value is only "
            "known when the graph runs. Use tw.cond or compute it in a Session."
        )

    def __iter__(self):
        raise TypeError("A tw.Tensor is not iterable: its value is only known at run time.")

    def __len__(self):
        raise TypeError("len() of a tw.Tensor is not defined; use tensor.shape[0] or tw.shape(tensor).")


def _merge_error(a, b):
    """TensorFlow's words for shapes that do not merge (its C++ InferenceContext::Merge)."""

    def text(shape):
        return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"

    if a.ndims != b.ndims:
        return f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}"
    for d, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            return (
                f"Dimension {d} in both shapes must be equal, but are {x} and {y}. Shapes are {text(a)} and {text(b)}."
            )
    return f"Shapes {a} and {b} are not compatible"


class _ControlFrame(list):
    """The control inputs of one control_dependencies block, and the ops made inside it (`seen`)."""

    def __init__(self):
        super().__init__()
        self.seen = set()


def _canonical_inputs(node_def):
    """`node_def` with its inputs as TensorFlow writes them: an op's first output by the op's name ("a", not
    "a:0"); other outputs "a:1"; control inputs "^a"."""
    inputs = [i[:-2] if i.endswith(":0") and not i.startswith("^") else i for i in node_def.input]
    if inputs != list(node_def.input):
        del node_def.input[:]
        node_def.input.extend(inputs)
    return node_def


class Operation:
    """A node of the graph: an op applied to input tensors, producing outputs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.constant(1.0) + tw.constant(2.0)
      ...     print(x.op.type, [t.name for t in x.op.inputs])
      AddV2 ['Const:0', 'Const_1:0']
    """

    def __init__(self, graph, node_id, inputs, control_inputs, location):
        self._graph = graph
        self._id = node_id
        name, op_type, device, _, _, outputs = graph._c.node_info(node_id)
        self._name = name
        self._type = op_type
        self._device = device
        self._inputs = tuple(inputs)
        self._control_inputs = tuple(control_inputs)
        self._location = location
        self._control_flow_context = None  # the CondContext / WhileContext the op was created in
        self._outputs = tuple(
            Tensor(self, i, dtypes.as_dtype(dt), tensor_shape.TensorShape(shape), is_ref)
            for i, (dt, shape, is_ref) in enumerate(outputs)
        )

    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._type

    @property
    def device(self):
        return self._device

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return self._inputs

    @property
    def outputs(self):
        return self._outputs

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def node_def(self):
        from tensorweave._src.framework import graph_pb2

        return _canonical_inputs(graph_pb2.NodeDef.FromString(self._graph._c.node_def(self._id)))

    @property
    def traceback(self):
        """[(filename, line)] where the op was created."""
        return [self._location]

    def get_attr(self, name):
        """The value of attr `name` (ValueError when the op has none of that name, as TF's)."""
        try:
            value = self._graph._c.get_attr(self._id, name)
        except errors.InvalidArgumentError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None
        return _attr_from_py(self._graph, self._id, name, value)

    def colocation_groups(self):
        """The colocation groups of the op: its `_class` attr's `loc:@<name>` entries, else `[b"loc:@<own
        name>"]`.

        Example:
          >>> import tensorweave as tw
          >>> with tw.Graph().as_default():
          ...     a = tw.constant(1.0, name="a")
          ...     with tw.colocate_with(a):
          ...         b = tw.identity(a, name="b")
          ...     print(a.op.colocation_groups(), b.op.colocation_groups())
          [b'loc:@a'] [b'loc:@a']
        """
        default = [f"loc:@{self._name}".encode()]
        try:
            groups = self.get_attr("_class")
        except ValueError:
            return default
        groups = [g for g in groups if g.startswith(b"loc:@")]
        return groups or default

    def _set_device(self, device):
        """Sets the device the op asks for (a string or DeviceSpec), written as given."""
        device = device.to_string() if isinstance(device, pydev.DeviceSpec) else device
        self._graph._c.set_device(self._id, device)
        self._device = device

    def values(self):
        return self._outputs

    def run(self, feed_dict=None, session=None):
        """Runs this operation in `session` (default: the default session)."""
        _session_or_default(session).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"


def _attr_from_py(graph, node_id, name, value):
    info = graph._op_def(graph._c.node_info(node_id)[1])
    for attr in info["attrs"]:
        if attr["name"] == name:
            if attr["type"] == "type":
                return dtypes.as_dtype(value)
            if attr["type"] == "list(type)":
                return [dtypes.as_dtype(v) for v in value]
            if attr["type"] == "shape":
                return tensor_shape.TensorShape(value)
            if attr["type"] == "string":
                return value
    return value


_VALID_SCOPE = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


class Graph:
    """A dataflow graph: operations and the tensors between them.

    Example:
      >>> import tensorweave as tw
      >>> g = tw.Graph()
      >>> with g.as_default():
      ...     x = tw.placeholder(tw.float32, [None, 3], name="x")
      >>> g.get_tensor_by_name("x:0") is x
      True
    """

    def __init__(self):
        self._c = _pywrap.Graph()
        self._lock = threading.RLock()
        self._ops = []  # by node id
        self._names_in_use = {}
        self._name_stack = ""
        self._device_stack = []  # _DeviceScope entries, outermost first
        self._colocation_stack = []  # Operations, outermost first
        self._attr_scope_map = {}
        self._gradient_override_map = {}  # op type -> the gradient's registered name (gradient_override_map)
        self._control_stack = []
        self._collections = {}
        self._finalized = False
        self._unfeedable_tensors = set()  # names (prevent_feeding)
        self._unfetchable_ops = set()  # names (prevent_fetching)
        self._control_flow_context = None  # control_flow_ops' CondContext / WhileContext being built
        self._container = ""  # Graph.container's name: the `container` attr of stateful ops made inside
        self.seed = None
        self._last_op_seed = 0

    # --- construction -----------------------------------------------------
    def _create_op(self, op_type, inputs, attrs=None, name=None, control_inputs=None):
        """Adds a node; `inputs` are Tensors (lists of Tensors for list args)."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        location = _user_location()
        with self._lock:
            if name and name.endswith("/"):
                name = name[:-1]  # a scope's own name, already reserved
            else:
                name = self.unique_name(name or op_type)
            flat = []
            for item in inputs:
                if isinstance(item, (list, tuple)):
                    flat.extend(item)
                else:
                    flat.append(item)
            for t in flat:
                if t.graph is not self:
                    raise ValueError(f"Tensor {t.name} must be from the same graph as the op '{name}' being created")
            controls = []
            for c in self._control_dependencies_for_inputs([t.op for t in flat]):
                if c not in controls:
                    controls.append(c)
            for c in control_inputs or ():
                c = c if isinstance(c, Operation) else c.op
                if c not in controls:
                    controls.append(c)
            context = self._control_flow_context
            if context is not None:
                # Inside a cond branch or a while body: external inputs come in through a Switch / Enter, an op
                # without inputs gets the context's pivot as a control input (control_flow_ops).
                flat, controls = context._prepare_op(name, op_type, flat, controls)
                inputs = _restructure(inputs, flat)
            attrs = dict(attrs) if attrs else {}
            for key, value in self._attr_scope_map.items():
                attrs.setdefault(key, value)
            if op_type in self._gradient_override_map:
                attrs["_gradient_op_type"] = self._gradient_override_map[op_type]
            if self._container and not attrs.get("container"):
                op_def = self._op_def(op_type)
                if op_def["is_stateful"] and any(a["name"] == "container" for a in op_def["attrs"]):
                    attrs["container"] = self._container
            # As TF's op builder: an op taking a variable by reference is colocated with it, and the device
            # scopes around it do not apply (colocate_with resets them).
            colocation = list(self._colocation_stack)
            device_stack = self._device_stack
            for arg, value in zip(self._op_def(op_type)["inputs"], inputs):
                if arg["is_ref"] and isinstance(value, Tensor):
                    colocation.append(value.op)
                    device_stack = []
            colocation_device = ""
            if colocation:
                groups = set()
                for c in reversed(colocation):  # innermost first
                    groups.update(c.colocation_groups())
                    if c.device and not colocation_device:
                        colocation_device = c.device
                attrs["_class"] = sorted(groups)
            functions = _device_functions_apply(device_stack)
            device = "" if functions else _merge_device_stack(device_stack, None)
            try:
                node_id = self._c.add_node(
                    op_type,
                    name,
                    [t.name for t in flat],
                    [c.name for c in controls],
                    attrs,
                    "" if functions else colocation_device or device,
                )
            except errors.OpError as e:
                raise _construction_error(_with_location(e, location)) from None
            op = Operation(self, node_id, flat, controls, location)
            op._control_flow_context = context
            self._ops.append(op)
            for frame in self._active_control_frames():
                frame.seen.add(op)
            if context is not None:
                context._op_added(op)
            if functions:
                # Device functions see the created op (TF's Graph._apply_device_functions).
                _merge_device_stack(device_stack, op)
                if colocation_device:
                    op._set_device(colocation_device)
            for hook in _op_creation_hooks:
                hook(op)
            return op

    def _op_def(self, op_type):
        return _op_defs()[op_type]

    def unique_name(self, name, mark_as_used=True):
        """`name` under the current name scope, made unique ("add", "add_1")."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count > 0:
            base = key
            while True:
                candidate = f"{name}_{count}"
                if candidate.lower() not in self._names_in_use:
                    break
                count += 1
            if mark_as_used:
                self._names_in_use[candidate.lower()] = 1
                self._names_in_use[base] = count + 1
            name = candidate
        return name

    def _mark_name_used(self, name):
        """Reserves an existing node's name and its scopes ("a/b/c" reserves
        "a", "a/b" and "a/b/c"), so new ops and scopes do not collide."""
        parts = name.lower().split("/")
        for i in range(1, len(parts) + 1):
            key = "/".join(parts[:i])
            self._names_in_use[key] = max(self._names_in_use.get(key, 0), 1)

    def get_name_scope(self):
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Prefixes the names of ops created inside with `name/`."""
        old = self._name_stack
        if name is None or name == "":
            new = ""
        elif name.endswith("/"):
            new = name[:-1]  # an exact scope, re-entered
        else:
            if not _VALID_SCOPE.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield "" if not new else new + "/"
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Requests a device for the ops created inside (TF1's `Graph.device`).

        `device_name_or_function` is a device string (full or partial: "/job:ps/task:0", "/gpu:1",
        "/device:CPU:0"), a `DeviceSpec`, a function `f(op) -> device string or DeviceSpec`, None (the scopes
        around it no longer apply) or "" (no effect). Nested scopes merge from the innermost out: a string
        or spec fills only the fields the op's device does not set yet; a function's result replaces the
        device. ValueError when a device string is malformed.

        Example:
          >>> import tensorweave as tw
          >>> g = tw.Graph()
          >>> with g.as_default(), g.device("/job:ps"):
          ...     with g.device("/gpu:1"):
          ...         a = tw.constant(1.0)
          ...     with g.device(lambda op: "/cpu:0"):
          ...         b = tw.constant(2.0)
          >>> a.device, b.device
          ('/job:ps/device:GPU:1', '/job:ps/device:CPU:0')
        """
        scope = _DeviceScope(device_name_or_function)
        self._device_stack.append(scope)
        try:
            yield
        finally:
            if not self._device_stack or self._device_stack[-1] is not scope:
                raise RuntimeError("Exiting device scope without proper scope nesting.")
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Creates the ops inside on the device of `op` (an Operation, Tensor or Variable), in its
        colocation group (TF1's `Graph.colocate_with`).

        Ops created inside carry the `_class` attr `[b"loc:@<name>", ...]` (the colocation groups of every
        op colocated with, sorted) and take the device of the innermost of them that has one; the device
        scopes around the block do not apply (those opened inside do, where the colocated ops have no
        device). `ignore_existing=True` drops the colocations around the block; `op=None` with it clears
        them (ValueError without it).

        Example:
          >>> import tensorweave as tw
          >>> g = tw.Graph()
          >>> with g.as_default():
          ...     with g.device("/job:ps/task:0"):
          ...         v = tw.Variable(1.0, name="v")
          ...     with g.device("/job:worker"), g.colocate_with(v):
          ...         w = tw.identity(v, name="w")
          >>> w.device, w.op.get_attr("_class")
          ('/job:ps/task:0', [b'loc:@v'])
        """
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
        op = _op_to_colocate_with(op, self)
        saved_devices = self._device_stack
        saved_colocation = self._colocation_stack
        self._device_stack = []
        if ignore_existing:
            self._colocation_stack = []
        if op is not None:
            self._colocation_stack = self._colocation_stack + [op]
        try:
            yield
        finally:
            self._device_stack = saved_devices
            self._colocation_stack = saved_colocation

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of the types in `op_type_map` (op type -> a name given to tw.RegisterGradient) created inside use
        that gradient (recorded in their `_gradient_op_type` attr, as TF's Graph.gradient_override_map)."""
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        for op_type, mapped in op_type_map.items():
            if not (isinstance(op_type, str) and isinstance(mapped, str)):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = self._gradient_override_map
        self._gradient_override_map = {**saved, **op_type_map}
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        """Sets the attrs in `attr_map` (name -> value, None removes) on the ops created inside that do not
        set them (TF's Graph._attr_scope)."""
        saved = self._attr_scope_map
        merged = dict(saved)
        for key, value in attr_map.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        self._attr_scope_map = merged
        try:
            yield
        finally:
            self._attr_scope_map = saved

    @contextlib.contextmanager
    def container(self, container_name):
        """Stateful ops made inside (variables, queues, readers, accumulators) live in the resource container
        `container_name`: their `container` attr is set to it unless they set one (TF's Graph.container).

        Example:
          >>> import tensorweave as tw
          >>> g = tw.Graph()
          >>> with g.as_default(), g.container("experiment0"):
          ...     v = tw.Variable([1.0], name="v")
          >>> v.op.get_attr("container")
          b'experiment0'
        """
        original = self._container
        self._container = container_name
        try:
            yield self._container
        finally:
            self._container = original

    def _get_control_flow_context(self):
        """The control-flow context (cond branch, while body) new ops are created in, or None."""
        return self._control_flow_context

    def _set_control_flow_context(self, context):
        self._control_flow_context = context

    def _current_control_dependencies(self):
        deps = []
        for frame in self._active_control_frames():
            deps.extend(frame)
        return deps

    def _active_control_frames(self):
        """The control_dependencies blocks in force (those since the innermost control_dependencies(None))."""
        frames = []
        for frame in self._control_stack:
            frames = [] if frame is None else frames + [frame]
        return frames

    def _control_dependencies_for_inputs(self, input_ops):
        """The control inputs of an op reading `input_ops`, pruned as TF's: not an op it already reads, and none
        of a block's when it reads an op made inside that block (which carries them already)."""
        current = self._current_control_dependencies()
        deps = []
        for frame in self._active_control_frames():
            if any(op in frame.seen for op in input_ops):
                continue
            deps.extend(c for c in frame if c not in input_ops and c in current)
        return deps

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run only after `control_inputs` (None clears them, and the control-flow context
        too, as TF's)."""
        saved_context = self._control_flow_context
        if control_inputs is None:
            frame = None
            self._control_flow_context = None
        else:
            frame = _ControlFrame()
            for c in control_inputs:
                if hasattr(c, "_as_graph_element"):
                    c = c._as_graph_element()
                if isinstance(c, Tensor):
                    c = c.op
                if not isinstance(c, Operation):
                    raise TypeError(f"Control input must be an Operation or Tensor, got {c!r}")
                frame.append(c)
        self._control_stack.append(frame)
        try:
            yield
        finally:
            self._control_stack.pop()
            self._control_flow_context = saved_context

    # --- lookups ----------------------------------------------------------
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        node_id = self._c.find_node(name)
        if node_id < 0:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return self._ops[node_id]

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        if ":" not in name:
            raise ValueError(
                f"The name '{name}' refers to an Operation, not a Tensor. "
                'Tensor names must be of the form "<op_name>:<output_index>".'
            )
        op_name, _, index = name.rpartition(":")
        node_id = self._c.find_node(op_name)
        if node_id < 0:
            raise KeyError(
                f"The name '{name}' refers to a Tensor which does not exist. "
                f"The operation, '{op_name}', does not exist in the graph."
            )
        op = self._ops[node_id]
        try:
            return op.outputs[int(index)]
        except (ValueError, IndexError):
            raise KeyError(
                f"The name '{name}' refers to a Tensor which does not exist. "
                f"The operation, '{op_name}', exists but only has {len(op.outputs)} outputs."
            ) from None

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            if ":" in obj:
                if not allow_tensor:
                    raise ValueError(f"'{obj}' names a tensor, not an operation")
                return self.get_tensor_by_name(obj)
            if not allow_operation:
                raise ValueError(f"'{obj}' names an operation, not a tensor")
            return self.get_operation_by_name(obj)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj.name} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj.name} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a graph element.")

    # --- serialization ------------------------------------------------------
    def as_graph_def(self, add_shapes=False):
        """The graph as a GraphDef protocol buffer; `add_shapes=True` writes each node's static output shapes into
        its `_output_shapes` attr, as TF's."""
        from tensorweave._src.framework import graph_pb2

        graph_def = graph_pb2.GraphDef.FromString(self._c.to_graph_def())
        for node in graph_def.node:
            _canonical_inputs(node)
        if add_shapes:
            from tensorweave._src.training import meta_graph

            meta_graph._add_output_shapes(graph_def, self)
        return graph_def

    def _import_graph_def_bytes(self, data, prefix, input_map):
        ids = self._c.import_graph_def(data, prefix, input_map)
        location = _user_location()
        edges = []
        for node_id in ids:
            name, _, _, inputs, controls, _ = self._c.node_info(node_id)
            self._mark_name_used(name)
            self._ops.append(Operation(self, node_id, [], [], location))
            edges.append((node_id, inputs, controls))
        # Inputs once every node exists: a loop's Merge reads its NextIteration, imported after it.
        for node_id, inputs, controls in edges:
            op = self._ops[node_id]
            op._inputs = tuple(self._ops[i].outputs[k] for i, k in inputs)
            op._control_inputs = tuple(self._ops[i] for i in controls)
        return [self._ops[i] for i in ids]

    def _place_imported(self, new_ops):
        """Devices of imported ops as TF's importer (_ProcessNewOps): an op colocated with another takes that
        op's device (canonical); the others their own device merged under this graph's device scopes."""
        colocated = []
        for op in new_ops:
            original = op.device
            names = [n for n in (g[5:].decode() for g in op.colocation_groups()) if n != op.name]
            if names:
                colocated.append((op, names))
                if original:
                    op._set_device("")
                continue
            stack = self._device_stack + ([_DeviceScope(original)] if original else [])
            if _device_functions_apply(stack):
                if original:
                    op._set_device("")
                _merge_device_stack(stack, op)
            else:
                device = _merge_device_stack(stack, None)
                if device != original:
                    op._set_device(device)
        for op, names in colocated:
            for name in names:
                other = self.get_operation_by_name(name)
                if other.device:
                    op._set_device(pydev.DeviceSpec.from_string(other.device).to_string())
                    break

    # --- collections --------------------------------------------------------
    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for name in [names] if isinstance(names, str) else names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [v for v in items if hasattr(v, "name") and pattern.match(v.name)]

    def get_all_collection_keys(self):
        return list(self._collections)

    def clear_collection(self, name):
        self._check_not_finalized()
        self._collections.pop(name, None)

    # --- feeding and fetching ------------------------------------------------
    def prevent_feeding(self, tensor):
        """Marks `tensor` as one a Session may not feed."""
        self._unfeedable_tensors.add(tensor.name)

    def is_feedable(self, tensor):
        """Whether a Session may feed `tensor`."""
        return tensor.name not in self._unfeedable_tensors

    def prevent_fetching(self, op):
        """Marks `op` (and its outputs) as not fetchable by a Session."""
        self._unfetchable_ops.add(op.name)

    def is_fetchable(self, tensor_or_op):
        """Whether a Session may fetch `tensor_or_op`."""
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op.name not in self._unfetchable_ops

    # --- lifecycle ------------------------------------------------------------
    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    def as_default(self):
        """Makes this the default graph inside a `with` block."""
        return _default_graph_stack.get_controller(self)

    @property
    def version(self):
        return len(self._ops)

    def _next_op_seed(self):
        self._last_op_seed += 1
        return self._last_op_seed


_op_creation_hooks = []
_OP_DEFS = None


def _op_defs():
    global _OP_DEFS
    if _OP_DEFS is None:
        _OP_DEFS = {d["name"]: d for d in _pywrap.op_defs()}
    return _OP_DEFS


# (scope spec, the op's device so far) -> merged device: merges are pure, and a program uses few of them.
_MERGE_CACHE = {}


class _DeviceScope:
    """One `device()` scope: a spec merged under the op's device, a function of the op, or None (a stop)."""

    __slots__ = ("spec", "function", "is_null_merge", "is_stop")

    def __init__(self, device_name_or_function):
        self.spec = None
        self.function = None
        self.is_stop = device_name_or_function is None
        self.is_null_merge = False
        if isinstance(device_name_or_function, pydev.DeviceSpec):
            # Held by reference, as TF does: a spec changed inside the scope applies to later ops.
            self.spec = device_name_or_function
            self.is_null_merge = not device_name_or_function.to_string()
        elif callable(device_name_or_function):
            self.function = device_name_or_function
        elif not self.is_stop:
            if isinstance(device_name_or_function, bytes):
                device_name_or_function = device_name_or_function.decode()
            if not isinstance(device_name_or_function, str):
                # TF fails here with an AttributeError (it calls .split on the value): the same class, clearer.
                raise AttributeError(
                    "device() takes a device string, a DeviceSpec, a function of the op or None, got "
                    f"{type(device_name_or_function).__name__} {device_name_or_function!r}"
                )
            self.spec = pydev.DeviceSpec.from_string(device_name_or_function)  # ValueError when malformed
            self.is_null_merge = not self.spec.to_string()

    def merge(self, op, current):
        """The op's device after this scope, given its `current` device string."""
        if self.function is None:
            key = (self.spec.to_string(), current)  # a DeviceSpec may change while the scope is open
            merged = _MERGE_CACHE.get(key)
            if merged is None:
                merged = self.spec.make_merged_spec(pydev.DeviceSpec.from_string(current)).to_string()
                _MERGE_CACHE[key] = merged
            return merged
        result = self.function(op)
        if isinstance(result, pydev.DeviceSpec):
            return result.to_string()
        if isinstance(result, bytes):
            return result.decode()
        if not isinstance(result, str):
            raise TypeError(
                f"Expected binary or unicode string, got {result!r} (from the device function "
                f"{getattr(self.function, '__name__', self.function)!r} for op '{op.name}')"
            )
        return result


def _device_functions_apply(stack):
    """Whether a device function takes part in the merge of `stack` (it needs the created op)."""
    for scope in reversed(stack):
        if scope.is_stop:
            return False
        if scope.function is not None:
            return True
    return False


def _merge_device_stack(stack, op):
    """The device the scopes of `stack` give a new op, innermost scope first (TF's
    Graph._apply_device_functions). With `op`, each step is set on the op, so that a device function sees
    the device the scopes inside it gave."""
    device = ""
    for scope in reversed(stack):
        if scope.is_null_merge:
            continue
        if scope.is_stop:
            break
        merged = scope.merge(op, device)
        if op is not None and merged != device:
            op._set_device(merged)
        device = merged
    return device


def _op_to_colocate_with(value, graph):
    """The Operation that `colocate_with(value)` refers to: the op itself, a tensor's op, a variable's op."""
    if value is None or isinstance(value, Operation):
        return value
    if isinstance(value, Tensor):
        return value.op
    if hasattr(value, "_as_graph_element"):
        element = value._as_graph_element()
        return element if isinstance(element, Operation) else element.op
    return convert_to_tensor(value).op


def _restructure(inputs, flat):
    """`inputs` (Tensors and lists of them) with its tensors replaced, in order, by those of `flat`."""
    it = iter(flat)
    return [[next(it) for _ in item] if isinstance(item, (list, tuple)) else next(it) for item in inputs]


def _with_location(error, location):
    filename, line = location
    message = f"{error.message}\n  (op created at {filename}:{line})"
    return type(error)(error.node_def, error.op, message)


# Messages of the C++ graph builder that TensorFlow raises as TypeError (a dtype that does not fit the op).
_DTYPE_ERROR = re.compile(
    r"does not match the expected type|value for attr '[^']*' of [^'].* is not in the list of allowed"
)


def _construction_error(error):
    """The exception TensorFlow raises where adding a node fails: a shape or argument problem is a ValueError,
    a dtype that does not fit the op a TypeError (TF's op builder raises these, not `tf.errors` classes)."""
    if isinstance(error, errors.InvalidArgumentError):
        cls = TypeError if _DTYPE_ERROR.search(error.message) else ValueError
        return cls(error.message)
    return error


def _add_node_location(error, graph):
    """Appends where the failing node (named in '[[node X') was created."""
    m = re.search(r"\[\[node ([^ \]]+)", error.message)
    if not m:
        return error
    node_id = graph._c.find_node(m.group(1))
    if node_id < 0 or node_id >= len(graph._ops):
        return error
    op = graph._ops[node_id]
    filename, line = op._location
    message = f"{error.message}\n  (node '{op.name}' was created at {filename}:{line})"
    return type(error)(None, op, message)


class _DefaultStack(threading.local):
    def __init__(self):
        super().__init__()
        self.stack = []

    @contextlib.contextmanager
    def get_controller(self, default):
        self.stack.append(default)
        try:
            yield default
        finally:
            self.stack.remove(default)


class _DefaultGraphStack(_DefaultStack):
    _global_default = None

    def get_default(self):
        if self.stack:
            return self.stack[-1]
        if _DefaultGraphStack._global_default is None:
            _DefaultGraphStack._global_default = Graph()
        return _DefaultGraphStack._global_default

    def reset(self):
        if self.stack:
            raise AssertionError("Do not use tw.reset_default_graph() inside a graph.as_default() block")
        _DefaultGraphStack._global_default = None


_default_graph_stack = _DefaultGraphStack()
_default_session_stack = _DefaultStack()


def get_default_graph():
    """The graph new ops go into: the innermost `as_default()` graph, else a
    process-wide global graph."""
    return _default_graph_stack.get_default()


def reset_default_graph():
    """Replaces the global default graph by a new, empty one."""
    _default_graph_stack.reset()


def get_default_session():
    """The innermost session entered with `with` / `as_default()`, or None."""
    return _default_session_stack.stack[-1] if _default_session_stack.stack else None


def _session_or_default(session):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                "Cannot evaluate tensor using `eval()`: No default session is registered. "
                "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
            )
    return session


def name_scope(name, default_name=None, values=None):
    """Context manager that prefixes op names with `name/` in the default graph."""
    if values:
        graph = _get_graph_from_inputs(values)
    else:
        graph = get_default_graph()
    return graph.name_scope(name if name is not None else default_name)


def device(device_name_or_function):
    """Requests a device for the ops created inside, in the default graph: a device string ("/cpu:0",
    "/job:ps/task:0/device:GPU:1"), a `DeviceSpec`, a function of the op, None or "" (see `Graph.device`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     with tw.device("/job:ps/task:1"), tw.device("/gpu:0"):
      ...         print(tw.constant(1.0).device)
      /job:ps/task:1/device:GPU:0
    """
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    """Creates the ops inside with `op` (an Operation, Tensor or Variable): on its device, in its colocation
    group (see `Graph.colocate_with`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     a = tw.constant(1.0, name="a")
      ...     with tw.colocate_with(a):
      ...         print(tw.identity(a).op.get_attr("_class"))
      [b'loc:@a']
    """
    return get_default_graph().colocate_with(op, ignore_existing)


def group(*inputs, name=None):
    """An op that runs after all of `inputs` (ops, tensors, variables; lists of them), TF1's
    `control_flow_ops.group`: with inputs on several devices, one NoOp per device (on that device) and the
    returned NoOp after them.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     with tw.device("/cpu:0"):
      ...         a = tw.constant(1.0)
      ...     with tw.device("/cpu:1"):
      ...         b = tw.constant(2.0)
      ...     g = tw.group(a, b, name="both")
      ...     print(g.name, [op.device for op in g.control_inputs])
      both ['/device:CPU:0', '/device:CPU:1']
    """
    graph = get_default_graph()
    flat = [i for i in _flatten(inputs) if i is not None]
    with graph.name_scope(name or "group_deps") as scope:
        if not flat:
            return graph._create_op("NoOp", [], name=scope)
        on_device = {}
        for item in flat:
            on_device.setdefault(item.device, []).append(item)
        if len(on_device) == 1:
            ((dev, deps),) = on_device.items()
            return _group_control_deps(graph, dev, deps, scope)
        deps = [_group_control_deps(graph, dev, on_device[dev], None) for dev in sorted(on_device)]
        with graph.control_dependencies(deps):
            return graph._create_op("NoOp", [], name=scope)


def _group_control_deps(graph, device, deps, name):
    with graph.control_dependencies(deps), graph.device(device):
        return graph._create_op("NoOp", [], name=name)


def _flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def control_dependencies(control_inputs):
    """Context manager: ops created inside run after `control_inputs`."""
    return get_default_graph().control_dependencies(control_inputs)


def add_to_collection(name, value):
    """Adds `value` to the default graph's collection `name`."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    """Adds `value` to each collection in `names`."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    """The items of collection `key` (optionally filtered by a `scope` regex)."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    """The list of collection `key` itself (mutable)."""
    return get_default_graph().get_collection_ref(key)


def _get_graph_from_inputs(values):
    default = get_default_graph()
    for v in values:
        graph = getattr(v, "graph", None)
        if isinstance(graph, Graph):
            # A tf.data function graph being traced (data/function.py) captures the tensors of the graphs around
            # it: ops built from them belong to it.
            outer = getattr(default, "_outer_graph", None)
            while outer is not None:
                if outer is graph:
                    return default
                outer = getattr(outer, "_outer_graph", None)
            return graph
    return default


# --- conversion to tensors ---------------------------------------------------
_tensor_conversion_functions = []  # (type, fn(value, dtype, name) -> Tensor)


def register_tensor_conversion_function(base_type, conversion_func):
    _tensor_conversion_functions.append((base_type, conversion_func))


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None):
    """Turns Tensors, Variables, numpy arrays and Python values into a Tensor.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     tw.convert_to_tensor([1, 2]).dtype
      tf.int32
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype {value.dtype.name}: {value!r}"
            )
        return value
    for base_type, fn in _tensor_conversion_functions:
        if isinstance(value, base_type):
            return fn(value, dtype=dtype, name=name)
    if isinstance(value, (list, tuple)) and _holds_tensors(value):
        return _autopack(value, dtype, name)
    from tensorweave._src.ops import constant_op

    if dtype is None and preferred_dtype is not None and not _ints_out_of_range(value, preferred_dtype):
        try:
            return constant_op.constant(value, dtype=preferred_dtype, name=name)
        except (TypeError, ValueError):
            pass
    return constant_op.constant(value, dtype=dtype, name=name or "Const")


def _ints_out_of_range(value, dtype):
    """Whether `value` holds integers that an integer `dtype` cannot hold (2**40 as a preferred int32 would
    wrap to 0: as TF, such a value keeps the dtype it infers, int64)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer:
        return False
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return False
    if arr.size == 0 or arr.dtype.kind not in "iuO":
        return False
    try:
        low, high = int(arr.min()), int(arr.max())
    except (TypeError, ValueError):
        return False
    return low < dtype.min or high > dtype.max


def _is_tensor_value(value):
    return isinstance(value, Tensor) or any(isinstance(value, t) for t, _ in _tensor_conversion_functions)


def _holds_tensors(value):
    """Whether a nested list or tuple holds a Tensor (or a Variable) somewhere."""
    for item in value:
        if _is_tensor_value(item):
            return True
        if isinstance(item, (list, tuple)) and _holds_tensors(item):
            return True
    return False


def _first_tensor_dtype(value):
    for item in value:
        if _is_tensor_value(item):
            return convert_to_tensor(item).dtype
        if isinstance(item, (list, tuple)):
            found = _first_tensor_dtype(item)
            if found is not None:
                return found
    return None


def _autopack(value, dtype, name):
    """TensorFlow's auto-packing: a (nested) list mixing tensors and numbers becomes a Pack of its items (op
    `packed`, inner lists `packed/0`, numbers constants named by their index); tensors of another dtype than
    the one asked for are cast."""
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import constant_op
    from tensorweave._src.ops import math_ops

    dtype = dtype or _first_tensor_dtype(value)

    def pack(items, scope_name):
        graph = get_default_graph()
        with graph.name_scope(scope_name) as scope:
            converted, must_pack = [], False
            for i, item in enumerate(items):
                if _is_tensor_value(item):
                    item = convert_to_tensor(item)
                    if item.dtype != dtype:
                        item = math_ops.cast(item, dtype)
                    must_pack = True
                elif isinstance(item, (list, tuple)):
                    item = pack(item, str(i))
                    must_pack = must_pack or isinstance(item, Tensor)
                converted.append(item)
            if not must_pack:
                return converted
            tensors = [
                t if isinstance(t, Tensor) else constant_op.constant(t, dtype=dtype, name=str(i))
                for i, t in enumerate(converted)
            ]
            return array_ops.stack(tensors, name=scope)

    return pack(value, name or "packed")
