"""tw.keras functional and subclassed models against tf_keras 2 in TF1 graph mode: structure, summary, training
(same initial weights, SGD), predictions, errors."""

import numpy as np
import pytest
import tensorweave as tw

RNG = np.random.RandomState(0)
XA = RNG.randn(40, 4).astype(np.float32)
XB = RNG.randn(40, 2).astype(np.float32)
Y1 = (XA[:, :1] - XB[:, :1]).astype(np.float32)
Y2 = (XA[:, 0] > 0).astype(np.int64) + (XB[:, 0] > 0).astype(np.int64)


def _oracle():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _two_io(keras):
    a = keras.Input((4,), name="a")
    b = keras.Input((2,), name="b")
    h = keras.layers.Dense(5, activation="tanh", name="hidden")(a)
    c = keras.layers.concatenate([h, b], name="concat")
    reg = keras.layers.Dense(1, name="reg")(c)
    cls = keras.layers.Dense(3, activation="softmax", name="cls")(c)
    return keras.Model([a, b], [reg, cls], name="two_io")


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def test_functional_structure_and_summary_match_tf_keras():
    tf1, tf_keras = _oracle()
    with tw.Graph().as_default(), tw.Session().as_default():
        m = _two_io(tw.keras)
        ours = ([layer.name for layer in m.layers], m.input_names, m.output_names, m.count_params(), _summary(m))
        assert m.get_layer("hidden") is m.layers[1] and m.get_layer(index=0).name == "a"
        assert [t.name for t in m.inputs] == ["a:0", "b:0"]
        assert m.output_shape == [(None, 1), (None, 3)]
        assert [w.name for w in m.weights] == [
            "hidden/kernel:0",
            "hidden/bias:0",
            "reg/kernel:0",
            "reg/bias:0",
            "cls/kernel:0",
            "cls/bias:0",
        ]
    with tf1.Graph().as_default(), tf1.Session().as_default():
        m = _two_io(tf_keras)
        theirs = ([layer.name for layer in m.layers], m.input_names, m.output_names, m.count_params(), _summary(m))
    assert ours[:4] == theirs[:4]
    assert ours[4] == theirs[4]


def test_sequential_summary_and_config_names_match_tf_keras():
    tf1, tf_keras = _oracle()

    def build(keras):
        return keras.Sequential(
            [keras.layers.Dense(8, activation="relu", input_shape=(4,)), keras.layers.Dense(2)], name="seq"
        )

    with tw.Graph().as_default(), tw.Session().as_default():
        m = build(tw.keras)
        ours = (_summary(m), [layer.name for layer in m.layers], m.input_names, m.inputs[0].name)
    with tf1.Graph().as_default(), tf1.Session().as_default():
        m = build(tf_keras)
        theirs = (_summary(m), [layer.name for layer in m.layers], m.input_names, m.inputs[0].name)
    assert ours == theirs


