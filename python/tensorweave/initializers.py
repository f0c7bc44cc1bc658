"""tensorweave.initializers: TensorFlow v1's `tf.initializers`.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     v = tw.get_variable("v", [2], initializer=tw.initializers.constant(3.0))
  ...     sess.run(tw.global_variables_initializer())
  ...     print(sess.run(v))
  [3. 3.]
"""

from tensorweave._src.ops.init_ops import Constant as constant
from tensorweave._src.ops.init_ops import Ones as ones
from tensorweave._src.ops.init_ops import RandomNormal as random_normal
from tensorweave._src.ops.init_ops import RandomUniform as random_uniform
from tensorweave._src.ops.init_ops import TruncatedNormal as truncated_normal
from tensorweave._src.ops.init_ops import VarianceScaling as variance_scaling
from tensorweave._src.ops.init_ops import Zeros as zeros
from tensorweave._src.ops.init_ops import glorot_normal_initializer as glorot_normal
from tensorweave._src.ops.init_ops import glorot_uniform_initializer as glorot_uniform
from tensorweave._src.ops.init_ops import he_normal
from tensorweave._src.ops.init_ops import he_uniform
from tensorweave._src.ops.init_partition_ops import Identity as identity
from tensorweave._src.ops.init_partition_ops import Orthogonal as orthogonal
from tensorweave._src.ops.init_partition_ops import UniformUnitScaling as uniform_unit_scaling
from tensorweave._src.ops.init_partition_ops import lecun_normal
from tensorweave._src.ops.init_partition_ops import lecun_uniform
from tensorweave._src.framework.misc_api import tables_initializer
from tensorweave._src.ops.variables import global_variables_initializer as global_variables
from tensorweave._src.ops.variables import local_variables_initializer as local_variables
from tensorweave._src.ops.variables import variables_initializer as variables
