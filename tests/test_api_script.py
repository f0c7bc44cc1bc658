"""tw.py_func / tw.numpy_function: the function runs on the step's values (checked against numpy), from
concurrent steps, with its exceptions mapped to TF's error classes and its dtype/count checked."""

import threading

import numpy as np
import pytest

import tensorweave as tw


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


def test_values_and_op_types():
    x = tw.placeholder(tw.float64, [None])
    y = tw.py_func(np.cumsum, [x], tw.float64)
    z = tw.numpy_function(
        lambda a, b: [a * b, np.int64(a.size)],
        [x, tw.constant(3.0, tw.float64)],
        [tw.float64, tw.int64],
        stateful=False,
    )
    assert y.op.type == "PyFunc" and z[0].op.type == "PyFuncStateless"
    with tw.Session() as sess:
        v = np.array([1.0, 2.0, 4.0])
        got = sess.run([y, z], {x: v})
    np.testing.assert_array_equal(got[0], np.cumsum(v))
    np.testing.assert_array_equal(got[1][0], v * 3)
    assert got[1][1] == 3


def test_concurrent_steps_each_call_the_function():
    calls = []
    x = tw.placeholder(tw.int32, [])
    y = tw.py_func(lambda a: (calls.append(int(a)), a * 2)[1], [x], tw.int32)
    with tw.Session() as sess:
        results = {}

        def step(i):
            results[i] = sess.run(y, {x: i})

        threads = [threading.Thread(target=step, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == {i: 2 * i for i in range(8)} and sorted(calls) == list(range(8))


@pytest.mark.parametrize(
    "exc,error",
    [
        (ValueError, tw.errors.InvalidArgumentError),
        (StopIteration, tw.errors.OutOfRangeError),
        (NotImplementedError, tw.errors.UnimplementedError),
        (KeyError, tw.errors.UnknownError),
    ],
)
def test_exceptions_become_tf_errors(exc, error):
    def f(a):
        raise exc("boom")

    with tw.Session() as sess, pytest.raises(error, match="boom"):
        sess.run(tw.py_func(f, [tw.constant(1.0)], tw.float32))


def test_wrong_dtype_or_count_is_invalid_argument():
    with tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match="is float64, but expects float32"):
            sess.run(tw.py_func(lambda a: a.astype(np.float64), [tw.constant(1.0)], tw.float32))
        with pytest.raises(tw.errors.InvalidArgumentError, match="returns 2 values, but expects to see 1"):
            sess.run(tw.py_func(lambda a: (a, a), [tw.constant(1.0)], [tw.float32]))
