"""The local devices (TensorFlow's `tensorflow.python.client.device_lib`).

Example:
  >>> from tensorweave.python.client import device_lib
  >>> "CPU" in [d.device_type for d in device_lib.list_local_devices()]
  True
"""

from tensorweave._src.client.device_lib import DeviceAttributes
from tensorweave._src.client.device_lib import list_local_devices

__all__ = ["DeviceAttributes", "list_local_devices"]
