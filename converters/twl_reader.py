"""Reads a .twl model back into a `TwlModelBuilder` (converters/twl_writer.py)
so that passes over whole models (post-training quantization,
converters/ptq.py) can edit and re-serialize it.

Only what the writer writes is read: one subgraph, the "serving_default"
signature, metadata and the description. Option tables come back as
(table name, {field: value}) with every field the table has (the writer
accepts enum values as ints).

Example:
  >>> import numpy as np
  >>> from converters.twl_writer import TwlModelBuilder
  >>> from converters.twl_reader import read_builder
  >>> m = TwlModelBuilder()
  >>> x = m.add_input("x", [1, 2], np.float32)
  >>> y = m.add_tensor("y", [1, 2], np.float32)
  >>> m.add_op("RELU", [x], [y])
  >>> m.add_output("y", y)
  >>> read_builder(m.serialize()).operators
  [('RELU', [0], [1], None, 1)]
"""

import re

import numpy as np

from converters import twl_schema, twl_writer
from converters.errors import ConversionError

_NUMPY_OF_TYPE = {v: k for k, v in twl_writer.TENSOR_TYPES.items()}


def _snake(camel):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def _enum_names(name):
    cls = twl_schema.enum(name)
    return {v: k for k, v in vars(cls).items() if not k.startswith("_")}


def _read_options(op, options_names):
    kind = op.BuiltinOptionsType()
    if kind == 0:
        return None
    table = options_names[kind]
    cls = getattr(twl_schema.module(table), table)
    obj = cls()
    t = op.BuiltinOptions()
    obj.Init(t.Bytes, t.Pos)
    prefix = f"{table}Add"
    fields = {}
    for fn in dir(twl_schema.module(table)):
        if not fn.startswith(prefix):
            continue
        camel = fn[len(prefix) :]
        if hasattr(obj, f"{camel}Length"):
            if getattr(obj, f"{camel}IsNone")():
                continue
            fields[_snake(camel)] = getattr(obj, f"{camel}AsNumpy")().copy()
        else:
            fields[_snake(camel)] = getattr(obj, camel)()
    return table, fields


def read_builder(data):
    """A TwlModelBuilder holding the model in `data` (.twl bytes, with or
    without the integrity trailer)."""
    model = twl_writer.read_model(data)
    if model.SubgraphsLength() != 1:
        raise ConversionError(f"the model has {model.SubgraphsLength()} subgraphs; only one is supported here")
    g = model.Subgraphs(0)
    type_names = _enum_names("TensorType")
    op_names = _enum_names("BuiltinOperator")
    options_names = _enum_names("BuiltinOptions")
    m = twl_writer.TwlModelBuilder(
        description=(model.Description() or b"").decode(), subgraph_name=(g.Name() or b"").decode()
    )
    for i in range(1, model.BuffersLength()):
        b = model.Buffers(i)
        m.buffers.append(b"" if b.DataIsNone() else b.DataAsNumpy().tobytes())
    for i in range(g.TensorsLength()):
        t = g.Tensors(i)
        dtype = _NUMPY_OF_TYPE[type_names[t.Type()]]
        shape = [int(d) for d in t.ShapeAsNumpy()] if not t.ShapeIsNone() else []
        sig = None if t.ShapeSignatureIsNone() else [int(d) for d in t.ShapeSignatureAsNumpy()]
        name = t.Name().decode()
        m.tensors.append(twl_writer.Tensor(name, shape, dtype, t.Buffer(), sig))
        m._names.add(name)
    for i in range(g.OperatorsLength()):
        op = g.Operators(i)
        ins = [int(v) for v in op.InputsAsNumpy()] if not op.InputsIsNone() else []
        outs = [int(v) for v in op.OutputsAsNumpy()] if not op.OutputsIsNone() else []
        m.operators.append((op_names[op.Opcode()], ins, outs, _read_options(op, options_names), op.Version()))
    m.inputs = [int(v) for v in g.InputsAsNumpy()] if not g.InputsIsNone() else []
    m.outputs = [int(v) for v in g.OutputsAsNumpy()] if not g.OutputsIsNone() else []
    if model.SignatureDefsLength():
        sig = model.SignatureDefs(0)
        m.signature_inputs = [
            (sig.Inputs(i).Name().decode(), sig.Inputs(i).TensorIndex()) for i in range(sig.InputsLength())
        ]
        m.signature_outputs = [
            (sig.Outputs(i).Name().decode(), sig.Outputs(i).TensorIndex()) for i in range(sig.OutputsLength())
        ]
    else:
        m.signature_inputs = [(m.tensors[i].name, i) for i in m.inputs]
        m.signature_outputs = [(m.tensors[i].name, i) for i in m.outputs]
    for i in range(model.MetadataLength()):
        md = model.Metadata(i)
        m.metadata[md.Key().decode()] = md.Value().decode()
    return m


def constant(m, index):
    """The value of constant tensor `index` of builder `m` (None if it is not
    a constant)."""
    t = m.tensors[index]
    if not t.buffer or not m.buffers[t.buffer]:
        return None
    return np.frombuffer(m.buffers[t.buffer], t.dtype.newbyteorder("<")).astype(t.dtype).reshape(t.shape)
