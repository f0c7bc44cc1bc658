"""Values: what ops compute, against TensorFlow 1 (silent wrong values are the worst kind of difference)."""

import numpy as np

from tests.fidelity.harness import case


@case
def div_of_ints_floors(tf, sess):
    return tf.div([-7, 7], [2, -2])


@case
def reduce_mean_uint8_does_not_overflow(tf, sess):
    return tf.reduce_mean(tf.constant([200, 200], tf.uint8))


@case
def maximum_propagates_nan(tf, sess):
    return tf.maximum([np.nan, 1.0], [0.0, np.nan])


@case
def run_scalar_gives_numpy_scalar(tf, sess):
    return sess.run(tf.constant(3.0) * 2.0)


@case
def matmul_values(tf, sess):
    return tf.matmul([[1.0, 2.0]], [[3.0], [4.0]])
