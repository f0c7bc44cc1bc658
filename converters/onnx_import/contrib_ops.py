"""onnxruntime's quantized contrib ops (domain com.microsoft), as
onnxruntime.quantization's quantize_static(QuantFormat.QOperator) writes
them, rewritten to standard ONNX before conversion: each dequantizes its
inputs (DequantizeLinear), applies the float op and quantizes its result
(QuantizeLinear), which is what onnxruntime's kernels compute up to the
rounding of one quantization step. The standard QDQ import then converts
them (constant weights fold to float).

  QLinearAdd, QLinearMul     Add, Mul
  QLinearSigmoid             Sigmoid
  QLinearLeakyRelu           LeakyRelu (alpha)
  QLinearSoftmax             Softmax (axis; opset < 13 semantics refused)
  QLinearConcat              Concat (axis)
  QLinearGlobalAveragePool   GlobalAveragePool (channels_last 0)
  QLinearAveragePool         AveragePool (its attributes; channels_last 0)
  QGemm                      Gemm (alpha, transA, transB; the int32 bias at
                             scale a_scale * b_scale; a float output when it
                             has no y_scale)
  QuantizeLinear, DequantizeLinear   the standard ops
"""

import onnx
from onnx import helper

from converters.errors import ConversionError

MS_DOMAIN = "com.microsoft"
_UNARY = {"QLinearSigmoid": "Sigmoid", "QLinearLeakyRelu": "LeakyRelu", "QLinearSoftmax": "Softmax"}
_POOLS = {"QLinearGlobalAveragePool": "GlobalAveragePool", "QLinearAveragePool": "AveragePool"}
REWRITTEN = {"QLinearAdd", "QLinearMul", "QLinearConcat", "QGemm", "QuantizeLinear", "DequantizeLinear"}
REWRITTEN |= set(_UNARY) | set(_POOLS)


def _arg(node, i):
    return node.input[i] if len(node.input) > i else ""


class _Rewriter:
    def __init__(self, node):
        self.node = node
        self.nodes = []
        self.count = 0

    def name(self, what):
        self.count += 1
        return f"{self.node.output[0]}/{what}{self.count}"

    def add(self, op, inputs, **kw):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **kw))
        return out

    def dequantize(self, x, scale, zero_point, axis=None):
        inputs = [x, scale] + ([zero_point] if zero_point else [])
        return self.add("DequantizeLinear", inputs, **({} if axis is None else {"axis": axis}))

    def quantize(self, x, scale, zero_point):
        inputs = [x, scale] + ([zero_point] if zero_point else [])
        self.nodes.append(helper.make_node("QuantizeLinear", inputs, [self.node.output[0]], name=self.node.name))


def _error(node, reason):
    return ConversionError(
        f"1 op cannot be converted to .twl: '{node.name or node.output[0]}' ({node.op_type}): {reason}"
    )


def _rewrite(node, ranks):
    """Standard ONNX nodes computing com.microsoft `node`."""
    r = _Rewriter(node)
    op, a = node.op_type, {x.name: helper.get_attribute_value(x) for x in node.attribute}
    if op in ("QuantizeLinear", "DequantizeLinear"):
        return [helper.make_node(op, node.input, node.output, name=node.name, **a)]
    if a.get("channels_last", 0):
        raise _error(node, "channels_last=1 (NHWC) is not supported; quantize with the default NCHW layout")
    if op in ("QLinearAdd", "QLinearMul"):
        x = r.dequantize(*node.input[0:3])
        y = r.dequantize(node.input[3], node.input[4], _arg(node, 5))
        r.quantize(r.add(op[len("QLinear") :], [x, y]), node.input[6], _arg(node, 7))
    elif op in _UNARY or op in _POOLS:
        attrs = {k: v for k, v in a.items() if k not in ("channels_last", "opset")}
        if op == "QLinearSoftmax" and a.get("opset", 13) < 13:
            raise _error(node, f"softmax of opset {a['opset']} (over the flattened trailing dims) is not supported")
        x = r.dequantize(node.input[0], node.input[1], _arg(node, 2))
        r.quantize(r.add(_UNARY.get(op) or _POOLS[op], [x], **attrs), node.input[3], _arg(node, 4))
    elif op == "QLinearConcat":
        parts = [r.dequantize(*node.input[i : i + 3]) for i in range(2, len(node.input), 3)]
        r.quantize(r.add("Concat", parts, axis=a["axis"]), node.input[0], node.input[1])
    elif op == "QGemm":
        trans_b = a.get("transB", 0)
        # A per-column b_scale runs along B's N dim: 0 when B is stored [N, K].
        axis = (0 if trans_b else 1) if ranks.get(node.input[4], 0) == 1 else None
        x = r.dequantize(*node.input[0:3])
        w = r.dequantize(node.input[3], node.input[4], _arg(node, 5), axis)
        bias = _arg(node, 6)
        kw = {"alpha": a.get("alpha", 1.0), "transA": a.get("transA", 0), "transB": trans_b}
        if bias:
            bias = r.dequantize(bias, r.add("Mul", [node.input[1], node.input[4]]), "", 0 if axis is not None else None)
        y = r.add("Gemm", [x, w] + ([bias] if bias else []), **kw)
        if _arg(node, 7):
            r.quantize(y, node.input[7], _arg(node, 8))
        else:
            r.nodes.append(helper.make_node("Identity", [y], node.output, name=node.name))
    else:
        raise _error(node, "no rewrite of this com.microsoft op")
    return r.nodes


def rewrite(model):
    """`model` with its com.microsoft quantized ops (REWRITTEN) as standard
    ONNX (a copy; `model` itself when it has none). Other com.microsoft ops
    are left for the domain check to name."""
    if not any(n.domain == MS_DOMAIN and n.op_type in REWRITTEN for n in model.graph.node):
        return model
    out = onnx.ModelProto()
    out.CopyFrom(model)
    ranks = {i.name: len(i.dims) for i in out.graph.initializer}
    nodes = []
    for node in out.graph.node:
        if node.domain == MS_DOMAIN and node.op_type in REWRITTEN:
            nodes.extend(_rewrite(node, ranks))
        else:
            nodes.append(node)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out
