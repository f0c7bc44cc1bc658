"""The GPU optimizer apply ops (core/gpu/kernels/training_ops.cu): several steps of each optimizer
on /gpu:0 against the numpy formulas (TensorFlow's training_ops) and against the same steps on
/cpu:0, the ops checked to have run on the GPU, and their error cases. Skips without a GPU."""

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import requires_gpu, run_recorded

pytestmark = requires_gpu

STEPS = 4


def _optimizers():
    return {
        "ApplyGradientDescent": (lambda: tw.train.GradientDescentOptimizer(0.1), _gd),
        "ApplyMomentum": (lambda: tw.train.MomentumOptimizer(0.1, 0.9), _momentum(False)),
        "ApplyMomentum-nesterov": (lambda: tw.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), _momentum(True)),
        "ApplyAdam": (lambda: tw.train.AdamOptimizer(0.01), _adam),
        "ApplyAdagrad": (lambda: tw.train.AdagradOptimizer(0.1), _adagrad),
        "ApplyRMSProp": (lambda: tw.train.RMSPropOptimizer(0.01, momentum=0.5), _rmsprop),
        "ApplyAdadelta": (lambda: tw.train.AdadeltaOptimizer(1.0), _adadelta),
    }


# numpy formulas: each takes (w, g, state dict, step index) and returns the new w.
def _gd(w, g, s, t):
    return w - 0.1 * g


def _momentum(nesterov):
    def f(w, g, s, t):
        a = s.get("a", np.zeros_like(w)) * 0.9 + g
        s["a"] = a
        return w - (g * 0.1 + a * 0.9 * 0.1) if nesterov else w - a * 0.1

    return f


def _adam(w, g, s, t):
    b1, b2, lr, eps = 0.9, 0.999, 0.01, 1e-8
    m = s.get("m", np.zeros_like(w))
    v = s.get("v", np.zeros_like(w))
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    s["m"], s["v"] = m, v
    alpha = lr * np.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
    return w - m * alpha / (np.sqrt(v) + eps)


def _adagrad(w, g, s, t):
    acc = s.get("acc", np.full_like(w, 0.1)) + g * g
    s["acc"] = acc
    return w - g * 0.1 / np.sqrt(acc)


def _rmsprop(w, g, s, t):
    ms = s.get("ms", np.ones_like(w))  # TF1's RMSProp starts ms at 1
    mom = s.get("mom", np.zeros_like(w))
    ms = ms + (g * g - ms) * (1 - 0.9)
    mom = mom * 0.5 + g * 0.01 / np.sqrt(ms + 1e-10)
    s["ms"], s["mom"] = ms, mom
    return w - mom


def _adadelta(w, g, s, t):
    rho, eps, lr = 0.95, 1e-8, 1.0
    acc = s.get("acc", np.zeros_like(w))
    upd_acc = s.get("upd", np.zeros_like(w))
    acc = acc * rho + g * g * (1 - rho)
    update = np.sqrt(upd_acc + eps) / np.sqrt(acc + eps) * g
    upd_acc = upd_acc * rho + update * update * (1 - rho)
    s["acc"], s["upd"] = acc, upd_acc
    return w - update * lr


