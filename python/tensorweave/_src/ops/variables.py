"""Variables: state kept in a session across steps, TensorFlow v1 style.

A `Variable` named "w" is three nodes: `w` (VariableV2, the state), `w/Assign`
(its initializer) and `w/read` (a snapshot of its value, what ops use).
"""

import contextlib
import functools
import threading

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import state_ops

GraphKeys = ops.GraphKeys


# TF1's keyword arguments of a variable's creation, as variable creators (`variable_creator_scope`) get them.
_CREATOR_KWARGS = (
    "initial_value",
    "trainable",
    "collections",
    "validate_shape",
    "caching_device",
    "name",
    "variable_def",
    "dtype",
    "expected_shape",
    "import_scope",
    "constraint",
    "use_resource",
    "synchronization",
    "aggregation",
    "shape",
)


def _creator_stack(graph):
    """The graph's variable creators (`variable_creator_scope`), outermost first."""
    stack = getattr(graph, "_tw_variable_creator_stack", None)
    if stack is None:
        stack = graph._tw_variable_creator_stack = []
    return stack


class _VariableMeta(type):
    """`Variable(...)` goes through the default graph's variable creators, innermost first, as TF's
    VariableMetaclass; the last of the chain makes the variable."""

    def __call__(cls, *args, **kwargs):
        creators = _creator_stack(ops.get_default_graph()) if cls is Variable else ()
        if not creators:
            return super().__call__(*args, **kwargs)
        if len(args) > len(_CREATOR_KWARGS):
            raise TypeError(f"Variable() takes at most {len(_CREATOR_KWARGS)} positional arguments")
        for key, value in zip(_CREATOR_KWARGS, args):
            if key in kwargs:
                raise TypeError(f"Variable() got multiple values for argument '{key}'")
            kwargs[key] = value
        unknown = sorted(set(kwargs) - set(_CREATOR_KWARGS))
        if unknown:
            raise TypeError(f"Variable() got an unexpected keyword argument '{unknown[0]}'")
        full = {key: kwargs.get(key) for key in _CREATOR_KWARGS}  # as TF1: trainable None means True
        full["validate_shape"] = kwargs.get("validate_shape", True)
        full["experimental_enable_variable_lifting"] = True
        make = super().__call__

        def default_creator(next_creator=None, **kw):
            del next_creator
            kw.pop("synchronization", None)
            kw.pop("aggregation", None)
            kw.pop("experimental_enable_variable_lifting", None)
            if kw.get("trainable") is None:
                kw["trainable"] = True
            return make(**kw)

        def chain(creator, next_creator):
            return lambda **kw: creator(next_creator, **kw)

        creator = default_creator
        for outer in creators:
            creator = chain(outer, creator)
        return creator(**full)


class SaveSliceInfo:
    """Where a part of a partitioned variable lies in the whole (TF's `Variable.SaveSliceInfo`): a Saver saves
    the part as slice `spec` of checkpoint tensor `full_name`."""

    def __init__(
        self,
        full_name=None,
        full_shape=None,
        var_offset=None,
        var_shape=None,
        save_slice_info_def=None,
        import_scope=None,
    ):
        if save_slice_info_def is not None:
            full_name, full_shape = save_slice_info_def.full_name, list(save_slice_info_def.full_shape)
            var_offset, var_shape = list(save_slice_info_def.var_offset), list(save_slice_info_def.var_shape)
        self.full_name = full_name
        self.full_shape = [int(d) for d in full_shape]
        self.var_offset = [int(d) for d in var_offset]
        self.var_shape = [int(d) for d in var_shape]

    @property
    def spec(self):
        """TF's shape_and_slice string: the full shape, then offset,length per dimension ("10 4 0,5:0,4")."""
        extents = ":".join(f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))
        return " ".join(str(d) for d in self.full_shape) + " " + extents

    def __repr__(self):
        return f"SaveSliceInfo({self.spec!r} of {self.full_name!r})"


