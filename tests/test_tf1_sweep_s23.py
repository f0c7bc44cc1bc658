"""Regression tests for the differences the s23 sweep of TF1 programs (tests/tf1_programs/p172..) found, each
checked against TensorFlow's compat.v1 behaviour (the expected names and messages are TensorFlow 2.21's; values
are checked against numpy)."""

import numpy as np
import pytest
import tensorweave as tw


def _masked_model(loss):
    keras = tw.keras
    model = keras.models.Sequential(
        [
            keras.layers.Embedding(5, 2, mask_zero=True, input_length=4, embeddings_initializer="ones"),
            keras.layers.Dense(3, activation="softmax", kernel_initializer=keras.initializers.Constant(
                [[0.5, -0.5, 0.0], [0.25, 0.0, -0.25]]), bias_initializer=keras.initializers.Constant([0.1, 0.2, 0.3])),
        ]
    )  # fmt: skip
    model.compile(tw.train.GradientDescentOptimizer(0.0), loss=loss)
    return model


@pytest.mark.parametrize("loss", ["sparse_categorical_crossentropy", "scce_object"])
def test_keras_loss_is_the_mean_over_unmasked_steps(loss):
    """An output carrying a Keras mask (Embedding(mask_zero=True) and the layers after it) gives compile's loss as
    tf_keras does: the mean over the unmasked steps, times any sample weights (p175; it ignored the mask)."""
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0], [4, 1, 2, 3]])
    y = np.array([[0, 1, 2, 0], [2, 2, 2, 2], [1, 0, 1, 2]])
    sw = np.array([1.0, 0.5, 2.0], np.float32)
    logits = np.array([0.75, -0.5, -0.25]) + np.array([0.1, 0.2, 0.3])
    p = np.exp(logits) / np.exp(logits).sum()
    per_step = -np.log(p[y])
    mask = (x != 0).astype(np.float64)
    with tw.Graph().as_default():
        fn = tw.keras.losses.SparseCategoricalCrossentropy() if loss == "scce_object" else loss
        model = _masked_model(fn)
        plain = model.evaluate(x, y, batch_size=3, verbose=0)
        weighted = model.evaluate(x, y, sample_weight=sw, batch_size=3, verbose=0)
    np.testing.assert_allclose(plain, (per_step * mask).sum() / mask.sum(), rtol=1e-5)
    np.testing.assert_allclose(weighted, (per_step * mask * sw[:, None]).sum() / mask.sum(), rtol=1e-5)
    assert not np.isclose(plain, per_step.mean())


def test_keras_metrics_weighted_by_output_mask():
    """Metrics of a masked output use the mask as their sample weights (tf_keras's v1 call_metric_function)."""
    x = np.array([[1, 2, 0], [3, 0, 0]])
    target = np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 10.0
    with tw.Graph().as_default():
        keras = tw.keras
        model = keras.models.Sequential(
            [
                keras.layers.Embedding(5, 2, mask_zero=True, input_length=3, embeddings_initializer="ones"),
                keras.layers.Dense(3, kernel_initializer="ones", bias_initializer="zeros"),
            ]
        )
        model.compile(tw.train.GradientDescentOptimizer(0.0), loss="mse", metrics=["mae"])
        loss, mae = model.evaluate(x, target, batch_size=2, verbose=0)
    err = np.abs(2.0 - target).mean(axis=-1)
    mask = (x != 0).astype(np.float64)
    np.testing.assert_allclose(mae, (err * mask).sum() / mask.sum(), rtol=1e-5)
    np.testing.assert_allclose(loss, (((2.0 - target) ** 2).mean(-1) * mask).sum() / mask.sum(), rtol=1e-5)


