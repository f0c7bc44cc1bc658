"""ONNX node conformance tests run through the importer and the lite runtime,
driven by data: `INCLUDE` lists the test-name prefixes of the supported ops,
`EXCLUDE` names each test left out with the reason.

The tests are onnx's own (`onnx/backend/test/data/node/test_*/model.onnx` +
`test_data_set_0/*.pb`). Wheels of onnx ship without that data, so when the
installed package lacks it, it is generated once from onnx's node test
cases (`onnx.backend.test.case.node`, what onnx's own data is made from)
into a cache directory ($ONNX_NODE_TEST_DATA, else
~/.cache/tensorweave/onnx-<version>-node).
"""

import dataclasses
import glob
import os
import re
import shutil
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

from converters.errors import ConversionError
from converters.lite_runner import LiteError

# Test-name prefixes of the ops the importer supports ("test_relu" also
# selects "test_relu_*").
INCLUDE = [
    "test_abs",
    "test_add",
    "test_batchnorm",
    "test_cast_FLOAT_to",
    "test_clip",
    "test_concat",
    "test_constant",
    "test_div",
    "test_equal",
    "test_erf",
    "test_exp",
    "test_flatten",
    "test_gather_",
    "test_gelu",
    "test_gemm",
    "test_globalaveragepool",
    "test_gru_",
    "test_identity",
    "test_layer_normalization",
    "test_log",
    "test_logsoftmax",
    "test_lstm_",
    "test_matmul",
    "test_max",
    "test_min",
    "test_mul",
    "test_neg",
    "test_reciprocal",
    "test_reduce_mean",
    "test_relu",
    "test_reshape",
    "test_rnn_seq_length",
    "test_sigmoid",
    "test_simple_rnn",
    "test_slice",
    "test_softmax",
    "test_sqrt",
    "test_squeeze",
    "test_sub",
    "test_tanh",
    "test_transpose",
    "test_unsqueeze",
    "test_where",
    # Comparisons, logic, bitwise ops, reductions, ArgMax/ArgMin.
    "test_and",
    "test_and2d",
    "test_and3d",
    "test_and4d",
    "test_argmax",
    "test_argmin",
    "test_bitshift",
    "test_bitwise",
    "test_globalmaxpool",
    "test_greater",
    "test_less",
    "test_not",
    "test_or",
    "test_or2d",
    "test_or3d",
    "test_or4d",
    "test_reduce_",
    "test_xor",
    "test_xor2d",
    "test_xor3d",
    "test_xor4d",
    # Conv, ConvTranspose, pools.
    "test_averagepool",
    "test_basic_conv",
    "test_conv",
    "test_convtranspose",
    "test_lppool",
    "test_maxpool",
]


@dataclasses.dataclass(frozen=True)
class Excluded:
    """A test left out: why, and the failure it must still end in (the error
    class and a regular expression its message matches), so that a test
    failing for another reason, or passing, is reported."""

    why: str
    error: type
    match: str


def _lacks_input_type(t):
    return Excluded(
        "the lite runtime has no such element type", ConversionError, rf"input '\w+' is {t}; the lite runtime lacks"
    )


def _lacks_cast_type(t):
    return Excluded(
        "the lite runtime has no such element type",
        ConversionError,
        rf"cast from float32 to {t}: the lite runtime lacks",
    )


def _no_small_int_math(opcode, t):
    return Excluded(
        "the lite arithmetic kernels take float32, int32 and int64 only",
        LiteError,
        rf"\({opcode}\): this op does not support {t}",
    )


def _no_lite_op(op):
    return Excluded(f"{op}: no lite op", ConversionError, rf"cannot be converted to \.twl: '\w+' \({op}\)$")


def _converter_refuses(why, match):
    return Excluded(why, ConversionError, match)