class Variable(metaclass=_VariableMeta):
    """A variable: a tensor whose value persists across `Session.run` calls.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable([1.0, 2.0], name="v")
      ...     sess.run(tw.global_variables_initializer())
      ...     _ = sess.run(v.assign_add([1.0, 1.0]))
      ...     print(sess.run(v))
      [2. 3.]
    """

    # As a Tensor's: numpy defers to the variable's operators (`np_array * v` is a Tensor, not an object array).
    __array_priority__ = 100

    def __init__(
        self,
        initial_value=None,
        trainable=True,
        collections=None,
        validate_shape=True,
        caching_device=None,
        name=None,
        variable_def=None,
        dtype=None,
        expected_shape=None,
        import_scope=None,
        constraint=None,
        use_resource=None,
        shape=None,
    ):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = ops.get_default_graph()
        with graph.name_scope(name or "Variable") as scope:
            init_from_fn = callable(initial_value)
            # As TF: the initializer of a callable initial value is built with no device, in the variable's
            # colocation group (the variable does not exist yet to colocate with), and so is the variable.
            class_attr = {"_class": [f"loc:@{scope[:-1]}".encode()]} if init_from_fn else {}
            with graph._attr_scope(class_attr), graph.control_dependencies(None):
                if init_from_fn:
                    with graph.name_scope("Initializer"), graph.device(None):
                        self._initial_value = ops.convert_to_tensor(initial_value(), dtype=dtype, name="initial_value")
                else:
                    self._initial_value = ops.convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            dtype = self._initial_value.dtype
            shape = self._initial_value.shape if validate_shape else tensor_shape.TensorShape(None)
            if shape.ndims is not None and not shape.is_fully_defined() and validate_shape:
                raise ValueError(
                    f"initial_value must have a fully defined shape when validate_shape is "
                    f"True, got {shape} for variable {scope[:-1]}"
                )
            with graph.control_dependencies(None):
                with graph._attr_scope(class_attr):
                    self._variable = graph._create_op(
                        "VariableV2",
                        [],
                        {"shape": tensor_shape.as_attr(shape), "dtype": dtype.as_datatype_enum},
                        name=scope,
                    ).outputs[0]
                self._guarded_initial_value = _guard_against_uninitialized_dependencies(scope[:-1], self._initial_value)
                self._initializer_op = state_ops.assign(
                    self._variable, self._guarded_initial_value, validate_shape=validate_shape, name="Assign"
                ).op
                if caching_device is not None:
                    with graph.device(caching_device):
                        self._snapshot = array_ops.identity(self._variable, name="read")
                else:
                    with graph.colocate_with(self._variable.op):
                        self._snapshot = array_ops.identity(self._variable, name="read")
        self._trainable = trainable
        self._constraint = constraint
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)

    # --- identity -------------------------------------------------------------
    @property
    def name(self):
        return self._variable.name

    @property
    def op(self):
        return self._variable.op

    @property
    def graph(self):
        return self._variable.graph

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self.shape

    @property
    def device(self):
        return self._variable.device

    @property
    def trainable(self):
        return self._trainable

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value

    @property
    def constraint(self):
        return self._constraint

    # --- reading ----------------------------------------------------------------
    def value(self):
        """The snapshot tensor (`w/read:0`) that ops read the variable through; under control dependencies that
        update it, a fresh read ordered after them (TF1's reads alias the variable's buffer, so `with
        tf.control_dependencies([assign]): v * 2` sees the assignment)."""
        graph = ops.get_default_graph()
        if graph is self._variable.graph:
            deps = graph._current_control_dependencies()
            if deps and self._variable.op in _written_before(graph, deps):
                return self.read_value()
        return self._snapshot

    def read_value(self):
        """A fresh read of the variable (ordered by the caller's control deps)."""
        return array_ops.identity(self._variable, name="read")

    def _ref(self):
        return self._variable

    def _as_graph_element(self):
        return self._variable

    def eval(self, session=None):
        return ops._session_or_default(session).run(self._variable)

    def initialized_value(self):
        with ops.control_dependencies([self._initializer_op]):
            return array_ops.identity(self._initial_value)

    # --- updating ----------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        out = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        out = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        out = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def load(self, value, session=None):
        """Assigns `value` (a numpy value) in `session` without growing the graph
        on repeated calls."""
        session = ops._session_or_default(session)
        session._load_variable(self, value)

    def __repr__(self):
        # As TF1's (reference) variables print: their dtype as the ref type.
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}_ref>"

    # Arithmetic reads the snapshot.
    def __getattr__(self, attr):
        raise AttributeError(f"'Variable' object has no attribute '{attr}'")


