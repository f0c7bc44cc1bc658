"""The global step: an int64 variable counting training steps."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import variables

GraphKeys = ops.GraphKeys


def get_global_step(graph=None):
    """The global step variable of `graph` (default graph), or None.

    It is the one variable in the GLOBAL_STEP collection, else the tensor
    named "global_step:0"; it must be an integer scalar.
    """
    graph = graph or ops.get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        raise TypeError(f"There should be only one global step variable, found {len(found)}: {found}")
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    if not step.dtype.is_integer or (step.shape.ndims is not None and step.shape.ndims != 0):
        raise TypeError(f"Existing global step {step.name} is not an integer scalar: {step.dtype.name} {step.shape}")
    return step


def create_global_step(graph=None):
    """Makes the global step: a non-trainable int64 scalar variable named
    "global_step", starting at 0, in GLOBAL_VARIABLES and GLOBAL_STEP.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.train.create_global_step()
      ...     sess.run(tw.global_variables_initializer())
      ...     print(step.op.name, sess.run(step))
      global_step 0
    """
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default():
        saved = graph._name_stack
        graph._name_stack = ""
        try:
            with graph.control_dependencies(None):
                return variables.get_variable(
                    "global_step",
                    shape=[],
                    dtype=dtypes.int64,
                    initializer=init_ops.zeros_initializer(),
                    trainable=False,
                    collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
                )
        finally:
            graph._name_stack = saved


def get_or_create_global_step(graph=None):
    """The global step of `graph`, made by `create_global_step` if absent."""
    graph = graph or ops.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def global_step(sess, global_step_tensor):
    """The value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor):
    """Raises TypeError unless `global_step_tensor` is an integer scalar Variable or Tensor (TF1's check)."""
    from tensorweave._src.ops import variables

    if not isinstance(global_step_tensor, (variables.Variable, ops.Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}')
    shape = global_step_tensor.shape
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


_GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def _get_or_create_global_step_read(graph=None):
    """A copy of the global step's value made early in each step (`global_step + 0`, as TF1's hooks read it),
    or None without a global step. Hooks fetch it rather than the variable: a fetched variable is read when the
    step ends, after the step's own increment."""
    graph = graph or ops.get_default_graph()
    cached = graph.get_collection(_GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), ops.name_scope(None), ops.name_scope(step.op.name + "/"):
        read = step + 0
    graph.add_to_collection(_GLOBAL_STEP_READ_KEY, read)
    return read
