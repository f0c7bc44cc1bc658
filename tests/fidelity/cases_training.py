"""Training extras against TF1: the Adadelta, FTRL and proximal optimizers (dense and sparse updates over several
steps, their slots and errors), ExponentialMovingAverage and the learning-rate schedules."""

import numpy as np

from tests.fidelity.harness import case


def _embedding_steps(tf, sess, make_optimizer, slot_names, steps=3, indices=(0, 2, 0), dense=False, dtype="float32"):
    """Trains a [4, 2] embedding through a gather of `indices` for `steps` steps; returns the variable and its
    slots (rows 1 and 3 are never read, and keep their values and slots in a sparse update)."""
    emb = tf.Variable(np.array([[1.0, -2.0], [3.0, 0.05], [-5.0, 6.0], [0.01, 8.0]], dtype), name="emb")
    rows = tf.gather(emb, list(indices))
    weights = np.array([[1.0, 2.0], [0.5, 1.0], [2.0, 1.0]], dtype)[: len(indices)]
    loss = tf.reduce_sum(tf.square(rows - 1.0) * weights)
    if dense:
        loss = loss + 0.5 * tf.reduce_sum(emb)
    opt = make_optimizer()
    train = opt.minimize(loss)
    sess.run(tf.global_variables_initializer())
    for _ in range(steps):
        sess.run(train)
    slots = [opt.get_slot(emb, name) for name in slot_names]
    return [sess.run(emb)] + [sess.run(s) for s in slots] + [[s.op.name for s in slots], opt.get_slot_names()]


# --- Adadelta ------------------------------------------------------------------------------------------------


@case
def adadelta_dense(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.AdadeltaOptimizer(1.0), ["accum", "accum_update"], dense=True)


@case
def adadelta_sparse(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.AdadeltaOptimizer(0.5, rho=0.8, epsilon=1e-3), ["accum", "accum_update"]
    )


@case
def adadelta_float64(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.AdadeltaOptimizer(2.0, 0.9, 1e-4), ["accum", "accum_update"], dtype="float64"
    )


# --- FTRL ----------------------------------------------------------------------------------------------------


@case
def ftrl_dense(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.FtrlOptimizer(0.5), ["accum", "linear"], dense=True)


@case
def ftrl_dense_l1_l2(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.5, l2_regularization_strength=0.2),
        ["accum", "linear"],
        dense=True,
        steps=4,
    )


@case
def ftrl_dense_learning_rate_power(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.FtrlOptimizer(
            0.3, learning_rate_power=-0.7, initial_accumulator_value=0.5, l1_regularization_strength=0.1
        ),
        ["accum", "linear"],
        dense=True,
    )


@case
def ftrl_dense_l2_shrinkage(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.FtrlOptimizer(
            0.3,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.1,
            l2_shrinkage_regularization_strength=0.2,
        ),
        ["accum", "linear"],
        dense=True,
    )


@case
def ftrl_sparse(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.FtrlOptimizer(0.5, l1_regularization_strength=0.1), ["accum", "linear"]
    )


@case
def ftrl_sparse_l2_shrinkage_power(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.FtrlOptimizer(
            0.5, learning_rate_power=-0.3, l2_regularization_strength=0.1, l2_shrinkage_regularization_strength=0.3
        ),
        ["accum", "linear"],
        dtype="float64",
    )


@case
def ftrl_beta_and_names(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.FtrlOptimizer(0.5, beta=0.4, accum_name="A", linear_name="L"),
        ["accum", "linear"],
        dense=True,
    )


@case
def ftrl_bad_arguments(tf, sess):
    out = []
    for kwargs in (
        {"learning_rate_power": 0.5},
        {"initial_accumulator_value": -1.0},
        {"l1_regularization_strength": -1.0},
        {"l2_regularization_strength": -1.0},
        {"l2_shrinkage_regularization_strength": -1.0},
    ):
        try:
            tf.train.FtrlOptimizer(0.1, **kwargs)
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


# --- proximal methods ------------------------------------------------------------------------------------------


@case
def proximal_gradient_descent_dense(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.ProximalGradientDescentOptimizer(
            0.1, l1_regularization_strength=0.5, l2_regularization_strength=0.3
        ),
        [],
        dense=True,
    )


@case
def proximal_gradient_descent_no_l1(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l2_regularization_strength=0.3), [], dense=True
    )


@case
def proximal_gradient_descent_sparse(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=2.0), []
    )


@case
def proximal_adagrad_dense(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.ProximalAdagradOptimizer(0.5, l1_regularization_strength=0.2, l2_regularization_strength=0.1),
        ["accumulator"],
        dense=True,
    )


@case
def proximal_adagrad_sparse(tf, sess):
    return _embedding_steps(
        tf,
        sess,
        lambda: tf.train.ProximalAdagradOptimizer(0.5, 0.3, l1_regularization_strength=0.4),
        ["accumulator"],
    )


@case
def proximal_adagrad_bad_accumulator(tf, sess):
    try:
        tf.train.ProximalAdagradOptimizer(0.5, initial_accumulator_value=0.0)
    except ValueError:
        return "ValueError"
    return "accepted"


@case
def optimizers_learning_rate_tensor_and_global_step(tf, sess):
    w = tf.Variable([1.0, -2.0, 3.0])
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.5, step, 1, 0.5)
    loss = tf.reduce_sum(tf.square(w) * [1.0, 2.0, 3.0])
    opts = [
        tf.train.AdadeltaOptimizer(lr),
        tf.train.FtrlOptimizer(lr, l1_regularization_strength=0.01),
        tf.train.ProximalGradientDescentOptimizer(lr, 0.01, 0.01),
        tf.train.ProximalAdagradOptimizer(lr, 0.2, 0.01, 0.01),
    ]
    trains = [opt.minimize(loss, global_step=step if i == 0 else None) for i, opt in enumerate(opts)]
    sess.run(tf.global_variables_initializer())
    out = []
    for _ in range(3):
        for t in trains:
            sess.run(t)
        out.append(sess.run([w, step]))
    return out, [t.name for t in trains], sorted(v.op.name for v in tf.global_variables())


@case
def sparse_apply_ftrl_raw_out_of_range(tf, sess):
    v = tf.Variable([[1.0], [2.0]])
    a = tf.Variable([[0.1], [0.1]])
    lin = tf.Variable([[0.0], [0.0]])
    sess.run(tf.global_variables_initializer())
    op = tf.raw_ops.SparseApplyFtrl(
        var=v, accum=a, linear=lin, grad=[[1.0]], indices=[5], lr=0.1, l1=0.0, l2=0.0, lr_power=-0.5
    )
    return sess.run(op)


@case
def apply_adadelta_shape_mismatch(tf, sess):
    v = tf.Variable([1.0, 2.0])
    a = tf.Variable([1.0, 2.0, 3.0])
    u = tf.Variable([1.0, 2.0])
    return tf.raw_ops.ApplyAdadelta(var=v, accum=a, accum_update=u, lr=0.1, rho=0.9, epsilon=1e-6, grad=[1.0, 1.0])


# --- the raw update ops, one step each, dense and sparse (a repeated index is applied twice, in order) ----------