def _forward_operators():
    for name in (
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__rtruediv__",
        "__matmul__",
        "__rmatmul__",
        "__neg__",
        "__getitem__",
        "__pow__",
        "__rpow__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__abs__",
        "__floordiv__",
        "__rfloordiv__",
        "__mod__",
        "__rmod__",
        "__and__",
        "__rand__",
        "__or__",
        "__ror__",
        "__xor__",
        "__rxor__",
        "__invert__",
    ):

        def forward(self, *args, _name=name):
            return getattr(self.value(), _name)(*args)

        setattr(Variable, name, forward)


_forward_operators()
ops.register_tensor_conversion_function(Variable, lambda v, dtype=None, name=None: _convert_variable(v, dtype))


_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp", "TemporaryVariable")
_WRITER_PREFIXES = ("Assign", "Apply", "SparseApply", "ResourceApply", "ResourceSparseApply", "Scatter", "CountUpTo")


def _written_before(graph, deps):
    """The variable ops that `deps` or their ancestors update (assignments, optimizer applies, scatters);
    cached per set of deps (the ancestors of existing ops do not change as the graph grows)."""
    cache = graph.__dict__.setdefault("_written_before_cache", {})
    key = frozenset(deps)
    if key not in cache:
        written, seen, stack = set(), set(), list(deps)
        while stack:
            op = stack.pop()
            if op in seen:
                continue
            seen.add(op)
            if op.type.startswith(_WRITER_PREFIXES):
                written.update(t.op for t in op.inputs if t.op.type in _VARIABLE_OPS)
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
        cache[key] = written
    return cache[key]


def _convert_variable(v, dtype):
    return ops.convert_to_tensor(v.value(), dtype=dtype)


# --- initial values that read other variables -----------------------------------
def _guard_against_uninitialized_dependencies(name, initial_value):
    """`initial_value` with each read of another variable replaced by that variable's own initial value, so that
    `u = Variable(v * 3)` initializes in the same step as `v` (as TensorFlow 1 does: the ops between are copied,
    named `<op>_<name>`; the variables' initializers can then run in any order)."""
    variables = {}
    graph = initial_value.graph
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for v in graph.get_collection(key):
            if isinstance(v, Variable):
                variables[v.op.name] = v
    if not variables:
        return initial_value
    cache = {}

    def safe_tensor(t):
        op = safe_op(t.op)
        if op is t.op:
            return t
        if isinstance(op, ops.Tensor):  # a variable, replaced by its initial value
            return op
        return op.outputs[t.value_index]

    def safe_op(op):
        if op.name in cache:
            return cache[op.name]
        result = op
        if op.type == "VariableV2":
            v = variables.get(op.name)
            if v is not None:
                result = v.__dict__.get("_guarded_initial_value", v._initial_value)
        elif op.type not in ("IsVariableInitialized",) and not _takes_ref(op):
            inputs = [safe_tensor(t) for t in op.inputs]
            if any(a is not b for a, b in zip(inputs, op.inputs)):
                result = _copy_op(op, inputs, f"{op.name}_{name}".replace(":", "_"))
        cache[op.name] = result
        return result

    return safe_tensor(initial_value)


def _takes_ref(op):
    """Ops that update a variable through a ref input (Assign...) are left alone."""
    info = ops._op_defs().get(op.type, {})
    return any(arg.get("is_ref") for arg in info.get("inputs", ()))


