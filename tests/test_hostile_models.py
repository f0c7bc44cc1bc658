"""Hostile and corrupt inputs to the converters and the lite runtime: size
bombs refused before folding, dims and opsets validated at the boundary,
temporary files removed on failure, and every single-byte corruption of a
converted .twl rejected by its integrity trailer."""

import os
import re
import resource
import zlib

import numpy as np
import pytest
import tensorweave as tw

from converters import freeze, onnx_import, tf_to_twl, twl_schema, twl_writer
from converters.cli import main as cli_main
from converters.errors import ConversionError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

twl = pytest.importorskip("tensorweave_lite")


def _model(nodes, inputs, outputs, initializers=(), opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _relu(opset=18, dims=(1, 3)):
    return _model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(dims))],
        opset=opset,
    )


def _peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- folding checks the size first ----------------------------------------------------------------
BOMBS = {
    # name: (node, initializers: name -> value); each makes 900M elements
    "ConstantOfShape": (helper.make_node("ConstantOfShape", ["s"], ["c"]), {"s": np.array([30000, 30000])}),
    "Tile": (
        helper.make_node("Tile", ["v", "r"], ["c"]),
        {"v": np.ones([1, 1], np.float32), "r": np.array([30000, 30000])},
    ),
    "Expand": (
        helper.make_node("Expand", ["v", "s"], ["c"]),
        {"v": np.ones([1, 1], np.float32), "s": np.array([30000, 30000])},
    ),
    "Range": (
        helper.make_node("Range", ["a", "b", "d"], ["c"]),
        {"a": np.array(0.0, np.float32), "b": np.array(9e8, np.float32), "d": np.array(1.0, np.float32)},
    ),
}


# Ops with a lite kernel: the converter lowers them instead of folding.
LOWERED_BOMBS = {"Tile": "TILE", "Expand": "BROADCAST_TO"}


