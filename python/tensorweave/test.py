"""Test helpers with TensorFlow's `tf.test` names: whether a GPU is present.

Example:
  >>> import tensorweave as tw
  >>> tw.test.gpu_device_name() in ("", "/device:GPU:0")
  True
"""

from tensorweave._src.client.device_lib import gpu_device_name
from tensorweave._src.client.device_lib import is_gpu_available
from tensorweave._src.platform.gpu_loader import gpu_unavailable_reason

__all__ = ["gpu_device_name", "gpu_unavailable_reason", "is_gpu_available"]