def _copy_op(op, inputs, name):
    """A copy of `op` (same type and attrs) reading `inputs`."""
    graph = op.graph
    attrs = {}
    for attr in ops._op_defs()[op.type]["attrs"]:
        try:
            value = graph._c.get_attr(op._id, attr["name"])
        except Exception:  # noqa: BLE001 - an optional attr the node does not carry
            continue
        if attr["type"] == "tensor":
            arr = np.asarray(value)
            value = (arr, dtypes.as_dtype(arr.dtype).as_datatype_enum)
        attrs[attr["name"]] = value
    saved = graph._name_stack
    graph._name_stack = ""
    try:
        with graph.control_dependencies(None):
            return graph._create_op(op.type, inputs, attrs, name=name, control_inputs=op.control_inputs)
    finally:
        graph._name_stack = saved


# --- collections and initializers ---------------------------------------------
def global_variables(scope=None):
    """Variables in GLOBAL_VARIABLES (every variable, by default)."""
    return ops.get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    """Variables made with trainable=True (what optimizers update)."""
    return ops.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    """Variables in LOCAL_VARIABLES."""
    return ops.get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    """Variables in MODEL_VARIABLES."""
    return ops.get_collection(GraphKeys.MODEL_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of `var_list`."""
    graph = ops.get_default_graph()
    with graph.control_dependencies([v.initializer for v in var_list]):
        return graph._create_op("NoOp", [], name=name)


def global_variables_initializer():
    """An op (`init`) that initializes every global variable.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable(3)
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(v))
      3
    """
    return variables_initializer(global_variables(), name="init")


def local_variables_initializer():
    """An op that initializes every local variable."""
    return variables_initializer(local_variables(), name="init_1")


def is_variable_initialized(variable):
    return state_ops.is_variable_initialized(variable)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor of the names of the variables of `var_list` (default: global and local variables)
    that are not initialized; empty when all are (what a MonitoredSession's ready_op is)."""
    from tensorweave._src.ops import array_nd_ops
    from tensorweave._src.ops import constant_op
    from tensorweave._src.ops import math_ops

    graph = ops.get_default_graph()
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = [op.outputs[0] for op in graph.get_operations() if op.type in ("Variable", "VariableV2")]
    with graph.name_scope(name):
        if not var_list:
            return constant_op.constant([], dtype=dtypes.string)
        initialized = array_ops.stack([state_ops.is_variable_initialized(v) for v in var_list])
        names = constant_op.constant([v.op.name for v in var_list], dtype=dtypes.string)
        return array_nd_ops.boolean_mask(names, math_ops.logical_not(initialized))


# --- variable scopes ---------------------------------------------------------------
Variable.SaveSliceInfo = SaveSliceInfo


class VariableScope:
    """The state of a `variable_scope`: its name, reuse flag and defaults."""

    def __init__(
        self,
        name,
        reuse=False,
        initializer=None,
        dtype=dtypes.float32,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        constraint=None,
    ):
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.dtype = dtype
        self.regularizer = regularizer
        self.caching_device = caching_device
        self.partitioner = partitioner
        self.custom_getter = custom_getter
        self.constraint = constraint
        self.original_name_scope = name + "/" if name else ""

    def set_initializer(self, initializer):
        self.initializer = initializer

    def set_regularizer(self, regularizer):
        self.regularizer = regularizer

    def set_partitioner(self, partitioner):
        self.partitioner = partitioner

    def set_dtype(self, dtype):
        self.dtype = dtypes.as_dtype(dtype)

    def set_caching_device(self, caching_device):
        self.caching_device = caching_device

    def set_custom_getter(self, custom_getter):
        self.custom_getter = custom_getter

    def reuse_variables(self):
        self.reuse = True


_AUTO_REUSE = object()
AUTO_REUSE = _AUTO_REUSE


