"""tf.py_func / tf.numpy_function against TensorFlow 1: values, list and single Tout, static shapes, several
inputs, string results, stateless functions, and the errors: a wrong dtype or count returned, exceptions raised
inside the function (their TF error classes), no gradient."""

import numpy as np

from tests.fidelity.harness import case


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        for cls in type(e).__mro__:
            if cls.__name__.endswith("Error"):
                return cls.__name__
        return type(e).__name__
    return "no error"


@case
def py_func_values(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    y = tf.py_func(lambda a: np.sinh(a), [x], tf.float64)
    pair = tf.py_func(
        lambda a, b: (a + b, (a * b).astype(np.int32)), [x, tf.constant(2.0, tf.float64)], [tf.float64, tf.int32]
    )
    strings = tf.py_func(
        lambda a: np.array([s.upper() for s in a], dtype=object), [tf.constant(["ab", "c"])], tf.string
    )
    single_in_list = tf.numpy_function(lambda a: a * 2, [tf.constant([1, 2])], [tf.int32])
    stateless = tf.py_func(lambda a: a - 1, [tf.constant(5)], tf.int32, stateful=False)
    return [y, y.shape, y.dtype, pair, pair[0].shape, strings, single_in_list, stateless, y.op.type, stateless.op.type]


@case
def py_func_errors(tf, sess):
    x = tf.constant([1.0, 2.0])

    def raises(exc):
        def f(a):
            raise exc("boom")

        return f

    return [
        _error(lambda: sess.run(tf.py_func(lambda a: a.astype(np.float64), [x], tf.float32))),
        _error(lambda: sess.run(tf.py_func(lambda a: (a, a), [x], [tf.float32]))),
        _error(lambda: sess.run(tf.py_func(raises(ValueError), [x], tf.float32))),
        _error(lambda: sess.run(tf.py_func(raises(StopIteration), [x], tf.float32))),
        _error(lambda: sess.run(tf.py_func(raises(NotImplementedError), [x], tf.float32))),
        _error(lambda: sess.run(tf.py_func(raises(RuntimeError), [x], tf.float32))),
        tf.gradients(tf.py_func(lambda a: a, [x], tf.float32), [x]),
    ]
