"""Small TF1 top-level names: protos, enums, constants, tensor protos, scopes and collection helpers."""

import contextlib
import enum

import numpy as np

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.framework.ops import GraphKeys


VERSION = "0.1.0"  # tensorweave's version (tw.__version__), not TensorFlow's
# The GraphDef version tensorweave writes (VersionDef.producer of every as_graph_def()) and reads.
GRAPH_DEF_VERSION = 1
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0


class AggregationMethod:
    """How tw.gradients adds the gradients reaching one tensor (all sum the same values here)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What tw.gradients returns for an x that ys do not depend on: None, or zeros of x's shape."""

    NONE = "none"
    ZERO = "zero"


class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (one process here: recorded, all behave as NONE)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are combined (TF1's names, ONLY_FIRST_TOWER included)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # noqa: PIE796 (TF1's alias of ONLY_FIRST_REPLICA)


def is_tensor(x):
    """True for graph tensors, variables and sparse tensors (what TF's is_tensor accepts), False for values."""
    from tensorweave._src.framework.sparse_tensor import SparseTensor
    from tensorweave._src.ops.variables import Variable

    return isinstance(x, (ops.Tensor, Variable, SparseTensor))


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto of `values`, byte for byte as TF's tensor_util.make_tensor_proto writes it.

    A whole tensor of more than one element goes to tensor_content (except uint16, bool and strings); otherwise the
    values go to the dtype's *_val field, so a `shape` larger than the values (a fill) keeps only the values given
    and a reader repeats the last. More values than `shape` holds is a ValueError.

    Example:
      >>> import tensorweave as tw
      >>> tw.make_tensor_proto(0.0, shape=[2, 3]).float_val
      [0.0]
    """
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    if isinstance(values, np.ndarray) and dtype is None:
        nparray = values
    else:
        np_dtype = dtype.as_numpy_dtype if dtype is not None else None
        if dtype is not None and dtype == dtypes.string:
            np_dtype = object
        nparray = np.array(values, dtype=np_dtype)
        if dtype is None and nparray.dtype == np.float64 and not isinstance(values, np.ndarray):
            nparray = nparray.astype(np.float32)  # Python floats are float32, as TF
        fits_int32 = nparray.dtype == np.int64 and (
            nparray.size == 0 or (nparray.min() >= -(2**31) and nparray.max() < 2**31)
        )
        if dtype is None and fits_int32 and not isinstance(values, np.ndarray):
            nparray = nparray.astype(np.int32)
    if nparray.dtype.kind in "USO":
        tw_dtype = dtypes.string
    else:
        tw_dtype = dtypes.as_dtype(nparray.dtype)
    if dtype is not None and dtype != tw_dtype:
        raise TypeError(f"Incompatible types: {dtype!r} vs. {nparray.dtype}. Value is {values}")
    is_same_size = True
    if shape is None:
        shape = list(nparray.shape)
    else:
        shape = [int(d) for d in shape]
        n = int(np.prod(shape, dtype=np.int64))
        if n == 0:  # TensorFlow takes no values for an empty shape
            nparray = np.empty(shape, dtype=nparray.dtype)
        is_same_size = n == nparray.size
        if allow_broadcast:
            if nparray.shape not in ((1,), ()) and nparray.size != n:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {nparray.shape}.")
        else:
            if verify_shape and list(nparray.shape) != shape:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {nparray.shape}.")
            if nparray.size > n:
                raise ValueError(f"Too many elements provided. Takes at most {n}, but got {nparray.size}.")
    from tensorweave._src.framework import graph_pb2

    proto = graph_pb2.TensorProto()
    proto.dtype = tw_dtype.as_datatype_enum
    proto.tensor_shape.SetInParent()
    for d in shape:
        proto.tensor_shape.dim.add().size = d
    # As TensorFlow: tensor_content for a whole tensor of more than one element of these dtypes; otherwise the
    # values in the dtype's *_val field (a fill keeps its one value, a reader repeats the last).
    if is_same_size and tw_dtype.name in _TENSOR_CONTENT_DTYPES and nparray.size > 1:
        if nparray.nbytes >= 1 << 31:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = np.ascontiguousarray(nparray, dtype=tw_dtype.as_numpy_dtype).tobytes()
        return proto
    flat = nparray.reshape(-1)
    if tw_dtype == dtypes.string:
        proto.string_val.extend(s if isinstance(s, bytes) else str(s).encode("utf-8") for s in flat)
    elif tw_dtype in (dtypes.float16, dtypes.bfloat16):  # bit patterns
        proto.half_val.extend(flat.astype(tw_dtype.as_numpy_dtype).view(np.uint16).tolist())
    else:
        getattr(proto, _VALUE_FIELDS[tw_dtype.name]).extend(flat.astype(tw_dtype.as_numpy_dtype).tolist())
    return proto


# The dtypes whose values TensorFlow's make_tensor_proto writes to tensor_content (not uint16, bool or string).
_TENSOR_CONTENT_DTYPES = frozenset(
    ["float16", "bfloat16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64", "uint32", "uint64"]
)


def _decode_string_list(content, n):
    """TensorFlow's string tensor_content: n varint32 lengths, then the bytes."""
    lengths, pos = [], 0
    for _ in range(n):
        value = shift = 0
        while True:
            if pos >= len(content) or shift > 28:
                raise ValueError("Malformed string tensor_content in TensorProto")
            byte = content[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        lengths.append(value)
    if sum(lengths) != len(content) - pos:
        raise ValueError(f"String tensor_content has {len(content) - pos} bytes for strings of {sum(lengths)} bytes")
    out = []
    for length in lengths:
        out.append(content[pos : pos + length])
        pos += length
    return out


# The *_val field each dtype's values are in (TensorFlow's ProtoHelper).
_VALUE_FIELDS = {
    "float32": "float_val",
    "float64": "double_val",
    "int32": "int_val",
    "uint8": "int_val",
    "int8": "int_val",
    "int16": "int_val",
    "uint16": "int_val",
    "int64": "int64_val",
    "bool": "bool_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
    "float16": "half_val",
    "bfloat16": "half_val",
    "string": "string_val",
}


def make_ndarray(tensor):
    """The numpy array of a TensorProto, read as TensorFlow's C++ Tensor::FromProto reads it.

    Values come from tensor_content (exactly the tensor's bytes; strings in TensorFlow's length-prefixed encoding)
    or from the dtype's *_val field: none gives zeros (empty strings), fewer values than elements repeat the last,
    more are cut; an empty tensor ignores its values. A shape with a negative dimension, a content of the wrong
    size or a malformed string content is a ValueError.

    Example:
      >>> import tensorweave as tw
      >>> tw.make_ndarray(tw.make_tensor_proto([[1, 2]]))
      array([[1, 2]], dtype=int32)
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    if any(d < 0 for d in shape):
        raise ValueError(f"TensorProto shape {shape} has a negative dimension")
    n = 1
    for d in shape:
        n *= d
    dtype = dtypes.as_dtype(tensor.dtype)
    np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
    if n == 0:
        return np.zeros(shape, dtype=np_dtype)
    if tensor.tensor_content:
        if dtype == dtypes.string:
            arr = np.empty(n, dtype=object)
            arr[:] = _decode_string_list(tensor.tensor_content, n)
            return arr.reshape(shape)
        if len(tensor.tensor_content) != n * np.dtype(np_dtype).itemsize:
            raise ValueError(
                f"TensorProto tensor_content has {len(tensor.tensor_content)} bytes, but a {dtype.name} tensor "
                f"of shape {shape} needs {n * np.dtype(np_dtype).itemsize}"
            )
        return np.frombuffer(tensor.tensor_content, dtype=np_dtype).copy().reshape(shape)
    values = list(getattr(tensor, _VALUE_FIELDS[dtype.name]))[:n]
    if dtype == dtypes.string:
        arr = np.empty(n, dtype=object)
        arr[:] = b""
    else:
        arr = np.zeros(n, dtype=np_dtype)
    if values:
        if dtype in (dtypes.float16, dtypes.bfloat16):
            given = np.array(values, dtype=np.uint16).view(np_dtype)
        elif dtype == dtypes.string:
            given = values
        else:
            # A C++ cast, as TensorFlow: int_val 300 into int8 is 44.
            wide = np.uint64 if dtype == dtypes.uint64 else np.int64 if dtype.is_integer else None
            given = np.array(values, dtype=wide)
            given = given.astype(np_dtype)
        arr[: len(values)] = given
        arr[len(values) :] = arr[len(values) - 1]
    return arr.reshape(shape)


def get_static_value(tensor, partial=False):
    """The value of `tensor` when it is known while building the graph (Const, shapes, ranks, sizes, casts,
    identities, packs of known values), else None; a value that is not a tensor is returned as it is."""
    if not isinstance(tensor, ops.Tensor):
        if hasattr(tensor, "_variable"):
            return None
        return tensor
    op = tensor.op
    if op.type == "Const":
        return np.asarray(op.get_attr("value"))
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
        return None
    if op.type == "Size":
        shape = op.inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.num_elements(), dtype=tensor.dtype.as_numpy_dtype)
        return None
    if op.type == "Rank":
        ndims = op.inputs[0].shape.ndims
        return np.array(ndims, dtype=np.int32) if ndims is not None else None
    if op.type in ("Identity", "StopGradient"):
        return get_static_value(op.inputs[0])
    if op.type == "Cast":
        value = get_static_value(op.inputs[0])
        return None if value is None else value.astype(tensor.dtype.as_numpy_dtype)
    if op.type == "Pack":
        values = [get_static_value(t) for t in op.inputs]
        if any(v is None for v in values):
            return None
        return np.stack(values, axis=op.get_attr("axis"))
    if op.type == "Fill":
        dims, value = get_static_value(op.inputs[0]), get_static_value(op.inputs[1])
        if dims is None or value is None:
            return None
        return np.full(dims, value)
    return None


@contextlib.contextmanager
def init_scope():
    """TF1's init_scope in a graph: clears the control dependencies (the name scope stays), so that ops made
    inside (variable initializers, say) do not wait on the surrounding control dependencies."""
    with ops.get_default_graph().control_dependencies(None):
        yield


def all_variables():
    """Deprecated alias of global_variables."""
    from tensorweave._src.ops.variables import global_variables

    return global_variables()


def moving_average_variables(scope=None):
    """Variables in MOVING_AVERAGE_VARIABLES (those an ExponentialMovingAverage tracks)."""
    return ops.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def initialize_variables(var_list, name="init"):
    """Deprecated alias of variables_initializer."""
    from tensorweave._src.ops.variables import variables_initializer

    return variables_initializer(var_list, name=name)


def initialize_local_variables():
    """Deprecated alias of local_variables_initializer."""
    from tensorweave._src.ops.variables import local_variables_initializer

    return local_variables_initializer()


def tables_initializer(name="init_all_tables"):
    """An op that runs every initializer in TABLE_INITIALIZERS; a NoOp when there are none (as TF)."""
    initializers = ops.get_collection(GraphKeys.TABLE_INITIALIZERS) if hasattr(GraphKeys, "TABLE_INITIALIZERS") else []
    initializers = initializers or ops.get_collection("table_initializer")
    if initializers:
        return ops.group(*initializers, name=name)
    from tensorweave._src.ops import gen_ops

    return gen_ops.no_op(name=name)


def initialize_all_tables(name="init_all_tables"):
    """Deprecated alias of tables_initializer."""
    return tables_initializer(name=name)


def tuple(tensors, name=None, control_inputs=None):
    """Each tensor passed on only after all of `tensors` (and `control_inputs`) are computed (TF1's tf.tuple)."""
    if isinstance(tensors, (ops.Tensor, str, bytes)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"tensors must be a list or tuple: {tensors!r}")
    from tensorweave._src.ops import control_flow_ops

    with ops.name_scope(name, "tuple"):

        def is_value(t):
            return isinstance(t, ops.Tensor) or (hasattr(t, "indices") and hasattr(t, "dense_shape"))

        tensors = [
            t if t is None or isinstance(t, ops.Operation) or is_value(t) else ops.convert_to_tensor(t) for t in tensors
        ]
        gating = [t if isinstance(t, ops.Operation) else t.op for t in tensors if t is not None]
        if control_inputs:
            for c in control_inputs:
                if isinstance(c, ops.Tensor):
                    c = c.op
                elif not isinstance(c, ops.Operation):
                    raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}")
                gating.append(c)
        # As TF: the gating ops once each, in creation order, grouped as "group_deps"; each value passed on
        # by with_dependencies ("control_dependency", "control_dependency_1", ...).
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = ops.group(*gating)
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
            elif isinstance(t, ops.Operation):
                with ops.control_dependencies([gate]):
                    out.append(ops.group(t))
            else:
                out.append(control_flow_ops.with_dependencies([gate], t))
        return out


def op_scope(values, name, default_name=None):
    """Deprecated: name_scope(name, default_name, values)."""
    return ops.name_scope(name, default_name, values)


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None, reuse=None, dtype=None):
    """Deprecated: variable_scope(name_or_scope, default_name, values, ...)."""
    from tensorweave._src.ops.variables import variable_scope

    return variable_scope(
        name_or_scope, default_name=default_name, values=values, initializer=initializer, reuse=reuse, dtype=dtype
    )


def get_local_variable(
    name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False, collections=None, **kwargs
):
    """get_variable in LOCAL_VARIABLES (not trainable, not saved with the global variables)."""
    from tensorweave._src.ops.variables import get_variable

    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=False,
        collections=collections,
        **kwargs,
    )


def no_regularizer(_):
    """The regularizer that adds nothing (returns None)."""
    return


del tensor_shape


def assert_variables_initialized(var_list=None):
    """Reads each variable's rank (a Rank op on its value): running it is a FailedPreconditionError while any of
    `var_list` (default: global and local variables) is uninitialized. None when there are no variables, the one
    rank for one variable, else their stack (as TF1)."""
    from tensorweave._src.ops import array_ops, gen_ops
    from tensorweave._src.ops.variables import global_variables, local_variables

    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        return None
    with ops.name_scope("assert_variables_initialized"):
        ranks = [gen_ops.rank(ops.convert_to_tensor(v)) for v in var_list]
        return ranks[0] if len(ranks) == 1 else array_ops.stack(ranks)


def get_logger():
    """The package's logging.Logger (TF1's get_logger returns the "tensorflow" logger; this is "tensorweave")."""
    import logging

    return logging.getLogger("tensorweave")
