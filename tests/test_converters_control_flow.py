"""ONNX control flow (If, Loop, Scan), Compress and the window functions
through the importer: the lite runtime has no subgraphs, so the converter
inlines a branch (or both, picking with Where), unrolls Loop and Scan, and
lowers Compress to Gather (of NonZero's indices when the condition is
computed). Every model is compared with onnxruntime; the cases it refuses
(a run-time trip count, branches of different shapes, over the unrolling
bound) must say why, naming the node."""

import io

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converters import lite_runner, onnx_import
from converters.errors import ConversionError
from converters.onnx_import import control_flow
from tests.onnx_lite_util import lite_op_counts, make_model

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

F = TensorProto.FLOAT


def _agree(model, feeds_list, rtol=1e-5, atol=1e-6):
    """Converts `model`, runs every feed on the lite runtime and on
    onnxruntime: same dtypes, shapes and values. Returns the .twl bytes."""
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    data = onnx_import.convert(model)
    runner = lite_runner.LiteRunner(data)
    for feeds in feeds_list:
        want = session.run(None, feeds)
        got = runner.run(feeds)
        for out, w in zip(model.graph.output, want):
            have = got[out.name]
            assert have.dtype == w.dtype and have.shape == w.shape, (out.name, have.dtype, have.shape, w.shape)
            np.testing.assert_allclose(have, w, rtol=rtol, atol=atol, err_msg=out.name)
    return data


def _graph(name, nodes, inputs, outputs, initializers=()):
    vi = helper.make_tensor_value_info
    return helper.make_graph(
        nodes,
        name,
        [vi(n, t, s) for n, t, s in inputs],
        [vi(n, t, s) for n, t, s in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers],
    )


def _branches(then_shape=(2, 3), else_shape=(2, 3)):
    # then: x * w (w an outer initializer); else: x - 1 (reshaped to else_shape).
    then_g = _graph("then", [helper.make_node("Mul", ["x", "w"], ["t"])], [], [("t", F, list(then_shape))])
    nodes = [helper.make_node("Sub", ["x", "one"], ["e0"])]
    if tuple(else_shape) != (2, 3):
        nodes.append(helper.make_node("Reshape", ["e0", "eshape"], ["e"]))
    else:
        nodes.append(helper.make_node("Identity", ["e0"], ["e"]))
    inits = [("one", np.array(1, np.float32)), ("eshape", np.array(else_shape, np.int64))]
    else_g = _graph("else", nodes, [], [("e", F, list(else_shape))], inits)
    return then_g, else_g


# --- If ---------------------------------------------------------------------------


def test_if_on_a_run_time_condition_computes_both_branches_and_selects():
    then_g, else_g = _branches()
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 3])],
        [("y", np.float32, [2, 3])],
        [("w", np.arange(6, dtype=np.float32).reshape(2, 3)), ("zero", np.array(0, np.float32))],
    )
    rng = np.random.default_rng(0)
    data = _agree(model, [{"x": np.abs(rng.standard_normal((2, 3))).astype(np.float32) * s} for s in (1, -1)])
    ops = lite_op_counts(data)
    assert ops["SELECT"] == 1 and ops["MUL"] == 1 and ops["SUB"] == 1


def test_if_on_a_one_element_vector_condition():
    # The condition may be [1]: it is reshaped to a scalar, so Where does not
    # broadcast the output to rank 1.
    then_g = _graph("then", [helper.make_node("Neg", ["x"], ["t"])], [], [("t", F, [])])
    else_g = _graph("else", [helper.make_node("Abs", ["x"], ["e"])], [], [("e", F, [])])
    model = make_model(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
        [("c", np.bool_, [1]), ("x", np.float32, [])],
        [("y", np.float32, [])],
    )
    feeds = [{"c": np.array([c]), "x": np.array(-2.5, np.float32)} for c in (True, False)]
    _agree(model, feeds)


def test_if_on_a_folded_condition_inlines_only_the_taken_branch():
    # The condition comes from x's static shape: only the taken branch is
    # converted, so the other may give another shape.
    then_g, else_g = _branches(else_shape=(3, 2))
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("ReduceProd", ["shape"], ["n"], keepdims=0),
        helper.make_node("Equal", ["n", "six"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 3])],
        [("y", np.float32, [2, 3])],
        [("w", np.full((2, 3), 3, np.float32)), ("six", np.array(6, np.int64))],
    )
    data = _agree(model, [{"x": np.arange(6, dtype=np.float32).reshape(2, 3)}])
    assert dict(lite_op_counts(data)) == {"MUL": 1}


