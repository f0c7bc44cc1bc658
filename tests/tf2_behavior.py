"""TensorFlow 2's behavior for a test that needs it (Keras 3, Keras saving, resource variables) even when an
earlier test in the same process called `tf.compat.v1.disable_v2_behavior()`, which switches off every flag
below for the whole process; the previous settings are restored afterwards. (Eager execution is entered per
block with `context.eager_mode()`: TensorFlow refuses to enable it globally once graphs exist.)"""

import contextlib


@contextlib.contextmanager
def tf2_behavior():
    from tensorflow.python import tf2
    from tensorflow.python.framework import tensor_shape
    from tensorflow.python.ops import control_flow_util
    from tensorflow.python.ops import resource_variables_toggle as resource

    saved = (
        tf2.enabled(),
        tensor_shape._TENSORSHAPE_V2_OVERRIDE,
        control_flow_util.ENABLE_CONTROL_FLOW_V2,
        resource.resource_variables_enabled(),
    )
    tf2.enable()
    tensor_shape.enable_v2_tensorshape()
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = True
    resource.enable_resource_variables()
    try:
        yield
    finally:
        tf2_on, tensor_shape._TENSORSHAPE_V2_OVERRIDE, control_flow_util.ENABLE_CONTROL_FLOW_V2, resource_on = saved
        (tf2.enable if tf2_on else tf2.disable)()
        (resource.enable_resource_variables if resource_on else resource.disable_resource_variables)()


def eager_mode():
    """A block run eagerly, even when another test in this process called tf.compat.v1.disable_eager_execution()."""
    from tensorflow.python.eager import context

    return context.eager_mode()
