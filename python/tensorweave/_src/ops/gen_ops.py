"""A raw wrapper for every registered op, generated from the op registry (as TensorFlow's `gen_*_ops`).

The C++ registry defines each op once: inputs, outputs, attrs (types, defaults, allowed values, minimums) and
doc. This module reads those definitions (`_pywrap_tensorweave.op_def`) and builds, on first use, one Python
function per op, named in snake case (`Conv2D` -> `conv2d`, `Conv2DBackpropInput` -> `conv2d_backprop_input`):

    gen_ops.conv2d(input, filter, strides, padding, use_cudnn_on_gpu=True, data_format='NHWC',
                   dilations=[1, 1, 1, 1], name=None)

Its arguments are the op's inputs, then its attrs without a default, then those with one (the registry's
default), then `name`. Attrs implied by the inputs (a type attr `T` from an input's dtype, a length attr `N`
from a list input) are not arguments. Each call checks its attrs as TensorFlow 1's op builder does, with its
error classes: a value of the wrong kind is a TypeError, a string outside the allowed values or a list shorter
than its minimum a ValueError, a dtype the op does not take a TypeError. It returns the op's output tensor, a
namedtuple of them for several outputs (a list for a list output), or the Operation when there are none.

`tw.raw_ops.Conv2D(input=..., filter=..., ...)` is the same function by the op's own name, keyword-only, as
`tf.raw_ops`. Nothing here is written per op: registering an op is all it takes to have both.

Hand-written public wrappers (`nn_ops.conv2d`, ...) call these and keep only what TensorFlow 1's signature adds
(conversions, argument spellings, name scopes); `doc_from` gives them the registry's doc text.
"""

import collections
import contextlib
import inspect
import keyword
import numbers

import numpy as np

from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape

# --- the registry's definitions --------------------------------------------------------------------------------


class OpDef:
    """One registered op as the wrappers need it (read-only)."""

    def __init__(self, raw):
        self.name = raw["name"]
        self.doc = raw["doc"]
        self.inputs = raw["inputs"]
        self.outputs = raw["outputs"]
        self.attrs = {a["name"]: a for a in raw["attrs"]}
        self.is_stateful = raw["is_stateful"]
        # Attrs the inputs imply: not arguments of the wrapper.
        self.inferred_attrs = set()
        for arg in self.inputs:
            self.inferred_attrs.update(n for n in (arg["type_attr"], arg["number_attr"], arg["type_list_attr"]) if n)
        # The wrapper's attr arguments: first those without a default, then those with one (registry order).
        explicit = [a for a in raw["attrs"] if a["name"] not in self.inferred_attrs]
        self.attr_args = [a for a in explicit if not a["has_default"]] + [a for a in explicit if a["has_default"]]
        self.function_name = function_name(self.name)

    @property
    def attr_names(self):
        """The names of the attrs a caller may set (those the inputs do not imply)."""
        return [a["name"] for a in self.attr_args]


_OP_DEFS = {}


def op_def(op_type):
    """The registered definition of `op_type` (KeyError when no such op is registered)."""
    found = _OP_DEFS.get(op_type)
    if found is None:
        raw = _pywrap.op_def(op_type)
        if raw is None:
            raise KeyError(f"no op named '{op_type}' is registered")
        found = _OP_DEFS[op_type] = OpDef(raw)
    return found


def op_names():
    """Every registered op type, sorted."""
    return list(_pywrap.op_names())


def function_name(op_type):
    """TensorFlow's Python name of an op: snake case, an underscore before a capital that follows a lower-case
    letter or starts a lower-case run (`Conv2DBackpropInput` -> `conv2d_backprop_input`, `ApplyRMSProp` ->
    `apply_rms_prop`)."""
    out = []
    for i, c in enumerate(op_type):
        if c.isupper() and i > 0:
            prev_lower = op_type[i - 1].islower()
            next_lower = i + 1 < len(op_type) and op_type[i + 1].islower()
            if prev_lower or next_lower:
                out.append("_")
        out.append(c.lower())
    name = "".join(out)
    return name + "_" if keyword.iskeyword(name) else name


def same_attrs(op, op_type):
    """The attrs of Operation `op` that op `op_type` also takes as arguments, by name, with their values: what a
    gradient passes on from the op it differentiates (`conv2d_backprop_input(..., **same_attrs(op,
    'Conv2DBackpropInput'))`), so that attr names are written only in the registry."""
    wanted = op_def(op_type).attr_names
    have = op_def(op.type).attrs
    return {n: op.get_attr(n) for n in wanted if n in have}