def test_unrolled_rnn_shares_a_cells_get_variable_calls():
    """A user RNNCell whose __call__ makes its weights with get_variable in its own variable_scope runs under
    dynamic_rnn (static time: unrolled) and static_rnn: the steps after the first reuse them (TF's static_rnn
    calls reuse_variables(); p177 failed with "already exists")."""

    class Cell(tw.nn.rnn_cell.RNNCell):
        state_size = output_size = 2

        def __call__(self, inputs, state, scope=None):
            with tw.variable_scope(scope or "my_cell"):
                w = tw.get_variable("w", [inputs.shape[1].value + 2, 2], initializer=tw.constant_initializer(0.5))
                h = tw.tanh(tw.matmul(tw.concat([inputs, state], 1), w))
            return h, h

    x = np.linspace(-1, 1, 2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2)
    with tw.Graph().as_default():
        outputs, _ = tw.nn.dynamic_rnn(Cell(), tw.constant(x), dtype=tw.float32)
        static_out, _ = tw.nn.static_rnn(Cell(), tw.unstack(tw.constant(x), axis=1), dtype=tw.float32, scope="st")
        names = [v.name for v in tw.global_variables()]
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got, last = sess.run([outputs, static_out[-1]])
    assert names == ["rnn/my_cell/w:0", "st/my_cell/w:0"]
    h = np.zeros((2, 2), np.float32)
    for t in range(3):
        h = np.tanh(np.concatenate([x[:, t], h], 1) @ np.full((4, 2), 0.5, np.float32))
        np.testing.assert_allclose(got[:, t], h, rtol=1e-5)
    np.testing.assert_allclose(last, h, rtol=1e-5)


def test_default_scope_names_follow_variable_scope_counts():
    """variable_scope(None, default_name=) is unique among the variable scopes open in its parent, apart from the
    name scopes (TF1's scope counts): a name scope "layer" leaves the variable scope "layer" (ops in "layer_1/"),
    the numbering starts over inside a re-entered string scope, and layer objects follow the same rule."""
    with tw.Graph().as_default():
        with tw.name_scope("layer"):
            pass
        with tw.variable_scope(None, default_name="layer") as s:
            op = tw.identity(1.0)
        names = [s.name, op.name]
        for _ in range(2):
            with tw.variable_scope("model", reuse=tw.AUTO_REUSE):
                for _ in range(2):
                    with tw.variable_scope(None, default_name="block"):
                        names.append(tw.get_variable("w", [1]).name)
        x = tw.ones([1, 3])
        with tw.name_scope("dense"):
            pass
        y = tw.layers.Dense(2)(x)
        with tw.name_scope("hidden"):
            pass
        a = tw.layers.Dense(2, name="hidden")(x)
        b = tw.layers.Dense(2, name="hidden")(x)
        names += [y.name, a.name, b.name]
        names += [v.name for v in tw.global_variables()[-6:]]
    assert names == [
        "layer",
        "layer_1/Identity:0",
        "model/block/w:0",
        "model/block_1/w:0",
        "model/block/w:0",
        "model/block_1/w:0",
        "dense_1/BiasAdd:0",
        "hidden_1/BiasAdd:0",
        "hidden_2/BiasAdd:0",
        "dense/kernel:0",
        "dense/bias:0",
        "hidden/kernel:0",
        "hidden/bias:0",
        "hidden_1/kernel:0",
        "hidden_1/bias:0",
    ]


def test_reentered_scope_object_restarts_default_names():
    """Re-entering a captured scope object gives default names from the start again (TF: "outer/dense/kernel
    already exists" without reuse, the same variables with reuse=True)."""
    with tw.Graph().as_default():
        x = tw.ones([1, 3])
        with tw.variable_scope("outer") as outer:
            first = tw.layers.dense(x, 2)
        with tw.variable_scope(outer), pytest.raises(ValueError, match="outer/dense/kernel already exists"):
            tw.layers.dense(x, 2)
        with tw.variable_scope(outer, reuse=True):
            again = tw.layers.dense(x, 2)
        assert [first.name, again.name] == ["outer/dense/BiasAdd:0", "outer_2/dense/BiasAdd:0"]
        assert len(tw.global_variables()) == 2