def test_nested_if_reads_values_of_both_outer_scopes():
    inner_then = _graph("it", [helper.make_node("Add", ["x", "a"], ["r"])], [], [("r", F, [4])])
    inner_else = _graph("ie", [helper.make_node("Sub", ["x", "a"], ["r2"])], [], [("r2", F, [4])])
    outer_then = _graph(
        "ot",
        [
            helper.make_node("Mul", ["x", "x"], ["a"]),  # read by the inner branches
            helper.make_node("If", ["c2"], ["o"], then_branch=inner_then, else_branch=inner_else),
        ],
        [],
        [("o", F, [4])],
    )
    outer_else = _graph("oe", [helper.make_node("Neg", ["x"], ["o2"])], [], [("o2", F, [4])])
    model = make_model(
        [helper.make_node("If", ["c1"], ["y"], then_branch=outer_then, else_branch=outer_else)],
        [("c1", np.bool_, []), ("c2", np.bool_, []), ("x", np.float32, [4])],
        [("y", np.float32, [4])],
    )
    x = np.array([1, -2, 3, 0.5], np.float32)
    feeds = [{"c1": np.array(a), "c2": np.array(b), "x": x} for a in (True, False) for b in (True, False)]
    _agree(model, feeds)


def test_if_with_branches_of_different_shapes_on_a_run_time_condition_is_refused():
    then_g, else_g = _branches(else_shape=(3, 2))
    model = make_model(
        [helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then_g, else_branch=else_g)],
        [("c", np.bool_, []), ("x", np.float32, [2, 3])],
        [("y", np.float32, None)],
        [("w", np.ones((2, 3), np.float32))],
    )
    with pytest.raises(
        ConversionError,
        match=r"'pick' \(If\): its condition is not a constant and its branches give output 'y' as "
        r"float32\[2, 3\] and float32\[3, 2\]; .*picks one with Where",
    ):
        onnx_import.convert(model)


def test_if_with_branches_of_different_types_is_refused():
    then_g = _graph("then", [helper.make_node("Identity", ["x"], ["t"])], [], [("t", F, [2])])
    else_g = _graph("else", [helper.make_node("Cast", ["x"], ["e"], to=TensorProto.INT32)], [], [("e", 6, [2])])
    model = make_model(
        [helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then_g, else_branch=else_g)],
        [("c", np.bool_, []), ("x", np.float32, [2])],
        [("y", np.float32, None)],
    )
    with pytest.raises(ConversionError, match=r"'pick' \(If\): .*as float32\[2\] and int32\[2\]"):
        onnx_import.convert(model)


# --- Scan -------------------------------------------------------------------------


def _scan_body():
    # state s [2]; scan input x_t [2]; outputs: s + x_t * k (k outer), and s * x_t.
    return _graph(
        "body",
        [
            helper.make_node("Mul", ["xt", "k"], ["scaled"]),
            helper.make_node("Add", ["s", "scaled"], ["s_out"]),
            helper.make_node("Mul", ["s", "xt"], ["y"]),
        ],
        [("s", F, [2]), ("xt", F, [2])],
        [("s_out", F, [2]), ("y", F, [2])],
    )


@pytest.mark.parametrize("reverse_in, reverse_out", [(0, 0), (1, 0), (0, 1)])
def test_scan_unrolls_over_axes_and_directions(reverse_in, reverse_out):
    node = helper.make_node(
        "Scan",
        ["init", "x"],
        ["final", "ys"],
        body=_scan_body(),
        num_scan_inputs=1,
        scan_input_axes=[1],
        scan_input_directions=[reverse_in],
        scan_output_axes=[-1],
        scan_output_directions=[reverse_out],
    )
    model = make_model(
        [node],
        [("init", np.float32, [2]), ("x", np.float32, [2, 5])],
        [("final", np.float32, [2]), ("ys", np.float32, [2, 5])],
        [("k", np.array([0.5, 2], np.float32))],
        opset=17,
    )
    rng = np.random.default_rng(1)
    feeds = {"init": rng.standard_normal(2).astype(np.float32), "x": rng.standard_normal((2, 5)).astype(np.float32)}
    _agree(model, [feeds])