# --- attr checks (TensorFlow 1's classes and messages) -----------------------------------------------------------


def _dtype_name(enum):
    try:
        return dtypes.as_dtype(enum).name
    except TypeError:
        return f"DataType({enum})"


def _allowed_types_text(attr):
    return ", ".join(_dtype_name(t) for t in attr["allowed_types"])


def _check_dtype_allowed(attr, dtype, what):
    if attr["allowed_types"] and dtype.as_datatype_enum not in attr["allowed_types"]:
        raise TypeError(
            f"Value passed to parameter '{what}' has DataType {dtype.name} not in list of allowed values: "
            f"{_allowed_types_text(attr)}"
        )


def _scalar_attr(op, attr, kind, value):
    name = attr["name"]
    if kind == "int":
        if isinstance(value, (str, bytes)) or not isinstance(value, (numbers.Real, np.number)):
            raise TypeError(f"Expected int for argument '{name}' not {value!r}.")
        return int(value)
    if kind == "float":
        if isinstance(value, (str, bytes)) or not isinstance(value, (numbers.Real, np.number)):
            raise TypeError(f"Expected float for argument '{name}' not {value!r}.")
        return float(value)
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"Expected bool for argument '{name}' not {value!r}.")
        return bool(value)
    if kind == "string":
        if isinstance(value, bytes):
            try:
                value = value.decode()
            except UnicodeDecodeError:
                if not attr["allowed_values"]:
                    return value  # binary, e.g. a serialized tf.data function: the graph keeps the bytes
                raise
        if not isinstance(value, str):
            raise TypeError(f"Expected string for argument '{name}' not {value!r}.")
        if attr["allowed_values"] and value not in attr["allowed_values"]:
            allowed = ", ".join(f'"{v}"' for v in attr["allowed_values"])
            raise ValueError(f"Attr '{name}' of '{op.name}' Op passed string '{value}' not in: {allowed}.")
        return value
    if kind == "type":
        try:
            dtype = dtypes.as_dtype(value)
        except TypeError:
            raise TypeError(f"Expected DataType for argument '{name}' not {value!r}.") from None
        _check_dtype_allowed(attr, dtype, name)
        return dtype.as_datatype_enum
    if kind == "shape":
        try:
            return tensor_shape.as_attr(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Error converting {name} to a TensorShape: {e}") from None
    if kind == "tensor":
        if isinstance(value, tuple) and len(value) == 2:
            return value  # (numpy array, dtype enum), as constant_op builds it
        array = np.asarray(value)
        return (array, dtypes.as_dtype(array.dtype).as_datatype_enum)
    raise TypeError(f"attr '{name}' of '{op.name}' has type {kind}, which Python cannot set")


def check_attr(op, name, value):
    """`value` as the graph takes attr `name` of op `op` (an OpDef), or TensorFlow 1's error: TypeError for a
    value of the wrong kind or a dtype not allowed, ValueError for a string not allowed or a value (a list's
    length) under the minimum."""
    attr = op.attrs[name]
    kind = attr["type"]
    if kind.startswith("list("):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{name}' argument to '{op.function_name}' Op, not {value!r}.")
        if attr["minimum"] is not None and len(value) < attr["minimum"]:
            raise ValueError(
                f"Attr '{name}' of '{op.name}' Op passed list of length {len(value)} less than minimum "
                f"{attr['minimum']}."
            )
        return [_scalar_attr(op, attr, kind[5:-1], v) for v in value]
    checked = _scalar_attr(op, attr, kind, value)
    if kind == "int" and attr["minimum"] is not None and checked < attr["minimum"]:
        raise ValueError(f"Attr '{name}' of '{op.name}' Op passed {checked} less than minimum {attr['minimum']}.")
    return checked


# --- inputs -------------------------------------------------------------------------------------------------------


def _ref_input(op, arg, value):
    if hasattr(value, "_variable"):
        return value._variable
    if isinstance(value, ops.Tensor) and value._is_ref:
        return value
    raise TypeError(f"Input '{arg['name']}' of '{op.name}' Op requires l-value input: {value!r} is not a variable")


def _is_tensor(value):
    return isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element")


def _tensor_of(op, arg, value, dtype, expected):
    """`value` as a `dtype` tensor (a Python value is converted, named by the input); a tensor of another dtype
    is TensorFlow's TypeError, `expected` saying what it should have been."""
    if _is_tensor(value):
        t = ops.convert_to_tensor(value)
        if t.dtype != dtype:
            raise TypeError(
                f"Input '{arg['name']}' of '{op.name}' Op has type {t.dtype.name} that does not match {expected}."
            )
        return t
    return ops.convert_to_tensor(value, dtype=dtype, name=arg["name"])


class _Inference:
    """Type attrs as the inputs fix them, and which input fixed each (for the error message)."""

    def __init__(self, op, attrs):
        self.op = op
        self.attrs = attrs
        self.source = {}

    def dtype(self, type_attr):
        enum = self.attrs.get(type_attr)
        return None if enum is None else dtypes.as_dtype(enum)

    def convert(self, arg, value, type_attr):
        """`value` as a tensor of the dtype `type_attr` has (fixing it if not yet fixed)."""
        dtype = self.dtype(type_attr)
        if dtype is not None:
            source = self.source.get(type_attr, type_attr)
            return _tensor_of(self.op, arg, value, dtype, f"type {dtype.name} of argument '{source}'")
        attr = self.op.attrs[type_attr]
        preferred = dtypes.as_dtype(attr["default"]) if attr["has_default"] else None
        t = ops.convert_to_tensor(value, name=arg["name"], preferred_dtype=preferred)
        _check_dtype_allowed(attr, t.dtype, arg["name"])
        self.attrs[type_attr] = t.dtype.as_datatype_enum
        self.source[type_attr] = arg["name"]
        return t


def _list_input(op, arg, value, inference):
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{arg['name']}' argument to '{op.function_name}' Op, not {value!r}.")
    number_attr = arg["number_attr"]
    if number_attr:
        minimum = op.attrs[number_attr]["minimum"]
        if minimum is not None and len(value) < minimum:
            raise ValueError(
                f"List argument '{arg['name']}' to '{op.name}' Op with length {len(value)} shorter than minimum "
                f"length {minimum}."
            )
        inference.attrs[number_attr] = len(value)
        type_attr = arg["type_attr"]
        if not type_attr:  # a list of one fixed dtype ("N * string")
            dtype = dtypes.as_dtype(arg["type"])
            return [_tensor_of(op, arg, v, dtype, f"expected type of {dtype.name}") for v in value]
        if inference.dtype(type_attr) is None:
            # As TensorFlow: the list's dtype is that of its first tensor, Python values follow it.
            first = next((v for v in value if _is_tensor(v)), None)
            if first is not None:
                inference.convert(arg, first, type_attr)
        return [inference.convert(arg, v, type_attr) for v in value]
    tensors = [ops.convert_to_tensor(v) for v in value]
    inference.attrs[arg["type_list_attr"]] = [t.dtype.as_datatype_enum for t in tensors]
    return tensors


def _input(op, arg, value, inference):
    if arg["is_ref"]:
        return _ref_input(op, arg, value)
    if arg["number_attr"] or arg["type_list_attr"]:
        return _list_input(op, arg, value, inference)
    if arg["type_attr"]:
        return inference.convert(arg, value, arg["type_attr"])
    dtype = dtypes.as_dtype(arg["type"])
    return _tensor_of(op, arg, value, dtype, f"expected type of {dtype.name}")


# --- the wrappers ---------------------------------------------------------------------------------------------


def _outputs(op, operation):
    """The op's outputs as TensorFlow's wrappers return them."""
    if not op.outputs:
        return operation
    attrs = {}
    results, pos = [], 0
    for arg in op.outputs:
        if arg["number_attr"] or arg["type_list_attr"]:
            if arg["number_attr"]:
                count = operation.get_attr(arg["number_attr"])
            else:
                count = len(attrs.setdefault(arg["type_list_attr"], operation.get_attr(arg["type_list_attr"])))
            results.append(list(operation.outputs[pos : pos + count]))
            pos += count
        else:
            results.append(operation.outputs[pos])
            pos += 1
    if len(results) == 1:
        return results[0]
    return _output_tuple(op)(*results)


_OUTPUT_TUPLES = {}


def _output_tuple(op):
    found = _OUTPUT_TUPLES.get(op.name)
    if found is None:
        found = _OUTPUT_TUPLES[op.name] = collections.namedtuple(op.name, [a["name"] for a in op.outputs])
    return found


def apply_op(op_type, arguments):
    """Adds one `op_type` node: `arguments` maps its inputs (tensors or values to convert) and the attrs it is
    given (the others take their defaults) by name, plus an optional `name`. The node is named by `name` or
    the op type, made unique, and constants made from Python values are named by the input inside that scope
    (TF1's `Conv2D/input`). Returns what the generated wrapper returns."""
    op = op_def(op_type)
    arguments = dict(arguments)
    promoted = _half_computed_in_float(op, arguments)
    if promoted:
        return _apply_in_float(op, arguments, promoted)
    name = arguments.pop("name", None)
    attrs = {}
    for attr_name in op.attr_names:
        if attr_name in arguments:
            attrs[attr_name] = check_attr(op, attr_name, arguments[attr_name])
    graph = _graph_of_inputs(arguments[arg["name"]] for arg in op.inputs)
    with _as_default(graph), graph.name_scope(name or op.name) as scope:
        inference = _Inference(op, attrs)
        inputs = [_input(op, arg, arguments[arg["name"]], inference) for arg in op.inputs]
        operation = graph._create_op(op.name, inputs, attrs, name=scope)
    result = _outputs(op, operation)
    for hook in _output_hooks:  # tw.debugging.enable_check_numerics
        result = hook(operation, result)
    return result


# --- float16 / bfloat16 through the float32 kernels ----------------------------------------------------------

_HALF_TYPES = (dtypes.float16, dtypes.bfloat16)


def _half_computed_in_float(op, arguments):
    """{type attr: half dtype} for the type attrs of `op` that its kernels take in float32 but not in the
    float16/bfloat16 its (non-ref) input tensors have: such an op computes in float32 between Casts, as TF's CPU
    kernels for half types compute (Conv2D, MatMul, softmax, pooling, ... in float16 or bfloat16)."""
    promoted = {}
    for arg in op.inputs:
        attr_name = arg["type_attr"]
        if not attr_name or arg["type_list_attr"]:
            continue
        allowed = op.attrs[attr_name]["allowed_types"]
        if not allowed or dtypes.float32.as_datatype_enum not in allowed:
            continue
        value = arguments.get(arg["name"])
        values = value if arg["number_attr"] and isinstance(value, (list, tuple)) else [value]
        for v in values:
            dtype = v.dtype.base_dtype if _is_tensor(v) else None
            if dtype in _HALF_TYPES and dtype.as_datatype_enum not in allowed:
                if arg["is_ref"] or promoted.get(attr_name, dtype) != dtype:
                    return None  # a variable updated in place, or mixed half types: the op's own error
                promoted[attr_name] = dtype
    return promoted


def _apply_in_float(op, arguments, promoted):
    from tensorweave._src.ops import math_ops  # math_ops builds on these wrappers

    def to_float(v):
        return math_ops.cast(v, dtypes.float32) if _is_tensor(v) and v.dtype.base_dtype in _HALF_TYPES else v

    for arg in op.inputs:
        if arg["type_attr"] in promoted:
            value = arguments[arg["name"]]
            is_list = isinstance(value, (list, tuple))
            arguments[arg["name"]] = [to_float(v) for v in value] if is_list else to_float(value)
    for attr_name in promoted:
        if attr_name in arguments:
            arguments[attr_name] = dtypes.float32
    result = apply_op(op.name, arguments)
    if not op.outputs:
        return result
    results = [result] if len(op.outputs) == 1 else list(result)
    for i, arg in enumerate(op.outputs):
        dtype = promoted.get(arg["type_attr"])
        if dtype is not None:
            r = results[i]
            results[i] = [math_ops.cast(t, dtype) for t in r] if isinstance(r, list) else math_ops.cast(r, dtype)
    return results[0] if len(results) == 1 else _output_tuple(op)(*results)


# Functions (operation, outputs) -> outputs, applied to each wrapper's result.
_output_hooks = []


def _graph_of_inputs(values):
    """The graph the op goes in: that of its first input with one (as TF1's `name_scope(name, default, values)`
    enters it), else the default graph. Inputs from two graphs are the op's error (`_create_op`)."""
    flat = []
    for v in values:
        if isinstance(v, (list, tuple)):
            flat.extend(v)
        else:
            flat.append(v)
    return ops._get_graph_from_inputs(flat)


def _as_default(graph):
    return contextlib.nullcontext() if graph is ops.get_default_graph() else graph.as_default()


def signature(op_type, keyword_only=False):
    """The wrapper's signature: inputs, attrs without a default, attrs with the registry's default, `name`."""
    op = op_def(op_type)
    kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(arg["name"], kind) for arg in op.inputs]
    for attr in op.attr_args:
        default = _python_default(attr) if attr["has_default"] else inspect.Parameter.empty
        params.append(inspect.Parameter(attr["name"], kind, default=default))
    params.append(inspect.Parameter("name", kind, default=None))
    return inspect.Signature(params)


