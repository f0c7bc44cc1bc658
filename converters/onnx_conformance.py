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
    # Casts, Dropout, Resize (converters/onnx_import/resize_cast_ops.py).
    "test_cast",
    "test_castlike",
    "test_dropout",
    "test_resize",
    "test_upsample",
    # Unique, lowered to comparisons (converters/onnx_import/control_flow.py).
    "test_unique",
    "test_gridsample",
    "test_bitcast",
    "test_roialign",
    # Data-dependent output shapes (the lite runtime's dynamic tensors).
    "test_nonzero",
    "test_nonmaxsuppression",
    # Attention, normalizations, losses, Einsum (attention_norm_ops.py).
    "test_attention",
    "test_rms_normalization",
    "test_instancenorm",
    "test_group_normalization",
    "test_mvn",
    "test_lpnormalization",
    "test_l1normalization",
    "test_l2normalization",
    "test_lrn",
    "test_sce",
    "test_nllloss",
    "test_einsum",
    "test_edge_pad",
    "test_reflect_pad",
    "test_wrap_pad",
    "test_constantofshape",
    "test_cumprod",
    "test_cumsum",
    "test_depthtospace",
    "test_expand",
    "test_eyelike",
    "test_gather_elements",
    "test_gathernd",
    "test_hardmax",
    "test_onehot",
    "test_range",
    "test_reversesequence",
    "test_scatter_",
    "test_scatter_elements",
    "test_scatternd",
    "test_shape",
    "test_size",
    "test_spacetodepth",
    "test_split",
    "test_tile",
    "test_top_k",
    "test_tril",
    # Ops lowered to several lite ops (composite_ops.py), SwiGLU.
    "test_rotary_embedding",
    "test_swiglu",
    "test_dft",
    "test_center_crop_pad",
    "test_stft",
    "test_affine_grid",
    "test_causal_conv_with_state",
    "test_linear_attention",
    "test_maxunpool",
    "test_tensorscatter",
    "test_col2im",
    "test_deform_conv",
    "test_basic_deform_conv",
    "test_det",
    "test_triu",
    # Elementwise math (elementwise_ops.py).
    "test_sin",
    "test_sinh",
    "test_cos",
    "test_cosh",
    "test_tan",
    "test_asin",
    "test_acos",
    "test_atan",
    "test_asinh",
    "test_acosh",
    "test_atanh",
    "test_floor",
    "test_ceil",
    "test_round",
    "test_sign",
    "test_isnan",
    "test_isinf",
    "test_softplus",
    "test_softsign",
    "test_elu",
    "test_selu",
    "test_celu",
    "test_leakyrelu",
    "test_hardsigmoid",
    "test_hardswish",
    "test_mish",
    "test_thresholdedrelu",
    "test_shrink",
    "test_prelu",
    "test_swish",
    "test_pow",
    "test_mod",
    "test_sum",
    "test_mean",
    # Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
    # integer matrix products and convolutions.
    "test_convinteger",
    "test_dequantizelinear",
    "test_dynamicquantizelinear",
    "test_matmulinteger",
    "test_qlinearconv",
    "test_qlinearmatmul",
    "test_quantizelinear",
    # Conv, ConvTranspose, pools.
    "test_averagepool",
    "test_basic_conv",
    "test_conv",
    "test_convtranspose",
    "test_lppool",
    "test_maxpool",
    # Control flow lowered before conversion (onnx_import/control_flow.py),
    # Compress, the window functions and MelWeightMatrix (folded).
    "test_if",
    "test_loop11",
    "test_scan",
    "test_scan9",
    "test_compress",
    "test_blackmanwindow",
    "test_hammingwindow",
    "test_hannwindow",
    "test_melweightmatrix",
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


# ONNX's element types the lite runtime lacks, by their names in the Cast
# tests, with numpy's names (what the converter's errors say).
_NON_LITE_TYPES = {
    "BFLOAT16": "bfloat16",
    "FLOAT4E2M1": "float4_e2m1fn",
    "FLOAT8E4M3FN": "float8_e4m3fn",
    "FLOAT8E4M3FNUZ": "float8_e4m3fnuz",
    "FLOAT8E5M2": "float8_e5m2",
    "FLOAT8E5M2FNUZ": "float8_e5m2fnuz",
    "FLOAT8E8M0": "float8_e8m0fnu",
    "INT2": "int2",
    "INT4": "int4",
    "UINT2": "uint2",
    "UINT4": "uint4",
}
_FLOAT8 = ["FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"]
_LITE_NAMES = {"FLOAT": "float32", "FLOAT16": "float16", "INT8": "int8", "UINT8": "uint8"}