def test_scan_opset8_unrolls_each_batch_element():
    # The body reads k, an input of the outer graph.
    node = helper.make_node("Scan", ["", "init", "x"], ["final", "ys"], body=_scan_body(), num_scan_inputs=1)
    model = make_model(
        [node],
        [("init", np.float32, [3, 2]), ("x", np.float32, [3, 4, 2]), ("k", np.float32, [2])],
        [("final", np.float32, [3, 2]), ("ys", np.float32, [3, 4, 2])],
        opset=8,
        ir_version=3,
    )
    rng = np.random.default_rng(2)
    feeds = {
        "init": rng.standard_normal((3, 2)).astype(np.float32),
        "x": rng.standard_normal((3, 4, 2)).astype(np.float32),
        "k": np.array([1.5, -1], np.float32),
    }
    _agree(model, [feeds])


def test_scan_over_the_iteration_bound_or_of_a_symbolic_length_is_refused():
    def scan(length):
        node = helper.make_node(
            "Scan", ["init", "x"], ["final", "ys"], name="rnn", body=_scan_body(), num_scan_inputs=1
        )
        return make_model(
            [node],
            [("init", np.float32, [2]), ("x", np.float32, [length, 2])],
            [("final", np.float32, [2]), ("ys", np.float32, None)],
            [("k", np.ones(2, np.float32))],
        )

    limit = control_flow.MAX_ITERATIONS
    with pytest.raises(ConversionError, match=rf"'rnn' \(Scan\): {limit + 1} iterations, over the limit of {limit}"):
        onnx_import.convert(scan(limit + 1))
    with pytest.raises(ConversionError, match=r"'rnn' \(Scan\): axis 0 of 'x' is symbolic: the sequence length must"):
        onnx_import.convert(scan("T"))


def test_the_lowered_node_budget_is_enforced(monkeypatch):
    monkeypatch.setattr(control_flow, "MAX_LOWERED_NODES", 20)
    node = helper.make_node("Scan", ["init", "x"], ["final", "ys"], name="rnn", body=_scan_body(), num_scan_inputs=1)
    model = make_model(
        [node],
        [("init", np.float32, [2]), ("x", np.float32, [8, 2])],
        [("final", np.float32, [2]), ("ys", np.float32, None)],
        [("k", np.ones(2, np.float32))],
    )
    with pytest.raises(ConversionError, match=r"'rnn' \(Scan\): unrolling it makes the lowered graph over 20 nodes"):
        onnx_import.convert(model)


# --- Loop -------------------------------------------------------------------------


def _loop_body(cond_node):
    # carried acc [3]; scan output: acc; acc_out = acc * 0.5 + x[i] (x outer).
    return _graph(
        "body",
        [
            helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
            helper.make_node("Mul", ["acc", "half"], ["decayed"]),
            helper.make_node("Add", ["decayed", "row"], ["acc_out"]),
            helper.make_node("Identity", ["acc_out"], ["seen"]),
            cond_node,
        ],
        [("i", TensorProto.INT64, []), ("cond", TensorProto.BOOL, []), ("acc", F, [3])],
        [("cond_out", TensorProto.BOOL, []), ("acc_out", F, [3]), ("seen", F, [3])],
        [("half", np.array(0.5, np.float32))],
    )


def _loop_model(trip, cond, body, x_rows=6, trip_input=False):
    inits = [("acc0", np.zeros(3, np.float32))]
    inputs = [("x", np.float32, [x_rows, 3])]
    if trip is not None:
        if trip_input:
            inputs.append(("trip", np.int64, []))
        else:
            inits.append(("trip", np.array(trip, np.int64)))
    if cond is not None:
        inits.append(("cond0", np.array(cond)))
    node = helper.make_node(
        "Loop",
        ["trip" if trip is not None else "", "cond0" if cond is not None else "", "acc0"],
        ["acc", "rows"],
        name="loop",
        body=body,
    )
    return make_model([node], inputs, [("acc", np.float32, [3]), ("rows", np.float32, None)], inits)


def _x(rows=6):
    return {"x": np.random.default_rng(3).standard_normal((rows, 3)).astype(np.float32)}


def test_loop_with_a_constant_trip_count_unrolls():
    body = _loop_body(helper.make_node("Identity", ["cond"], ["cond_out"]))
    _agree(_loop_model(4, True, body), [_x()])
    _agree(_loop_model(5, None, body), [_x()])  # for loop: no condition