def test_functional_fit_history_and_predictions_match_tf_keras():
    tf1, tf_keras = _oracle()
    kwargs = {"batch_size": 8, "epochs": 2, "verbose": 0, "shuffle": False, "validation_split": 0.25}
    with tw.Graph().as_default(), tw.Session().as_default():
        m = _two_io(tw.keras)
        m.compile(
            tw.keras.optimizers.SGD(0.05),
            ["mse", "sparse_categorical_crossentropy"],
            metrics=["accuracy"],
            loss_weights=[1.0, 0.5],
        )
        weights = m.get_weights()
        ours = m.fit([XA, XB], [Y1, Y2], **kwargs)
        our_eval = m.evaluate({"a": XA, "b": XB}, {"reg": Y1, "cls": Y2}, verbose=0)
        our_pred = m.predict([XA[:7], XB[:7]], batch_size=3)
        our_names = m.metrics_names
    with tf1.Graph().as_default(), tf1.Session().as_default():
        m = _two_io(tf_keras)
        m.compile(
            tf_keras.optimizers.legacy.SGD(0.05),
            ["mse", "sparse_categorical_crossentropy"],
            metrics=["accuracy"],
            loss_weights=[1.0, 0.5],
        )
        m.set_weights(weights)
        theirs = m.fit([XA, XB], [Y1, Y2], **kwargs)
        their_eval = m.evaluate({"a": XA, "b": XB}, {"reg": Y1, "cls": Y2}, verbose=0)
        their_pred = m.predict([XA[:7], XB[:7]], batch_size=3)
        their_names = m.metrics_names
    assert our_names == their_names
    assert list(ours.history) == list(theirs.history)
    for key in theirs.history:
        if key in ("val_reg_loss", "val_cls_loss"):
            continue  # tf_keras's v1 loop mixes its stateful per-output loss means into these
        np.testing.assert_allclose(ours.history[key], theirs.history[key], rtol=1e-5, atol=1e-5, err_msg=key)
    np.testing.assert_allclose(our_eval, their_eval, rtol=1e-5, atol=1e-5)
    for a, b in zip(our_pred, their_pred):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_sample_and_class_weights_and_batch_methods_match_tf_keras():
    tf1, tf_keras = _oracle()
    x = XA
    y = (XA[:, 0] > 0).astype(np.float32)[:, None]
    sw = np.linspace(0.5, 2.0, len(x)).astype(np.float32)

    def run(keras, opt, sess_run):
        m = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(4,))])
        m.compile(opt, "binary_crossentropy", metrics=["acc"], weighted_metrics=["acc"])
        m.set_weights([np.full((4, 1), 0.1, np.float32), np.zeros(1, np.float32)])
        h = m.fit(x, y, batch_size=10, epochs=1, verbose=0, shuffle=False, sample_weight=sw)
        h2 = m.fit(x, y, batch_size=10, epochs=1, verbose=0, shuffle=False, class_weight={0: 1.0, 1: 3.0})
        m = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(4,))])
        m.compile(opt, "binary_crossentropy", metrics=["acc"])
        m.set_weights([np.full((4, 1), 0.1, np.float32), np.zeros(1, np.float32)])
        tob = m.train_on_batch(x[:6], y[:6])
        teb = m.test_on_batch(x[:6], y[:6], sample_weight=sw[:6])
        pob = m.predict_on_batch(x[:3])
        return h.history, h2.history, tob, teb, pob

    with tw.Graph().as_default(), tw.Session().as_default():
        ours = run(tw.keras, tw.keras.optimizers.SGD(0.1), None)
    with tf1.Graph().as_default(), tf1.Session().as_default():
        theirs = run(tf_keras, tf_keras.optimizers.legacy.SGD(0.1), None)
    for a, b in zip(ours[:2], theirs[:2]):
        assert list(a) == list(b)
        for key in b:
            np.testing.assert_allclose(a[key], b[key], rtol=1e-5, atol=1e-6, err_msg=key)
    for a, b in zip(ours[2:], theirs[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_calling_a_model_on_new_tensors_shares_weights():
    with tw.Graph().as_default(), tw.Session().as_default() as sess:
        m = _two_io(tw.keras)
        n_vars = len(tw.global_variables())
        a2 = tw.placeholder(tw.float32, [None, 4])
        b2 = tw.keras.Input((2,))
        reg2, cls2 = m([a2, b2])
        assert len(tw.global_variables()) == n_vars
        sess.run(tw.global_variables_initializer())
        want = m.predict([XA[:5], XB[:5]])
        got = sess.run([reg2, cls2], {a2: XA[:5], b2: XB[:5]})
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        # A model used as a layer of another model.
        x = tw.keras.Input((4,))
        y = tw.keras.Input((2,))
        nested = tw.keras.Model([x, y], tw.keras.layers.Dense(1, name="head")(m([x, y])[1]))
        assert [layer.name for layer in nested.layers][-2:] == ["two_io", "head"]
        assert nested.count_params() == m.count_params() + 4


def test_shared_layer_and_nested_sequential():
    tf1, tf_keras = _oracle()

    def build(keras):
        inner = keras.Sequential([keras.layers.Dense(3, activation="relu", input_shape=(4,))], name="inner")
        shared = keras.layers.Dense(2, name="shared")
        a = keras.Input((4,), name="in_a")
        b = keras.Input((4,), name="in_b")
        out = keras.layers.add([shared(inner(a)), shared(inner(b))], name="sum")
        return keras.Model([a, b], out, name="siamese")

    with tw.Graph().as_default(), tw.Session().as_default():
        m = build(tw.keras)
        weights = m.get_weights()
        ours = (_summary(m), m.predict([XA[:5], XA[5:10]]))
        assert len(m.trainable_weights) == 4
    with tf1.Graph().as_default(), tf1.Session().as_default():
        m = build(tf_keras)
        m.set_weights(weights)
        theirs = (_summary(m), m.predict([XA[:5], XA[5:10]]))
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)


class _Block(tw.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(int(input_shape[-1]), self.units), initializer="ones")
        self.b = self.add_weight("b", shape=(self.units,), initializer="zeros", trainable=False)

    def call(self, inputs):
        return tw.matmul(inputs, self.w) + self.b

    def get_config(self):
        return dict(super().get_config(), units=self.units)


class _Net(tw.keras.Model):
    def __init__(self):
        super().__init__(name="net")
        self.blocks = [tw.keras.layers.Dense(6, activation="tanh"), _Block(3)]
        self.out = tw.keras.layers.Dense(1)

    def call(self, inputs, training=None):
        x = inputs
        for block in self.blocks:
            x = block(x)
        return self.out(x)


def test_subclassed_model_tracks_layers_and_trains_like_tf_keras():
    tf1, tf_keras = _oracle()

    class TkBlock(tf_keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(int(input_shape[-1]), self.units), initializer="ones")
            self.b = self.add_weight("b", shape=(self.units,), initializer="zeros", trainable=False)

        def call(self, inputs):
            return tf1.matmul(inputs, self.w) + self.b

    class TkNet(tf_keras.Model):
        def __init__(self):
            super().__init__(name="net")
            self.blocks = [tf_keras.layers.Dense(6, activation="tanh"), TkBlock(3)]
            self.out = tf_keras.layers.Dense(1)

        def call(self, inputs, training=None):
            x = inputs
            for block in self.blocks:
                x = block(x)
            return self.out(x)

    with tw.Graph().as_default(), tw.Session().as_default():
        m = _Net()
        m.compile(tw.keras.optimizers.SGD(0.01), "mse")
        m.predict(XA[:1])
        assert len(m.layers) == 3 and m.layers[2] is m.out
        assert len(m.trainable_weights) == 5 and len(m.non_trainable_weights) == 1
        assert m.weights[0].name == "net/dense/kernel:0"
        init = m.get_weights()
        h = m.fit(XA, Y1, batch_size=10, epochs=2, verbose=0, shuffle=False).history
        pred = m.predict(XA[:4])
    with tf1.Graph().as_default(), tf1.Session().as_default():
        t = TkNet()
        t.compile(tf_keras.optimizers.legacy.SGD(0.01), "mse")
        t.predict(XA[:1])
        t.set_weights(init)
        theirs = t.fit(XA, Y1, batch_size=10, epochs=2, verbose=0, shuffle=False).history
        their_pred = t.predict(XA[:4])
    np.testing.assert_allclose(h["loss"], theirs["loss"], rtol=1e-5)
    np.testing.assert_allclose(pred, their_pred, rtol=1e-5, atol=1e-6)


def test_custom_layer_weights_config_and_regularization_loss():
    with tw.Graph().as_default(), tw.Session().as_default():
        x = tw.keras.Input((4,))
        block = _Block(2, name="blk")
        y = block(x)
        assert [w.name for w in block.weights] == ["blk/w:0", "blk/b:0"]
        assert [w.name for w in block.trainable_weights] == ["blk/w:0"]
        assert block.get_config()["units"] == 2 and block.get_config()["name"] == "blk"
        np.testing.assert_allclose(block.get_weights()[0], np.ones((4, 2)))
        m = tw.keras.Model(x, y)
        np.testing.assert_allclose(m.predict(XA[:3]), XA[:3].sum(1, keepdims=True).repeat(2, 1), rtol=1e-6)

        reg = tw.keras.layers.Dense(1, kernel_regularizer=lambda w: 0.5 * tw.reduce_sum(tw.square(w)))
        m2 = tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(4,), use_bias=False), reg])
        assert len(m2.losses) == 1
        m2.compile("sgd", "mse")
        m2.set_weights([np.ones((4, 1), np.float32), np.full((1, 1), 2.0, np.float32), np.zeros(1, np.float32)])
        got = m2.evaluate(XA, Y1, verbose=0)
        want = np.mean((XA.sum(1, keepdims=True) * 2.0 - Y1) ** 2) + 0.5 * 4.0
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_errors_name_what_was_wrong():
    with tw.Graph().as_default(), tw.Session().as_default():
        m = _two_io(tw.keras)
        m.compile("sgd", ["mse", "sparse_categorical_crossentropy"])
        with pytest.raises(ValueError, match=r"expected a to have shape \(4,\) but got array with shape \(3,\)"):
            m.fit([XA[:, :3], XB], [Y1, Y2], verbose=0)
        with pytest.raises(ValueError, match="expected b to have 2 dimensions"):
            m.predict([XA, XB[:, :, None]])
        with pytest.raises(ValueError, match="Found 40 input samples and 39 target samples"):
            m.fit([XA, XB], [Y1[:39], Y2[:39]], verbose=0)
        with pytest.raises(ValueError, match="Expected to see 2 array"):
            m.fit([XA, XB], [Y1], verbose=0)
        with pytest.raises(ValueError, match="No such layer: nope"):
            m.get_layer("nope")
        with pytest.raises(ValueError, match="Unknown loss function"):
            m.compile("sgd", "nope")
        with pytest.raises(ValueError, match="Unknown entries in loss dictionary"):
            m.compile("sgd", {"regg": "mse"})
        a = tw.keras.Input((4,))
        b = tw.keras.Input((4,))
        out = tw.keras.layers.Dense(1)(tw.keras.layers.add([a, b]))
        with pytest.raises(ValueError, match="Graph disconnected"):
            tw.keras.Model(a, out)
        with pytest.raises(RuntimeError, match="must compile your model"):
            tw.keras.Model([a, b], out).fit([XA, XA], Y1, verbose=0)