_VAR = [[1.0, -2.0], [3.0, 0.05], [-5.0, 6.0]]
_SLOT = [[0.5, 0.2], [0.1, 0.3], [0.4, 0.6]]
_GRAD = [[0.5, -1.0], [2.0, 0.25], [-0.3, 0.7]]
_RAW_UPDATES = {
    # op type: (slot names, scalar inputs)
    "ApplyAdadelta": (("accum", "accum_update"), {"lr": 0.7, "rho": 0.9, "epsilon": 1e-3}),
    "ApplyFtrl": (("accum", "linear"), {"lr": 0.3, "l1": 0.1, "l2": 0.2, "lr_power": -0.6}),
    "ApplyFtrlV2": (("accum", "linear"), {"lr": 0.3, "l1": 0.1, "l2": 0.2, "l2_shrinkage": 0.3, "lr_power": -0.5}),
    "ApplyProximalGradientDescent": ((), {"alpha": 0.4, "l1": 0.3, "l2": 0.2}),
    "ApplyProximalAdagrad": (("accum",), {"lr": 0.4, "l1": 0.3, "l2": 0.2}),
}


def _raw_update(tf, sess, op_type, sparse):
    slots, scalars = _RAW_UPDATES[op_type]
    var = tf.Variable(_VAR)
    slot_vars = [tf.Variable(_SLOT) for _ in slots]
    sess.run(tf.global_variables_initializer())
    kwargs = dict(scalars, var=var, **dict(zip(slots, slot_vars)))
    grad_name = "delta" if op_type == "ApplyProximalGradientDescent" and not sparse else "grad"
    if sparse:
        kwargs.update(grad=[_GRAD[0], _GRAD[2], _GRAD[1]], indices=tf.constant([2, 0, 2], tf.int64))
        out = getattr(tf.raw_ops, "Sparse" + op_type)(**kwargs)
    else:
        kwargs[grad_name] = _GRAD
        out = getattr(tf.raw_ops, op_type)(**kwargs)
    return out.shape, sess.run(out), sess.run(slot_vars)


@case
def raw_apply_updates(tf, sess):
    return [_raw_update(tf, sess, op, sparse=False) for op in sorted(_RAW_UPDATES)]


@case
def raw_sparse_apply_updates(tf, sess):
    assert sorted("Sparse" + op for op in _RAW_UPDATES) == [
        "SparseApplyAdadelta",
        "SparseApplyFtrl",
        "SparseApplyFtrlV2",
        "SparseApplyProximalAdagrad",
        "SparseApplyProximalGradientDescent",
    ]
    return [_raw_update(tf, sess, op, sparse=True) for op in sorted(_RAW_UPDATES)]


@case
def raw_sparse_apply_grad_rows_mismatch(tf, sess):
    var = tf.Variable(_VAR)
    return tf.raw_ops.SparseApplyProximalGradientDescent(
        var=var, alpha=0.1, l1=0.0, l2=0.0, grad=[[1.0, 2.0, 3.0]], indices=[0]
    )


# --- ExponentialMovingAverage ------------------------------------------------------------------------------------


