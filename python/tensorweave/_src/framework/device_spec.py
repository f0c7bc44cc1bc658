"""Device specifications: TF1's `DeviceSpec` and the merge rules of `device()` scopes.

A device name has five optional parts, `/job:<name>/replica:<i>/task:<i>/device:<TYPE>:<i>`; the legacy forms
`/cpu:0`, `/gpu:1`, `GPU:*` name the type and index alone. A spec with some parts unset is partial: nested
`device()` scopes fill in the parts an inner scope left unset.
"""

# Device types a bare "<type>:<index>" part may name (TF's list; "/device:<TYPE>:<i>" accepts any type).
_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

_STRING_TO_COMPONENTS_CACHE = {}


def _as_str_or_none(value):
    return None if value is None else str(value)


def _as_int_or_none(value):
    return None if value is None else int(value)


def _as_device_type_or_none(device_type):
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return _as_str_or_none(device_type)


def _string_to_components(spec):
    """(job, replica, task, device_type, device_index) of a device string; ValueError when malformed."""
    cached = _STRING_TO_COMPONENTS_CACHE.get(spec)
    if cached is not None:
        return cached
    raw_spec = spec
    job = replica = task = device_type = device_index = None
    spec = spec or ""
    for part in (x.split(":") for x in spec.split("/")):
        n = len(part)
        if n == 2 and part[0] == "job":
            job = part[1]
        elif n == 2 and part[0] == "replica":
            replica = part[1]
        elif n == 2 and part[0] == "task":
            task = part[1]
        elif n in (1, 2) and part[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = part[0].upper()
            if n == 2 and part[1] != "*":
                device_index = int(part[1])
        elif n == 3 and part[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = part[1]
            if part[2] != "*":
                device_index = int(part[2])
        elif n and part[0] != "":
            raise ValueError(f"Unknown attribute '{part[0]}' is encountered while parsing the device spec: '{spec}'.")
    # Integer parts are converted (and checked: ValueError) before the result is cached.
    components = (job, _as_int_or_none(replica), _as_int_or_none(task), device_type, device_index)
    _STRING_TO_COMPONENTS_CACHE[raw_spec] = components
    return components


def _components_to_string(job, replica, task, device_type, device_index):
    out = []
    if job is not None:
        out.append("/job:" + job)
    if replica is not None:
        out.append(f"/replica:{replica}")
    if task is not None:
        out.append(f"/task:{task}")
    if device_type is not None:
        out.append(f"/device:{device_type}:{'*' if device_index is None else device_index}")
    return "".join(out)


class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index, each optional.

    As TF1's `tf.DeviceSpec` the fields are settable; `merge_from` merges another spec into this one and
    `make_merged_spec` returns the merge as a new spec (the other spec's set fields win).

    Example:
      >>> import tensorweave as tw
      >>> spec = tw.DeviceSpec.from_string("/job:ps/task:1/gpu:0")
      >>> spec.job, spec.task, spec.device_type, spec.device_index
      ('ps', 1, 'GPU', 0)
      >>> spec.to_string()
      '/job:ps/task:1/device:GPU:0'
      >>> tw.DeviceSpec(job="worker").make_merged_spec(tw.DeviceSpec(device_type="CPU")).to_string()
      '/job:worker/device:CPU:*'
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = _as_str_or_none(job)
        self._replica = _as_int_or_none(replica)
        self._task = _as_int_or_none(task)
        self._device_type = _as_device_type_or_none(device_type)
        self._device_index = _as_int_or_none(device_index)

    # --- fields (settable, as in TF1) ---------------------------------------------
    @property
    def job(self):
        return self._job

    @job.setter
    def job(self, job):
        self._job = _as_str_or_none(job)

    @property
    def replica(self):
        return self._replica

    @replica.setter
    def replica(self, replica):
        self._replica = _as_int_or_none(replica)

    @property
    def task(self):
        return self._task

    @task.setter
    def task(self, task):
        self._task = _as_int_or_none(task)

    @property
    def device_type(self):
        return self._device_type

    @device_type.setter
    def device_type(self, device_type):
        self._device_type = _as_device_type_or_none(device_type)

    @property
    def device_index(self):
        return self._device_index

    @device_index.setter
    def device_index(self, device_index):
        self._device_index = _as_int_or_none(device_index)

    # --- strings ---------------------------------------------------------------------
    @classmethod
    def from_string(cls, spec):
        """A spec parsed from `/job:<name>/replica:<i>/task:<i>/device:<TYPE>:<i>` (every part optional; the
        legacy `/cpu:0`, `/gpu:*` too). ValueError when malformed."""
        return cls(*_string_to_components(spec))

    def parse_from_string(self, spec):
        """Replaces every field by those of `spec` (unset where `spec` leaves them out); returns self."""
        self.job, self.replica, self.task, self.device_type, self.device_index = _string_to_components(spec)
        return self

    def to_string(self):
        """The spec as `/job:<name>/replica:<i>/task:<i>/device:<TYPE>:<i>`, naming only the set fields (an
        unset index with a set type is `*`)."""
        return _components_to_string(self._job, self._replica, self._task, self._device_type, self._device_index)

    # --- merging ---------------------------------------------------------------------
    def _combined(self, dev):
        return (
            dev.job if dev.job is not None else self.job,
            dev.replica if dev.replica is not None else self.replica,
            dev.task if dev.task is not None else self.task,
            dev.device_type if dev.device_type is not None else self.device_type,
            dev.device_index if dev.device_index is not None else self.device_index,
        )

    def merge_from(self, dev):
        """Sets each field that `dev` sets to `dev`'s value."""
        self.job, self.replica, self.task, self.device_type, self.device_index = self._combined(dev)

    def make_merged_spec(self, dev):
        """A new spec: this one with the fields `dev` sets replaced by `dev`'s."""
        return self.__class__(*self._combined(dev))

    def replace(self, **kwargs):
        """A new spec with the fields given as keywords (job=, replica=, task=, device_type=, device_index=)
        replaced."""
        fields = dict(
            job=self.job,
            replica=self.replica,
            task=self.task,
            device_type=self.device_type,
            device_index=self.device_index,
        )
        fields.update(kwargs)
        return self.__class__(**fields)

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return (
            f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
            f"device_type={self.device_type}, device_index={self.device_index})>"
        )


def may_be_same(a, b):
    """Whether device strings `a` and `b` (each possibly partial) can name the same device: no field set in both
    differs."""
    a, b = DeviceSpec.from_string(a or ""), DeviceSpec.from_string(b or "")
    fields = ("job", "replica", "task", "device_type", "device_index")
    return all(getattr(a, f) is None or getattr(b, f) is None or getattr(a, f) == getattr(b, f) for f in fields)


def canonical_name(device):
    """A device string, DeviceSpec or None as TF writes it on a node ('/cpu:0' -> '/device:CPU:0')."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def merge(spec, current):
    """`spec` (a device string) merged under the op's `current` device string: the fields `current` sets win
    (TF's MergeDevice: an outer scope fills only what inner scopes left unset)."""
    return DeviceSpec.from_string(spec).make_merged_spec(DeviceSpec.from_string(current)).to_string()
