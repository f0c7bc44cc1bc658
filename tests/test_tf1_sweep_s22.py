"""Regression tests for the differences the s22 sweep of TF1 programs (tests/tf1_programs/p138..) found, each
checked against TensorFlow's compat.v1 behaviour (the expected values are TensorFlow 2.21's)."""

import numpy as np
import pytest
import tensorweave as tw


def _sparse(value):
    return [
        np.asarray(value.indices).tolist(),
        np.asarray(value.values).tolist(),
        np.asarray(value.dense_shape).tolist(),
    ]


def test_rnn_cell_zero_state_name_scopes():
    """MultiRNNCell and the wrappers open their own "<Class>ZeroState" scope around their cells' zero states (the
    names ptb_word_lm-style code fed by; p139); a DeviceWrapper places its zero state on its device."""
    cells = tw.nn.rnn_cell
    with tw.Graph().as_default():
        multi = cells.MultiRNNCell([cells.DropoutWrapper(cells.BasicLSTMCell(3)), cells.BasicLSTMCell(3)])
        names = [[t.name for t in s] for s in multi.zero_state(2, tw.float32)]
        concat = cells.MultiRNNCell([cells.GRUCell(3), cells.GRUCell(3)], state_is_tuple=False)
        residual = cells.ResidualWrapper(cells.BasicLSTMCell(3)).zero_state(2, tw.float32)
        device = cells.DeviceWrapper(cells.GRUCell(3), "/cpu:0").zero_state(2, tw.float32)
        assert names == [
            [
                "MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros:0",
                "MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros_1:0",
            ],
            [
                "MultiRNNCellZeroState/BasicLSTMCellZeroState/zeros:0",
                "MultiRNNCellZeroState/BasicLSTMCellZeroState/zeros_1:0",
            ],
        ]
        assert concat.zero_state(2, tw.float32).name == "MultiRNNCellZeroState_1/MultiRNNCellZeroState/zeros:0"
        assert residual.c.name == "ResidualWrapperZeroState/BasicLSTMCellZeroState/zeros:0"
        assert device.name == "DeviceWrapperZeroState/GRUCellZeroState/zeros:0"
        assert device.device == "/device:CPU:0"


def test_keras_recurrent_defaults_are_tf1s():
    """TF1's tf.keras (tf.compat.v1.keras: the v1 LSTM and GRU) defaults to recurrent_activation="hard_sigmoid",
    implementation=1 and, for GRU, reset_after=False (p140's LSTM classifier trained to other losses before)."""
    layers = tw.keras.layers
    lstm, gru = layers.LSTM(3).get_config(), layers.GRU(3).get_config()
    assert (lstm["recurrent_activation"], lstm["implementation"]) == ("hard_sigmoid", 1)
    assert (gru["recurrent_activation"], gru["implementation"], gru["reset_after"]) == ("hard_sigmoid", 1, False)
    with tw.Graph().as_default():
        x = tw.constant(np.full([1, 2, 1], 3.0, np.float32))
        cell = layers.LSTM(1, kernel_initializer="ones", recurrent_initializer="zeros", bias_initializer="zeros")
        gru_layer = layers.GRU(1, kernel_initializer="ones", recurrent_initializer="zeros")
        y, z = cell(x), gru_layer(x)
        assert gru_layer.weights[2].shape.as_list() == [3]  # reset_after=False: one bias
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got, got_gru = sess.run([y, z])
    gate = min(0.2 * 3.0 + 0.5, 1.0)  # hard_sigmoid(3) = 1 (sigmoid(3) would be 0.95)
    c1 = gate * np.tanh(3.0)
    forget = min(0.2 * 4.0 + 0.5, 1.0)  # the forget bias starts at 1
    c2 = forget * c1 + gate * np.tanh(3.0)
    np.testing.assert_allclose(got, [[gate * np.tanh(c2)]], rtol=1e-6)
    np.testing.assert_allclose(got_gru, [[0.0]], atol=1e-6)  # z = hard_sigmoid(3) = 1 keeps h = 0