_ARITHMETIC = {"add": "ADD", "sub": "SUB", "mul": "MUL", "max": "MAXIMUM", "min": "MINIMUM"}
_TRUNCATING_DIV = _converter_refuses(
    "ONNX integer Div truncates; the lite DIV does not promise it", r"\(Div\): integer Div truncates in ONNX"
)
_ONE_D_MATMUL = _converter_refuses(
    "1-D MatMul operands: BATCH_MATMUL needs rank >= 2", r"1-D MatMul operands are not supported by BATCH_MATMUL"
)
_TRAINING_BATCH_NORM = _converter_refuses(
    "training-mode batch norm is not an inference op", r"training mode batch normalization cannot run at inference"
)
EXCLUDE = {
    # Element types: no float16/float64/int16/uint16/uint32/uint64/int2/int4
    # or float8 tensors in the lite runtime; no int8/uint8 arithmetic.
    **{
        f"test_{op}_{t}": _lacks_input_type(t)
        for op in ("add", "sub", "mul", "div", "max", "min")
        for t in ("int16", "uint16", "uint32", "uint64")
    },
    **{f"test_{op}_{t}": _lacks_input_type(t) for op in ("max", "min") for t in ("float16", "float64")},
    **{
        f"test_{op}_{t}": _no_small_int_math(opcode, t) for op, opcode in _ARITHMETIC.items() for t in ("int8", "uint8")
    },
    "test_div_int8": _TRUNCATING_DIV,
    "test_div_uint8": _TRUNCATING_DIV,
    "test_div_int32_trunc": _TRUNCATING_DIV,
    **{
        f"test_cast_FLOAT_to_{t}": _lacks_cast_type(dtype)
        for t, dtype in {
            "BFLOAT16": "bfloat16",
            "DOUBLE": "float64",
            "FLOAT16": "float16",
            "FLOAT4E2M1": "float4_e2m1fn",
            "FLOAT8E4M3FN": "float8_e4m3fn",
            "FLOAT8E4M3FNUZ": "float8_e4m3fnuz",
            "FLOAT8E5M2": "float8_e5m2",
            "FLOAT8E5M2FNUZ": "float8_e5m2fnuz",
            "INT2": "int2",
            "INT4": "int4",
            "UINT2": "uint2",
            "UINT4": "uint4",
        }.items()
    },
    "test_clip_default_int8_max": _no_small_int_math("MINIMUM", "int8"),
    "test_clip_default_int8_min": _no_small_int_math("MAXIMUM", "int8"),
    # Ops outside the lite op set.
    "test_gather_elements_0": _no_lite_op("GatherElements"),
    "test_gather_elements_1": _no_lite_op("GatherElements"),
    "test_gather_elements_negative_indices": _no_lite_op("GatherElements"),
    "test_matmul_1d_1d": _ONE_D_MATMUL,
    "test_matmul_1d_3d": _ONE_D_MATMUL,
    "test_matmul_4d_1d": _ONE_D_MATMUL,
    "test_batchnorm_epsilon_training_mode": _TRAINING_BATCH_NORM,
    "test_batchnorm_example_training_mode": _TRAINING_BATCH_NORM,
    "test_reshape_allowzero_reordered": _converter_refuses(
        "its input has a dimension of size 0 (an empty tensor): the converter refuses zero-sized model inputs",
        r"input 'data': dimension of size 0",
    ),
}
# The transformer ops (issue 13).
EXCLUDE.update(
    {
        "test_equal_string": _lacks_input_type("object"),
        "test_equal_string_broadcast": _lacks_input_type("object"),
        **{
            f"test_gelu_{v}_expanded": _converter_refuses(
                "CastLike: no lite op (onnx's expanded Gelu function casts its constants with it)", r"\(CastLike\)"
            )
            for v in ("default_1", "default_2", "tanh_1", "tanh_2")
        },
        **{
            f"test_layer_normalization_{v}": _converter_refuses(
                "the Mean and InvStdDev outputs are training outputs; LAYER_NORM computes Y only (the _expanded "
                "variants of the same cases pass)",
                r"the Mean and InvStdDev outputs are not supported",
            )
            for v in [
                "2d_axis0",
                "2d_axis1",
                "2d_axis_negative_1",
                "2d_axis_negative_2",
                "3d_axis0_epsilon",
                "3d_axis1_epsilon",
                "3d_axis2_epsilon",
                "3d_axis_negative_1_epsilon",
                "3d_axis_negative_2_epsilon",
                "3d_axis_negative_3_epsilon",
                "4d_axis0",
                "4d_axis1",
                "4d_axis2",
                "4d_axis3",
                "4d_axis_negative_1",
                "4d_axis_negative_2",
                "4d_axis_negative_3",
                "4d_axis_negative_4",
                "default_axis",
            ]
        },
    }
)

