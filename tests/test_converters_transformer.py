"""Transformer encoders from ONNX on the lite runtime: each new op
(LayerNormalization, Erf, Gelu exact/tanh), the patterns the importer fuses
(PyTorch's Erf-GELU, the ReduceMean LayerNorm chain, MatMul + bias, GELU
after a linear layer as FULLY_CONNECTED's fused activation), the
attention ops (4-d MatMul, last-axis Softmax, head Reshape/Transpose,
additive masks), embedding Gather, and a whole 4-layer encoder, each
against onnxruntime."""

import collections
import contextlib

import numpy as np
import pytest
import transformer_models
from onnx import TensorProto, helper, numpy_helper

from converters import lite_runner, onnx_import, twl_reader, twl_schema, twl_writer
from converters.errors import ConversionError
from converters.onnx_import import fusion

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4


def _ops(data):
    m = twl_writer.read_model(data)
    g = m.Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return collections.Counter(names[g.Operators(i).Opcode()] for i in range(g.OperatorsLength()))


def _fc_activations(data):
    """The fused activation names of the FULLY_CONNECTED ops, in order."""
    names = {v: k for k, v in vars(twl_schema.enum("ActivationFunctionType")).items() if not k.startswith("_")}
    ops = twl_reader.read_builder(data).operators
    return [names[o[3][1].get("fused_activation_function", 0)] for o in ops if o[0] == "FULLY_CONNECTED"]


def _model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in inits],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _compare(model, feeds, threads=(1, 2)):
    """Runs `model` on onnxruntime and (converted) on the lite runtime with 1
    and 2 threads; returns the .twl bytes."""
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    data = onnx_import.convert(model)
    names = [o.name for o in model.graph.output]
    for n in threads:
        got = lite_runner.LiteRunner(data, num_threads=n).run(feeds)
        for name, w in zip(names, want):
            np.testing.assert_allclose(got[name], w, rtol=RTOL, atol=ATOL, err_msg=f"{name}, {n} threads")
    return data


def _x(shape, seed=0, scale=2.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale + 0.3).astype(np.float32)


# --- single ops -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape,axis,bias,eps",
    [
        ([2, 7, 64], -1, True, 1e-5),
        ([3, 10], -1, False, 1e-3),
        ([2, 3, 4, 5], 2, True, 1e-12),
        ([4, 6, 8], 1, True, 0.0),
    ],
)
def test_layer_normalization(shape, axis, bias, eps):
    norm = shape[axis % len(shape) :]
    inits = [("scale", _x(norm, 1)), ("bias", _x(norm, 2))]
    inputs = ["x", "scale", "bias"] if bias else ["x", "scale"]
    node = helper.make_node("LayerNormalization", inputs, ["y"], axis=axis, epsilon=eps)
    data = _compare(_model([node], [("x", shape)], ["y"], inits if bias else inits[:1]), {"x": _x(shape)})
    assert _ops(data) == {"LAYER_NORM": 1}


def test_layer_normalization_broadcast_scale():
    node = helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=1)
    inits = [("scale", _x([1, 5], 1)), ("bias", np.float32([0.5]))]
    _compare(_model([node], [("x", [3, 4, 5])], ["y"], inits), {"x": _x([3, 4, 5])})


def test_layer_normalization_refusals_name_the_node():
    node = helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln2", axis=-1)
    m = _model([node], [("x", [2, 4]), ("s", [3, 4])], ["y"])
    with pytest.raises(ConversionError, match=r"'ln2' \(LayerNormalization\): a computed scale or bias must have"):
        onnx_import.convert(m)


def test_erf():
    x = np.concatenate([np.linspace(-6, 6, 1201), [0.0, 1e-8, -30, 30]]).astype(np.float32).reshape(1, -1)
    m = _model([helper.make_node("Erf", ["x"], ["y"])], [("x", list(x.shape))], ["y"], opset=13)
    data = _compare(m, {"x": x})
    assert _ops(data) == {"ERF": 1}
    got = lite_runner.LiteRunner(data).run({"x": x})["y"]
    from math import erf

    np.testing.assert_allclose(got[0], [erf(float(v)) for v in x[0]], rtol=0, atol=3e-7)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_op(approximate):
    x = _x([2, 16, 96], 3)
    m = _model([helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)], [("x", [2, 16, 96])], ["y"], opset=20)
    data = _compare(m, {"x": x})
    assert _ops(data) == {"GELU": 1}