@case
def ema_of_variables_with_num_updates(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(3.0, name="b")
    step = tf.Variable(0, name="step", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    update = ema.apply([w, b])
    sess.run(tf.global_variables_initializer())
    out = []
    for i in range(4):
        sess.run([w.assign(w * 2.0 + 1.0), b.assign_sub(1.0), step.assign_add(1)])
        sess.run(update)
        out.append(sess.run([ema.average(w), ema.average(b)]))
    names = [ema.average_name(w), ema.average(b).op.name, update.name, ema.name]
    collection = [v.op.name for v in tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES)]
    return out, names, collection, sorted(ema.variables_to_restore()), ema.average(w).shape


@case
def ema_of_a_tensor_zero_debias(tf, sess):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(x * 2.0, name="y")
    ema = tf.train.ExponentialMovingAverage(0.8, zero_debias=True)
    update = ema.apply([y])
    sess.run(tf.global_variables_initializer())
    out = []
    for v in ([1.0, 2.0], [3.0, -1.0], [0.5, 0.5]):
        sess.run(update, {x: v})
        out.append(sess.run(ema.average(y)))
    return out, ema.average_name(y)


@case
def ema_of_a_tensor_biased(tf, sess):
    y = tf.constant([4.0, 8.0], name="y")
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([y])
    sess.run(tf.global_variables_initializer())
    return [sess.run([update, ema.average(y)])[1] for _ in range(3)]


@case
def ema_variables_to_restore_restores_averages(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    other = tf.Variable(5.0, name="other", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([w])
    names = sorted(ema.variables_to_restore())
    values = sorted((k, v.op.name) for k, v in ema.variables_to_restore([w]).items())
    sess.run(tf.global_variables_initializer())
    sess.run(w.assign([3.0, 4.0]))
    sess.run(update)
    return names, values, sess.run(ema.average(w)), sess.run(other)


@case
def ema_rejects_integers(tf, sess):
    v = tf.Variable(1, name="i")
    try:
        tf.train.ExponentialMovingAverage(0.9).apply([v])
    except TypeError:
        return "TypeError"
    return "accepted"


@case
def ema_with_optimizer_control_dependencies(tf, sess):
    w = tf.Variable([1.0, -1.0], name="w")
    loss = tf.reduce_sum(tf.square(w - 3.0))
    opt = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    ema = tf.train.ExponentialMovingAverage(0.7)
    with tf.control_dependencies([opt]):
        train = ema.apply(tf.trainable_variables())
    sess.run(tf.global_variables_initializer())
    for _ in range(5):
        sess.run(train)
    return sess.run(w), sess.run(ema.average(w))


# --- learning-rate schedules ---------------------------------------------------------------------------------------


def _schedule_values(tf, sess, make, steps=(0, 1, 3, 5, 10, 17, 30), dtype="int64"):
    step = tf.placeholder(getattr(tf, dtype), [], name="step")
    lr = make(step)
    return lr.dtype, lr.shape, [sess.run(lr, {step: s}) for s in steps]


@case
def polynomial_decay_values(tf, sess):
    return _schedule_values(tf, sess, lambda s: tf.train.polynomial_decay(0.1, s, 10, 0.01, power=0.5))


@case
def polynomial_decay_cycle(tf, sess):
    return _schedule_values(tf, sess, lambda s: tf.train.polynomial_decay(0.1, s, 4, 0.001, power=2.0, cycle=True))


@case
def polynomial_decay_float64_rate(tf, sess):
    return _schedule_values(
        tf, sess, lambda s: tf.train.polynomial_decay(tf.constant(0.5, tf.float64), s, 7), dtype="int32"
    )


@case
def natural_exp_decay_values(tf, sess):
    return _schedule_values(tf, sess, lambda s: tf.train.natural_exp_decay(0.2, s, 5, 0.3)), _schedule_values(
        tf, sess, lambda s: tf.train.natural_exp_decay(0.2, s, 5, 0.3, staircase=True)
    )


@case
def inverse_time_decay_values(tf, sess):
    return _schedule_values(tf, sess, lambda s: tf.train.inverse_time_decay(0.2, s, 5, 0.3)), _schedule_values(
        tf, sess, lambda s: tf.train.inverse_time_decay(0.2, s, 5, 0.3, staircase=True)
    )


@case
def cosine_decay_values(tf, sess):
    return _schedule_values(tf, sess, lambda s: tf.train.cosine_decay(0.3, s, 12, alpha=0.1))


@case
def cosine_decay_restarts_values(tf, sess):
    return (
        _schedule_values(tf, sess, lambda s: tf.train.cosine_decay_restarts(0.3, s, 4)),
        _schedule_values(tf, sess, lambda s: tf.train.cosine_decay_restarts(0.3, s, 4, t_mul=1.0, m_mul=0.7)),
        _schedule_values(
            tf, sess, lambda s: tf.train.cosine_decay_restarts(0.3, s, 3, t_mul=1.5, m_mul=0.9, alpha=0.05)
        ),
    )


@case
def linear_cosine_decay_values(tf, sess):
    return _schedule_values(tf, sess, lambda s: tf.train.linear_cosine_decay(0.3, s, 12, num_periods=2.0, alpha=0.1))


@case
def noisy_linear_cosine_decay_without_noise(tf, sess):
    return _schedule_values(
        tf, sess, lambda s: tf.train.noisy_linear_cosine_decay(0.3, s, 12, initial_variance=0.0, beta=0.01)
    )


@case
def schedules_need_a_global_step(tf, sess):
    out = []
    for fn in (
        lambda: tf.train.polynomial_decay(0.1, None, 10),
        lambda: tf.train.natural_exp_decay(0.1, None, 10, 0.5),
        lambda: tf.train.inverse_time_decay(0.1, None, 10, 0.5),
        lambda: tf.train.cosine_decay(0.1, None, 10),
        lambda: tf.train.cosine_decay_restarts(0.1, None, 10),
        lambda: tf.train.linear_cosine_decay(0.1, None, 10),
        lambda: tf.train.noisy_linear_cosine_decay(0.1, None, 10),
    ):
        try:
            fn()
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


# --- checkpoint utilities ------------------------------------------------------------------------------------------


def _saved_checkpoint(tf, sess, with_step=True):
    """Saves three variables (one under a scope made by get_variable) in a fresh directory; returns (dir, prefix)."""
    import os
    import tempfile

    d = tempfile.mkdtemp()
    with tf.variable_scope("old"):
        w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
        b = tf.get_variable("b", initializer=np.array([0.5, -1.5], np.float64))
    step = tf.Variable(42, name="step", dtype=tf.int64)
    sess.run(tf.global_variables_initializer())
    prefix = tf.train.Saver([w, b, step]).save(
        sess, os.path.join(d, "model.ckpt"), global_step=3 if with_step else None
    )
    return d, prefix


@case
def checkpoint_reader_maps_and_values(tf, sess):
    d, prefix = _saved_checkpoint(tf, sess)
    reader = tf.train.NewCheckpointReader(prefix)
    return (
        sorted(reader.get_variable_to_shape_map().items()),
        sorted((k, v) for k, v in reader.get_variable_to_dtype_map().items()),
        reader.has_tensor("old/w"),
        reader.has_tensor("nope"),
        reader.get_tensor("old/w"),
        reader.get_tensor("old/b"),
        reader.get_tensor("step"),
    )


@case
def checkpoint_reader_missing_key(tf, sess):
    d, prefix = _saved_checkpoint(tf, sess)
    return tf.train.NewCheckpointReader(prefix).get_tensor("old/missing")


@case
def checkpoint_reader_missing_checkpoint(tf, sess):
    import os
    import tempfile

    return tf.train.NewCheckpointReader(os.path.join(tempfile.mkdtemp(), "none.ckpt"))


@case
def list_and_load_variables(tf, sess):
    d, prefix = _saved_checkpoint(tf, sess)
    return (
        tf.train.list_variables(d),
        tf.train.list_variables(prefix),
        tf.train.load_variable(d, "old/b"),
        tf.train.load_variable(prefix, "old/w:0"),
        tf.train.load_checkpoint(d).get_tensor("step"),
        tf.train.latest_checkpoint(d) == prefix,
        tf.train.checkpoint_exists(prefix),
    )


@case
def load_checkpoint_of_empty_directory(tf, sess):
    import tempfile

    return tf.train.load_checkpoint(tempfile.mkdtemp())


@case
def init_from_checkpoint_scope_to_scope(tf, sess):
    d, _ = _saved_checkpoint(tf, sess)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        with tf.variable_scope("new"):
            w = tf.get_variable("w", shape=[2, 3])
            b = tf.get_variable("b", shape=[2], dtype=tf.float64)
        other = tf.get_variable("other", initializer=[7.0])
        tf.train.init_from_checkpoint(d, {"old/": "new/"})
        s.run(tf.global_variables_initializer())
        return s.run([w, b, other])


@case
def init_from_checkpoint_one_variable_and_object(tf, sess):
    d, _ = _saved_checkpoint(tf, sess)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        w = tf.get_variable("w2", shape=[2, 3])
        b = tf.Variable([0.0, 0.0], dtype=tf.float64, name="plain_b")
        tf.train.init_from_checkpoint(d, {"old/w": "w2", "old/b": b})
        s.run(tf.global_variables_initializer())
        return s.run([w, b])


@case
def init_from_checkpoint_root_mapping(tf, sess):
    d, _ = _saved_checkpoint(tf, sess)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        with tf.variable_scope("outer"):
            with tf.variable_scope("old"):
                w = tf.get_variable("w", shape=[2, 3])
        tf.train.init_from_checkpoint(d, {"/": "outer/"})
        s.run(tf.global_variables_initializer())
        return s.run(w)


@case
def init_from_checkpoint_errors(tf, sess):
    d, _ = _saved_checkpoint(tf, sess)
    out = []
    for mapping, shape in (
        ({"old/missing": "x"}, [2, 3]),
        ({"old/w": "x"}, [3, 3]),
        ({"old/w": "scope/"}, [2, 3]),
        ({"nothere/": "x"}, [2, 3]),
    ):
        with tf.Graph().as_default():
            tf.get_variable("x", shape=shape)
            try:
                tf.train.init_from_checkpoint(d, mapping)
                out.append("ok")
            except Exception as e:  # noqa: BLE001 - the class is the observation
                out.append(type(e).__name__)
    return out


@case
def warm_start_regex_and_renames(tf, sess):
    d, _ = _saved_checkpoint(tf, sess)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        with tf.variable_scope("old"):
            w = tf.get_variable("w", shape=[2, 3])
        renamed = tf.get_variable("renamed_b", shape=[2], dtype=tf.float64)
        kept = tf.get_variable("kept", initializer=[1.0, 2.0])
        tf.train.warm_start(d, vars_to_warm_start="old/.*|renamed_b", var_name_to_prev_var_name={"renamed_b": "old/b"})
        s.run(tf.global_variables_initializer())
        return s.run([w, renamed, kept])


@case
def warm_start_errors(tf, sess):
    d, _ = _saved_checkpoint(tf, sess)
    out = []
    for kwargs in (
        {"vars_to_warm_start": ["old/w", 3]},
        {"vars_to_warm_start": 5},
        {"var_name_to_prev_var_name": {"nonexistent": "old/w"}},
    ):
        with tf.Graph().as_default():
            with tf.variable_scope("old"):
                tf.get_variable("w", shape=[2, 3])
            try:
                tf.train.warm_start(d, **kwargs)
                out.append("ok")
            except Exception as e:  # noqa: BLE001 - the class is the observation
                out.append(type(e).__name__)
    return out


# --- meta graphs -----------------------------------------------------------------------------------------------------


def _train_model(tf):
    """A small regression model with a global step, an Adam optimizer, a loss, a summary-like tensor collection,
    an update op and custom collections; returns (train_op, loss, w)."""
    x = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(6, 2), name="x")
    y = tf.constant(np.array([[1.0], [0.5], [0.0], [-0.5], [2.0], [1.5]], np.float32), name="y")
    w = tf.get_variable("w", initializer=np.array([[0.1], [-0.2]], np.float32))
    b = tf.Variable([0.0], name="b")
    counter = tf.Variable(0.0, name="counter", trainable=False)
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
    tf.add_to_collection(tf.GraphKeys.LOSSES, loss)
    tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1.0, name="count").op)
    tf.add_to_collection(tf.GraphKeys.SUMMARIES, tf.identity(loss, name="loss_summary"))
    tf.add_to_collection("my_strings", "hello")
    tf.add_to_collection("my_ints", 7)
    tf.add_to_collection("my_floats", 2.5)
    tf.add_to_collection("my_tensors", w.value())
    step = tf.train.get_or_create_global_step()
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
    return train, loss, w