def test_make_template_with_layers_and_nested_templates():
    """A template whose function calls tf.layers or another make_template shares its variables on later calls (the
    second call failed with "dense_1/kernel does not exist"); later calls' ops go under "<name>_1/"; a tf.Variable
    made on a later call is TF's ValueError."""
    with tw.Graph().as_default():
        x = tw.ones([2, 3])

        def net(inp):
            h = tw.layers.dense(inp, 4)
            with tw.variable_scope(None, default_name="blk"):
                w = tw.get_variable("w", [4, 2])
            return tw.matmul(h, w)

        t = tw.make_template("net", net)
        a, b = t(x), t(x)
        outer = tw.make_template("outer", lambda y: tw.make_template("inner", lambda z: tw.layers.dense(z, 2))(y))
        c, d = outer(x), outer(x)
        names = [v.name for v in tw.global_variables()]
        bad = tw.make_template("bad", lambda y: y * tw.Variable(1.0, name="raw"))
        bad(x)
        with pytest.raises(ValueError, match="Trainable variable created when calling a template after the first"):
            bad(x)
        now = tw.make_template("now", lambda y: tw.layers.dense(y, 1), create_scope_now_=True)
        with tw.variable_scope("elsewhere"):
            e = now(x)
    assert names == [
        "net/dense/kernel:0",
        "net/dense/bias:0",
        "net/blk/w:0",
        "outer/inner/dense/kernel:0",
        "outer/inner/dense/bias:0",
    ]
    assert [a.name, b.name, c.name, d.name, e.name] == [
        "net/MatMul:0",
        "net_1/MatMul:0",
        "outer/inner/dense/BiasAdd:0",
        "outer_1/inner/dense/BiasAdd:0",
        "elsewhere/now/dense/BiasAdd:0",
    ]


def test_layer_scope_name():
    """Layer.scope_name: the variable scope of the first call, wherever the layer was made; a ValueError before."""
    with tw.Graph().as_default():
        with tw.variable_scope("builder"):
            layer = tw.layers.Dense(2)
        with pytest.raises(ValueError, match="has not been used yet"):
            _ = layer.scope_name
        with tw.variable_scope("caller"):
            layer(tw.ones([1, 3]))
        assert layer.scope_name == "caller/dense"


def test_gather_index_messages():
    """TF's kernel messages: a scalar index out of range is "indices = 5 is not in [0, 3)" (no "[]"), and
    gather_nd rows from an empty params is an error (it returned an empty tensor)."""
    with tw.Graph().as_default(), tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices = 5 is not in \[0, 3\)"):
            sess.run(tw.gather(tw.constant([1, 2, 3]), 5))
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
            sess.run(tw.gather(tw.constant([1, 2, 3]), [0, 3]))
        with pytest.raises(
            tw.errors.InvalidArgumentError,
            match=r"Requested more than 0 entries, but params is empty\.  Params shape: \[2,3,0\]",
        ):
            sess.run(tw.gather_nd(tw.zeros([2, 3, 0]), tw.zeros([2, 3, 2], tw.int32)))
        assert sess.run(tw.gather_nd(tw.zeros([2, 0]), tw.zeros([0, 1], tw.int32))).shape == (0, 0)


def test_keras_layer_weights_follow_their_name_scope():
    """Keras layers (unlike tf.layers) name their weights in their name scope, unique among the graph's names
    (tf_keras's v1 layers: "dense_1/kernel" where a name scope "dense" exists), inside a variable scope too."""
    with tw.Graph().as_default():
        keras = tw.keras
        x = tw.ones([1, 3])
        with tw.name_scope("dense"):
            pass
        y = keras.layers.Dense(2)(x)
        with tw.variable_scope("vs"):
            z = keras.layers.Dense(2, name="named")(x)
        with tw.name_scope("named"):
            pass
        w = keras.layers.Dense(2, name="named")(x)
        t = tw.layers.dense(x, 2)
        names = [v.name for v in tw.global_variables()]
    assert names == [
        "dense_1/kernel:0",
        "dense_1/bias:0",
        "vs/named/kernel:0",
        "vs/named/bias:0",
        "named_1/kernel:0",
        "named_1/bias:0",
        "dense/kernel:0",
        "dense/bias:0",
    ]
    assert [a.name for a in (y, z, w, t)] == [
        "dense_1/BiasAdd:0",
        "vs/named/BiasAdd:0",
        "named_1/BiasAdd:0",
        "dense_2/BiasAdd:0",
    ]