def test_gelu_bad_approximate_is_refused():
    m = _model([helper.make_node("Gelu", ["x"], ["y"], name="g", approximate="fast")], [("x", [2])], ["y"], opset=20)
    with pytest.raises(ConversionError, match=r"'g' \(Gelu\)"):
        onnx_import.convert(m)


def _gelu_pattern(order):
    """PyTorch's exact GELU export, in three spellings."""
    c = [("sqrt2", np.float32(np.sqrt(2))), ("one", np.float32(1)), ("half", np.float32(0.5))]
    c.append(("rsqrt2", np.float32(1 / np.sqrt(2))))
    n = helper.make_node
    if order == "torch":  # ((x * (erf(x / sqrt2) + 1)) * 0.5
        nodes = [n("Div", ["x", "sqrt2"], ["d"]), n("Erf", ["d"], ["e"]), n("Add", ["e", "one"], ["a"])]
        nodes += [n("Mul", ["x", "a"], ["m"]), n("Mul", ["m", "half"], ["y"])]
    elif order == "half_first":  # (0.5 * x) * (1 + erf(0.7071 * x))
        nodes = [n("Mul", ["half", "x"], ["h"]), n("Mul", ["rsqrt2", "x"], ["d"]), n("Erf", ["d"], ["e"])]
        nodes += [n("Add", ["one", "e"], ["a"]), n("Mul", ["h", "a"], ["y"])]
    else:  # the erf used elsewhere too: no fusion
        nodes = [n("Div", ["x", "sqrt2"], ["d"]), n("Erf", ["d"], ["e"]), n("Add", ["e", "one"], ["a"])]
        nodes += [n("Mul", ["x", "a"], ["m"]), n("Mul", ["m", "half"], ["y"]), n("Neg", ["e"], ["z"])]
    outputs = ["y", "z"] if order == "shared" else ["y"]
    return _model([helper.make_node("Relu", ["in"], ["x"])] + nodes, [("in", [4, 50])], outputs, c, opset=13)


@pytest.mark.parametrize("order", ["torch", "half_first", "shared"])
def test_erf_gelu_pattern_is_fused(order):
    data = _compare(_gelu_pattern(order), {"in": _x([4, 50], 4)})
    ops = _ops(data)
    if order == "shared":
        assert ops["GELU"] == 0 and ops["ERF"] == 1
    else:
        assert ops == {"RELU": 1, "GELU": 1}


def _layer_norm_chain(opset, gamma=True, beta=True, square="Pow"):
    n = helper.make_node
    axes_attr = {"axes": [-1]} if opset < 18 else {}
    ax = ["axes"] if opset >= 18 else []
    nodes = [n("ReduceMean", ["x"] + ax, ["m"], **axes_attr), n("Sub", ["x", "m"], ["d"])]
    nodes.append(n("Pow", ["d", "two"], ["sq"]) if square == "Pow" else n("Mul", ["d", "d"], ["sq"]))
    nodes += [n("ReduceMean", ["sq"] + ax, ["v"], **axes_attr), n("Add", ["v", "eps"], ["ve"])]
    nodes += [n("Sqrt", ["ve"], ["s"]), n("Div", ["d", "s"], ["y0"])]
    out = "y0"
    if gamma:
        nodes.append(n("Mul", ["y0", "gamma"], ["y1"]))
        out = "y1"
    if beta:
        nodes.append(n("Add", [out, "beta"], ["y2"]))
        out = "y2"
    nodes.append(n("Identity", [out], ["y"]))
    inits = [("two", np.float32(2)), ("eps", np.float32(1e-6)), ("gamma", _x([32], 5)), ("beta", _x([32], 6))]
    inits.append(("axes", np.array([-1], np.int64)))
    return _model(nodes, [("x", [2, 9, 32])], ["y"], inits, opset=opset)


@pytest.mark.parametrize(
    "opset,gamma,beta,square",
    [
        (13, True, True, "Pow"),
        (18, True, True, "Mul"),
        (13, False, True, "Pow"),
        (13, True, False, "Pow"),
        (17, False, False, "Mul"),
    ],
)
def test_reduce_mean_chain_is_folded_into_layer_norm(opset, gamma, beta, square):
    data = _compare(_layer_norm_chain(opset, gamma, beta, square), {"x": _x([2, 9, 32], 7)})
    assert _ops(data) == {"LAYER_NORM": 1}


