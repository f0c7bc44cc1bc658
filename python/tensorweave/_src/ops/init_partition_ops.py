"""TF1's remaining initializers (orthogonal, identity, uniform_unit_scaling, lecun_*) and the variable partitioners
(objects that return a partition list per variable shape, as TF1's)."""

import math

from tensorweave._src.framework import dtypes, tensor_shape
from tensorweave._src.ops import array_ops, random_ops
from tensorweave._src.ops.init_ops import Initializer, VarianceScaling


def _dims(shape):
    return [tensor_shape.dimension_value(d) for d in shape]


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal draw (signs fixed by R's diagonal), the
    leading dims flattened into rows, times `gain`."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None, partition_info=None):
        from tensorweave._src.ops import linalg_ops, math_ops

        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = _dims(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = 1
        for dim in shape[:-1]:
            num_rows *= dim
        num_cols = shape[-1]
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a, full_matrices=False)
        d = linalg_ops.matrix_diag_part(r)
        q *= math_ops.sign(d)
        if num_rows < num_cols:
            q = linalg_ops.matrix_transpose(q)
        return self.gain * array_ops.reshape(q, shape)


class Identity(Initializer):
    """The identity matrix times `gain` (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        super().__init__(dtype)
        self.gain = gain

    def __call__(self, shape, dtype=None, partition_info=None):
        from tensorweave._src.ops import array_nd_ops

        full_shape = _dims(shape) if partition_info is None else _dims(partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        dtype = dtypes.as_dtype(dtype or self.dtype)
        initializer = array_nd_ops.eye(*full_shape, dtype=dtype)
        if partition_info is not None:
            initializer = array_ops.slice(initializer, partition_info.var_offset, _dims(shape))
        return self.gain * initializer


class UniformUnitScaling(Initializer):
    """Uniform in +-factor * sqrt(3 / input_size), input_size the product of all dims but the last (TF1's
    uniform_unit_scaling_initializer: keeps the scale of a linear layer's input)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.factor, self.seed = factor, seed

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        scale_shape = _dims(shape) if partition_info is None else _dims(partition_info.full_shape)
        input_size = 1.0
        for dim in scale_shape[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(_dims(shape), -max_val, max_val, dtype, seed=self.seed)


def lecun_normal(seed=None):
    """Truncated normal with variance 1 / fan_in (LeCun)."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    """Uniform with variance 1 / fan_in (LeCun)."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


orthogonal_initializer = Orthogonal
uniform_unit_scaling_initializer = UniformUnitScaling


# --- partitioners ---------------------------------------------------------------------------------------------
def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner giving min(num_shards, shape[axis]) parts along `axis`."""

    def _partitioner(shape, **unused_args):
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, tensor_shape.dimension_value(shape[axis]))
        return partitions_list

    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """A partitioner that cuts `axis` so that each shard holds at most max_shard_bytes (at least one slice a
    shard; at most max_shards shards)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. "
            f"Currently, max_shard_bytes is {max_shard_bytes} and"
            f"bytes_per_string_element is {bytes_per_string_element}"
        )
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, tensor_shape.TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")  # noqa: TRY004 (TF1 raises ValueError)
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        dtype = dtypes.as_dtype(dtype)
        element_size = bytes_per_string_element if dtype == dtypes.string else dtype.size
        partitions = [1] * shape.ndims
        axis_size = tensor_shape.dimension_value(shape[axis])
        bytes_per_slice = 1.0 * (shape.num_elements() / axis_size) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = math.ceil(1.0 * axis_size / slices_per_shard)
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """A partitioner giving as many parts along `axis` as keep each at least min_slice_size bytes, at most
    max_partitions (and at most shape[axis])."""

    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis: {axis} when shape is only {shape}")
        dtype = dtypes.as_dtype(dtype)
        bytes_per_element = bytes_per_string_element if dtype == dtypes.string else dtype.size
        total_size_bytes = shape.num_elements() * bytes_per_element
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(
            1, min(tensor_shape.dimension_value(shape[axis]), max_partitions, math.ceil(partitions))
        )
        return partitions_list

    return _partitioner