def test_batch_norm_updates_and_dropout_phase_in_fit_match_tf_keras():
    tf1, tf_keras = _oracle()

    def run(keras, opt):
        m = keras.Sequential(
            [
                keras.layers.Dense(6, input_shape=(4,)),
                keras.layers.BatchNormalization(),
                keras.layers.Dropout(0.0),
                keras.layers.Dense(1),
            ]
        )
        m.compile(opt, "mse")
        m.set_weights(weights)
        h = m.fit(XA, Y1, batch_size=10, epochs=2, verbose=0, shuffle=False)
        return h.history["loss"], m.get_weights(), m.predict(XA[:5]), len(m.non_trainable_weights)

    rng = np.random.RandomState(1)
    weights = [
        rng.randn(4, 6).astype(np.float32),
        np.zeros(6, np.float32),
        np.ones(6, np.float32),
        np.zeros(6, np.float32),
        np.zeros(6, np.float32),
        np.ones(6, np.float32),
        rng.randn(6, 1).astype(np.float32),
        np.zeros(1, np.float32),
    ]
    with tw.Graph().as_default(), tw.Session().as_default():
        ours = run(tw.keras, tw.keras.optimizers.SGD(0.05))
    with tf1.Graph().as_default(), tf1.Session().as_default():
        theirs = run(tf_keras, tf_keras.optimizers.legacy.SGD(0.05))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):  # moving mean/variance moved as tf_keras's
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-4, atol=1e-5)
    assert ours[3] == theirs[3] == 2


