"""tw.keras.optimizers against tf_keras's (legacy, TF1 graph-mode) optimizers: values after several steps,
dense and sparse (IndexedSlices) gradients, hyperparameter variables, schedules, get/config and errors."""

import numpy as np
import pytest
import tensorweave as tw

K = tw.keras.backend
opts = tw.keras.optimizers

W0 = np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25]], np.float32)
E0 = np.arange(10, dtype=np.float32).reshape(5, 2) / 7 - 0.6
IDS = np.array([0, 2, 2, 4], np.int32)  # a repeated row: its gradient rows are summed


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _train(lib, graph, session, optimizers, name, kwargs, steps=5):
    """Takes `steps` steps on a dense variable and an embedding (sparse gradient); returns all values."""
    with graph().as_default():
        extra = {} if lib is tw else {"use_resource": True}  # tf_keras's optimizers update resource variables
        w = lib.Variable(W0, name="w", **extra)
        e = lib.Variable(E0, name="e", **extra)
        loss = lib.reduce_sum(w * w * w) + lib.reduce_sum(lib.square(lib.gather(e, IDS)) * 2.0)
        loss_all_rows = lib.reduce_sum(w * w) + lib.reduce_sum(lib.square(lib.gather(e, [4, 3, 2, 1, 0])))
        opt = getattr(optimizers, name)(**kwargs)
        op = opt.get_updates(loss, [w, e])[0]
        op_all_rows = opt.get_updates(loss_all_rows, [w, e])[0]
        with session() as sess:
            sess.run(lib.global_variables_initializer())
            sess.run(op_all_rows)  # every row gets state, so that rows a sparse step skips show what it does
            for _ in range(steps):
                sess.run(op)
            return sess.run([w, e] + opt.variables()), [v.name for v in opt.variables()]


CONFIGS = [
    ("SGD", {}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"learning_rate": 0.1}),
    ("Adam", {"learning_rate": 0.1, "amsgrad": True}),
    ("RMSprop", {"learning_rate": 0.1}),
    ("RMSprop", {"learning_rate": 0.1, "momentum": 0.5}),
    ("RMSprop", {"learning_rate": 0.1, "centered": True}),
    ("RMSprop", {"learning_rate": 0.1, "momentum": 0.5, "centered": True}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("Adadelta", {"learning_rate": 1.0}),
    ("Adamax", {"learning_rate": 0.1}),
    ("Nadam", {"learning_rate": 0.1}),
    ("Ftrl", {"learning_rate": 0.1}),
    (
        "Ftrl",
        {
            "learning_rate": 0.1,
            "l1_regularization_strength": 0.01,
            "l2_regularization_strength": 0.1,
            "learning_rate_power": -0.7,
        },
    ),
    ("Ftrl", {"learning_rate": 0.1, "l2_shrinkage_regularization_strength": 0.05, "beta": 0.3}),
    ("SGD", {"learning_rate": 0.1, "clipnorm": 0.5}),
    ("Adam", {"learning_rate": 0.1, "clipvalue": 0.3}),
    ("RMSprop", {"learning_rate": 0.1, "global_clipnorm": 0.5}),
    ("SGD", {"learning_rate": 0.1, "decay": 0.1}),
    ("Adam", {"lr": 0.05}),
]


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{sorted(k)}" for n, k in CONFIGS])
def test_steps_match_tf_keras(name, kwargs):
    tf1, tf_keras = _tf_keras()
    ours, our_names = _train(tw, tw.Graph, tw.Session, opts, name, kwargs)
    theirs, their_names = _train(tf1, tf1.Graph, tf1.Session, tf_keras.optimizers.legacy, name, kwargs)
    assert our_names == their_names  # iter, then the slots: "Adam/w/m:0", ...
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_iterations_and_hyperparameter_variables():
    with tw.Graph().as_default(), tw.Session().as_default() as sess:
        w = tw.Variable([1.0, 2.0], name="w")
        opt = opts.SGD(learning_rate=0.1)
        assert opt.lr.dtype.base_dtype == tw.float32
        np.testing.assert_allclose(K.get_value(opt.lr), 0.1)
        train = opt.minimize(lambda: tw.reduce_sum(w * w), [w])
        assert opt.iterations.dtype.base_dtype == tw.int64
        sess.run(tw.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.8, 1.6], rtol=1e-6)
        K.set_value(opt.lr, 0.5)
        opt.learning_rate = 0.5  # the attribute assigns the variable too
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.0, 0.0], atol=1e-6)
        assert sess.run(opt.iterations) == 2
        assert opt.get_config()["learning_rate"] == pytest.approx(0.5)


