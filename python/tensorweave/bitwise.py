"""tw.bitwise: TensorFlow 1's tf.bitwise (integer dtypes, element-wise with broadcasting).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.bitwise.bitwise_xor(5, 3)))
  6
"""

from tensorweave._src.ops.bitwise_ops import bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]