def _cast_exclusions():
    """The Cast and CastLike tests (and CastLike's _expanded) from or to a
    type the lite runtime lacks: bfloat16, float8, float4, int2/int4."""
    pairs = [(src, dst) for src in ("FLOAT", "FLOAT16") for dst in _NON_LITE_TYPES if dst != "FLOAT8E8M0"]
    pairs.remove(("FLOAT16", "BFLOAT16"))
    pairs += [(src, dst) for src in _NON_LITE_TYPES if src != "FLOAT8E8M0" for dst in ("FLOAT", "FLOAT16")]
    pairs.remove(("BFLOAT16", "FLOAT16"))
    pairs += [(t, "INT8") for t in ("INT2", "INT4")] + [(t, "UINT8") for t in ("UINT2", "UINT4")]
    names = {}
    for src, dst in pairs:
        for op in ("cast", "castlike"):
            names[f"test_{op}_{src}_to_{dst}"] = (src, dst)
            names[f"test_{op}_no_saturate_{src}_to_{dst}"] = (src, dst)
    for src, dst in [
        ("FLOAT", "FLOAT8E8M0"),
        ("FLOAT16", "FLOAT8E8M0"),
        ("FLOAT8E8M0", "FLOAT"),
        ("FLOAT8E8M0", "FLOAT16"),
    ]:
        names[f"test_cast_e8m0_{src}_to_{dst}"] = (src, dst)
    names = {
        n: v for n, v in names.items() if "no_saturate" not in n or (v[0] in ("FLOAT", "FLOAT16") and v[1] in _FLOAT8)
    }
    names.update({f"{n}_expanded": v for n, v in names.items() if n.startswith("test_castlike")})
    out = {}
    for name, (src, dst) in names.items():
        if src in _NON_LITE_TYPES:
            out[name] = _lacks_input_type(_NON_LITE_TYPES[src])
        else:
            out[name] = Excluded(
                f"the lite runtime has no {_NON_LITE_TYPES[dst]} element type",
                ConversionError,
                rf"cast from {_LITE_NAMES[src]} to {_NON_LITE_TYPES[dst]}: the lite runtime lacks",
            )
    return out


def _no_lite_op(op):
    return Excluded(f"{op}: no lite op", ConversionError, rf"cannot be converted to \.twl: '\w+' \({op}\)$")


def _converter_refuses(why, match):
    return Excluded(why, ConversionError, match)


_TRAINING_BATCH_NORM = _converter_refuses(
    "training-mode batch norm is not an inference op", r"training mode batch normalization cannot run at inference"
)
EXCLUDE = {
    **_cast_exclusions(),
    # Ops outside the lite op set.
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
    }
)

# Attention, the normalizations, the losses and Einsum (attention_norm_ops.py).

EXCLUDE.update(
    {
        **{
            f"test_attention_{v}_expanded": _lacks_input_type("bfloat16")
            for v in [
                "3d_causal_bf16",
                "4d_attn_mask_causal_bf16",
                "4d_causal_bf16",
                "4d_causal_padded_kv_bf16",
                "4d_padded_kv_bf16",
            ]
        },
        "test_attention_local_window_gqa_rank4_mask_expanded": Excluded(
            "SOFTMAX is float32 only: onnx's expanded function casts the scores to float64 for its softmax",
            LiteError,
            r"\(SOFTMAX\): input '\w+' must be float32, got float64",
        ),
        **{
            f"test_attention_{v}": _lacks_input_type("bfloat16")
            for v in [
                "3d_causal_bf16",
                "4d_attn_mask_causal_bf16",
                "4d_causal_bf16",
                "4d_causal_padded_kv_bf16",
                "4d_padded_kv_bf16",
            ]
        },
        **{f"test_einsum_{v}_bfloat16": _lacks_input_type("bfloat16") for v in ["batch_matmul", "sum", "transpose"]},
    }
)

# Comparisons, logic, bitwise ops, reductions.
_EMPTY_INPUT = Excluded(
    "its input has a dimension of size 0 (an empty set to reduce): the lite runtime refuses zero-sized graph "
    "inputs (the reduction kernels give the identity on an empty set)",
    ConversionError,
    r"input 'data': dimension of size 0",
)
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
    }
)

