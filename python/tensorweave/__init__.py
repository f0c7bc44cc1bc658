"""tensorweave: dataflow graphs with mutable state, in TensorFlow v1's API.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     w = tw.Variable([[1.0], [2.0]], name="w")
  ...     y = tw.matmul(x, w)
  ...     with tw.Session() as sess:
  ...         sess.run(tw.global_variables_initializer())
  ...         print(sess.run(y, {x: [[3.0, 4.0]]}))
  [[11.]]

The implementation lives in `tensorweave._src`; this module re-exports the
public names on purpose.
"""

from tensorweave import errors
from tensorweave._src.client.session import ConfigProto
from tensorweave._src.client.session import InteractiveSession
from tensorweave._src.client.session import Session
from tensorweave._src.framework.dtypes import DType
from tensorweave._src.framework.dtypes import as_dtype
from tensorweave._src.framework.dtypes import bool  # noqa: A004
from tensorweave._src.framework.dtypes import double
from tensorweave._src.framework.dtypes import float32
from tensorweave._src.framework.dtypes import float64
from tensorweave._src.framework.dtypes import int32
from tensorweave._src.framework.dtypes import int64
from tensorweave._src.framework.dtypes import string
from tensorweave._src.framework.dtypes import uint8
from tensorweave._src.framework.importer import import_graph_def
from tensorweave._src.framework.ops import Graph
from tensorweave._src.framework.ops import GraphKeys
from tensorweave._src.framework.ops import Operation
from tensorweave._src.framework.ops import Tensor
from tensorweave._src.framework.ops import add_to_collection
from tensorweave._src.framework.ops import add_to_collections
from tensorweave._src.framework.ops import control_dependencies
from tensorweave._src.framework.ops import convert_to_tensor
from tensorweave._src.framework.ops import device
from tensorweave._src.framework.ops import get_collection
from tensorweave._src.framework.ops import get_collection_ref
from tensorweave._src.framework.ops import get_default_graph
from tensorweave._src.framework.ops import get_default_session
from tensorweave._src.framework.ops import name_scope
from tensorweave._src.framework.ops import reset_default_graph
from tensorweave._src.framework.random_seed import set_random_seed
from tensorweave._src.framework.tensor_shape import TensorShape
from tensorweave._src.ops.array_ops import fill
from tensorweave._src.ops.array_ops import identity
from tensorweave._src.ops.array_ops import ones
from tensorweave._src.ops.array_ops import placeholder
from tensorweave._src.ops.array_ops import reshape
from tensorweave._src.ops.array_ops import shape
from tensorweave._src.ops.array_ops import zeros
from tensorweave._src.ops.constant_op import constant
from tensorweave._src.ops.gradients_impl import NotDifferentiable
from tensorweave._src.ops.gradients_impl import RegisterGradient
from tensorweave._src.ops.gradients_impl import gradients
from tensorweave._src.ops.gradients_impl import no_gradient
from tensorweave._src.ops.init_ops import constant_initializer
from tensorweave._src.ops.init_ops import glorot_normal_initializer
from tensorweave._src.ops.init_ops import glorot_uniform_initializer
from tensorweave._src.ops.init_ops import ones_initializer
from tensorweave._src.ops.init_ops import random_normal_initializer
from tensorweave._src.ops.init_ops import random_uniform_initializer
from tensorweave._src.ops.init_ops import truncated_normal_initializer
from tensorweave._src.ops.init_ops import variance_scaling_initializer
from tensorweave._src.ops.init_ops import zeros_initializer
from tensorweave._src.ops.math_ops import add
from tensorweave._src.ops.math_ops import cast
from tensorweave._src.ops.math_ops import div
from tensorweave._src.ops.math_ops import divide
from tensorweave._src.ops.math_ops import matmul
from tensorweave._src.ops.math_ops import multiply
from tensorweave._src.ops.math_ops import negative
from tensorweave._src.ops.math_ops import subtract
from tensorweave._src.ops.math_ops import to_float
from tensorweave._src.ops.math_ops import truediv
from tensorweave._src.ops.random_ops import random_normal
from tensorweave._src.ops.random_ops import random_uniform
from tensorweave._src.ops.random_ops import truncated_normal
from tensorweave._src.ops.state_ops import assign
from tensorweave._src.ops.state_ops import assign_add
from tensorweave._src.ops.state_ops import assign_sub
from tensorweave._src.ops.state_ops import is_variable_initialized
from tensorweave._src.ops.variables import AUTO_REUSE
from tensorweave._src.ops.variables import Variable
from tensorweave._src.ops.variables import VariableScope
from tensorweave._src.ops.variables import get_variable
from tensorweave._src.ops.variables import get_variable_scope
from tensorweave._src.ops.variables import global_variables
from tensorweave._src.ops.variables import global_variables_initializer
from tensorweave._src.ops.variables import local_variables
from tensorweave._src.ops.variables import local_variables_initializer
from tensorweave._src.ops.variables import trainable_variables
from tensorweave._src.ops.variables import variable_scope
from tensorweave._src.ops.variables import variables_initializer

# Gradient functions register themselves when imported.
from tensorweave._src.ops import array_grad as _array_grad  # noqa: F401
from tensorweave._src.ops import math_grad as _math_grad  # noqa: F401
from tensorweave._src.ops import nn_grad as _nn_grad  # noqa: F401
from tensorweave._src.ops import state_grad as _state_grad  # noqa: F401

from tensorweave import nn  # noqa: E402 - after the ops it re-exports

__version__ = "0.1.0"


def no_op(name=None):
    """An op that does nothing (a target for control dependencies)."""
    return get_default_graph()._create_op("NoOp", [], name=name or "NoOp")


def group(*inputs, name=None):
    """An op that runs after all of `inputs` (ops or tensors)."""
    with control_dependencies([i for i in inputs if i is not None]):
        return no_op(name=name or "group_deps")


def initialize_all_variables():
    """Deprecated alias of global_variables_initializer."""
    return global_variables_initializer()
