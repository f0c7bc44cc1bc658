"""Writes .twl models for the tests with the `flatbuffers` Python package.

The schema's Python code is generated at import time with `flatc --python`
into a temporary directory (never checked in), as //lite/schema:twl_py does.

    writer = ModelWriter()
    x = writer.add_tensor("x", np.float32, [1, 4], shape_signature=[-1, 4])
    w = writer.add_constant("w", weights)
    y = writer.add_tensor("y", np.float32, [1, 3])
    writer.add_operator("FULLY_CONNECTED", [x, w, -1], [y],
                        ("FullyConnectedOptions", {"FusedActivationFunction": 1}))
    writer.set_io([x], [y])
    data = writer.finish()   # bytes
"""

import atexit
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

import flatbuffers
import numpy as np

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCHEMA = os.environ.get("TWL_SCHEMA", os.path.join(_ROOT, "lite", "schema", "twl.fbs"))

_DTYPE_CODES = {
    np.dtype(np.float32): 0,
    np.dtype(np.int32): 1,
    np.dtype(np.int64): 2,
    np.dtype(np.uint8): 3,
    np.dtype(np.int8): 4,
    np.dtype(np.bool_): 5,
}


def _generate_schema_module():
    out = tempfile.mkdtemp(prefix="twl_py_")
    atexit.register(shutil.rmtree, out, True)
    subprocess.check_call(["flatc", "--python", "-o", out, SCHEMA])
    open(os.path.join(out, "twl", "__init__.py"), "a").close()
    sys.path.insert(0, out)
    names = [
        "Model",
        "SubGraph",
        "Tensor",
        "Buffer",
        "Operator",
        "SignatureDef",
        "TensorMap",
        "Metadata",
        "BuiltinOperator",
        "BuiltinOptions",
    ]
    return {n: importlib.import_module("twl.schema." + n) for n in names}


_S = _generate_schema_module()
BUILTIN_OPERATOR = _S["BuiltinOperator"].BuiltinOperator
BUILTIN_OPTIONS = _S["BuiltinOptions"].BuiltinOptions


def _module(name):
    if name not in _S:
        _S[name] = importlib.import_module("twl.schema." + name)
    return _S[name]


class ModelWriter:
    def __init__(self, version=1):
        self.version = version
        self.tensors = []  # (name, dtype code, shape, signature, buffer)
        self.buffers = [b""]  # buffer 0: the empty sentinel
        self.operators = []  # (opcode, inputs, outputs, options, version)
        self.inputs, self.outputs = [], []
        self.signatures = []  # (key, [(name, idx)], [(name, idx)])
        self.metadata = []
        self.description = ""

    def add_tensor(self, name, dtype, shape, shape_signature=None, buffer=0):
        self.tensors.append((name, _DTYPE_CODES[np.dtype(dtype)], list(shape), shape_signature, buffer))
        return len(self.tensors) - 1

    def add_constant(self, name, value):
        value = np.ascontiguousarray(value)
        self.buffers.append(value.tobytes())
        return self.add_tensor(name, value.dtype, value.shape, buffer=len(self.buffers) - 1)

    def add_operator(self, opcode, inputs, outputs, options=None, version=1):
        """`options`: (options table name, {field: value}) or None."""
        self.operators.append((getattr(BUILTIN_OPERATOR, opcode), inputs, outputs, options, version))

    def set_io(self, inputs, outputs):
        self.inputs, self.outputs = list(inputs), list(outputs)

    def add_signature(self, key, inputs, outputs):
        self.signatures.append((key, list(inputs.items()), list(outputs.items())))

    # -- serialization --------------------------------------------------------

    def finish(self):
        b = flatbuffers.Builder(1024)
        M, SG, T, B, O = (_S[n] for n in ("Model", "SubGraph", "Tensor", "Buffer", "Operator"))

        def ints(values):
            return b.CreateNumpyVector(np.asarray(values, dtype=np.int32))

        def offsets(items):
            b.StartVector(4, len(items), 4)
            for item in reversed(items):
                b.PrependUOffsetTRelative(item)
            return b.EndVector()

        buffer_offsets = []
        for data in self.buffers:
            vector = None
            if data:
                # force_align: 64, as the generated C++ CreateBuffer does.
                b.StartVector(1, len(data), 64)
                b.head -= len(data)
                b.Bytes[b.head : b.head + len(data)] = data
                vector = b.EndVector()
            B.BufferStart(b)
            if vector is not None:
                B.BufferAddData(b, vector)
            buffer_offsets.append(B.BufferEnd(b))

        tensor_offsets = []
        for name, code, shape, signature, buffer in self.tensors:
            name_off = b.CreateString(name)
            shape_off = ints(shape)
            sig_off = ints(signature) if signature is not None else None
            T.TensorStart(b)
            T.TensorAddShape(b, shape_off)
            T.TensorAddType(b, code)
            T.TensorAddBuffer(b, buffer)
            T.TensorAddName(b, name_off)
            if sig_off is not None:
                T.TensorAddShapeSignature(b, sig_off)
            tensor_offsets.append(T.TensorEnd(b))

        op_offsets = []
        for opcode, inputs, outputs, options, version in self.operators:
            in_off, out_off = ints(inputs), ints(outputs)
            opt_off, opt_type = None, 0
            if options is not None:
                table, fields = options
                mod = _module(table)
                list_fields = {k: ints(v) for k, v in fields.items() if isinstance(v, (list, tuple))}
                getattr(mod, table + "Start")(b)
                for field, value in fields.items():
                    getattr(mod, table + "Add" + field)(b, list_fields.get(field, value))
                opt_off = getattr(mod, table + "End")(b)
                opt_type = getattr(BUILTIN_OPTIONS, table)
            O.OperatorStart(b)
            O.OperatorAddOpcode(b, opcode)
            O.OperatorAddVersion(b, version)
            O.OperatorAddInputs(b, in_off)
            O.OperatorAddOutputs(b, out_off)
            if opt_off is not None:
                O.OperatorAddBuiltinOptionsType(b, opt_type)
                O.OperatorAddBuiltinOptions(b, opt_off)
            op_offsets.append(O.OperatorEnd(b))

        tensors_vec, ops_vec = offsets(tensor_offsets), offsets(op_offsets)
        in_vec, out_vec = ints(self.inputs), ints(self.outputs)
        name_off = b.CreateString("main")
        SG.SubGraphStart(b)
        SG.SubGraphAddTensors(b, tensors_vec)
        SG.SubGraphAddInputs(b, in_vec)
        SG.SubGraphAddOutputs(b, out_vec)
        SG.SubGraphAddOperators(b, ops_vec)
        SG.SubGraphAddName(b, name_off)
        subgraphs_vec = offsets([SG.SubGraphEnd(b)])
        buffers_vec = offsets(buffer_offsets)

        sig_offsets = []
        for key, inputs, outputs in self.signatures:
            maps = []
            for entries in (inputs, outputs):
                tm = _S["TensorMap"]
                offs = []
                for name, index in entries:
                    n = b.CreateString(name)
                    tm.TensorMapStart(b)
                    tm.TensorMapAddName(b, n)
                    tm.TensorMapAddTensorIndex(b, index)
                    offs.append(tm.TensorMapEnd(b))
                maps.append(offsets(offs))
            key_off = b.CreateString(key)
            sd = _S["SignatureDef"]
            sd.SignatureDefStart(b)
            sd.SignatureDefAddSignatureKey(b, key_off)
            sd.SignatureDefAddInputs(b, maps[0])
            sd.SignatureDefAddOutputs(b, maps[1])
            sd.SignatureDefAddSubgraphIndex(b, 0)
            sig_offsets.append(sd.SignatureDefEnd(b))
        sigs_vec = offsets(sig_offsets)

        meta_offsets = []
        for key, value in self.metadata:
            k, v = b.CreateString(key), b.CreateString(value)
            md = _S["Metadata"]
            md.MetadataStart(b)
            md.MetadataAddKey(b, k)
            md.MetadataAddValue(b, v)
            meta_offsets.append(md.MetadataEnd(b))
        meta_vec = offsets(meta_offsets)
        desc = b.CreateString(self.description)

        M.ModelStart(b)
        M.ModelAddVersion(b, self.version)
        M.ModelAddSubgraphs(b, subgraphs_vec)
        M.ModelAddBuffers(b, buffers_vec)
        M.ModelAddSignatureDefs(b, sigs_vec)
        M.ModelAddMetadata(b, meta_vec)
        M.ModelAddDescription(b, desc)
        b.Finish(M.ModelEnd(b), file_identifier=b"TWL1")
        return bytes(b.Output())