def _train(device, make_opt, w0, c, dtype):
    """minimize sum(w * c): the gradient is c at every step. Returns w after each step and the op
    types run on the GPU."""
    g = tw.Graph()
    with g.as_default(), tw.device(device):
        w = tw.Variable(w0.astype(dtype))
        cp = tw.placeholder(tw.as_dtype(dtype), c.shape)
        loss = tw.reduce_sum(w * cp)
        train = make_opt().minimize(loss)
        init = tw.global_variables_initializer()
    values, ops = [], set()
    with tw.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(STEPS):
            ops |= run_recorded(sess, train, {cp: c.astype(dtype)})[1]
            values.append(sess.run(w))
    return values, ops


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(_optimizers()))
@pytest.mark.parametrize("shape", [(7,), (33, 65), (0, 4)])
def test_apply_op_matches_numpy_and_cpu(name, dtype, shape):
    make_opt, formula = _optimizers()[name]
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal(shape)
    c = rng.standard_normal(shape)
    gpu, ops = _train("/gpu:0", make_opt, w0, c, dtype)
    assert name.split("-")[0] in ops, f"{name} did not run on the GPU (GPU ran {sorted(ops)})"
    cpu, _ = _train("/cpu:0", make_opt, w0, c, dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    w, state = w0.astype(np.float64), {}
    for t in range(STEPS):
        w = formula(w, c, state, t)
        # (the optimizers may round their Python float hyperparameters through float32)
        np.testing.assert_allclose(gpu[t], w, rtol=2e-5, atol=2e-5, err_msg=f"step {t} vs numpy")
        np.testing.assert_allclose(gpu[t], cpu[t], rtol=tol, atol=tol, err_msg=f"step {t} vs CPU")


def test_gradient_descent_bit_exact_with_cpu():
    """ApplyGradientDescent and ApplyMomentum on the GPU agree with the CPU's to the last bit or one
    rounding: the CPU build (-march=native) may fuse w - lr * g into one FMA where the GPU rounds the
    product first (measured on an H200: at most 1.2e-7 apart, in 20 of 129 elements)."""
    rng = np.random.default_rng(5)
    w0, c = rng.standard_normal((129,)), rng.standard_normal((129,))
    for make_opt in [lambda: tw.train.GradientDescentOptimizer(0.3), lambda: tw.train.MomentumOptimizer(0.1, 0.9)]:
        gpu, _ = _train("/gpu:0", make_opt, w0, c, np.float32)
        cpu, _ = _train("/cpu:0", make_opt, w0, c, np.float32)
        for a, b in zip(gpu, cpu):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_mlp_adam_training_follows_cpu():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 20)).astype(np.float32)
    y = rng.integers(0, 5, 32)

    def run(device):
        g = tw.Graph()
        with g.as_default():
            tw.set_random_seed(1)
            with tw.device(device):
                xp = tw.placeholder(tw.float32, [32, 20])
                yp = tw.placeholder(tw.int64, [32])
                h = tw.layers.dense(xp, 16, activation=tw.nn.relu)
                logits = tw.layers.dense(h, 5)
                loss = tw.losses.sparse_softmax_cross_entropy(yp, logits)
                train = tw.train.AdamOptimizer(0.01).minimize(loss)
                init = tw.global_variables_initializer()
        with tw.Session(graph=g, config=tw.ConfigProto(allow_soft_placement=True)) as sess:
            sess.run(init)
            return [sess.run([loss, train], {xp: x, yp: y})[0] for _ in range(10)]

    cpu, gpu = run("/cpu:0"), run("/gpu:0")
    # Same initial values (the GPU's RandomUniform draws the CPU's numbers); the losses then differ
    # only by float32 rounding of other kernels.
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-5)
    assert gpu[-1] < gpu[0]


def _raw_apply_graph():
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        v = tw.Variable(np.zeros((3,), np.float32))
        grad = tw.placeholder(tw.float32, None)
        lr = tw.placeholder(tw.float32, None)
        op = tw.raw_ops.ApplyGradientDescent(var=v._variable if hasattr(v, "_variable") else v, alpha=lr, delta=grad)
    return g, v, grad, lr, op


def test_apply_errors():
    g, v, grad, lr, op = _raw_apply_graph()
    with tw.Session(graph=g) as sess:
        with pytest.raises(tw.errors.FailedPreconditionError, match="uninitialized"):
            sess.run(op, {grad: np.ones(3, np.float32), lr: np.float32(0.1)})
        sess.run(v.initializer)
        with pytest.raises(tw.errors.InvalidArgumentError, match="same shape"):
            sess.run(op, {grad: np.ones(4, np.float32), lr: np.float32(0.1)})
        with pytest.raises(tw.errors.InvalidArgumentError, match="must be a scalar"):
            sess.run(op, {grad: np.ones(3, np.float32), lr: np.ones(2, np.float32)})
        out = sess.run(op, {grad: np.ones(3, np.float32), lr: np.float32(0.5)})
        np.testing.assert_array_equal(out, np.full(3, -0.5, np.float32))
