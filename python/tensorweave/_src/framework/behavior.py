"""TF1's switches between v1 and v2 behaviour. tensorweave always behaves as TensorFlow 1 (graphs, reference
variables, v1 control flow and TensorShape, Tensors compared by identity), so the `disable_*` switches change
nothing and the queries say so; the `enable_*` switches ask for behaviour tensorweave does not have and raise."""


def _noop(name, what):
    def switch():
        return None

    switch.__name__ = switch.__qualname__ = name
    switch.__doc__ = f"Does nothing: tensorweave always has TF1's {what}."
    return switch


disable_v2_behavior = _noop("disable_v2_behavior", "behaviour")
disable_eager_execution = _noop("disable_eager_execution", "graph execution")
disable_control_flow_v2 = _noop("disable_control_flow_v2", "control flow")
disable_resource_variables = _noop("disable_resource_variables", "reference variables")
disable_tensor_equality = _noop("disable_tensor_equality", "Tensor equality by identity")
disable_v2_tensorshape = _noop("disable_v2_tensorshape", "TensorShape of Dimensions")


def executing_eagerly():
    """False: tensorweave builds graphs and runs them in sessions (TF1 without eager execution)."""
    return False


def control_flow_v2_enabled():
    """False: TF1's control flow."""
    return False


def resource_variables_enabled():
    """False: TF1's reference variables."""
    return False


def _unsupported(name, what):
    def switch(*args, **kwargs):
        raise NotImplementedError(f"{name}: tensorweave has TF1's behaviour only; {what} is not supported")

    switch.__name__ = switch.__qualname__ = name
    switch.__doc__ = f"Raises NotImplementedError: {what} is not supported (tensorweave behaves as TF1)."
    switch._tw_unsupported = True  # not counted by tools/api_coverage.py
    return switch


enable_v2_behavior = _unsupported("enable_v2_behavior", "TensorFlow 2 behaviour")
enable_eager_execution = _unsupported("enable_eager_execution", "eager execution")
enable_control_flow_v2 = _unsupported("enable_control_flow_v2", "v2 control flow")
enable_resource_variables = _unsupported("enable_resource_variables", "resource variables")
enable_tensor_equality = _unsupported("enable_tensor_equality", "element-wise Tensor ==")
enable_v2_tensorshape = _unsupported("enable_v2_tensorshape", "the v2 TensorShape")
