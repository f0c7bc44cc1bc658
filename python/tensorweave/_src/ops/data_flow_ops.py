"""TF1's dynamic_partition and dynamic_stitch, with TF's gradients."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl, math_ops


def dynamic_partition(data, partitions, num_partitions, name=None):
    """A list of num_partitions tensors; an out-of-range partition is an InvalidArgumentError naming it."""
    data = ops.convert_to_tensor(data, name="data")
    partitions = ops.convert_to_tensor(partitions, dtype=dtypes.int32, name="partitions")
    return gen_ops.wrapper("DynamicPartition")(
        data, partitions, num_partitions=int(num_partitions), name=name or "DynamicPartition"
    )


def dynamic_stitch(indices, data, name=None):
    """One tensor: merged[indices[m][i], ...] = data[m][i, ...]."""
    indices = [ops.convert_to_tensor(i, dtype=dtypes.int32) for i in indices]
    data = [ops.convert_to_tensor(d) for d in data]
    if len(indices) != len(data):
        raise ValueError(
            f"List argument 'data' to 'DynamicStitch' Op with length {len(data)} must match length "
            f"{len(indices)} of argument 'indices'."
        )
    return gen_ops.wrapper("DynamicStitch")(indices, data, name=name or "DynamicStitch")


@gradients_impl.RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op, *grads):
    data = op.inputs[0]
    indices = op.inputs[1]
    num_partitions = op.get_attr("num_partitions")
    prefix_shape = array_ops.shape(indices)
    original_indices = array_ops.reshape(array_ops.range(math_ops.reduce_prod(prefix_shape)), prefix_shape)
    partitioned_indices = dynamic_partition(original_indices, indices, num_partitions)
    grads = [g if g is not None else array_ops.zeros_like(o) for g, o in zip(grads, op.outputs)]
    reconstructed = dynamic_stitch(partitioned_indices, grads)
    reconstructed = array_ops.reshape(reconstructed, array_ops.shape(data))
    return [reconstructed, None]


@gradients_impl.RegisterGradient("DynamicStitch")
def _dynamic_stitch_grad(op, grad):
    num_values = len(op.inputs) // 2
    indices_grad = [None] * num_values
    values_grad = [array_ops.gather(grad, op.inputs[i]) for i in range(num_values)]
    return indices_grad + values_grad
