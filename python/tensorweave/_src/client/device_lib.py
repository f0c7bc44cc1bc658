"""The local devices, as TensorFlow's `device_lib`, `tf.test.is_gpu_available` and
`tf.config.list_physical_devices` report them."""

import collections
import re

from tensorweave import _pywrap_tensorweave as _pywrap


class DeviceAttributes:
    """One local device (TF's DeviceAttributes): `name` ("/device:CPU:0"), `device_type` ("CPU", "GPU"),
    `memory_limit` (bytes), `incarnation` (a random nonzero id fixed for the device's life) and
    `physical_device_desc` (for a GPU: its name, PCI bus id and "compute capability: X.Y")."""

    __slots__ = ("device_type", "incarnation", "memory_limit", "name", "physical_device_desc")

    def __init__(self, name, device_type, memory_limit, incarnation, physical_device_desc):
        self.name = name
        self.device_type = device_type
        self.memory_limit = memory_limit
        self.incarnation = incarnation
        self.physical_device_desc = physical_device_desc

    def __repr__(self):
        return (
            f'name: "{self.name}"\ndevice_type: "{self.device_type}"\nmemory_limit: {self.memory_limit}\n'
            f'incarnation: {self.incarnation}\nphysical_device_desc: "{self.physical_device_desc}"'
        )


_LOCAL_NAME = re.compile(r"/device:[^/]+$")


def _local_devices(device_count):
    return _pywrap.list_local_devices(dict(device_count))


def list_local_devices(session_config=None):
    """The devices of this process (TF's `device_lib.list_local_devices`): the CPU devices and any GPUs,
    each named "/device:<TYPE>:<index>"; `session_config.device_count` limits them as a session's.

    Example:
      >>> from tensorweave.python.client import device_lib
      >>> [d.name for d in device_lib.list_local_devices()][0]
      '/device:CPU:0'
    """
    device_count = session_config.device_count if session_config is not None else {}
    out = []
    for name, device_type, memory_limit, incarnation, desc in _local_devices(device_count):
        m = _LOCAL_NAME.search(name)
        out.append(DeviceAttributes(m.group(0) if m else name, device_type, memory_limit, incarnation, desc))
    return out


_COMPUTE_CAPABILITY = re.compile(r"compute capability: (\d+)\.(\d+)")


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether a GPU device is present (with at least `min_cuda_compute_capability`, a (major, minor)
    tuple, when given), as TF's `tf.test.is_gpu_available`.

    Example:
      >>> import tensorweave as tw
      >>> isinstance(tw.test.is_gpu_available(), bool)
      True
    """
    del cuda_only  # the only GPUs tensorweave knows are CUDA devices
    for device in list_local_devices():
        if device.device_type == "GPU":
            m = _COMPUTE_CAPABILITY.search(device.physical_device_desc or "")
            capability = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
            if not min_cuda_compute_capability or capability >= tuple(min_cuda_compute_capability):
                return True
    return False


def gpu_device_name():
    """The name of the first GPU device ("/device:GPU:0"), or "" when there is none (TF's
    `tf.test.gpu_device_name`)."""
    for device in list_local_devices():
        if device.device_type == "GPU":
            return device.name
    return ""


LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
LogicalDevice.__doc__ = """A device the runtime runs ops on: `name` ("/device:CPU:0") and `device_type`."""

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = """A device of the machine: `name` ("/physical_device:CPU:0") and `device_type`."""


def list_physical_devices(device_type=None):
    """The machine's devices, of `device_type` only when given ("CPU", "GPU"), as TF's
    `tf.config.list_physical_devices`.

    Example:
      >>> import tensorweave as tw
      >>> tw.config.list_physical_devices("CPU")
      [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    out = []
    for device in list_local_devices():
        m = re.match(r"/device:([^:]+):(\d+)$", device.name)
        if m and (device_type is None or m.group(1) == device_type.upper()):
            out.append(PhysicalDevice(f"/physical_device:{m.group(1)}:{m.group(2)}", m.group(1)))
    return out


def list_logical_devices(device_type=None):
    """The devices ops run on, of `device_type` only when given, as TF's `tf.config.list_logical_devices`.

    Example:
      >>> import tensorweave as tw
      >>> tw.config.list_logical_devices("CPU")
      [LogicalDevice(name='/device:CPU:0', device_type='CPU')]
    """
    return [
        LogicalDevice(d.name, d.device_type)
        for d in list_local_devices()
        if device_type is None or d.device_type == device_type.upper()
    ]


def get_memory_info(device):
    """The memory use of a GPU ("GPU:0", "/device:GPU:0", "/physical_device:GPU:0"), as TF's
    `tf.config.experimental.get_memory_info`: {"current": bytes in use now, "peak": the most in use since the
    start or the last `reset_memory_stats`}, over every session of the process. Raises ValueError for a device
    that does not track its memory (the CPU, as in TF) or does not exist.

    Example:
      >>> import tensorweave as tw
      >>> tw.config.experimental.get_memory_info("CPU:0")
      Traceback (most recent call last):
      ...
      ValueError: Device 'CPU:0' does not support getting memory information (or does not exist)
    """
    return _pywrap.get_memory_info(str(device))


def reset_memory_stats(device):
    """Starts a new peak for `get_memory_info(device)` (TF's `tf.config.experimental.reset_memory_stats`);
    ValueError for a device that does not track its memory (the CPU) or does not exist."""
    _pywrap.reset_memory_stats(str(device))