# Comparisons, logic, bitwise ops, reductions.
_EMPTY_INPUT = Excluded(
    "its input has a dimension of size 0 (an empty set to reduce): the lite runtime refuses zero-sized graph "
    "inputs (the reduction kernels give the identity on an empty set)",
    ConversionError,
    r"input 'data': dimension of size 0",
)
_NEEDS_CAST_LIKE = _converter_refuses("needs CastLike (being added)", r"\(CastLike\)")
EXCLUDE.update(
    {
        **{
            f"test_not_{d}d": Excluded(
                "an opset-1 model: the converter reads opsets 7 and up", ConversionError, r"declares ONNX opset 1 "
            )
            for d in (2, 3, 4)
        },
        **{
            f"test_reduce_{op}_empty_set{v}": _EMPTY_INPUT
            for op in ("l1", "l2", "log_sum", "log_sum_exp", "sum_square")
            for v in ("", "_expanded")
        },
        **{
            f"test_reduce_{v}": _EMPTY_INPUT
            for v in (
                "max_empty_set",
                "max_empty_set_bool",
                "min_empty_set",
                "prod_empty_set",
                "sum_empty_set",
                "sum_empty_set_non_reduced_axis_zero",
            )
        },
        **{
            f"test_reduce_{op}_{v}_expanded": _NEEDS_CAST_LIKE
            for op, variants in (
                ("l2", ("default_axes_keepdims", "do_not_keepdims", "keep_dims", "negative_axes_keep_dims")),
                ("log_sum_exp", ("default_axes_keepdims", "do_not_keepdims", "keepdims", "negative_axes_keepdims")),
            )
            for v in variants
            for v in (f"{v}_example", f"{v}_random")
        },
        **{
            f"test_reduce_log_sum_exp_{v}_{data}": Excluded(
                "float64 input: the lite SUB/EXP/LOG kernels lack float64",
                LiteError,
                r"\(SUB\): this op does not support float64",
            )
            for v in ("default_axes_keepdims", "do_not_keepdims", "keepdims", "negative_axes_keepdims")
            for data in ("example", "random")
        },
    }
)

# Conv, ConvTranspose, pools.
EXCLUDE["test_convtranspose_3d"] = _converter_refuses(
    "3-D (volumetric) ConvTranspose: TRANSPOSE_CONV is 2-D",
    r"only 1-D and 2-D ConvTranspose is supported \(weights rank 5\)",
)

# Tests whose reference outputs are stored rounded (to 4 decimals): their
# absolute tolerance, instead of ATOL.
ROUNDED_REFERENCE_ATOL = {
    "test_averagepool_2d_ceil_last_window_starts_on_pad": 1e-4,
}

# Tests whose parameters are graph inputs, where the lite ops need them
# constant (weights, bounds, axes, indices): every input but the first is
# baked into the model as an initializer, as in a model converted for
# deployment.
CONSTANT_PARAMETERS = [
    "test_batchnorm",
    "test_clip",
    "test_constant_pad",
    "test_basic_conv",
    "test_conv_with",
    "test_convtranspose",
    "test_gather_",
    "test_gemm",
    "test_gru_",
    "test_lstm_",
    "test_rnn_seq_length",
    "test_simple_rnn",
    "test_slice",
    "test_reduce_",
]

RTOL, ATOL = 1e-4, 1e-5  # the lite runtime's float32 kernels vs onnx's float32/64 references