def _python_default(attr):
    value = attr["default"]
    kind = attr["type"]
    if kind == "string":
        return value.decode() if isinstance(value, bytes) else value
    if kind == "list(string)":
        return [v.decode() if isinstance(v, bytes) else v for v in value]
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "list(type)":
        return [dtypes.as_dtype(v) for v in value]
    if kind == "float":
        return float(str(np.float32(value)))  # the float32 the registry holds, as written there (1e-4)
    return value


def _make_wrapper(op_type, keyword_only):
    op = op_def(op_type)
    sig = signature(op_type, keyword_only)
    keys = list(sig.parameters)

    def wrapper(*args, **kwargs):
        if keyword_only and args:
            raise TypeError(
                f"{op.function_name} only takes keyword args (possible keys: {keys}). Please pass these args as kwargs"
            )
        bound = sig.bind(*args, **kwargs)
        return apply_op(op_type, bound.arguments)

    wrapper.__name__ = op_type if keyword_only else op.function_name
    wrapper.__qualname__ = wrapper.__name__
    wrapper.__module__ = "tensorweave.raw_ops" if keyword_only else __name__
    wrapper.__signature__ = sig
    wrapper.__doc__ = docstring(op_type)
    return wrapper


# --- docs -----------------------------------------------------------------------------------------------------