def test_minimize_tensor_loss_and_apply_gradients():
    with tw.Graph().as_default(), tw.Session() as sess:
        w = tw.Variable([1.0, -1.0], name="w")
        opt = opts.Adam(0.1)
        step = opt.minimize(tw.reduce_sum(tw.square(w)), var_list=[w])
        assert isinstance(step, tw.Operation)
        g = opts.SGD(1.0).apply_gradients([(tw.constant([1.0, 1.0]), w)])
        sess.run(tw.global_variables_initializer())
        sess.run(step)
        np.testing.assert_allclose(sess.run(w), [0.9, -0.9], rtol=1e-5)
        sess.run(g)
        np.testing.assert_allclose(sess.run(w), [-0.1, -1.9], rtol=1e-5)


def test_no_gradients_is_a_value_error():
    with tw.Graph().as_default():
        w = tw.Variable([1.0], name="w")
        v = tw.Variable([1.0], name="v")
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            opts.SGD().minimize(tw.reduce_sum(w), [v])
        with pytest.raises(ValueError, match="has `None` for gradient"):
            opts.SGD().get_updates(tw.reduce_sum(w), [v])


SCHEDULES = [
    ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5}),
    ("ExponentialDecay", {"initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5, "staircase": True}),
    ("InverseTimeDecay", {"initial_learning_rate": 0.1, "decay_steps": 2, "decay_rate": 0.5, "staircase": True}),
    ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 4, "end_learning_rate": 0.01, "power": 2.0}),
    ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 3, "cycle": True}),
    ("PiecewiseConstantDecay", {"boundaries": [2, 5], "values": [0.1, 0.05, 0.01]}),
    ("CosineDecay", {"initial_learning_rate": 0.1, "decay_steps": 5, "alpha": 0.1}),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULES)
def test_schedules_match_tf_keras(name, kwargs):
    tf1, tf_keras = _tf_keras()
    steps = [0, 1, 2, 3, 5, 7]
    with tw.Graph().as_default(), tw.Session() as sess:
        sched = getattr(opts.schedules, name)(**kwargs)
        ours = sess.run([sched(s) for s in steps])
        config = opts.schedules.serialize(sched)
        again = opts.schedules.deserialize(config)
        assert again.get_config() == sched.get_config()
    with tf1.Graph().as_default(), tf1.Session() as sess:
        sched = getattr(tf_keras.optimizers.schedules, name)(**kwargs)
        theirs = sess.run([sched(s) for s in steps])
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_optimizer_with_schedule_matches_tf_keras():
    tf1, tf_keras = _tf_keras()
    kw = {"initial_learning_rate": 0.2, "decay_steps": 2, "decay_rate": 0.5}
    ours, _ = _train(tw, tw.Graph, tw.Session, opts, "SGD", {"learning_rate": opts.schedules.ExponentialDecay(**kw)})
    sched = tf_keras.optimizers.schedules.ExponentialDecay(**kw)
    theirs, _ = _train(tf1, tf1.Graph, tf1.Session, tf_keras.optimizers.legacy, "SGD", {"learning_rate": sched})
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_get_serialize_deserialize():
    assert isinstance(opts.get("adam"), opts.Adam)
    assert isinstance(opts.get("RMSprop"), opts.RMSprop)
    sgd = opts.SGD(0.3, momentum=0.5)
    assert opts.get(sgd) is sgd
    config = opts.serialize(opts.Adam(0.01, beta_1=0.8, clipnorm=1.0))
    assert config["class_name"] == "Adam"
    assert config["config"] == {
        "name": "Adam",
        "clipnorm": 1.0,
        "learning_rate": 0.01,
        "decay": 0.0,
        "beta_1": 0.8,
        "beta_2": 0.999,
        "epsilon": 1e-07,
        "amsgrad": False,
    }
    again = opts.get(config)
    assert isinstance(again, opts.Adam) and again.get_config() == config["config"]
    sched = opts.schedules.PolynomialDecay(0.1, 10)
    config = opts.SGD(learning_rate=sched).get_config()
    assert config["learning_rate"]["class_name"] == "PolynomialDecay"
    assert isinstance(opts.SGD.from_config(config)._hyper["learning_rate"], opts.schedules.PolynomialDecay)


