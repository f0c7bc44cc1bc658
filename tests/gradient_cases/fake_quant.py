"""Fake quantization: the straight-through gradient. A finite difference of fake_quant itself is 0 between levels,
so each case differentiates fq(x) - stop_gradient(fq(x) - x), whose value is x (the difference is exactly 1) while
its gradient is fq's own (1 inside the nudged range). float32 ops on small inputs, as the Cast case; the gradients
with respect to min and max are compared with TensorFlow in tests/test_fake_quant.py."""

import tensorweave as tw

from . import GradientCase


def _straight_through(quantize):
    def fn(x):
        x32 = tw.cast(x, tw.float32)
        y = quantize(x32)
        return tw.cast(y - tw.stop_gradient(y - x32), tw.float64)

    return fn


_SMALL = {"low": -0.01, "high": 0.01, "rtol": 5e-3, "atol": 5e-3}

CASES = [
    GradientCase(
        "FakeQuantWithMinMaxArgs",
        _straight_through(lambda x: tw.fake_quant_with_min_max_args(x, min=-0.02, max=0.02)),
        [[2, 3]],
        ops=["FakeQuantWithMinMaxArgs"],
        **_SMALL,
    ),
    GradientCase(
        "FakeQuantWithMinMaxVars",
        _straight_through(lambda x: tw.fake_quant_with_min_max_vars(x, -0.02, 0.03, num_bits=6)),
        [[4]],
        ops=["FakeQuantWithMinMaxVars"],
        **_SMALL,
    ),
    GradientCase(
        "FakeQuantWithMinMaxVarsPerChannel",
        _straight_through(
            lambda x: tw.fake_quant_with_min_max_vars_per_channel(x, [-0.02, -0.05], [0.02, 0.01], narrow_range=True)
        ),
        [[3, 2]],
        ops=["FakeQuantWithMinMaxVarsPerChannel"],
        **_SMALL,
    ),
]

# QuantizeAndDequantize: the same straight-through construction, in float64 (the kernels take it).
_QDQ_SMALL = {"low": -0.5, "high": 0.5, "rtol": 1e-6, "atol": 1e-8}


def _straight_through64(quantize):
    def fn(x):
        y = quantize(x)
        return y - tw.stop_gradient(y - x)

    return fn


CASES += [
    GradientCase(
        "QuantizeAndDequantizeV2",
        _straight_through64(lambda x: tw.quantization.quantize_and_dequantize(x, -1.0, 1.0, range_given=True)),
        [[2, 3]],
        ops=["QuantizeAndDequantizeV2"],
        **_QDQ_SMALL,
    ),
    GradientCase(
        "QuantizeAndDequantizeV4 per axis",
        _straight_through64(
            lambda x: tw.quantization.quantize_and_dequantize_v2(
                x, [-1.0, -2.0], [1.0, 0.75], range_given=True, num_bits=4, axis=1
            )
        ),
        [[3, 2]],
        ops=["QuantizeAndDequantizeV4"],
        **_QDQ_SMALL,
    ),
    GradientCase(
        "QuantizeAndDequantizeV3",
        _straight_through64(
            lambda x: tw.raw_ops.QuantizeAndDequantizeV3(
                input=x, input_min=tw.constant(-1.0, tw.float64), input_max=tw.constant(1.0, tw.float64), num_bits=5
            )
        ),
        [[4]],
        ops=["QuantizeAndDequantizeV3"],
        **_QDQ_SMALL,
    ),
]
