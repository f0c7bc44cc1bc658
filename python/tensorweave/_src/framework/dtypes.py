"""Element types of tensors."""

import ml_dtypes
import numpy as np


class DType:
    """The element type of a tensor: `tw.float32`, `tw.int64`, ...

    Example:
      >>> import tensorweave as tw
      >>> tw.as_dtype("float32") == tw.float32
      True
    """

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum, name, np_type):
        self._enum = enum
        self._name = name
        self._np = np_type

    @property
    def name(self):
        return self._name

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def as_numpy_dtype(self):
        if self._np is None:
            raise TypeError(f"{self} has no numpy dtype")
        return self._np

    @property
    def base_dtype(self):
        return self

    @property
    def is_floating(self):
        return self._enum in _FLOATING

    @property
    def is_integer(self):
        return self._enum in _INTEGER

    @property
    def is_unsigned(self):
        return self._enum in _UNSIGNED

    @property
    def is_complex(self):
        return self._enum in _REAL_OF_COMPLEX

    @property
    def real_dtype(self):
        """The dtype of a real part: float32 for complex64, float64 for complex128, else the dtype itself."""
        real = _REAL_OF_COMPLEX.get(self._enum)
        return self if real is None else _BY_ENUM[real]

    @property
    def is_bool(self):
        return self._enum == 10

    @property
    def is_numpy_compatible(self):
        return self._enum != 7 and self._np is not None

    @property
    def size(self):
        return 0 if self._enum == 7 or self._np is None else np.dtype(self._np).itemsize

    @property
    def min(self):
        if self.is_floating:  # a numpy scalar of the dtype, as TF
            return ml_dtypes.finfo(self._np).min
        if self.is_integer:
            return int(np.iinfo(self._np).min)
        raise TypeError(f"{self} has no minimum")

    @property
    def max(self):
        if self.is_floating:
            return ml_dtypes.finfo(self._np).max
        if self.is_integer:
            return int(np.iinfo(self._np).max)
        raise TypeError(f"{self} has no maximum")

    @property
    def limits(self):
        """The intensity range (min, max) of images of this dtype, negatives clipped as TF's property does:
        (0, max) for integers, (0, 1) for float32 / float64, (0, True) for bool."""
        if self.name == "bool":
            return 0, True
        if self.name in ("float32", "float64"):
            return 0, 1
        if self.is_integer and self.name.lstrip("u") in ("int8", "int16", "int32", "int64"):
            return 0, int(np.iinfo(self._np).max)
        raise ValueError(f"{self} does not have defined limits.")

    def is_compatible_with(self, other):
        return self == as_dtype(other)

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._enum == other._enum
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"  # (TF's repr: programs print dtypes)

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


# Enum values are TensorFlow's DataType numbers (graph.proto).
_FLOATING = (1, 2, 14, 19)
_INTEGER = (3, 4, 5, 6, 9, 17, 22, 23)
_UNSIGNED = (4, 17, 22, 23)
_REAL_OF_COMPLEX = {8: 1, 18: 2}

float32 = DType(1, "float32", np.float32)
float64 = DType(2, "float64", np.float64)
int32 = DType(3, "int32", np.int32)
uint8 = DType(4, "uint8", np.uint8)
int16 = DType(5, "int16", np.int16)
int8 = DType(6, "int8", np.int8)
string = DType(7, "string", np.object_)
int64 = DType(9, "int64", np.int64)
bool = DType(10, "bool", np.bool_)  # noqa: A001 - TensorFlow's name
uint16 = DType(17, "uint16", np.uint16)
float16 = DType(19, "float16", np.float16)
bfloat16 = DType(14, "bfloat16", ml_dtypes.bfloat16)
uint32 = DType(22, "uint32", np.uint32)
uint64 = DType(23, "uint64", np.uint64)
complex64 = DType(8, "complex64", np.complex64)
complex128 = DType(18, "complex128", np.complex128)
double = float64
half = float16
# Handle dtypes (TF's DT_RESOURCE, DT_VARIANT): no numpy dtype, no Python values.
resource = DType(20, "resource", None)
variant = DType(21, "variant", None)

_ALL = (
    float32,
    float64,
    int32,
    uint8,
    int16,
    int8,
    string,
    int64,
    bool,
    uint16,
    float16,
    bfloat16,
    uint32,
    uint64,
    complex64,
    complex128,
)
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"float": float32, "double": float64, "half": float16})
for _handle in (resource, variant):
    _BY_ENUM[_handle.as_datatype_enum] = _BY_NAME[_handle.name] = _handle
_BY_NP = {np.dtype(d.as_numpy_dtype): d for d in _ALL if d is not string}
_BY_NP[np.dtype(object)] = string
_BY_NP[np.dtype("S")] = string
_BY_NP[np.dtype("U")] = string


def as_dtype(type_value):
    """Converts a DType, name, numpy dtype or enum value to a `DType`."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError(f"Cannot convert {type_value!r} to a tensorweave DType")
    if isinstance(type_value, int) and not isinstance(type_value, type(True)):
        if type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
        raise TypeError(f"Cannot convert enum value {type_value} to a DType")
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type_value is type(True):
        return bool
    if type_value is complex:
        return complex128
    if type_value in (bytes, str):
        return string
    try:
        np_dtype = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"Cannot convert {type_value!r} to a tensorweave DType") from None
    found = _BY_NP.get(np_dtype)
    if found is None and np_dtype.kind in "SUO":  # strings of any length
        found = _BY_NP.get(np.dtype(np_dtype.kind))
    if found is None:
        raise TypeError(
            f"numpy dtype {np_dtype} has no tensorweave DType (supported: " + ", ".join(d.name for d in _ALL) + ")"
        )
    return found
