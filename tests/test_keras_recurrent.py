"""tw.keras recurrent layers against tf_keras 2's v1 API (TF1 graph mode) with the same weights: outputs, states, masks,
variable names, gradients and an SGD step."""

import numpy as np
import pytest
import tensorweave as tw


def _tf_keras():
    """TF's compat.v1 and the tf.keras a TF1 program sees (`tf.compat.v1.keras`: tf_keras's v1 API, whose LSTM and
    GRU have TF1's defaults)."""
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    pytest.importorskip("tf_keras")
    from tf_keras.api._v1 import keras as tf_keras

    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for item in x:
            yield from _flatten(item)
    else:
        yield x


def _run_both(build, feeds, seed=0, train_steps=0):
    """`build(keras_module, g)` -> (placeholders, outputs, layers) in both libraries; tw's weights (randomized) are
    copied into tf_keras's. Returns names, outputs, gradients of sum(outputs^2), weights after SGD steps."""
    tf1, tf_keras = _tf_keras()
    results = []
    values = None
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            inputs, outputs, layers = build(keras, g)
            outputs = list(_flatten(outputs))
            weights = [w for layer in layers for w in layer.weights]
            loss = g.add_n([g.reduce_sum(g.square(o)) for o in outputs])
            grads = [g.convert_to_tensor(grad) for grad in g.gradients(loss, weights)]  # dense embedding grads
            train = g.train.GradientDescentOptimizer(0.05).minimize(loss, var_list=weights)
            feed = dict(zip(inputs, feeds))
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if values is None:
                    rng = np.random.RandomState(seed)
                    values = [(rng.randn(*w.shape.as_list()) * 0.5).astype(np.float32) for w in weights]
                for v, w in zip(weights, values):
                    v.load(w, sess)
                out, grad = sess.run([outputs, grads], feed)
                for _ in range(train_steps):
                    sess.run(train, feed)
                after = sess.run(weights)
            results.append(([w.name for w in weights], out, grad, after))
    return results


def _compare(ours, theirs, tol=1e-5):
    assert ours[0] == theirs[0]
    for i in (1, 2, 3):
        assert len(ours[i]) == len(theirs[i])
        for a, b in zip(ours[i], theirs[i]):
            np.testing.assert_allclose(a, b, rtol=tol * 10, atol=tol)


X = np.random.RandomState(1).randn(3, 5, 4).astype(np.float32)


def _seq(make, x=X, train_steps=0, **call_kwargs):
    def build(keras, g):
        inp = g.placeholder(g.float32, [None, *x.shape[1:]])
        layer = make(keras.layers)
        return [inp], layer(inp, **call_kwargs), [layer]

    return _run_both(build, [x], train_steps=train_steps)


CASES = [
    lambda L: L.SimpleRNN(3),
    lambda L: L.SimpleRNN(3, activation="relu", return_sequences=True),
    lambda L: L.LSTM(3),
    lambda L: L.LSTM(3, return_sequences=True, return_state=True),
    lambda L: L.LSTM(2, go_backwards=True, return_sequences=True),
    lambda L: L.LSTM(3, unroll=True, return_state=True),
    lambda L: L.LSTM(3, use_bias=False),
    lambda L: L.GRU(3),
    lambda L: L.GRU(3, return_sequences=True, return_state=True),
    lambda L: L.GRU(3, reset_after=False, return_sequences=True),
    lambda L: L.GRU(2, go_backwards=True, unroll=True),
    lambda L: L.RNN(L.SimpleRNNCell(3), return_sequences=True),
    lambda L: L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_state=True),
    lambda L: L.Bidirectional(L.LSTM(3)),
    lambda L: L.Bidirectional(L.GRU(2, return_sequences=True), merge_mode="sum"),
    lambda L: L.Bidirectional(L.SimpleRNN(2, return_sequences=True), merge_mode="mul"),
    lambda L: L.Bidirectional(L.LSTM(2), merge_mode="ave"),
    lambda L: L.Bidirectional(L.LSTM(2, return_sequences=True), merge_mode=None),
    lambda L: L.Bidirectional(L.GRU(2, return_state=True)),
    lambda L: L.TimeDistributed(L.Dense(3)),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_recurrent_layer_matches_tf_keras(index):
    ours, theirs = _seq(CASES[index])
    _compare(ours, theirs)


