"""tw.keras names a TF1 Keras program uses that were missing: DenseFeatures (feature columns as a Keras layer, in
Sequential and functional models, fed dicts of named features), losses.cosine, initializers.normal/uniform and
the backend's focal cross-entropies, each against tf_keras 2 (TF1 graph mode)."""

import types

import numpy as np
import pytest
import tensorweave as tw


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


RNG = np.random.RandomState(0)
N = 64
DATA = {
    "age": RNG.uniform(18, 80, N).astype(np.float32),
    "thal": RNG.choice(["fixed", "normal", "reversible"], N),
    "ca": RNG.randint(0, 4, N).astype(np.int64),
}
LABELS = ((DATA["age"] > 50) ^ (DATA["ca"] > 1)).astype(np.float32)


def _columns(g, with_vocabulary=True):
    fc = g.feature_column
    age = fc.numeric_column("age")
    cols = [
        age,
        fc.bucketized_column(age, [30, 40, 50, 60]),
        fc.indicator_column(fc.categorical_column_with_identity("ca", 4)),
        fc.embedding_column(fc.categorical_column_with_identity("ca", 4), dimension=3),
    ]
    if with_vocabulary:
        thal = fc.categorical_column_with_vocabulary_list("thal", ["fixed", "normal", "reversible"])
        cols += [fc.indicator_column(thal), fc.embedding_column(thal, dimension=2)]
    return cols


def _weights(layer_weights, seed=3):
    rng = np.random.RandomState(seed)
    return [rng.randn(*w.shape.as_list()).astype(np.float32) for w in layer_weights]


def test_dense_features_is_input_layer_as_a_keras_layer():
    """Its variables are named `dense_features/<column>/...` as tf_keras names them, and with the same weights its
    output is tf_keras'; a second layer is `dense_features_1`; a non-dict input is Keras' ValueError."""
    tf1, tf_keras = _tf_keras()
    results = []
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            feats = {
                "age": g.placeholder(g.float32, [None, 1]),
                "thal": g.placeholder(g.string, [None, 1]),
                "ca": g.placeholder(g.int64, [None, 1]),
            }
            layer = keras.layers.DenseFeatures(_columns(g))
            out = layer(feats)
            second = keras.layers.DenseFeatures(_columns(g)[:1])
            second(feats)
            with g.Session() as sess:
                sess.run([g.global_variables_initializer(), g.tables_initializer()])
                for v, w in zip(layer.weights, _weights(layer.weights)):
                    v.load(w, sess)
                value = sess.run(out, {feats[k]: v[:, None] for k, v in DATA.items()})
            results.append(([w.name for w in layer.weights], second.name, out.shape.as_list(), value))
            with pytest.raises(ValueError, match="We expected a dictionary here"):
                layer(g.placeholder(g.float32, [None, 1]))
    (names, second_name, shape, value), (tf_names, tf_second, tf_shape, tf_value) = results
    assert names == tf_names
    assert second_name == tf_second == "dense_features_1"
    assert shape == tf_shape == [None, 1 + 5 + 4 + 3 + 3 + 2]
    np.testing.assert_allclose(value, tf_value, rtol=1e-6)


def test_dense_features_rejects_what_input_layer_rejects():
    fc = tw.feature_column
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="must be a _DenseColumn"):
            tw.keras.layers.DenseFeatures([fc.categorical_column_with_identity("ca", 4)])
        with pytest.raises(ValueError, match="must not be empty"):
            tw.keras.layers.DenseFeatures([])


