"""TF1's encode_base64 / decode_base64 (web-safe alphabet)."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, gradients_impl


def encode_base64(input, pad=False, name=None):
    """Web-safe base64 of each string."""
    input = ops.convert_to_tensor(input, dtype=dtypes.string)
    return gen_ops.wrapper("EncodeBase64")(input, pad=bool(pad), name=name or "EncodeBase64")


def decode_base64(input, name=None):
    """An InvalidArgumentError for characters outside the web-safe alphabet."""
    input = ops.convert_to_tensor(input, dtype=dtypes.string)
    return gen_ops.wrapper("DecodeBase64")(input, name=name or "DecodeBase64")


gradients_impl.NotDifferentiable("EncodeBase64")
gradients_impl.NotDifferentiable("DecodeBase64")
