"""The machine's devices, with TensorFlow's `tf.config` names.

Example:
  >>> import tensorweave as tw
  >>> [d.device_type for d in tw.config.list_physical_devices("CPU")]
  ['CPU']
"""

import types

from tensorweave._src.client.device_lib import PhysicalDevice
from tensorweave._src.client.device_lib import list_physical_devices

experimental = types.SimpleNamespace(list_physical_devices=list_physical_devices)

__all__ = ["PhysicalDevice", "experimental", "list_physical_devices"]
