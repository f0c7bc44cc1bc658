"""Checks of the misc top-level names that the fidelity cases cannot observe: what tf.Print writes to stderr,
Assert's message, scatter updates seen by a reader's snapshot, and the in-place path."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw


def test_print_writes_message_and_summarized_data_to_stderr():
    code = textwrap.dedent(
        """
        import tensorweave as tw
        with tw.Graph().as_default(), tw.Session() as sess:
            x = tw.constant([1.5, 2.0, 3.0, 4.0])
            y = tw.Print(x, [x, tw.constant("s")], message="value: ", first_n=2, summarize=2)
            for _ in range(3):
                sess.run(y)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("value: ")]
    assert lines == ["value: [1.5 2...][s]"] * 2  # first_n=2 of 3 runs; TF's SummarizeValue format


def test_assert_message_names_the_data():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.int32, [None])
        check = tw.assert_less(x, 3, message="too big")
        sess.run(check, {x: [1, 2]})
        with pytest.raises(tw.errors.InvalidArgumentError) as e:
            sess.run(check, {x: [1, 5, 7, 9]})
        msg = str(e.value)
        assert "assertion failed: [too big] [Condition x < y did not hold element-wise:]" in msg
        assert "[1 5 7...]" in msg


def test_scatter_update_keeps_earlier_snapshot_and_updates_in_place():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(np.zeros([3, 2], np.float32))
        sess.run(v.initializer)
        before = sess.run(v)
        sess.run(tw.scatter_add(v, [0, 0, 2], np.ones([3, 2], np.float32)))
        np.testing.assert_array_equal(before, np.zeros([3, 2]))
        np.testing.assert_array_equal(sess.run(v), [[2, 2], [0, 0], [1, 1]])
        # A scalar update broadcasts over the slices (TF allows it).
        sess.run(tw.scatter_update(v, [1], 5.0))
        np.testing.assert_array_equal(sess.run(v)[1], [5, 5])


def test_scatter_on_uninitialized_variable_is_failed_precondition():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(np.zeros([3], np.float32))
        with pytest.raises(tw.errors.FailedPreconditionError):
            sess.run(tw.scatter_update(v, [0], [1.0]))


def test_scatter_index_error_names_the_index():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(np.zeros([3], np.float32))
        sess.run(v.initializer)
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 3\)"):
            sess.run(tw.scatter_sub(v, [0, 7], [1.0, 1.0]))
        with pytest.raises(tw.errors.InvalidArgumentError, match="Integer division by zero"):
            w = tw.Variable([4, 4])
            sess.run(w.initializer)
            sess.run(tw.scatter_div(w, [0], [0]))


def test_dynamic_partition_error_names_the_partition():
    with (
        tw.Graph().as_default(),
        tw.Session() as sess,
        pytest.raises(tw.errors.InvalidArgumentError, match=r"partitions\[2\] = 5 is not in \[0, 2\)"),
    ):
        sess.run(tw.dynamic_partition([1, 2, 3], [0, 1, 5], 2))


def test_make_tensor_proto_round_trips_through_a_const():
    proto = tw.make_tensor_proto(np.arange(6, dtype=np.float64).reshape(2, 3))
    np.testing.assert_array_equal(tw.make_ndarray(proto), np.arange(6).reshape(2, 3))
    with tw.Graph().as_default(), tw.Session() as sess:
        c = tw.constant(tw.make_ndarray(proto))
        np.testing.assert_array_equal(sess.run(c), np.arange(6).reshape(2, 3))


def test_wrappers_build_the_ops_tensorflow_names_and_they_run():
    """Each wrapper builds the op TF1 builds (its type, as TF's GraphDef would show it) and the op runs."""
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable([1.0, 2.0, 3.0])
        counter = tw.Variable(0)
        sess.run(tw.global_variables_initializer())
        built = {
            "ScatterUpdate": tw.scatter_update(v, [0], [5.0]),
            "ScatterAdd": tw.scatter_add(v, [1], [1.0]),
            "ScatterSub": tw.scatter_sub(v, [1], [1.0]),
            "ScatterMul": tw.scatter_mul(v, [2], [2.0]),
            "ScatterDiv": tw.scatter_div(v, [2], [2.0]),
            "ScatterMin": tw.scatter_min(v, [0], [4.0]),
            "ScatterMax": tw.scatter_max(v, [0], [6.0]),
            "ScatterNdUpdate": tw.scatter_nd_update(v, [[1]], [7.0]),
            "ScatterNdAdd": tw.scatter_nd_add(v, [[1]], [1.0]),
            "ScatterNdSub": tw.scatter_nd_sub(v, [[1]], [1.0]),
            "CountUpTo": tw.count_up_to(counter, 3),
            "EncodeBase64": tw.encode_base64(tw.constant(["ab"])),
            "ScalarSummary": tw.summary.scalar("s", tw.constant(1.0)),
            "HistogramSummary": tw.summary.histogram("h", tw.constant([1.0, 2.0])),
            "ImageSummary": tw.summary.image("i", tw.zeros([1, 2, 2, 3])),
            "AudioSummaryV2": tw.summary.audio("a", tw.zeros([1, 8]), 8000),
            "TensorSummaryV2": tw.summary.tensor_summary("t", tw.constant([1.0])),
        }
        built["MergeSummary"] = tw.summary.merge([built["ScalarSummary"], built["HistogramSummary"]])
        built["Assert"] = tw.Assert(tw.constant(True), [tw.constant(1)])
        built["Print"] = tw.Print(tw.constant(1.0), [])
        built["DecodeBase64"] = tw.decode_base64(built["EncodeBase64"])
        for op_type, t in built.items():
            op = t if isinstance(t, tw.Operation) else t.op
            assert op.type == op_type, (op_type, op.type)
            sess.run(op)
        np.testing.assert_array_equal(sess.run(built["DecodeBase64"]), [b"ab"])