@pytest.mark.parametrize("kind", ["sequential", "functional"])
def test_model_with_dense_features_trains_on_a_dict_of_features(kind):
    """A model whose first layer is DenseFeatures is fed a dict of named numpy features (as a pandas DataFrame's
    dict): a Sequential one builds its inputs from the dict's keys on the first fit, as tf_keras does; with the
    same weights its predictions are tf_keras', and fit lowers the loss."""
    tf1, tf_keras = _tf_keras()
    preds, history = [], None
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            g.set_random_seed(1)
            cols = _columns(g, with_vocabulary=False)
            if kind == "sequential":
                model = keras.Sequential([keras.layers.DenseFeatures(cols), keras.layers.Dense(8, "relu"),
                                          keras.layers.Dense(1)])  # fmt: skip
            else:
                inputs = {"age": keras.Input((1,), name="age"), "ca": keras.Input((1,), name="ca", dtype=g.int64)}
                h = keras.layers.Dense(8, "relu")(keras.layers.DenseFeatures(cols)(inputs))
                model = keras.Model(inputs, keras.layers.Dense(1)(h))
            model.compile(g.train.AdamOptimizer(0.05), keras.losses.BinaryCrossentropy(from_logits=True))
            x = {k: DATA[k] for k in ("age", "ca")}
            model.fit(x, LABELS, epochs=1, batch_size=N, verbose=0)  # builds a deferred Sequential
            model.set_weights(_weights(model.weights, seed=5))
            preds.append(model.predict(x, batch_size=16))
            if g is tw:
                model.set_weights([w * 0.1 for w in _weights(model.weights, seed=5)])
                history = model.fit(x, LABELS, epochs=40, batch_size=N, verbose=0).history["loss"]
    np.testing.assert_allclose(preds[0], preds[1], rtol=1e-5, atol=1e-5)
    assert history[-1] < 0.8 * history[0]


def test_cosine_normal_uniform_and_the_backend_focal_losses():
    tf1, tf_keras = _tf_keras()
    y = (RNG.rand(4, 3) > 0.5).astype(np.float32)
    p = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
    logits = RNG.randn(4, 3).astype(np.float32)
    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    values = []
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            K = keras.backend
            fetch = [
                (keras.losses.cosine if g is tw else keras.losses.cosine_similarity)(y, p),  # TF's alias
                K.binary_focal_crossentropy(y, p),
                K.binary_focal_crossentropy(
                    y, logits, apply_class_balancing=True, alpha=0.3, gamma=1.5, from_logits=True
                ),
                K.categorical_focal_crossentropy(onehot, p),
                K.categorical_focal_crossentropy(onehot, logits, alpha=0.5, gamma=3.0, from_logits=True),
            ]
            with g.Session() as sess:
                values.append(sess.run(fetch))
    for a, b in zip(*values):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # tf.compat.v1.keras.initializers.normal/uniform are the v1 RandomNormal/RandomUniform (stddev 0.05).
    assert tw.keras.initializers.normal is tw.keras.initializers.RandomNormal
    assert tw.keras.initializers.uniform is tw.keras.initializers.RandomUniform
    assert tw.keras.initializers.normal().get_config()["stddev"] == 0.05


