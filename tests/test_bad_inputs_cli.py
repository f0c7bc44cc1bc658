"""tensorweave-convert on malformed input: a one-line message naming the file and what was wrong, exit status 1,
no traceback, and no output file left behind."""

import numpy as np
import pytest

pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from converters import cli  # noqa: E402


def _convert(capsys, *argv):
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.err


def _onnx(path, nodes, initializers=()):
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        initializer=list(initializers),
    )
    path.write_bytes(helper.make_model(graph).SerializeToString())
    return str(path)


def test_onnx_reshape_to_a_shape_that_does_not_hold_the_input(tmp_path, capsys):
    # The constant shape was ignored (the declared output shape was used): a .twl that "worked".
    shape = helper.make_tensor("s", TensorProto.INT64, [2], [2**40, 2**40])
    model = _onnx(tmp_path / "m.onnx", [helper.make_node("Reshape", ["x", "s"], ["y"])], [shape])
    out = tmp_path / "m.twl"
    status, err = _convert(capsys, "--input", model, "--output", str(out))
    assert status == 1 and not out.exists()
    assert "'y' (Reshape): shape [1099511627776, 1099511627776] does not fit the input 'x' of shape [1, 3]" in err


@pytest.mark.parametrize("shape", [[3, 1], [-1, 1], [0, 3]], ids=["exact", "inferred", "copied_dim"])
def test_onnx_reshape_that_holds_the_input_still_converts(tmp_path, capsys, shape):
    const = helper.make_tensor("s", TensorProto.INT64, [2], shape)
    model = _onnx(tmp_path / "m.onnx", [helper.make_node("Reshape", ["x", "s"], ["y"])], [const])
    status, err = _convert(capsys, "--input", model, "--output", str(tmp_path / "m.twl"))
    assert status == 0, err


@pytest.mark.parametrize(
    "name,data,fragment",
    [
        ("garbage.onnx", b"not onnx at all \xff\xfe", "not a valid ONNX model"),
        ("empty.onnx", b"", "not a valid ONNX model"),
        ("garbage.pb", b"\xff\xfegarbage", "garbage.pb: not a GraphDef"),
    ],
)
def test_garbage_model_file(tmp_path, capsys, name, data, fragment):
    source = tmp_path / name
    source.write_bytes(data)
    out = tmp_path / "o.twl"
    status, err = _convert(capsys, "--input", str(source), "--output", str(out), "--inputs", "x", "--outputs", "y")
    if name.endswith(".onnx"):  # --inputs/--outputs do not apply to ONNX
        status, err = _convert(capsys, "--input", str(source), "--output", str(out))
    assert status == 1 and fragment in err and not out.exists(), err


def test_saved_model_directory_that_is_not_one(tmp_path, capsys):
    (tmp_path / "saved_model.pb").write_bytes(b"garbage")
    status, err = _convert(capsys, "--input", str(tmp_path), "--output", str(tmp_path / "o.twl"))
    assert status == 1 and "not a saved model" in err


def test_missing_input_and_bad_output(tmp_path, capsys):
    status, err = _convert(capsys, "--input", str(tmp_path / "nope"), "--output", str(tmp_path / "o.twl"))
    assert status == 1 and "no such file or directory" in err
    np.save(tmp_path / "a.npy", np.zeros(2))
    status, err = _convert(capsys, "--input", str(tmp_path / "a.npy"), "--output", str(tmp_path / "o.txt"))
    assert status == 1 and "must end in .twl or .onnx" in err
