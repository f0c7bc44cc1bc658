"""TF1's PartitionedVariable: a variable made by `get_variable(..., partitioner=...)` as several variables
`<name>/part_<i>`, each a slice of the full shape along one axis (the first `full % n` slices one row longer,
as TF's `_iter_slices`). `embedding_lookup` reads it as its list of shards; converting it to a Tensor
concatenates the parts."""

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops import variables


class PartitionInfo:
    """Where a partition sits in the full variable (TF1's `variable_scope._PartitionInfo`): handed to the
    initializer of each part as `partition_info`."""

    def __init__(self, full_shape, var_offset):
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape):
        """The offset along the one partitioned axis (0 when the variable has one part)."""
        axis = self.single_slice_dim(shape)
        return 0 if axis is None else self.var_offset[axis]

    def single_slice_dim(self, shape):
        """The axis this part is a slice of, None when it is the whole variable."""
        for i, (full, part) in enumerate(zip(self.full_shape, shape)):
            if full != part:
                return i
        return None


class PartitionedVariable:
    """A list of variables that together make one variable, cut along one axis.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     v = tw.get_variable("emb", [10, 4], partitioner=tw.fixed_size_partitioner(3))
      ...     print([p.op.name for p in v], [p.shape.as_list() for p in v])
      ['emb/part_0', 'emb/part_1', 'emb/part_2'] [[4, 4], [3, 4], [3, 4]]
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        self._name = name
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._variable_list = sorted(variable_list, key=lambda v: v._tw_partition_offset)
        self._partitions = list(partitions)
        self._as_tensor = None

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        num_partition_axes = len([p for p in self._partitions if p > 1])
        if num_partition_axes > 1:
            raise ValueError(f"Cannot get a length for {num_partition_axes} > 1 partition axes")
        return len(self._variable_list)

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def graph(self):
        return self._variable_list[0].graph

    @property
    def op(self):
        return self._variable_list[0].op

    def as_tensor(self):
        """The full value: the parts concatenated along the partitioned axis (`<name>/ConcatPartitions/concat`)."""
        from tensorweave._src.ops import array_ops

        graph = self.graph
        with graph.control_dependencies(None), graph.name_scope(self._name + "/ConcatPartitions/"):
            if len(self._variable_list) == 1:
                return array_ops.identity(self._variable_list[0].value())
            axis = self._partition_axes()[0]
            return array_ops.concat([v.value() for v in self._variable_list], axis, name="concat")

    def assign(self, value, use_locking=False, name=None, read_value=True):
        raise NotImplementedError("assign() has not been implemented for PartitionedVariable.")


def _to_tensor(value, dtype=None, name=None):
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtype.name}' for variable of type '{value.dtype.name}'"
        )
    return value.as_tensor()


ops.register_tensor_conversion_function(PartitionedVariable, _to_tensor)


def _iter_slices(full_shape, num_slices, slice_dim):
    """(offset, shape) of each slice: the first full % n slices one longer (TF's `_iter_slices`)."""
    num_slices_with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = list(full_shape)
        shape[slice_dim] = min_slice_len + bool(i < num_slices_with_excess)
        yield list(offset), shape
        offset[slice_dim] += shape[slice_dim]


def make_partitioned_variable(full_name, shape, dtype, partitioner, make_part):
    """The PartitionedVariable `full_name` of `shape`, cut as `partitioner(shape=, dtype=)` says, each part made by
    `make_part(part_name, part_shape, partition_info)` (a Variable)."""
    shape = tensor_shape.as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(
            f"Shape of a new partitioned variable ({full_name}) must be fully defined, but instead was {shape}."
        )
    if shape.ndims < 1:
        raise ValueError(f"A partitioned variable must have rank at least 1, shape: {shape}")
    partitions = partitioner(shape=shape, dtype=dtype)
    if not isinstance(partitions, (list, tuple)):
        raise ValueError(f"Partitioner must return a list or tuple, but saw: {partitions!r}")
    partitions = [int(p) for p in partitions]
    if len(partitions) != shape.ndims:
        raise ValueError(
            f"Partitioner returned a partition list that does not match the Variable's rank: {partitions} vs. {shape}"
        )
    if any(p < 1 for p in partitions):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {partitions}")
    slice_dims = [i for i, p in enumerate(partitions) if p > 1]
    if len(slice_dims) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, partitioning: {partitions}")
    full_shape = shape.as_list()
    slice_dim = slice_dims[0] if slice_dims else 0
    num_slices = partitions[slice_dim]
    if full_shape[slice_dim] < num_slices:
        raise ValueError(
            f"Cannot create {num_slices} slices for size {full_shape[slice_dim]}. shape: {full_shape}, partitioning: "
            f"{partitions}"
        )
    parts = []
    for i, (offset, part_shape) in enumerate(_iter_slices(full_shape, num_slices, slice_dim)):
        var = make_part(f"{full_name}/part_{i}", part_shape, PartitionInfo(full_shape, offset))
        var._tw_partition_offset = offset[slice_dim]
        var._save_slice_info = variables.SaveSliceInfo(full_name, full_shape, offset, part_shape)
        parts.append(var)
    return PartitionedVariable(full_name, full_shape, dtype, parts, partitions)