@pytest.mark.parametrize("rank", [2, 3])
def test_transposed_convolutions_take_output_padding_and_keras_positional_arguments(rank):
    """Conv2DTranspose/Conv3DTranspose(output_padding=) as tf_keras sizes and computes them (static and run-time
    spatial sizes); arguments by position in Keras' order (Dense(3, "relu", False)); output_padding >= strides is
    Keras' ValueError."""
    tf1, tf_keras = _tf_keras()
    x = np.random.RandomState(0).randn(2, *([5, 4, 3][:rank]), 3).astype(np.float32)
    cases = [
        {"strides": 2, "padding": "same", "output_padding": 1},
        {"strides": 3, "padding": "valid", "output_padding": 2},
    ]
    results = []
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        layer_class = keras.layers.Conv2DTranspose if rank == 2 else keras.layers.Conv3DTranspose
        with g.Graph().as_default():
            known = g.constant(x)
            unknown = g.placeholder(g.float32, [None] * (rank + 1) + [3])
            outs, shapes = [], []
            for kw in cases:
                layer = layer_class(4, 3, kernel_initializer="glorot_uniform", **kw)
                outs += [layer(known), layer(unknown)]
                shapes.append(outs[-2].shape.as_list())
            dense = keras.layers.Dense(3, "relu", False)
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                weights = [v for v in g.global_variables() if "kernel" in v.name]
                for k, v in enumerate(weights):
                    v.load(np.random.RandomState(k).randn(*v.shape.as_list()).astype(np.float32), sess)
                values = sess.run(outs, {unknown: x})
            with pytest.raises(ValueError, match="Strides must be greater than output padding"):
                layer_class(4, 3, strides=2, output_padding=2)(known)
        results.append((shapes, values, dense.activation.__name__, dense.use_bias))
    assert results[0][0] == results[1][0]
    assert results[0][2:] == results[1][2:] == ("relu", False)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_cudnn_layers_have_tf_weights_and_run_as_their_equivalent(kind):
    """CuDNNLSTM/CuDNNGRU (GPU-only in TensorFlow) run here: the weights are TF's layer's (same shapes, same order,
    so its checkpoints and .h5 files load), and the outputs are those of tf_keras' LSTM(sigmoid gates) with the two
    biases added / GRU(reset_after=True, sigmoid gates) with the biases as [2, 3 * units]."""
    tf1, tf_keras = _tf_keras()
    from tf_keras.src.layers.rnn import cudnn_gru, cudnn_lstm  # tf.compat.v1.keras.layers.CuDNNLSTM/GRU

    units, x = 5, np.random.RandomState(2).randn(3, 6, 4).astype(np.float32)
    with tf1.Graph().as_default():  # TF's cuDNN layer, built (its op has no CPU kernel, so it is not called)
        layer = (cudnn_lstm.CuDNNLSTM if kind == "lstm" else cudnn_gru.CuDNNGRU)(units, return_sequences=True)
        layer.build((None, 6, 4))
        tf_shapes = [tuple(w.shape.as_list()) for w in layer.weights]
        tf_names = [w.name.split("/")[-1] for w in layer.weights]
    weights = [np.random.RandomState(k).randn(*shape).astype(np.float32) * 0.5 for k, shape in enumerate(tf_shapes)]
    with tf1.Graph().as_default():  # the equivalent cuDNN-free layer of tf_keras
        kernel, recurrent, bias = weights
        if kind == "lstm":
            ref = tf_keras.layers.LSTM(units, recurrent_activation="sigmoid", return_sequences=True)
            ref_weights = [kernel, recurrent, bias[: 4 * units] + bias[4 * units :]]
        else:
            ref = tf_keras.layers.GRU(units, recurrent_activation="sigmoid", reset_after=True, return_sequences=True)
            ref_weights = [kernel, recurrent, bias.reshape(2, 3 * units)]
        ref_model = tf_keras.Sequential([ref])
        ref_model.build((None, 6, 4))
        ref_model.set_weights(ref_weights)
        expected = ref_model.predict(x)
    with tw.Graph().as_default():
        cls = tw.keras.layers.CuDNNLSTM if kind == "lstm" else tw.keras.layers.CuDNNGRU
        model = tw.keras.Sequential([cls(units, return_sequences=True)])
        model.build((None, 6, 4))
        assert [tuple(w.shape.as_list()) for w in model.weights] == tf_shapes
        assert [w.name.split("/")[-1] for w in model.weights] == tf_names
        model.set_weights(weights)
        np.testing.assert_allclose(model.predict(x), expected, rtol=1e-5, atol=1e-6)
        if kind == "lstm":  # unit_forget_bias: ones in the recurrent bias' forget slice, as TF's
            fresh = tw.keras.Sequential([cls(units)])
            fresh.build((None, 6, 4))
            bias = fresh.get_weights()[2]
            np.testing.assert_array_equal(bias, np.r_[np.zeros(5 * units), np.ones(units), np.zeros(2 * units)])
        with pytest.raises(TypeError):
            cls(units, activation="relu")  # the cuDNN layers have fixed activations


