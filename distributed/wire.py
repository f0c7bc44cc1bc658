"""The wire form of tensorweave's RPC messages: a 4-byte little-endian header length, a small JSON header,
then the raw bytes of the tensors the header describes, back to back. Tensors are encoded from their buffers
(no `tobytes()`: the one copy is the join into the message) and decoded with `np.frombuffer` on the received
bytes (no copy). Everything received is validated: a malformed message is an `InvalidArgumentError` naming
what is wrong, never a crash."""

import json
import math
import struct

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors

_LEN = struct.Struct("<I")
STRING = dtypes.string.as_datatype_enum
# DataType enum -> numpy dtype of every dtype that crosses the wire (strings apart).
_NP_BY_ENUM = {d.as_datatype_enum: np.dtype(d.as_numpy_dtype) for d in dtypes._ALL if d is not dtypes.string}
_ENUM_BY_NP = {v: k for k, v in _NP_BY_ENUM.items()}
# The largest tensor a message may describe (a message itself is bounded by grpc's max message length).
MAX_TENSOR_BYTES = 1 << 34
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def dtype_enum(array):
    """The DataType enum of a numpy array (strings and object arrays: DT_STRING)."""
    if array.dtype.kind in "OSU":
        return STRING
    try:
        return _ENUM_BY_NP[array.dtype]
    except KeyError:
        raise _invalid(f"tensors of numpy dtype {array.dtype} cannot be sent") from None


def numpy_dtype(enum):
    """The numpy dtype of a DataType enum; InvalidArgumentError for one that cannot cross the wire."""
    try:
        return _NP_BY_ENUM[enum]
    except (KeyError, TypeError):
        raise _invalid(f"unknown dtype {enum!r} in a tensor message") from None


def tensor_parts(value, dtype=None):
    """(meta, buffers) of a value: meta {"dtype", "shape", "nbytes"[, "lengths"]} and the byte buffers of its
    contents (views of the array's memory for numeric tensors)."""
    array = value if isinstance(value, np.ndarray) else np.asarray(value)
    if dtype is None:
        dtype = dtype_enum(array)
    if dtype == STRING:
        items = [x if isinstance(x, bytes) else str(x).encode() for x in array.reshape(-1).tolist()]
        lengths = [len(x) for x in items]
        return {"dtype": STRING, "shape": list(array.shape), "nbytes": sum(lengths), "lengths": lengths}, items
    np_dtype = numpy_dtype(dtype)
    if array.dtype != np_dtype:
        array = array.astype(np_dtype)
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
    flat = array.reshape(-1).view(np.uint8)
    return {"dtype": int(dtype), "shape": list(array.shape), "nbytes": int(array.nbytes)}, [flat.data]


def as_wire_array(value, dtype):
    """`value` as the receiver of its message would decode it: an array of `dtype`'s numpy dtype, or an object
    array of bytes for a string tensor (what an in-process call passes instead of the message)."""
    meta, buffers = tensor_parts(value, dtype)
    if meta["dtype"] != STRING:
        return np.frombuffer(buffers[0], dtype=numpy_dtype(meta["dtype"])).reshape(meta["shape"])
    out = np.empty(len(buffers), dtype=object)
    out[:] = buffers
    return out.reshape(meta["shape"])


_ENCODER = json.JSONEncoder(separators=(",", ":"))


def encode(header, buffers=()):
    """One message: the header (a JSON-able dict) and the payload buffers."""
    head = _ENCODER.encode(header).encode()
    return b"".join([_LEN.pack(len(head)), head, *buffers])


def header_prefix(header):
    """The JSON of a header that later messages extend (`encode_with_prefix`): made once for many messages."""
    head = json.dumps(header, separators=(",", ":"))
    if not head.endswith("}") or head == "{}":
        raise ValueError("a header prefix is a non-empty object")
    return head[:-1]