# The index and data-movement ops (Split ... Hardmax, Shape/Size/EyeLike).
_EMPTY_INPUT = "its input has a dimension of size 0 (an empty tensor): the converter refuses zero-sized model inputs"
_VALUE_SHAPED = (
    "its output shape depends on the values of graph inputs; the lite runtime fixes every shape at "
    "AllocateTensors, before input values are known"
)
EXCLUDE.update(
    {
        "test_split_zero_size_splits_opset13": _converter_refuses(_EMPTY_INPUT, r"input 'input': dimension of size 0"),
        "test_split_zero_size_splits_opset18": _converter_refuses(_EMPTY_INPUT, r"input 'input': dimension of size 0"),
        "test_tril_zero": _converter_refuses(_EMPTY_INPUT, r"input 'x': dimension of size 0"),
        "test_triu_zero": _converter_refuses(_EMPTY_INPUT, r"input 'x': dimension of size 0"),
        "test_onehot_with_bfloat16_values": _converter_refuses(
            "the lite runtime has no such element type", r"the lite runtime has no bfloat16 tensors"
        ),
        "test_reversesequence_bfloat16": _lacks_input_type("bfloat16"),
        "test_unique_bfloat16_sorted_without_axis": _lacks_input_type("bfloat16"),
        "test_range_bfloat16_type_positive_delta": _lacks_input_type("bfloat16"),
        **{
            f"test_range_{t}": _converter_refuses(
                _VALUE_SHAPED,
                r"'output' \(Range\): start 'start' is neither a constant nor computed from shapes: the length of the "
                r"range would depend on values known only when the model runs",
            )
            for t in ("float16_type_positive_delta", "float_type_positive_delta", "int32_type_negative_delta")
        },
        **{
            f"test_range_{t}_expanded": _converter_refuses(
                "onnx's Range function builds the range with a Loop whose trip count is computed from the graph's "
                "inputs: a Loop is unrolled, its number of iterations must be known when converting",
                r"\(Loop\): its trip count '\w+' is not a constant: the number of iterations depends on values known "
                r"only at run time",
            )
            for t in (
                "bfloat16_type_positive_delta",
                "float16_type_positive_delta",
                "float_type_positive_delta",
                "int32_type_negative_delta",
            )
        },
        **{
            f"test_constantofshape_{v}": _converter_refuses(_VALUE_SHAPED, r"'y' \(ConstantOfShape\)$")
            for v in ("float_ones", "int_shape_zero", "int_zeros")
        },
        "test_shape_start_greater_than_end": _converter_refuses(
            "its output is empty: the converter refuses constants without elements", r"constant 'y' has no elements"
        ),
        "test_eyelike_with_dtype": _converter_refuses(
            "its output is a float64 constant, which the converter refuses (context.constant)",
            r"'y' is float64; the lite runtime computes in float32",
        ),
    }
)


# Elementwise math (elementwise_ops.py).
EXCLUDE.update(
    {
        "test_celu_bfloat16": _lacks_input_type("bfloat16"),
        "test_celu_bfloat16_expanded": _lacks_input_type("bfloat16"),
    }
)

# Ops lowered to several lite ops (composite_ops.py).
EXCLUDE.update(
    {
        "test_causal_conv_with_state_kernel_size_one": _converter_refuses(
            "kernel size 1: its present_state output is empty (no lite tensor has zero elements)",
            r"kernel size 1: present_state has no elements",
        ),
        "test_causal_conv_with_state_kernel_size_one_expanded": _converter_refuses(
            "kernel size 1: onnx's function builds an empty zero state (the converter refuses empty constants)",
            r"has no elements \(shape \[2, 4, 0\]\)",
        ),
        "test_maxunpool_export_with_output_shape": Excluded(
            "onnx's reference scatters into the unpooled shape and pads it to output_shape; the spec (the indices "
            "come from MaxPool of an input of output_shape) and onnxruntime read the indices in output_shape's "
            "layout, as the converter does",
            AssertionError,
            r"test_maxunpool_export_with_output_shape: output y",
        ),
        "test_col2im_5d": _converter_refuses(
            "3-D (volumetric) Col2Im: TRANSPOSE_CONV is 2-D", r"\(Col2Im\): 3 spatial dims: TRANSPOSE_CONV is 2-D"
        ),
    }
)

# Quantization: float8, float4, int4, uint4, int2 and uint2 are not lite
# element types; DynamicQuantizeLinear's expansion rounds with Round.
EXCLUDE.update(
    {
        **{
            f"test_{op}_{v}": _lacks_input_type(t)
            for op in ("quantizelinear", "dequantizelinear")
            for v, t in (
                ("e4m3fn", "float8_e4m3fn"),
                ("e5m2", "float8_e5m2"),
                ("float4e2m1", "float4_e2m1fn"),
                ("int2", "int2"),
                ("int4", "int4"),
                ("uint2", "uint2"),
                ("uint4", "uint4"),
            )
        },
        "test_dequantizelinear_e4m3fn_float16": _lacks_input_type("float8_e4m3fn"),
        "test_dequantizelinear_e4m3fn_zero_point": _lacks_input_type("float8_e4m3fn"),
    }
)

# Conv, ConvTranspose, pools.
# Control flow and Compress (onnx_import/control_flow.py).
EXCLUDE["test_compress_bfloat16"] = _lacks_input_type("bfloat16")

