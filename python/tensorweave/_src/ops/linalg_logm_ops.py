"""tf.linalg.logm: the principal matrix logarithm (the MatrixLogarithm kernel: Eigen's inverse scaling and squaring
with Pade approximants on the complex Schur form, as TensorFlow's)."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops


def matrix_logarithm(input, name=None):
    """The principal logarithm of each square matrix of input [..., M, M] (complex64 or complex128 only, as TF).

    A matrix with a non-finite entry or an eigenvalue of 0 has no logarithm: an InvalidArgumentError when run.
    Not differentiable (TensorFlow registers no gradient: tf.gradients raises LookupError).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(np.round(sess.run(tw.linalg.logm(tw.constant([[np.e, 0.0], [0.0, 1.0]], tw.complex128))), 6))
      [[1.+0.j 0.+0.j]
       [0.+0.j 0.+0.j]]
    """
    return gen_ops.matrix_logarithm(ops.convert_to_tensor(input, name="input"), name=name)
