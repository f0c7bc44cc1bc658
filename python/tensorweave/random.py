"""tw.random: random tensors (TensorFlow 1's tf.random names), reproducible under graph- and op-level seeds
(`tw.random.set_random_seed`, the `seed` argument) by TF1's rules.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     tw.random.set_random_seed(3)
  ...     x = tw.random.normal([2])
  ...     with tw.Session() as s1, tw.Session() as s2:
  ...         print(bool((s1.run(x) == s2.run(x)).all()))
  True
"""

from tensorweave._src.framework.random_seed import get_seed, set_random_seed
from tensorweave._src.ops.random_ops import categorical, multinomial, truncated_normal
from tensorweave._src.ops.random_ops import random_gamma as gamma
from tensorweave._src.ops.random_ops import random_normal as normal
from tensorweave._src.ops.random_ops import random_poisson as poisson
from tensorweave._src.ops.random_ops import random_shuffle as shuffle
from tensorweave._src.ops.random_ops import random_uniform as uniform

__all__ = [
    "categorical",
    "gamma",
    "get_seed",
    "multinomial",
    "normal",
    "poisson",
    "set_random_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
]
