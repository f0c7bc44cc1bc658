"""tw.keras activation, noise, dot and attention layers against tf_keras 2 (TF1 graph mode) with the same weights."""

import numpy as np
import pytest
import tensorweave as tw


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _both(make, xs, call=lambda layer, ins: layer(ins[0] if len(ins) == 1 else ins), feed_phase=None, dtypes=None):
    """Names, outputs and gradients (inputs and weights) of the same layer in both libraries."""
    tf1, tf_keras = _tf_keras()
    results, values = [], None
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            ins = [g.placeholder((dtypes or {}).get(i, g.float32), [None, *x.shape[1:]]) for i, x in enumerate(xs)]
            layer = make(keras.layers)
            out = call(layer, ins)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            floats = [i for i in ins if i.dtype == g.float32]
            grads = g.gradients(g.add_n([g.reduce_sum(g.square(o)) for o in outs]), floats + layer.weights)
            feed = dict(zip(ins, xs))
            if feed_phase is not None:
                feed[keras.backend.learning_phase()] = feed_phase
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if values is None:
                    rng = np.random.RandomState(0)
                    values = [np.asarray(rng.randn(*w.shape.as_list()), np.float32) * 0.5 for w in layer.weights]
                for v, w in zip(layer.weights, values):
                    v.load(w, sess)
                res = sess.run([outs, [gr for gr in grads if gr is not None]], feed)
            results.append(([w.name for w in layer.weights], *res, [layer.losses, len(layer.losses)]))
    (names, out, grad, _), (their_names, their_out, their_grad, _) = results
    assert names == their_names
    for a, b in zip(out, their_out):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert len(grad) == len(their_grad)
    for a, b in zip(grad, their_grad):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    return out


R = np.random.RandomState(1)
X = R.randn(3, 5, 4).astype(np.float32)
Q = R.randn(2, 3, 4).astype(np.float32)
V = R.randn(2, 5, 4).astype(np.float32)
K = R.randn(2, 5, 4).astype(np.float32)

SINGLE = [
    lambda L: L.PReLU(),
    lambda L: L.PReLU(shared_axes=[1]),
    lambda L: L.ELU(),
    lambda L: L.ELU(alpha=0.5),
    lambda L: L.ThresholdedReLU(theta=0.3),
    lambda L: L.GaussianNoise(0.5),
    lambda L: L.GaussianDropout(0.3),
    lambda L: L.AlphaDropout(0.3),
    lambda L: L.SpatialDropout1D(0.5),
    lambda L: L.ActivityRegularization(l1=0.1, l2=0.2),
    lambda L: L.LeakyReLU(0.2),
    lambda L: L.ReLU(),
    lambda L: L.ReLU(max_value=1.0),
    lambda L: L.ReLU(negative_slope=0.1, threshold=0.5),
    lambda L: L.ReLU(max_value=0.8, negative_slope=0.2),
    lambda L: L.ReLU(threshold=0.3),
    lambda L: L.Softmax(axis=1),
]


@pytest.mark.parametrize("index", range(len(SINGLE)))
def test_single_input_layers_match_tf_keras_in_inference(index):
    _both(SINGLE[index], [X])


def test_activity_regularization_loss():
    tf1, tf_keras = _tf_keras()
    losses = []
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            inp = g.placeholder(g.float32, [None, 5, 4])
            layer = keras.layers.ActivityRegularization(l1=0.1, l2=0.2)
            layer(inp)
            with g.Session() as sess:
                losses.append(sess.run(layer.losses, {inp: X}))
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)