def test_while_loop_whose_condition_folds_every_iteration():
    # cond_out = i + 1 < 3: three iterations, under a huge trip count (as
    # PyTorch exports a while loop).
    body = _loop_body(helper.make_node("Less", ["next_i", "three"], ["cond_out"]))
    body.node.insert(0, helper.make_node("Add", ["i", "one"], ["next_i"]))
    body.initializer.extend(
        [numpy_helper.from_array(np.array(1, np.int64), "one"), numpy_helper.from_array(np.array(3, np.int64), "three")]
    )
    model = _loop_model(2**63 - 1, True, body)
    data = _agree(model, [_x()])
    assert lite_op_counts(data)["CONCATENATION"] == 1
    # A condition false from the start: no iteration, acc is its initial value.
    body2 = _loop_body(helper.make_node("Identity", ["cond"], ["cond_out"]))
    body2.output.pop()  # no scan output (it would be empty)
    model = _loop_model(10, False, body2)
    model.graph.output.pop()
    model.graph.node[0].output.pop()
    _agree(model, [_x()])


def test_loop_whose_trip_count_or_condition_is_known_only_at_run_time_is_refused():
    body = _loop_body(helper.make_node("Identity", ["cond"], ["cond_out"]))
    with pytest.raises(
        ConversionError,
        match=r"'loop' \(Loop\): its trip count 'trip' is not a constant: the number of iterations depends on values "
        r"known only at run time",
    ):
        onnx_import.convert(_loop_model(4, True, body, trip_input=True))
    # The condition reads x: it folds in no iteration.
    body = _loop_body(helper.make_node("Greater", ["acc_out_sum", "zero"], ["cond_out"]))
    body.node.insert(3, helper.make_node("ReduceSum", ["acc_out"], ["acc_out_sum"], keepdims=0))
    body.initializer.append(numpy_helper.from_array(np.array(0, np.float32), "zero"))
    with pytest.raises(
        ConversionError, match=r"'loop' \(Loop\): its condition 'cond_out' does not fold to a constant in iteration 0"
    ):
        onnx_import.convert(_loop_model(4, True, body))


def test_loop_over_the_iteration_bound_is_refused():
    limit = control_flow.MAX_ITERATIONS
    body = _loop_body(helper.make_node("Identity", ["cond"], ["cond_out"]))
    with pytest.raises(ConversionError, match=rf"'loop' \(Loop\): {limit + 1} iterations, over the limit of {limit}"):
        onnx_import.convert(_loop_model(limit + 1, None, body))
    # A while loop whose condition stays true.
    with pytest.raises(ConversionError, match=rf"'loop' \(Loop\): its condition holds after {limit} iterations"):
        onnx_import.convert(_loop_model(None, True, body))


