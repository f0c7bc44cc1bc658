"""tw.math: element-wise math, comparisons and reductions (TensorFlow's
tf.math names).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.math.reduce_sum([[1, 2], [3, 4]], axis=0)))
  [4 6]
"""

from tensorweave._src.ops.math_ops import abs  # noqa: A004
from tensorweave._src.ops.math_ops import add
from tensorweave._src.ops.math_ops import add_n
from tensorweave._src.ops.math_ops import argmax
from tensorweave._src.ops.math_ops import argmin
from tensorweave._src.ops.math_ops import ceil
from tensorweave._src.ops.math_ops import divide
from tensorweave._src.ops.math_ops import equal
from tensorweave._src.ops.math_ops import exp
from tensorweave._src.ops.math_ops import floor
from tensorweave._src.ops.math_ops import floordiv
from tensorweave._src.ops.math_ops import floormod
from tensorweave._src.ops.math_ops import greater
from tensorweave._src.ops.math_ops import greater_equal
from tensorweave._src.ops.math_ops import less
from tensorweave._src.ops.math_ops import less_equal
from tensorweave._src.ops.math_ops import log
from tensorweave._src.ops.math_ops import log1p
from tensorweave._src.ops.math_ops import logical_and
from tensorweave._src.ops.math_ops import logical_not
from tensorweave._src.ops.math_ops import logical_or
from tensorweave._src.ops.math_ops import maximum
from tensorweave._src.ops.math_ops import minimum
from tensorweave._src.ops.math_ops import multiply
from tensorweave._src.ops.math_ops import negative
from tensorweave._src.ops.math_ops import not_equal
from tensorweave._src.ops.math_ops import pow  # noqa: A004
from tensorweave._src.ops.math_ops import realdiv
from tensorweave._src.ops.math_ops import reciprocal
from tensorweave._src.ops.math_ops import reduce_all
from tensorweave._src.ops.math_ops import reduce_any
from tensorweave._src.ops.math_ops import reduce_max
from tensorweave._src.ops.math_ops import reduce_mean
from tensorweave._src.ops.math_ops import reduce_min
from tensorweave._src.ops.math_ops import reduce_prod
from tensorweave._src.ops.math_ops import reduce_sum
from tensorweave._src.ops.math_ops import round  # noqa: A004
from tensorweave._src.ops.math_ops import rsqrt
from tensorweave._src.ops.math_ops import sigmoid
from tensorweave._src.ops.math_ops import sign
from tensorweave._src.ops.math_ops import sqrt
from tensorweave._src.ops.math_ops import square
from tensorweave._src.ops.math_ops import squared_difference
from tensorweave._src.ops.math_ops import subtract
from tensorweave._src.ops.math_ops import tanh
from tensorweave._src.ops.math_ops import truediv

mod = floormod