def test_matmul_bias_becomes_fully_connected_bias():
    n = helper.make_node
    nodes = [n("MatMul", ["x", "w"], ["h"]), n("Add", ["b", "h"], ["y"])]
    m = _model(nodes, [("x", [2, 5, 16])], ["y"], [("w", _x([16, 8], 8)), ("b", _x([8], 9))], opset=13)
    assert _ops(_compare(m, {"x": _x([2, 5, 16])})) == {"FULLY_CONNECTED": 1}


def _linear_gelu(gelu, rank=3, shared=False):
    """MatMul + bias Add (or Gemm, rank 2) then GELU: the Gelu op (exact or
    tanh) or PyTorch's Erf pattern. `shared`: the linear output is also a
    graph output, so nothing may be fused into the FULLY_CONNECTED."""
    n = helper.make_node
    if rank == 2:
        nodes = [n("Gemm", ["x", "w", "b"], ["h"])]
        shape = [6, 48]
    else:
        nodes = [n("MatMul", ["x", "w"], ["hm"]), n("Add", ["hm", "b"], ["h"])]
        shape = [2, 5, 48]
    inits = [("w", _x([48, 40], 10, 0.3)), ("b", _x([40], 11))]
    if gelu == "erf":
        inits += [("sqrt2", np.float32(np.sqrt(2))), ("one", np.float32(1)), ("half", np.float32(0.5))]
        nodes += [n("Div", ["h", "sqrt2"], ["d"]), n("Erf", ["d"], ["e"]), n("Add", ["e", "one"], ["a"])]
        nodes += [n("Mul", ["h", "a"], ["m"]), n("Mul", ["m", "half"], ["y"])]
    else:
        nodes.append(n("Gelu", ["h"], ["y"], approximate=gelu))
    outputs = ["y", "h"] if shared else ["y"]
    return _model(nodes, [("x", shape)], outputs, inits, opset=13 if gelu == "erf" else 20), shape


@pytest.mark.parametrize(
    "gelu,rank,want", [("erf", 3, "GELU"), ("none", 3, "GELU"), ("tanh", 3, "GELU_TANH"), ("tanh", 2, "GELU_TANH")]
)
def test_gelu_after_linear_is_fused_into_fully_connected(gelu, rank, want):
    model, shape = _linear_gelu(gelu, rank)
    data = _compare(model, {"x": _x(shape, 12)})
    assert _ops(data) == {"FULLY_CONNECTED": 1}
    assert _fc_activations(data) == [want]


def test_gelu_on_a_shared_linear_output_stays_an_op():
    model, shape = _linear_gelu("tanh", shared=True)
    data = _compare(model, {"x": _x(shape, 13)})
    assert _ops(data) == {"FULLY_CONNECTED": 1, "GELU": 1}
    assert _fc_activations(data) == ["NONE"]


