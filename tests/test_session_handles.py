"""Session tensor handles (TF1's tf.get_session_handle, tf.get_session_tensor, tf.delete_session_tensor and the
TensorHandle that Session.run returns): each scenario runs here and in TensorFlow (tf.compat.v1 in a graph,
skipped where TF is not installed) and the results, handle texts and error classes included, must agree."""

import gc

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.ops import session_ops

_TF1 = None


def _tf1():
    """tensorflow.compat.v1 in graph mode, or a skip."""
    global _TF1
    if _TF1 is None:
        tf1 = pytest.importorskip("tensorflow.compat.v1")
        tf1.disable_eager_execution()
        _TF1 = tf1
    return _TF1


def _both(scenario):
    """scenario(module, session) run in tensorweave and in TensorFlow, each in a fresh graph and session."""
    results = []
    for t in (tw, _tf1()):
        with t.Graph().as_default(), t.Session() as sess:
            results.append(scenario(t, sess))
    return results


def _error(fn):
    """The class name of what fn() raises (None when it does not)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return None


def test_documented_example_and_handle_text_match_tensorflow():
    def scenario(t, sess):
        a, b = t.constant(10.0), t.constant(5.0)
        c = t.multiply(a, b)
        h = sess.run(t.get_session_handle(c))
        p, a2 = t.get_session_tensor(h.handle, t.float32)
        b2 = t.multiply(a2, 10)
        value = sess.run(b2, feed_dict={p: h.handle})
        return type(h).__name__, h.handle, str(h), float(h.eval()), float(value), p.dtype.name, a2.dtype.name

    ours, theirs = _both(scenario)
    assert ours == theirs
    assert ours[1] == "GetSessionHandle;0;/job:localhost/replica:0/task:0/device:CPU:0"
    assert ours[3:5] == (50.0, 500.0)


def test_a_handle_fed_from_run_to_run_keeps_the_tensor_in_the_session():
    # TF's session_ops_test: a loop whose state never leaves the runtime.
    def scenario(t, sess):
        h = sess.run(t.get_session_handle(t.constant(0)))
        f, x = t.get_session_tensor(h.handle, t.int32)
        h_x = t.get_session_handle(t.add(x, 1))
        for _ in range(20):
            h = sess.run(h_x, feed_dict={f: h.handle})
        return int(h.eval()), h.handle.split(";")[0]

    ours, theirs = _both(scenario)
    assert ours == theirs == (20, "GetSessionHandle_1")


def test_feeding_the_handle_object_feeds_the_stored_tensor():
    def scenario(t, sess):
        a, b = t.constant(10.0), t.constant(5.0)
        c = t.multiply(a, b)
        d = t.multiply(c, c)
        h_c = sess.run(t.get_session_handle(c))
        x = t.placeholder(t.float32)
        ints = sess.run(t.get_session_handle(t.constant([1, 2])))
        return (
            float(sess.run(d, feed_dict={c: h_c})),
            float(sess.run(x + 1, feed_dict={x: h_c})),
            float(sess.run(c, feed_dict={c: h_c})),
            _error(lambda: sess.run(x + 1, feed_dict={x: ints})),  # an int32 tensor for a float32
        )

    ours, theirs = _both(scenario)
    assert ours == theirs == (2500.0, 51.0, 50.0, "InvalidArgumentError")


def test_feeding_the_handle_object_to_the_reader_placeholder():
    # TF rejects it (it feeds a resource handle to a string placeholder); here it feeds the handle's string.
    with tw.Graph().as_default(), tw.Session() as sess:
        h = sess.run(tw.get_session_handle(tw.constant([3.0, 4.0])))
        p, a = tw.get_session_tensor(h.handle, tw.float32)
        np.testing.assert_array_equal(sess.run(a * 2.0, feed_dict={p: h}), [6.0, 8.0])


def test_deleted_unknown_and_mistyped_handles_are_errors_as_in_tensorflow():
    def scenario(t, sess):
        h = sess.run(t.get_session_handle(t.constant([1.0, 2.0])))
        raw = h.handle
        p, value = t.get_session_tensor(raw, t.float32)
        p_int, value_int = t.get_session_tensor(raw, t.int32)
        dp, deleter = t.delete_session_tensor(raw)
        out = [
            _error(lambda: sess.run(value_int, feed_dict={p_int: raw})),
            _error(lambda: sess.run(value, feed_dict={p: raw.replace(";0;", ";99;")})),  # never made
        ]
        assert sess.run(deleter, feed_dict={dp: raw}) is None
        try:
            sess.run(value, feed_dict={p: raw})
        except Exception as e:  # noqa: BLE001
            out += [type(e).__name__, f"The tensor with handle '{raw}' is not in the session store." in str(e)]
        try:
            sess.run(deleter, feed_dict={dp: raw})
        except Exception as e:  # noqa: BLE001
            out += [type(e).__name__, f"Failed to delete a tensor with handle '{raw}'" in str(e)]
        h2 = sess.run(t.get_session_handle(t.constant(1)))
        h2.delete()
        out += [_error(h2.eval), _error(h2.delete)]
        out += [_error(lambda: t.get_session_handle(3.0)), _error(lambda: t.get_session_tensor("bogus", t.float32))]
        return out

    ours, theirs = _both(scenario)
    assert ours == theirs
    assert ours == [
        "InternalError",
        "InvalidArgumentError",
        "InvalidArgumentError",
        True,
        "InvalidArgumentError",
        True,
        "TypeError",
        "TypeError",
        "TypeError",
        "ValueError",
    ]


def test_errors_name_the_node():
    with tw.Graph().as_default(), tw.Session() as sess:
        h = sess.run(tw.get_session_handle(tw.constant(1.0))).get_raw_handle()
        p, value = tw.get_session_tensor(h, tw.int32, name="read_as_int")
        with pytest.raises(tw.errors.InternalError, match="read_as_int") as info:
            sess.run(value, feed_dict={p: h})
        assert "Output 0 of type float32 does not match declared output type int32" in str(info.value)


def test_garbage_collected_handles_are_deleted_in_batches():
    # TF deletes the tensors of dead handles ten at a time; here the next run after the tenth does.
    def scenario(t, sess):
        keep = t.get_session_handle(t.constant(7.0))
        handles = [sess.run(keep) for _ in range(10)]
        names = [h.handle for h in handles]
        del handles
        gc.collect()
        p, value = t.get_session_tensor(names[0], t.float32)
        return [_error(lambda n=n: sess.run(value, feed_dict={p: n})) for n in names]

    ours, theirs = _both(scenario)
    assert ours == theirs == ["InvalidArgumentError"] * 10


def test_a_raw_handle_and_a_live_handle_survive_collection():
    with tw.Graph().as_default(), tw.Session() as sess:
        keep = tw.get_session_handle(tw.constant([5, 6]))
        raw = sess.run(keep).get_raw_handle()
        live = sess.run(keep)
        for _ in range(12):
            sess.run(keep)  # dead at once, deleted later
        gc.collect()
        p, value = tw.get_session_tensor(raw, tw.int32)
        for _ in range(2):  # the second run comes after the batch deletion
            np.testing.assert_array_equal(sess.run(value, feed_dict={p: raw}), [5, 6])
            np.testing.assert_array_equal(live.eval(), [5, 6])


def test_a_kept_variable_value_does_not_change_with_the_variable():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable([1.0, 2.0])
        sess.run(v.initializer)
        h = sess.run(tw.get_session_handle(v.read_value()))
        sess.run(v.assign([9.0, 9.0]))
        sess.run(v.assign_add([1.0, 1.0]))
        np.testing.assert_array_equal(h.eval(), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(v), [10.0, 10.0])


def test_handles_belong_to_their_session_and_go_with_it():
    with tw.Graph().as_default() as g:
        keep = tw.get_session_handle(tw.constant(1.0), name="keep")
        assert keep.op.type == "GetSessionHandle" and keep.op.name == "keep" and keep.dtype == tw.string
        with tw.Session(graph=g) as a:
            raw = a.run(keep).get_raw_handle()
        p, value = tw.get_session_tensor(raw, tw.float32)
        with tw.Session(graph=g) as b, pytest.raises(tw.errors.InvalidArgumentError, match="not in the session store"):
            b.run(value, feed_dict={p: raw})


def test_v2_handle_op_and_handle_helpers():
    with tw.Graph().as_default(), tw.Session() as sess:
        keep2 = tw.raw_ops.GetSessionHandleV2(value=tw.constant([2.0]))
        h = sess.run(keep2)
        assert isinstance(h, session_ops.TensorHandle)
        raw = h.handle
        assert raw.startswith("GetSessionHandleV2;0;")
        p, value = tw.get_session_tensor(raw, tw.float32)
        np.testing.assert_array_equal(sess.run(value, feed_dict={p: raw}), [2.0])
        assert session_ops.TensorHandle._get_device_name(raw) == "/job:localhost/replica:0/task:0/device:CPU:0"
        assert session_ops.TensorHandle._get_reader_key(raw) == (
            "GetSessionHandleV2;/job:localhost/replica:0/task:0/device:CPU:0"
        )
