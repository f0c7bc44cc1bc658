"""replica_device_setter: the device function of TF1's between-graph replication (variables round-robin on
the parameter-server tasks, every other op on the worker)."""

from tensorweave._src.framework import device_spec as pydev
from tensorweave._src.framework import tensor_shape

# The op types placed on the ps tasks by default (TF's STANDARD_PS_OPS).
STANDARD_PS_OPS = (
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTreeResource",
)


class _RoundRobinStrategy:
    """The next ps task for each ps op, cycling through `num_tasks`."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """A ps_strategy for replica_device_setter: each ps op goes to the ps task with the least load so far (ties:
    the lowest task), and adds `load_fn(op)` to it (TF1's tf.contrib.training.GreedyLoadBalancingStrategy).

    Args:
      num_tasks: the number of ps tasks.
      load_fn: the load of an op, e.g. byte_size_load_fn.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     greedy = tw.train.GreedyLoadBalancingStrategy(2, tw.train.byte_size_load_fn)
      ...     with tw.device(tw.train.replica_device_setter(ps_tasks=2, ps_strategy=greedy)):
      ...         big = tw.Variable(tw.zeros([100]))
      ...         small = [tw.Variable(tw.zeros([10])) for _ in range(3)]
      ...     print(big.device, [v.device for v in small])
      /job:ps/task:0 ['/job:ps/task:1', '/job:ps/task:1', '/job:ps/task:1']
    """

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = [0] * num_tasks

    def __call__(self, op):
        """The task for `op` (the least loaded); its load is added to that task."""
        task = min(range(self._num_tasks), key=lambda t: (self._ps_loads[t], t))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op):
    """The load of a variable op for GreedyLoadBalancingStrategy: the bytes of its single output (its declared
    shape when the output's is not fully defined).

    Raises:
      ValueError: when the op has not exactly one output or its shape is not fully defined.
    """
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op.name} must have a single output")
    output = op.outputs[0]
    elem_size = output.dtype.base_dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined():
        shape = tensor_shape.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * elem_size


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """The device of `op`: a ps task for the ps op types, else the worker device; what the scopes inside
        already set is kept."""
        if not self._merge_devices and op.device:
            return op.device
        current = pydev.DeviceSpec.from_string(op.device or "")
        op_type = op.op if hasattr(op, "op") and isinstance(op.op, str) else op.type
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_device = pydev.DeviceSpec.from_string(self._ps_device)
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker = pydev.DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def _cluster_dict(cluster):
    if hasattr(cluster, "as_dict"):
        return cluster.as_dict()
    if isinstance(cluster, dict):
        return cluster
    raise TypeError(f"cluster must be a dictionary or a ClusterSpec, got {type(cluster).__name__}")


def replica_device_setter(
    ps_tasks=0,
    ps_device="/job:ps",
    worker_device="/job:worker",
    merge_devices=True,
    cluster=None,
    ps_ops=None,
    ps_strategy=None,
):
    """A device function for `tw.device()`: variables (the `ps_ops` types) go round-robin to the tasks of
    the `ps` job, every other op to `worker_device`; device fields set by scopes inside are kept (TF1's
    `tf.train.replica_device_setter`).

    Args:
      ps_tasks: the number of ps tasks (taken from `cluster` when given).
      ps_device: the ps job's device ("" for no ps job).
      worker_device: the worker's device ("" for none).
      merge_devices: fill only the fields an op's device leaves unset (False: an op with any device keeps it).
      cluster: a {job name: [addresses]} dict or a ClusterSpec; None when its ps job is absent.
      ps_ops: the op types placed on ps tasks (default STANDARD_PS_OPS).
      ps_strategy: a function of the op returning its ps task (default: round-robin).

    Returns:
      The device function, or None when there are no ps tasks.

    Example:
      >>> import tensorweave as tw
      >>> cluster = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222"]}
      >>> with tw.Graph().as_default():
      ...     with tw.device(tw.train.replica_device_setter(cluster=cluster)):
      ...         v1 = tw.Variable(1.0)
      ...         v2 = tw.Variable(2.0)
      ...         s = v1 + v2
      ...     print(v1.device, v2.device, s.device)
      /job:ps/task:0 /job:ps/task:1 /job:worker
    """
    if cluster is not None:
        spec = _cluster_dict(cluster)
        ps_job = pydev.DeviceSpec.from_string(ps_device).job
        if ps_job not in spec or spec[ps_job] is None:
            return None
        ps_tasks = len(spec[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy)
    return chooser.device_function