@case
def meta_graph_resumes_training(tf, sess):
    import os
    import tempfile

    prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
    uninterrupted = []
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        train, loss, w = _train_model(tf)
        s.run(tf.global_variables_initializer())
        for i in range(6):
            s.run(train)
            if i == 2:
                path = tf.train.Saver().save(s, prefix, global_step=3)
        uninterrupted = s.run([loss, w])
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        saver = tf.train.import_meta_graph(path + ".meta")
        saver.restore(s, path)
        [train] = tf.get_collection(tf.GraphKeys.TRAIN_OP)
        for _ in range(3):
            s.run(train)
        [loss] = tf.get_collection(tf.GraphKeys.LOSSES)
        [w] = [v for v in tf.trainable_variables() if v.op.name == "w"]
        resumed = s.run([loss, w])
        collections = {
            key: [getattr(x, "name", x) for x in tf.get_collection(key)]
            for key in (
                tf.GraphKeys.TRAINABLE_VARIABLES,
                tf.GraphKeys.GLOBAL_VARIABLES,
                tf.GraphKeys.UPDATE_OPS,
                tf.GraphKeys.SUMMARIES,
                tf.GraphKeys.TRAIN_OP,
                tf.GraphKeys.LOSSES,
                tf.GraphKeys.GLOBAL_STEP,
                "my_strings",
                "my_ints",
                "my_floats",
                "my_tensors",
            )
        }
        kinds = [isinstance(v, tf.Variable) for v in tf.global_variables()]
        return (
            uninterrupted,
            resumed,
            s.run(tf.train.get_global_step()),
            collections,
            kinds,
            os.path.exists(path + ".meta"),
            s.run(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)[2]),
        )


@case
def meta_graph_saver_keeps_saving(tf, sess):
    import os
    import tempfile

    d = tempfile.mkdtemp()
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        v = tf.Variable([1.0, 2.0], name="v")
        s.run(v.initializer)
        first = tf.train.Saver().save(s, os.path.join(d, "m"), global_step=1)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        saver = tf.train.import_meta_graph(first + ".meta")
        saver.restore(s, first)
        [v] = tf.global_variables()
        s.run(v.assign([5.0, 6.0]))
        second = saver.save(s, os.path.join(d, "m"), global_step=2, write_meta_graph=False)
        exists = [os.path.exists(second + ".meta"), os.path.exists(first + ".meta")]
    return exists, tf.train.load_variable(d, "v"), os.path.basename(tf.train.latest_checkpoint(d))


@case
def meta_graph_import_scope(tf, sess):
    import os
    import tempfile

    prefix = os.path.join(tempfile.mkdtemp(), "m")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        v = tf.Variable([1.0, 2.0], name="v")
        tf.add_to_collection("outs", tf.multiply(v, 2.0, name="double"))
        s.run(v.initializer)
        tf.train.Saver().save(s, prefix)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        saver = tf.train.import_meta_graph(prefix + ".meta", import_scope="imported")
        saver.restore(s, prefix)
        [out] = tf.get_collection("outs")
        return out.name, s.run(out), [v.name for v in tf.global_variables()]


@case
def export_meta_graph_without_saver(tf, sess):
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "graph.meta")
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, 2], name="a")
        tf.add_to_collection("results", tf.reduce_sum(a, name="total"))
        meta = tf.train.export_meta_graph(filename=path)
        has_saver = meta.HasField("saver_def")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        saver = tf.train.import_meta_graph(path)
        [total] = tf.get_collection("results")
        fed = s.run(total, {g.get_tensor_by_name("a:0"): [[1.0, 2.0], [3.0, 4.0]]})
        return has_saver, saver is None, sorted(meta.collection_def), fed


@case
def import_meta_graph_missing_file(tf, sess):
    return tf.train.import_meta_graph("/nonexistent/dir/model.meta")


@case
def write_graph_text_and_binary(tf, sess):
    import os
    import tempfile

    d = os.path.join(tempfile.mkdtemp(), "sub")
    tf.constant([1.0, 2.0], name="c")
    text = tf.train.write_graph(sess.graph, d, "g.pbtxt")
    binary = tf.train.write_graph(sess.graph.as_graph_def(), d, "g.pb", as_text=False)
    with open(text) as f:
        first_lines = f.read().splitlines()[:3]
    with tf.Graph().as_default() as g:
        with open(binary, "rb") as f:
            gd = g.as_graph_def().__class__.FromString(f.read())
        tf.import_graph_def(gd, name="")
        names = [op.name for op in g.get_operations()]
    return os.path.basename(text), os.path.basename(binary), first_lines, names


# --- SavedModel --------------------------------------------------------------------------------------------------


def _export_model(tf, export_dir, as_text=False):
    """A builder with two meta graphs (serve; train) over one variable; returns what save() returned."""
    builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [-2.0]], name="w")
        counter = tf.Variable(0.0, name="counter", trainable=False)
        y = tf.matmul(x, w, name="y")
        s.run(tf.global_variables_initializer())
        s.run(w.assign([[3.0], [4.0]]))
        predict = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
        custom = tf.saved_model.signature_def_utils.build_signature_def(
            inputs={"x": tf.saved_model.utils.build_tensor_info(x)},
            outputs={"w": tf.saved_model.utils.build_tensor_info(w.value())},
            method_name="custom/method",
        )
        builder.add_meta_graph_and_variables(
            s,
            [tf.saved_model.tag_constants.SERVING],
            signature_def_map={
                tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict,
                "custom": custom,
            },
            main_op=tf.group(tf.assign_add(counter, 10.0), name="main_op"),
        )
        builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING, "extra"])
    return builder.save(as_text=as_text)


@case
def saved_model_builder_and_loader(tf, sess):
    import os
    import tempfile

    export_dir = os.path.join(tempfile.mkdtemp(), "model")
    path = _export_model(tf, export_dir)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, [tf.saved_model.tag_constants.SERVING], export_dir)
        sig = meta.signature_def["serving_default"]
        y = s.run(sig.outputs["y"].name, {sig.inputs["x"].name: [[1.0, 1.0], [2.0, 0.0]]})
        counter = s.run("counter:0")
        info = sig.inputs["x"]
        x = tf.saved_model.utils.get_tensor_from_tensor_info(info)
        custom = meta.signature_def["custom"]
        listing = sorted(os.listdir(export_dir))
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        train_meta = tf.saved_model.loader.load(s, ["extra", "train"], export_dir)
        w_train = s.run("w:0")
    return (
        os.path.basename(path),
        listing,
        sorted(meta.signature_def),
        sig.method_name,
        custom.method_name,
        sorted(custom.outputs),
        info.name,
        tf.as_dtype(info.dtype),
        x.shape,
        y,
        counter,
        list(meta.meta_info_def.tags),
        sorted(train_meta.meta_info_def.tags),
        w_train,
        tf.saved_model.loader.maybe_saved_model_directory(export_dir),
    )


@case
def saved_model_as_text(tf, sess):
    import os
    import tempfile

    export_dir = os.path.join(tempfile.mkdtemp(), "model")
    path = _export_model(tf, export_dir, as_text=True)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, ["serve"], export_dir)
        return os.path.basename(path), s.run("w:0"), sorted(meta.signature_def)