def _attr_phrase(attr):
    kind = attr["type"]
    optional = attr["has_default"]
    if kind.startswith("list("):
        text = f"A list of `{kind[5:-1]}s`"
        if attr["minimum"] is not None:
            text += f" of length at least {attr['minimum']}"
    elif kind == "string" and attr["allowed_values"]:
        text = "A `string` from: " + ", ".join(f'`"{v}"`' for v in attr["allowed_values"])
    elif kind == "type" and attr["allowed_types"]:
        text = "A `tw.DType` from: " + ", ".join(f"`{_dtype_name(t)}`" for t in attr["allowed_types"])
    else:
        text = f"{'An' if kind == 'int' else 'A'} `{'tw.DType' if kind == 'type' else kind}`"
        if attr["minimum"] is not None:
            text += f" that is at least {attr['minimum']}"
    if optional:
        text = "An optional " + text.split(" ", 1)[1]
        text += f". Defaults to `{_python_default(attr)!r}`"
    return text + "."


def _arg_phrase(op, arg, seen_types, is_output=False):
    if arg["number_attr"]:
        what = f"A list of at least {op.attrs[arg['number_attr']]['minimum'] or 0} `Tensor` objects of one type"
        if is_output:
            what = f"A list of `{arg['number_attr']}` `Tensor` objects of one type"
    elif arg["type_list_attr"]:
        what = "A list of `Tensor` objects" + (f" of the types `{arg['type_list_attr']}`" if is_output else "")
    else:
        what = "A `Tensor`" + (" (a variable's ref)" if arg["is_ref"] else "")
    type_attr = arg["type_attr"]
    if type_attr and type_attr in seen_types:
        return f"{what}. {'Has' if is_output else 'Must have'} the same type as `{seen_types[type_attr]}`."
    if type_attr and is_output:
        return f"{what} of type `{type_attr}`."
    if type_attr:
        seen_types[type_attr] = arg["name"]
        allowed = op.attrs[type_attr]["allowed_types"]
        if allowed:
            return (
                f"{what}. Must be one of the following types: "
                + ", ".join(f"`{_dtype_name(t)}`" for t in allowed)
                + "."
            )
        return what + "."
    if not arg["type_list_attr"]:
        return f"{what} of type `{_dtype_name(arg['type'])}`."
    return what + "."