def test_pytorch_scripted_if_and_loops():
    torch = pytest.importorskip("torch")

    class Model(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                y = x * 2
            else:
                y = x - 1
            for i in range(x.size(0)):
                y = y * 0.5 + x[i]
            k = 0
            while k < 3:
                y = torch.tanh(y) + x
                k += 1
            return y

    f = io.BytesIO()
    torch.onnx.export(
        torch.jit.script(Model()), (torch.randn(4, 3),), f, dynamo=False, opset_version=17, input_names=["x"]
    )
    from onnx import load_from_string

    model = load_from_string(f.getvalue())
    ops = {n.op_type for n in model.graph.node}
    assert {"If", "Loop"} <= ops
    rng = np.random.default_rng(4)
    _agree(model, [{"x": (np.abs(rng.standard_normal((4, 3))) * s).astype(np.float32)} for s in (1, -1)], rtol=1e-5)


# --- Compress and the window functions --------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_compress_on_a_run_time_condition(axis):
    kwargs = {} if axis is None else {"axis": axis}
    n = 12 if axis is None else 4
    model = make_model(
        [helper.make_node("Compress", ["x", "c"], ["y"], **kwargs)],
        [("x", np.float32, [3, 4]), ("c", np.bool_, [n])],
        [("y", np.float32, None)],
    )
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    feeds = [{"x": x, "c": rng.random(n) < p} for p in (0.5, 1.0, 0.2, 0.0)]  # 0.0: an empty output
    if axis == 0:
        model.graph.input[1].type.tensor_type.shape.dim[0].dim_value = 3
        feeds = [{"x": x, "c": np.array(c)} for c in ([True, False, True], [False, True, False])]
    data = _agree(model, feeds)
    assert lite_op_counts(data)["NON_ZERO"] == 1


def test_compress_on_a_constant_condition_gathers_constant_indices():
    model = make_model(
        [helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
        [("x", np.float32, [2, 5])],
        [("y", np.float32, [2, 2])],
        [("c", np.array([False, True, False, True]))],  # shorter than the axis: the rest is dropped
    )
    data = _agree(model, [{"x": np.arange(10, dtype=np.float32).reshape(2, 5)}])
    assert dict(lite_op_counts(data)) == {"GATHER": 1}
    model.graph.initializer[0].CopyFrom(numpy_helper.from_array(np.zeros(6, bool), "c"))
    with pytest.raises(ConversionError, match=r"'y' \(Compress\): the condition has 6 elements, more than the 5"):
        onnx_import.convert(model)


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
def test_window_functions_fold_to_constants(op):
    for periodic in (0, 1):
        model = make_model(
            [helper.make_node(op, ["n"], ["w"], periodic=periodic), helper.make_node("Mul", ["x", "w"], ["y"])],
            [("x", np.float32, [16])],
            [("y", np.float32, [16])],
            [("n", np.array(16, np.int32))],
            opset=17,
        )
        data = _agree(model, [{"x": np.linspace(-1, 1, 16, dtype=np.float32)}])
        assert dict(lite_op_counts(data)) == {"MUL": 1}


def test_a_window_of_a_run_time_size_is_refused():
    model = make_model(
        [helper.make_node("HannWindow", ["n"], ["w"], name="win")],
        [("n", np.int32, [])],
        [("w", np.float32, None)],
        opset=17,
    )
    with pytest.raises(ConversionError, match=r"'win' \(HannWindow\): its inputs must be constants .*'n' is computed"):
        onnx_import.convert(model)


def test_mel_weight_matrix_folds():
    args = [("bins", np.array(8, np.int64)), ("dft", np.array(64, np.int64)), ("rate", np.array(8000, np.int64))]
    args += [("lo", np.array(20.0, np.float32)), ("hi", np.array(3000.0, np.float32))]
    model = make_model(
        [
            helper.make_node("MelWeightMatrix", [a for a, _ in args], ["mel"]),
            helper.make_node("MatMul", ["spec", "mel"], ["y"]),
        ],
        [("spec", np.float32, [2, 33])],
        [("y", np.float32, [2, 8])],
        args,
        opset=17,
    )
    _agree(model, [{"spec": np.random.default_rng(6).random((2, 33)).astype(np.float32)}], rtol=1e-4, atol=1e-5)


def test_if_inside_a_loop_on_the_iteration_number_folds_after_unrolling():
    # Each unrolled copy's condition (i < 2) folds in the next pass: only the
    # taken branch of each copy is converted (no SELECT).
    then_g = _graph("then", [helper.make_node("Add", ["acc", "x"], ["t"])], [], [("t", F, [3])])
    else_g = _graph("else", [helper.make_node("Mul", ["acc", "x"], ["e"])], [], [("e", F, [3])])
    body = _graph(
        "body",
        [
            helper.make_node("Less", ["i", "two"], ["early"]),
            helper.make_node("If", ["early"], ["acc_out"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        [("i", TensorProto.INT64, []), ("cond", TensorProto.BOOL, []), ("acc", F, [3])],
        [("cond_out", TensorProto.BOOL, []), ("acc_out", F, [3])],
        [("two", np.array(2, np.int64))],
    )
    model = make_model(
        [helper.make_node("Loop", ["trip", "", "acc0"], ["acc"], body=body)],
        [("x", np.float32, [3])],
        [("acc", np.float32, [3])],
        [("trip", np.array(4, np.int64)), ("acc0", np.ones(3, np.float32))],
    )
    data = _agree(model, [{"x": np.array([0.5, -1, 2], np.float32)}])
    assert dict(lite_op_counts(data)) == {"ADD": 2, "MUL": 2}


def test_if_selecting_between_branches_of_a_symbolic_batch():
    # Both branches give [N, 3]: Where picks at every batch size.
    then_g = _graph("then", [helper.make_node("Neg", ["x"], ["a"])], [], [("a", F, ["N", 3])])
    else_g = _graph("else", [helper.make_node("Abs", ["x"], ["b"])], [], [("b", F, ["N", 3])])
    model = make_model(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
        [("c", np.bool_, []), ("x", np.float32, ["N", 3])],
        [("y", np.float32, ["N", 3])],
    )
    rng = np.random.default_rng(7)
    feeds = [
        {"c": np.array(c), "x": rng.standard_normal((n, 3)).astype(np.float32)} for n in (1, 4) for c in (True, False)
    ]
    _agree(model, feeds)