def test_subclassed_model_first_symbolic_call_sets_inputs_and_outputs():
    """A subclassed Model's first call on graph tensors makes them its inputs and outputs (tf_keras v1), so fit
    trains what that call built: with training=False, batch norm in inference mode (the loss at lr 0 is the
    inference loss, not the batch-statistics one)."""
    keras = tw.keras
    xs = np.linspace(-1.0, 2.0, 24, dtype=np.float32).reshape(8, 3)
    ys = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    kernel = np.array([[1.0, 0.0, -1.0], [0.5, 1.0, 0.0], [0.0, -1.0, 2.0]], np.float32)

    class Net(keras.Model):
        def __init__(self):
            super().__init__(name="net")
            self.bn = keras.layers.BatchNormalization()
            self.out = keras.layers.Dense(3, kernel_initializer=keras.initializers.Constant(kernel))

        def call(self, inputs, training=None):
            return self.out(self.bn(inputs, training=training))

    def fit_loss(prior_call):
        with tw.Graph().as_default():
            net = Net()
            if prior_call:
                x = tw.placeholder(tw.float32, [None, 3])
                y = net(x, training=False)
                assert net.inputs == [x] and net.outputs == [y]
            net.compile(tw.train.GradientDescentOptimizer(0.0), keras.losses.SparseCategoricalCrossentropy(True))
            return net.fit(xs, ys, batch_size=8, epochs=1, verbose=0).history["loss"][0]

    def ce(h):
        logits = h @ kernel
        return float(np.mean(np.log(np.exp(logits).sum(1)) - logits[np.arange(8), ys]))

    inference = xs / np.sqrt(1.0 + 1e-3)
    batch = (xs - xs.mean(0)) / np.sqrt(xs.var(0) + 1e-3)
    np.testing.assert_allclose(fit_loss(True), ce(inference), rtol=1e-5)
    np.testing.assert_allclose(fit_loss(False), ce(batch), rtol=1e-5)
    assert abs(ce(inference) - ce(batch)) > 0.01


def test_keras_layers_named_when_made():
    """Keras layers take a graph-unique name when they are made (tf_keras's unique_object_name), so a second
    instance of a subclassed model names its layers (and weights) dense_2, dense_3... (p187/p188: they restarted)."""
    keras = tw.keras

    class Net(keras.Model):
        def __init__(self):
            super().__init__(name="net")
            self.a = keras.layers.Dense(2)
            self.bn = keras.layers.BatchNormalization()

        def call(self, x, training=None):
            return self.bn(self.a(x), training=training)

    with tw.Graph().as_default():
        names = [keras.layers.Dense(2).name, keras.layers.Dense(3).name]
        first, second = Net(), Net()
        second(tw.ones([1, 3]), training=False)
        names += [first.a.name, second.a.name, second.bn.name, keras.layers.Dense(1).name]
        names += [v.name for v in second.variables[:3]]
    assert names == [
        "dense",
        "dense_1",
        "dense_2",
        "dense_3",
        "batch_normalization_1",
        "dense_4",
        "net/dense_3/kernel:0",
        "net/dense_3/bias:0",
        "net/batch_normalization_1/gamma:0",
    ]


def test_keras_get_session_initializes_keras_variables():
    """tf.keras.backend.get_session() initializes the Keras layers' variables it has not seen yet (tf_keras), so a
    later global_variables_initializer draws a seeded initializer again (TF's values: the second draw), and leaves
    other variables alone."""
    keras = tw.keras
    init = keras.initializers.RandomUniform(-0.2, 0.2, seed=188)
    with tw.Graph().as_default():
        dense = keras.layers.Dense(3, kernel_initializer=init)
        dense(tw.ones([1, 2]))
        other = tw.get_variable("other", [2], initializer=tw.ones_initializer())
        sess = keras.backend.get_session()
        first = sess.run(dense.kernel)
        assert not sess.run(tw.is_variable_initialized(other))
        sess.run(tw.global_variables_initializer())
        second = sess.run(dense.kernel)
    np.testing.assert_allclose(first[0], [0.07911755, -0.15149418, 0.00914335], rtol=1e-6)
    np.testing.assert_allclose(second[0], [0.14109488, 0.07783677, 0.14553414], rtol=1e-6)


