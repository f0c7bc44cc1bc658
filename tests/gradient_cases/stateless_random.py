"""Gradient case of StatelessParameterizedTruncatedNormal. With the seed fixed, a draw of the normal rejection
sampler is mean + stddev * z for a z that does not move with the parameters while the bounds stay far (here 10
standard deviations) from every draw, so central differences in mean and stddev check TensorFlow's implicit
reparameterization gradient (d/dmean = 1, d/dstddev = the standardized draw). Its terms for the bounds are
checked against TensorFlow's in tests/test_random_stateless_extra.py."""

import tensorweave as tw

from gradient_cases import GradientCase

CASES = [
    GradientCase(
        "StatelessParameterizedTruncatedNormal (means, stddevs)",
        lambda mean, stddev: tw.random.stateless_parameterized_truncated_normal(
            [3, 2], [4, 5], mean, stddev, tw.constant(-10.0, tw.float64), tw.constant(10.0, tw.float64)
        ),
        [[2], [2]],
        values=[[0.2, -0.3], [1.1, 0.8]],
        ops=["StatelessParameterizedTruncatedNormal"],
    ),
]