def test_h5_weights_and_models_round_trip_and_interoperate_with_tf_keras(tmp_path):
    tf1, tf_keras = _oracle()
    with tw.Graph().as_default(), tw.Session().as_default():
        m = _two_io(tw.keras)
        m.compile(tw.keras.optimizers.Adam(0.01), ["mse", "sparse_categorical_crossentropy"], metrics=["acc"])
        m.fit([XA, XB], [Y1, Y2], epochs=1, verbose=0)
        want = m.predict([XA, XB])
        m.save(str(tmp_path / "ours.h5"))
        m.save_weights(str(tmp_path / "ours_w.h5"))
        m.save_weights(str(tmp_path / "ckpt" / "w"))
        config_json = m.to_json()
        seq = tw.keras.Sequential(
            [tw.keras.layers.Dense(3, activation="relu", input_shape=(4,)), tw.keras.layers.Dense(1)]
        )
        seq.compile("sgd", "mse")
        seq_want = seq.predict(XA)
        seq.save(str(tmp_path / "seq.h5"))
    with tw.Graph().as_default(), tw.Session().as_default():
        loaded = tw.keras.models.load_model(str(tmp_path / "ours.h5"))
        assert [layer.name for layer in loaded.layers] == ["a", "hidden", "b", "concat", "reg", "cls"]
        assert loaded.loss == ["mse", "sparse_categorical_crossentropy"]
        for a, b in zip(loaded.predict([XA, XB]), want):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        loaded.fit([XA, XB], [Y1, Y2], epochs=1, verbose=0)  # compiled from the saved training config
    for weights_file in ("ours_w.h5", "ckpt/w"):
        with tw.Graph().as_default(), tw.Session().as_default():
            fresh = tw.keras.models.model_from_json(config_json)
            fresh.load_weights(str(tmp_path / weights_file))
            for a, b in zip(fresh.predict([XA, XB]), want):
                np.testing.assert_allclose(a, b, rtol=1e-6)
    with tf1.Graph().as_default(), tf1.Session().as_default():
        theirs = tf_keras.models.load_model(str(tmp_path / "seq.h5"))  # tf_keras reads our model file
        np.testing.assert_allclose(theirs.predict(XA), seq_want, rtol=1e-5, atol=1e-6)
        t = _two_io(tf_keras)
        t.save_weights(str(tmp_path / "theirs_w.h5"))
        their_pred = t.predict([XA, XB])
    with tw.Graph().as_default(), tw.Session().as_default():
        m = _two_io(tw.keras)
        m.load_weights(str(tmp_path / "theirs_w.h5"))  # a tf_keras weights file
        for a, b in zip(m.predict([XA, XB]), their_pred):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        small = tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(4,))])
        with pytest.raises(ValueError, match="Layer count mismatch when loading weights from file. Model expected 1"):
            small.load_weights(str(tmp_path / "theirs_w.h5"))
        with pytest.raises(OSError, match="No file or directory found"):
            tw.keras.models.load_model(str(tmp_path / "missing.h5"))
        with pytest.raises(ValueError, match="Unknown layer: 'Mystery'"):
            tw.keras.models.model_from_json('{"class_name": "Mystery", "config": {}}')


