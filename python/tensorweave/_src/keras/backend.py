"""tf.keras.backend for TF1 graph mode: the session and the learning phase (a minimal first part)."""

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


def epsilon():
    return 1e-7


def get_session():
    """The session Keras uses: the default session if there is one, else one of its own on the default graph."""
    default = ops.get_default_session()
    if default is not None:
        return default
    sess = _SESSION["session"]
    if sess is None or sess.graph is not ops.get_default_graph():
        sess = Session()
        _SESSION["session"] = sess
    return sess


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


def set_learning_phase(value):
    """Fixes the learning phase of the default graph to 0 (test) or 1 (train) for layers built afterwards."""
    from tensorweave._src.ops.constant_op import constant

    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    with ops.name_scope(""):
        _LEARNING_PHASE[ops.get_default_graph()] = constant(bool(value), dtype=dtypes.bool, name="keras_learning_phase")