@pytest.mark.parametrize("make", [lambda L: L.LSTM(3), lambda L: L.GRU(3, return_sequences=True)])
def test_sgd_steps_match_tf_keras(make):
    ours, theirs = _seq(make, train_steps=3)
    _compare(ours, theirs, tol=1e-4)


def test_dynamic_time_dimension():
    def build(keras, g):
        inp = g.placeholder(g.float32, [None, None, 4])
        layer = keras.layers.LSTM(3, return_sequences=True)
        return [inp], layer(inp), [layer]

    ours, theirs = _run_both(build, [X])
    _compare(ours, theirs)


@pytest.mark.parametrize(
    "make",
    [lambda L: L.LSTM(3, return_sequences=True, return_state=True), lambda L: L.GRU(2, return_sequences=True),
     lambda L: L.SimpleRNN(2, go_backwards=True, return_sequences=True), lambda L: L.LSTM(2),
     lambda L: L.Bidirectional(L.LSTM(2, return_sequences=True))],
)  # fmt: skip
def test_masks_from_embedding_and_masking(make):
    ids = np.array([[1, 2, 0, 0], [0, 3, 1, 0], [4, 4, 4, 4]], np.int32)

    def build(keras, g):
        inp = g.placeholder(g.int32, [None, 4])
        emb = keras.layers.Embedding(5, 3, mask_zero=True)
        layer = make(keras.layers)
        return [inp], layer(emb(inp)), [emb, layer]

    ours, theirs = _run_both(build, [ids])
    _compare(ours, theirs)

    x = X.copy()
    x[0, 3:] = 0.0
    x[1, :2] = 0.0

    def build_masking(keras, g):
        inp = g.placeholder(g.float32, [None, 5, 4])
        layer = make(keras.layers)
        return [inp], layer(keras.layers.Masking()(inp)), [layer]

    ours, theirs = _run_both(build_masking, [x])
    _compare(ours, theirs)


def test_initial_state():
    h0 = np.random.RandomState(4).randn(3, 3).astype(np.float32)
    c0 = np.random.RandomState(5).randn(3, 3).astype(np.float32)

    def build(keras, g):
        inp = g.placeholder(g.float32, [None, 5, 4])
        h, c = g.placeholder(g.float32, [None, 3]), g.placeholder(g.float32, [None, 3])
        layer = keras.layers.LSTM(3, return_sequences=True)
        return [inp, h, c], layer(inp, initial_state=[h, c]), [layer]

    ours, theirs = _run_both(build, [X, h0, c0])
    _compare(ours, theirs)


def test_dropout_only_in_training():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 5, 4])
        layer = tw.keras.layers.LSTM(3, dropout=0.5, recurrent_dropout=0.5)
        y_train, y_test = layer(x, training=True), layer(x, training=False)
        plain = tw.keras.layers.LSTM(3)
        y_plain = plain(x)
        y_phase = layer(x)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for v, w in zip(plain.weights, sess.run(layer.weights)):
                v.load(w, sess)
            a, b, c, d = sess.run([y_train, y_test, y_plain, y_phase], {x: X})
            e = sess.run(y_phase, {x: X, tw.keras.backend.learning_phase(): True})
    np.testing.assert_allclose(b, c, rtol=1e-6)
    np.testing.assert_allclose(d, c, rtol=1e-6)
    assert not np.allclose(a, c)
    assert not np.allclose(e, c)