@case
def saved_model_errors(tf, sess):
    import os
    import tempfile

    out = []
    export_dir = os.path.join(tempfile.mkdtemp(), "model")
    _export_model(tf, export_dir)

    def attempt(fn):
        try:
            fn()
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)

    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        attempt(lambda: tf.saved_model.loader.load(s, ["nope"], export_dir))
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        attempt(lambda: tf.saved_model.loader.load(s, ["serve"], os.path.join(export_dir, "missing")))
    attempt(lambda: tf.saved_model.builder.SavedModelBuilder(export_dir))
    fresh = tf.saved_model.builder.SavedModelBuilder(os.path.join(tempfile.mkdtemp(), "m2"))
    attempt(lambda: fresh.add_meta_graph(["serve"]))
    with tf.Graph().as_default():
        attempt(lambda: tf.saved_model.signature_def_utils.predict_signature_def({}, {"y": tf.constant(1.0)}))
        attempt(lambda: tf.saved_model.signature_def_utils.predict_signature_def({"x": tf.constant(1.0)}, None))
    return out


@case
def simple_save_loads_with_the_loader(tf, sess):
    import os
    import tempfile

    export_dir = os.path.join(tempfile.mkdtemp(), "model")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        x = tf.placeholder(tf.float32, [None], name="x")
        w = tf.Variable(2.5, name="w")
        s.run(w.initializer)
        tf.saved_model.simple_save(s, export_dir, {"x": x}, {"y": x * w})
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        meta = tf.saved_model.loader.load(s, [tf.saved_model.SERVING], export_dir)
        sig = meta.signature_def[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        return (
            sig.method_name,
            sorted(sig.inputs),
            s.run(sig.outputs["y"].name, {sig.inputs["x"].name: [1.0, 2.0]}),
            list(meta.meta_info_def.tags),
        )


@case
def signature_defs_classify_regress(tf, sess):
    examples = tf.placeholder(tf.string, [None], name="examples")
    scores = tf.constant([[0.1, 0.9]], name="scores")
    classes = tf.constant([["a", "b"]], name="classes")
    c = tf.saved_model.signature_def_utils.classification_signature_def(examples, classes, scores)
    r = tf.saved_model.signature_def_utils.regression_signature_def(examples, tf.constant([1.5], name="pred"))
    out = [c.method_name, sorted(c.outputs), r.method_name, sorted(r.inputs), sorted(r.outputs)]
    out.append(tf.saved_model.signature_def_utils.is_valid_signature(c))
    out.append(tf.saved_model.signature_def_utils.is_valid_signature(r))
    try:
        tf.saved_model.signature_def_utils.regression_signature_def(tf.constant([1.0]), scores)
        out.append("ok")
    except ValueError:
        out.append("ValueError")
    return out


# --- AdagradDA -------------------------------------------------------------------------------------------------------


def _adagrad_da_steps(tf, sess, dense, **kwargs):
    emb = tf.Variable(np.array([[1.0, -2.0], [3.0, 0.05], [-5.0, 6.0], [0.01, 8.0]], np.float32), name="emb")
    rows = tf.gather(emb, [0, 2, 0])
    loss = tf.reduce_sum(tf.square(rows - 1.0) * [[1.0, 2.0], [0.5, 1.0], [2.0, 1.0]])
    if dense:
        loss = loss + 0.5 * tf.reduce_sum(emb)
    step = tf.train.get_or_create_global_step()
    opt = tf.train.AdagradDAOptimizer(0.3, step, **kwargs)
    train = opt.minimize(loss, global_step=step)
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    slots = [opt.get_slot(emb, n) for n in ("gradient_accumulator", "gradient_squared_accumulator")]
    return sess.run([emb] + slots), [s.op.name for s in slots], sess.run(step)


@case
def adagrad_da_dense(tf, sess):
    return _adagrad_da_steps(tf, sess, True)


@case
def adagrad_da_dense_l1_l2(tf, sess):
    return _adagrad_da_steps(tf, sess, True, l1_regularization_strength=0.4, l2_regularization_strength=0.2)


@case
def adagrad_da_sparse(tf, sess):
    return _adagrad_da_steps(
        tf, sess, False, initial_gradient_squared_accumulator_value=0.5, l1_regularization_strength=0.1
    )


@case
def raw_apply_adagrad_da(tf, sess):
    v = tf.Variable([[1.0, -2.0], [3.0, 0.05]])
    g = tf.Variable([[0.5, 0.2], [0.1, 0.3]])
    gg = tf.Variable([[0.5, 0.2], [0.1, 0.3]])
    sess.run(tf.global_variables_initializer())
    dense = tf.raw_ops.ApplyAdagradDA(
        var=v,
        gradient_accumulator=g,
        gradient_squared_accumulator=gg,
        grad=[[1.0, -1.0], [0.5, 2.0]],
        lr=0.5,
        l1=0.2,
        l2=0.1,
        global_step=tf.constant(4, tf.int64),
    )
    out = [sess.run(dense)]
    sparse = tf.raw_ops.SparseApplyAdagradDA(
        var=v,
        gradient_accumulator=g,
        gradient_squared_accumulator=gg,
        grad=[[1.0, -1.0]],
        indices=[1],
        lr=0.5,
        l1=0.0,
        l2=0.1,
        global_step=tf.constant(2, tf.int64),
    )
    out.append(sess.run(sparse))
    return out, sess.run([g, gg])


# --- checkpoint management --------------------------------------------------------------------------------------------


@case
def checkpoint_management_helpers(tf, sess):
    import os
    import tempfile

    d = tempfile.mkdtemp()
    v = tf.Variable(1.0, name="v")
    sess.run(v.initializer)
    saver = tf.train.Saver(max_to_keep=None)
    paths = [saver.save(sess, os.path.join(d, "m"), global_step=i) for i in (1, 2)]
    mtimes = tf.train.get_checkpoint_mtimes(paths + [os.path.join(d, "absent")])
    tf.train.remove_checkpoint(paths[0])
    remaining = tf.train.checkpoint_exists(paths[0]), tf.train.checkpoint_exists(paths[1])
    found = [os.path.basename(p) for p in tf.train.checkpoints_iterator(d, timeout=0)]
    state = tf.train.generate_checkpoint_state_proto("run", "run/m-3", ["run/m-1", "run/m-2"])
    absolute = tf.train.generate_checkpoint_state_proto("/abs/run", "/abs/run/m-3")
    tf.train.update_checkpoint_state(d, paths[1], [paths[1]])
    latest = os.path.basename(tf.train.get_checkpoint_state(d).model_checkpoint_path)
    return (
        len(mtimes),
        remaining,
        found,
        state.model_checkpoint_path,
        list(state.all_model_checkpoint_paths),
        list(absolute.all_model_checkpoint_paths),
        latest,
        tf.train.piecewise_constant_decay(5, [3], [1.0, 0.5]),
    )


@case
def assert_global_step_checks(tf, sess):
    out = []
    for value in (tf.Variable(0, name="ok"), tf.Variable(0.0, name="flt"), tf.Variable([1, 2], name="vec"), 3):
        try:
            tf.train.assert_global_step(value)
            out.append("ok")
        except TypeError:
            out.append("TypeError")
    return out


@case
def saver_def_and_vocab_info(tf, sess):
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver(max_to_keep=3)
    d = saver.as_saver_def()
    info = tf.train.VocabInfo("new.txt", 10, 1, "old.txt")
    try:
        tf.train.VocabInfo("a", 1, 0, "b", axis=2)
        bad_axis = "ok"
    except ValueError:
        bad_axis = "ValueError"
    return (
        d.max_to_keep,
        d.version == tf.train.SaverDef.V2,
        d.restore_op_name,
        d.filename_tensor_name,
        isinstance(d, tf.train.SaverDef),
        info.old_vocab_size,
        info.axis,
        bad_axis,
        str(tf.train.NanLossDuringTrainingError()),
    )


# --- MonitoredSession and hooks ------------------------------------------------------------------------------------


@case
def monitored_training_session_checkpoints_and_resumes(tf, sess):
    import os
    import tempfile

    d = tempfile.mkdtemp()
    out = []
    for hook in (tf.train.StopAtStepHook(num_steps=5), tf.train.StopAtStepHook(last_step=8)):
        with tf.Graph().as_default():
            step = tf.train.get_or_create_global_step()
            w = tf.Variable([1.0, -1.0], name="w")
            loss = tf.reduce_sum(tf.square(w - 2.0))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
            seen = []
            with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=2, hooks=[hook]) as s:
                while not s.should_stop():
                    seen.append(s.run([train, step])[1])
            out.append(seen)
    state = tf.train.get_checkpoint_state(d)
    return (
        out,
        [os.path.basename(p) for p in state.all_model_checkpoint_paths],
        tf.train.load_variable(d, "w"),
        os.path.exists(os.path.join(d, "graph.pbtxt")),
    )