def test_model_with_dense_features_saves_and_loads(tmp_path):
    """model.save / load_model of a functional model over a dict of features: the columns (nested ones, an
    embedding's initializer, dtypes) and the dict-shaped call are in the config, so the loaded model predicts the
    same; tf_keras' config keeps the dict's keys in the layer's inbound node likewise."""
    fc = tw.feature_column
    x = {k: DATA[k][:, None] for k in ("age", "ca", "thal")}
    path = str(tmp_path / "features.h5")
    with tw.Graph().as_default():
        thal = fc.categorical_column_with_vocabulary_list("thal", ["fixed", "normal"], num_oov_buckets=1)
        ca = fc.categorical_column_with_identity("ca", 4)
        cols = _columns(tw, with_vocabulary=False) + [
            fc.embedding_column(thal, 3, initializer=tw.truncated_normal_initializer(stddev=0.5)),
            fc.indicator_column(fc.crossed_column(["thal", ca], 7)),
            fc.indicator_column(fc.weighted_categorical_column(ca, "age")),
        ]
        inputs = {
            "age": tw.keras.Input((1,), name="age"),
            "ca": tw.keras.Input((1,), name="ca", dtype=tw.int64),
            "thal": tw.keras.Input((1,), name="thal", dtype=tw.string),
        }
        model = tw.keras.Model(inputs, tw.keras.layers.Dense(1)(tw.keras.layers.DenseFeatures(cols)(inputs)))
        model.compile("sgd", "mse")
        model.fit(x, LABELS, verbose=0)
        before = model.predict(x)
        node = model.get_config()["layers"][3]["inbound_nodes"][0]
        assert sorted(node) == ["age", "ca", "thal"] and node["age"][:3] == ["age", 0, 0]
        model.save(path)
    with tw.Graph().as_default():
        np.testing.assert_array_equal(tw.keras.models.load_model(path).predict(x), before)


def test_v1_initializers_have_tfs_config():
    tf1 = _tf1_only()
    for make in (
        lambda g: g.truncated_normal_initializer(mean=0.5, stddev=0.1, seed=3),
        lambda g: g.constant_initializer(2.0),
        lambda g: g.random_uniform_initializer(-1.0, 1.0, seed=2),
        lambda g: g.orthogonal_initializer(gain=2.0),
        lambda g: g.zeros_initializer(),
        lambda g: g.variance_scaling_initializer(2.0, "fan_out", "uniform"),
    ):
        ours, theirs = make(tw), make(tf1)
        assert ours.get_config() == theirs.get_config()
        assert type(ours).from_config(ours.get_config()).get_config() == ours.get_config()


def _tf1_only():
    return _tf_keras()[0]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("LSTM", (5, "relu", "sigmoid", False)),
        ("GRU", (5, "tanh", "sigmoid", True)),
        ("SimpleRNN", (5, "relu", False)),
        ("LSTMCell", (5, "relu", "sigmoid")),
        ("GRUCell", (5, "relu", "sigmoid", False)),
    ],
)
def test_recurrent_layers_take_keras_positional_arguments(name, args):
    """LSTM(5, "relu", "sigmoid", False) is units, activation, recurrent_activation, use_bias, as in tf_keras."""
    _, tf_keras = _tf_keras()
    ours, theirs = getattr(tw.keras.layers, name)(*args), getattr(tf_keras.layers, name)(*args)
    for attr in ("activation", "recurrent_activation"):
        if hasattr(theirs, attr):
            assert getattr(ours, attr).__name__ == getattr(theirs, attr).__name__
    assert ours.use_bias == theirs.use_bias
    with pytest.raises(TypeError, match="multiple values for argument 'activation'"):
        getattr(tw.keras.layers, name)(*args, activation="tanh")


