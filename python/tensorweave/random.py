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
from tensorweave._src.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from tensorweave._src.ops.random_extra_ops import stateless_parameterized_truncated_normal
from tensorweave._src.ops.random_extra_ops import stateless_random_binomial as stateless_binomial
from tensorweave._src.ops.random_ops import (
    categorical,
    fold_in,
    multinomial,
    split,
    stateless_categorical,
    stateless_multinomial,
    stateless_truncated_normal,
    truncated_normal,
)
from tensorweave._src.ops.random_ops import random_gamma as gamma
from tensorweave._src.ops.random_ops import random_normal as normal
from tensorweave._src.ops.random_ops import random_poisson as poisson
from tensorweave._src.ops.random_ops import random_shuffle as shuffle
from tensorweave._src.ops.random_ops import random_uniform as uniform
from tensorweave._src.ops.random_ops import stateless_random_gamma as stateless_gamma
from tensorweave._src.ops.random_ops import stateless_random_normal as stateless_normal
from tensorweave._src.ops.random_ops import stateless_random_poisson as stateless_poisson
from tensorweave._src.ops.random_ops import stateless_random_uniform as stateless_uniform

__all__ = [
    "all_candidate_sampler",
    "categorical",
    "fixed_unigram_candidate_sampler",
    "fold_in",
    "gamma",
    "get_seed",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "multinomial",
    "normal",
    "poisson",
    "set_random_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_multinomial",
    "stateless_normal",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]