def test_sequential_config_round_trip_and_clone():
    with tw.Graph().as_default(), tw.Session().as_default():
        seq = tw.keras.Sequential(
            [tw.keras.layers.Dense(4, activation="tanh", input_shape=(4,)), tw.keras.layers.Dense(2)], name="s"
        )
        config = seq.get_config()
        assert config["name"] == "s"
        assert [c["class_name"] for c in config["layers"]] == ["InputLayer", "Dense", "Dense"]
        assert config["layers"][0]["config"]["batch_input_shape"] == (None, 4)
        clone = tw.keras.models.clone_model(seq)
        assert clone.count_params() == seq.count_params() == 30
        assert clone.output_shape == (None, 2)
        clone.set_weights(seq.get_weights())
        np.testing.assert_allclose(clone.predict(XA), seq.predict(XA), rtol=1e-6)


def test_fit_generator_and_sequence_match_tf_keras():
    tf1, tf_keras = _oracle()
    x, y = XA[:24], Y1[:24]

    def gen():
        while True:
            for i in range(0, 24, 8):
                yield x[i : i + 8], y[i : i + 8]

    def run(keras, opt):
        class Batches(keras.utils.Sequence):
            def __len__(self):
                return 3

            def __getitem__(self, i):
                return x[i * 8 : (i + 1) * 8], y[i * 8 : (i + 1) * 8]

        m = keras.Sequential([keras.layers.Dense(1, input_shape=(4,))])
        m.compile(opt, "mse", metrics=["mae"])
        m.set_weights([np.full((4, 1), 0.2, np.float32), np.zeros(1, np.float32)])
        h1 = m.fit_generator(gen(), steps_per_epoch=3, epochs=2, verbose=0, validation_data=(XA[24:], Y1[24:]))
        h2 = m.fit(Batches(), epochs=2, verbose=0, shuffle=False)
        ev = m.evaluate_generator(Batches())
        pred = m.predict_generator(Batches())
        return h1.history, h2.history, ev, pred

    with tw.Graph().as_default(), tw.Session().as_default():
        ours = run(tw.keras, tw.keras.optimizers.SGD(0.05))
        with pytest.raises(ValueError, match="only valid for a generator based on the `keras.utils.Sequence`"):
            tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(4,))]).fit_generator(gen())
    with tf1.Graph().as_default(), tf1.Session().as_default():
        theirs = run(tf_keras, tf_keras.optimizers.legacy.SGD(0.05))
    for a, b in zip(ours[:2], theirs[:2]):
        assert list(a) == list(b)
        for key in b:
            np.testing.assert_allclose(a[key], b[key], rtol=1e-5, atol=1e-6, err_msg=key)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5, atol=1e-6)


