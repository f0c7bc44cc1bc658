"""Writes `.twl` models (lite/schema/twl.fbs) with the flatbuffers Builder
over the generated schema code.

`TwlModelBuilder` is the in-memory model the lowerings fill in: tensors
(with shape and shape_signature), constant buffers, operators with their
option tables, graph inputs/outputs, the "serving_default" signature and
metadata. `serialize()` lays it out with each buffer's bytes 64-byte aligned
from the start of the file (the schema's force_align, which flatc's Python
code does not apply by itself) and appends the integrity trailer (a CRC-32 of
the whole file, lite/schema/README.md) unless `checksum=False`.

Example:
  >>> import numpy as np
  >>> from converters.twl_writer import TwlModelBuilder
  >>> m = TwlModelBuilder()
  >>> x = m.add_input("x", [1, 2], np.float32, signature=[-1, 2])
  >>> y = m.add_tensor("y", [1, 2], np.float32, signature=[-1, 2])
  >>> m.add_op("RELU", [x], [y])
  >>> m.add_output("y", y)
  >>> data = m.serialize()
  >>> data[4:8]
  b'TWL1'
"""

import struct
import zlib

import flatbuffers
import numpy as np

from converters import twl_schema
from converters.errors import ConversionError
from converters.names import unique_name

SCHEMA_VERSION = 1
BUFFER_ALIGNMENT = 64

# The integrity trailer (lite/runtime/checksum.h): "TWLI", algorithm, CRC-32
# of every byte before the checksum field, "TWLI"; little-endian.
INTEGRITY_MAGIC = b"TWLI"
CHECKSUM_CRC32 = 1
INTEGRITY_TRAILER_SIZE = 16


def add_integrity_trailer(data):
    """`data` (a .twl flatbuffer without a trailer) followed by its integrity
    trailer. zlib.crc32 is the same CRC-32 the runtime computes."""
    head = bytes(data) + INTEGRITY_MAGIC + struct.pack("<I", CHECKSUM_CRC32)
    return head + struct.pack("<I", zlib.crc32(head)) + INTEGRITY_MAGIC


def integrity_of(data):
    """None for a file without a trailer, else (stored, computed) CRC-32s
    (equal when the file is intact)."""
    if len(data) < INTEGRITY_TRAILER_SIZE or INTEGRITY_MAGIC not in (data[-16:-12], data[-4:]):
        return None
    return struct.unpack("<I", data[-8:-4])[0], zlib.crc32(memoryview(data)[:-8])


# numpy dtype -> the schema's TensorType name: the element types the lite runtime has.
TENSOR_TYPES = {
    np.dtype(np.float32): "FLOAT32",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.int8): "INT8",
    np.dtype(np.bool_): "BOOL",
    np.dtype(np.float64): "FLOAT64",
    np.dtype(np.int16): "INT16",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.float16): "FLOAT16",
}

# Option fields whose values are schema enums, given by name ("SAME", "RELU").
_ENUM_FIELDS = {
    "padding": "Padding",
    "fused_activation_function": "ActivationFunctionType",
    "output_type": "TensorType",
    "direction": "RNNDirection",
    "gate_activation": "RNNActivation",
    "activation": "RNNActivation",
    "interpolation": "ResizeInterpolation",
    "coordinate_transformation": "ResizeCoordinates",
    "nearest_rounding": "ResizeNearestRounding",
    "scatter_reduction": "ScatterReduction",
    "padding_mode": "GridSamplePadding",
}


def tensor_type(dtype):
    """The schema's TensorType name of a numpy dtype (ConversionError if none)."""
    dtype = np.dtype(dtype)
    if dtype not in TENSOR_TYPES:
        raise ConversionError(f"the lite runtime has no {dtype} tensors")
    return TENSOR_TYPES[dtype]


MAX_DIM = (1 << 31) - 1  # .twl dims are int32
MAX_TENSOR_BYTES = 1 << 31  # the lite runtime's kMaxTensorBytes


def checked_shape(name, shape, dtype=None, what="tensor"):
    """`shape` as a list of ints that a .twl tensor can hold: static,
    each dim in 0..2^31-1 and, given a dtype, at most 2 GiB of data;
    ConversionError naming the tensor otherwise."""
    dims = []
    for d in shape:
        try:
            dims.append(int(d))
        except (TypeError, ValueError):
            raise ConversionError(f"{what} '{name}': shape {list(shape)} is not static") from None
    if any(d < 0 for d in dims):
        raise ConversionError(f"{what} '{name}': shape {dims} is not static")
    for i, d in enumerate(dims):
        if d > MAX_DIM:
            raise ConversionError(f"{what} '{name}': dimension {i} is {d}; .twl dimensions are int32 (0..{MAX_DIM})")
    if dtype is not None:
        nbytes = int(np.prod(dims, dtype=object)) * np.dtype(dtype).itemsize
        if nbytes > MAX_TENSOR_BYTES:
            raise ConversionError(
                f"{what} '{name}': shape {dims} of {np.dtype(dtype)} needs {nbytes} bytes, over the lite "
                f"runtime's limit of {MAX_TENSOR_BYTES} bytes per tensor"
            )
    return dims


