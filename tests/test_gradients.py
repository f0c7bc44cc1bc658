"""Every differentiable op's gradient against central differences, in float64.

The cases are data: see tests/gradient_cases/.
"""

import numpy as np
import pytest

import tensorweave as tw
from gradient_cases import all_cases

CASES = all_cases()


def numeric_gradient(run, values, weights, eps=1e-6):
    """d sum(weights * f(values)) / d values[i], by central differences."""
    grads = []
    for i, v in enumerate(values):
        g = np.zeros_like(v)
        flat = v.reshape(-1)
        gflat = g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            up = np.sum(weights * run(values))
            flat[j] = old - eps
            down = np.sum(weights * run(values))
            flat[j] = old
            gflat[j] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gradient_matches_central_differences(case):
    rng = np.random.default_rng(0)
    if case.values is not None:
        values = [np.array(v, dtype=np.float64) for v in case.values]
    else:
        values = [rng.uniform(case.low, case.high, size=s).astype(np.float64) for s in case.shapes]
    with tw.Graph().as_default(), tw.Session() as sess:
        xs = [tw.placeholder(tw.float64, v.shape) for v in values]
        y = case.fn(*xs)
        y_value = sess.run(y, dict(zip(xs, values)))
        weights = rng.uniform(0.5, 1.5, size=np.shape(y_value))
        grads = tw.gradients(y, xs, grad_ys=tw.constant(weights, dtype=y.dtype))

        def run(vals):
            return sess.run(y, dict(zip(xs, vals)))

        expected = numeric_gradient(run, [v.copy() for v in values], weights)
        for i, (g, e) in enumerate(zip(grads, expected)):
            if g is None:
                assert np.allclose(e, 0.0, atol=case.atol), f"input {i}: gradient None but numeric != 0"
                continue
            if isinstance(g, tw.IndexedSlices):  # a gather's gradient (as TF1): compared as its dense sum
                g = tw.convert_to_tensor(g)
            got = sess.run(g, dict(zip(xs, values)))
            np.testing.assert_allclose(got, e, rtol=case.rtol, atol=case.atol, err_msg=f"{case.name}: input {i}")
