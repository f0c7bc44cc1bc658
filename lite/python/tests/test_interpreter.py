"""tensorweave_lite.Interpreter against numpy references."""

import gc

import numpy as np
import pytest

import tensorweave_lite as twl
import twl_writer


def test_details_follow_tflite(mlp_path):
    interpreter = twl.Interpreter(model_path=mlp_path)
    interpreter.allocate_tensors()
    (inp,) = interpreter.get_input_details()
    (out,) = interpreter.get_output_details()
    assert inp["name"] == "input" and inp["index"] == 0
    assert inp["shape"].dtype == np.int32
    np.testing.assert_array_equal(inp["shape"], [1, 4])
    np.testing.assert_array_equal(inp["shape_signature"], [-1, 4])
    assert inp["dtype"] is np.float32
    assert inp["quantization"] == (0.0, 0)
    assert set(inp["quantization_parameters"]) == {"scales", "zero_points", "quantized_dimension"}
    assert out["name"] == "probs"
    np.testing.assert_array_equal(out["shape"], [1, 2])


@pytest.mark.parametrize("num_threads", [None, 1, 2])
def test_mlp_matches_numpy(mlp_path, mlp_model, num_threads):
    _, params = mlp_model
    interpreter = twl.Interpreter(model_path=mlp_path, num_threads=num_threads)
    interpreter.allocate_tensors()
    x = np.random.default_rng(1).standard_normal((1, 4)).astype(np.float32)
    interpreter.set_tensor(0, x)
    interpreter.invoke()
    out = interpreter.get_output_details()[0]["index"]
    np.testing.assert_allclose(interpreter.get_tensor(out), twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)