def test_tf_keras_json_loads_and_configs_are_whole():
    """A model's JSON written by tf_keras (its configs carry every argument: groups, a transposed convolution's
    dilation_rate, a separable one's unused kernel_* fields) loads with model_from_json and, with tf_keras' weights,
    predicts what tf_keras does; Dense and the transposed/separable convolutions give the whole config too."""
    tf1, tf_keras = _tf_keras()
    x = np.random.RandomState(4).randn(2, 6, 6, 3).astype(np.float32)

    def build(keras):
        L = keras.layers
        return keras.Sequential([
            L.SeparableConv2D(4, 3, padding="same", depth_multiplier=2, input_shape=(6, 6, 3)),
            L.BatchNormalization(),
            L.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1, use_bias=False),
            L.LayerNormalization(),
            L.Flatten(),
            L.Dense(5, "relu", False),
            L.Dense(2),
        ])  # fmt: skip

    with tf1.Graph().as_default():
        model = build(tf_keras)
        weights = _weights(model.weights, seed=9)
        model.set_weights([np.abs(w) + 0.5 if "variance" in v.name else w for v, w in zip(model.weights, weights)])
        weights, expected, json_text = model.get_weights(), model.predict(x), model.to_json()
    with tw.Graph().as_default():
        loaded = tw.keras.models.model_from_json(json_text)
        loaded.set_weights(weights)
        np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-4, atol=1e-5)
        ours = build(tw.keras)
        for a, b in zip(ours.layers, loaded.layers):
            if type(a).__name__ in ("Dense", "Conv2DTranspose", "SeparableConv2D"):
                assert set(a.get_config()) >= set(b.get_config()) - {"kernel_initializer", "kernel_regularizer",
                                                                      "kernel_constraint"}  # fmt: skip
    with pytest.raises(NotImplementedError, match="dilation_rate"):
        tw.keras.layers.Conv2DTranspose(4, 3, dilation_rate=2)