def _generate(out_dir):
    """Writes onnx's node test cases in the layout of onnx/backend/test/data/node
    (the data `backend-test-tools generate-data` writes for node tests)."""
    from onnx.backend.test.case import node as node_cases

    for case in node_cases.collect_testcases(None):
        graph = case.model.graph
        if not all(v.type.HasField("tensor_type") for v in list(graph.input) + list(graph.output)):
            continue  # sequences, maps, optionals: not tensors
        case_dir = os.path.join(out_dir, case.name)
        os.makedirs(case_dir, exist_ok=True)
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            set_dir = os.path.join(case_dir, f"test_data_set_{i}")
            os.makedirs(set_dir, exist_ok=True)
            for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
                for j, (value, info) in enumerate(zip(values, infos)):
                    proto = (
                        value
                        if isinstance(value, onnx.TensorProto)
                        else numpy_helper.from_array(np.asarray(value), info.name)
                    )
                    with open(os.path.join(set_dir, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(proto.SerializeToString())


def data_dir():
    """The directory holding test_*/ (generating it once if needed)."""
    shipped = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    if os.path.isdir(shipped) and glob.glob(os.path.join(shipped, "test_*")):
        return shipped
    cache = os.environ.get("ONNX_NODE_TEST_DATA") or os.path.join(
        os.path.expanduser("~"), ".cache", "tensorweave", f"onnx-{onnx.__version__}-node"
    )
    if not os.path.isdir(cache):
        tmp = tempfile.mkdtemp(dir=os.path.dirname(cache) if os.path.isdir(os.path.dirname(cache)) else None)
        try:
            _generate(tmp)
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            try:
                os.rename(tmp, cache)  # atomic: concurrent generators agree
            except OSError:
                if not os.path.isdir(cache):
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return cache


def selected_tests(directory):
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(directory, "test_*")))
    chosen = []
    for name in names:
        if name in EXCLUDE:
            continue
        if any(name == p or name.startswith(p if p.endswith("_") else p + "_") or name == p for p in INCLUDE):
            chosen.append(name)
    return chosen


def load_case(directory, name):
    """(model bytes, [inputs], [expected outputs]) of test `name`."""
    case = os.path.join(directory, name)
    with open(os.path.join(case, "model.onnx"), "rb") as f:
        model = f.read()
    data = os.path.join(case, "test_data_set_0")

    def tensors(prefix):
        out = []
        for path in sorted(
            glob.glob(os.path.join(data, f"{prefix}_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3])
        ):
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            out.append(numpy_helper.to_array(t))
        return out

    return model, tensors("input"), tensors("output")


def run_case(directory, name, runner_factory):
    """Converts and runs test `name`; raises AssertionError on a mismatch."""
    from converters import onnx_import

    model_bytes, inputs, expected = load_case(directory, name)
    model = onnx.load_from_string(model_bytes)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    feeds = dict(zip(names, inputs))
    if any(name.startswith(p) for p in CONSTANT_PARAMETERS):
        for input_name in names[1:]:
            model.graph.initializer.append(numpy_helper.from_array(feeds.pop(input_name), input_name))
        kept = [i for i in model.graph.input if i.name not in names[1:]]
        del model.graph.input[:]
        model.graph.input.extend(kept)
    data = onnx_import.convert(model)
    runner = runner_factory(data)
    got = runner.run(feeds)
    out_names = [o.name for o in model.graph.output]
    atol = ROUNDED_REFERENCE_ATOL.get(name, ATOL)
    for out_name, want in zip(out_names, expected):
        have = got[out_name]
        # Exact dtype and shape: a runtime answering in another element type
        # (int32 for int64, float32 for float64) or broadcastable shape fails.
        assert have.dtype == want.dtype, f"{name}: output {out_name} is {have.dtype}, the reference {want.dtype}"
        assert have.shape == want.shape, f"{name}: output {out_name} has shape {have.shape}, the reference {want.shape}"
        np.testing.assert_allclose(have, want, rtol=RTOL, atol=atol, err_msg=f"{name}: output {out_name}")


def check_still_fails(directory, name, runner_factory):
    """Runs excluded test `name` and checks it fails as EXCLUDE says (its
    error class, a message matching its pattern); raises AssertionError if it
    passes (remove the exclusion) or fails otherwise (a new failure)."""
    expected = EXCLUDE[name]
    try:
        run_case(directory, name, runner_factory)
    except Exception as e:  # compared against the expectation below
        if not isinstance(e, expected.error) or not re.search(expected.match, str(e)):
            raise AssertionError(
                f"{name} is excluded as failing with {expected.error.__name__} matching {expected.match!r} "
                f"({expected.why}); it failed with {type(e).__name__}: {e}"
            ) from e
        return
    raise AssertionError(f"{name} passes now: remove its exclusion ({expected.why}) from EXCLUDE")