def _camel(snake):
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_"))


# The most inputs (or outputs) one lite operator takes (lite/runtime/interpreter.cc kMaxNodeTensors).
MAX_OPERANDS = 16


class Tensor:
    __slots__ = ("buffer", "dtype", "name", "shape", "signature")

    def __init__(self, name, shape, dtype, buffer, signature):
        self.name, self.shape, self.dtype = name, list(shape), np.dtype(dtype)
        self.buffer, self.signature = buffer, signature


class TwlModelBuilder:
    """A .twl model being assembled: tensors, buffers, operators, I/O."""

    def __init__(self, description="", subgraph_name="main"):
        self.tensors = []
        self.buffers = [b""]  # buffer 0: the empty sentinel
        self.operators = []  # (opcode name, inputs, outputs, options)
        self.inputs, self.outputs = [], []
        self.signature_inputs, self.signature_outputs = [], []  # (name, index)
        self.metadata = {}
        self.description = description
        self.subgraph_name = subgraph_name
        self._names = set()
        self._constants = {}  # (dtype, shape, bytes) -> tensor index

    # --- tensors --------------------------------------------------------------
    def unique_name(self, name):
        return unique_name(self._names, name)

    def add_tensor(self, name, shape, dtype, signature=None):
        """A non-constant tensor; returns its index."""
        tensor_type(dtype)
        shape = checked_shape(name, shape)
        if signature is not None:
            signature = [int(d) for d in signature]
            if len(signature) != len(shape) or signature == shape:
                signature = None
        self.tensors.append(Tensor(self.unique_name(name), shape, dtype, 0, signature))
        return len(self.tensors) - 1

    def add_constant(self, name, value, dtype=None):
        """A constant tensor holding `value` (identical constants are shared)."""
        arr = np.asarray(value, dtype=dtype)
        tensor_type(arr.dtype)
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        key = (arr.dtype.str, arr.shape, data)
        if key in self._constants:
            return self._constants[key]
        if not data:
            # An empty buffer means "no data" in the format.
            raise ConversionError(f"constant '{name}' has no elements (shape {list(arr.shape)})")
        self.buffers.append(data)
        self.tensors.append(Tensor(self.unique_name(name), arr.shape, arr.dtype, len(self.buffers) - 1, None))
        index = len(self.tensors) - 1
        self._constants[key] = index
        return index

    def add_input(self, name, shape, dtype, signature=None):
        index = self.add_tensor(name, shape, dtype, signature)
        self.inputs.append(index)
        self.signature_inputs.append((name, index))
        return index

    def add_output(self, name, index):
        self.outputs.append(index)
        self.signature_outputs.append((name, index))

    def add_op(self, opcode, inputs, outputs, options=None, version=1):
        """`opcode` a BuiltinOperator name; `options` (table name, {field: value}). A CONCATENATION of more
        inputs than a lite op takes (MAX_OPERANDS) is written as a tree of concatenations, a SPLIT into more
        outputs as a tree of splits."""
        twl_schema.enum("BuiltinOperator").__dict__[opcode]  # KeyError on typos
        if opcode == "CONCATENATION" and len(inputs) > MAX_OPERANDS:
            inputs = [
                self._concatenated(inputs[i : i + MAX_OPERANDS], options) for i in range(0, len(inputs), MAX_OPERANDS)
            ]
            return self.add_op(opcode, inputs, outputs, options, version)
        if opcode == "SPLIT" and len(outputs) > MAX_OPERANDS:
            return self._split_in_chunks(inputs, outputs, options)
        self.operators.append((opcode, list(inputs), list(outputs), options, version))

    def _split_in_chunks(self, inputs, outputs, options):
        """SPLIT of input 0 by the constant sizes of input 1 into `outputs` (more than MAX_OPERANDS), as a SPLIT
        into chunks of up to MAX_OPERANDS outputs' worth (itself a tree when there are more chunks than that), then
        a SPLIT of each chunk (a chunk of one output is that output)."""
        x, sizes_index = inputs
        sizes_tensor = self.tensors[sizes_index]
        sizes = np.frombuffer(self.buffers[sizes_tensor.buffer], sizes_tensor.dtype.newbyteorder("<")).tolist()
        source = self.tensors[x]
        axis = options[1]["axis"] % len(source.shape)
        chunks = [
            (outputs[i : i + MAX_OPERANDS], sizes[i : i + MAX_OPERANDS]) for i in range(0, len(outputs), MAX_OPERANDS)
        ]
        parts = []
        for chunk, chunk_sizes in chunks:
            if len(chunk) == 1:
                parts.append(chunk[0])
                continue
            shape = list(source.shape)
            shape[axis] = sum(chunk_sizes)
            signature = None
            if source.signature:
                signature = list(source.signature)
                signature[axis] = shape[axis]
            parts.append(self.add_tensor(f"{source.name}/split_part", shape, source.dtype, signature))
        totals = self.add_constant(f"{source.name}/split_part_sizes", [sum(c[1]) for c in chunks], sizes_tensor.dtype)
        self.add_op("SPLIT", [x, totals], parts, options)
        for part, (chunk, chunk_sizes) in zip(parts, chunks):
            if len(chunk) > 1:
                split = self.add_constant(f"{source.name}/split_sizes", chunk_sizes, sizes_tensor.dtype)
                self.add_op("SPLIT", [part, split], chunk, options)

    def _concatenated(self, inputs, options):
        """One tensor: `inputs` concatenated along the options' axis (itself when there is one)."""
        if len(inputs) == 1:
            return inputs[0]
        parts = [self.tensors[i] for i in inputs]
        first = parts[0]
        axis = options[1]["axis"] % len(first.shape)
        shape = list(first.shape)
        shape[axis] = sum(t.shape[axis] for t in parts)
        signature = None
        if any(t.signature for t in parts):
            signature = list(first.signature or first.shape)
            sizes = [(t.signature or t.shape)[axis] for t in parts]
            signature[axis] = -1 if -1 in sizes else sum(sizes)
        out = self.add_tensor(f"{first.name}/concat_part", shape, first.dtype, signature)
        self.operators.append(("CONCATENATION", list(inputs), [out], options, 1))
        return out

    def tensor(self, index):
        return self.tensors[index]

    def rename(self, index, name):
        """Names tensor `index` `name` unless a tensor has that name already
        (a model output named as its signature key, where it can be); its
        old name is free again."""
        tensor = self.tensors[index]
        if tensor.name != name and name not in self._names:
            self._names.discard(tensor.name)
            tensor.name = name
            self._names.add(name)

    # --- serialization ------------------------------------------------------------
    def serialize(self, checksum=True):
        """The model as .twl bytes, with the integrity trailer unless
        `checksum` is False."""
        s = twl_schema
        b = flatbuffers.Builder(1024 + sum(len(d) + BUFFER_ALIGNMENT for d in self.buffers))

        buffers = [self._write_buffer(b, data) for data in self.buffers]
        tensors = [self._write_tensor(b, t) for t in self.tensors]
        operators = [self._write_operator(b, *op) for op in self.operators]

        m = s.module("SubGraph")
        t_vec = self._offsets(b, m.SubGraphStartTensorsVector, tensors)
        i_vec = self._ints(b, m.SubGraphStartInputsVector, self.inputs)
        o_vec = self._ints(b, m.SubGraphStartOutputsVector, self.outputs)
        op_vec = self._offsets(b, m.SubGraphStartOperatorsVector, operators)
        name = b.CreateString(self.subgraph_name)
        m.SubGraphStart(b)
        m.SubGraphAddTensors(b, t_vec)
        m.SubGraphAddInputs(b, i_vec)
        m.SubGraphAddOutputs(b, o_vec)
        m.SubGraphAddOperators(b, op_vec)
        m.SubGraphAddName(b, name)
        subgraph = m.SubGraphEnd(b)

        signature = self._write_signature(b)
        metadata = []
        for key, value in self.metadata.items():
            k, v = b.CreateString(key), b.CreateString(value)
            md = s.module("Metadata")
            md.MetadataStart(b)
            md.MetadataAddKey(b, k)
            md.MetadataAddValue(b, v)
            metadata.append(md.MetadataEnd(b))

        m = s.module("Model")
        sg_vec = self._offsets(b, m.ModelStartSubgraphsVector, [subgraph])
        buf_vec = self._offsets(b, m.ModelStartBuffersVector, buffers)
        sig_vec = self._offsets(b, m.ModelStartSignatureDefsVector, [signature])
        md_vec = self._offsets(b, m.ModelStartMetadataVector, metadata)
        description = b.CreateString(self.description)
        m.ModelStart(b)
        m.ModelAddVersion(b, SCHEMA_VERSION)
        m.ModelAddSubgraphs(b, sg_vec)
        m.ModelAddBuffers(b, buf_vec)
        m.ModelAddSignatureDefs(b, sig_vec)
        m.ModelAddMetadata(b, md_vec)
        m.ModelAddDescription(b, description)
        model = m.ModelEnd(b)
        b.Finish(model, file_identifier=b"TWL1")
        data = bytes(b.Output())
        return add_integrity_trailer(data) if checksum else data

    @staticmethod
    def _offsets(b, start, offsets):
        start(b, len(offsets))
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    @staticmethod
    def _ints(b, start, values):
        """A vector of int32, or of float64 for a float64 numpy array."""
        start(b, len(values))
        if isinstance(values, np.ndarray) and values.dtype == np.float64:
            for v in reversed(values):
                b.PrependFloat64(float(v))
        else:
            for v in reversed(values):
                b.PrependInt32(int(v))
        return b.EndVector()

    @staticmethod
    def _write_buffer(b, data):
        m = twl_schema.module("Buffer")
        vec = None
        if data:
            # force_align: 64 (the generated Python code aligns to 1 only).
            b.StartVector(1, len(data), BUFFER_ALIGNMENT)
            b.head -= len(data)
            b.Bytes[b.head : b.head + len(data)] = data
            vec = b.EndVector()
        m.BufferStart(b)
        if vec is not None:
            m.BufferAddData(b, vec)
        return m.BufferEnd(b)

    def _write_tensor(self, b, t):
        m = twl_schema.module("Tensor")
        shape = self._ints(b, m.TensorStartShapeVector, t.shape)
        sig = self._ints(b, m.TensorStartShapeSignatureVector, t.signature) if t.signature else None
        name = b.CreateString(t.name)
        m.TensorStart(b)
        m.TensorAddShape(b, shape)
        m.TensorAddType(b, getattr(twl_schema.enum("TensorType"), tensor_type(t.dtype)))
        m.TensorAddBuffer(b, t.buffer)
        m.TensorAddName(b, name)
        if sig is not None:
            m.TensorAddShapeSignature(b, sig)
        return m.TensorEnd(b)

    def _write_options(self, b, table, fields):
        m = twl_schema.module(table)
        vectors = {}
        for field, value in fields.items():
            if isinstance(value, (list, tuple, np.ndarray)):
                start = getattr(m, f"{table}Start{_camel(field)}Vector")
                vectors[field] = self._ints(b, start, value)
        getattr(m, f"{table}Start")(b)
        for field, value in fields.items():
            add = getattr(m, f"{table}Add{_camel(field)}", None)
            if add is None:
                raise ConversionError(f"{table} has no field '{field}'")
            if field in vectors:
                value = vectors[field]
            elif isinstance(value, str):
                value = getattr(twl_schema.enum(_ENUM_FIELDS[field]), value)
            elif isinstance(value, (bool, np.bool_)):
                value = bool(value)
            add(b, value)
        return getattr(m, f"{table}End")(b)

    def _write_operator(self, b, opcode, inputs, outputs, options, version):
        m = twl_schema.module("Operator")
        opts = None
        if options is not None:
            table, fields = options
            opts = self._write_options(b, table, fields)
        i_vec = self._ints(b, m.OperatorStartInputsVector, inputs)
        o_vec = self._ints(b, m.OperatorStartOutputsVector, outputs)
        m.OperatorStart(b)
        m.OperatorAddOpcode(b, getattr(twl_schema.enum("BuiltinOperator"), opcode))
        m.OperatorAddVersion(b, version)
        m.OperatorAddInputs(b, i_vec)
        m.OperatorAddOutputs(b, o_vec)
        if opts is not None:
            m.OperatorAddBuiltinOptionsType(b, getattr(twl_schema.enum("BuiltinOptions"), options[0]))
            m.OperatorAddBuiltinOptions(b, opts)
        return m.OperatorEnd(b)

    def _write_signature(self, b):
        def tensor_maps(start, items):
            offsets = []
            tm = twl_schema.module("TensorMap")
            for name, index in items:
                n = b.CreateString(name)
                tm.TensorMapStart(b)
                tm.TensorMapAddName(b, n)
                tm.TensorMapAddTensorIndex(b, index)
                offsets.append(tm.TensorMapEnd(b))
            return self._offsets(b, start, offsets)

        m = twl_schema.module("SignatureDef")
        ins = tensor_maps(m.SignatureDefStartInputsVector, self.signature_inputs)
        outs = tensor_maps(m.SignatureDefStartOutputsVector, self.signature_outputs)
        key = b.CreateString("serving_default")
        m.SignatureDefStart(b)
        m.SignatureDefAddSignatureKey(b, key)
        m.SignatureDefAddInputs(b, ins)
        m.SignatureDefAddOutputs(b, outs)
        m.SignatureDefAddSubgraphIndex(b, 0)
        return m.SignatureDefEnd(b)


def read_model(data):
    """The generated `Model` reader over .twl bytes (for inspection and tests)."""
    if len(data) < 8 or data[4:8] != b"TWL1":
        raise ConversionError("not a .twl file (no TWL1 identifier)")
    return twl_schema.module("Model").Model.GetRootAs(data, 0)
