"""tf.keras.backend for TF1 graph mode: the session, the learning phase, values, and (backend_ops) the math,
shape, random, convolution and loss helpers programs call through `K.`."""

import contextlib
import weakref

from tensorweave._src.client.session import Session
from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops

_SESSION = {"session": None}
_LEARNING_PHASE = {}  # graph -> learning-phase tensor
_FLOATX = {"value": "float32"}


def floatx():
    return _FLOATX["value"]


def set_floatx(value):
    _FLOATX["value"] = str(value)


_EPSILON = {"value": 1e-7}
_MANUAL_VAR_INIT = {"value": False}


def epsilon():
    return _EPSILON["value"]


_GRAPH_VARIABLES = weakref.WeakKeyDictionary()  # graph -> the variables Keras layers made there


def track_variable(v):
    """Records a variable made by a Keras layer, which `get_session` initializes if it is not yet."""
    _GRAPH_VARIABLES.setdefault(v.graph, []).append(v)


def get_session():
    """The session Keras uses: the default session if there is one, else one of its own on the default graph.
    As tf_keras's, it first initializes the Keras layers' variables it has not checked before that are not
    initialized (unless `manual_variable_initialization(True)`)."""
    sess = ops.get_default_session()
    if sess is None:
        sess = _SESSION["session"]
        if sess is None or sess.graph is not ops.get_default_graph():
            sess = Session()
            _SESSION["session"] = sess
    if not _MANUAL_VAR_INIT["value"]:
        _initialize_variables(sess)
    return sess


def _initialize_variables(sess):
    candidates = [v for v in _GRAPH_VARIABLES.get(sess.graph, ()) if not getattr(v, "_keras_initialized", False)]
    if not candidates:
        return
    tw = _tw()
    with sess.graph.as_default():
        flags = sess.run([tw.is_variable_initialized(v) for v in candidates])
        for v in candidates:
            v._keras_initialized = True
        todo = [v for v, flag in zip(candidates, flags) if not flag]
        if todo:
            sess.run(tw.variables_initializer(todo))


def set_session(session):
    _SESSION["session"] = session


def clear_session():
    _SESSION["session"] = None
    _LEARNING_PHASE.clear()
    ops.reset_default_graph()


def learning_phase():
    """A boolean placeholder (default False) that Dropout and BatchNormalization read, as Keras 2 in TF1 graphs."""
    graph = ops.get_default_graph()
    phase = _LEARNING_PHASE.get(graph)
    if phase is None:
        with ops.name_scope(""):
            phase = array_ops.placeholder_with_default(False, shape=[], name="keras_learning_phase")
        _LEARNING_PHASE[graph] = phase
    return phase


@contextlib.contextmanager
def learning_phase_scope(value):
    """The learning phase fixed to `value` (0 or 1) inside the `with` block, for layers built there."""
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    graph = ops.get_default_graph()
    saved = _LEARNING_PHASE.get(graph)
    set_learning_phase(value)
    try:
        yield
    finally:
        if saved is None:
            _LEARNING_PHASE.pop(graph, None)
        else:
            _LEARNING_PHASE[graph] = saved


def set_learning_phase(value):
    """Fixes the learning phase of the default graph to 0 (test) or 1 (train) for layers built afterwards."""
    from tensorweave._src.ops.constant_op import constant

    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    with ops.name_scope(""):
        _LEARNING_PHASE[ops.get_default_graph()] = constant(bool(value), dtype=dtypes.bool, name="keras_learning_phase")


# --- tensors, values and the math helpers programs call through `K.` ---


def _tw():
    import tensorweave

    return tensorweave


def placeholder(shape=None, ndim=None, dtype=None, name=None):
    if shape is None and ndim is not None:
        shape = [None] * ndim
    return _tw().placeholder(dtype or floatx(), shape, name=name)


def variable(value, dtype=None, name=None):
    v = _tw().Variable(value, dtype=dtype or floatx(), name=name)
    get_session().run(v.initializer)
    return v


def constant(value, dtype=None, shape=None, name=None):
    return _tw().constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def eval(x):
    return get_session().run(x)


get_value = eval


def batch_get_value(xs):
    return get_session().run(list(xs)) if xs else []


def set_value(x, value):
    x.load(value, get_session())


def int_shape(x):
    return tuple(x.shape.as_list()) if x.shape.ndims is not None else None


def shape(x):
    return _tw().shape(x)


def mean(x, axis=None, keepdims=False):
    return _tw().reduce_mean(x, axis=axis, keepdims=keepdims)


def sum(x, axis=None, keepdims=False):
    return _tw().reduce_sum(x, axis=axis, keepdims=keepdims)


def square(x):
    return _tw().square(x)


def sqrt(x):
    return _tw().sqrt(_tw().maximum(x, 0.0))


def exp(x):
    return _tw().exp(x)


def log(x):
    return _tw().log(x)


def dot(x, y):
    return _tw().matmul(x, y)


def concatenate(tensors, axis=-1):
    return _tw().concat(list(tensors), axis)


def reshape(x, shape):
    return _tw().reshape(x, shape)


def cast(x, dtype):
    return _tw().cast(x, dtype)


def clip(x, min_value, max_value):
    return _tw().clip_by_value(x, min_value, max_value)


def stack(xs, axis=0):
    return _tw().stack(list(xs), axis=axis)


def expand_dims(x, axis=-1):
    return _tw().expand_dims(x, axis)


def squeeze(x, axis):
    return _tw().squeeze(x, [axis])


def softmax(x, axis=-1):
    return _tw().nn.softmax(x, axis=axis)


def gradients(loss, variables):
    return _tw().gradients(loss, variables)


def function(inputs, outputs, updates=None, name=None):
    """A callable that feeds `inputs` and returns the values of `outputs` (running `updates` too)."""
    single = not isinstance(outputs, (list, tuple))
    outs = [outputs] if single else list(outputs)
    ups = list(updates or [])

    def run(values):
        result = get_session().run(outs + ups, dict(zip(inputs, values)))[: len(outs)]
        return result

    return run


from tensorweave._src.keras.backend_more import ctc_decode, local_conv1d, local_conv2d, rnn  # noqa: F401
from tensorweave._src.keras.backend_ops import *  # the rest of `K.`