def docstring(op_type):
    """The generated wrapper's doc: the registry's doc, then its arguments and outputs."""
    op = op_def(op_type)
    seen_types = {}
    lines = [op.doc or f"The {op.name} op.", "", "Args:"]
    for arg in op.inputs:
        lines.append(f"  {arg['name']}: {_arg_phrase(op, arg, seen_types)}")
    for attr in op.attr_args:
        lines.append(f"  {attr['name']}: {_attr_phrase(attr)}")
    lines.append("  name: A name for the operation (optional).")
    lines += ["", "Returns:"]
    if not op.outputs:
        lines.append("  The created Operation.")
    for arg in op.outputs:
        phrase = _arg_phrase(op, arg, seen_types, is_output=True)
        lines.append(f"  {arg['name']}: {phrase}" if len(op.outputs) > 1 else f"  {phrase}")
    return "\n".join(lines)


def doc_from(op_type):
    """Decorator: the hand-written wrapper's doc is the registry's doc of `op_type` followed by its own text (what
    TensorFlow 1's signature adds, and an example), so the op's description is written once."""

    def decorate(fn):
        own = inspect.cleandoc(fn.__doc__ or "")
        fn.__doc__ = op_def(op_type).doc + ("\n\n" + own if own else "")
        return fn

    return decorate


