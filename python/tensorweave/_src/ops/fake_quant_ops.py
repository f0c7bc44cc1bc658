"""Fake quantization for quantization-aware training: `tw.quantization.fake_quant_with_min_max_*` (also at the
top level, as TensorFlow 1), with TensorFlow's straight-through gradients.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     y = tw.quantization.fake_quant_with_min_max_args([-7.0, 0.2, 3.14], min=-1.0, max=2.5, num_bits=4)
  ...     print(sess.run(y))
  [-0.93333334  0.23333333  2.5666666 ]
"""

from tensorweave._src.ops import gen_ops, gradients_impl


def _op(op_type):
    return gen_ops.wrapper(op_type)


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None):
    """`inputs` (float32) rounded to the num_bits-bit grid over [min, max], nudged so that 0 is a level."""
    return _op("FakeQuantWithMinMaxArgs")(
        inputs, min=float(min), max=float(max), num_bits=int(num_bits), narrow_range=bool(narrow_range), name=name
    )


def fake_quant_with_min_max_args_gradient(
    gradients,
    inputs,
    min=-6.0,
    max=6.0,
    num_bits=8,
    narrow_range=False,
    name=None,
):
    """The gradient of `fake_quant_with_min_max_args`: `gradients` where `inputs` is in the nudged range."""
    return _op("FakeQuantWithMinMaxArgsGradient")(
        gradients,
        inputs,
        min=float(min),
        max=float(max),
        num_bits=int(num_bits),
        narrow_range=bool(narrow_range),
        name=name,
    )


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """`fake_quant_with_min_max_args` with the range given as scalar tensors (usually variables)."""
    return _op("FakeQuantWithMinMaxVars")(
        inputs, min, max, num_bits=int(num_bits), narrow_range=bool(narrow_range), name=name
    )


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """The gradients of `fake_quant_with_min_max_vars` with respect to inputs, min and max."""
    return _op("FakeQuantWithMinMaxVarsGradient")(
        gradients, inputs, min, max, num_bits=int(num_bits), narrow_range=bool(narrow_range), name=name
    )


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """`fake_quant_with_min_max_vars` with one range per channel (the last dimension of `inputs`)."""
    return _op("FakeQuantWithMinMaxVarsPerChannel")(
        inputs, min, max, num_bits=int(num_bits), narrow_range=bool(narrow_range), name=name
    )


def fake_quant_with_min_max_vars_per_channel_gradient(
    gradients,
    inputs,
    min,
    max,
    num_bits=8,
    narrow_range=False,
    name=None,
):
    """The gradients of `fake_quant_with_min_max_vars_per_channel` with respect to inputs, min and max."""
    return _op("FakeQuantWithMinMaxVarsPerChannelGradient")(
        gradients, inputs, min, max, num_bits=int(num_bits), narrow_range=bool(narrow_range), name=name
    )


def _axis(input, axis):
    """TensorFlow's Python axis: None is -1 (one range for the whole tensor), a negative axis counts from the end
    of a known rank."""
    from tensorweave._src.framework import ops

    if axis is None:
        return -1
    axis = int(axis)
    if axis < 0:
        rank = ops.convert_to_tensor(input).shape.ndims
        if rank is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= rank
    return axis


def _quantize_and_dequantize(op_type, api_name, doc):
    """The Python function of QuantizeAndDequantizeV2 or V4, with TensorFlow's signature."""

    def fn(
        input,
        input_min,
        input_max,
        signed_input=True,
        num_bits=8,
        range_given=False,
        round_mode="HALF_TO_EVEN",
        name=None,
        narrow_range=False,
        axis=None,
    ):
        return _op(op_type)(
            input,
            input_min,
            input_max,
            signed_input=bool(signed_input),
            num_bits=int(num_bits),
            range_given=bool(range_given),
            round_mode=round_mode,
            narrow_range=bool(narrow_range),
            axis=_axis(input, axis),
            name=name,
        )

    fn.__name__ = fn.__qualname__ = api_name
    fn.__doc__ = doc
    return fn


quantize_and_dequantize = _quantize_and_dequantize(
    "QuantizeAndDequantizeV2",
    "quantize_and_dequantize",
    """`input` rounded to the grid of num_bits-bit integers covering [input_min, input_max] (range_given) or its
    own range, per tensor or per index of `axis`, and back to floats (QuantizeAndDequantizeV2; its gradient
    passes straight through).""",
)
quantize_and_dequantize_v2 = _quantize_and_dequantize(
    "QuantizeAndDequantizeV4",
    "quantize_and_dequantize_v2",
    "`quantize_and_dequantize` whose gradient is zero outside the range (QuantizeAndDequantizeV4).",
)


@gradients_impl.RegisterGradient("QuantizeAndDequantizeV2")
def _quantize_and_dequantize_v2_grad(op, grad):
    return [grad, None, None]


@gradients_impl.RegisterGradient("QuantizeAndDequantizeV3")
def _quantize_and_dequantize_v3_grad(op, grad):
    return [grad, None, None, None]


@gradients_impl.RegisterGradient("QuantizeAndDequantizeV4")
def _quantize_and_dequantize_v4_grad(op, grad):
    return list(_op("QuantizeAndDequantizeV4Grad")(grad, *op.inputs, axis=op.get_attr("axis")))


def _bits(op):
    return {"num_bits": op.get_attr("num_bits"), "narrow_range": op.get_attr("narrow_range")}


@gradients_impl.RegisterGradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op, grad):
    return fake_quant_with_min_max_args_gradient(
        grad, op.inputs[0], min=op.get_attr("min"), max=op.get_attr("max"), **_bits(op)
    )


@gradients_impl.RegisterGradient("FakeQuantWithMinMaxVars")
def _fake_quant_vars_grad(op, grad):
    return list(fake_quant_with_min_max_vars_gradient(grad, *op.inputs, **_bits(op)))


@gradients_impl.RegisterGradient("FakeQuantWithMinMaxVarsPerChannel")
def _fake_quant_per_channel_grad(op, grad):
    return list(fake_quant_with_min_max_vars_per_channel_gradient(grad, *op.inputs, **_bits(op)))


for _op_type in (
    "QuantizeAndDequantizeV4Grad",
    "FakeQuantWithMinMaxArgsGradient",
    "FakeQuantWithMinMaxVarsGradient",
    "FakeQuantWithMinMaxVarsPerChannelGradient",
):
    gradients_impl.NotDifferentiable(_op_type)
