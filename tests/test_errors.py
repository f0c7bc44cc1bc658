"""Errors: the right exception classes, with messages naming the node and
where the user created it."""

import inspect
import os

import numpy as np
import pytest

import tensorweave as tw

THIS_FILE = os.path.basename(__file__)


def _line():
    """The line number of the caller."""
    return inspect.currentframe().f_back.f_lineno


def test_matmul_shape_mismatch_at_construction(graph):
    a = tw.constant(np.zeros((2, 3), np.float32))
    b = tw.constant(np.zeros((4, 5), np.float32))
    with pytest.raises(ValueError) as info:
        line = _line() + 1
        tw.matmul(a, b, name="my_matmul")
    err = info.value
    # As in TensorFlow: a plain ValueError at construction, not a tf.errors class.
    assert type(err) is ValueError
    msg = str(err)
    assert "my_matmul" in msg
    assert "3" in msg and "4" in msg
    assert f"{THIS_FILE}:{line}" in msg
    # Nothing was added for the failed op.
    with pytest.raises(KeyError):
        graph.get_operation_by_name("my_matmul")


def test_broadcast_mismatch_names_op(graph):
    a = tw.constant(np.zeros((2, 3), np.float32))
    b = tw.constant(np.zeros((2,), np.float32))
    with pytest.raises(ValueError) as info:
        line = _line() + 1
        tw.add(a, b, name="bad_add")
    assert "bad_add" in str(info.value)
    assert f"{THIS_FILE}:{line}" in str(info.value)


def test_dtype_mismatch(graph):
    a = tw.constant([1, 2], dtype=tw.int32, name="ints")
    b = tw.constant([1.0, 2.0], dtype=tw.float32, name="floats")
    with pytest.raises(TypeError) as info:
        a + b
    assert type(info.value) is TypeError
    msg = str(info.value)
    assert "int32" in msg and "float32" in msg
    assert "ints" in msg and "floats" in msg
    with pytest.raises(TypeError):
        tw.matmul(tw.constant([[1]]), tw.constant([[1.0]]))
    with pytest.raises(TypeError):
        tw.subtract(tw.constant(np.float64(1)), tw.constant(np.float32(1)))


def test_feed_wrong_shape(sess):
    x = tw.placeholder(tw.float32, [None, 3], name="x")
    y = x * 2.0
    with pytest.raises(ValueError) as info:
        sess.run(y, {x: np.zeros((2, 4), np.float32)})
    msg = str(info.value)
    assert "Cannot feed value of shape" in msg
    assert "(2, 4)" in msg and "(?, 3)" in msg
    assert "x:0" in msg
    # As in TensorFlow: checked before running, a plain ValueError.
    assert type(info.value) is ValueError
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        sess.run(y, {x: np.zeros((3,), np.float32)})  # wrong rank
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        sess.run(y, {x: [[1.0, 2.0]]})  # a Python list


def test_feed_ragged_list(sess):
    x = tw.placeholder(tw.float32, [None, None])
    with pytest.raises((tw.errors.InvalidArgumentError, ValueError)):
        sess.run(x, {x: [[1.0, 2.0], [3.0]]})


def test_feed_float_into_int_placeholder(sess):
    # As in TensorFlow (np.asarray(value, dtype)): a fed float truncates toward zero.
    x = tw.placeholder(tw.int32, [], name="ix")
    assert sess.run(x + 1, {x: 1.5}) == 2
    assert sess.run(x + 1, {x: np.array(-2.5)}) == -1
    assert sess.run(x + 1, {x: 2.0}) == 3


def test_feed_out_of_range_int_wraps(sess):
    # As in TensorFlow: a C cast, the value wraps.
    x = tw.placeholder(tw.uint8, [None])
    np.testing.assert_array_equal(sess.run(x, {x: [1, 300]}), np.array([1, 44], np.uint8))
    np.testing.assert_array_equal(sess.run(x, {x: [-1]}), np.array([255], np.uint8))
    y = tw.placeholder(tw.int32, [])
    assert sess.run(y + 0, {y: 2**40 + 5}) == 5


def test_feed_string_into_float(sess):
    x = tw.placeholder(tw.float32, [])
    with pytest.raises(ValueError):
        sess.run(x, {x: "hello"})


def test_uninitialized_variable(sess):
    v = tw.Variable([1.0, 2.0], name="weights")
    with pytest.raises(tw.errors.FailedPreconditionError) as info:
        sess.run(v)
    msg = str(info.value)
    assert "Attempting to use uninitialized value" in msg
    assert "weights" in msg
    assert info.value.error_code == tw.errors.FAILED_PRECONDITION
    with pytest.raises(tw.errors.FailedPreconditionError, match="weights"):
        sess.run(v * 2.0)
    with pytest.raises(tw.errors.FailedPreconditionError, match="weights"):
        sess.run(tw.assign_add(v, [1.0, 1.0]))
    assert not sess.run(tw.is_variable_initialized(v))
    sess.run(v.initializer)
    assert sess.run(tw.is_variable_initialized(v))
    np.testing.assert_allclose(sess.run(v * 2.0), [2.0, 4.0])