def encode_with_prefix(prefix, fields, tensors):
    """encode_tensors(the header `prefix` was made of, updated with the integer `fields`, `tensors`), without
    encoding the header's other fields again. `fields` must not name a field of the prefix's header nor
    "tensors"."""
    metas, buffers = [], []
    for t in tensors:
        meta, bufs = tensor_parts(t)
        metas.append(meta)
        buffers.extend(bufs)
    extra = "".join([f',"{k}":{int(v)}' for k, v in fields.items()])
    head = f'{prefix}{extra},"tensors":{_ENCODER.encode(metas) if metas else "[]"}}}'.encode()
    return b"".join([_LEN.pack(len(head)), head, *buffers])


def encode_tensors(header, tensors, key="tensors"):
    """A message whose header lists, under `key`, the metas of `tensors` (arrays or (array, dtype enum))."""
    metas, buffers = [], []
    for t in tensors:
        meta, bufs = tensor_parts(*t) if isinstance(t, tuple) else tensor_parts(t)
        metas.append(meta)
        buffers.extend(bufs)
    header = dict(header)
    header[key] = metas
    return encode(header, buffers)


def decode(data):
    """(header dict, payload memoryview) of a message; InvalidArgumentError when it is not one."""
    view = memoryview(data)
    if len(view) < _LEN.size:
        raise _invalid(f"truncated message: {len(view)} bytes, shorter than its header length")
    (n,) = _LEN.unpack_from(view, 0)
    if n > len(view) - _LEN.size:
        raise _invalid(f"truncated message: header of {n} bytes in a message of {len(view)}")
    try:
        header = json.loads(bytes(view[_LEN.size : _LEN.size + n]))
    except (ValueError, UnicodeDecodeError) as e:
        raise _invalid(f"malformed message header: {e}") from None
    if not isinstance(header, dict):
        raise _invalid("malformed message header: not an object")
    return header, view[_LEN.size + n :]


def check_meta(meta):
    """(dtype enum, shape tuple, nbytes) of a tensor meta after checking that its fields agree."""
    if not isinstance(meta, dict):
        raise _invalid("malformed tensor meta: not an object")
    dtype = meta.get("dtype")
    shape = meta.get("shape")
    nbytes = meta.get("nbytes")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise _invalid(f"malformed tensor shape {shape!r}: not a list of non-negative integers")
    if not isinstance(nbytes, int) or nbytes < 0:
        raise _invalid(f"malformed tensor byte length {nbytes!r}")
    if nbytes > MAX_TENSOR_BYTES:
        raise errors.ResourceExhaustedError(
            None, None, f"a tensor of {nbytes} bytes is over the limit of {MAX_TENSOR_BYTES}"
        )
    count = math.prod(shape)
    if math.prod(d for d in shape if d) > INT64_MAX:  # (numpy refuses such a shape even with a 0 in it)
        raise _invalid(f"malformed tensor shape {shape}: more than 2**63 - 1 elements")
    if dtype == STRING:
        lengths = meta.get("lengths")
        if not isinstance(lengths, list) or len(lengths) != count:
            raise _invalid(
                f"string tensor of shape {shape} has {len(lengths) if isinstance(lengths, list) else 'no'} lengths"
            )
        if not all(isinstance(n, int) and n >= 0 for n in lengths) or sum(lengths) != nbytes:
            raise _invalid(f"string tensor of shape {shape}: its lengths do not add up to its {nbytes} bytes")
    else:
        itemsize = numpy_dtype(dtype).itemsize
        if count * itemsize != nbytes:
            raise _invalid(
                f"tensor of dtype {dtypes.as_dtype(dtype).name} and shape {shape} needs {count * itemsize} bytes, "
                f"the message has {nbytes}"
            )
    return dtype, tuple(shape), nbytes