class _VarStore:
    """Per graph: the variables made by get_variable, by full name, and how many times each variable scope name
    is open (TF1's variable_scopes_count, which makes default names unique)."""

    def __init__(self):
        self.vars = {}
        self.scope_counts = {}

    def unique_default_name(self, parent_name, prefix):
        """TF1's _get_unique_variable_scope: `prefix`, or `prefix_N` for the first N whose scope is not open."""
        name = f"{parent_name}/{prefix}" if parent_name else prefix
        if not self.scope_counts.get(name):
            return prefix
        idx = 1
        while self.scope_counts.get(f"{name}_{idx}"):
            idx += 1
        return f"{prefix}_{idx}"

    def close_subscopes(self, name):
        """Leaving scope `name` resets its sub-scopes' counts (their default names start over next time)."""
        for key in self.scope_counts:
            if key.startswith(name + "/"):
                self.scope_counts[key] = 0


_scope_state = threading.local()


def _scope_stack():
    if not hasattr(_scope_state, "stack"):
        _scope_state.stack = [VariableScope("")]
    return _scope_state.stack


def _var_store(graph):
    store = getattr(graph, "_tw_var_store", None)
    if store is None:
        store = graph._tw_var_store = _VarStore()
    return store


def get_variable_scope():
    """The current VariableScope."""
    return _scope_stack()[-1]


@contextlib.contextmanager
def variable_scope(
    name_or_scope,
    default_name=None,
    values=None,
    initializer=None,
    regularizer=None,
    caching_device=None,
    partitioner=None,
    custom_getter=None,
    reuse=None,
    dtype=None,
    use_resource=None,
    constraint=None,
    auxiliary_name_scope=True,
):
    """Names variables made by `get_variable` (and ops) with a prefix; with
    `reuse=True` (or AUTO_REUSE) get_variable returns existing variables.
    `initializer`, `regularizer`, `caching_device`, `partitioner` and `constraint` are the defaults of the
    scope's get_variable calls (inherited by nested scopes); `custom_getter(getter, name, *args, **kwargs)`
    wraps them (a nested scope's getter wraps its parent's); `auxiliary_name_scope=False` opens no name scope.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     with tw.variable_scope("layer"):
      ...         w = tw.get_variable("w", [2, 2])
      ...     with tw.variable_scope("layer", reuse=True):
      ...         print(tw.get_variable("w", [2, 2]) is w)
      True
    """
    stack = _scope_stack()
    parent = stack[-1]
    graph = ops.get_default_graph()
    store = _var_store(graph)
    if isinstance(name_or_scope, VariableScope):
        # Re-entering a scope object opens a new name scope from its last component ("s_1/"), as TF1 does;
        # the variables keep the scope's own name.
        full_name = name_or_scope.name
        name_scope_name = full_name.split("/")[-1] or None
    else:
        base = name_or_scope if name_or_scope is not None else default_name
        if base is None:
            raise ValueError("variable_scope needs a name or a default_name")
        name_scope_name = base
        if name_or_scope is None:
            # A default name is made unique among the variable scopes open under the parent (TF1's scope counts;
            # the name scope is made unique on its own, so the two can differ: "layer" and "layer_1/").
            base = store.unique_default_name(parent.name, base)
        full_name = f"{parent.name}/{base}" if parent.name else base
    if reuse is None:
        reuse = parent.reuse
    elif reuse is False and parent.reuse is True:
        reuse = True  # reuse is inherited by nested scopes
    # A scope object brings its own defaults back (its parent's where it has none).
    defaults = name_or_scope if isinstance(name_or_scope, VariableScope) else parent

    def pick(value, attr):
        if value is not None:
            return value
        own = getattr(defaults, attr)
        return own if own is not None else getattr(parent, attr)

    getter = parent.custom_getter
    if isinstance(name_or_scope, VariableScope) and name_or_scope.custom_getter is not None:
        getter = name_or_scope.custom_getter
    if custom_getter is not None:
        if not callable(custom_getter):
            raise ValueError(f"Cannot set custom_getter to a non-callable object: {custom_getter!r}")
        getter = _wrap_custom_getter(custom_getter, getter)
    scope = VariableScope(
        full_name,
        reuse=reuse,
        initializer=pick(initializer, "initializer"),
        dtype=pick(dtype, "dtype"),
        regularizer=pick(regularizer, "regularizer"),
        caching_device=pick(caching_device, "caching_device"),
        partitioner=pick(partitioner, "partitioner"),
        custom_getter=getter,
        constraint=pick(constraint, "constraint"),
    )
    name_scope = graph.name_scope(name_scope_name) if auxiliary_name_scope else contextlib.nullcontext(None)
    counts = store.scope_counts
    with name_scope as ns:
        if isinstance(name_or_scope, VariableScope):
            scope.original_name_scope = name_or_scope.original_name_scope
        elif ns is not None:
            scope.original_name_scope = ns
        saved_counts = dict(counts) if isinstance(name_or_scope, VariableScope) else None
        counts[full_name] = counts.get(full_name, 0) + 1
        stack.append(scope)
        try:
            yield scope
        finally:
            stack.pop()
            if saved_counts is not None:  # as TF1: re-entering a scope object leaves the counts as they were
                counts.clear()
                counts.update(saved_counts)
            else:
                store.close_subscopes(full_name)


