"""Defects tools/bad_input_sweep.py found: hostile arguments that gave a silently wrong value or the wrong error
class, checked against tensorflow.compat.v1 2.21 on the same program."""

import os
import subprocess
import sys

import pytest
import tensorweave as tw

from tests.bad_inputs_util import error_of, expect_error, need_tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("axes", [[[5], [0]], [[1], [2]]])
def test_tensordot_axis_out_of_range_is_index_error(axes):
    # An axis past the rank was taken modulo the rank: a value where TF raises IndexError.
    error = expect_error(tw, lambda tf: tf.tensordot(tf.zeros([2, 3]), tf.zeros([3, 2]), axes), IndexError)
    assert "out of range" in str(error)


def test_histogram_fixed_width_nan_values_are_invalid_argument():
    # NaN was counted in the first bin.
    build = lambda tf: tf.histogram_fixed_width([float("nan"), 1.0], [0.0, 2.0], nbins=2)
    expect_error(tw, build, tw.errors.InvalidArgumentError, "Histogram values must not contain NaN")


def test_histogram_fixed_width_finite_values_still_count(sess):
    out = tw.histogram_fixed_width([-1.0, 0.0, 1.5, float("inf"), 5.0], [0.0, 5.0], nbins=5)
    assert sess.run(out).tolist() == [2, 1, 0, 0, 2]


def test_sparse_split_zero_splits_is_value_error():
    # num_split=0 raised IndexError from an empty list.
    build = lambda tf: tf.sparse.split(sp_input=tf.SparseTensor([[0, 0]], [1.0], [2, 2]), num_split=0, axis=0)
    expect_error(tw, build, ValueError, "num_split")


@pytest.mark.parametrize("pos,length", [(1, -2), (0, -1), (-3, -5), (2, 10)])
def test_substr_negative_len_reads_to_the_end(pos, length):
    # A negative len gave b'' where TF's kernel reads to the end of the string.
    tf1 = need_tf()
    results = []
    for lib in (tw, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(lib.strings.substr("hello", pos, length)))
    assert results[0] == results[1], results


def test_substr_pos_out_of_range_is_still_invalid_argument():
    assert isinstance(error_of(tw, lambda tf: tf.strings.substr("hello", 10, -1)), tw.errors.InvalidArgumentError)


def test_sweep_tool_classifies_a_case():
    # The sweep itself: tensorweave only, two cases, in a worker subprocess.
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "bad_input_sweep.py"), "--no-tf", "--only", "gather_n"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cases:" in proc.stdout and "crash" not in proc.stdout, proc.stdout


def _conv_model(**attrs):
    helper = pytest.importorskip("onnx.helper")
    import numpy as np

    from tests.onnx_lite_util import make_model

    node = helper.make_node("Conv", ["x", "w"], ["y"], **attrs)
    f32 = np.float32
    return make_model(
        [node], [("x", f32, [1, 1, 4, 4])], [("y", f32, [1, 1, "h", "w"])], [("w", np.ones([1, 1, 2, 2], f32))]
    )


@pytest.mark.parametrize(
    "attrs,fragment", [({"strides": [0, 0]}, "strides [0, 0]"), ({"dilations": [-1, 1]}, "dilations [-1, 1]")]
)
def test_onnx_conv_non_positive_stride_or_dilation_is_conversion_error(attrs, fragment):
    # strides=[0, 0] raised ZeroDivisionError from the SAME-padding arithmetic.
    from converters import onnx_import
    from converters.errors import ConversionError

    with pytest.raises(ConversionError, match=r"'y' \(Conv\)") as info:
        onnx_import.convert(_conv_model(**attrs))
    assert fragment in str(info.value) and "must be positive" in str(info.value)


def test_onnx_initializer_with_unknown_data_type_is_conversion_error():
    # An unknown TensorProto data_type raised KeyError: 9999 from onnx.numpy_helper.
    from converters import onnx_import
    from converters.errors import ConversionError

    model = _conv_model()
    model.graph.initializer[0].data_type = 9999
    with pytest.raises(ConversionError, match="initializer 'w' \\(data_type 9999\\) is malformed"):
        onnx_import.convert(model)


def test_substr_pos_and_len_shape_mismatch_is_caught_at_graph_build():
    # Was only an InvalidArgumentError at run time; TF's shape function raises ValueError.
    build = lambda tf: tf.raw_ops.Substr(input=["ab"], pos=[0, 1], len=[1])
    expect_error(tw, build, ValueError, "pos and len shapes must match: [2] vs. [1]")


def test_raw_ops_take_tensorflows_argument_names():
    # tw.raw_ops used the op defs' names (Sum(reduction_indices=), Split(split_dim=), TanhGrad(x=, y=)) where
    # tf.raw_ops takes TensorFlow's api_def names: Sum(axis=) raised TypeError.
    tf1 = need_tf()
    results = []
    for lib in (tw, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            r = lib.raw_ops
            results.append(
                sess.run(
                    [
                        r.Sum(input=[[1.0, 2.0], [3.0, 4.0]], axis=1),
                        r.Split(axis=0, value=[1.0, 2.0], num_split=2),
                        r.Select(condition=[True, False], x=[1, 2], y=[3, 4]),
                        r.TanhGrad(y=[0.5], dy=[2.0]),
                        r.Squeeze(input=[[1.0]], axis=[0]),
                    ]
                )
            )
    for ours, theirs in zip(*results):
        assert str(ours) == str(theirs), (ours, theirs)
    with tw.Graph().as_default(), pytest.raises(TypeError, match="both"):
        tw.raw_ops.Sum(input=[1.0], axis=0, reduction_indices=0)