def tensor_from(meta, buffer, offset=0):
    """The array a meta describes, read from `buffer` at `offset` (numeric: a view, no copy)."""
    dtype, shape, nbytes = check_meta(meta)
    if offset + nbytes > len(buffer):
        raise _invalid(f"truncated tensor: {nbytes} bytes at offset {offset} of a {len(buffer)}-byte payload")
    if dtype == STRING:
        out = np.empty(len(meta["lengths"]), dtype=object)
        pos = offset
        for i, n in enumerate(meta["lengths"]):
            out[i] = bytes(buffer[pos : pos + n])
            pos += n
        return out.reshape(shape)
    np_dtype = numpy_dtype(dtype)
    return np.frombuffer(buffer, dtype=np_dtype, count=nbytes // np_dtype.itemsize, offset=offset).reshape(shape)


def decode_tensors(header, payload, key="tensors"):
    """The tensors a message's header lists under `key`, read from its payload; the payload must hold exactly
    them."""
    metas = header.get(key, [])
    if not isinstance(metas, list):
        raise _invalid(f"malformed message: '{key}' is not a list")
    out, offset = [], 0
    for meta in metas:
        out.append(tensor_from(meta, payload, offset))
        offset += meta["nbytes"]
    if offset != len(payload):
        raise _invalid(f"malformed message: {len(payload) - offset} bytes after its tensors")
    return out


def is_control_value(array):
    """Whether a sent value is the dummy of a control edge (a float32 scalar 0.0, what the partitioner sends
    across a task boundary for a control dependency): it crosses as a flag, with no payload."""
    return (
        isinstance(array, np.ndarray) and array.ndim == 0 and array.dtype == np.float32 and array.view(np.uint32) == 0
    )


_CONTROL = np.zeros((), np.float32)
_CONTROL.flags.writeable = False
FLOAT = dtypes.float32.as_datatype_enum


def encode_pushes(items):
    """(entries, tensors) of pushed values `items` [(step_id, key, array, is_dead)]: one entry each
    ({"step_id", "key", "is_dead", "control"}), and the arrays of those that are not control edges (a control
    edge's dummy value needs no bytes), in order."""
    entries, tensors = [], []
    for step_id, key, array, is_dead in items:
        control = bool(is_control_value(array))
        entries.append({"step_id": step_id, "key": key, "is_dead": bool(is_dead), "control": control})
        if not control:
            tensors.append(array)
    return entries, tensors


def decode_pushes(entries, tensors, metas, what="push"):
    """[(step_id, key, array, is_dead, dtype enum)] of the entries of a batched push (or of a RunGraph reply),
    the tensors decoded from its payload and their metas, after checking every field: InvalidArgumentError
    naming what is wrong."""
    if not isinstance(entries, list):
        raise _invalid(f"malformed {what}: its entries are not a list")
    out, i = [], 0
    for e in entries:
        if not isinstance(e, dict):
            raise _invalid(f"malformed {what}: an entry is not an object")
        step_id, key = e.get("step_id"), e.get("key")
        is_dead, control = e.get("is_dead", False), e.get("control", False)
        if not isinstance(step_id, int) or isinstance(step_id, bool):
            raise _invalid(f"malformed {what}: step id {step_id!r} is not an integer")
        if not INT64_MIN <= step_id <= INT64_MAX:
            raise _invalid(f"malformed {what}: step id {step_id} is out of the int64 range")
        if not isinstance(key, str):
            raise _invalid(f"malformed {what}: rendezvous key {key!r} is not a string")
        if not isinstance(is_dead, bool) or not isinstance(control, bool):
            raise _invalid(f"malformed {what} of {key}: is_dead and control are flags")
        if control:
            out.append((step_id, key, _CONTROL, is_dead, FLOAT))
            continue
        if i >= len(tensors):
            raise _invalid(f"malformed {what}: {key} has no tensor in the message")
        out.append((step_id, key, tensors[i], is_dead, metas[i]["dtype"]))
        i += 1
    if i != len(tensors):
        raise _invalid(f"malformed {what}: {len(tensors) - i} tensors that no entry names")
    return out
