"""tf.random.stateless_binomial, tf.random.stateless_parameterized_truncated_normal, tf.linalg.logm and the
circulant LinearOperators against TensorFlow 1. The two stateless samplers run TensorFlow's algorithms on its
stateless generator, so their values are compared, not only their shapes."""

import numpy as np

from tests.fidelity.harness import case


@case(tol=0)
def stateless_binomial_values(tf, sess):
    x = tf.random.stateless_binomial([3, 3], [1, 2], counts=[5.0, 200.0, 60.0], probs=[0.3, 0.45, 0.9])
    y = tf.random.stateless_binomial([4], tf.constant([7, -8], tf.int64), 12.0, 0.5, output_dtype=tf.float64)
    return [x, y, x.dtype, y.shape]


@case(tol=0)
def stateless_parameterized_truncated_normal_values(tf, sess):
    # The normal, uniform and exponential rejection samplers, one parameter set each.
    x = tf.random.stateless_parameterized_truncated_normal(
        [4, 3],
        [3, 4],
        means=tf.constant([0.0, 1.0, 0.0], tf.float64),
        stddevs=tf.constant(1.0, tf.float64),
        minvals=tf.constant([-2.0, 1.1, 3.0], tf.float64),
        maxvals=tf.constant([2.0, 1.3, np.inf], tf.float64),
    )
    return [x, tf.random.stateless_parameterized_truncated_normal([5], [1, 2])]


@case
def stateless_binomial_bad_batch_shapes(tf, sess):
    return tf.random.stateless_binomial([3], [1, 2], counts=[1.0, 2.0], probs=[0.1, 0.2, 0.3])


@case
def logm_values(tf, sess):
    a = tf.constant([[2.0 + 1.0j, 0.5], [0.25, 1.5 - 0.5j]], tf.complex128)
    return tf.linalg.logm(a)


@case
def logm_real_input_is_a_type_error(tf, sess):
    return tf.linalg.logm([[1.0, 0.0], [0.0, 1.0]])


@case
def circulant_operator_methods(tf, sess):
    spectrum = tf.constant([6.0 + 0j, -1.5 + 0.8660254j, -1.5 - 0.8660254j], tf.complex64)
    op = tf.linalg.LinearOperatorCirculant(spectrum, input_output_dtype=tf.float32)
    x = tf.constant([[1.0], [2.0], [3.0]])
    op2 = tf.linalg.LinearOperatorCirculant2D(tf.constant([[1.0, 2.0], [3.0, 4.0]]), input_output_dtype=tf.float32)
    return [
        op.to_dense(),
        op.matmul(x),
        op.solve(x),
        op.determinant(),
        op.trace(),
        op.shape,
        op.block_depth,
        op2.to_dense(),
        op2.log_abs_determinant(),
        op2.is_self_adjoint,
    ]