def test_fit_evaluate_predict_on_tw_data_datasets_match_numpy_batches():
    with tw.Graph().as_default(), tw.Session().as_default():
        m = tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(4,))])
        m.compile(tw.keras.optimizers.SGD(0.05), "mse")
        w0 = [np.full((4, 1), 0.2, np.float32), np.zeros(1, np.float32)]
        m.set_weights(w0)
        want = m.fit(XA, Y1, batch_size=8, epochs=2, verbose=0, shuffle=False).history["loss"]
        want_eval = m.evaluate(XA, Y1, batch_size=8, verbose=0)
        want_pred = m.predict(XA)
        m.set_weights(w0)
        ds = tw.data.Dataset.from_tensor_slices((XA, Y1)).batch(8)
        got = m.fit(ds, epochs=2, verbose=0).history["loss"]  # each epoch goes through the dataset once
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(m.evaluate(ds, verbose=0), want_eval, rtol=1e-6)
        np.testing.assert_allclose(m.predict(tw.data.Dataset.from_tensor_slices(XA).batch(7)), want_pred, rtol=1e-6)
        m.set_weights(w0)
        repeated = tw.data.Dataset.from_tensor_slices((XA, Y1)).batch(8).repeat()
        got = m.fit(repeated, steps_per_epoch=5, epochs=2, verbose=0).history["loss"]
        np.testing.assert_allclose(got, want, rtol=1e-6)
        with pytest.raises(ValueError, match="`y` argument is not supported when using dataset as input"):
            m.fit(ds, Y1, verbose=0)


def test_subclassed_summary_weight_names_and_metrics_names_after_compile():
    tf1, tf_keras = _oracle()

    def run(keras):
        class Net(keras.Model):
            def __init__(self):
                super().__init__(name="net")
                self.d1 = keras.layers.Dense(4, activation="relu")
                self.bn = keras.layers.BatchNormalization()
                self.d2 = keras.layers.Dense(1)

            def call(self, x, training=None):
                return self.d2(self.bn(self.d1(x), training=training))

        m = Net()
        m.compile("sgd", "mse")
        m.fit(XA[:8, :3], Y1[:8], verbose=0)
        s = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
        s.compile("sgd", "mse", metrics=["mae", "acc"])
        return _summary(m), [w.name for w in m.weights], m.metrics_names, s.metrics_names

    with tw.Graph().as_default(), tw.Session().as_default():
        ours = run(tw.keras)
    with tf1.Graph().as_default(), tf1.Session().as_default():
        theirs = run(tf_keras)
    assert ours == theirs


