"""Gradients of the TensorArray ops (TF1's tensor_array_grad.py) and the stacks' not-differentiable declarations.

The gradient of a TensorArray is another TensorArray (TensorArrayGradV3, one per gradient computation, named by
its "gradients" name scope): the gradient of a read writes into it, the gradient of a write reads from it, and
so on; writes to one index of a gradient array add up. The gradient that flows along a TensorArray's flow tensor
is the gradient array's flow.
"""

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops, gradients_impl, tensor_array_ops

for _op in (
    "TensorArrayV3",
    "TensorArrayGradV3",
    "TensorArraySizeV3",
    "TensorArrayCloseV3",
    "StackV2",
    "StackPushV2",
    "StackPopV2",
    "StackCloseV2",
):
    gradients_impl.NotDifferentiable(_op)


def _get_grad_source(op_or_tensor):
    """The name scope of the gradient computation a gradient tensor belongs to ("gradients", "gradients_1", ...)."""
    name_tokens = op_or_tensor.name.split("/")
    grad_pos = [i for i, x in enumerate(name_tokens) if x.startswith("gradients")]
    if not grad_pos:
        raise ValueError(f"Expected op/tensor name to start with gradients (excluding scope), got: {op_or_tensor.name}")
    return "/".join(name_tokens[: grad_pos[-1] + 1])


def _grad_array(handle, dtype, flow, source):
    return tensor_array_ops.TensorArray(
        dtype=dtype, handle=handle, flow=flow, colocate_with_first_write_call=False
    ).grad(source=source, flow=flow)


def _write_barrier(op, flow):
    # The gradient array must be read after the forward write ran (its flow_out) and after every gradient
    # written into it (flow).
    flow_out = array_ops.identity(op.outputs[0], "flow_out")
    with ops.control_dependencies([flow_out]):
        return array_ops.identity(flow, "write_barrier")


@gradients_impl.RegisterGradient("TensorArrayReadV3")
def _tensor_array_read_grad(op, grad):
    handle, index, flow = op.inputs
    g = _grad_array(handle, op.get_attr("dtype"), flow, _get_grad_source(grad))
    return [None, None, g.write(index, grad).flow]


@gradients_impl.RegisterGradient("TensorArrayWriteV3")
def _tensor_array_write_grad(op, flow):
    handle, index = op.inputs[0], op.inputs[1]
    source = _get_grad_source(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(handle, op.get_attr("T"), flow, source)
    return [None, None, g.read(index), flow]


@gradients_impl.RegisterGradient("TensorArrayGatherV3")
def _tensor_array_gather_grad(op, grad):
    handle, indices, flow = op.inputs
    g = _grad_array(handle, op.get_attr("dtype"), flow, _get_grad_source(grad))
    return [None, None, g.scatter(indices, grad).flow]


@gradients_impl.RegisterGradient("TensorArrayScatterV3")
def _tensor_array_scatter_grad(op, flow):
    handle, indices = op.inputs[0], op.inputs[1]
    source = _get_grad_source(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(handle, op.get_attr("T"), flow, source)
    return [None, None, g.gather(indices), flow]


@gradients_impl.RegisterGradient("TensorArrayConcatV3")
def _tensor_array_concat_grad(op, grad, unused_lengths_grad):
    handle, flow = op.inputs
    lengths = op.outputs[1]
    g = _grad_array(handle, op.get_attr("dtype"), flow, _get_grad_source(grad))
    return [None, g.split(grad, lengths=lengths).flow]


@gradients_impl.RegisterGradient("TensorArraySplitV3")
def _tensor_array_split_grad(op, flow):
    handle = op.inputs[0]
    source = _get_grad_source(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(handle, op.get_attr("T"), flow, source)
    return [None, g.concat(), None, flow]