@pytest.mark.parametrize(
    "make, shape",
    [(lambda L: L.GaussianNoise(0.5), (50, 40)), (lambda L: L.GaussianDropout(0.3), (50, 40)),
     (lambda L: L.AlphaDropout(0.3), (50, 40)), (lambda L: L.SpatialDropout2D(0.5), (50, 3, 3, 8)),
     (lambda L: L.SpatialDropout1D(0.5), (50, 6, 8))],
)  # fmt: skip
def test_noise_layers_in_training(make, shape):
    x = np.random.RandomState(2).randn(*shape).astype(np.float32) + 1.0
    with tw.Graph().as_default():
        inp = tw.placeholder(tw.float32, [None, *shape[1:]])
        layer = make(tw.keras.layers)
        y_phase, y_train = layer(inp), layer(inp, training=True)
        with tw.Session() as sess:
            test = sess.run(y_phase, {inp: x})
            train = sess.run(y_train, {inp: x})
            phase = sess.run(y_phase, {inp: x, tw.keras.backend.learning_phase(): True})
    np.testing.assert_array_equal(test, x)
    assert not np.allclose(train, x) and not np.allclose(phase, x)
    if len(shape) > 2:  # spatial dropout: whole channels are zero or scaled by 2
        flat = train.reshape(shape[0], -1, shape[-1])
        zero = np.all(flat == 0, axis=1)
        kept = np.all(np.isclose(flat, 2 * x.reshape(flat.shape)), axis=1)
        assert np.all(zero | kept) and zero.any() and kept.any()
    elif isinstance(layer, tw.keras.layers.AlphaDropout):  # keeps zero mean and unit variance
        standard = np.random.RandomState(4).randn(*shape).astype(np.float32)
        with tw.Graph().as_default():
            y = tw.keras.layers.AlphaDropout(0.3)(tw.constant(standard), training=True)
            with tw.Session() as sess:
                out = np.concatenate([sess.run(y) for _ in range(10)])
        np.testing.assert_allclose([out.mean(), out.std()], [0.0, 1.0], atol=0.05)
        alpha_p = -1.6732632423543772 * 1.0507009873554805
        a = (0.7 * (1 + 0.3 * alpha_p**2)) ** -0.5
        dropped = a * alpha_p - a * alpha_p * 0.3  # Keras's value of a dropped unit
        np.testing.assert_allclose(np.isclose(out, dropped).mean(), 0.3, atol=0.02)
    else:
        np.testing.assert_allclose(train.mean(), x.mean(), atol=0.15)


@pytest.mark.parametrize(
    "make, xs",
    [(lambda L: L.Dot(axes=1), [Q[:, 0], V[:, 0]]), (lambda L: L.Dot(axes=1, normalize=True), [Q[:, 0], V[:, 0]]),
     (lambda L: L.Dot(axes=2), [Q, V]), (lambda L: L.Dot(axes=(1, 1)), [V, K]),
     (lambda L: L.Dot(axes=(2, 1)), [Q, V.transpose(0, 2, 1)])],
)  # fmt: skip
def test_dot_matches_tf_keras(make, xs):
    _both(make, xs)


@pytest.mark.parametrize(
    "make", [lambda L: L.Attention(), lambda L: L.Attention(use_scale=True), lambda L: L.Attention(score_mode="concat"),
             lambda L: L.Attention(use_scale=True, score_mode="concat"), lambda L: L.AdditiveAttention(),
             lambda L: L.AdditiveAttention(use_scale=False)],
)  # fmt: skip
@pytest.mark.parametrize("with_key", [False, True])
def test_attention_matches_tf_keras(make, with_key):
    _both(make, [Q, V, K] if with_key else [Q, V])


def test_attention_masks_scores_and_causal():
    def call(layer, ins):
        return layer(ins[:2], mask=[ins[2], ins[3]], return_attention_scores=True, use_causal_mask=True)

    q_mask = np.array([[True, True, False], [True, False, True]])
    v_mask = np.array([[True, True, True, False, False], [True, True, True, True, False]])
    _both(lambda L: L.Attention(), [Q, V, q_mask, v_mask], call=call, dtypes={2: tw.bool, 3: tw.bool})