@case
def hooks_see_every_stage(tf, sess):
    events = []

    class Recorder(tf.train.SessionRunHook):
        def begin(self):
            events.append("begin")

        def after_create_session(self, session, coord):
            events.append(("created", session.run("v:0"), coord.should_stop()))

        def before_run(self, run_context):
            events.append(("before", len(events)))
            return tf.train.SessionRunArgs({"double": double}, feed_dict={scale: 3.0})

        def after_run(self, run_context, run_values):
            events.append(("after", run_values.results["double"]))
            if run_values.results["double"] > 7.0:
                run_context.request_stop()

        def end(self, session):
            events.append(("end", session.run("v:0")))

    v = tf.Variable(1.0, name="v")
    scale = tf.placeholder(tf.float32, [], name="scale")
    bump = tf.assign_add(v, scale)
    double = bump * 2.0  # read after the update (a plain read of v would race with it)
    final = tf.train.FinalOpsHook(v * 10.0)
    results = []
    with tf.train.MonitoredSession(hooks=[Recorder(), final]) as s:
        while not s.should_stop():
            results.append(s.run(bump))
        stopped = s.should_stop()
    return events, results, stopped, final.final_ops_values


@case
def monitored_session_feed_hook_and_errors(tf, sess):
    out = []
    x = tf.placeholder(tf.float32, [], name="x")
    y = x * 2.0
    step = tf.train.get_or_create_global_step()
    s = tf.train.MonitoredSession(hooks=[tf.train.FeedFnHook(lambda: {x: 4.0})])
    out.append(s.run(y))
    try:
        s.run(y, feed_dict={x: 1.0})
        out.append("ok")
    except RuntimeError:
        out.append("RuntimeError")
    s.close()
    try:
        s.close()
        out.append("ok")
    except RuntimeError:
        out.append("RuntimeError")
    out.append(tf.get_default_graph().finalized)
    del step
    return out


@case
def monitored_session_swallows_out_of_range(tf, sess):
    counter = tf.Variable(0, name="counter")
    bump = tf.assign_add(counter, 1)
    n = 0
    with tf.train.MonitoredSession() as s:
        n = s.run(bump)
        raise tf.errors.OutOfRangeError(None, None, "end of input")
    return n


@case
def nan_tensor_hook(tf, sess):
    x = tf.placeholder(tf.float32, [], name="x")
    loss = tf.sqrt(x)
    out = []
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as s:
        out.append(s.run(loss, {x: 4.0}))
        s.run(loss, {x: -1.0})
        out.append(s.should_stop())
    try:
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as s:
            s.run(loss, {x: -1.0})
        out.append("ok")
    except tf.train.NanLossDuringTrainingError:
        out.append("NanLossDuringTrainingError")
    return out


@case
def hook_argument_errors(tf, sess):
    out = []

    def attempt(fn):
        try:
            fn()
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)

    attempt(lambda: tf.train.StopAtStepHook())
    attempt(lambda: tf.train.StopAtStepHook(num_steps=1, last_step=2))
    attempt(lambda: tf.train.SecondOrStepTimer())
    attempt(lambda: tf.train.SecondOrStepTimer(every_secs=1, every_steps=1))
    attempt(lambda: tf.train.LoggingTensorHook(["a"]))
    attempt(lambda: tf.train.CheckpointSaverHook("/tmp/x"))
    attempt(lambda: tf.train.StopAtStepHook(num_steps=3).begin())
    attempt(lambda: tf.train.CheckpointSaverHook("/tmp/x", save_steps=1).begin())
    return out


@case
def second_or_step_timer(tf, sess):
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    out = []
    for step in range(8):
        trigger = timer.should_trigger_for_step(step)
        if trigger:
            out.append((step, timer.update_last_triggered_step(step)[1]))
    return out, timer.last_triggered_step()


@case
def scaffold_init_fn_and_ready_check(tf, sess):
    v = tf.Variable(5.0, name="v")
    w = tf.Variable(7.0, name="w")
    calls = []

    def init_fn(scaffold, session):
        calls.append(session.run(v))

    scaffold = tf.train.Scaffold(init_fn=init_fn)
    with tf.train.SingularMonitoredSession(scaffold=scaffold) as s:
        value = s.run(v + w)
        raw = s.raw_session().run(w)
    with tf.Graph().as_default():
        tf.Variable(1.0, name="u")
        try:
            tf.train.MonitoredSession(tf.train.ChiefSessionCreator(tf.train.Scaffold(init_op=tf.no_op())))
            error = "ok"
        except RuntimeError:
            error = "RuntimeError"
    return calls, value, raw, error, scaffold.init_op.type, scaffold.ready_op.dtype


@case
def coordinator_joins_threads(tf, sess):
    import threading

    coord = tf.train.Coordinator()
    seen = []

    def worker(i):
        with coord.stop_on_exception():
            while not coord.should_stop():
                seen.append(i)
                if len(seen) > 5:
                    raise ValueError("stop now")
                coord.wait_for_stop(0.01)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    try:
        coord.join(threads)
        result = "joined"
    except ValueError as e:
        result = str(e)
    clean = tf.train.Coordinator()
    clean.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    clean.join([])
    return result, coord.should_stop(), coord.joined, clean.should_stop()


@case
def report_uninitialized_variables_names(tf, sess):
    a = tf.Variable(1.0, name="a")
    tf.Variable(2.0, name="b")
    report = tf.report_uninitialized_variables()
    before = sess.run(report)
    sess.run(a.initializer)
    return before, sess.run(report), report.shape, report.dtype


# --- gfile -----------------------------------------------------------------------------------------------------------


