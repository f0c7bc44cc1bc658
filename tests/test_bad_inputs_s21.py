"""Defects the second round of tools/bad_input_sweep.py (--set s21 and --set files) found: hostile arguments and
files that gave a silently wrong value, a Python error from inside tensorweave or the wrong error class, checked
against tensorflow.compat.v1 2.21 on the same program."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw
from google.protobuf import text_format

from tests.bad_inputs_util import error_of, expect_error, need_tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAN = float("nan")


def _values(build, feed=None):
    """[tensorweave's value, TF's value] of the fetches `build(lib)` makes."""
    tf1 = need_tf()
    results = []
    for lib in (tw, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            fetches = build(lib)
            results.append(sess.run(fetches, feed(fetches) if feed else None))
    return results


@pytest.mark.parametrize("lo,hi", [(8.0, 2.0), (2.0, 8.0), ([9.0, 0.0, 9.0], 1.0)])
def test_clip_by_value_with_min_above_max_gives_min(lo, hi):
    # The kernel clipped to min first, then max: 2.0 where TF (minimum, then maximum) gives 8.0.
    ours, theirs = _values(lambda tf: tf.clip_by_value([0.0, 5.0, 10.0], lo, hi))
    np.testing.assert_array_equal(ours, theirs)


def test_clip_by_value_keeps_nan(sess):
    assert np.isnan(sess.run(tw.clip_by_value([NAN, 3.0], 0.0, 1.0))[0])


@pytest.mark.parametrize("clip_norm", [-1.0, "tensor"])
def test_clip_by_norm_negative_clip_norm_counts_as_zero(clip_norm):
    # A negative clip_norm flipped the sign of t where TF clips to 0.
    def build(tf):
        norm = tf.constant(-2.0) if clip_norm == "tensor" else clip_norm
        return tf.clip_by_norm([3.0, 4.0], norm)

    ours, theirs = _values(build)
    np.testing.assert_array_equal(ours, theirs)
    assert ours.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("compute_uv", [False, True])
def test_svd_of_a_matrix_with_nan_is_nan(compute_uv):
    # Eigen's SVD of a NaN matrix gave finite garbage (2.99e32, 1.4e-43); TF gives NaN.
    def build(tf):
        a = tf.placeholder_with_default(np.array([[NAN, 1.0], [2.0, 3.0]], np.float32), [2, 2])
        return tf.svd(a, compute_uv=compute_uv)

    ours, theirs = _values(build)
    for o, t in zip(ours if compute_uv else [ours], theirs if compute_uv else [theirs]):
        assert o.shape == t.shape and np.isnan(o).all() and np.isnan(t).all()


def test_svd_of_finite_matrices_unchanged(sess):
    a = np.array([[[3.0, 0.0], [0.0, 4.0]], [[np.inf, 0.0], [0.0, 1.0]]], np.float32)
    s = sess.run(tw.svd(a, compute_uv=False))
    assert s[0].tolist() == [4.0, 3.0] and np.isnan(s[1]).all()


@pytest.mark.parametrize("bad", [NAN, float("inf")])
def test_crop_and_resize_with_a_non_finite_box_is_invalid_argument(bad):
    # A NaN box gave a crop of NaN; TF rejects it.
    build = lambda tf: tf.image.crop_and_resize(tf.zeros([1, 4, 4, 1]), [[0.0, bad, 1.0, 1.0]], [0], [2, 2])
    expect_error(tw, build, tw.errors.InvalidArgumentError, "Boxes contains at least one element that is not finite")


def test_crop_and_resize_grad_with_a_nan_box_is_invalid_argument():
    def build(tf):
        image = tf.zeros([1, 4, 4, 1])
        boxes = tf.placeholder_with_default([[0.0, NAN, 1.0, 1.0]], [1, 4])
        return tf.gradients(tf.image.crop_and_resize(image, boxes, [0], [2, 2]), image)

    error = error_of(tw, build)
    assert isinstance(error, tw.errors.InvalidArgumentError) and "not finite" in str(error), repr(error)


def test_extract_image_patches_window_larger_than_the_image():
    # VALID patches of 9x9 in a 4x4 image gave an empty [1, 0, 0, 81] where TF's shape function raises.
    args = ([1, 9, 9, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    build = lambda tf: tf.extract_image_patches(tf.zeros([1, 4, 4, 1]), *args)
    expect_error(tw, build, ValueError, "Computed output size would be negative: -4", "effective_filter_size: 9")
    ph = lambda tf: tf.extract_image_patches(tf.placeholder_with_default(tf.zeros([1, 4, 4, 1]), None), *args)
    expect_error(tw, ph, tw.errors.InvalidArgumentError, "Computed output size would be negative", oracle=False)


def test_extract_image_patches_window_just_past_the_image_is_still_empty(sess):
    # TF's rule: an error only when the overhang reaches a stride; 5x5 in 4x4 is an empty output.
    out = tw.extract_image_patches(tw.zeros([1, 4, 4, 1]), [1, 5, 5, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    assert sess.run(out).shape == (1, 0, 0, 25)


@pytest.mark.parametrize("overlaps,scores", [([2, 3], [2]), ([2, 2], [3])])
def test_non_max_suppression_overlaps_shape_mismatch_at_graph_build(overlaps, scores):
    # Was only an InvalidArgumentError at run time; TF's shape function raises ValueError.
    build = lambda tf: tf.image.non_max_suppression_overlaps(tf.zeros(overlaps), tf.zeros(scores), 1)
    expect_error(tw, build, ValueError, "Dimensions must be equal, but are 2 and 3")


def test_irfft_of_an_empty_signal_is_empty(sess):
    # fft_length was inferred as 2 * (0 - 1) = -2: a ValueError where TF gives an empty result.
    ours, theirs = _values(lambda tf: tf.signal.irfft(tf.zeros([0], tf.complex64)))
    assert ours.shape == theirs.shape == (0,)
    # Of a run-time shape (TF's kernel aborts the process on this one, so tensorweave only).
    x = tw.placeholder_with_default(tw.zeros([2, 0], tw.complex64), [2, None])
    assert sess.run(tw.signal.irfft(x)).shape == (2, 0)


@pytest.mark.parametrize("make", ["frame", "hann_window"])
def test_signal_lengths_fed_at_run_time(make):
    # A frame_length or window_length tensor raised ImportError (tensor_util) from inside tw.signal.
    def build(tf):
        n = tf.placeholder_with_default(-2, [])
        return tf.signal.frame(tf.zeros([10]), n, 1) if make == "frame" else tf.signal.hann_window(n)

    expect_error(tw, build, tw.errors.InvalidArgumentError)
    ok = lambda tf: (
        tf.signal.frame(tf.zeros([10]), tf.constant(3), 2) if make == "frame" else tf.signal.hann_window(tf.constant(4))
    )
    ours, theirs = _values(ok)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


@pytest.mark.parametrize("lo,hi", [(1.0, -1.0), (0.5, -3.0), (-1.0, 1.0)])
def test_fake_quant_with_min_max_vars_inverted_range_matches_tensorflow(lo, hi):
    # With min > max the clamp took max first: -1.0039 where TF's cwiseMin(max).cwiseMax(min) gives 0.996.
    x = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, NAN]
    ours, theirs = _values(lambda tf: tf.quantization.fake_quant_with_min_max_vars(x, lo, hi))
    np.testing.assert_array_equal(ours, theirs)
    ours, theirs = _values(
        lambda tf: tf.quantization.fake_quant_with_min_max_vars_per_channel([x[:6]], [lo] * 6, [hi] * 6)
    )
    np.testing.assert_array_equal(ours, theirs)


def test_import_graph_def_with_an_invalid_data_type_is_value_error():
    # An enum value that is no DataType raised TypeError from DType conversion after the import.
    def build(tf):
        graph_def = tf.GraphDef()
        text_format.Parse('node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: 999 } } }', graph_def)
        tf.import_graph_def(graph_def, name="")

    expect_error(tw, build, ValueError, "'p'", "999")


def test_sweep_tool_runs_exec_and_file_cases():
    # The round-2 driver: statement-block cases (sessions, TFRecord files, GraphDefs), tensorweave only.
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "bad_input_sweep.py"), "--no-tf", "--only", "tfrecord_iter_"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = proc.stdout.strip().splitlines()[-1]
    assert int(counts.split(" cases:")[0]) >= 10, proc.stdout
    assert "tfrecord_iter_ok: tw=[" in proc.stdout, proc.stdout  # the exec block's value: the two records
    assert "tfrecord_iter_bad_data_crc: tw=DataLossError" in proc.stdout, proc.stdout
    assert "crash" not in proc.stdout and "hang" not in proc.stdout, proc.stdout


def test_reduce_join_axis_out_of_range_at_run_time_is_out_of_range():
    # Was InvalidArgumentError; TF's ReduceJoin kernel raises OutOfRangeError.
    build = lambda tf: tf.strings.reduce_join(["a", "b"], axis=tf.placeholder_with_default(3, []))
    expect_error(tw, build, tw.errors.OutOfRangeError, "Invalid reduction dimension 3")


def test_tensor_array_write_of_another_dtype_is_invalid_argument():
    # TF1 raises InvalidArgumentError (at graph build) with this message; it was a ValueError.
    build = lambda tf: tf.TensorArray(tf.float32, 2).write(0, tf.constant(1)).stack()
    error = expect_error(tw, build, tw.errors.InvalidArgumentError, "TensorArray dtype is float32")
    assert "int32" in str(error)


def test_lstsq_of_a_vector_names_the_rank():
    # Raised "not enough values to unpack (expected 2, got 1)" from inside matrix_solve_ls.
    with tw.Graph().as_default(), pytest.raises(ValueError, match=r"rank >= 2, got shape \(3,\)|rank >= 2"):
        tw.linalg.lstsq(tw.zeros([3]), tw.zeros([3]))


def test_onnx_pad_beyond_int32_is_a_conversion_error_naming_the_node(tmp_path, capsys):
    # pads of 2**40 raised OverflowError with a traceback from tensorweave-convert.
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from converters import cli

    graph = helper.make_graph(
        [helper.make_node("Pad", ["x", "p"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])],
        initializer=[numpy_helper.from_array(np.array([0, 2**40, 0, 0], np.int64), "p")],
    )
    source = tmp_path / "m.onnx"
    source.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    out = tmp_path / "m.twl"
    status = cli.main(["--input", str(source), "--output", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and not out.exists() and "Traceback" not in err
    assert "'y' (Pad): pads [0, 1099511627776, 0, 0] do not fit .twl's int32 dimensions" in err


def test_while_loop_body_returning_none_is_value_error():
    # Raised "Expected string, but got None" from constant conversion.
    build = lambda tf: tf.while_loop(lambda i: i < 3, lambda i: None, [tf.constant(0)])
    error = error_of(tw, build)
    assert isinstance(error, ValueError) and "body returned None" in str(error), repr(error)


def _sparse(tf):
    return tf.SparseTensor([[0, 0]], [1.0], [2, 2])


@pytest.mark.parametrize(
    "build,fragment",
    [
        (lambda tf: tf.sparse.expand_dims(_sparse(tf), 5).values, "axis 5 is out of range [-3, 2]"),
        (lambda tf: tf.sparse.retain(_sparse(tf), [True, False]).values, "to_retain has 2 entries"),
    ],
    ids=["expand_dims_axis", "retain_mask_length"],
)
def test_sparse_ops_reject_what_tf_rejects(build, fragment):
    # Both gave a value (the axis or mask was not checked); TF raises ValueError.
    expect_error(tw, build, ValueError, fragment)


def test_sparse_softmax_of_rank_1_is_invalid_argument():
    # Gave a softmax over the whole vector; TF's kernel needs rank >= 2.
    build = lambda tf: tf.sparse.softmax(tf.SparseTensor([[0]], [1.0], [2])).values
    expect_error(tw, build, tw.errors.InvalidArgumentError, "rank >= 2")


def test_sparse_softmax_of_rank_2_unchanged(sess):
    sp = tw.SparseTensor([[0, 0], [0, 1], [1, 0]], [1.0, 1.0, 3.0], [2, 2])
    np.testing.assert_allclose(sess.run(tw.sparse.softmax(sp).values), [0.5, 0.5, 1.0])


@pytest.mark.parametrize(
    "build,fragment",
    [
        (lambda tf: tf.gather_nd(tf.zeros([2, 3]), [[0]], batch_dims=3), "must be less than rank(`indices`) = 2"),
        (lambda tf: tf.linalg.diag(tf.zeros([3]), k=(2, 1)), "lower_diag_index is greater than upper_diag_index"),
        (lambda tf: tf.metrics.auc([1, 0], [0.5, 0.5], num_thresholds=1), "`num_thresholds` must be > 1."),
    ],
    ids=["gather_nd_batch_dims", "diag_k_inverted", "auc_one_threshold"],
)
def test_hostile_arguments_are_value_errors(build, fragment):
    # gather_nd and diag raised NotImplementedError (their unsupported features) before checking; auc built a
    # metric with no thresholds between 0 and 1.
    error = error_of(tw, build)
    assert isinstance(error, ValueError) and fragment in str(error), repr(error)


def test_saver_with_one_variable_under_two_names_is_value_error():
    # Was accepted (saved twice); TF raises ValueError.
    def build(tf):
        v = tf.Variable(1.0)
        tf.train.Saver({"a": v, "b": v})

    expect_error(tw, build, ValueError, "The same saveable will be restored with two names")


def _keras_error(build):
    """The error `build(keras)` raises with tw.keras and with tf_keras (None when it does not raise)."""
    errors = []
    for keras, lib in ((tw.keras, tw), (pytest.importorskip("tf_keras"), need_tf())):
        with lib.Graph().as_default():
            try:
                build(keras)
                errors.append(None)
            except Exception as error:  # noqa: BLE001 - the error is the result
                errors.append(error)
    return errors


@pytest.mark.parametrize(
    "target,fragment", [((5,), "total size of new array must be unchanged"), ((-1, 3), "total size")]
)
def test_keras_reshape_to_a_size_that_does_not_hold_the_input_is_value_error(target, fragment):
    # Reshape((5,)) of 4 features reshaped to [-1, 5]: a silently regrouped batch where tf_keras raises.
    ours, theirs = _keras_error(lambda keras: keras.layers.Reshape(target)(keras.Input((4,))))
    assert isinstance(ours, ValueError) and fragment in str(ours), repr(ours)
    assert isinstance(theirs, ValueError), repr(theirs)


def test_keras_reshape_keeps_the_batch_at_run_time(sess):
    # With features of unknown size the batch is kept, so a mismatch is a run-time error, not a new batch size.
    x = tw.placeholder(tw.float32, [None, None])
    y = tw.keras.layers.Reshape((2, -1))(x)
    assert y.shape.as_list() == [None, 2, None]
    assert sess.run(y, {x: np.ones([3, 4])}).shape == (3, 2, 2)
    with pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(tw.keras.layers.Reshape((5,))(x), {x: np.ones([4, 4])})


@pytest.mark.parametrize("batch_size", [0, -3, 2.5])
def test_keras_fit_with_a_bad_batch_size_is_value_error(batch_size):
    # batch_size=0 was taken as 32 (`batch_size or 32`).
    with tw.Graph().as_default():
        model = tw.keras.Sequential([tw.keras.layers.Dense(2, input_shape=(3,))])
        model.compile("sgd", "mse")
        with pytest.raises(ValueError, match="batch_size must be a positive integer"):
            model.fit(np.zeros([4, 3]), np.zeros([4, 2]), batch_size=batch_size, verbose=0)
        with pytest.raises(ValueError, match="batch_size must be a positive integer"):
            model.predict(np.zeros([4, 3]), batch_size=batch_size)


def test_keras_dense_units_as_tf_keras():
    # Dense(2.5) raised TypeError from a Dimension (tf_keras takes int(units)); Dense(-2) named a Dimension.
    with tw.Graph().as_default():
        assert tw.keras.layers.Dense(2.5)(tw.keras.Input((3,))).shape.as_list() == [None, 2]
        assert tw.keras.layers.Dense(units=np.int64(4))(tw.keras.Input((3,))).shape.as_list() == [None, 4]
    ours, theirs = _keras_error(lambda keras: keras.layers.Dense(-2)(keras.Input((3,))))
    assert isinstance(ours, ValueError) and "Received: units=-2" in str(ours), repr(ours)
    assert isinstance(theirs, ValueError) and "Received: units=-2" in str(theirs), repr(theirs)


@pytest.mark.parametrize("use", ["iterator", "writer"])
def test_tfrecord_of_a_directory_is_failed_precondition(tmp_path, use):
    # Was IsADirectoryError from open(); TF raises FailedPreconditionError.
    def build(tf):
        if use == "iterator":
            list(tf.python_io.tf_record_iterator(str(tmp_path)))
        else:
            tf.python_io.TFRecordWriter(str(tmp_path))

    expect_error(tw, build, tw.errors.FailedPreconditionError, "Is a directory")