def test_plain_tensorflow_ops_between_layers_become_op_layers():
    with tw.Graph().as_default(), tw.Session().as_default():
        a = tw.keras.Input((4,))
        hidden = tw.keras.layers.Dense(3, name="h")(a)
        out = tw.keras.layers.Dense(1, name="o")(tw.nn.relu(hidden) * 2.0)
        m = tw.keras.Model(a, tw.sigmoid(out))
        assert [layer.name for layer in m.layers] == [
            "input_1",
            "h",
            "tf_op_layer_Relu",
            "tf_op_layer_mul",
            "o",
            "tf_op_layer_Sigmoid",
        ]
        kernel_h, bias_h, kernel_o, bias_o = m.get_weights()
        want = 1 / (1 + np.exp(-((np.maximum(XA @ kernel_h + bias_h, 0) * 2.0) @ kernel_o + bias_o)))
        np.testing.assert_allclose(m.predict(XA), want, rtol=1e-5, atol=1e-6)
        m.compile("sgd", "binary_crossentropy")
        assert np.isfinite(m.fit(XA, (Y1 > 0).astype(np.float32), verbose=0).history["loss"]).all()
        with pytest.raises(NotImplementedError, match="wrap them in a `tf.keras.layers.Lambda` layer"):
            m(tw.keras.Input((4,)))


def test_tf1_style_imports_and_fixed_learning_phase():
    import tensorweave.keras.backend as K
    from tensorweave.keras.callbacks import EarlyStopping
    from tensorweave.keras.layers import Dense, Input, Layer
    from tensorweave.keras.models import Model, Sequential, load_model

    assert Layer is tw.keras.layers.Layer and Input is tw.keras.Input and K is tw.keras.backend
    assert Model is tw.keras.Model and Sequential is tw.keras.Sequential and callable(load_model)
    assert issubclass(EarlyStopping, tw.keras.callbacks.Callback)
    with tw.Graph().as_default():
        K.set_learning_phase(0)  # a constant phase: fit must not feed it
        m = Sequential([Dense(1, input_shape=(4,)), tw.keras.layers.Dropout(0.5)])
        m.compile("sgd", "mse")
        m.set_weights([np.ones((4, 1), np.float32), np.zeros(1, np.float32)])
        loss = m.fit(XA, Y1, batch_size=40, verbose=0, shuffle=False).history["loss"][0]
        np.testing.assert_allclose(loss, np.mean((XA.sum(1, keepdims=True) - Y1) ** 2), rtol=1e-5)


def test_stateful_metric_objects_in_compile_match_tf_keras():
    """A Metric object in compile(metrics=) reports its accumulated result (the epoch's last), reset each epoch
    and each evaluate, beside the function metrics' sample averages."""
    tf1, tf_keras = _oracle()
    x = RNG.randn(64, 10).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    w = [
        np.random.RandomState(i).randn(*s).astype(np.float32) * 0.3
        for i, s in enumerate([(10, 16), (16,), (16, 3), (3,)])
    ]

    def run(keras, sgd):
        model = keras.Sequential(
            [keras.layers.Dense(16, activation="relu", input_shape=(10,)), keras.layers.Dense(3, activation="softmax")]
        )
        model.set_weights(w)
        metrics = ["accuracy", keras.metrics.SparseCategoricalAccuracy(), "mae"]
        model.compile(optimizer=sgd(0.1), loss="sparse_categorical_crossentropy", metrics=metrics)
        history = model.fit(x, y, epochs=2, batch_size=16, verbose=0, shuffle=False).history
        return history, model.metrics_names, model.evaluate(x, y, batch_size=24, verbose=0)

    with tw.Graph().as_default(), tw.Session().as_default():
        ours = run(tw.keras, tw.keras.optimizers.SGD)
    with tf1.Graph().as_default(), tf1.Session().as_default():
        theirs = run(tf_keras, tf_keras.optimizers.legacy.SGD)
    assert ours[1] == theirs[1] == ["loss", "acc", "sparse_categorical_accuracy", "mean_absolute_error"]
    assert sorted(ours[0]) == sorted(theirs[0])
    for key in theirs[0]:
        np.testing.assert_allclose(ours[0][key], theirs[0][key], rtol=1e-5)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5)
