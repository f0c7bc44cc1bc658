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

import glob
import os
import shutil
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

# Test-name prefixes of the ops the importer supports ("test_relu" also
# selects "test_relu_*").
INCLUDE = [
    "test_abs",
    "test_add",
    "test_averagepool_2d",
    "test_batchnorm",
    "test_cast_FLOAT_to",
    "test_cast_INT",
    "test_clip",
    "test_concat",
    "test_constant",
    "test_conv_with",
    "test_div",
    "test_exp",
    "test_flatten",
    "test_gather_",
    "test_gemm",
    "test_globalaveragepool",
    "test_identity",
    "test_log",
    "test_logsoftmax",
    "test_matmul",
    "test_max",
    "test_maxpool_2d",
    "test_min",
    "test_mul",
    "test_neg",
    "test_reciprocal",
    "test_reduce_mean",
    "test_relu",
    "test_reshape",
    "test_sigmoid",
    "test_slice",
    "test_softmax",
    "test_sqrt",
    "test_squeeze",
    "test_sub",
    "test_tanh",
    "test_transpose",
    "test_unsqueeze",
]

_NO_TYPE = "the lite runtime has no such element type"
_NO_INT8_MATH = "the lite arithmetic kernels take float32, int32 and int64 only"
_PARTIAL_WINDOW = "ceil_mode with a partial last window: the lite pools have none"
EXCLUDE = {
    # Element types: no float16/float64/int16/uint16/uint32/uint64/int2/int4
    # or float8 tensors in the lite runtime; no int8/uint8 arithmetic.
    **{
        f"test_{op}_{t}": _NO_TYPE
        for op in ("add", "sub", "mul", "div", "max", "min")
        for t in ("int16", "uint16", "uint32", "uint64")
    },
    **{f"test_{op}_{t}": _NO_TYPE for op in ("max", "min") for t in ("float16", "float64")},
    **{f"test_{op}_{t}": _NO_INT8_MATH for op in ("add", "sub", "mul", "div", "max", "min") for t in ("int8", "uint8")},
    **{
        f"test_cast_FLOAT_to_{t}": _NO_TYPE
        for t in (
            "BFLOAT16",
            "DOUBLE",
            "FLOAT16",
            "FLOAT4E2M1",
            "FLOAT8E4M3FN",
            "FLOAT8E4M3FNUZ",
            "FLOAT8E5M2",
            "FLOAT8E5M2FNUZ",
            "INT2",
            "INT4",
            "UINT2",
            "UINT4",
        )
    },
    **{
        f"test_cast_{t}": _NO_TYPE
        for t in (
            "INT2_to_FLOAT",
            "INT2_to_FLOAT16",
            "INT2_to_INT8",
            "INT4_to_FLOAT",
            "INT4_to_FLOAT16",
            "INT4_to_INT8",
        )
    },
    "test_clip_default_int8_max": _NO_INT8_MATH,
    "test_clip_default_int8_min": _NO_INT8_MATH,
    "test_maxpool_2d_uint8": "MAX_POOL_2D is float32 only",
    "test_div_int32_trunc": "ONNX integer Div truncates; the lite DIV does not promise it",
    # Ops outside the lite op set.
    "test_constantofshape_float_ones": "ConstantOfShape: no lite op (a runtime-shaped fill)",
    "test_constantofshape_int_shape_zero": "ConstantOfShape: no lite op",
    "test_constantofshape_int_zeros": "ConstantOfShape: no lite op",
    "test_gather_elements_0": "GatherElements: no lite op",
    "test_gather_elements_1": "GatherElements: no lite op",
    "test_gather_elements_negative_indices": "GatherElements: no lite op",
    "test_matmulinteger": "MatMulInteger (quantized): no lite op",
    "test_matmul_1d_1d": "1-D MatMul operands: BATCH_MATMUL needs rank >= 2",
    "test_matmul_1d_3d": "1-D MatMul operands: BATCH_MATMUL needs rank >= 2",
    "test_matmul_4d_1d": "1-D MatMul operands: BATCH_MATMUL needs rank >= 2",
    # Attributes the lite kernels lack.
    "test_maxpool_2d_ceil": _PARTIAL_WINDOW,
    "test_averagepool_2d_ceil": _PARTIAL_WINDOW,
    "test_averagepool_2d_ceil_last_window_starts_on_pad": _PARTIAL_WINDOW,
    "test_maxpool_2d_dilations": "dilated pooling: MAX_POOL_2D has no dilation",
    "test_averagepool_2d_dilations": "dilated pooling: AVERAGE_POOL_2D has no dilation",
    "test_averagepool_2d_pads": "explicit non-SAME pads left out of the average "
    "(count_include_pad=0): AVERAGE_POOL_2D only leaves out SAME padding",
    "test_averagepool_2d_same_lower": "SAME_LOWER pads left out of the average: AVERAGE_POOL_2D's SAME is SAME_UPPER",
    "test_batchnorm_epsilon_training_mode": "training-mode batch norm is not an inference op",
    "test_batchnorm_example_training_mode": "training-mode batch norm is not an inference op",
    "test_reshape_allowzero_reordered": "the shape is a runtime input (RESHAPE needs a "
    "constant) and allowzero with a 0 dim makes an empty tensor",
}

# Tests whose parameters are graph inputs, where the lite ops need them
# constant (weights, bounds, axes, indices): every input but the first is
# baked into the model as an initializer, as in a model converted for
# deployment.
CONSTANT_PARAMETERS = [
    "test_batchnorm",
    "test_clip",
    "test_constant_pad",
    "test_conv_with",
    "test_gather_",
    "test_gemm",
    "test_reduce_mean",
    "test_slice",
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
        if "_expanded" in name or name in EXCLUDE:
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
    for out_name, want in zip(out_names, expected):
        have = got[out_name]
        np.testing.assert_allclose(
            have,
            want.astype(have.dtype) if want.dtype != have.dtype else want,
            rtol=RTOL,
            atol=ATOL,
            err_msg=f"{name}: output {out_name}",
        )