def test_keras_save_weights_tf_format_loads_by_topology(tmp_path):
    """save_weights in the TF format keys weights by the model's topology ("layer_with_weights-<i>/..."), so a
    second model with other layer names loads them (p140), as Keras' object-based checkpoints do."""

    def build(name):
        inputs = tw.keras.layers.Input(shape=(4,))
        h = tw.keras.layers.Embedding(5, 3)(inputs)
        h = tw.keras.layers.LSTM(2)(h)
        return tw.keras.Model(inputs, tw.keras.layers.Dense(1)(h), name=name)

    path = str(tmp_path / "w.ckpt")
    tw.keras.backend.clear_session()
    with tw.Graph().as_default():
        first = build("first")
        x = np.array([[1, 2, 3, 4]])
        expected = first.predict(x)
        first.save_weights(path)
        second = build("second")
        assert second.weights[0].name != first.weights[0].name
        second.load_weights(path)
        np.testing.assert_allclose(second.predict(x), expected, rtol=1e-6)
    names = sorted(name for name, _ in tw.train.list_variables(path))
    assert names == [
        "layer_with_weights-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-1/cell/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-1/cell/kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-1/cell/recurrent_kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-2/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-2/kernel/.ATTRIBUTES/VARIABLE_VALUE",
    ]


def test_igamma_gradient_with_respect_to_a():
    """tf.igamma / igammac have a gradient in a (TF's IgammaGradA; p143); values of TF 2.21."""
    with tw.Graph().as_default():
        a = tw.constant([0.5, 1.5, 2.0, 4.0])
        x = tw.constant([0.5, 1.0, 2.5, 7.0])
        ga = tw.gradients(tw.reduce_sum(tw.igamma(a, x)), a)[0]
        gc = tw.gradients(tw.reduce_sum(tw.igammac(a, x)), a)[0]
        with tw.Session() as sess:
            got, got_c = sess.run([ga, gc])
    expected = [-0.6472004, -0.3746901, -0.24878307, -0.07095476]
    np.testing.assert_allclose(got, expected, rtol=2e-4)
    np.testing.assert_allclose(got_c, -np.asarray(expected), rtol=2e-4)


def test_dtype_limits_and_complex_type_error():
    """DType.limits as TF's property (negatives clipped; p143), and tf.complex of float32 and float64 parts a
    TypeError with TF's message (the imag part was converted to the real part's dtype, a ValueError)."""
    assert tw.uint8.limits == (0, 255) and tw.int8.limits == (0, 127) and tw.float32.limits == (0, 1)
    assert tw.bool.limits == (0, True)
    with pytest.raises(ValueError, match="does not have defined limits"):
        tw.float16.limits
    with tw.Graph().as_default():
        with pytest.raises(TypeError, match="The `real` and `imag` components have incorrect types: float32 float64"):
            tw.complex([1.0], tw.constant([1.0], tw.float64))
        assert tw.complex(tw.constant([1.0], tw.float64), tw.constant([2.0], tw.float64)).dtype == tw.complex128


def test_tensor_array_stack_size_known_from_static_size():
    """A TensorArray whose size is a tensor known while building (tf.size of a constant) stacks to that static
    first dimension once its element shape is inferred from the writes, as TF's constant_value (p146)."""
    with tw.Graph().as_default():
        xs = tw.constant([1.0, 2.0, 3.0])
        n = tw.size(xs)
        ta = tw.TensorArray(tw.float32, size=n).write(0, 1.0)
        assert ta.stack().shape.as_list() == [3]
        _, (looped,) = tw.while_loop(
            lambda i, tas: i < n,
            lambda i, tas: (i + 1, (tas[0].write(i, xs[i] * 2.0),)),
            (0, (tw.TensorArray(tw.float32, size=n),)),
        )
        stacked = looped.stack()
        assert stacked.shape.as_list() == [3]
        with tw.Session() as sess:
            assert sess.run(stacked).tolist() == [2.0, 4.0, 6.0]
        unknown = tw.TensorArray(tw.float32, size=tw.placeholder(tw.int32, [])).write(0, 1.0)
        assert unknown.stack().shape.as_list() == [None]