def test_attention_block():
    """4-d MatMuls, head Reshape/Transpose, scaled scores, additive mask,
    last-axis Softmax."""
    n = helper.make_node
    nodes = [
        n("Reshape", ["q", "split"], ["q4"]),
        n("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
        n("Reshape", ["k", "split"], ["k4"]),
        n("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
        n("Reshape", ["v", "split"], ["v4"]),
        n("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
        n("MatMul", ["qh", "kt"], ["s"]),
        n("Div", ["s", "scale"], ["ss"]),
        n("Add", ["ss", "mask"], ["sm"]),
        n("Softmax", ["sm"], ["p"], axis=-1),
        n("MatMul", ["p", "vh"], ["c"]),
        n("Transpose", ["c"], ["ct"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ct", "merge"], ["y"]),
    ]
    inits = [("split", np.array([2, 10, 4, 8], np.int64)), ("merge", np.array([2, 10, 32], np.int64))]
    inits.append(("scale", np.float32(np.sqrt(8))))
    shapes = [("q", [2, 10, 32]), ("k", [2, 10, 32]), ("v", [2, 10, 32]), ("mask", [2, 1, 1, 10])]
    mask = np.zeros([2, 1, 1, 10], np.float32)
    mask[1, ..., 7:] = -10000
    feeds = {"q": _x([2, 10, 32], 1), "k": _x([2, 10, 32], 2), "v": _x([2, 10, 32], 3), "mask": mask}
    data = _compare(_model(nodes, shapes, ["y"], inits, opset=13), feeds)
    # fused: the head Transposes, both MatMuls, the scale, mask and Softmax
    assert _ops(data) == {"ATTENTION": 1, "RESHAPE": 4}
    with _attention_fusion(False):  # the decomposed ops, as before
        data = _compare(_model(nodes, shapes, ["y"], inits, opset=13), feeds)
    assert _ops(data)["BATCH_MATMUL"] == 2 and _ops(data)["SOFTMAX"] == 1


@contextlib.contextmanager
def _attention_fusion(on):
    saved, fusion.ATTENTION = fusion.ATTENTION, on
    try:
        yield
    finally:
        fusion.ATTENTION = saved


def _attention_variant(scale_op, mask, heads_in, out_transpose, extra_output=None, heads=4, q_len=9, kv_len=11):
    """Scores MatMul(Q, K^T) [scale_op c] [+ mask, either order], Softmax,
    MatMul(., V) [Transpose]; `heads_in`: "bshd" (Q, K, V [B, S, H, D]
    transposed in the graph), "bhsd" (given per head, K transposed with
    perm 0, 1, 3, 2) or "kt" (K^T given as an input)."""
    n = helper.make_node
    d = 8
    nodes, shapes = [], []
    if heads_in == "bshd":
        shapes += [("q", [2, q_len, heads, d]), ("k", [2, kv_len, heads, d]), ("v", [2, kv_len, heads, d])]
        nodes += [n("Transpose", ["q"], ["qh"], perm=[0, 2, 1, 3]), n("Transpose", ["k"], ["kt"], perm=[0, 2, 3, 1])]
        nodes.append(n("Transpose", ["v"], ["vh"], perm=[0, 2, 1, 3]))
    else:
        shapes += [("qh", [2, heads, q_len, d]), ("vh", [2, heads, kv_len, d])]
        if heads_in == "bhsd":
            shapes.append(("k", [2, heads, kv_len, d]))
            nodes.append(n("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]))
        else:
            shapes.append(("kt", [2, heads, d, kv_len]))
    nodes.append(n("MatMul", ["qh", "kt"], ["s"]))
    inits, scores = [], "s"
    if scale_op:
        inits.append(("c", np.float32(np.sqrt(d) if scale_op == "Div" else 1 / np.sqrt(d))))
        nodes.append(n(scale_op, ["s", "c"], ["ss"]))
        scores = "ss"
    if mask:
        shapes.append(("mask", mask))
        nodes.append(n("Add", [scores, "mask"] if scale_op == "Mul" else ["mask", scores], ["sm"]))
        scores = "sm"
    nodes += [n("Softmax", [scores], ["p"], axis=-1), n("MatMul", ["p", "vh"], ["c4"])]
    nodes.append(n("Transpose", ["c4"], ["y"], perm=[0, 2, 1, 3]) if out_transpose else n("Identity", ["c4"], ["y"]))
    outputs = ["y"] + ([extra_output] if extra_output else [])
    feeds = {name: _x(shape, i + 1, 1.0) for i, (name, shape) in enumerate(shapes)}
    if mask:
        feeds["mask"] = np.where(_x(mask, 9) > 1.5, np.float32(-10000), np.float32(0)).astype(np.float32)
    return _model(nodes, shapes, outputs, inits, opset=13), feeds


@pytest.mark.parametrize(
    "scale_op,mask,heads_in,out_transpose",
    [
        ("Div", [2, 1, 1, 11], "bshd", True),
        ("Mul", [2, 4, 9, 11], "bhsd", False),
        (None, [9, 11], "kt", True),
        ("Div", None, "bshd", False),
        (None, None, "bhsd", True),
    ],
)
def test_attention_pattern_is_fused(scale_op, mask, heads_in, out_transpose):
    """Each form of the pattern is one ATTENTION op (the head Transposes
    taken in), matching onnxruntime and the decomposed ops at 1 and 2
    threads."""
    model, feeds = _attention_variant(scale_op, mask, heads_in, out_transpose)
    ops = _ops(_compare(model, feeds))
    assert ops["ATTENTION"] == 1 and not {"BATCH_MATMUL", "SOFTMAX", "TRANSPOSE"} & set(ops)
    with _attention_fusion(False):
        assert "ATTENTION" not in _ops(_compare(model, feeds))


def test_masked_fill_attention_is_fused():
    """masked_fill(mask == 0, -inf) before the Softmax (a row with every key
    masked is NaN in both), one ATTENTION op with the mask as its bias."""
    n = helper.make_node
    nodes = [
        n("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        n("MatMul", ["q", "kt"], ["s"]),
        n("Mul", ["s", "c"], ["ss"]),
        n("Equal", ["mask", "zero"], ["m"]),
        n("Where", ["m", "neg_inf", "ss"], ["sm"]),
        n("Softmax", ["sm"], ["p"], axis=-1),
        n("MatMul", ["p", "v"], ["y"]),
    ]
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(v, TensorProto.FLOAT, [2, 3, 5, 8]) for v in ("q", "k", "v")]
        + [helper.make_tensor_value_info("mask", TensorProto.INT64, [2, 1, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(np.array(0, np.int64), "zero"),
            numpy_helper.from_array(np.float32(-np.inf), "neg_inf"),
            numpy_helper.from_array(np.float32(0.35), "c"),
        ],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    mask = (np.random.default_rng(3).random([2, 1, 5, 5]) > 0.4).astype(np.int64)
    mask[1, 0, 2] = 0  # query 2 of batch 1 sees nothing
    feeds = {"q": _x([2, 3, 5, 8], 1), "k": _x([2, 3, 5, 8], 2), "v": _x([2, 3, 5, 8], 3), "mask": mask}
    data = _compare(m, feeds)
    assert _ops(data) == {"ATTENTION": 1, "EQUAL": 1, "SELECT": 1}
    got = lite_runner.LiteRunner(data).run(feeds)["y"]
    assert np.isnan(got[1, :, 2]).all() and not np.isnan(got[0]).any()


def test_attention_pattern_with_shared_scores_is_not_fused():
    """Scores that are also a graph output stay the decomposed ops."""
    model, feeds = _attention_variant("Div", [2, 1, 1, 11], "bshd", True, extra_output="ss")
    ops = _ops(_compare(model, feeds))
    assert "ATTENTION" not in ops and ops["SOFTMAX"] == 1


def test_embedding_gather():
    table = _x([50, 16], 1)
    g = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["y"])],
        "g",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(table, "table")],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    _compare(m, {"ids": np.array([[0, 49, 3, 3, 17, 8]], np.int64)})


def test_where_equal_mask():
    """masked_fill(mask == 0, -inf) as PyTorch exports it, then Softmax."""
    n = helper.make_node
    nodes = [
        n("Equal", ["mask", "zero"], ["c"]),
        n("Where", ["c", "neg_inf", "s"], ["sm"]),
        n("Softmax", ["sm"], ["y"], axis=-1),
    ]
    g = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 4, 6, 6]),
            helper.make_tensor_value_info("mask", TensorProto.INT64, [2, 1, 1, 6]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(np.array(0, np.int64), "zero"),
            numpy_helper.from_array(np.float32(-np.inf), "neg_inf"),
        ],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    mask = np.ones([2, 1, 1, 6], np.int64)
    mask[0, ..., 4:] = 0
    data = _compare(m, {"s": _x([2, 4, 6, 6]), "mask": mask})
    assert _ops(data) == {"EQUAL": 1, "SELECT": 1, "SOFTMAX": 1}


def test_where_needs_a_bool_condition():
    node = helper.make_node("Where", ["c", "x", "x"], ["y"], name="w")
    g = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(v, TensorProto.FLOAT, [2]) for v in ("c", "x")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(ConversionError):
        onnx_import.convert(m)


# --- the whole encoder ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "layer_norm,gelu,mask",
    [("op", "erf", True), ("chain", "erf", True), ("op", "op", "where"), ("chain", "tanh", "where")],
)
def test_text_encoder_matches_onnxruntime(layer_norm, gelu, mask):
    model = transformer_models.encoder(layers=4, layer_norm=layer_norm, gelu=gelu, mask=mask)
    data = _compare(model, transformer_models.feeds())
    ops = _ops(data)
    # every LayerNorm is one fused op; Linear biases are in FULLY_CONNECTED
    assert ops["LAYER_NORM"] == 9 and ops["FULLY_CONNECTED"] == 24
    # and each GELU is the epilogue of the FFN's first FULLY_CONNECTED
    assert "GELU" not in ops
    assert collections.Counter(_fc_activations(data)) == {
        "NONE": 20,
        "GELU_TANH" if gelu == "tanh" else "GELU": 4,
    }
    assert not {"ERF", "MEAN", "SQRT", "SQUARE", "POW"} & set(ops)
    # attention, with its additive or masked_fill mask, is one fused op per layer
    assert ops["ATTENTION"] == 4 and not {"BATCH_MATMUL", "SOFTMAX", "TRANSPOSE"} & set(ops)
    # a second input with other tokens and padding
    _compare(model, transformer_models.feeds(seed=5, padding=0), threads=(2,))
