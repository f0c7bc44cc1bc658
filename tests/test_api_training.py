"""tw.train extras: the SparseApply* kernels against their dense forms, checkpoint utilities, meta graphs and
SavedModel (the values against TensorFlow are in tests/fidelity/cases_training.py)."""

import numpy as np
import pytest

import tensorweave as tw
from tensorweave._src.ops import gen_ops

# op type -> (its sparse form, slot count, scalar inputs)
SPARSE_PAIRS = {
    "ApplyAdadelta": ("SparseApplyAdadelta", 2, {"lr": 0.7, "rho": 0.9, "epsilon": 1e-3}),
    "ApplyFtrl": ("SparseApplyFtrl", 2, {"lr": 0.3, "l1": 0.1, "l2": 0.2, "lr_power": -0.6}),
    "ApplyFtrlV2": (
        "SparseApplyFtrlV2",
        2,
        {"lr": 0.3, "l1": 0.1, "l2": 0.2, "l2_shrinkage": 0.3, "lr_power": -0.5},
    ),
    "ApplyProximalGradientDescent": ("SparseApplyProximalGradientDescent", 0, {"alpha": 0.4, "l1": 0.3, "l2": 0.2}),
    "ApplyProximalAdagrad": ("SparseApplyProximalAdagrad", 1, {"lr": 0.4, "l1": 0.3, "l2": 0.2}),
}


def _run_update(op_type, var0, slots0, grad, indices=None, dtype=np.float32):
    with tw.Graph().as_default(), tw.Session() as sess:
        var = tw.Variable(var0.astype(dtype))
        slots = [tw.Variable(s.astype(dtype)) for s in slots0]
        sess.run(tw.global_variables_initializer())
        args = [var] + slots
        op_def = gen_ops.op_def(op_type)
        names = [a["name"] for a in op_def.inputs]
        _, _, scalars = SPARSE_PAIRS[op_type.removeprefix("Sparse")]
        values = {"grad": grad.astype(dtype), "delta": grad.astype(dtype), "indices": indices}
        values.update({k: np.array(v, dtype) for k, v in scalars.items()})
        args += [values[n] for n in names[len(args) :]]
        out = gen_ops.wrapper(op_type)(*args)
        sess.run(out)
        return sess.run(var), sess.run(slots)


@pytest.mark.parametrize("op_type", sorted(SPARSE_PAIRS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_update_is_the_dense_update_of_the_named_rows(op_type, dtype):
    sparse_type, num_slots, _ = SPARSE_PAIRS[op_type]
    rng = np.random.default_rng(0)
    var0 = rng.normal(size=(5, 3))
    slots0 = [rng.uniform(0.1, 1.0, size=(5, 3)) for _ in range(num_slots)]
    grad_rows = rng.normal(size=(2, 3))
    rows = np.array([3, 1])
    var, slots = _run_update(sparse_type, var0, slots0, grad_rows, rows, dtype)
    dense_var, dense_slots = _run_update(op_type, var0[rows], [s[rows] for s in slots0], grad_rows, None, dtype)
    untouched = [0, 2, 4]
    np.testing.assert_allclose(var[rows], dense_var, rtol=1e-6)
    np.testing.assert_array_equal(var[untouched], var0[untouched].astype(dtype))
    for s, d, s0 in zip(slots, dense_slots, slots0):
        np.testing.assert_allclose(s[rows], d, rtol=1e-6)
        np.testing.assert_array_equal(s[untouched], s0[untouched].astype(dtype))


def test_sparse_update_rejects_bad_indices():
    var0 = np.ones((3, 2))
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        _run_update("SparseApplyProximalAdagrad", var0, [var0], np.ones((1, 2)), np.array([-1]))
    with pytest.raises(ValueError, match="grad must be"):
        _run_update("SparseApplyAdadelta", var0, [var0, var0], np.ones((2, 2)), np.array([0]))