@pytest.mark.parametrize("op", sorted(BOMBS))
def test_size_bombs_are_not_folded(op):
    node, consts = BOMBS[op]
    model = _model(
        [node, helper.make_node("Add", ["x", "c"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [900000000] if op == "Range" else [30000, 30000])],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    data = model.SerializeToString()
    assert len(data) < 300
    before = _peak_rss_bytes()
    if op in LOWERED_BOMBS:
        # Not folded: lowered to the lite op, which makes the tensor at run time.
        graph = twl_writer.read_model(onnx_import.convert(data)).Subgraphs(0)
        names = {v: k for k, v in vars(twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
        assert LOWERED_BOMBS[op] in {names[graph.Operators(i).Opcode()] for i in range(graph.OperatorsLength())}
    else:
        with pytest.raises(ConversionError, match=rf"'c' \({op}; not folded: it would make 900000000 elements"):
            onnx_import.convert(data)
    # Folding would have allocated 900M elements (3.6 GB as float32).
    assert _peak_rss_bytes() - before < 500 << 20


def test_small_constants_still_fold():
    model = _model(
        [helper.make_node("ConstantOfShape", ["s"], ["c"]), helper.make_node("Add", ["x", "c"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array([2, 3]), "s")],
    )
    interpreter = twl.Interpreter(model_content=onnx_import.convert(model))
    interpreter.allocate_tensors()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(interpreter.get_signature_runner()(x=x)["y"], x)


# --- dims and opsets at the boundary --------------------------------------------------------------
@pytest.mark.parametrize("dim", [2**40, 2**31])
def test_huge_input_dims_are_a_clear_error(dim):
    with pytest.raises(ConversionError, match=rf"input 'x': dimension 0 is {dim}; .twl dimensions are int32"):
        onnx_import.convert(_relu(dims=(dim, 3)))


def test_input_over_the_tensor_byte_limit():
    with pytest.raises(ConversionError, match=r"input 'x': shape \[65536, 65536\] of float32 needs 17179869184 bytes"):
        onnx_import.convert(_relu(dims=(65536, 65536)))


@pytest.mark.parametrize("opset", [99, 6])
def test_unsupported_opset_names_the_range(opset):
    expected = (
        rf"declares ONNX opset {opset} \(default domain\); this converter supports opsets 7\.\.{onnx_import.MAX_OPSET}"
    )
    with pytest.raises(ConversionError, match=expected):
        onnx_import.convert(_relu(opset=opset))
    assert onnx_import.MAX_OPSET == onnx.defs.onnx_opset_version()


@pytest.mark.parametrize(
    "op, attrs",
    [
        ("Conv", {"strides": [1]}),
        ("Conv", {"dilations": [1, 1, 1]}),
        ("MaxPool", {"kernel_shape": [2, 2], "strides": [1]}),
    ],
)
def test_window_attrs_of_the_wrong_length_name_the_node(op, attrs):
    # Shape inference lets these through (the output shape is not declared);
    # indexing strides[1] must not be what reports them.
    weights = [numpy_helper.from_array(np.ones([1, 1, 2, 2], np.float32), "w")] if op == "Conv" else []
    model = _model(
        [helper.make_node(op, ["x", "w"] if op == "Conv" else ["x"], ["y"], name="win", **attrs)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        weights,
    )
    name, values = next((k, v) for k, v in attrs.items() if k != "kernel_shape")
    with pytest.raises(ConversionError, match=rf"'win' \({op}\): {name} {re.escape(str(values))} must have 2 values"):
        onnx_import.convert(model)


def test_constant_without_a_value_names_the_node():
    model = _model(
        [helper.make_node("Constant", [], ["c"], name="empty"), helper.make_node("Add", ["x", "c"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    for source in (model, model.SerializeToString()):
        with pytest.raises(ConversionError, match=r"cannot be converted to .twl: 'empty' \(Constant\)"):
            onnx_import.convert(source)


# --- the CLI's temporary file ---------------------------------------------------------------------
def test_output_naming_a_directory_leaves_no_temp_file(tmp_path, capsys):
    source = tmp_path / "relu.onnx"
    onnx.save(_relu(), str(source))
    target = tmp_path / "out.twl"
    target.mkdir()
    assert cli_main(["--input", str(source), "--output", str(target)]) == 1
    assert "is a directory" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.twl", "relu.onnx"]


def test_failed_rename_removes_the_temp_file(tmp_path, monkeypatch, capsys):
    source = tmp_path / "relu.onnx"
    onnx.save(_relu(), str(source))

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", dst)

    monkeypatch.setattr(os, "replace", refuse)
    assert cli_main(["--input", str(source), "--output", str(tmp_path / "m.twl")]) == 1
    assert "Permission denied" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["relu.onnx"]


# --- the integrity trailer the converter writes ---------------------------------------------------
@pytest.fixture(scope="module")
def cnn():
    """(.twl bytes, input, reference output) of a small conv net converted
    from the core, input (1, 8, 8, 1), output (1, 10)."""
    rng = np.random.default_rng(0)
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [None, 8, 8, 1], name="x")
        f = tw.constant(rng.normal(size=[3, 3, 1, 4]).astype(np.float32))
        h = tw.nn.relu(tw.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"))
        h = tw.reshape(h, [-1, 8 * 8 * 4])
        w = tw.constant(rng.normal(size=[256, 10]).astype(np.float32) * 0.1)
        y = tw.identity(tw.matmul(h, w), name="y")
        feed = rng.normal(size=[1, 8, 8, 1]).astype(np.float32)
        ref = sess.run(y, {x: feed})
        frozen = freeze.freeze_session(sess, [x], [y])
    return tf_to_twl.convert(frozen, ["x"], ["y"]), feed, ref


def _run(data, feed, **kwargs):
    interpreter = twl.Interpreter(model_content=data, **kwargs)
    interpreter.allocate_tensors()
    return interpreter.get_signature_runner()(x=feed)["y"]


def test_converted_models_carry_a_checksum(cnn):
    data, feed, ref = cnn
    assert data[-4:] == b"TWLI" and data[-16:-12] == b"TWLI"
    assert twl_writer.integrity_of(data) == (zlib.crc32(data[:-8]),) * 2
    np.testing.assert_allclose(_run(data, feed), ref, rtol=1e-4, atol=1e-5)


def test_every_corrupted_byte_of_a_converted_model_is_rejected(cnn):
    data, _, _ = cnn
    rng = np.random.default_rng(1)
    positions = sorted(set(range(0, len(data), max(1, len(data) // 400))) | set(range(len(data) - 64, len(data))))
    assert len(positions) >= 400
    for position in positions:
        corrupt = bytearray(data)
        corrupt[position] ^= int(rng.integers(1, 256))
        with pytest.raises(ValueError, match="model is corrupt"):
            twl.Interpreter(model_content=bytes(corrupt))


def test_no_checksum_option(cnn, tmp_path):
    frozen_free = tmp_path / "m.twl"
    source = tmp_path / "relu.onnx"
    onnx.save(_relu(), str(source))
    assert cli_main(["--input", str(source), "--output", str(frozen_free), "--no-checksum"]) == 0
    plain = frozen_free.read_bytes()
    assert twl_writer.integrity_of(plain) is None
    assert cli_main(["--input", str(source), "--output", str(frozen_free)]) == 0
    sealed = frozen_free.read_bytes()
    assert sealed[: len(plain)] == plain and len(sealed) == len(plain) + 16
    for data in (plain, sealed):
        interpreter = twl.Interpreter(model_content=data)
        interpreter.allocate_tensors()
        x = np.array([[-1.0, 0.5, 2.0]], np.float32)
        np.testing.assert_array_equal(interpreter.get_signature_runner()(x=x)["y"], np.maximum(x, 0))


# --- semantic checks when there is no checksum --------------------------------------------------------
def _patch_dim(data, tensor_name, axis, value, field=4):
    """`data` with dim `axis` of the named tensor's declared shape (vtable
    offset 4; 12 for its shape_signature) set to `value`, the file's bytes
    edited in place as a corruption would."""
    graph = twl_writer.read_model(data).Subgraphs(0)
    for i in range(graph.TensorsLength()):
        tensor = graph.Tensors(i)
        if tensor.Name().decode() == tensor_name:
            position = tensor._tab.Vector(tensor._tab.Offset(field)) + 4 * axis
            patched = bytearray(data)
            patched[position : position + 4] = np.int32(value).tobytes()
            return bytes(patched)
    raise KeyError(tensor_name)


def test_zero_dims_and_inconsistent_shapes_are_rejected_without_a_checksum(cnn):
    data, feed, ref = cnn
    plain = data[:-16]  # the same model without its trailer
    np.testing.assert_allclose(_run(plain, feed), ref, rtol=1e-4, atol=1e-5)
    # Input (1, 8, 8, 1) declared as (0, 8, 8, 1): every op would accept it
    # and produce a valid-looking (0, 10) output.
    with pytest.raises(ValueError, match=r"graph input 0: tensor \d+ declares dimension 0 of size 0"):
        twl.Interpreter(model_content=_patch_dim(plain, "x", 0, 0))
    # The output declared (1, 9) (shape and shape_signature: two changed
    # bytes) while the ops compute (1, 10).
    corrupt = _patch_dim(_patch_dim(plain, "y", 1, 9), "y", 1, 9, field=12)
    interpreter = twl.Interpreter(model_content=corrupt)
    with pytest.raises(
        ValueError, match=r"operator \d+ \(FULLY_CONNECTED\): output 0 'y' has shape \[1,10\].*declares \[1,9\]"
    ):
        interpreter.allocate_tensors()
    # A caller may still resize the batch to 0 explicitly.
    interpreter = twl.Interpreter(model_content=plain)
    interpreter.resize_tensor_input(interpreter.get_input_details()[0]["index"], [0, 8, 8, 1])
    interpreter.allocate_tensors()