def test_model_content_and_resize(mlp_model):
    data, params = mlp_model
    interpreter = twl.Interpreter(model_content=data)
    interpreter.resize_tensor_input(0, [5, 4], strict=True)
    interpreter.allocate_tensors()
    x = np.random.default_rng(2).random((5, 4), dtype=np.float32)
    interpreter.set_tensor(0, x)
    interpreter.invoke()
    result = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    assert result.shape == (5, 2)
    np.testing.assert_allclose(result, twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(interpreter.get_input_details()[0]["shape"], [5, 4])


def test_strict_resize_rejects_static_dim(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    with pytest.raises(ValueError, match="not dynamic"):
        interpreter.resize_tensor_input(0, [1, 5], strict=True)


def test_get_tensor_is_a_copy_and_tensor_is_a_view(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    interpreter.allocate_tensors()
    view = interpreter.tensor(0)
    view()[...] = 3.0  # writes straight into the input
    copy = interpreter.get_tensor(0)
    np.testing.assert_array_equal(copy, np.full((1, 4), 3.0, np.float32))
    copy[...] = 0
    np.testing.assert_array_equal(interpreter.get_tensor(0), np.full((1, 4), 3.0))
    # Output views see each invoke's result.
    out_index = interpreter.get_output_details()[0]["index"]
    out = interpreter.tensor(out_index)
    interpreter.invoke()
    np.testing.assert_array_equal(out(), interpreter.get_tensor(out_index))


def test_constant_tensors_are_readable_and_read_only(mlp_model):
    data, params = mlp_model
    interpreter = twl.Interpreter(model_content=data)
    names = [d["name"] for d in interpreter.get_tensor_details()]
    w = names.index("dense0/w")
    np.testing.assert_array_equal(interpreter.get_tensor(w), params[0][0])
    assert not interpreter.tensor(w)().flags.writeable
    with pytest.raises(ValueError, match="constant"):
        interpreter.set_tensor(w, np.zeros_like(params[0][0]))


def test_view_blocks_replanning(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    interpreter.allocate_tensors()
    view = interpreter.tensor(0)()
    interpreter.resize_tensor_input(0, [3, 4])
    with pytest.raises(RuntimeError, match="view"):
        interpreter.allocate_tensors()
    del view
    gc.collect()
    interpreter.allocate_tensors()
    assert interpreter.tensor(0)().shape == (3, 4)


def test_signature_runner(mlp_model):
    data, params = mlp_model
    interpreter = twl.Interpreter(model_content=data)
    assert interpreter.get_signature_list() == {"serving_default": {"inputs": ["x"], "outputs": ["probs"]}}
    runner = interpreter.get_signature_runner()
    assert interpreter.get_signature_runner("serving_default") is not None
    for batch in (1, 7, 2):
        x = np.random.default_rng(batch).random((batch, 4), dtype=np.float32)
        outputs = runner(x=x)
        assert list(outputs) == ["probs"]
        np.testing.assert_allclose(outputs["probs"], twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)
    assert set(runner.get_input_details()) == {"x"}
    with pytest.raises(ValueError, match="missing"):
        runner()
    with pytest.raises(ValueError, match="unknown"):
        runner(x=np.zeros((1, 4), np.float32), y=1)
    with pytest.raises(ValueError, match="no signature"):
        interpreter.get_signature_runner("nope")


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_two_inputs_two_outputs(dtype):
    interpreter = twl.Interpreter(model_content=twl_writer.two_outputs(dtype))
    interpreter.allocate_tensors()
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((2, 3)) * 10).astype(dtype)
    b = (rng.standard_normal((2, 3)) * 10).astype(dtype)
    ia, ib = (d["index"] for d in interpreter.get_input_details())
    interpreter.set_tensor(ia, a)
    interpreter.set_tensor(ib, b)
    interpreter.invoke()
    s, d = (interpreter.get_tensor(o["index"]) for o in interpreter.get_output_details())
    expected_sum = np.maximum(a + b, 0) if dtype == np.float32 else a + b
    np.testing.assert_array_equal(s, expected_sum)
    np.testing.assert_array_equal(d, a - b)
    assert s.dtype == dtype
    with pytest.raises(ValueError, match="no signature|signatures"):
        interpreter.get_signature_runner()


def test_model_content_is_kept_alive_without_copy(mlp_model):
    data = bytearray(mlp_model[0])
    interpreter = twl.Interpreter(model_content=data)
    # A bytearray is copied (it could change after verification): the
    # interpreter holds no export of it, so it can be resized.
    data.extend(b"x")
    # bytes are immutable: used in place and kept alive by the interpreter.
    content = bytes(mlp_model[0])
    interpreter = twl.Interpreter(model_content=content)
    del content, data
    gc.collect()
    interpreter.allocate_tensors()
    x = np.ones((1, 4), np.float32)
    interpreter.set_tensor(0, x)
    interpreter.invoke()
    out = interpreter.get_output_details()[0]["index"]
    # The weights are read from the kept-alive bytes: the model's answer.
    np.testing.assert_allclose(
        interpreter.get_tensor(out), twl_writer.mlp_reference(x, mlp_model[1]), rtol=1e-5, atol=1e-6
    )


def test_misaligned_content_is_accepted(mlp_model):
    padded = b"\0" + mlp_model[0]
    content = memoryview(padded)[1:]
    assert content.nbytes == len(mlp_model[0])
    interpreter = twl.Interpreter(model_content=content)
    interpreter.allocate_tensors()
    x = np.random.default_rng(3).standard_normal((1, 4)).astype(np.float32)
    interpreter.set_tensor(0, x)
    interpreter.invoke()
    out = interpreter.get_output_details()[0]["index"]
    # Misaligned buffers are read correctly (not just without a crash).
    np.testing.assert_allclose(
        interpreter.get_tensor(out), twl_writer.mlp_reference(x, mlp_model[1]), rtol=1e-5, atol=1e-6
    )


def test_arena_size_comes_from_the_runtime(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    assert interpreter.arena_size() == 0
    interpreter.allocate_tensors()
    small = interpreter.arena_size()
    assert small > 0
    interpreter.resize_tensor_input(0, [64, 4])
    interpreter.allocate_tensors()
    assert interpreter.arena_size() > small


def test_set_tensor_fast_path_takes_exact_arrays_only(mlp_model):
    interpreter = twl.Interpreter(model_content=mlp_model[0])
    interpreter.allocate_tensors()
    fast = interpreter._impl.set_tensor_fast
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    assert fast(0, x) is True
    np.testing.assert_array_equal(interpreter.tensor(0)(), x)
    wide = np.arange(8, dtype=np.float32).reshape(1, 8)
    for value in (x.astype(np.float64), x.reshape(4), x.reshape(2, 2), wide[:, ::2], x.tolist(), b"\0" * 16, "text"):
        assert fast(0, value) is False, value
    assert fast(10**30, x) is False
    assert fast(-1, x) is False
    constant = next(d["index"] for d in interpreter.get_tensor_details() if d["name"] not in ("input", "probs"))
    assert fast(constant, np.zeros(interpreter.tensor(constant)().shape, np.float32)) is False
    # Refusals changed nothing; set_tensor converts or explains them.
    np.testing.assert_array_equal(interpreter.tensor(0)(), x)
    interpreter.set_tensor(0, wide[:, ::2])
    np.testing.assert_array_equal(interpreter.tensor(0)(), wide[:, ::2])


def test_get_tensor_follows_resize(mlp_model):
    data, params = mlp_model
    interpreter = twl.Interpreter(model_content=data)
    interpreter.allocate_tensors()
    out = interpreter.get_output_details()[0]["index"]
    for rows in (1, 3, 2):
        interpreter.resize_tensor_input(0, [rows, 4])
        interpreter.allocate_tensors()
        x = np.random.default_rng(rows).random((rows, 4), dtype=np.float32)
        interpreter.set_tensor(0, x)
        interpreter.invoke()
        first = interpreter.get_tensor(out)
        assert first.shape == (rows, 2)
        np.testing.assert_allclose(first, twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)
        interpreter.set_tensor(0, x * 2)
        interpreter.invoke()
        assert not np.array_equal(interpreter.get_tensor(out), first)
        np.testing.assert_allclose(first, twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)  # still a copy


def test_reports_the_vector_kernels_it_runs():
    from tensorweave_lite import _interpreter

    assert _interpreter.KERNEL_ISA in {"avx512", "avx2", "avx", "sse2", "neon"}
    assert _interpreter.MULTI_ISA in (0, 1)
    if _interpreter.MULTI_ISA:  # a portable x86-64 build picks from three
        assert _interpreter.KERNEL_ISA in {"avx512", "avx2", "sse2"}


def _non_zero_model():
    """x float32 [2, 3] -> NON_ZERO -> y int64 [2, count]: an output whose
    shape each invoke sets (a dynamic tensor)."""
    w = twl_writer.ModelWriter()
    x = w.add_tensor("x", np.float32, [2, 3])
    y = w.add_tensor("y", np.int64, [2, 1])
    w.add_operator("NON_ZERO", [x], [y])
    w.set_io([x], [y])
    return w.finish()


def test_dynamic_output_takes_each_invokes_shape():
    interpreter = twl.Interpreter(model_content=_non_zero_model())
    interpreter.allocate_tensors()
    x, y = interpreter.get_input_details()[0]["index"], interpreter.get_output_details()[0]["index"]
    for value in ([[0, 1, 0], [2, 0, 3]], [[1, 1, 1], [1, 1, 1]], [[0, 0, 0], [0, 0, 0]], [[0, 0, 5], [0, 0, 0]]):
        value = np.array(value, np.float32)
        interpreter.set_tensor(x, value)
        interpreter.invoke()
        got = interpreter.get_tensor(y)
        np.testing.assert_array_equal(got, np.array(np.nonzero(value), np.int64))
    # get_tensor keeps no view of it, so nothing blocks the next invoke.
    interpreter.invoke()


def test_a_view_of_a_dynamic_tensor_blocks_invoke():
    # invoke may move a dynamic tensor's memory: it refuses to run under a
    # live view of one, and runs again once the view is gone.
    interpreter = twl.Interpreter(model_content=_non_zero_model())
    interpreter.allocate_tensors()
    x, y = interpreter.get_input_details()[0]["index"], interpreter.get_output_details()[0]["index"]
    interpreter.set_tensor(x, np.array([[1, 0, 1], [0, 1, 0]], np.float32))
    interpreter.invoke()
    view = interpreter.tensor(y)()
    np.testing.assert_array_equal(view, [[0, 0, 1], [0, 2, 1]])
    interpreter.set_tensor(x, np.ones((2, 3), np.float32))
    with pytest.raises(RuntimeError, match="while 1 numpy view"):
        interpreter.invoke()
    del view
    gc.collect()
    interpreter.invoke()
    assert interpreter.tensor(y)().shape == (2, 6)