# Tests whose reference outputs are stored rounded (to 4 decimals): their
# absolute tolerance, instead of ATOL.
ROUNDED_REFERENCE_ATOL = {
    "test_averagepool_2d_ceil_last_window_starts_on_pad": 1e-4,
    "test_gridsample_bicubic": 1e-4,  # -0.1406 for -0.140625
    "test_roialign_aligned_false": 1e-4,
    "test_roialign_aligned_true": 1e-4,
    # Attention in float16: onnx's reference computes in float16, the lite
    # decomposition in float32; they differ by up to one float16 step
    # (4.9e-4 at these magnitudes).
    **{
        f"test_attention_{v}": 1e-3
        for v in [
            "4d_fp16",
            "4d_causal_fp16",
            "4d_gqa_causal_nonpad_decode_fp16",
            "4d_gqa_with_past_and_present_fp16",
            "24_qk_matmul_output_mode3_softmax_precision",
        ]
    },
}

# Tests whose parameters are graph inputs, where the lite ops need them
# constant (weights, bounds, axes, indices): every input but the first is
# baked into the model as an initializer, as in a model converted for
# deployment.
CONSTANT_PARAMETERS = [
    "test_batchnorm",
    "test_clip",
    "test_constant_pad",
    "test_edge_pad",
    "test_reflect_pad",
    "test_wrap_pad",
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
    # The type model of CastLike (only its type is read), Dropout's ratio,
    # Resize's roi, scales and sizes.
    "test_castlike",
    "test_dropout",
    "test_resize",
    "test_upsample",
    "test_cumprod",
    "test_cumsum",
    "test_expand",
    "test_onehot",
    "test_split",
    "test_tile",
    "test_top_k",
    "test_rotary_embedding",
    "test_dft",
    "test_center_crop_pad",
    "test_stft",
    "test_col2im",
    "test_deform_conv",
    "test_basic_deform_conv",
    "test_affine_grid",
    "test_causal_conv_with_state",
    # The weights and the scales QLinear* ops fold into one multiplier.
    "test_convinteger",
    "test_matmulinteger",
    "test_qlinearconv",
    "test_qlinearmatmul",
]

# Tests whose named inputs (None: all of them) are baked into the model as
# initializers: the window ops' and MelWeightMatrix's sizes and rates are
# fixed by a model (they fold to constants), and so are test_loop11's trip
# count and condition (a Loop is unrolled; its iteration count must be known
# when converting).
CONSTANT_INPUTS = {
    "test_blackmanwindow": None,
    "test_hammingwindow": None,
    "test_hannwindow": None,
    "test_melweightmatrix": None,
    "test_loop11": ("trip_count", "cond"),
}

RTOL, ATOL = 1e-4, 1e-5  # the lite runtime's float32 kernels vs onnx's float32/64 references
# float16 models compute in float32 (onnx_import/float16.py), the references
# in float16: their outputs may differ by a float16 rounding or two.
FLOAT16_RTOL, FLOAT16_ATOL = 2.0**-9, 2.0**-14


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
    baked = [v for p, v in CONSTANT_INPUTS.items() if name == p or name.startswith(p + "_")]
    if baked:
        baked = [n for n in names if baked[0] is None or n in baked[0]]
        for input_name in baked:
            model.graph.initializer.append(numpy_helper.from_array(feeds.pop(input_name), input_name))
        kept = [i for i in model.graph.input if i.name not in baked]
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
        rtol, atol = (FLOAT16_RTOL, max(atol, FLOAT16_ATOL)) if want.dtype == np.float16 else (RTOL, atol)
        np.testing.assert_allclose(have, want, rtol=rtol, atol=atol, err_msg=f"{name}: output {out_name}")


def summary(directory, passed):
    """The line a test run prints: of the suite's tests, how many passed
    (`passed`, counted by the caller), are excluded with reasons, and how
    many of the suite's op types have no importer (apart from those that
    constant folding handles)."""
    from converters.onnx_import import IMPORTERS
    from converters.onnx_import.folding import FOLDED_OPS

    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(directory, "test_*")))
    excluded = sum(1 for n in names if n in EXCLUDE)
    ops = set()
    for name in names:
        model = onnx.load(os.path.join(directory, name, "model.onnx"), load_external_data=False)
        ops.update(n.op_type for n in model.graph.node if n.domain in ("", "ai.onnx"))
    missing = sorted(ops - set(IMPORTERS) - set(FOLDED_OPS))
    folded = sorted(ops & set(FOLDED_OPS) - set(IMPORTERS))
    return (
        f"ONNX node tests: {passed} of {len(names)} pass through the importer and the lite runtime; "
        f"{excluded} excluded with reasons; {len(missing)} of the suite's {len(ops)} ops not supported "
        f"({len(folded)} more only as constants: {', '.join(folded)})"
    )


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