@pytest.mark.parametrize(
    "make, op, allowed",
    [
        (lambda x: tw.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "same"), "MaxPool", '"SAME", "VALID"'),
        (lambda x: tw.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "same"), "AvgPool", '"SAME", "VALID"'),
        (
            lambda x: tw.nn.conv2d(x, tw.ones([2, 2, 1, 1]), [1, 1, 1, 1], "valid"),
            "Conv2D",
            '"SAME", "VALID", "EXPLICIT"',
        ),
        (lambda x: tw.nn.pool(x, [2, 2], "MAX", "same"), "MaxPool", '"SAME", "VALID"'),
    ],
)
def test_nn_padding_is_case_sensitive(make, op, allowed):
    """tf.nn's ops take "SAME"/"VALID" only: "same" is the op's ValueError, as in TensorFlow (p189; tensorweave
    upper-cased it). tf.layers and Keras still take any case."""
    with tw.Graph().as_default():
        x = tw.ones([1, 4, 4, 1])
        with pytest.raises(
            ValueError, match=f"Attr 'padding' of '{op}' Op passed string '(same|valid)' not in: {allowed}"
        ):
            make(x)
        with pytest.raises(ValueError, match=r"`padding` must be one of 'SAME' or 'VALID'\. Received: padding=same"):
            tw.nn.atrous_conv2d(x, tw.ones([2, 2, 1, 1]), 2, "same")
        assert tw.layers.max_pooling2d(x, 2, 2, padding="Same").shape.as_list() == [1, 2, 2, 1]
        assert tw.keras.layers.MaxPooling2D(2, padding="same")(x).shape.as_list() == [1, 2, 2, 1]


def test_sequential_of_models_builds_from_the_first_models_input():
    """Sequential([model, ...]) whose first model knows its input shape is built at once (tf_keras's
    get_input_shape_and_dtype looks into nested models; p190's GAN recipe failed with "isn't built")."""
    keras = tw.keras
    with tw.Graph().as_default():
        g = keras.Sequential([keras.layers.Dense(3, input_shape=(4,))], name="gen")
        inp = keras.Input((2,))
        f = keras.Model(inp, keras.layers.Dense(1)(inp), name="fn")
        c = keras.Sequential([g, keras.layers.Dense(2)], name="c")
        d = keras.Sequential([f, keras.layers.Dense(5)])
        got = [c.built, c.count_params(), c.inputs[0].name, c.outputs[0].shape.as_list()]
        got += [d.built, d.count_params(), d.inputs[0].name, d.outputs[0].shape.as_list()]
    assert got == [True, 23, "gen_input:0", [None, 2], True, 13, "fn_input:0", [None, 5]]


def test_reduce_join_of_a_ragged_tensor():
    """tf.strings.reduce_join takes a RaggedTensor (TF's ragged dispatch: rows, columns over the rows that have
    them, or all); p193's reduce_join(unicode_split(...), axis=1) was a TypeError."""
    with tw.Graph().as_default(), tw.Session() as sess:
        rt = tw.ragged.constant([["a", "b", "c"], [], ["d"], ["e", "f"]])
        got = sess.run(
            [
                tw.strings.reduce_join(rt, axis=1, separator="|"),
                tw.strings.reduce_join(rt, axis=0, separator=","),
                tw.strings.reduce_join(rt, axis=-1, keepdims=True),
                tw.strings.reduce_join(rt),
            ]
        )
    assert [np.asarray(g).tolist() for g in got] == [
        [b"a|b|c", b"", b"d", b"e|f"],
        [b"a,d,e", b"b,f", b"c"],
        [[b"abc"], [b""], [b"d"], [b"ef"]],
        b"abcdef",
    ]


