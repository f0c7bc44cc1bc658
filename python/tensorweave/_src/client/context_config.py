"""Process-wide settings of `tf.config` (threads, soft placement, visible and
logical devices, graph-optimizer options) and the ConfigProto a Session made
without one gets from them, as TensorFlow 2's `compat.v1.Session()` takes its
default config from the context.

Example:
  >>> import tensorweave as tw
  >>> tw.config.threading.set_intra_op_parallelism_threads(2)
  >>> tw.Session().run(tw.constant(1.0)), tw.Session()._config.intra_op_parallelism_threads
  (np.float32(1.0), 2)
  >>> tw.config.threading.set_intra_op_parallelism_threads(0)
"""

import collections
import threading as _threading

from tensorweave._src.client import device_lib
from tensorweave._src.client.session_config import ConfigProto
from tensorweave._src.client.session_config import RewriterConfig

_lock = _threading.Lock()
_state = {
    "intra": 0,
    "inter": 0,
    "soft": None,
    "optimizer": {},
    "jit": None,
    "visible": None,
    "logical": {},
    "growth": {},
}

# tf.config.optimizer's experimental option names: RewriterConfig's toggles, and two plain booleans.
_TOGGLE_OPTIONS = RewriterConfig._TOGGLES
_BOOL_OPTIONS = ("disable_model_pruning", "disable_meta_optimizer")

LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration",
    ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    defaults=(None, None, 0),
)
LogicalDeviceConfiguration.__doc__ = """A logical device to make of a physical one (`memory_limit` in MB for a GPU;
several of them split the CPU into that many CPU devices)."""
VirtualDeviceConfiguration = LogicalDeviceConfiguration


def default_config():
    """The ConfigProto of a Session created without one."""
    with _lock:
        config = ConfigProto(
            intra_op_parallelism_threads=_state["intra"],
            inter_op_parallelism_threads=_state["inter"],
            allow_soft_placement=bool(_state["soft"]),
        )
        rewrite = config.graph_options.rewrite_options
        for name, value in _state["optimizer"].items():
            if name in _BOOL_OPTIONS:
                setattr(rewrite, name, value)
            else:
                setattr(rewrite, name, RewriterConfig.ON if value else RewriterConfig.OFF)
        counts = {}
        if _state["visible"] is not None:
            for kind in {d.device_type for d in device_lib.list_physical_devices()}:
                counts[kind] = sum(d.device_type == kind for d in _state["visible"])
        for device, logical in _state["logical"].items():
            if device.device_type == "CPU":
                counts["CPU"] = len(logical)
        config.device_count.update(counts)
        config.gpu_options.allow_growth = any(_state["growth"].values())
    return config


def _set(key, value):
    with _lock:
        _state[key] = value


def _threads(value, what):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer (0: one per core), got {value!r}")
    return value


def get_intra_op_parallelism_threads():
    """Threads one large kernel may use in new sessions (0: one per core)."""
    return _state["intra"]


def set_intra_op_parallelism_threads(num_threads):
    _set("intra", _threads(num_threads, "intra_op_parallelism_threads"))


def get_inter_op_parallelism_threads():
    """Threads that run independent ops at once in new sessions (0: one per core)."""
    return _state["inter"]


def set_inter_op_parallelism_threads(num_threads):
    _set("inter", _threads(num_threads, "inter_op_parallelism_threads"))


def get_soft_device_placement():
    """Whether new sessions place an op elsewhere when its requested device cannot run it."""
    return bool(_state["soft"])


def set_soft_device_placement(enabled):
    _set("soft", bool(enabled))


def get_experimental_options():
    """The graph optimizer's options set by `set_experimental_options`, as TF reports them."""
    with _lock:
        options = dict(_state["optimizer"])
    return {**options, **{k: options.get(k, False) for k in _BOOL_OPTIONS}}


def set_experimental_options(options):
    """Switches graph-optimizer passes of new sessions: {"constant_folding": False, "remapping": True, ...}."""
    unknown = sorted(set(options) - set(_TOGGLE_OPTIONS) - set(_BOOL_OPTIONS) - {"min_graph_nodes"})
    if unknown:
        raise ValueError(f"set_experimental_options: unknown options {unknown}")
    with _lock:
        _state["optimizer"].update({k: bool(v) for k, v in options.items() if k != "min_graph_nodes"})


def get_jit():
    """The XLA JIT setting: tensorweave has no XLA, so "" unless set."""
    return _state["jit"] or ""


def set_jit(enabled):
    """Records the XLA JIT request; tensorweave has no XLA compiler, so graphs run as they are."""
    _set("jit", "autoclustering" if enabled is True else (enabled or None))


def _physical(device_type=None):
    return device_lib.list_physical_devices(device_type)


def get_visible_devices(device_type=None):
    """The physical devices new sessions may use (all, unless `set_visible_devices` hid some)."""
    visible = _state["visible"]
    devices = _physical() if visible is None else list(visible)
    return [d for d in devices if device_type is None or d.device_type == device_type.upper()]


def set_visible_devices(devices, device_type=None):
    """Restricts new sessions to `devices` (of `device_type` when given; the
    other types stay as they are): `set_visible_devices([], "GPU")` hides every
    GPU."""
    devices = [devices] if isinstance(devices, device_lib.PhysicalDevice) else list(devices)
    known = _physical()
    for d in devices:
        if d not in known:
            raise ValueError(f"set_visible_devices: unknown device {d}; the machine has {known}")
        if device_type is not None and d.device_type != device_type.upper():
            raise ValueError(f"set_visible_devices: {d} is not of type {device_type}")
    with _lock:
        current = known if _state["visible"] is None else _state["visible"]
        if device_type is not None:
            kept = [d for d in current if d.device_type != device_type.upper()]
            devices = kept + devices
        if not any(d.device_type == "CPU" for d in devices):
            raise ValueError("set_visible_devices: the CPU cannot be hidden")
        _state["visible"] = devices


def get_logical_device_configuration(device):
    """The logical devices made of physical `device`, or None."""
    return _state["logical"].get(device)


def set_logical_device_configuration(device, logical_devices):
    """Makes `logical_devices` (LogicalDeviceConfiguration) of physical `device`;
    for the CPU, new sessions then have that many CPU devices."""
    if device not in _physical():
        raise ValueError(f"set_logical_device_configuration: unknown device {device}")
    logical = list(logical_devices) if logical_devices is not None else None
    with _lock:
        if logical:
            _state["logical"][device] = logical
        else:
            _state["logical"].pop(device, None)


def get_memory_growth(device):
    """Whether memory growth is on for GPU `device`."""
    return _state["growth"].get(device, False)


def set_memory_growth(device, enable):
    """Lets new sessions take GPU memory as they need it instead of up front."""
    if device not in _physical():
        raise ValueError(f"set_memory_growth: unknown device {device}")
    if device.device_type != "GPU":
        raise ValueError(f"set_memory_growth: {device} is not a GPU")
    with _lock:
        _state["growth"][device] = bool(enable)


def functions_run_eagerly():
    """False: tensorweave runs graphs (no eager mode)."""
    return False