def test_attention_mask_from_embedding():
    ids_q = np.array([[1, 2, 0], [3, 0, 0]], np.int32)
    ids_v = np.array([[1, 2, 3, 0, 0], [4, 1, 0, 0, 0]], np.int32)

    def make(L):
        return L.Attention()

    def call(layer, ins):
        emb = layer._emb
        return layer([emb(ins[0]), emb(ins[1])])

    tf1, tf_keras = _tf_keras()
    outs = []
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            a, b = g.placeholder(g.int32, [None, 3]), g.placeholder(g.int32, [None, 5])
            emb = keras.layers.Embedding(5, 4, mask_zero=True, embeddings_initializer="ones")
            y = keras.layers.Attention()([emb(a), emb(b)])
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                emb.weights[0].load(np.arange(20, dtype=np.float32).reshape(5, 4) / 10, sess)
                outs.append(sess.run(y, {a: ids_q, b: ids_v}))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "kwargs, call_kwargs",
    [({"num_heads": 2, "key_dim": 3}, {}), ({"num_heads": 3, "key_dim": 2, "value_dim": 4, "output_shape": 5}, {}),
     ({"num_heads": 2, "key_dim": 3, "use_bias": False}, {"use_causal_mask": True}),
     ({"num_heads": 1, "key_dim": 4}, {"return_attention_scores": True})],
)  # fmt: skip
def test_multi_head_attention_matches_tf_keras(kwargs, call_kwargs):
    def call(layer, ins):
        return layer(ins[0], ins[1], ins[2], **call_kwargs)

    _both(lambda L: L.MultiHeadAttention(**kwargs), [Q, V, K], call=call)


def test_multi_head_attention_mask():
    mask = np.random.RandomState(3).rand(2, 3, 5) > 0.3

    def call(layer, ins):
        return layer(ins[0], ins[1], attention_mask=ins[2])

    _both(lambda L: L.MultiHeadAttention(2, 3), [Q, V, mask], call=call, dtypes={2: tw.bool})


def test_masks_pass_through_dropout_and_dense():
    """Embedding(mask_zero) -> Dropout -> Dense -> LSTM: the mask reaches the LSTM, as in Keras (TF1's tf.keras, whose
    LSTM defaults to hard_sigmoid: tf_keras's v1 API)."""
    tf1, _ = _tf_keras()
    from tf_keras.api._v1 import keras as tf_keras

    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)
    outs, values = [], None
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            inp = g.placeholder(g.int32, [None, 4])
            layers = [keras.layers.Embedding(5, 3, mask_zero=True), keras.layers.Dropout(0.5),
                      keras.layers.Dense(3), keras.layers.LSTM(2)]  # fmt: skip
            y = inp
            for layer in layers:
                y = layer(y)
            weights = [w for layer in layers for w in layer.weights]
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if values is None:
                    values = sess.run(weights)
                for v, w in zip(weights, values):
                    v.load(w, sess)
                outs.append(sess.run(y, {inp: ids}))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


def test_first_layer_input_shapes():
    L = tw.keras.layers
    for layer in (L.Flatten(input_shape=(28, 28)), L.Reshape((4,), input_shape=(2, 2)), L.Dropout(0.5, input_shape=(28, 28)),
                  L.MaxPooling2D(input_shape=(28, 28)), L.Activation("relu", input_shape=(28, 28))):  # fmt: skip
        assert layer._keras_input_shape[0] in (28, 2)
    assert L.Dense(3, input_dim=7)._batch_input_shape == (None, 7)
    assert L.Reshape((4,), input_dim=4)._keras_input_shape == (4,)
    assert L.LSTM(3, batch_input_shape=(8, 5, 2))._batch_input_shape == (8, 5, 2)


def test_lambda_output_shape_and_mask():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, None, 2])
        y = tw.keras.layers.Lambda(lambda t, k: t * k, output_shape=(4, 2), arguments={"k": 3.0})(x)
        masked = tw.keras.layers.Lambda(lambda t: t, mask=lambda t, m: tw.reduce_any(t > 0, axis=-1))(x)
        out = tw.keras.layers.LSTM(2)(masked)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            value = np.ones((1, 4, 2), np.float32)
            np.testing.assert_array_equal(sess.run(y, {x: value}), 3 * value)
            a = sess.run(out, {x: np.concatenate([value[:, :2], -value[:, :2]], axis=1)})
            b = sess.run(out, {x: value[:, :2]})
    np.testing.assert_allclose(a, b, rtol=1e-6)  # the masked (negative) steps are skipped


def test_input_layer_in_sequential():
    with tw.Graph().as_default():
        model = tw.keras.Sequential([tw.keras.layers.InputLayer(input_shape=(4,)), tw.keras.layers.Dense(2)])
        assert model.layers[0]._keras_input_shape == (4,)
        y = tw.keras.layers.InputLayer(input_shape=(4,))(tw.constant(np.ones((1, 4), np.float32)))
        with tw.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), np.ones((1, 4)))