def test_tensor_shape_conversion():
    """A fully defined TensorShape converts to an int32 "shape_as_tensor"; a partly known one is TF's ValueError
    (tf.zeros and tf.metrics.mean_tensor of a [None, 3] shape crashed with a TypeError); a None in a list shape
    is TF's TypeError."""
    with tw.Graph().as_default(), tw.Session() as sess:
        t = tw.convert_to_tensor(tw.TensorShape([2, 3]))
        assert [t.op.name, t.dtype, sess.run(t).tolist()] == ["shape_as_tensor", tw.int32, [2, 3]]
        for make in (
            lambda: tw.convert_to_tensor(tw.TensorShape([None, 3])),
            lambda: tw.zeros(tw.TensorShape([None, 3])),
            lambda: tw.metrics.mean_tensor(tw.placeholder(tw.float32, [None, 3])),
        ):
            with pytest.raises(
                ValueError, match=r"Cannot convert a partially known TensorShape \(\?, 3\) to a Tensor\."
            ):
                make()
        with pytest.raises(ValueError, match="partially known TensorShape <unknown>"):
            tw.convert_to_tensor(tw.TensorShape(None))
        with pytest.raises(TypeError, match="Expected int32, but got None of type 'NoneType'"):
            tw.zeros([None, 3])


def test_average_precision_at_k_drops_out_of_range_labels():
    """average_precision_at_k turns label ids >= num_classes into -1 (TF's _clean_out_of_range_indices) and counts
    only labels >= 0 as relevant: a row whose only label is out of range is NaN (0/0), as in TF (it was 2/3);
    its variables are "max_1" and "total" (the cond's reduce_max took "Max")."""
    with tw.Graph().as_default():
        logits = tw.constant([[0.1, 0.5, 0.3, 0.2], [0.9, 0.1, 0.4, 0.2], [0.2, 0.3, 0.1, 0.8]])
        dense = tw.metrics.average_precision_at_k(tw.constant([1, 7, 3], tw.int64), logits, k=2, name="apk")
        sp = tw.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], tw.constant([1, 9, 0, 4], tw.int64), [3, 2])
        sparse = tw.metrics.average_precision_at_k(sp, logits, k=3)
        ok = tw.metrics.average_precision_at_k(tw.constant([1, 0, 3], tw.int64), logits, k=2, name="ok")
        names = [v.op.name for v in tw.local_variables()]
        with tw.Session() as sess:
            sess.run(tw.local_variables_initializer())
            got = sess.run([dense[1], sparse[1], ok[1]])
    assert np.isnan(got[0])
    np.testing.assert_allclose(got[1:], [0.5, 1.0])
    assert names[:4] == ["apk/max_1", "apk/total", "average_precision_at_3/max_1", "average_precision_at_3/total"]


def test_shared_keras_layer_calls_and_nodes():
    """A Keras layer called twice opens a new name scope of its name each call ("encoder_1/Tanh", as tf_keras; it
    re-entered "encoder/" like tf.layers), and get_input_at / get_output_at / get_output_shape_at give each call's
    tensors (they were missing)."""
    keras = tw.keras
    with tw.Graph().as_default():
        left, right = keras.Input((5,), name="left"), keras.Input((5,), name="right")
        encoder = keras.layers.Dense(4, activation="tanh", name="encoder")
        a, b = encoder(left), encoder(right)
        dense = tw.layers.Dense(2, name="legacy")
        c, d = dense(left), dense(right)
        assert [a.name, b.name, c.name, d.name] == [
            "encoder/Tanh:0",
            "encoder_1/Tanh:0",
            "legacy/BiasAdd:0",
            "legacy/BiasAdd_1:0",
        ]
        assert encoder.get_output_at(1) is b and encoder.get_input_at(0) is left
        assert encoder.get_output_shape_at(1) == (None, 4)
        with pytest.raises(ValueError, match="Asked to get output at node 2, but the layer has only 2 inbound nodes"):
            encoder.get_output_at(2)
        with pytest.raises(RuntimeError, match="^The layer has never been called and thus has no defined output"):
            keras.layers.Dense(1).get_output_at(0)