def get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=True,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
):
    """Gets an existing variable of the current variable scope, or makes one.

    The default initializer is glorot_uniform for floats and zeros otherwise.
    Asking for an existing name without reuse, or a missing one with
    reuse=True, is a ValueError. The scope's defaults (initializer, regularizer,
    partitioner, caching_device, constraint) apply where an argument is None;
    custom getters (the scope's, then `custom_getter`) are called as
    `custom_getter(getter, name, **kwargs)` with the variable's full name.
    """
    scope = get_variable_scope()
    full_name = f"{scope.name}/{name}" if scope.name else name
    kwargs = dict(
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer if regularizer is not None else scope.regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device if caching_device is not None else scope.caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        constraint=constraint if constraint is not None else scope.constraint,
    )
    getter = _true_get_variable
    if scope.custom_getter is not None:
        getter = functools.partial(scope.custom_getter, getter)
    if custom_getter is not None:
        getter = functools.partial(custom_getter, getter)
    return getter(full_name, **kwargs)


def _wrap_custom_getter(custom_getter, inner):
    """`custom_getter` around `inner` (a parent scope's getter): custom_getter's getter calls inner's."""
    if inner is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(inner, getter), *args, **kwargs)

    return wrapped


def _true_get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=True,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    constraint=None,
    **unused_kwargs,
):
    """get_variable for a full name, after the custom getters."""
    scope = get_variable_scope()
    graph = ops.get_default_graph()
    store = _var_store(graph)
    full_name = name
    dtype_given = dtype is not None
    dtype = dtypes.as_dtype(dtype) if dtype is not None else scope.dtype
    if full_name in store.vars:
        if scope.reuse is False or scope.reuse is None:
            raise ValueError(
                f"Variable {full_name} already exists, disallowed. Did you mean to set "
                "reuse=True or reuse=tw.AUTO_REUSE in variable_scope?"
            )
        var = store.vars[full_name]
        if shape is not None and not var.shape.is_compatible_with(shape):
            raise ValueError(
                f"Trying to share variable {full_name}, but specified shape "
                f"{tensor_shape.as_shape(shape)} and found shape {var.shape}."
            )
        if var.dtype != dtype and dtype is not None:
            raise ValueError(
                f"Trying to share variable {full_name}, but specified dtype {dtype.name} "
                f"and found dtype {var.dtype.name}."
            )
        return var
    if scope.reuse is True:
        raise ValueError(
            f"Variable {full_name} does not exist, or was not created with "
            "tw.get_variable(). Did you mean to set reuse=tw.AUTO_REUSE in variable_scope?"
        )
    if initializer is None:
        initializer = scope.initializer
    if initializer is None:
        initializer = init_ops.glorot_uniform_initializer() if dtype.is_floating else init_ops.zeros_initializer()
    if partitioner is None:
        partitioner = getattr(scope, "partitioner", None)
    if partitioner is not None:
        var = _get_partitioned_variable(
            graph, full_name, shape, dtype, initializer, partitioner, trainable, collections, validate_shape,
            caching_device,
        )  # fmt: skip
        store.vars[full_name] = var
        return var
    if callable(initializer):
        if shape is None:
            raise ValueError(f"The shape of a new variable ({full_name}) must be fully defined")
        shape = tensor_shape.as_shape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"Shape of a new variable ({full_name}) must be fully defined, but instead was {shape}.")
        init = lambda: initializer(shape.as_list(), dtype=dtype)  # noqa: E731
    else:
        if shape is not None:
            # As TensorFlow: a value initializer gives the shape (a [2] value for shape [3] is no [3] variable).
            raise ValueError("If initializer is a constant, do not specify shape.")
        init = initializer
        # As TensorFlow: a value initializer gives the dtype (Python ints int32, floats float32, numpy values
        # their own); a dtype asked for must be that one.
        if isinstance(initializer, ops.Tensor):
            value_dtype = initializer.dtype.base_dtype
        else:
            value_dtype = constant_op._infer_dtype(initializer)
        if dtype_given and value_dtype != dtype.base_dtype:
            raise ValueError(
                f"Initializer type '<dtype: '{value_dtype.name}'>' and explicit dtype '<dtype: '{dtype.name}'>' "
                "don't match."
            )
        dtype = None
    # The variable's name is the variable scope's, whatever name scope the
    # caller is in.
    saved = graph._name_stack
    graph._name_stack = ""
    try:
        var = Variable(
            init,
            trainable=trainable,
            collections=collections,
            name=full_name,
            dtype=dtype,
            validate_shape=validate_shape,
            caching_device=caching_device,
            constraint=constraint,
        )
    finally:
        graph._name_stack = saved
    if regularizer is not None:
        with graph.name_scope(full_name + "/Regularizer/"):
            loss = regularizer(var.value())
        if loss is not None:
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    store.vars[full_name] = var
    return var