def _small_model(activation="relu"):
    model = tw.keras.models.Sequential(
        [
            tw.keras.layers.Dense(4, activation=activation, input_shape=(3,), kernel_initializer="ones"),
            tw.keras.layers.Dense(1, kernel_initializer="ones"),
        ]
    )
    return model


def test_keras_load_model_custom_activation_and_metric(tmp_path):
    """load_model(custom_objects=) finds a custom activation and metric named in the saved config (p147; the
    activation was looked up without them: ValueError "Unknown activation function")."""

    def scaled_tanh(t):
        return 2.0 * tw.tanh(t)

    def mean_pred(y_true, y_pred):
        return tw.reduce_mean(y_pred)

    path = str(tmp_path / "m.h5")
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10.0
    tw.keras.backend.clear_session()
    model = _small_model(scaled_tanh)
    model.compile("sgd", "mse", metrics=[mean_pred])
    expected = model.predict(x)
    model.save(path)
    loaded = tw.keras.models.load_model(path, custom_objects={"scaled_tanh": scaled_tanh, "mean_pred": mean_pred})
    np.testing.assert_allclose(loaded.predict(x), expected, rtol=1e-6)
    assert loaded.metrics_names == ["loss", "mean_pred"]
    with pytest.raises(ValueError, match="Unknown activation function: 'scaled_tanh'. Please ensure you are using a"):
        tw.keras.models.load_model(path)


def test_keras_reduce_lr_on_plateau_large_min_delta():
    """ReduceLROnPlateau(min_delta > 1, patience=0) keeps the rate after the first epoch (best starts at inf for a
    loss) and halves it after each later one, as tf_keras: lr logged [0.5, 0.5, 0.25] (p147)."""
    tw.keras.backend.clear_session()
    model = _small_model()
    model.compile(tw.keras.optimizers.SGD(lr=0.5), "mse")
    x, y = np.zeros([4, 3], np.float32), np.zeros([4, 1], np.float32)
    cb = tw.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10.0)
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[cb])
    assert history.history["lr"] == [0.5, 0.5, 0.25]
    assert float(tw.keras.backend.get_value(model.optimizer.lr)) == 0.125


def test_keras_metric_returning_scalar_averages_over_batches():
    """A compile() metric function that returns a scalar counts once per batch (Keras' MeanMetricWrapper), not
    once per sample: batches of 3 and 1 with values 0 and 1 give 0.5 (p147)."""
    tw.keras.backend.clear_session()
    model = _small_model()

    def small_batch(y_true, y_pred):
        return tw.cast(tw.shape(y_pred)[0] < 2, tw.float32)

    model.compile("sgd", "mse", metrics=[small_batch])
    x, y = np.zeros([4, 3], np.float32), np.zeros([4, 1], np.float32)
    loss, value = model.evaluate(x, y, batch_size=3, verbose=0)
    assert value == 0.5