def test_models_saved_by_tf_keras_load_and_predict_the_same(tmp_path):
    """Whole models saved to .h5 by tf_keras (config with every field tf_keras writes, weights, the training
    config): a CNN (conv, batch norm, depthwise and separable convs, global pooling, dropout, softmax) and a
    recurrent model (embedding, LSTM, GRU); tw's load_model predicts what tf_keras did."""
    tf1, tf_keras = _tf_keras()
    L = tf_keras.layers
    rng = np.random.RandomState(0)
    cases = []
    with tf1.Graph().as_default():
        inp = tf_keras.Input((12, 12, 1))
        x = L.BatchNormalization()(L.Conv2D(8, 3, activation="relu", padding="same")(inp))
        x = L.SeparableConv2D(8, 3)(L.DepthwiseConv2D(3, padding="same")(L.MaxPooling2D()(x)))
        out = L.Dense(10, activation="softmax")(L.Dropout(0.2)(L.GlobalAveragePooling2D()(x)))
        cnn = tf_keras.Model(inp, out)
        cnn.compile(tf1.train.AdamOptimizer(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
        xs = rng.rand(16, 12, 12, 1).astype(np.float32)
        cnn.fit(xs, np.arange(16) % 10, epochs=1, verbose=0)
        cnn.save(str(tmp_path / "cnn.h5"))
        cases.append(("cnn.h5", xs, cnn.predict(xs)))
    with tf1.Graph().as_default():
        rnn = tf_keras.Sequential([L.Embedding(50, 8, input_length=7), L.LSTM(6, return_sequences=True), L.GRU(5),
                                   L.Dense(3)])  # fmt: skip
        rnn.compile("rmsprop", "mse")
        ids = rng.randint(0, 50, (4, 7))
        rnn.fit(ids, np.zeros((4, 3)), verbose=0)
        rnn.save(str(tmp_path / "rnn.h5"))
        cases.append(("rnn.h5", ids, rnn.predict(ids)))
    for name, x, expected in cases:
        with tw.Graph().as_default():
            model = tw.keras.models.load_model(str(tmp_path / name))
            np.testing.assert_allclose(model.predict(x), expected, rtol=1e-4, atol=1e-6)


def test_model_to_estimator_trains_evaluates_and_predicts_with_the_keras_model(tmp_path):
    """tf.keras.estimator.model_to_estimator: the Estimator starts from the Keras model's weights (its predictions
    and its evaluation loss and accuracy are Keras' own before training), trains with the compiled optimizer and
    loss, and keys predictions by the output layer's name; the errors of a wrong call are TF's."""
    rng = np.random.RandomState(0)
    x = rng.randn(256, 4).astype(np.float32)
    y = (x @ np.array([1.0, -1.0, 0.5, 2.0]) > 0).astype(np.int64)
    with tw.Graph().as_default():
        inp = tw.keras.Input((4,), name="feats")
        out = tw.keras.layers.Dense(2, activation="softmax", name="probs")(tw.keras.layers.Dense(16, "relu")(inp))
        model = tw.keras.Model(inp, out)
        with pytest.raises(ValueError, match="has not been compiled yet"):
            tw.keras.estimator.model_to_estimator(keras_model=model)
        model.compile(tw.keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy", metrics=["accuracy"])
        keras_pred = model.predict(x[:5])
        keras_loss, keras_acc = model.evaluate(x, y, batch_size=256, verbose=0)
        est = tw.keras.estimator.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "est"))
        with pytest.raises(ValueError, match="Either `keras_model` or `keras_model_path`"):
            tw.keras.estimator.model_to_estimator()
    numpy_input_fn = tw.estimator.inputs.numpy_input_fn
    predictions = est.predict(numpy_input_fn({"feats": x[:5]}, shuffle=False))
    np.testing.assert_allclose([p["probs"] for p in predictions], keras_pred, rtol=1e-5, atol=1e-6)
    before = est.evaluate(numpy_input_fn({"feats": x}, y, batch_size=256, shuffle=False))
    np.testing.assert_allclose([before["loss"], before["accuracy"]], [keras_loss, keras_acc], rtol=1e-5)
    est.train(numpy_input_fn({"feats": x}, y, batch_size=32, num_epochs=None, shuffle=True), steps=150)
    after = est.evaluate(numpy_input_fn({"feats": x}, y, batch_size=256, shuffle=False))
    assert after["global_step"] == 150 and after["accuracy"] > 0.95 and after["loss"] < before["loss"] / 5
    with pytest.raises(KeyError, match="Expected keys"):
        list(est.predict(numpy_input_fn({"other": x[:2]}, shuffle=False)))


def test_plot_model_without_pydot_prints_keras_message_and_model_to_dot_draws_the_layers(monkeypatch, capsys):
    from tensorweave._src.keras import utils_more

    class FakeDot:  # pydot's interface as model_to_dot uses it
        def __init__(self, **attrs):
            self.nodes, self.edges, self.attrs = {}, [], attrs

        def set_node_defaults(self, **attrs):
            pass

        def add_node(self, node):
            self.nodes[node[0]] = node[1]["label"]

        def add_edge(self, edge):
            self.edges.append(edge)

    fake = types.SimpleNamespace(Dot=FakeDot, Node=lambda name, label: (name, {"label": label}),
                                 Edge=lambda a, b: (a, b))  # fmt: skip
    with tw.Graph().as_default():
        i = tw.keras.Input((3,), name="x")
        a, b = tw.keras.layers.Dense(2, name="a")(i), tw.keras.layers.Dense(2, name="b")(i)
        model = tw.keras.Model(i, tw.keras.layers.Add(name="sum")([a, b]))
        monkeypatch.setattr(utils_more, "_pydot", lambda: None)
        assert tw.keras.utils.plot_model(model, to_file="unused.png") is None
        assert "You must install pydot" in capsys.readouterr().out
        with pytest.raises(ImportError, match="You must install pydot"):
            tw.keras.utils.model_to_dot(model)
        monkeypatch.setattr(utils_more, "_pydot", lambda: fake)
        dot = tw.keras.utils.model_to_dot(model, show_shapes=True)
    labels = {name: label for name, label in dot.nodes.items()}
    by_layer = {layer.name: str(id(layer)) for layer in model.layers}
    assert labels[by_layer["a"]] == "a: Dense|output: (None, 2)"
    assert sorted(dot.edges) == sorted([(by_layer["x"], by_layer["a"]), (by_layer["x"], by_layer["b"]),
                                        (by_layer["a"], by_layer["sum"]), (by_layer["b"], by_layer["sum"])])  # fmt: skip
