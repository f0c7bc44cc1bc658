"""The machine's devices and the process-wide session settings, with
TensorFlow's `tf.config` names. A Session created without a ConfigProto takes
its threads, soft placement, visible devices and graph-optimizer options from
here, as TensorFlow 2's `compat.v1.Session()` does.

Example:
  >>> import tensorweave as tw
  >>> [d.device_type for d in tw.config.list_physical_devices("CPU")]
  ['CPU']
  >>> tw.config.threading.get_intra_op_parallelism_threads()
  0
"""

import types

from tensorweave._src.client import context_config as _ctx
from tensorweave._src.client.context_config import LogicalDeviceConfiguration
from tensorweave._src.client.context_config import functions_run_eagerly
from tensorweave._src.client.context_config import get_logical_device_configuration
from tensorweave._src.client.context_config import get_soft_device_placement
from tensorweave._src.client.context_config import get_visible_devices
from tensorweave._src.client.context_config import set_logical_device_configuration
from tensorweave._src.client.context_config import set_soft_device_placement
from tensorweave._src.client.context_config import set_visible_devices
from tensorweave._src.client.device_lib import LogicalDevice
from tensorweave._src.client.device_lib import PhysicalDevice
from tensorweave._src.client.device_lib import get_memory_info
from tensorweave._src.client.device_lib import list_logical_devices
from tensorweave._src.client.device_lib import list_physical_devices
from tensorweave._src.client.device_lib import reset_memory_stats

experimental = types.SimpleNamespace(
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    get_memory_growth=_ctx.get_memory_growth,
    get_memory_info=get_memory_info,
    get_virtual_device_configuration=get_logical_device_configuration,
    get_visible_devices=get_visible_devices,
    list_logical_devices=list_logical_devices,
    list_physical_devices=list_physical_devices,
    reset_memory_stats=reset_memory_stats,
    set_memory_growth=_ctx.set_memory_growth,
    set_virtual_device_configuration=set_logical_device_configuration,
    set_visible_devices=set_visible_devices,
)
threading = types.SimpleNamespace(
    get_inter_op_parallelism_threads=_ctx.get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads=_ctx.get_intra_op_parallelism_threads,
    set_inter_op_parallelism_threads=_ctx.set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads=_ctx.set_intra_op_parallelism_threads,
)
optimizer = types.SimpleNamespace(
    get_experimental_options=_ctx.get_experimental_options,
    get_jit=_ctx.get_jit,
    set_experimental_options=_ctx.set_experimental_options,
    set_jit=_ctx.set_jit,
)

__all__ = [
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "PhysicalDevice",
    "experimental",
    "functions_run_eagerly",
    "get_logical_device_configuration",
    "get_soft_device_placement",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "optimizer",
    "set_logical_device_configuration",
    "set_soft_device_placement",
    "set_visible_devices",
    "threading",
]