@case
def gfile_files_and_directories(tf, sess):
    import os
    import tempfile

    root = tempfile.mkdtemp()
    d = os.path.join(root, "a", "b")
    tf.gfile.MakeDirs(d)
    tf.gfile.MakeDirs(d)
    path = os.path.join(d, "f.txt")
    with tf.gfile.GFile(path, "w") as f:
        f.write("line one\nline two\n")
    with tf.gfile.GFile(path, "rb") as f:
        raw = f.read()
    with tf.gfile.GFile(path) as f:
        first = f.readline()
        position = f.tell()
        rest = [line for line in f]
        size = f.size()
    tf.gfile.Copy(path, os.path.join(d, "g.txt"))
    tf.gfile.Rename(os.path.join(d, "g.txt"), os.path.join(d, "h.txt"))
    listing = sorted(tf.gfile.ListDirectory(d))
    globbed = sorted(os.path.basename(p) for p in tf.gfile.Glob(os.path.join(d, "*.txt")))
    walked = [(os.path.relpath(top, root), sorted(dirs), sorted(files)) for top, dirs, files in tf.gfile.Walk(root)]
    stat = tf.gfile.Stat(path)
    tf.gfile.Remove(path)
    after_remove = tf.gfile.Exists(path)
    tf.gfile.DeleteRecursively(os.path.join(root, "a"))
    return (
        raw,
        first,
        position,
        rest,
        size,
        listing,
        globbed,
        walked,
        stat.length,
        stat.is_directory,
        tf.gfile.IsDirectory(root),
        after_remove,
        tf.gfile.Exists(os.path.join(root, "a")),
    )


@case
def gfile_errors(tf, sess):
    import os
    import tempfile

    root = tempfile.mkdtemp()
    existing = os.path.join(root, "x")
    with tf.gfile.GFile(existing, "w") as f:
        f.write("x")
    missing = os.path.join(root, "missing")
    out = []
    for fn in (
        lambda: tf.gfile.GFile(missing).read(),
        lambda: tf.gfile.Remove(missing),
        lambda: tf.gfile.ListDirectory(missing),
        lambda: tf.gfile.DeleteRecursively(missing),
        lambda: tf.gfile.Stat(missing),
        lambda: tf.gfile.MkDir(root),
        lambda: tf.gfile.Rename(existing, existing),
        lambda: tf.gfile.Copy(existing, existing),
        lambda: tf.gfile.MkDir(os.path.join(missing, "child")),
    ):
        try:
            fn()
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


@case
def io_gfile_and_write_graph(tf, sess):
    import os
    import tempfile

    root = tempfile.mkdtemp()
    tf.constant(1.0, name="c")
    path = tf.io.write_graph(sess.graph, os.path.join(root, "g"), "graph.pbtxt")
    return os.path.basename(path), tf.io.gfile.exists(path), tf.io.gfile.isdir(os.path.dirname(path))


@case
def read_write_matching_files(tf, sess):
    import os
    import tempfile

    root = tempfile.mkdtemp()
    path = os.path.join(root, "sub", "f.bin")
    write = tf.io.write_file(path, tf.constant(b"\x00bytes\xff"))
    sess.run(write)
    for name in ("b.txt", "a.txt", "c.dat"):
        with open(os.path.join(root, name), "w") as f:
            f.write(name)
    contents = tf.io.read_file(path)
    matches = tf.io.matching_files(os.path.join(root, "*.txt"))
    both = tf.io.matching_files([os.path.join(root, "*.dat"), os.path.join(root, "a*")])
    none = tf.io.matching_files(os.path.join(root, "*.none"))
    names = [os.path.basename(p) for p in sess.run(matches)]
    return (
        sess.run(contents),
        contents.shape,
        matches.shape,
        names,
        [os.path.basename(p) for p in sess.run(both)],
        sess.run(none).shape,
        write.type,
        tf.read_file(path).op.type,
    )


@case
def read_file_missing(tf, sess):
    return tf.io.read_file("/nonexistent/path/file.txt")


@case
def read_file_needs_a_scalar(tf, sess):
    return tf.io.read_file(["a", "b"])


@case
def match_filenames_once_variable(tf, sess):
    import os
    import tempfile

    root = tempfile.mkdtemp()
    for name in ("x1", "x2"):
        open(os.path.join(root, name), "w").close()
    files = tf.train.match_filenames_once(os.path.join(root, "x*"))
    sess.run(tf.local_variables_initializer())
    return [os.path.basename(p) for p in sess.run(files)], files.op.name, len(tf.local_variables())


@case
def saved_model_main_op_runs_after_restore(tf, sess):
    import os
    import tempfile

    export_dir = os.path.join(tempfile.mkdtemp(), "model")
    builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        w = tf.Variable(3.0, name="w")
        local = tf.Variable(5.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        s.run(tf.global_variables_initializer())
        builder.add_meta_graph_and_variables(s, ["serve"], main_op=tf.saved_model.main_op.main_op())
    builder.save()
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        tf.saved_model.loader.load(s, ["serve"], export_dir)
        values = s.run(["w:0", "local:0"])
    del w, local
    return values, tf.saved_model.DEBUG_DIRECTORY, tf.saved_model.DEBUG_INFO_FILENAME_PB


# --- Supervisor --------------------------------------------------------------------------------------------------------


@case
def supervisor_restores_from_logdir(tf, sess):
    import os
    import tempfile

    logdir = tempfile.mkdtemp()
    out = []
    for _ in range(2):
        with tf.Graph().as_default() as g:
            step = tf.train.get_or_create_global_step()
            w = tf.Variable([1.0, 2.0], name="w")
            train = tf.group(tf.assign_add(step, 1), tf.assign_add(w, [0.5, 0.5]))
            sv = tf.train.Supervisor(logdir=logdir, save_model_secs=0)
            finalized = g.finalized
            with sv.managed_session() as s:
                start = s.run(step)
                for _ in range(3):
                    s.run(train)
                sv.saver.save(s, sv.save_path, global_step=sv.global_step)
                out.append((start, s.run(step), s.run(w), finalized))
    return (
        out,
        os.path.basename(tf.train.latest_checkpoint(logdir)),
        os.path.exists(os.path.join(logdir, "graph.pbtxt")),
    )


@case
def supervisor_managed_session_exceptions(tf, sess):
    out = []
    v = tf.Variable(1.0, name="v")
    sv = tf.train.Supervisor(logdir=None)
    with sv.managed_session() as s:
        out.append(s.run(v))
        raise tf.errors.OutOfRangeError(None, None, "input ended")
    out.append(sv.should_stop())
    try:
        with sv.managed_session() as s:
            raise ValueError("in the loop")
    except ValueError as e:
        out.append(str(e))
    return out


@case
def basic_train_loop_until_stop(tf, sess):
    step = tf.train.get_or_create_global_step()
    bump = tf.assign_add(step, 1)
    sv = tf.train.Supervisor(logdir=None)
    seen = []

    def train_step(session, increment):
        seen.append(session.run(bump) * increment)
        if len(seen) == 4:
            sv.request_stop()

    tf.train.basic_train_loop(sv, train_step, args=[10])
    return seen


# --- op names --------------------------------------------------------------------------------------------------------


@case
def update_and_schedule_op_names(tf, sess):
    emb = tf.Variable(np.ones((4, 2), np.float32), name="emb")
    dense = tf.Variable(np.ones((2,), np.float32), name="dense")
    loss = tf.reduce_sum(tf.gather(emb, [1, 3])) + tf.reduce_sum(dense * dense)
    step = tf.train.get_or_create_global_step()
    names = []
    for opt in (
        tf.train.AdadeltaOptimizer(0.1),
        tf.train.FtrlOptimizer(0.1),
        tf.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=0.1, name="FtrlV2"),
        tf.train.ProximalGradientDescentOptimizer(0.1),
        tf.train.ProximalAdagradOptimizer(0.1),
        tf.train.AdagradDAOptimizer(0.1, step),
    ):
        train = opt.minimize(loss)
        names.append(train.name)
    updates = sorted(
        (op.name, op.type)
        for op in tf.get_default_graph().get_operations()
        if op.type.startswith(("Apply", "SparseApply"))
    )
    schedules = [
        tf.train.polynomial_decay(0.1, step, 10).name,
        tf.train.natural_exp_decay(0.1, step, 10, 0.5).op.type,
        tf.train.inverse_time_decay(0.1, step, 10, 0.5).name,
        tf.train.cosine_decay(0.1, step, 10).name,
        tf.train.cosine_decay_restarts(0.1, step, 10).name,
        tf.train.linear_cosine_decay(0.1, step, 10).name,
        tf.train.noisy_linear_cosine_decay(0.1, step, 10).name,
    ]
    ema = tf.train.ExponentialMovingAverage(0.9)
    ema_op = ema.apply([dense])
    return names, updates, schedules, ema_op.name, ema.average(dense).name