# --- lazy generation (a wrapper is built on first use) ------------------------------------------------------

_BY_FUNCTION_NAME = None
_RAW = {}


def _function_names():
    global _BY_FUNCTION_NAME
    if _BY_FUNCTION_NAME is None:
        _BY_FUNCTION_NAME = {function_name(n): n for n in op_names()}
    return _BY_FUNCTION_NAME


def wrapper(op_type):
    """The generated wrapper of `op_type` (`wrapper("Conv2D") is gen_ops.conv2d`)."""
    name = op_def(op_type).function_name
    found = globals().get(name)
    return found if found is not None else __getattr__(name)


def raw_op(op_type):
    """`tw.raw_ops.<op_type>`: the keyword-only wrapper (AttributeError when no such op is registered)."""
    found = _RAW.get(op_type)
    if found is None:
        if _pywrap.op_def(op_type) is None:
            raise AttributeError(f"tw.raw_ops has no op '{op_type}'")
        found = _make_wrapper(op_type, keyword_only=True)
        if op_type in _TF_ARG_NAMES:
            found = _renamed(found, _TF_ARG_NAMES[op_type])
        _RAW[op_type] = found
    return found


_REDUCTION = {"axis": "reduction_indices"}
_GRAD = {"y": "x", "dy": "y"}  # the op def's inputs are (x, y) = TensorFlow's (y, dy)
# TensorFlow's api_defs rename these ops' arguments in tf.raw_ops ({TensorFlow's name: the op def's name}).
_TF_ARG_NAMES = {
    **dict.fromkeys(("All", "Any", "Max", "Mean", "Min", "Prod", "Sum"), _REDUCTION),
    **dict.fromkeys(("InvGrad", "ReciprocalGrad", "RsqrtGrad", "SigmoidGrad", "SqrtGrad", "TanhGrad"), _GRAD),
    "ExpandDims": {"axis": "dim"},
    "Select": {"x": "t", "y": "e"},
    "Split": {"axis": "split_dim"},
    "SplitV": {"axis": "split_dim"},
    "Squeeze": {"axis": "squeeze_dims"},
    "Where": {"condition": "input"},
}


def _renamed(wrapper, renames):
    """`wrapper` called with TensorFlow's argument names (the op def's names still work where unambiguous)."""

    def call(**kwargs):
        renamed = {renames.get(k, k): v for k, v in kwargs.items()}
        if len(renamed) != len(kwargs):
            raise TypeError(f"{wrapper.__name__}() got an argument both by TensorFlow's name and its op def name")
        return wrapper(**renamed)

    call.__name__ = call.__qualname__ = wrapper.__name__
    call.__doc__ = wrapper.__doc__
    call.__signature__ = inspect.signature(wrapper)  # the op def's names, as the registry checks expect
    return call


def __getattr__(name):
    op_type = _function_names().get(name)
    if op_type is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (no registered op is named so)")
    wrapper = _make_wrapper(op_type, keyword_only=False)
    globals()[name] = wrapper
    return wrapper


def __dir__():
    return sorted(set(globals()) | set(_function_names()))