def test_config_matches_tf_keras():
    _, tf_keras = _tf_keras()
    for name, kwargs in CONFIGS[:16]:
        ours = getattr(opts, name)(**kwargs).get_config()
        theirs = getattr(tf_keras.optimizers.legacy, name)(**kwargs).get_config()
        assert ours.keys() == theirs.keys(), name
        for k in ours:
            assert ours[k] == pytest.approx(theirs[k]), (name, k)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Unknown optimizer: 'foo'"):
        opts.get("foo")
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: 42"):
        opts.get(42)
    with pytest.raises(TypeError, match="Unexpected keyword argument passed to optimizer: foo"):
        opts.SGD(foo=1)
    with pytest.raises(ValueError, match="`momentum` must be between"):
        opts.SGD(momentum=1.5)
    with pytest.raises(ValueError, match="Expected clipnorm >= 0"):
        opts.Adam(clipnorm=-1.0)
    with pytest.raises(ValueError, match="Cannot accept both `clipnorm` and `global_clipnorm`"):
        opts.Adam(clipnorm=1.0, global_clipnorm=1.0)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        opts.Adagrad(initial_accumulator_value=-1.0)
    with pytest.raises(ValueError, match="`learning_rate_power` needs to be negative or zero"):
        opts.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="does not support"):
        opts.Nadam(learning_rate=opts.schedules.ExponentialDecay(0.1, 2, 0.5))
    with pytest.raises(ValueError, match="The length of boundaries should be 1 less"):
        opts.schedules.PiecewiseConstantDecay([1, 2], [0.1])


def test_get_and_set_weights_and_slots():
    with tw.Graph().as_default(), tw.Session().as_default() as sess:
        w = tw.Variable([1.0, 2.0], name="w")
        opt = opts.RMSprop(0.1, momentum=0.5)
        step = opt.minimize(tw.reduce_sum(w * w), [w])
        assert opt.get_slot_names() == ["rms", "momentum"]
        assert opt.get_slot(w, "rms").name == "RMSprop/w/rms:0"
        sess.run(tw.global_variables_initializer())
        sess.run(step)
        weights = opt.get_weights()
        assert [np.shape(x) for x in weights] == [(), (2,), (2,)] and weights[0] == 1
        opt.set_weights([np.int64(7), np.array([1.0, 1.0], np.float32), np.zeros(2, np.float32)])
        assert sess.run(opt.iterations) == 7
        np.testing.assert_array_equal(sess.run(opt.get_slot(w, "rms")), [1.0, 1.0])
        with pytest.raises(ValueError, match="expecting 3 weights"):
            opt.set_weights([np.int64(1)])
    assert tw.keras.optimizers.legacy.Adam is opts.Adam
    assert tw.keras.losses.Reduction.SUM_OVER_BATCH_SIZE == "sum_over_batch_size"


def test_tf1_optimizer_is_wrapped_in_tf_optimizer():
    with tw.Graph().as_default(), tw.Session().as_default() as sess:
        w = tw.Variable([1.0, 2.0], name="w")
        opt = opts.get(tw.train.GradientDescentOptimizer(0.25))
        assert isinstance(opt, opts.TFOptimizer) and opts.get(opt) is opt
        updates = opt.get_updates(tw.reduce_sum(w * w), [w])
        sess.run(tw.global_variables_initializer())
        sess.run(updates)
        sess.run(updates)
        np.testing.assert_allclose(sess.run(w), [0.25, 0.5])
        assert sess.run(opt.iterations) == 2
    with pytest.raises(TypeError, match="Invalid keyword arguments"):
        opts.get("adam", foo=1)


def test_tf1_training_loop_matches_tf_keras():
    """Dense layers + a Loss object + an optimizer + a metric, three steps, same initial weights."""
    tf1, tf_keras = _tf_keras()
    rng = np.random.RandomState(0)
    x = rng.randn(8, 4).astype(np.float32)
    y = rng.randint(0, 3, 8)

    def run(lib, keras, weights=None):
        with lib.Graph().as_default(), lib.Session() as sess:
            inputs = lib.placeholder(lib.float32, [None, 4])
            labels = lib.placeholder(lib.int64, [None])
            hidden = keras.layers.Dense(5, activation="relu")(inputs)
            probs = keras.layers.Dense(3, activation="softmax")(hidden)
            loss = keras.losses.SparseCategoricalCrossentropy()(labels, probs)
            params = lib.trainable_variables()
            optimizer = getattr(keras.optimizers, "legacy", keras.optimizers).Adam(0.05)
            train = optimizer.get_updates(loss, params)
            accuracy = keras.metrics.SparseCategoricalAccuracy()
            update_accuracy = accuracy.update_state(labels, probs)
            sess.run(lib.global_variables_initializer())
            sess.run(lib.variables_initializer(accuracy.variables))
            if weights is not None:
                for v, w in zip(params, weights):
                    v.load(w, sess)
            start = sess.run(params)
            losses = []
            for _ in range(3):
                losses.append(sess.run([loss, train, update_accuracy], {inputs: x, labels: y})[0])
            return start, losses, sess.run(params), sess.run(accuracy.result())

    start, our_losses, our_params, our_accuracy = run(tw, tw.keras)
    _, their_losses, their_params, their_accuracy = run(tf1, tf_keras, weights=start)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-5)
    for a, b in zip(our_params, their_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert our_accuracy == pytest.approx(their_accuracy)