def test_cells_called_directly():
    tf1, tf_keras = _tf_keras()
    x = np.random.RandomState(2).randn(2, 4).astype(np.float32)
    h = np.random.RandomState(3).randn(2, 3).astype(np.float32)
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            cell = keras.layers.GRUCell(3)
            out, states = cell(g.constant(x), [g.constant(h)])
            assert [v.name for v in cell.weights] == [
                "gru_cell/kernel:0",
                "gru_cell/recurrent_kernel:0",
                "gru_cell/bias:0",
            ]
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if g is tw:
                    w = sess.run(cell.weights)
                else:
                    for v, value in zip(cell.weights, w):
                        v.load(value, sess)
                result = sess.run([out, states[0]])
        if g is tw:
            ours = result
    for a, b in zip(ours, result):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_lstm_forget_bias_and_initializers():
    with tw.Graph().as_default():
        layer = tw.keras.layers.LSTM(2, recurrent_initializer="zeros", bias_initializer="zeros")
        layer(tw.placeholder(tw.float32, [None, 3, 4]))
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            bias, rk = sess.run([layer.weights[2], layer.weights[1]])
    np.testing.assert_array_equal(bias, [0, 0, 1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(rk, np.zeros((2, 8)))


def test_recurrent_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match='layer "lstm".*expected ndim=3, found ndim=2'):
            tw.keras.layers.LSTM(3)(tw.placeholder(tw.float32, [None, 4]))
        with pytest.raises(ValueError, match="positive integer"):
            tw.keras.layers.GRU(0)
        with pytest.raises(ValueError, match="Invalid merge mode"):
            tw.keras.layers.Bidirectional(tw.keras.layers.LSTM(2), merge_mode="max")
        with pytest.raises(ValueError, match="expects 2 state"):
            tw.keras.layers.LSTM(2)(tw.placeholder(tw.float32, [None, 3, 4]), initial_state=[tw.zeros([1, 2])])
        with pytest.raises(ValueError, match="Cannot unroll"):
            tw.keras.layers.LSTM(2, unroll=True)(tw.placeholder(tw.float32, [None, None, 4]))
        with pytest.raises(ValueError, match="time_distributed.*min_ndim=3"):
            tw.keras.layers.TimeDistributed(tw.keras.layers.Dense(2))(tw.placeholder(tw.float32, [None, 4]))


def test_custom_cell():
    """A user cell (Keras's documented MinimalRNNCell) in RNN, against the same cell in tf_keras."""
    _, tf_keras = _tf_keras()

    def make_cell(base, g):
        class MinimalRNNCell(base):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                self.state_size = units

            def build(self, input_shape):
                self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units))
                self.recurrent_kernel = self.add_weight(name="recurrent_kernel", shape=(self.units, self.units))
                self.built = True

            def call(self, inputs, states):
                prev_output = states[0]
                output = g.matmul(inputs, self.kernel) + g.matmul(prev_output, self.recurrent_kernel)
                return output, [output]

        return MinimalRNNCell(3)

    def build(keras, g):
        inp = g.placeholder(g.float32, [None, 5, 4])
        base = tw.keras.layers.Layer if keras is tw.keras else tf_keras.layers.Layer
        layer = keras.layers.RNN(make_cell(base, g), return_sequences=True)
        return [inp], layer(inp), [layer]

    ours, theirs = _run_both(build, [X])
    _compare(ours, theirs)


@pytest.mark.parametrize(
    "make", [lambda L: L.LSTM(3, stateful=True), lambda L: L.GRU(2, stateful=True, return_sequences=True)]
)
def test_stateful_layers_carry_states_across_batches(make):
    tf1, tf_keras = _tf_keras()
    batches = [np.random.RandomState(i).randn(2, 3, 4).astype(np.float32) for i in range(3)]
    results, values = [], None
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            inp = g.placeholder(g.float32, [2, 3, 4])
            layer = make(keras.layers)
            y = layer(inp)
            assert len(layer.weights) == 3 and len(layer.updates) == len(layer.states)
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if values is None:
                    values = sess.run(layer.weights)
                for v, w in zip(layer.weights, values):
                    v.load(w, sess)
                outs = [sess.run([y] + layer.updates, {inp: b})[0] for b in batches]
                layer.reset_states()
                outs.append(sess.run(y, {inp: batches[0]}))
            results.append(outs)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[0][0], results[0][-1], rtol=1e-6)  # reset_states: zeros again
    assert not np.allclose(results[0][0], results[0][1])


def test_stateful_needs_batch_size():
    with tw.Graph().as_default(), pytest.raises(ValueError, match="it needs to know its batch size"):
        tw.keras.layers.LSTM(2, stateful=True)(tw.placeholder(tw.float32, [None, 3, 4]))
    with tw.Graph().as_default():
        layer = tw.keras.layers.LSTM(2, stateful=True, batch_input_shape=(5, 3, 4))
        layer(tw.placeholder(tw.float32, [None, 3, 4]))
        assert [s.shape.as_list() for s in layer.states] == [[5, 2], [5, 2]]
