"""The machine's devices, with TensorFlow's `tf.config` names.

Example:
  >>> import tensorweave as tw
  >>> [d.device_type for d in tw.config.list_physical_devices("CPU")]
  ['CPU']
"""

import types

from tensorweave._src.client.device_lib import LogicalDevice
from tensorweave._src.client.device_lib import PhysicalDevice
from tensorweave._src.client.device_lib import get_memory_info
from tensorweave._src.client.device_lib import list_logical_devices
from tensorweave._src.client.device_lib import list_physical_devices
from tensorweave._src.client.device_lib import reset_memory_stats

experimental = types.SimpleNamespace(
    get_memory_info=get_memory_info,
    list_logical_devices=list_logical_devices,
    list_physical_devices=list_physical_devices,
    reset_memory_stats=reset_memory_stats,
)

__all__ = ["LogicalDevice", "PhysicalDevice", "experimental", "list_logical_devices", "list_physical_devices"]
