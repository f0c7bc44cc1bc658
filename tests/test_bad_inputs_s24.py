"""Defects the fifth round of tools/bad_input_sweep.py (--set s24: tw.lite's Interpreter and TFLiteConverter,
dynamic_rnn, image, quantization, string, sparse, TensorArray and queue ops with hostile run-time values, ONNX
nodes with hostile attributes) found, checked against tensorflow.compat.v1 2.21 where TF has the API."""

import numpy as np
import pytest
import tensorweave as tw

from tests.bad_inputs_util import expect_error, need_tf


def _sparse(tf):
    return tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [3, 3])


@pytest.mark.parametrize("dense_shape", [[2, 2], [3, 4], [1, 3, 3]])
def test_sparse_plus_a_dense_tensor_of_another_shape_is_invalid_argument(dense_shape):
    # Was a silent [2, 2] result for a [3, 3] SparseTensor plus a [2, 2] dense tensor (entries lost); TF's
    # SparseTensorDenseAdd refuses a dense shape that is not the SparseTensor's.
    def build(tf):
        dense = tf.placeholder_with_default(tf.ones(dense_shape), None)
        return tf.sparse_add(_sparse(tf), dense)

    expect_error(tw, build, tw.errors.InvalidArgumentError, "is not the dense shape")


def test_sparse_plus_a_dense_tensor_of_the_same_shape_as_tensorflow():
    def build(tf):
        return tf.sparse_add(_sparse(tf), tf.placeholder_with_default(tf.ones([3, 3]), None))

    results = []
    for lib in (tw, need_tf()):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(build(lib)))
    np.testing.assert_array_equal(*results)


@pytest.mark.parametrize("op", ["mul", "div"])
@pytest.mark.parametrize("dense_shape", [[4], [2, 3], [3, 2]])
def test_sparse_times_a_dense_tensor_that_does_not_broadcast_is_invalid_argument(op, dense_shape):
    # Was a silent result: a [4] dense tensor "broadcast" to a [3, 3] SparseTensor read its entries at the
    # SparseTensor's column indices. TF's SparseDenseCwiseMul/Div only broadcast dims of size 1.
    def build(tf):
        dense = tf.ones(dense_shape)
        sp = _sparse(tf)
        return (sp * dense if op == "mul" else sp / dense).values

    expect_error(tw, build, tw.errors.InvalidArgumentError, "does not broadcast to the sparse shape")


@pytest.mark.parametrize("dense_shape", [[3], [1, 3], [3, 1], [3, 3], []])
def test_sparse_times_a_dense_tensor_that_broadcasts_as_tensorflow(dense_shape):
    def build(tf):
        dense = tf.reshape(tf.range(1.0, float(1 + np.prod(dense_shape, dtype=int))), dense_shape)
        return (_sparse(tf) * dense).values

    results = []
    for lib in (tw, need_tf()):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(build(lib)))
    np.testing.assert_array_equal(*results)


def _frozen_graph(tmp_path, lib):
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [1, 2], name="x")
        lib.identity(x * 2.0, name="y")
        z = lib.placeholder(lib.float32, [None, 2], name="z")
        lib.identity(z * 2.0, name="w")
    path = tmp_path / f"{lib.__name__}.pb"
    path.write_bytes(g.as_graph_def().SerializeToString())
    return str(path)


@pytest.mark.parametrize(
    "inputs, outputs, shapes",
    [(["x"], ["y"], {"x": [2, 5]}), (["x"], ["y"], {"x": [2]}), (["z"], ["w"], {"z": [3, 3]})],
)
def test_lite_converter_input_shapes_that_change_a_known_dim_is_value_error(tmp_path, inputs, outputs, shapes):
    # Was accepted: input_shapes replaced the placeholder's shape, known dims included (a [1, 2] input
    # converted as [2, 5]). TF's from_frozen_graph sets the shape, which refuses to change a known dim.
    with pytest.raises(ValueError, match="cannot be changed from"):
        tw.lite.TFLiteConverter.from_frozen_graph(_frozen_graph(tmp_path, tw), inputs, outputs, shapes).convert()
    tf = need_tf()
    with pytest.raises(ValueError):
        tf.lite.TFLiteConverter.from_frozen_graph(_frozen_graph(tmp_path, tf), inputs, outputs, shapes).convert()


def test_lite_converter_input_shapes_may_set_an_unknown_dim(tmp_path):
    model = tw.lite.TFLiteConverter.from_frozen_graph(_frozen_graph(tmp_path, tw), ["z"], ["w"], {"z": [3, 2]})
    pytest.importorskip("tensorweave_lite")
    interpreter = tw.lite.Interpreter(model_content=model.convert())
    assert interpreter.get_input_details()[0]["shape"].tolist() == [3, 2]


