"""tw.dtypes (TF's tf.dtypes): DType, as_dtype, the dtype objects, cast, saturate_cast, as_string.

Example:
  >>> import tensorweave as tw
  >>> tw.dtypes.as_dtype("float32") is tw.dtypes.float32
  True
"""

import tensorweave as _tw
from tensorweave._src.framework.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tensorweave._src.ops.math_ops import cast

saturate_cast = _tw.saturate_cast
as_string = _tw.as_string
del _tw

__all__ = [
    "DType",
    "as_dtype",
    "as_string",
    "bfloat16",
    "bool",
    "cast",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "resource",
    "saturate_cast",
    "string",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "variant",
]
