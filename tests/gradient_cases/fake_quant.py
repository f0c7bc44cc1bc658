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