# -- the models the tests use ----------------------------------------------

RELU = 1


def mlp(sizes=(4, 3, 2), batch=1, seed=0):
    """x [batch, sizes[0]] -> (FC + relu)* -> FC -> softmax -> probs, with
    signature serving_default {x} -> {probs}. Returns (bytes, weights)."""
    rng = np.random.default_rng(seed)
    w = ModelWriter()
    w.description = "test mlp"
    w.metadata.append(("producer", "tensorweave-lite tests"))
    x = w.add_tensor("input", np.float32, [batch, sizes[0]], shape_signature=[-1, sizes[0]])
    current, params = x, []
    for layer, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        weights = rng.uniform(-1, 1, (n_out, n_in)).astype(np.float32)
        bias = rng.uniform(-1, 1, (n_out,)).astype(np.float32)
        params.append((weights, bias))
        wi = w.add_constant(f"dense{layer}/w", weights)
        bi = w.add_constant(f"dense{layer}/b", bias)
        out = w.add_tensor(f"dense{layer}", np.float32, [batch, n_out], shape_signature=[-1, n_out])
        last = layer == len(sizes) - 2
        w.add_operator(
            "FULLY_CONNECTED",
            [current, wi, bi],
            [out],
            ("FullyConnectedOptions", {"FusedActivationFunction": 0 if last else RELU}),
        )
        current = out
    probs = w.add_tensor("probs", np.float32, [batch, sizes[-1]], shape_signature=[-1, sizes[-1]])
    w.add_operator("SOFTMAX", [current], [probs], ("SoftmaxOptions", {"Beta": 1.0}))
    w.set_io([x], [probs])
    w.add_signature("serving_default", {"x": x}, {"probs": probs})
    return w.finish(), params


def mlp_reference(x, params):
    h = x.astype(np.float64)
    for i, (weights, bias) in enumerate(params):
        h = h @ weights.T.astype(np.float64) + bias
        if i < len(params) - 1:
            h = np.maximum(h, 0)
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def two_outputs(dtype=np.float32, shape=(2, 3)):
    """a, b -> sum_relu = relu(a + b) (just a + b for integers),
    diff = a - b. No signature."""
    w = ModelWriter()
    a = w.add_tensor("a", dtype, shape)
    b = w.add_tensor("b", dtype, shape)
    s = w.add_tensor("sum_relu", dtype, shape)
    d = w.add_tensor("diff", dtype, shape)
    act = RELU if np.dtype(dtype) == np.float32 else 0
    w.add_operator("ADD", [a, b], [s], ("ArithmeticOptions", {"FusedActivationFunction": act}))
    w.add_operator("SUB", [a, b], [d])
    w.set_io([a, b], [s, d])
    return w.finish()
