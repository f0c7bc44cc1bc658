"""Every failure path raises a Python exception; none crashes the process."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorweave_lite as twl
import twl_writer


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="cannot open model"):
        twl.Interpreter(model_path=str(tmp_path / "missing.twl"))


def test_directory_and_empty_file(tmp_path):
    with pytest.raises(ValueError):
        twl.Interpreter(model_path=str(tmp_path))
    empty = tmp_path / "empty.twl"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        twl.Interpreter(model_path=str(empty))


@pytest.mark.parametrize("content", [b"", b"garbage", os.urandom(4096), b"\0" * 64])
def test_garbage_bytes(content):
    with pytest.raises(ValueError):
        twl.Interpreter(model_content=content)


def test_path_like_and_bad_arguments(tmp_path, mlp_model):
    path = tmp_path / "m.twl"
    path.write_bytes(mlp_model[0])
    twl.Interpreter(model_path=path)  # os.PathLike
    with pytest.raises(ValueError, match="exactly one"):
        twl.Interpreter()
    with pytest.raises(ValueError, match="exactly one"):
        twl.Interpreter(model_path=str(path), model_content=mlp_model[0])
    with pytest.raises(TypeError):
        twl.Interpreter(model_content=12)
    with pytest.raises(ValueError, match="num_threads"):
        twl.Interpreter(model_content=mlp_model[0], num_threads=0)
    with pytest.raises(ValueError, match="num_threads"):
        twl.Interpreter(model_content=mlp_model[0], num_threads=1000)


def test_newer_schema_version_is_rejected():
    writer = twl_writer.ModelWriter(version=99)
    x = writer.add_tensor("x", np.float32, [1])
    y = writer.add_tensor("y", np.float32, [1])
    writer.add_operator("RELU", [x], [y])
    writer.set_io([x], [y])
    with pytest.raises(ValueError, match="version"):
        twl.Interpreter(model_content=writer.finish())


def test_unsupported_op_version_is_rejected():
    writer = twl_writer.ModelWriter()
    x = writer.add_tensor("x", np.float32, [1])
    y = writer.add_tensor("y", np.float32, [1])
    writer.add_operator("RELU", [x], [y], version=42)
    writer.set_io([x], [y])
    with pytest.raises(ValueError, match="version"):
        twl.Interpreter(model_content=writer.finish())


@pytest.fixture
def allocated(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    interpreter.allocate_tensors()
    return interpreter


def test_wrong_dtype_names_the_tensor(allocated):
    with pytest.raises(ValueError, match=r"'input'.*float64.*float32"):
        allocated.set_tensor(0, np.zeros((1, 4)))
    with pytest.raises(ValueError, match=r"'input'.*int32"):
        allocated.set_tensor(0, np.zeros((1, 4), np.int32))


def test_wrong_shape_names_the_tensor(allocated):
    with pytest.raises(ValueError, match=r"'input'.*shape \[2, 4\].*\[1, 4\]"):
        allocated.set_tensor(0, np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="shape"):
        allocated.set_tensor(0, np.float32(1.0))


def test_non_contiguous_input_is_accepted(allocated):
    value = np.arange(8, dtype=np.float32).reshape(4, 2).T[:1]
    allocated.set_tensor(0, value)
    np.testing.assert_array_equal(allocated.get_tensor(0), value)


@pytest.mark.parametrize("index", [-1, 8, 10**6, 2**40])
def test_bad_tensor_index(allocated, index):
    for call in (allocated.get_tensor, allocated.tensor):
        with pytest.raises((ValueError, OverflowError)):
            call(index)
    with pytest.raises((ValueError, OverflowError)):
        allocated.set_tensor(index, np.zeros((1, 4), np.float32))


def test_bad_index_type(allocated):
    with pytest.raises(TypeError):
        allocated.get_tensor("input")


def test_resize_errors(allocated):
    with pytest.raises(ValueError, match="not a graph input"):
        allocated.resize_tensor_input(3, [1, 3])
    with pytest.raises(ValueError, match="rank"):
        allocated.resize_tensor_input(0, [1, 4, 1])
    with pytest.raises(ValueError):
        allocated.resize_tensor_input(0, [-3, 4])
    with pytest.raises(ValueError):
        allocated.resize_tensor_input(0, [2**40, 4])
    # Past the runtime's tensor byte limit: refused at resize.
    with pytest.raises(RuntimeError, match="exceeds"):
        allocated.resize_tensor_input(0, [2**29, 4])
    # Past the arena limit (1 GiB): refused at allocate, nothing allocated.
    allocated.resize_tensor_input(0, [100_000_000, 4])
    with pytest.raises(RuntimeError, match="arena"):
        allocated.allocate_tensors()


def test_use_before_allocate(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    with pytest.raises(RuntimeError, match="AllocateTensors"):
        interpreter.invoke()
    with pytest.raises(RuntimeError, match="allocate_tensors"):
        interpreter.get_tensor(0)
    with pytest.raises(RuntimeError, match="allocate_tensors"):
        interpreter.set_tensor(0, np.zeros((1, 4), np.float32))
    interpreter.allocate_tensors()
    interpreter.resize_tensor_input(0, [2, 4])
    with pytest.raises(RuntimeError, match="allocate_tensors"):
        interpreter.get_tensor(0)


def test_invalid_graph_fails_at_allocate():
    writer = twl_writer.ModelWriter()
    a = writer.add_tensor("a", np.float32, [2, 3])
    b = writer.add_tensor("b", np.float32, [4, 5])
    c = writer.add_tensor("c", np.float32, [2, 3])
    writer.add_operator("ADD", [a, b], [c])
    writer.set_io([a, b], [c])
    interpreter = twl.Interpreter(model_content=writer.finish())
    with pytest.raises(ValueError, match=r"operator 0 \(ADD\)"):
        interpreter.allocate_tensors()


def test_corrupted_models_never_crash(tmp_path, mlp_model):
    """Truncations and random byte flips, in a child so that a crash shows
    as a failed test rather than a dead test run."""
    path = tmp_path / "mlp.twl"
    path.write_bytes(mlp_model[0])
    script = textwrap.dedent(f"""
        import random, numpy as np, tensorweave_lite as twl
        data = open({str(path)!r}, "rb").read()
        rng = random.Random(0)
        cases = [data[:n] for n in range(0, len(data), 7)]
        for _ in range(1500):
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            cases.append(bytes(b))
        ok = 0
        for case in cases:
            try:
                it = twl.Interpreter(model_content=case)
                it.allocate_tensors()
                for d in it.get_input_details():
                    it.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
                it.invoke()
                for d in it.get_output_details():
                    it.get_tensor(d["index"])
                ok += 1
            except (ValueError, RuntimeError):
                pass
        print("cases", len(cases), "ran", ok)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "cases" in result.stdout
