"""float16 models computed in float32: the lite runtime stores float16 but
its kernels compute in float32 (as TensorFlow Lite runs float16 models), so
a model with float16 weights, inputs or outputs (onnxconverter_common's
convert_float_to_float16, a `.half()` PyTorch export, fp16 Cast chains of
mixed precision) is rewritten, before conversion, to compute in float32:

- float16 initializers and Constant / ConstantOfShape values widen to
  float32 (exactly);
- a float16 input is CAST to float32 where it is read; a float16 output is
  computed in float32 and CAST to float16 at the end (by model.py);
- Cast (and CastLike) to float16 keeps its rounding: a CAST to float16 and
  back, so values pass through float16 where the model rounds them; a
  Cast of a float16 value to another type casts from float16;
- ops making float16 by a `dtype` attribute (EyeLike, the random ops) make
  float32, and the value_info types follow.

What differs from a run in float16 is the rounding of each op's result
between the model's Casts: results are at least as exact as the float16
computation.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

_F16, _F32 = TensorProto.FLOAT16, TensorProto.FLOAT
_DTYPE_OPS = ("EyeLike", "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli")


def _elem_type(value_info):
    t = value_info.type
    return t.tensor_type.elem_type if t.HasField("tensor_type") else None


def _has_float16(model):
    g = model.graph
    if any(_elem_type(v) == _F16 for v in list(g.input) + list(g.output) + list(g.value_info)):
        return True
    if any(i.data_type == _F16 for i in g.initializer):
        return True
    for node in g.node:
        for a in node.attribute:
            if (a.type == onnx.AttributeProto.INT and a.i == _F16 and a.name in ("to", "dtype")) or (
                a.type == onnx.AttributeProto.TENSOR and a.t.data_type == _F16
            ):
                return True
    return False


def _widened_tensor(tensor):
    if tensor.data_type != _F16:
        return tensor
    return numpy_helper.from_array(numpy_helper.to_array(tensor).astype(np.float32), tensor.name)


def _float16_values(model):
    """The names of the values of type float16 in `model` (by onnx's shape
    inference where it can tell)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model).graph
    except Exception:  # noqa: BLE001 - the converter's own inference reports it
        inferred = model.graph
    values = list(inferred.input) + list(inferred.output) + list(inferred.value_info)
    names = {v.name for v in values if _elem_type(v) == _F16}
    return names | {i.name for i in model.graph.initializer if i.data_type == _F16}


def widen(model):
    """(`model` computing in float32 wherever it computes in float16 (a copy;
    `model` itself when it has no float16), the names of its float16 inputs,
    of its float16 outputs): those are declared float32 in the copy, for
    the caller to CAST at the boundary."""
    if not _has_float16(model):
        return model, set(), set()
    halves = _float16_values(model)
    out = onnx.ModelProto()
    out.CopyFrom(model)
    g = out.graph
    initializers = {i.name for i in g.initializer}
    boundary = [v for v in list(g.input) + list(g.output) if v.name not in initializers and _elem_type(v) == _F16]
    half_inputs = {v.name for v in g.input if v in boundary}
    half_outputs = {v.name for v in g.output if v in boundary}
    nodes = []
    for node in g.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                a.t.CopyFrom(_widened_tensor(a.t))
            elif a.name == "dtype" and node.op_type in _DTYPE_OPS and a.i == _F16:
                a.i = _F32
        if node.op_type == "CastLike" and len(node.input) > 1 and node.input[1] in halves:
            node = helper.make_node("Cast", node.input[:1], node.output, name=node.name, to=_F16)
        to = next((a.i for a in node.attribute if a.name == "to"), None) if node.op_type == "Cast" else None
        if to == _F16:  # rounds to float16, then back to the float32 the model now computes in
            rounded = f"{node.output[0]}/float16"
            nodes.append(helper.make_node("Cast", node.input[:1], [rounded], name=node.name, to=_F16))
            nodes.append(helper.make_node("Cast", [rounded], node.output[:1], to=_F32))
        elif to not in (None, _F32) and node.input[0] in halves:  # from float16, as the model casts it
            rounded = f"{node.input[0]}/float16"
            nodes.append(helper.make_node("Cast", node.input[:1], [rounded], to=_F16))
            nodes.append(helper.make_node("Cast", [rounded], node.output[:1], name=node.name, to=to))
        elif node.op_type == "CastLike" and node.input[0] in halves:
            rounded = f"{node.input[0]}/float16"
            nodes.append(helper.make_node("Cast", node.input[:1], [rounded], to=_F16))
            nodes.append(helper.make_node("CastLike", [rounded, node.input[1]], node.output, name=node.name))
        else:
            nodes.append(node)
    del g.node[:]
    g.node.extend(nodes)
    widened = [_widened_tensor(i) for i in g.initializer]
    del g.initializer[:]
    g.initializer.extend(widened)
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        if _elem_type(vi) == _F16:
            vi.type.tensor_type.elem_type = _F32
    return out, half_inputs, half_outputs
