"""Gradient case for CTCLoss: the kernel's gradient output (scaled by the loss's gradient) against central
differences of the loss."""

import numpy as np
import tensorweave as tw

from gradient_cases import GradientCase


def _ctc_loss(x):
    labels = tw.SparseTensor(
        np.array([[0, 0], [0, 1], [1, 0]], np.int64), tw.constant([1, 1, 2], tw.int32), np.array([2, 2], np.int64)
    )
    return tw.nn.ctc_loss(labels, x, [4, 3]) * tw.constant([1.0, 2.0], tw.float64)


CASES = [GradientCase("CTCLoss", _ctc_loss, [[4, 2, 4]], low=-2.0, high=2.0, ops=["CTCLoss"])]