def test_nchw_convolution_pooling_and_channels_first_layers():
    """tf.nn.conv2d / max_pool / avg_pool with data_format="NCHW" (TF runs them on CPU; tensorweave transposes around
    its NHWC kernels) keep TF's output names and equal the NHWC results; tf.layers.conv2d / max_pooling2d /
    flatten take data_format="channels_first" (flatten in channels_last order, as TF); p150."""
    rng = np.random.RandomState(0)
    xv, wv = rng.randn(2, 3, 5, 5).astype(np.float32), rng.randn(2, 2, 3, 4).astype(np.float32)
    with tw.Graph().as_default():
        x, w = tw.constant(xv), tw.constant(wv)
        nhwc = tw.transpose(x, [0, 2, 3, 1])
        conv = tw.nn.conv2d(x, w, [1, 1, 2, 2], "SAME", data_format="NCHW", dilations=[1, 1, 1, 1])
        pool = tw.nn.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW")
        avg = tw.nn.avg_pool(x, [1, 1, 2, 2], [1, 1, 1, 1], "SAME", data_format="NCHW")
        assert (conv.name, pool.name, avg.name) == ("Conv2D:0", "MaxPool:0", "AvgPool:0")
        assert conv.shape.as_list() == [2, 4, 3, 3] and pool.shape.as_list() == [2, 3, 2, 2]
        refs = [
            tw.nn.conv2d(nhwc, w, [1, 2, 2, 1], "SAME"),
            tw.nn.max_pool(nhwc, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
            tw.nn.avg_pool(nhwc, [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
        ]
        layer = tw.layers.conv2d(x, 4, 2, data_format="channels_first", kernel_initializer=tw.constant_initializer(wv))
        flat = tw.layers.flatten(
            tw.layers.max_pooling2d(layer, 2, 2, data_format="channels_first"), data_format="channels_first"
        )
        ref_flat = tw.layers.flatten(tw.layers.max_pooling2d(tw.nn.conv2d(nhwc, w, [1, 1, 1, 1], "VALID"), 2, 2))
        grad = tw.gradients(tw.reduce_sum(conv * conv), x)[0]
        ref_grad = tw.gradients(tw.reduce_sum(refs[0] * refs[0]), x)[0]
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got, want = sess.run([[conv, pool, avg], refs])
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(*sess.run([flat, ref_flat]), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(*sess.run([grad, ref_grad]), rtol=1e-5, atol=1e-5)


def test_graph_prevent_feeding_and_fetching():
    """Graph.prevent_feeding / is_feedable / prevent_fetching / is_fetchable, and the Session's errors for them with
    TF's messages (p152; the methods were missing)."""
    with tw.Graph().as_default() as g:
        p = tw.placeholder(tw.float32, [])
        y = p * 2.0
        z = y + 1.0
        assert g.is_feedable(y) and g.is_fetchable(y)
        g.prevent_feeding(y)
        g.prevent_fetching(z.op)
        assert not g.is_feedable(y) and not g.is_fetchable(z) and not g.is_fetchable(z.op)
        with tw.Session() as sess:
            assert sess.run(y, {p: 2.0}) == 4.0
            with pytest.raises(ValueError, match="^Tensor mul:0 may not be fed.$"):
                sess.run(y * 1.0, {y: 1.0})
            with pytest.raises(ValueError, match="^Operation add has been marked as not fetchable") as info:
                sess.run(z, {p: 1.0})
            assert type(info.value).__name__ == "InaccessibleTensorError"


def test_meta_graph_def_holds_graph_def_and_tensor_shape_messages(tmp_path):
    """MetaGraphDef.graph_def is a GraphDef and TensorInfo.tensor_shape a TensorShapeProto, as TF's (they were bytes:
    `meta.graph_def.node` failed; p153). Needs the *_pb2.py generated from the current meta_graph.proto
    (`pip install -e .` runs protoc)."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 3], name="x")
        v = tw.Variable(tw.ones([3, 2]), name="v")
        y = tw.identity(tw.matmul(x, v), name="y")
        meta = tw.train.export_meta_graph()
        assert type(meta.graph_def).__name__ == "GraphDef"
        assert {"x", "v", "y"} <= {n.name for n in meta.graph_def.node}
        info = tw.saved_model.utils.build_tensor_info(x)
        assert [d.size for d in info.tensor_shape.dim] == [-1, 3] and not info.tensor_shape.unknown_rank
        assert tw.saved_model.utils.build_tensor_info(tw.placeholder(tw.int32)).tensor_shape.unknown_rank
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            tw.saved_model.simple_save(sess, str(tmp_path / "m"), inputs={"x": x}, outputs={"y": y})
    with tw.Graph().as_default(), tw.Session() as sess:
        loaded = tw.saved_model.loader.load(sess, ["serve"], str(tmp_path / "m"))
        assert "y" in {n.name for n in loaded.graph_def.node}
        sig = loaded.signature_def["serving_default"]
        assert [d.size for d in sig.outputs["y"].tensor_shape.dim] == [-1, 2]
        np.testing.assert_allclose(sess.run("y:0", {"x:0": np.ones([1, 3])}), [[3.0, 3.0]])
    with tw.Graph().as_default():
        tw.train.import_meta_graph(meta, import_scope="again")
        assert tw.get_default_graph().get_tensor_by_name("again/y:0").shape.as_list() == [None, 2]


def test_keras_and_layers_error_messages_are_tfs():
    """tf.keras / tf.layers errors with tf_keras 2.21's class and message (p157): a 1-D array fed to a 2-D input is a
    column (n, 1) first; a target of the wrong width for mse / cross entropy; Dense on an unknown last dimension;
    count_params before build; Concatenate of mismatched shapes; tf.layers.conv2d on a rank-3 input."""
    K = tw.keras
    tw.keras.backend.clear_session()
    with tw.Graph().as_default():
        model = K.Sequential([K.layers.Dense(4, input_shape=(3,)), K.layers.Dense(2)])
        model.compile("sgd", "mse")
        with pytest.raises(
            ValueError, match=r"expected dense_input to have shape \(3,\) but got array with shape \(1,\)"
        ):
            model.predict(np.zeros([3]))
        with pytest.raises(
            ValueError,
            match=r"^A target array with shape \(4, 3\) was passed for an output of shape \(None, 2\) while using as "
            r"loss `mean_squared_error`. This loss expects targets to have the same shape as the output.$",
        ):
            model.fit(np.zeros([4, 3]), np.zeros([4, 3]), verbose=0)
        column = K.Sequential([K.layers.Dense(1, input_shape=(1,))])
        column.compile("sgd", "mse")
        assert column.predict(np.zeros([3])).shape == (3, 1)
        with pytest.raises(ValueError, match=r"^The last dimension of the inputs to a Dense layer should be defined. "):
            K.layers.Dense(2)(tw.placeholder(tw.float32, [None, None]))
        with pytest.raises(ValueError, match=r"^You tried to call `count_params` on sequential_2, but the layer isn't"):
            K.Sequential([K.layers.Dense(2)]).count_params()
        with pytest.raises(ValueError, match=r"Received: input_shape=\[\(None, 3, 4\), \(None, 2, 5\)\]$"):
            K.layers.Concatenate()([K.layers.Input(shape=(3, 4)), K.layers.Input(shape=(2, 5))])
        assert K.layers.Concatenate()([K.layers.Input(shape=(3, 4)), K.layers.Input(shape=(3, 5))]).shape[-1] == 9
        with pytest.raises(
            ValueError, match=r'^Input 0 of layer "c1" is incompatible with the layer: expected min_ndim=4'
        ):
            tw.layers.conv2d(tw.zeros([2, 5, 5]), 2, 3, name="c1")


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda x: tw.concat([x, x], axis=2), "Shape must be at least rank 3 but is rank 2"),
        (lambda x: tw.reduce_sum(x, axis=2), "Invalid reduction dimension 2 for input with 2 dimensions."),
        (lambda x: tw.transpose(x, [1, 0, 2]), "Dimension must be 2 but is 3"),
        (
            lambda x: tw.argmax(x, axis=3),
            r"Dimension \(3\) must be in the range \[-2, 2\), where 2 is the number of dimensions in the input.",
        ),
        (lambda x: tw.expand_dims(x, 4), r"dim 4 not in the interval \[-3, 2\]."),
        (
            lambda x: tw.nn.softmax_cross_entropy_with_logits_v2(labels=tw.ones([2, 4]), logits=x),
            "Dimensions must be equal, but are 3 and 4",
        ),
        (
            lambda x: tw.nn.sparse_softmax_cross_entropy_with_logits(labels=tw.ones([2, 1], tw.int32), logits=x),
            r"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=\(2, 1\) of rank 2",
        ),
        (lambda x: tw.pad(x, [[1, 1]]), "Shape must be rank 1 but is rank 2"),
        (
            lambda x: tw.nn.conv2d(tw.ones([1, 4, 4, 3]), tw.ones([2, 2, 2, 1]), [1, 1, 1, 1], "SAME"),
            r"Depth of input \(3\) is not a multiple of input depth of filter \(2\)",
        ),
        (lambda x: tw.split(x, [1, 1], axis=1), r"can't split axis of size 3 into pieces of size \[1,1\]"),
        (
            lambda x: tw.where(tw.constant([True, False]), tw.ones([2]), tw.ones([3])),
            r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2\] and \[3\].",
        ),
        (lambda x: tw.fill([2, -1], 0.0), "Fill dimensions must be >= 0"),
    ],
)
def test_construction_errors_have_tfs_messages(build, message):
    """Graph-construction errors of common ops with TF's shape functions' wording (p159), each a ValueError."""
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="^" + message):
            build(tw.ones([2, 3]))


def test_one_shot_iterator_refuses_a_captured_placeholder():
    """make_one_shot_iterator over a dataset that reads a placeholder is TF's ValueError (p160: the one-shot
    iterator ran with the placeholder never fed); an initializable iterator takes it."""
    with tw.Graph().as_default():
        p = tw.placeholder(tw.float32, [None])
        ds = tw.data.Dataset.from_tensor_slices(p).map(lambda v: v * 2.0)
        with pytest.raises(
            ValueError, match=r"^Cannot capture a placeholder \(name:Placeholder, type:Placeholder\) by"
        ):
            ds.make_one_shot_iterator()
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tw.Session() as sess:
            sess.run(it.initializer, {p: [1.0, 2.0]})
            assert sess.run(nxt) == 2.0


def test_training_setup_errors_are_tfs():
    """Training-setup errors with TF1's classes and messages (p161): assign of another shape and a gradient of
    another shape (the shape functions' Merge wording), tf.assign to a Tensor (AttributeError, as TF1's ref.assign),
    apply_gradients of only None gradients (the variables' str), a Saver over a Tensor, EMA of an int variable,
    piecewise_constant's lengths; compute_gradients takes a Tensor in var_list (TF1's _TensorProcessor)."""
    with tw.Graph().as_default():
        v = tw.Variable([1.0, 2.0], name="v")
        c = tw.constant(3.0)
        opt = tw.train.GradientDescentOptimizer(0.1)
        shapes = r"^Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2\] and \[3\]."
        with pytest.raises(ValueError, match=shapes):
            tw.assign(v, [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match=shapes):
            opt.apply_gradients([(tw.ones([3]), v)])
        with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'assign_add'$"):
            tw.assign_add(c, 1.0)
        with pytest.raises(
            ValueError, match=r"^No gradients provided for any variable: \[\"<tf.Variable 'v:0' shape=\(2,\)"
        ):
            opt.apply_gradients([(None, v)])
        with pytest.raises(TypeError, match=r'^Variable to save is not a Variable: Tensor\("Const:0", shape=\(\)'):
            tw.train.Saver([c])
        with pytest.raises(TypeError, match="^The variables must be half, float, or double: counter:0$"):
            tw.train.ExponentialMovingAverage(0.9).apply([tw.Variable(1, name="counter")])
        with pytest.raises(ValueError, match="^The length of boundaries should be 1 less than the length of values$"):
            tw.train.piecewise_constant(tw.constant(1), [1, 2], [0.1, 0.2])
        x = tw.constant([1.0, 2.0])
        ((grad, var),) = opt.compute_gradients(tw.reduce_sum(x * x), var_list=[x])
        assert var is x
        with tw.Session() as sess:
            assert sess.run(grad).tolist() == [2.0, 4.0]


def test_as_graph_def_add_shapes():
    """Graph.as_graph_def(add_shapes=True) writes each node's `_output_shapes`, as TF's (p162: it was ignored); the
    GraphDef still imports."""
    with tw.Graph().as_default() as g:
        x = tw.placeholder(tw.float32, [None, 2], name="input")
        tw.matmul(x, tw.constant([[1.0], [2.0]]), name="logits")
        plain = g.as_graph_def()
        shaped = g.as_graph_def(add_shapes=True)
    assert all("_output_shapes" not in n.attr for n in plain.node)
    shapes = {n.name: [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape] for n in shaped.node}
    assert shapes["input"] == [[-1, 2]] and shapes["logits"] == [[-1, 1]] and shapes["Const"] == [[2, 1]]
    with tw.Graph().as_default() as g2:
        tw.import_graph_def(shaped, name="")
        assert g2.get_tensor_by_name("logits:0").shape.as_list() == [None, 1]


def test_data_experimental_dense_to_sparse_batch():
    """tf.data.experimental.dense_to_sparse_batch (p165; it was missing): elements of varying length batched into
    SparseTensors of dense shape [batch, *row_shape]; TF 2.21's values."""
    with tw.Graph().as_default():
        ds = (
            tw.data.Dataset.from_tensor_slices([[1, 0, 5], [2, 3, 0], [4, 0, 0]])
            .map(lambda r: tw.boolean_mask(r, r > 0))
            .apply(tw.data.experimental.dense_to_sparse_batch(2, [3]))
        )
        assert ds.output_classes is tw.SparseTensor and ds.output_shapes.as_list() == [None, 3]
        nxt = ds.make_one_shot_iterator().get_next()
        with tw.Session() as sess:
            first, second = _sparse(sess.run(nxt)), _sparse(sess.run(nxt))
    assert first == [[[0, 0], [0, 1], [1, 0], [1, 1]], [1, 5, 2, 3], [2, 3]]
    assert second == [[[0, 0]], [4], [1, 3]]


def test_keras_batch_flatten_static_width():
    """K.batch_flatten keeps the static width (and batch) when the non-batch dims are known, as TF's shape inference
    folds the computed shape (p167: it was (?, ?))."""
    K = tw.keras.backend
    with tw.Graph().as_default():
        assert K.int_shape(K.batch_flatten(K.constant(np.ones([2, 3, 4])))) == (2, 12)
        assert K.int_shape(K.batch_flatten(tw.placeholder(tw.float32, [None, 3, 4]))) == (None, 12)
        assert K.int_shape(K.batch_flatten(tw.placeholder(tw.float32, [None, None, 4]))) == (None, None)


def test_sparse_merge_static_dense_shape():
    """tf.sparse_merge of SparseTensors with a known dense shape has a static shape [rows..., vocab_size], as TF's
    (p168: it was unknown); the values are the ids' columns."""
    with tw.Graph().as_default():
        ids = tw.SparseTensor([[0, 0], [0, 1], [2, 0]], tw.constant([3, 1, 5], tw.int64), [3, 2])
        weights = tw.SparseTensor([[0, 0], [0, 1], [2, 0]], [0.5, 1.5, 2.0], [3, 2])
        merged = tw.sparse_merge(ids, weights, 6)
        assert merged.get_shape().as_list() == [3, 6]
        with tw.Session() as sess:
            value = _sparse(sess.run(merged))
    assert value == [[[0, 1], [0, 3], [2, 5]], [1.5, 0.5, 2.0], [3, 6]]