def test_uninitialized_error_names_creation_site(sess):
    line = _line() + 1
    v = tw.Variable(1.0, name="vv")
    with pytest.raises(tw.errors.FailedPreconditionError) as info:
        sess.run(v.value())
    assert THIS_FILE in str(info.value)
    assert str(line) in str(info.value)


def test_bad_reshape_at_run_time(sess):
    x = tw.placeholder(tw.float32, [None], name="x")
    r = tw.reshape(x, [2, 3], name="my_reshape")
    np.testing.assert_allclose(sess.run(r, {x: np.arange(6)}), np.arange(6).reshape(2, 3))
    with pytest.raises(tw.errors.InvalidArgumentError) as info:
        sess.run(r, {x: np.arange(5)})
    msg = str(info.value)
    assert "my_reshape" in msg
    assert "5" in msg
    assert THIS_FILE in msg


def test_bad_reshape_with_minus_one_at_run_time(sess):
    x = tw.placeholder(tw.int32, [None])
    r = tw.reshape(x, [-1, 4])
    np.testing.assert_array_equal(sess.run(r, {x: np.arange(8)}), np.arange(8).reshape(2, 4))
    with pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(r, {x: np.arange(6)})


def test_bad_reshape_at_construction(graph):
    with pytest.raises(ValueError):
        tw.reshape(tw.constant([1, 2, 3]), [2, 2])
    with pytest.raises(ValueError):
        tw.reshape(tw.constant([1, 2, 3]), [-1, -1])


def test_fetch_not_in_graph(sess):
    with tw.Graph().as_default():
        other = tw.constant(1.0)
    with pytest.raises(ValueError):
        sess.run(other)
    with pytest.raises(ValueError):
        sess.run([other.op])
    # TensorFlow's session turns the graph's KeyError for an unknown name into a ValueError.
    with pytest.raises(ValueError):
        sess.run("nonexistent:0")
    with pytest.raises(ValueError):
        sess.run("nonexistent")
    c = tw.constant(1.0, name="c")
    with pytest.raises(ValueError):
        sess.run("c:3")
    with pytest.raises(KeyError):
        sess.graph.get_tensor_by_name("c:3")


def test_tensor_as_bool_is_type_error(graph):
    t = tw.constant(True)
    with pytest.raises(TypeError):
        bool(t)
    with pytest.raises(TypeError):
        if t:
            pass
    with pytest.raises(TypeError):
        len(t)
    with pytest.raises(TypeError):
        iter(t)


def test_ops_from_different_graphs(graph):
    a = tw.constant(1.0)
    g2 = tw.Graph()
    with g2.as_default():
        b = tw.constant(2.0)
        with pytest.raises(ValueError, match="same graph"):
            tw.add(a, b)
        with pytest.raises(ValueError):
            a + b
    with pytest.raises(ValueError):
        tw.matmul(tw.constant([[1.0]]), _in_other_graph())


def _in_other_graph():
    with tw.Graph().as_default():
        return tw.constant([[1.0]])


def test_control_dependency_from_other_graph(graph):
    with tw.Graph().as_default():
        other = tw.no_op()
    with pytest.raises((ValueError, tw.errors.OpError)):
        with tw.control_dependencies([other]):
            tw.constant(1)


def test_error_classes_and_codes():
    pairs = [
        (tw.errors.InvalidArgumentError, tw.errors.INVALID_ARGUMENT),
        (tw.errors.FailedPreconditionError, tw.errors.FAILED_PRECONDITION),
        (tw.errors.NotFoundError, tw.errors.NOT_FOUND),
        (tw.errors.OutOfRangeError, tw.errors.OUT_OF_RANGE),
    ]
    for cls, code in pairs:
        e = cls(None, None, "boom")
        assert isinstance(e, tw.errors.OpError)
        assert e.error_code == code
        assert e.message == "boom" and str(e) == "boom"
        assert tw.errors.exception_type_from_error_code(code) is cls


def test_error_pickles():
    import pickle

    e = tw.errors.InvalidArgumentError(None, None, "bad thing")
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is tw.errors.InvalidArgumentError
    assert e2.message == "bad thing"


def test_placeholder_without_feed_when_fetched_directly(sess):
    x = tw.placeholder(tw.float32, name="raw")
    with pytest.raises(tw.errors.InvalidArgumentError, match="'raw'"):
        sess.run(x)


def test_variable_initial_value_required(graph):
    with pytest.raises(ValueError):
        tw.Variable()


def test_assign_to_non_variable(graph):
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'assign'"):  # TF1: ref.assign(...)
        tw.assign(tw.constant(1.0), 2.0)


def test_assign_wrong_shape(graph):
    v = tw.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        tw.assign(v, [1.0, 2.0, 3.0])


def test_assign_wrong_dtype(graph):
    v = tw.Variable([1, 2])
    with pytest.raises((TypeError, ValueError)):
        tw.assign(v, [1.5, 2.5])


def test_finalized_graph(graph):
    tw.constant(1)
    graph.finalize()
    with pytest.raises(RuntimeError):
        tw.constant(2)
