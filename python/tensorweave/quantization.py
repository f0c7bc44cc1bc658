"""tw.quantization: TensorFlow 1's fake quantization ops for quantization-aware training and
quantize_and_dequantize (the int8 model itself is made by the converter: `tensorweave-convert --quantize int8`).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.quantization.fake_quant_with_min_max_args([0.3, 9.0], min=0.0, max=6.0)))
  [0.30588236 6.        ]
"""

from tensorweave._src.ops.fake_quant_ops import (
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
)

__all__ = [
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize_and_dequantize",
    "quantize_and_dequantize_v2",
]