def _one_node(op, attributes=None, inputs=("x",), initializers=(), x_shape=(2, 3)):
    from onnx import helper

    from tests.onnx_lite_util import make_model

    node = helper.make_node(op, list(inputs), ["z"], **(attributes or {}))
    return make_model([node], [("x", np.float32, list(x_shape))], [("z", np.float32, None)], list(initializers))


@pytest.mark.parametrize(
    "op, attributes, fragment",
    [
        ("Softmax", {"axis": 1.5}, "attribute 'axis' is FLOAT; Softmax takes INT"),
        ("Concat", {"axis": [1]}, "attribute 'axis' is INTS; Concat takes INT"),
        ("Transpose", {"perm": "ab"}, "attribute 'perm' is STRING; Transpose takes INTS"),
    ],
)
def test_onnx_attribute_of_the_wrong_type_is_conversion_error(op, attributes, fragment):
    # Was a TypeError traceback from the rule reading it ("list indices must be integers or slices, not
    # float"); onnx.checker refuses such a node in a file, a ModelProto given directly was not checked.
    pytest.importorskip("onnx")
    from converters import onnx_import
    from converters.errors import ConversionError

    inputs = ("x", "x") if op == "Concat" else ("x",)
    with pytest.raises(ConversionError, match=fragment):
        onnx_import.convert(_one_node(op, attributes, inputs))


def _malformed(case):
    f32, i64 = np.float32, np.int64
    nchw, w = (1, 2, 4, 4), ("w", np.ones([2, 2, 3, 3], f32))
    return {
        "pad_len": (("Pad", None, ("x", "p"), [("p", np.array([1, 1], i64))]), "malformed node (IndexError"),
        "cast_to": (("Cast", {"to": 999}), "to=999 is not an ONNX tensor data type"),
        "lrn_size0": (("LRN", {"size": 0}, ("x",), (), nchw), "size 0 must be positive"),
        "conv_bias_len": (
            ("Conv", None, ("x", "w", "b"), [w, ("b", np.ones([5], f32))], nchw),
            "bias of shape [5] is not one value per output channel (2)",
        ),
        "conv_kernel_shape": (
            ("Conv", {"kernel_shape": [5, 5]}, ("x", "w"), [w], nchw),
            "kernel_shape [5, 5] is not the weights' spatial shape [3, 3]",
        ),
        "conv_transpose_output_shape": (
            ("ConvTranspose", {"output_shape": [1, 1]}, ("x", "w"), [w], nchw),
            "malformed node (IndexError",
        ),
        "batch_norm_scale_len": (
            (
                "BatchNormalization",
                None,
                ("x", "s", "b", "m", "v"),
                [("s", np.ones([5], f32))] + [(n, np.ones([2], f32)) for n in "bmv"],
                nchw,
            ),
            "malformed node (ValueError",
        ),
    }[case]


@pytest.mark.parametrize(
    "case",
    [
        "pad_len",
        "cast_to",
        "lrn_size0",
        "conv_bias_len",
        "conv_kernel_shape",
        "conv_transpose_output_shape",
        "batch_norm_scale_len",
    ],
)
def test_onnx_node_with_hostile_values_is_conversion_error_naming_it(case):
    # Each was a bare IndexError, KeyError, ZeroDivisionError or numpy ValueError traceback from the node's
    # conversion rule; now a ConversionError naming the node ('z') and its op.
    pytest.importorskip("onnx")
    from converters import onnx_import
    from converters.errors import ConversionError

    args, fragment = _malformed(case)
    with pytest.raises(ConversionError) as info:
        onnx_import.convert(_one_node(*args))
    assert f"'z' ({args[0]})" in str(info.value) and fragment in str(info.value), str(info.value)


@pytest.mark.parametrize("model_path", [7, 2.5, ["m.twl"]])
def test_lite_interpreter_model_path_that_is_not_a_path_is_type_error(model_path):
    # Was ValueError "Could not open '7'" (an int passed os.path.isfile as a file descriptor); TF: TypeError.
    pytest.importorskip("tensorweave_lite")
    with pytest.raises(TypeError, match="model_path must be a str, bytes or os.PathLike"):
        tw.lite.Interpreter(model_path=model_path)
    with pytest.raises(TypeError):
        need_tf().lite.Interpreter(model_path=model_path)


def test_sparse_slice_of_a_negative_size_is_invalid_argument():
    # Was an empty SparseTensor; TF's SparseSlice: "Expected a non-negative size, got -1".
    def build(tf):
        size = tf.placeholder_with_default(np.array([-1, 2], np.int64), None)
        return tf.sparse.slice(_sparse(tf), [0, 0], size).indices

    expect_error(tw, build, tw.errors.InvalidArgumentError, "Expected a non-negative size")


def test_sparse_slice_as_tensorflow():
    def build(tf):
        return tf.sparse.to_dense(tf.sparse.slice(_sparse(tf), [1, 0], [5, 2]))

    results = []
    for lib in (tw, need_tf()):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(build(lib)))
    np.testing.assert_array_equal(*results)