def _get_partitioned_variable(
    graph, full_name, shape, dtype, initializer, partitioner, trainable, collections, validate_shape, caching_device
):
    """get_variable with a partitioner: a PartitionedVariable of parts `<name>/part_<i>` (TF1's
    `_get_partitioned_variable`); each part's initializer gets its slice's shape and a `partition_info`."""
    from tensorweave._src.ops import partitioned_variables

    value = initializer if isinstance(initializer, ops.Tensor) else None
    if value is not None:
        # As TF: a Tensor initializer is the whole variable's value (it gives the shape), sliced for each part.
        shape = value.shape if shape is None else tensor_shape.as_shape(shape).merge_with(value.shape)
        dtype = value.dtype
    if shape is None:
        raise ValueError(f"The shape of a new partitioned variable ({full_name}) must be given")
    if value is None and not callable(initializer):
        raise ValueError(f"A partitioned variable ({full_name}) needs a callable initializer, got {initializer!r}")

    def make_part(part_name, part_shape, partition_info):
        def init():
            if value is not None:
                return array_ops.slice(value, partition_info.var_offset, part_shape)
            if isinstance(initializer, init_ops.Initializer):
                return initializer(part_shape, dtype=dtype, partition_info=partition_info)
            return initializer(part_shape, dtype=dtype)

        saved = graph._name_stack
        graph._name_stack = ""
        try:
            return Variable(
                init,
                trainable=trainable,
                collections=collections,
                name=part_name,
                dtype=dtype,
                validate_shape=validate_shape,
                caching_device=caching_device,
            )
        finally:
            graph._name_stack = saved

    return partitioned_variables.make_partitioned_variable(full_name, shape, dtype, partitioner, make_part)