def test_errors():
    L = tw.keras.layers
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="list of inputs"):
            L.Attention()(tw.placeholder(tw.float32, [None, 3, 4]))
        with pytest.raises(ValueError, match="score_mode"):
            L.Attention(score_mode="add")
        with pytest.raises(ValueError, match="Incompatible input shapes"):
            L.Dot(axes=1)([tw.placeholder(tw.float32, [None, 3]), tw.placeholder(tw.float32, [None, 4])])
        with pytest.raises(ValueError, match="exactly 2 inputs"):
            L.Dot(axes=1)([tw.placeholder(tw.float32, [None, 3])] * 3)
        with pytest.raises(ValueError, match='layer "multi_head_attention".*expected ndim=3'):
            L.MultiHeadAttention(2, 3)(tw.placeholder(tw.float32, [None, 4]), tw.placeholder(tw.float32, [None, 4]))
        with pytest.raises(ValueError, match='layer "spatial_dropout2d".*expected ndim=4'):
            L.SpatialDropout2D(0.5)(tw.placeholder(tw.float32, [None, 4, 3]))
        with pytest.raises(ValueError, match="Theta"):
            L.ThresholdedReLU(theta=-1.0)


def test_weights_argument_and_set_weights():
    matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tw.Graph().as_default():
        ids = tw.placeholder(tw.int32, [None, 2])
        emb = tw.keras.layers.Embedding(4, 3, weights=[matrix], trainable=False)
        y = emb(ids)
        dense = tw.keras.layers.Dense(2)
        dense(y)
        assert emb.trainable_weights == [] and len(emb.non_trainable_weights) == 1
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(y, {ids: [[3, 1]]}), matrix[[[3, 1]]])
            dense.set_weights([np.ones((3, 2)), np.full(2, 5.0)])
            kernel, bias = dense.get_weights()
            np.testing.assert_array_equal(bias, [5.0, 5.0])
            np.testing.assert_array_equal(kernel, np.ones((3, 2)))
            with pytest.raises(ValueError, match='layer "dense" with a weight list of length 1'):
                dense.set_weights([np.ones((3, 2))])
            with pytest.raises(ValueError, match=r"weight shape \(3, 2\) is not compatible"):
                dense.set_weights([np.ones((2, 2)), np.ones(2)])


SERIALIZED = [
    lambda L: L.Dense(3, activation="relu", kernel_initializer="he_normal"),
    lambda L: L.LSTM(4, return_sequences=True, dropout=0.1),
    lambda L: L.GRU(2, reset_after=False),
    lambda L: L.Bidirectional(L.GRU(2), merge_mode="sum"),
    lambda L: L.Conv2D(3, 2, strides=2, padding="same"),
    lambda L: L.BatchNormalization(momentum=0.9),
    lambda L: L.Embedding(5, 2, mask_zero=True),
    lambda L: L.Dropout(0.3),
    lambda L: L.MaxPooling2D(pool_size=3),
    lambda L: L.TimeDistributed(L.Dense(2)),
    lambda L: L.RNN(L.LSTMCell(3), go_backwards=True),
    lambda L: L.MultiHeadAttention(2, 3),
    lambda L: L.Flatten(),
]


@pytest.mark.parametrize("make", SERIALIZED)
def test_serialize_round_trip(make):
    """serialize -> deserialize gives the same class and config; the arguments given are those tf_keras records."""
    _, tf_keras = _tf_keras()
    layer = make(tw.keras.layers)
    config = tw.keras.layers.serialize(layer)
    again = tw.keras.layers.deserialize(config)
    assert type(again) is type(layer)
    assert again.get_config() == config["config"]
    theirs = tf_keras.layers.serialize(make(tf_keras.layers))
    assert config["class_name"] == theirs["class_name"]
    for key in ("units", "activation", "return_sequences", "filters", "momentum", "mask_zero", "rate", "merge_mode",
                "go_backwards", "num_heads", "key_dim", "reset_after", "padding"):  # fmt: skip
        if key in theirs["config"]:
            assert config["config"][key] == theirs["config"][key], key


def test_deserialize_unknown_layer():
    with pytest.raises(ValueError, match="Unknown layer: 'Dense3'"):
        tw.keras.layers.deserialize({"class_name": "Dense3", "config": {}})
