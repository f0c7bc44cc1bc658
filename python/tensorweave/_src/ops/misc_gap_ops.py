"""TF1's top-level odds and ends: `timestamp`, `guarantee_const`, `required_space_to_batch_paddings`,
`create_partitioned_variables`, `container` and `variable_creator_scope`."""

import contextlib

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl, variables

# As TF: Timestamp has no gradient. GuaranteeConst has none registered at all: differentiating through it is a
# LookupError, as in TF (tests/test_registry.py lists it among the ops TF leaves without a gradient).
gradients_impl.NotDifferentiable("Timestamp")


def timestamp(name=None):
    """The time of the op's run as a float64 scalar, in seconds since the Unix epoch (microsecond resolution).
    Stateful: every run reads the clock again.

    Example:
      >>> import time
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     t = sess.run(tw.timestamp())
      >>> bool(abs(t - time.time()) < 60)
      True
    """
    return gen_ops.timestamp(name=name)


def guarantee_const(input, name=None):  # noqa: A002 - TensorFlow's signature
    """Passes `input` through, promising that its value does not change between runs (TF's hint to its
    constant folding). Differentiating through it is a LookupError, as in TF.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.guarantee_const([1.0, 2.0])))
      [1. 2.]
    """
    return gen_ops.guarantee_const(ops.convert_to_tensor(input, name="input"), name=name)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops), int32 [N, 2], for space_to_batch_nd / batch_to_space_nd: `paddings` adds at least
    `base_paddings` (zeros by default) and makes each padded size a multiple of `block_shape`; `crops` removes
    the extra again. Computed statically when all three are constants, in the graph otherwise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     paddings, crops = tw.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 0]])
      ...     print(sess.run(paddings).tolist(), sess.run(crops).tolist())
      [[1, 0], [0, 2]] [[0, 0], [0, 2]]
    """
    with ops.name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = ops.convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = ops.convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        block_shape.shape.assert_is_fully_defined()
        block_shape.shape.assert_has_rank(1)
        num_block_dims = block_shape.shape.dims[0].value
        if num_block_dims == 0:
            return array_ops.zeros([0, 2], dtypes.int32), array_ops.zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([num_block_dims])
        if base_paddings is not None:
            base_paddings = ops.convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([num_block_dims, 2])
        else:
            base_paddings = array_ops.zeros([num_block_dims, 2], dtypes.int32)
        const_block = array_ops.constant_value(block_shape)
        const_input = array_ops.constant_value(input_shape)
        const_base = array_ops.constant_value(base_paddings)
        if const_block is not None and const_input is not None and const_base is not None:
            block_shape, input_shape, base_paddings = const_block, const_input, const_base
        # The same expressions for constants (numpy) and tensors, as TF.
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = array_ops.stack([[pad_start[i], pad_end[i]] for i in range(num_block_dims)], name="paddings")
        crops = array_ops.stack([[0, pad_end_extra[i]] for i in range(num_block_dims)], name="crops")
        return paddings, crops


def create_partitioned_variables(
    shape, slicing, initializer, dtype=dtypes.float32, trainable=True, collections=None, name=None, reuse=None
):
    """A list of variables that together make one variable of `shape`, cut along the one axis where `slicing`
    (ints, one per axis) is above 1: the parts are `<scope>/part_<i>` (scope `name`, "PartitionedVariable" by
    default), the first ones one longer when the size does not divide. `initializer` is called for each part
    with its shape, or is a Tensor of the whole value that each part takes its slice of.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     parts = tw.create_partitioned_variables([5, 2], [2, 1], tw.ones_initializer())
      ...     sess.run(tw.global_variables_initializer())
      ...     print([p.name for p in parts], [sess.run(p).shape for p in parts])
      ['PartitionedVariable/part_0:0', 'PartitionedVariable/part_1:0'] [(3, 2), (2, 2)]
    """
    if len(shape) != len(slicing):
        raise ValueError(
            f"The 'shape' and 'slicing' of a partitioned Variable must have the length: shape: {shape}, "
            f"slicing: {slicing}"
        )
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    slicing = list(slicing)
    graph = ops.get_default_graph()
    with variables.variable_scope(name, "PartitionedVariable", reuse=reuse) as scope:
        store = variables._var_store(graph)
        existing = store.vars.get(scope.name)
        if existing is not None:
            if not scope.reuse:
                raise ValueError(
                    f"Partitioned variable with name {scope.name} already exists. Did you mean to set "
                    "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )
            if not existing.get_shape().is_compatible_with(tensor_shape.as_shape(shape)):
                raise ValueError(
                    f"Trying to reuse partitioned variable {scope.name}, but specified shape "
                    f"{tensor_shape.as_shape(shape)} and found shape {existing.get_shape()}."
                )
            return list(existing)
        if scope.reuse is True:
            raise ValueError(
                f"PartitionedVariable {scope.name} does not exist, or was not created with "
                "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in VarScope?"
            )
        var = variables._get_partitioned_variable(
            graph,
            scope.name,
            shape,
            dtypes.as_dtype(dtype),
            initializer,
            lambda **unused: slicing,
            trainable,
            collections,
            True,
            None,
        )
        store.vars[scope.name] = var
        return list(var)


def container(container_name):
    """The default graph's `Graph.container(container_name)`: stateful ops made inside live in that resource
    container.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     with tw.container("experiment0"):
      ...         q = tw.FIFOQueue(2, tw.float32)
      ...     print(q.queue_ref.op.get_attr("container"))
      b'experiment0'
    """
    return ops.get_default_graph().container(container_name)


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Every variable made inside (by `Variable(...)`, `get_variable`, layers, optimizers' slots) is made by
    `variable_creator(next_creator, **kwargs)`, which may change the arguments, call `next_creator(**kwargs)`
    and return its variable, or return one of its own. Nested scopes chain: the innermost creator is called
    first. TF1's `tf.variable_creator_scope` (its `variable_creator_scope_v1`).

    Example:
      >>> import tensorweave as tw
      >>> def not_trainable(next_creator, **kwargs):
      ...     kwargs["trainable"] = False
      ...     return next_creator(**kwargs)
      >>> with tw.Graph().as_default():
      ...     with tw.variable_creator_scope(not_trainable):
      ...         v = tw.Variable(1.0, name="v")
      ...     print(tw.trainable_variables())
      []
    """
    graph = ops.get_default_graph()
    old = variables._creator_stack(graph)
    graph._tw_variable_creator_stack = old + [variable_creator]
    try:
        yield
    finally:
        graph._tw_variable_creator_stack = old
