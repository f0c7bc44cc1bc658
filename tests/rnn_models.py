"""ONNX LSTM/GRU models built with onnx.helper the way PyTorch's exporter
writes them (torch is not installed here): single nodes, and text
classifiers (embedding Gather -> 2-layer LSTM or GRU -> last layer's final
state -> Gemm). Shared by tests/test_converters_rnn.py and
benchmarks/lite_models.py.
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def _w(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def rnn_node_model(
    op,
    steps,
    batch,
    input_size,
    hidden,
    direction="forward",
    layout=0,
    bias=True,
    sequence_lens=False,
    initial=False,
    peepholes=False,
    opset=14,
    seed=0,
    time_major_equivalent=False,
    **attributes,
):
    """One LSTM/GRU/RNN node with random constant weights; X, sequence_lens and
    the initial states are graph inputs. Returns (model, feeds).

    `time_major_equivalent` (layout 1 only): the same function written as
    ONNX defines layout 1, a layout-0 node between Transposes, for
    onnxruntime, which refuses layout 1."""
    wrap = bool(layout) and time_major_equivalent
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    scale = 1 / np.sqrt(hidden)
    inits = {"W": _w(rng, [dirs, g * hidden, input_size], scale), "R": _w(rng, [dirs, g * hidden, hidden], scale)}
    if bias:
        inits["B"] = _w(rng, [dirs, 2 * g * hidden], scale)
    if peepholes:
        inits["P"] = _w(rng, [dirs, 3 * hidden], scale)
    x_shape = [batch, steps, input_size] if layout else [steps, batch, input_size]
    state = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    feeds = {"X": rng.standard_normal(x_shape).astype(np.float32)}
    vis = [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape)]
    names = ["X", "W", "R", "B" if bias else ""]
    if sequence_lens:
        feeds["sequence_lens"] = rng.integers(0, steps + 1, [batch]).astype(np.int32)
        feeds["sequence_lens"][0] = steps
        vis.append(helper.make_tensor_value_info("sequence_lens", TensorProto.INT32, [batch]))
    names.append("sequence_lens" if sequence_lens else "")
    state_names = ["initial_h", "initial_c"] if op == "LSTM" else ["initial_h"]
    for s in state_names:
        if initial:
            feeds[s] = rng.standard_normal(state).astype(np.float32) * 0.5
            vis.append(helper.make_tensor_value_info(s, TensorProto.FLOAT, state))
        names.append(s if initial else "")
    if op == "LSTM":
        names.append("P" if peepholes else "")
    while names[-1] == "":
        names.pop()
    outputs = ["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"]
    if opset >= 14:
        attributes["layout"] = 0 if wrap else layout
    nodes = []
    node_inputs, node_outputs = list(names), list(outputs)
    if wrap:
        for i, name in enumerate(names):
            if name in ["X"] + state_names:
                nodes.append(helper.make_node("Transpose", [name], [f"{name}_t"], perm=[1, 0, 2]))
                node_inputs[i] = f"{name}_t"
        node_outputs = [f"{o}_t" for o in outputs]
        for o in outputs:
            perm = [2, 0, 1, 3] if o == "Y" else [1, 0, 2]
            nodes.append(helper.make_node("Transpose", [f"{o}_t"], [o], perm=perm))
    node = helper.make_node(
        op, node_inputs, node_outputs, name="rnn", hidden_size=hidden, direction=direction, **attributes
    )
    graph = helper.make_graph(
        [node] + nodes,
        "g",
        vis,
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model, feeds


def classifier_model(
    op,
    vocab=1000,
    embed=64,
    hidden=128,
    layers=2,
    classes=10,
    batch=1,
    steps=32,
    bidirectional=False,
    seed=0,
    dynamic_batch=False,
):
    """A text classifier as torch.onnx.export writes `nn.Embedding ->
    nn.LSTM/GRU(batch_first=True, num_layers=layers) -> Linear(h_n[-1])`:
    Gather, Transpose to time-major, per layer an LSTM/GRU node whose
    initial states are Slices of one zeros constant and whose Y is
    Squeezed (bidirectional: Transposed and Reshaped) into the next layer's
    X, the layers' Y_h Concatenated into h_n, Gather(-1) and Gemm. GRU is
    exported with linear_before_reset=1. `dynamic_batch`: the batch dim is
    symbolic (dynamic_axes) and the zero initial states are made as the
    exporter then writes them, ConstantOfShape(Concat([L*D], Shape(ids)[0],
    [H])). Returns (model, feeds)."""
    rng = np.random.default_rng(seed)
    dirs = 2 if bidirectional else 1
    g = GATES[op]
    scale = 1 / np.sqrt(hidden)
    n = helper.make_node
    inits = {
        "embedding.weight": _w(rng, [vocab, embed], 1.0),
        "fc.weight": _w(rng, [classes, hidden * dirs], scale),
        "fc.bias": _w(rng, [classes], scale),
        "h0": np.zeros([layers * dirs, batch, hidden], np.float32),
        "axes1": np.array([1], np.int64),
        "last": np.array(-1, np.int64),
    }
    if bidirectional:
        # y.view(steps, batch, -1); a symbolic batch is kept by a 0 (copy the dim).
        inits["seq_shape"] = np.array([steps, 0 if dynamic_batch else batch, hidden * dirs], np.int64)
    nodes = [
        n("Gather", ["embedding.weight", "input_ids"], ["emb"], name="/embedding/Gather"),
        n("Transpose", ["emb"], ["x0"], perm=[1, 0, 2], name="/rnn/Transpose"),
    ]
    if dynamic_batch:
        del inits["h0"]
        inits["zero_idx"] = np.array(0, np.int64)
        inits["state_lead"] = np.array([layers * dirs], np.int64)
        inits["state_tail"] = np.array([hidden], np.int64)
        nodes += [
            n("Shape", ["input_ids"], ["ids_shape"]),
            n("Gather", ["ids_shape", "zero_idx"], ["batch_dim"], axis=0),
            n("Unsqueeze", ["batch_dim", "axes0_"], ["batch_1d"]),
            n("Concat", ["state_lead", "batch_1d", "state_tail"], ["state_shape"], axis=0),
            n(
                "ConstantOfShape",
                ["state_shape"],
                ["h0"],
                value=numpy_helper.from_array(np.zeros([1], np.float32)),
            ),
        ]
        inits["axes0_"] = np.array([0], np.int64)
    x, h_ns = "x0", []
    for layer in range(layers):
        in_size = embed if layer == 0 else hidden * dirs
        p = f"onnx::{op}_{layer}"
        inits[f"{p}_W"] = _w(rng, [dirs, g * hidden, in_size], scale)
        inits[f"{p}_R"] = _w(rng, [dirs, g * hidden, hidden], scale)
        inits[f"{p}_B"] = _w(rng, [dirs, 2 * g * hidden], scale)
        inits[f"starts{layer}"] = np.array([layer * dirs], np.int64)
        inits[f"ends{layer}"] = np.array([(layer + 1) * dirs], np.int64)
        inits["axes0"] = np.array([0], np.int64)
        nodes.append(n("Slice", ["h0", f"starts{layer}", f"ends{layer}", "axes0"], [f"h0_{layer}"]))
        ins = [x, f"{p}_W", f"{p}_R", f"{p}_B", "", f"h0_{layer}"]
        outs = [f"y{layer}", f"h_n{layer}"]
        attrs = {"linear_before_reset": 1} if op == "GRU" else {}
        if op == "LSTM":
            nodes.append(n("Slice", ["h0", f"starts{layer}", f"ends{layer}", "axes0"], [f"c0_{layer}"]))
            ins.append(f"c0_{layer}")
            outs.append(f"c_n{layer}")
        direction = "bidirectional" if bidirectional else "forward"
        nodes.append(n(op, ins, outs, name=f"/rnn/{op}_{layer}", hidden_size=hidden, direction=direction, **attrs))
        if bidirectional:
            nodes.append(n("Transpose", [f"y{layer}"], [f"yt{layer}"], perm=[0, 2, 1, 3]))
            nodes.append(n("Reshape", [f"yt{layer}", "seq_shape"], [f"x{layer + 1}"]))
        else:
            nodes.append(n("Squeeze", [f"y{layer}", "axes1"], [f"x{layer + 1}"]))
        x = f"x{layer + 1}"
        h_ns.append(f"h_n{layer}")
    nodes.append(n("Concat", h_ns, ["h_n"], axis=0))
    if bidirectional:  # torch.cat((h_n[-2], h_n[-1]), dim=1)
        inits["last2"] = np.array(-2, np.int64)
        nodes.append(n("Gather", ["h_n", "last2"], ["h_fwd"], axis=0))
        nodes.append(n("Gather", ["h_n", "last"], ["h_bwd"], axis=0))
        nodes.append(n("Concat", ["h_fwd", "h_bwd"], ["h_last"], axis=1))
    else:
        nodes.append(n("Gather", ["h_n", "last"], ["h_last"], axis=0))
    nodes.append(
        n("Gemm", ["h_last", "fc.weight", "fc.bias"], ["logits"], alpha=1.0, beta=1.0, transB=1, name="/fc/Gemm")
    )
    graph = helper.make_graph(
        nodes,
        "classifier",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch" if dynamic_batch else batch, steps])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch" if dynamic_batch else batch, classes])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    feeds = {"input_ids": rng.integers(0, vocab, [batch, steps]).astype(np.int64)}
    return model, feeds
