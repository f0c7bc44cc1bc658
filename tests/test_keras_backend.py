"""tw.keras.backend helpers against numpy."""

import numpy as np
import pytest
import tensorweave as tw

K = tw.keras.backend


def test_math_helpers_match_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3) + 1.0
    with tw.Graph().as_default(), tw.Session().as_default():
        x = K.constant(a)
        np.testing.assert_allclose(K.eval(K.mean(x, axis=1)), a.mean(1), rtol=1e-6)
        np.testing.assert_allclose(K.eval(K.sum(x)), a.sum(), rtol=1e-6)
        np.testing.assert_allclose(K.eval(K.sqrt(K.square(x))), a, rtol=1e-6)
        np.testing.assert_allclose(K.eval(K.log(K.exp(x))), a, rtol=1e-5)
        np.testing.assert_allclose(K.eval(K.dot(x, K.constant(a.T))), a @ a.T, rtol=1e-6)
        np.testing.assert_allclose(K.eval(K.clip(x, 2.0, 4.0)), np.clip(a, 2, 4))
        e = np.exp(a - a.max(1, keepdims=True))
        np.testing.assert_allclose(K.eval(K.softmax(x)), e / e.sum(1, keepdims=True), rtol=1e-5)
        assert K.int_shape(K.concatenate([x, x])) == (2, 6)
        assert K.int_shape(K.expand_dims(x, 0)) == (1, 2, 3)


def test_variable_get_set_value_and_function():
    with tw.Graph().as_default(), tw.Session().as_default():
        v = K.variable([1.0, 2.0])
        np.testing.assert_array_equal(K.get_value(v), [1.0, 2.0])
        K.set_value(v, np.array([3.0, 4.0], np.float32))
        p = K.placeholder(shape=(2,))
        f = K.function([p], [p * v])
        np.testing.assert_array_equal(f([np.array([1.0, 2.0], np.float32)])[0], [3.0, 8.0])
        (g,) = K.gradients(K.sum(p * v), [v])
        np.testing.assert_array_equal(K.get_session().run(g, {p: [5.0, 6.0]}), [5.0, 6.0])


def test_set_learning_phase_rejects_other_values():
    with tw.Graph().as_default(), pytest.raises(ValueError, match="0 or 1"):
        K.set_learning_phase(2)