# --- TFRecord files ----------------------------------------------------------------------------------------------


_RECORDS = [b"", b"a", b"hello world", bytes(range(256)) * 5, "unicode \u00e9".encode()]


@case
def tf_record_bytes_match(tf, sess):
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
    with tf.python_io.TFRecordWriter(path) as writer:
        for r in _RECORDS:
            writer.write(r)
    with open(path, "rb") as f:
        raw = f.read()
    return np.frombuffer(raw, np.uint8), list(tf.python_io.tf_record_iterator(path)) == _RECORDS


@case
def tf_record_compressed(tf, sess):
    import gzip
    import os
    import tempfile
    import zlib

    d = tempfile.mkdtemp()
    out = []
    for kind, decompress in (("GZIP", gzip.decompress), ("ZLIB", zlib.decompress)):
        path = os.path.join(d, kind)
        options = tf.python_io.TFRecordOptions(kind)
        with tf.python_io.TFRecordWriter(path, options) as writer:
            for r in _RECORDS:
                writer.write(r)
        with open(path, "rb") as f:
            plain = decompress(f.read())
        out.append((np.frombuffer(plain, np.uint8), list(tf.python_io.tf_record_iterator(path, options)) == _RECORDS))
    out.append(tf.python_io.TFRecordOptions.get_compression_type_string(tf.python_io.TFRecordOptions("GZIP")))
    out.append(tf.python_io.TFRecordCompressionType.ZLIB)
    return out


@case
def tf_record_corruption_is_data_loss(tf, sess):
    import os
    import tempfile

    d = tempfile.mkdtemp()
    path = os.path.join(d, "data.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        writer.write(b"some payload")
        writer.write(b"another")
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    out = []
    for position in (3, 14, len(raw) - 2):
        damaged = bytearray(raw)
        damaged[position] ^= 0xFF
        bad = os.path.join(d, f"bad{position}")
        with open(bad, "wb") as f:
            f.write(bytes(damaged))
        try:
            out.append(list(tf.io.tf_record_iterator(bad)))
        except tf.errors.DataLossError:
            out.append("DataLossError")
    truncated = os.path.join(d, "truncated")
    with open(truncated, "wb") as f:
        f.write(bytes(raw[:-3]))
    try:
        out.append(list(tf.io.tf_record_iterator(truncated)))
    except tf.errors.DataLossError:
        out.append("DataLossError")
    return out


@case
def example_protos_serialize_as_tensorflow(tf, sess):
    feature = {
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, -7, 2**40])),
        "weights": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, -1.25])),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"abc", b""])),
    }
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    data = example.SerializeToString(deterministic=True)
    back = tf.train.Example.FromString(data)
    sequence = tf.train.SequenceExample(
        context=tf.train.Features(feature={"id": feature["label"]}),
        feature_lists=tf.train.FeatureLists(
            feature_list={"steps": tf.train.FeatureList(feature=[feature["weights"], feature["weights"]])}
        ),
    )
    seq_data = sequence.SerializeToString(deterministic=True)
    return (
        np.frombuffer(data, np.uint8),
        list(back.features.feature["label"].int64_list.value),
        list(back.features.feature["weights"].float_list.value),
        back.features.feature["name"].WhichOneof("kind"),
        np.frombuffer(seq_data, np.uint8),
        len(tf.train.SequenceExample.FromString(seq_data).feature_lists.feature_list["steps"].feature),
    )


# --- parsing Examples ------------------------------------------------------------------------------------------------


def _examples(tf):
    def example(label, weights, name=None):
        feature = {
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
            "weights": tf.train.Feature(float_list=tf.train.FloatList(value=weights)),
        }
        if name is not None:
            feature["name"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[name]))
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    return [example(1, [0.5, 1.5, 2.5, 3.5], b"first"), example(-4, [1.0, 2.0, 3.0, 4.0])]


@case
def parse_example_dense_features(tf, sess):
    serialized = tf.placeholder(tf.string, [None], name="serialized")
    features = {
        "label": tf.io.FixedLenFeature([], tf.int64),
        "weights": tf.io.FixedLenFeature([2, 2], tf.float32),
        "name": tf.io.FixedLenFeature([], tf.string, default_value="unnamed"),
    }
    parsed = tf.io.parse_example(serialized, features)
    values = sess.run(parsed, {serialized: _examples(tf)})
    return (
        values,
        {k: v.shape for k, v in parsed.items()},
        {k: v.dtype for k, v in parsed.items()},
        sorted(v.op.type for v in parsed.values()),
        parsed["label"].op.name,
    )


@case
def parse_single_example_dense(tf, sess):
    features = {"label": tf.FixedLenFeature([1], tf.int64), "weights": tf.FixedLenFeature([4], tf.float32)}
    parsed = tf.parse_single_example(_examples(tf)[1], features)
    return sess.run(parsed), {k: v.shape for k, v in parsed.items()}


@case
def parse_example_errors(tf, sess):
    serialized = tf.placeholder(tf.string, [None], name="serialized")
    out = []
    for features in (
        {"name": tf.io.FixedLenFeature([], tf.string)},
        {"label": tf.io.FixedLenFeature([], tf.float32)},
        {"weights": tf.io.FixedLenFeature([3], tf.float32)},
    ):
        parsed = tf.io.parse_example(serialized, features)
        try:
            sess.run(parsed, {serialized: _examples(tf)})
            out.append("ok")
        except tf.errors.InvalidArgumentError:
            out.append("InvalidArgumentError")
    for fn in (
        lambda: tf.io.parse_example(serialized, {}),
        lambda: tf.io.parse_example(serialized, {"x": tf.io.FixedLenFeature([None], tf.float32)}),
    ):
        try:
            fn()
            out.append("ok")
        except ValueError:
            out.append("ValueError")
    return out


@case
def decode_raw_values_and_errors(tf, sess):
    data = np.arange(6, dtype=np.int16).astype("<i2").tobytes()
    big = np.array([1.5, -2.25], ">f4").tobytes()
    out = [
        sess.run(tf.io.decode_raw([data, data[::-1]], tf.int16)),
        sess.run(tf.io.decode_raw(big, tf.float32, little_endian=False)),
        sess.run(tf.decode_raw(bytes=data, out_type=tf.uint8)),
        tf.io.decode_raw(tf.placeholder(tf.string, [3]), tf.float64).shape,
    ]
    for values, dtype in (([b"abcd", b"abc"], tf.uint8), ([b"abc"], tf.int32)):
        try:
            sess.run(tf.io.decode_raw(values, dtype))
            out.append("ok")
        except tf.errors.InvalidArgumentError:
            out.append("InvalidArgumentError")
    return out
