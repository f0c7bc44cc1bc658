"""tw.train optimizers against numpy implementations of TensorFlow's formulas
and against TensorFlow itself (when importable); end-to-end convergence;
slots, global step, schedules and gradient clipping."""

import numpy as np
import pytest

import tensorweave as tw

STEPS = 5
SHAPES = {"w": (3, 2), "b": (2,)}


def _grads(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [{k: rng.normal(size=s).astype(dtype) for k, s in SHAPES.items()} for _ in range(STEPS)]


def _init(dtype):
    rng = np.random.default_rng(1)
    return {k: rng.normal(size=s).astype(dtype) for k, s in SHAPES.items()}


def _h(x, dtype):
    """A Python hyperparameter as the optimizers see it: a float32 constant
    cast to the variable's dtype (TensorFlow's behaviour)."""
    return np.float32(x).astype(dtype)


# --- numpy references: one step of each formula, in place --------------------------
def np_sgd(lr):
    def init(v):
        return {}

    def step(v, g, s, t, dtype):
        v -= _h(lr, dtype) * g

    return init, step


def np_momentum(lr, momentum, nesterov=False):
    def init(v):
        return {"momentum": np.zeros_like(v)}

    def step(v, g, s, t, dtype):
        lr_, m_ = _h(lr, dtype), _h(momentum, dtype)
        s["momentum"][...] = s["momentum"] * m_ + g
        if nesterov:
            v -= g * lr_ + s["momentum"] * m_ * lr_
        else:
            v -= lr_ * s["momentum"]

    return init, step


def np_adagrad(lr, init_acc=0.1):
    def init(v):
        return {"accumulator": np.full_like(v, init_acc)}

    def step(v, g, s, t, dtype):
        s["accumulator"] += g * g
        v -= g * _h(lr, dtype) / np.sqrt(s["accumulator"])

    return init, step


def np_rmsprop(lr, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False):
    def init(v):
        slots = {"rms": np.ones_like(v), "momentum": np.zeros_like(v)}
        if centered:
            slots["mg"] = np.zeros_like(v)
        return slots

    def step(v, g, s, t, dtype):
        lr_, rho, mom_, eps = (_h(x, dtype) for x in (lr, decay, momentum, epsilon))
        s["rms"] += (g * g - s["rms"]) * (1 - rho)
        if centered:
            s["mg"] += (g - s["mg"]) * (1 - rho)
            denom = s["rms"] - s["mg"] ** 2 + eps
        else:
            denom = s["rms"] + eps
        s["momentum"][...] = s["momentum"] * mom_ + g * lr_ / np.sqrt(denom)
        v -= s["momentum"]

    return init, step


def np_adam(lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
    def init(v):
        return {"m": np.zeros_like(v), "v": np.zeros_like(v)}

    def step(v, g, s, t, dtype):
        # beta powers are float32 variables (as in TensorFlow), cast to dtype.
        b1p = np.float32(1)
        b2p = np.float32(1)
        for _ in range(t + 1):
            b1p = np.float32(b1p * np.float32(beta1))
            b2p = np.float32(b2p * np.float32(beta2))
        b1p, b2p = b1p.astype(dtype), b2p.astype(dtype)
        lr_, b1, b2, eps = (_h(x, dtype) for x in (lr, beta1, beta2, epsilon))
        alpha = lr_ * np.sqrt(1 - b2p) / (1 - b1p)
        s["m"] += (g - s["m"]) * (1 - b1)
        s["v"] += (g * g - s["v"]) * (1 - b2)
        v -= s["m"] * alpha / (np.sqrt(s["v"]) + eps)

    return init, step


CASES = [
    ("GradientDescent", lambda: tw.train.GradientDescentOptimizer(0.1), np_sgd(0.1), {}),
    ("Momentum", lambda: tw.train.MomentumOptimizer(0.05, 0.9), np_momentum(0.05, 0.9), {"momentum": "Momentum"}),
    (
        "MomentumNesterov",
        lambda: tw.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
        np_momentum(0.05, 0.9, nesterov=True),
        {"momentum": "Momentum"},
    ),
    ("Adagrad", lambda: tw.train.AdagradOptimizer(0.2), np_adagrad(0.2), {"accumulator": "Adagrad"}),
    (
        "RMSProp",
        lambda: tw.train.RMSPropOptimizer(0.01, momentum=0.5, epsilon=1e-6),
        np_rmsprop(0.01, momentum=0.5, epsilon=1e-6),
        {"rms": "RMSProp", "momentum": "RMSProp_1"},
    ),
    (
        "RMSPropCentered",
        lambda: tw.train.RMSPropOptimizer(0.01, momentum=0.5, epsilon=1e-6, centered=True),
        np_rmsprop(0.01, momentum=0.5, epsilon=1e-6, centered=True),
        {"rms": "RMSProp", "mg": "RMSProp_1", "momentum": "RMSProp_2"},
    ),
    ("Adam", lambda: tw.train.AdamOptimizer(0.01), np_adam(0.01), {"m": "Adam", "v": "Adam_1"}),
]


def run_tensorweave(make_opt, dtype, grads):
    tw_dtype = tw.as_dtype(dtype)
    with tw.Graph().as_default(), tw.Session() as sess:
        init = _init(dtype)
        variables = {k: tw.Variable(init[k], name=k) for k in SHAPES}
        placeholders = {k: tw.placeholder(tw_dtype, SHAPES[k]) for k in SHAPES}
        opt = make_opt()
        step = tw.train.get_or_create_global_step()
        train = opt.apply_gradients([(placeholders[k], variables[k]) for k in SHAPES], global_step=step)
        sess.run(tw.global_variables_initializer())
        for g in grads:
            sess.run(train, {placeholders[k]: g[k] for k in SHAPES})
        values = sess.run({k: v for k, v in variables.items()})
        slots = {(name, k): sess.run(opt.get_slot(variables[k], name)) for name in opt.get_slot_names() for k in SHAPES}
        slot_names = {
            (name, k): opt.get_slot(variables[k], name).op.name for name in opt.get_slot_names() for k in SHAPES
        }
        assert sess.run(step) == len(grads)
        return values, slots, slot_names


def run_numpy(reference, dtype, grads):
    init_fn, step_fn = reference
    values = _init(dtype)
    slots = {k: init_fn(values[k]) for k in SHAPES}
    for t, g in enumerate(grads):
        for k in SHAPES:
            step_fn(values[k], g[k], slots[k], t, dtype)
    return values, {(name, k): slots[k][name] for k in SHAPES for name in slots[k]}


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-6), (np.float32, 1e-5)], ids=["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_optimizer_matches_numpy_reference(case, dtype, rtol):
    _, make_opt, reference, slot_suffixes = case
    grads = _grads(dtype)
    values, slots, slot_names = run_tensorweave(make_opt, dtype, grads)
    want_values, want_slots = run_numpy(reference, dtype, grads)
    for k in SHAPES:
        assert values[k].dtype == dtype
        np.testing.assert_allclose(values[k], want_values[k], rtol=rtol, atol=rtol * 1e-2, err_msg=k)
    assert set(slots) == set(want_slots)
    for key in slots:
        np.testing.assert_allclose(slots[key], want_slots[key], rtol=rtol, atol=rtol * 1e-2, err_msg=str(key))
    for (name, k), op_name in slot_names.items():
        assert op_name == f"{k}/{slot_suffixes[name]}"


# --- against TensorFlow ------------------------------------------------------------
TF_OPTIMIZERS = {
    "GradientDescent": lambda tf: tf.compat.v1.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda tf: tf.compat.v1.train.MomentumOptimizer(0.05, 0.9),
    "MomentumNesterov": lambda tf: tf.compat.v1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "Adagrad": lambda tf: tf.compat.v1.train.AdagradOptimizer(0.2),
    "RMSProp": lambda tf: tf.compat.v1.train.RMSPropOptimizer(0.01, momentum=0.5, epsilon=1e-6),
    "RMSPropCentered": lambda tf: tf.compat.v1.train.RMSPropOptimizer(0.01, momentum=0.5, epsilon=1e-6, centered=True),
    "Adam": lambda tf: tf.compat.v1.train.AdamOptimizer(0.01),
}


def run_tensorflow(tf, make_opt, dtype, grads):
    graph = tf.Graph()
    with graph.as_default():
        init = _init(dtype)
        variables = {k: tf.compat.v1.Variable(init[k], name=k, use_resource=False) for k in SHAPES}
        placeholders = {k: tf.compat.v1.placeholder(tf.as_dtype(dtype), SHAPES[k]) for k in SHAPES}
        opt = make_opt(tf)
        train = opt.apply_gradients([(placeholders[k], variables[k]) for k in SHAPES])
        slots = {(name, k): opt.get_slot(variables[k], name) for name in opt.get_slot_names() for k in SHAPES}
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for g in grads:
                sess.run(train, {placeholders[k]: g[k] for k in SHAPES})
            values = sess.run({k: v for k, v in variables.items()})
            slot_values = sess.run(slots)
            slot_names = {key: s.op.name for key, s in slots.items()}
        return values, slot_values, slot_names


@pytest.fixture(scope="module")
def tf():
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        pytest.skip("tensorflow is not importable: the comparison against it is skipped")
    import tensorflow

    tensorflow.compat.v1.disable_eager_execution()
    return tensorflow


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-6), (np.float32, 1e-5)], ids=["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_optimizer_matches_tensorflow(tf, case, dtype, rtol):
    name, make_opt, _, _ = case
    grads = _grads(dtype, seed=3)
    values, slots, slot_names = run_tensorweave(make_opt, dtype, grads)
    tf_values, tf_slots, tf_slot_names = run_tensorflow(tf, TF_OPTIMIZERS[name], dtype, grads)
    for k in SHAPES:
        np.testing.assert_allclose(values[k], tf_values[k], rtol=rtol, atol=rtol * 1e-2, err_msg=k)
    assert set(slots) == set(tf_slots)
    for key in slots:
        np.testing.assert_allclose(slots[key], tf_slots[key], rtol=rtol, atol=rtol * 1e-2, err_msg=str(key))
    assert slot_names == tf_slot_names


# --- end to end: linear regression converges ------------------------------------------
def linear_regression(opt, steps):
    """y = x @ w_true + 0.5; the MSE gradient enters via grad_loss (only
    MatMul needs a gradient function)."""
    rng = np.random.default_rng(0)
    x_np = rng.normal(size=(64, 3)).astype(np.float32)
    w_true = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y_np = x_np @ w_true + 0.5
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.constant(np.hstack([x_np, np.ones((64, 1), np.float32)]))
        y = tw.constant(y_np)
        w = tw.Variable(tw.zeros([4, 1]), name="w")
        pred = tw.matmul(x, w)
        residual = pred - y
        loss = tw.reshape(tw.matmul(residual, residual, transpose_a=True), []) * (1.0 / 64)
        train = opt.minimize(pred, grad_loss=residual * (2.0 / 64))
        sess.run(tw.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(steps):
            sess.run(train)
        return first, sess.run(loss)


@pytest.mark.parametrize(
    "make_opt,steps",
    [
        (lambda: tw.train.GradientDescentOptimizer(0.1), 200),
        (lambda: tw.train.MomentumOptimizer(0.05, 0.9), 200),
        (lambda: tw.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True), 200),
        (lambda: tw.train.AdagradOptimizer(0.5), 300),
        (lambda: tw.train.RMSPropOptimizer(0.02), 300),
        (lambda: tw.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True), 300),
        (lambda: tw.train.AdamOptimizer(0.1), 300),
    ],
    ids=["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "rmsprop_centered", "adam"],
)
def test_linear_regression_converges(make_opt, steps):
    first, last = linear_regression(make_opt(), steps)
    assert first > 1.0
    assert last < 1e-3, f"loss went from {first} to {last}"


# --- API details --------------------------------------------------------------------
def test_minimize_with_tensor_learning_rate_and_schedule():
    with tw.Graph().as_default(), tw.Session() as sess:
        w = tw.Variable([1.0], name="w")
        step = tw.train.get_or_create_global_step()
        lr = tw.train.exponential_decay(1.0, step, decay_steps=1, decay_rate=0.5)
        train = tw.train.GradientDescentOptimizer(lr).apply_gradients([([1.0], w)], global_step=step)
        sess.run(tw.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        # 1 - (1 + 0.5 + 0.25)
        np.testing.assert_allclose(sess.run(w), [-0.75])
        assert sess.run(step) == 3
        assert train.name == "GradientDescent"
        assert train in tw.get_collection(tw.GraphKeys.TRAIN_OP)


def test_global_step_helpers():
    with tw.Graph().as_default() as g:
        assert tw.train.get_global_step() is None
        step = tw.train.get_or_create_global_step()
        assert step.op.name == "global_step"
        assert step.dtype == tw.int64 and not step.trainable
        assert tw.train.get_global_step() is step
        assert tw.train.get_or_create_global_step() is step
        assert g.get_collection(tw.GraphKeys.GLOBAL_STEP) == [step]
        with pytest.raises(ValueError, match="already exists"):
            tw.train.create_global_step()


def test_slots_are_non_trainable_globals_and_optimizer_variables():
    with tw.Graph().as_default():
        w = tw.Variable(tw.zeros([2]), name="w")
        opt = tw.train.AdamOptimizer()
        with tw.name_scope("outer"), tw.control_dependencies([tw.no_op()]):
            opt.apply_gradients([(tw.constant([1.0, 1.0]), w)])
        names = [v.op.name for v in opt.variables()]
        assert names == ["beta1_power", "beta2_power", "w/Adam", "w/Adam_1"]
        assert opt.get_slot_names() == ["m", "v"]
        assert [v.op.name for v in tw.trainable_variables()] == ["w"]
        assert set(names) <= {v.op.name for v in tw.global_variables()}
        assert opt.get_slot(w, "nope") is None
        # Slots are made outside the caller's name scope and control deps.
        assert not opt.get_slot(w, "m").initializer.control_inputs


def test_apply_gradients_errors():
    with tw.Graph().as_default():
        w = tw.Variable([1.0], name="w")
        v = tw.Variable([1.0], name="v")
        opt = tw.train.GradientDescentOptimizer(0.1)
        with pytest.raises(ValueError, match="No gradients provided"):
            opt.apply_gradients([(None, w)])
        with pytest.raises(ValueError, match="No variables provided"):
            opt.apply_gradients([])
        with pytest.raises(ValueError, match="float64"):
            opt.apply_gradients([(tw.constant([1.0], dtype=tw.float64), w)])
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            opt.minimize(tw.matmul(tw.constant([[1.0]]), tw.constant([[2.0]])), var_list=[w, v])
        with pytest.raises(ValueError):
            tw.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_update_of_uninitialized_slot_fails_cleanly():
    with tw.Graph().as_default(), tw.Session() as sess:
        w = tw.Variable([1.0], name="w")
        opt = tw.train.MomentumOptimizer(0.1, 0.9)
        train = opt.apply_gradients([([1.0], w)])
        sess.run(w.initializer)
        with pytest.raises(tw.errors.FailedPreconditionError, match="w/Momentum"):
            sess.run(train)


def test_raw_update_ops_reject_bad_shapes():
    from tensorweave._src.ops import training_ops

    with tw.Graph().as_default():
        w = tw.Variable([1.0, 2.0], name="w")
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 3"):  # TF's
            training_ops.apply_gradient_descent(w, 0.1, [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="lr must be a scalar"):
            training_ops.apply_adagrad(w, w, [0.1, 0.2], [1.0, 2.0])
        # A shape known only when the graph runs: InvalidArgumentError then (TF1 raises the same two classes).
        delta = tw.placeholder(tw.float32, [None])
        step = training_ops.apply_gradient_descent(w, 0.1, delta)
        with tw.Session() as sess:
            sess.run(w.initializer)
            with pytest.raises(tw.errors.InvalidArgumentError):
                sess.run(step, {delta: np.ones(3, np.float32)})
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])


def test_piecewise_constant_and_staircase_decay():
    with tw.Graph().as_default(), tw.Session() as sess:
        step = tw.placeholder(tw.int64, [])
        lr = tw.train.piecewise_constant(step, [10, 20], [0.1, 0.01, 0.001])
        decayed = tw.train.exponential_decay(0.1, step, 10, 0.1, staircase=True)
        smooth = tw.train.exponential_decay(0.1, step, 10, 0.1)
        for s, want in [(0, 0.1), (10, 0.1), (11, 0.01), (20, 0.01), (21, 0.001)]:
            np.testing.assert_allclose(sess.run(lr, {step: s}), want, rtol=1e-6)
        for s in (0, 9, 10, 25):
            np.testing.assert_allclose(sess.run(decayed, {step: s}), 0.1 * 0.1 ** (s // 10), rtol=1e-6)
            np.testing.assert_allclose(sess.run(smooth, {step: s}), 0.1 * 0.1 ** (s / 10), rtol=1e-6)
        with pytest.raises(ValueError, match="1 less than"):
            tw.train.piecewise_constant(step, [10], [0.1])
        with pytest.raises(ValueError, match=r"Boundaries \(<dtype: 'float32'>\) must have the same dtype as x"):
            tw.train.piecewise_constant(step, [1.5], [0.1, 0.2])


def test_clip_by_global_norm():
    a = np.array([3.0, 0.0], np.float32)
    b = np.array([[4.0]], np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        clipped, norm = tw.clip_by_global_norm([tw.constant(a), None, tw.constant(b)], 2.5)
        assert clipped[1] is None
        got_a, got_b, got_norm = sess.run([clipped[0], clipped[2], norm])
        np.testing.assert_allclose(got_norm, 5.0, rtol=1e-6)
        np.testing.assert_allclose(got_a, a * 0.5, rtol=1e-6)
        np.testing.assert_allclose(got_b, b * 0.5, rtol=1e-6)
        unclipped, _ = tw.clip_by_global_norm([tw.constant(a)], 10.0)
        np.testing.assert_allclose(sess.run(unclipped[0]), a, rtol=1e-6)


# --- the fused dense-kernel update (FusedMatMulApplyGradientDescent) ---------------
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-5)], ids=["float64", "float32"])
def test_fused_matmul_apply_gradient_descent_matches_numpy(transpose_a, transpose_b, dtype, rtol):
    from tensorweave._src.ops import training_ops

    rng = np.random.default_rng(4)
    m, k, n = 70, 33, 90  # large enough for the GEMM to be split over threads
    a = rng.normal(size=(k, m) if transpose_a else (m, k)).astype(dtype)
    b = rng.normal(size=(n, k) if transpose_b else (k, n)).astype(dtype)
    w0 = rng.normal(size=(m, n)).astype(dtype)
    config = tw.ConfigProto(intra_op_parallelism_threads=2)
    with tw.Graph().as_default(), tw.Session(config=config) as sess:
        w = tw.Variable(w0, name="w")
        step = training_ops.fused_matmul_apply_gradient_descent(
            w, np.asarray(0.25, dtype), a, b, transpose_a=transpose_a, transpose_b=transpose_b
        )
        sess.run(w.initializer)
        got = sess.run(step)
    product = (a.T if transpose_a else a) @ (b.T if transpose_b else b)
    np.testing.assert_allclose(got, w0 - 0.25 * product, rtol=rtol, atol=rtol)


def _two_layer_sgd(dtype, steps, lr=0.05):
    """A linear 2-layer net with an MSE loss trained by SGD in tensorweave;
    returns the op types of the train graph and the weights after each step,
    with numpy's hand-derived weights for the same steps."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 8)).astype(dtype)
    y = rng.normal(size=(16, 3)).astype(dtype)
    w1_0 = (rng.normal(size=(8, 12)) * 0.3).astype(dtype)
    w2_0 = (rng.normal(size=(12, 3)) * 0.3).astype(dtype)
    with tw.Graph().as_default() as g, tw.Session() as sess:
        w1 = tw.Variable(w1_0, name="w1")
        w2 = tw.Variable(w2_0, name="w2")
        pred = tw.matmul(tw.matmul(tw.constant(x), w1), w2)
        loss = tw.reduce_mean(tw.square(pred - y))
        train = tw.train.GradientDescentOptimizer(lr).minimize(loss)
        op_types = {op.type for op in g.get_operations()}
        sess.run(tw.global_variables_initializer())
        got = []
        for _ in range(steps):
            sess.run(train)
            got.append(sess.run([w1, w2]))
    w1, w2 = w1_0.astype(np.float64), w2_0.astype(np.float64)
    lr = float(_h(lr, np.float32))  # a Python learning rate is a float32 constant
    want = []
    for _ in range(steps):
        h = x @ w1
        dpred = 2.0 * (h @ w2 - y) / y.size
        dw2, dh = h.T @ dpred, dpred @ w2.T
        w1, w2 = w1 - lr * (x.T @ dh), w2 - lr * dw2
        want.append([w1, w2])
    return op_types, got, want


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-10), (np.float32, 1e-4)], ids=["float64", "float32"])
def test_gradient_descent_fuses_dense_kernel_updates(dtype, rtol):
    op_types, got, want = _two_layer_sgd(dtype, steps=4)
    assert "FusedMatMulApplyGradientDescent" in op_types
    assert "ApplyGradientDescent" not in op_types
    for step, (g, w) in enumerate(zip(got, want)):
        for name, a, b in zip(("w1", "w2"), g, w):
            assert a.dtype == dtype
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, err_msg=f"{name} after step {step + 1}")


def test_gradient_descent_does_not_fuse_across_devices():
    """A variable on a parameter server and its gradient's MatMul on a worker: the update is the plain one on
    the ps (fusing would move every worker's weight-gradient GEMM to the ps and ship its inputs there)."""
    cluster = tw.train.ClusterSpec({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})
    with tw.Graph().as_default() as g:
        with tw.device(tw.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
            x = tw.placeholder(tw.float32, [4, 3])
            loss = tw.reduce_sum(tw.layers.dense(x, 2))
            train = tw.train.GradientDescentOptimizer(0.1).minimize(loss)
    types = {op.type: op for op in g.get_operations()}
    assert "FusedMatMulApplyGradientDescent" not in types
    updates = [op for op in train.control_inputs if op.type == "ApplyGradientDescent"]
    assert len(updates) == 2 and all(op.device.startswith("/job:ps") for op in updates)
    grads = [op for op in g.get_operations() if op.type == "MatMul" and "gradients" in op.name]
    assert grads and all(op.device.startswith("/job:worker") for op in grads)
    with tw.Graph().as_default() as g:  # on one device (or none) the kernel's update is fused
        with tw.device("/job:worker/task:0"):
            x = tw.placeholder(tw.float32, [4, 3])
            tw.train.GradientDescentOptimizer(0.1).minimize(tw.reduce_sum(tw.layers.dense(x, 2)))
    assert "FusedMatMulApplyGradientDescent" in {op.type for op in g.get_operations()}


@pytest.mark.parametrize("opt", [tw.train.GradientDescentOptimizer(0.1), tw.train.AdamOptimizer(0.1)])
def test_updates_wait_only_for_readers_on_the_variable_s_device(opt):
    """An update waits for the step's readers of its variable on the same device (they hold the buffer), not for
    readers on another task: those work on a copy, and a control edge to each would cost a Send/Recv per step."""
    cluster = tw.train.ClusterSpec({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})
    with tw.Graph().as_default() as g:
        with tw.device(tw.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
            x = tw.placeholder(tw.float32, [4, 3])
            w = tw.get_variable("w", [3, 2])
            with tw.device("/job:ps/task:0"):
                on_ps = tw.reduce_sum(w * 2.0)
            opt.minimize(tw.reduce_sum(tw.matmul(x, w)) + on_ps)
    (update,) = [op for op in g.get_operations() if op.type.startswith("Apply")]
    assert update.device.startswith("/job:ps")
    waits = {op.name: op.device for op in update.control_inputs}
    assert "mul" in waits and all(d.startswith("/job:ps") for d in waits.values()), waits


def test_fused_update_reads_the_step_s_snapshot_and_keeps_the_gradient_fetchable():
    # Fetching the gradient along with the update runs the MatMul as well;
    # both see the weights as they were before the step.
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.constant([[1.0, 2.0], [3.0, 4.0]])
        w = tw.Variable([[0.5, -1.0], [2.0, 0.0]], name="w")
        loss = tw.reduce_sum(tw.matmul(tw.matmul(x, w), w))
        opt = tw.train.GradientDescentOptimizer(0.1)
        grads_and_vars = opt.compute_gradients(loss, [w])
        train = opt.apply_gradients(grads_and_vars)
        sess.run(w.initializer)
        w0 = sess.run(w)
        grad, _ = sess.run([grads_and_vars[0][0], train])
        ones = np.ones((2, 2))
        xv = sess.run(x)
        want_grad = xv.T @ ones @ w0.T + (xv @ w0).T @ ones
        np.testing.assert_allclose(grad, want_grad, rtol=1e-6)
        np.testing.assert_allclose(sess.run(w), w0 - 0.1 * want_grad, rtol=1e-6)


def test_fused_update_rejects_bad_operands():
    from tensorweave._src.ops import training_ops

    fused = training_ops.fused_matmul_apply_gradient_descent
    with tw.Graph().as_default(), tw.Session() as sess:
        w = tw.Variable(np.zeros((2, 3), np.float32), name="w")
        with pytest.raises(ValueError, match=r"var and the product of a and b.*\[2,3\].*\[2,4\]"):
            fused(w, 0.1, np.ones((2, 5), np.float32), np.ones((5, 4), np.float32))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 4"):
            fused(w, 0.1, np.ones((2, 5), np.float32), np.ones((4, 3), np.float32))
        with pytest.raises(ValueError):
            fused(w, [0.1, 0.2], np.ones((2, 5), np.float32), np.ones((5, 3), np.float32))
        a = tw.placeholder(tw.float32, [None, None])
        b = tw.placeholder(tw.float32, [None, None])
        step = fused(w, 0.1, a, b, name="fused_update")
        with pytest.raises(tw.errors.FailedPreconditionError, match="uninitialized value w"):
            sess.run(step, {a: np.ones((2, 5)), b: np.ones((5, 3))})
        sess.run(w.initializer)
        with pytest.raises(tw.errors.InvalidArgumentError, match="(?s)Matrix size-incompatible.*fused_update"):
            sess.run(step, {a: np.ones((2, 5)), b: np.ones((4, 3))})
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"(?s)same shape: \[2,3\] vs \[2,4\].*fused_update"):
            sess.run(step, {a: np.ones((2, 5)), b: np.ones((5, 4))})
        np.testing.assert_array_equal(sess.run(w), np.zeros((2, 3)))  # failed updates change nothing
