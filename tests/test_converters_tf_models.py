"""Models TensorFlow wrote, converted by tensorweave-convert and run on the lite runtime against TensorFlow's own
output: Keras models saved as a SavedModel directory, an .h5 or a .keras file; a TF2 SavedModel of a tf.Module
with a serving signature; a TF1 SavedModel (simple_save). Also the rewrites these need (Keras' Einsum and its
LayerNormalization) and the errors for what does not convert."""

import numpy as np
import pytest

from converters import lite_runner
from converters.cli import main as cli_main
from tf2_behavior import tf2_behavior

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("tf_keras")

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(autouse=True, scope="module")
def _tf2_behavior():
    """TF2 behavior, as a Keras user (and the tensorweave-convert process) has it (tests/tf2_behavior.py)."""
    with tf2_behavior():
        yield


def _eager():
    from tensorflow.python.eager import context

    # Eager, even when another test in this process has called tf.compat.v1.disable_eager_execution().
    return context.eager_mode()


def _cnn():
    layers = keras.layers
    i = keras.Input((12, 12, 3))
    h = layers.Conv2D(6, 3, activation="relu")(i)
    h = layers.BatchNormalization()(h)
    h = layers.DepthwiseConv2D(3, padding="same")(h)
    h = layers.ReLU(6.0)(h)
    h = layers.MaxPooling2D()(h)
    h = layers.Dropout(0.3)(layers.Flatten()(h))
    return keras.Model(i, layers.Dense(4, activation="softmax")(h)), np.float32


def _text():
    layers = keras.layers
    i = keras.Input((9,), dtype="int32")
    h = layers.Conv1D(6, 3, activation="relu")(layers.Embedding(50, 8)(i))
    return keras.Model(i, layers.Dense(2)(layers.GlobalAveragePooling1D()(h))), np.int32


def _encoder():
    """A pre-LN transformer block: MultiHeadAttention (Einsum), LayerNormalization, a GELU MLP."""
    layers = keras.layers
    i = keras.Input((5, 8))
    h = layers.LayerNormalization(epsilon=1e-5)(i)
    h = i + layers.MultiHeadAttention(num_heads=2, key_dim=4)(h, h)
    m = layers.Dense(8)(layers.Dense(16, activation="gelu")(layers.LayerNormalization()(h)))
    return keras.Model(i, layers.Dense(3)(layers.GlobalAveragePooling1D()(h + m))), np.float32


def _layer_norms():
    """LayerNormalization over several trailing axes (Keras' fused path) and over a middle one (its moments)."""
    layers = keras.layers
    i = keras.Input((3, 4, 5))
    h = layers.LayerNormalization(axis=[1, 2, 3])(i)
    h = layers.LayerNormalization(axis=2, center=False)(h)
    h = layers.LayerNormalization(axis=[2, 3])(h)
    return keras.Model(i, layers.Dense(2)(layers.Flatten()(h))), np.float32


def _unrolled_rnn():
    layers = keras.layers
    i = keras.Input((6, 4))
    h = layers.LSTM(5, return_sequences=True, unroll=True)(i)
    return keras.Model(i, layers.Dense(3)(layers.GRU(4, unroll=True)(h))), np.float32


def _rnn():
    """Keras' LSTM and GRU as written (unroll=False: a TF2 while loop), one of them Bidirectional: the converter
    rebuilds them unrolled over the static sequence length."""
    layers = keras.layers
    i = keras.Input((6, 4))
    h = layers.Bidirectional(layers.LSTM(5, return_sequences=True))(i)
    return keras.Model(i, layers.Dense(3, activation="softmax")(layers.GRU(4)(h))), np.float32


def _layer_zoo():
    """Keras layers beyond the common ones: Rescaling, ZeroPadding2D, a strided SAME conv, Cropping2D, LeakyReLU,
    PReLU, ELU, SeparableConv2D, AveragePooling2D SAME, hard_sigmoid, Permute, RepeatVector (Tile),
    TimeDistributed(Dense) with selu, and softplus."""
    layers = keras.layers
    i = keras.Input((9, 9, 3))
    h = layers.ZeroPadding2D(((1, 2), (0, 1)))(layers.Rescaling(1 / 255.0, offset=-0.5)(i))
    h = layers.Cropping2D(((1, 0), (0, 1)))(layers.Conv2D(4, 3, strides=2, padding="same")(h))
    h = layers.ELU()(layers.PReLU()(layers.LeakyReLU(0.1)(h)))
    h = layers.SeparableConv2D(6, 3, padding="same", depth_multiplier=2)(h)
    h = layers.Conv2D(4, 1, activation="hard_sigmoid")(layers.AveragePooling2D(3, strides=2, padding="same")(h))
    h = layers.Flatten()(layers.Permute((3, 1, 2))(h))
    h = layers.TimeDistributed(layers.Dense(5, activation="selu"))(layers.RepeatVector(3)(h))
    h = layers.Dense(4, activation="softplus")(layers.Flatten()(h))
    return keras.Model(i, h), np.float32


def _layer_zoo_2():
    """Keras layers whose graphs hold comparisons, selections and less common math: ELU(alpha != 1) (Greater,
    SelectV2), GroupNormalization (FloorDiv, DivNoNan, Zeros/OnesLike of a run-time batch), BatchNormalization(axis=1)
    (an NCHW batch norm), DepthToSpace, Masking before an LSTM (NotEqual, Any, SelectV2 per step), and
    MultiHeadAttention with a causal mask (MatrixBandPart)."""
    layers = keras.layers
    i = keras.Input((6, 6, 4))
    h = layers.ELU(0.7)(layers.Conv2D(8, 3, padding="same")(i))
    h = layers.BatchNormalization(axis=1)(layers.GroupNormalization(4)(h))
    h = layers.Lambda(lambda t: tf.nn.depth_to_space(t, 2))(h)
    seq = layers.Reshape((12, 24))(h)
    seq = layers.LSTM(6, return_sequences=True)(layers.Masking(0.0)(seq))
    seq = layers.MultiHeadAttention(2, 3)(seq, seq, use_causal_mask=True)
    return keras.Model(i, layers.Dense(3)(layers.Flatten()(seq))), np.float32


def _keyword_spotter():
    """An audio keyword spotter: Normalization (adapted), Conv1D + BatchNorm, MaxPooling1D, a dilated Conv1D,
    UpSampling1D (a concatenation of 40 slices: more inputs than one lite op takes), GlobalMaxPooling1D."""
    layers = keras.layers
    norm = layers.Normalization()
    norm.adapt(np.random.default_rng(6).standard_normal((20, 40, 10)).astype(np.float32))
    i = keras.Input((40, 10))
    h = layers.Activation("relu")(layers.BatchNormalization()(layers.Conv1D(8, 5, padding="same")(norm(i))))
    h = layers.UpSampling1D(2)(layers.Conv1D(8, 3, dilation_rate=2)(layers.MaxPooling1D(2)(h)))
    return keras.Model(i, layers.Dense(4, activation="softmax")(layers.GlobalMaxPooling1D()(h))), np.float32


def _sequence_mix():
    """SimpleRNN, a causal Conv1D, AveragePooling1D and an LSTM run backwards (go_backwards)."""
    layers = keras.layers
    i = keras.Input((12, 6))
    h = layers.Conv1D(4, 3, padding="causal")(layers.SimpleRNN(8, return_sequences=True)(i))
    h = layers.LSTM(5, go_backwards=True)(layers.AveragePooling1D(2)(h))
    return keras.Model(i, layers.Dense(2, activation="tanh")(h)), np.float32


def _randomize(model):
    rng = np.random.default_rng(1)
    model.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(w.dtype) for w in model.get_weights()])


def _input(model, dtype, batch=2):
    shape = [batch, *model.input_shape[1:]]
    rng = np.random.default_rng(0)
    return rng.integers(0, 50, shape).astype(dtype) if dtype == np.int32 else rng.standard_normal(shape).astype(dtype)


def _agrees_after_saving(tmp_path, model, x, filename):
    """Saves `model` as tmp_path/filename, converts it and checks the lite runtime's output against Keras'."""
    with _eager():
        want = model.predict(x, verbose=0)
        path = str(tmp_path / filename)
        model.save(path)
    got = _convert_and_run(tmp_path, path, {model.input_names[0]: x})
    np.testing.assert_allclose(got[model.output_names[0]], want, rtol=RTOL, atol=ATOL)


def _convert_and_run(tmp_path, source, feeds):
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", source, "--output", twl]) == 0
    return lite_runner.LiteRunner(twl).run(feeds)


@pytest.mark.parametrize(
    "build,save",
    [(_cnn, "dir"), (_cnn, "h5"), (_text, "keras"), (_encoder, "dir"), (_encoder, "h5"), (_layer_norms, "h5"),
     (_unrolled_rnn, "dir"), (_rnn, "dir"), (_rnn, "h5"),
     (_layer_zoo, "h5"), (_layer_zoo_2, "h5"), (_keyword_spotter, "h5"), (_sequence_mix, "keras")],
)  # fmt: skip
def test_keras_model_converts_and_agrees_with_keras(tmp_path, build, save):
    with _eager():
        model, dtype = build()
        if build in (_layer_norms, _layer_zoo_2):
            _randomize(model)  # (gamma 1 and beta 0 would hide a wrong normalization)
        x = _input(model, dtype)
        if build is _layer_zoo:
            x = np.abs(x) * 100  # pixel values, for Rescaling
        want = model.predict(x, verbose=0)
        source = str(tmp_path / {"dir": "saved", "h5": "model.h5", "keras": "model.keras"}[save])
        model.save(source)
    got = _convert_and_run(tmp_path, source, {model.input_names[0]: x})
    # The output is named as Keras' serving signature names it: the output layer's name.
    assert list(got) == model.output_names
    np.testing.assert_allclose(got[model.output_names[0]], want, rtol=RTOL, atol=ATOL)


def test_keras_model_with_several_inputs_and_outputs_keeps_their_names(tmp_path):
    """Inputs and outputs named as Keras names them (an int32 token input through Embedding + LSTM, a float
    input, an image through a swish Conv2D (IdentityN) and GlobalMaxPooling2D (Max))."""
    layers = keras.layers
    rng = np.random.default_rng(4)
    with _eager():
        tokens = keras.Input((7,), dtype="int32", name="tokens")
        extra = keras.Input((3,), name="extra")
        image = keras.Input((6, 6, 2), name="image")
        h = layers.LSTM(5)(layers.Embedding(20, 4)(tokens))
        g = layers.GlobalMaxPooling2D()(layers.Conv2D(3, 3, activation="swish")(image))
        z = layers.Concatenate()([h, extra, g])
        model = keras.Model(
            [tokens, extra, image],
            [layers.Dense(2, activation="softmax", name="zeta")(z), layers.Dense(1, name="alpha")(z)],
        )
        feeds = {
            "tokens": rng.integers(0, 20, (2, 7)).astype(np.int32),
            "extra": rng.standard_normal((2, 3)).astype(np.float32),
            "image": rng.standard_normal((2, 6, 6, 2)).astype(np.float32),
        }
        want = dict(zip(["zeta", "alpha"], model.predict([feeds["tokens"], feeds["extra"], feeds["image"]], verbose=0)))
        path = str(tmp_path / "multi.keras")
        model.save(path)
    got = _convert_and_run(tmp_path, path, feeds)
    assert sorted(got) == ["alpha", "zeta"]
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "name,size",
    [("EfficientNetB0", 64), ("MobileNetV3Small", 96)],
)
def test_keras_applications_convert_and_agree_with_keras(tmp_path, name, size):
    """Keras' own application models (random weights: weights=None, logits): EfficientNet's Rescaling,
    Normalization, squeeze-excite blocks and swish; MobileNetV3's hard-swish and hard-sigmoid."""
    with _eager():
        model = getattr(keras.applications, name)(
            input_shape=(size, size, 3), weights=None, classes=10, classifier_activation=None
        )
        x = np.random.default_rng(5).uniform(0, 255, (1, size, size, 3)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "app.h5")
        model.save(path)
    got = _convert_and_run(tmp_path, path, {model.input_names[0]: x})
    (key,) = got
    np.testing.assert_allclose(got[key], want, rtol=1e-3, atol=1e-4 * np.abs(want).max())


def test_keras_saved_model_with_a_custom_layer_converts_through_its_signature(tmp_path):
    """Keras cannot rebuild a custom layer it was not given; the SavedModel's serving signature still converts."""

    class Scale(keras.layers.Layer):
        def build(self, shape):
            self.s = self.add_weight("s", shape=(shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.s + 1.0

    with _eager():
        i = keras.Input((5,))
        model = keras.Model(i, keras.layers.Dense(3)(Scale()(i)))
        _agrees_after_saving(tmp_path, model, _input(model, np.float32), "custom")


def test_grouped_convolutions_and_application_layers_convert(tmp_path):
    """Keras' grouped Conv2D runs its convolution as a tf.function compiled by XLA, a call that TF's freezing keeps:
    inlined, then one convolution per group (groups=2) or a depthwise one (a group per channel, as ConvNeXt's).
    ConvNeXt's LayerScale is a layer Keras' applications define without registering it: an .h5 holding it loads
    with the applications' layers given to Keras."""
    from tf_keras.src.applications.convnext import LayerScale

    layers = keras.layers
    with _eager():
        i = keras.Input((9, 9, 4))
        h = layers.Conv2D(6, 3, groups=2, padding="same", activation="relu")(i)
        h = layers.Conv2D(12, 3, groups=6, strides=2, use_bias=False)(h)
        h = LayerScale(0.5, 12)(h)
        model = keras.Model(i, layers.Dense(3)(layers.GlobalAveragePooling2D()(h)))
        _randomize(model)
        _agrees_after_saving(tmp_path, model, _input(model, np.float32), "grouped.h5")


def test_frozen_graph_with_a_self_calling_function_is_refused(tmp_path, capsys):
    """A hostile .pb whose function calls itself twice (inlined, the graph would double per level): a clear error,
    not a hang."""
    graph_def = tf.compat.v1.GraphDef()
    fdef = graph_def.library.function.add()
    fdef.signature.name = "f"
    fdef.signature.input_arg.add(name="x", type=tf.float32.as_datatype_enum)
    fdef.signature.output_arg.add(name="y", type=tf.float32.as_datatype_enum)

    def call(node, inputs):
        node.op = "PartitionedCall"
        node.input.extend(inputs)
        node.attr["f"].func.name = "f"
        node.attr["Tin"].list.type.append(tf.float32.as_datatype_enum)
        node.attr["Tout"].list.type.append(tf.float32.as_datatype_enum)

    call(fdef.node_def.add(name="c0"), ["x"])
    call(fdef.node_def.add(name="c1"), ["c0:output:0"])
    fdef.ret["y"] = "c1:output:0"
    graph_def.node.add(name="x", op="Placeholder").attr["dtype"].type = tf.float32.as_datatype_enum
    call(graph_def.node.add(name="y"), ["x"])
    pb = tmp_path / "recursive.pb"
    pb.write_bytes(graph_def.SerializeToString())
    assert cli_main(["--input", str(pb), "--output", str(tmp_path / "r.twl"), "--inputs", "x", "--outputs", "y"]) == 1
    assert "calls 'f'" in capsys.readouterr().err


def test_fully_convolutional_model_runs_at_any_image_size(tmp_path):
    """Input((None, None, 3)): the height and width are run-time dims (inferred at a static 32 under the convolutions
    and pools, where 1 would be smaller than their windows); the lite model runs at other sizes."""
    layers = keras.layers
    with _eager():
        i = keras.Input((None, None, 3))
        h = layers.MaxPooling2D()(layers.Conv2D(8, 3, activation="relu")(i))
        model = keras.Model(i, layers.Conv2D(4, 1)(layers.Conv2D(6, 3, padding="same")(h)))
        path = str(tmp_path / "fcn.h5")
        model.save(path)
        xs = [
            np.random.default_rng(k).standard_normal(s).astype(np.float32)
            for k, s in enumerate([(1, 9, 9, 3), (2, 40, 30, 3)])
        ]
        wants = [model.predict(x, verbose=0) for x in xs]
    twl = str(tmp_path / "fcn.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    for x, want in zip(xs, wants):
        (got,) = runner.run({model.input_names[0]: x}).values()
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_frozen_graph_with_a_function_call_converts(tmp_path):
    """A frozen GraphDef (.pb) that still calls a function of its library (one compiled by XLA is not inlined by
    TF's freezing) converts: the call is inlined."""
    from tensorflow.python.framework import convert_to_constants

    with _eager():
        w = tf.Variable(np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32))

        @tf.function(jit_compile=True)
        def inner(x, w):
            return tf.nn.relu(tf.matmul(x, w)) + 1.0

        @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32, name="x")])
        def outer(x):
            return tf.identity(inner(x * 2.0, w), name="y")

        frozen = convert_to_constants.convert_variables_to_constants_v2(outer.get_concrete_function())
        graph_def = frozen.graph.as_graph_def()
        assert any(n.op in ("PartitionedCall", "StatefulPartitionedCall") for n in graph_def.node)
        x = np.random.default_rng(4).standard_normal((2, 4)).astype(np.float32)
        want = outer(tf.constant(x)).numpy()
    pb, twl = tmp_path / "frozen.pb", str(tmp_path / "frozen.twl")
    pb.write_bytes(graph_def.SerializeToString())
    assert cli_main(["--input", str(pb), "--output", twl, "--inputs", "x", "--outputs", "y"]) == 0
    got = lite_runner.LiteRunner(twl).run({"x": x})
    np.testing.assert_allclose(got["y"], want, rtol=RTOL, atol=ATOL)


def test_tf2_saved_model_of_a_module_converts_with_its_signature_names(tmp_path):
    """tf.saved_model.save of a tf.Module: its serving signature's argument and output keys name the .twl's
    inputs and outputs; the einsums it computes become transposes, reshapes and batch matmuls."""
    with _eager():
        rng = np.random.default_rng(2)

        class Attention(tf.Module):
            def __init__(self):
                self.wq = tf.Variable(rng.standard_normal([6, 2, 3]).astype(np.float32))
                self.wv = tf.Variable(rng.standard_normal([6, 4]).astype(np.float32))
                self.u = tf.Variable(rng.standard_normal([4]).astype(np.float32))

            @tf.function(input_signature=[tf.TensorSpec([None, 5, 6], tf.float32, name="tokens")])
            def serve(self, tokens):
                q = tf.einsum("btd,dhk->bhtk", tokens, self.wq)
                scores = tf.nn.softmax(tf.einsum("bhtk,bhsk->bhts", q, q))
                v = tf.einsum("btd,de->bte", tokens, self.wv)
                mixed = tf.einsum("bhts,bse->bhte", scores, v)
                # A label only one operand has (h, summed first) and a contraction to a vector.
                return {"mixed": mixed, "score": tf.einsum("bhte,e->bt", mixed, self.u)}

        module = Attention()
        path = str(tmp_path / "module")
        tf.saved_model.save(module, path, signatures=module.serve)
        x = rng.standard_normal([2, 5, 6]).astype(np.float32)
        want = {k: v.numpy() for k, v in module.serve(tf.constant(x)).items()}
    got = _convert_and_run(tmp_path, path, {"tokens": x})
    assert sorted(got) == ["mixed", "score"]
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=ATOL)


def test_tf1_saved_model_converts_with_its_signature_keys(tmp_path):
    v1 = tf.compat.v1
    path = str(tmp_path / "tf1")
    x = np.random.default_rng(3).standard_normal([3, 4]).astype(np.float32)
    with tf.Graph().as_default() as g:
        inp = v1.placeholder(tf.float32, [None, 4], name="features")
        w = v1.get_variable("w", initializer=np.arange(8.0, dtype=np.float32).reshape(4, 2) / 8)
        logits = tf.nn.bias_add(tf.matmul(inp, w), [0.5, -0.5], name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            v1.saved_model.simple_save(sess, path, {"x": inp}, {"logits": logits, "probs": probs})
            want = dict(zip(["logits", "probs"], sess.run([logits, probs], {inp: x})))
    got = _convert_and_run(tmp_path, path, {"x": x})
    assert sorted(got) == ["logits", "probs"]
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=ATOL)


def test_keras_rnn_over_a_run_time_sequence_length_converts(tmp_path):
    """Not unrolled (no static length): its while loop becomes the lite GRU (converters/tf_rnn_loops.py), which
    then takes any length."""
    with _eager():
        i = keras.Input((None, 5))
        model = keras.Model(i, keras.layers.GRU(4)(i))
        path = str(tmp_path / "gru.h5")
        model.save(path)
    twl = str(tmp_path / "m.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    for steps in (3, 8):
        x = np.random.default_rng(steps).standard_normal((2, steps, 5)).astype(np.float32)
        with _eager():
            want = model(x).numpy()
        (got,) = runner.run([x]).values()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_tf2_while_loop_over_tensor_lists_is_refused_with_advice(tmp_path, capsys):
    """A SavedModel that is not Keras' (no keras_metadata.pb) with a TF2 while loop over TensorLists."""
    with _eager():

        class Cumulative(tf.Module):
            @tf.function(input_signature=[tf.TensorSpec([4, 3], tf.float32)])
            def serve(self, x):
                out = tf.TensorArray(tf.float32, size=4)
                total = tf.zeros([3])
                for t in tf.range(4):
                    total += x[t]
                    out = out.write(t, total)
                return {"sums": out.stack()}

        module = Cumulative()
        path = str(tmp_path / "loop")
        tf.saved_model.save(module, path, signatures=module.serve)
    assert cli_main(["--input", path, "--output", str(tmp_path / "m.twl")]) == 1
    err = capsys.readouterr().err
    assert "TF2 while loop over TensorLists" in err and "not one: it reads 1 and writes 1" not in err, err
    assert "which the converter takes only as a recurrent layer" in err, err


def test_saved_model_without_a_signature_and_unknown_signature_are_refused(tmp_path, capsys):
    with _eager():
        module = tf.Module()
        module.v = tf.Variable(1.0)
        path = str(tmp_path / "nosig")
        tf.saved_model.save(module, path)
    assert cli_main(["--input", path, "--output", str(tmp_path / "m.twl")]) == 1
    assert "has no signature to convert" in capsys.readouterr().err
    with _eager():
        model, _ = _text()
        keras_dir = str(tmp_path / "text")
        model.save(keras_dir)
    assert cli_main(["--input", keras_dir, "--output", str(tmp_path / "m.twl"), "--signature", "predict"]) == 1
    assert "no signature 'predict'; it has ['serving_default']" in capsys.readouterr().err


def test_a_file_that_is_not_a_keras_model_is_refused(tmp_path, capsys):
    path = tmp_path / "broken.h5"
    path.write_bytes(b"not an hdf5 file")
    assert cli_main(["--input", str(path), "--output", str(tmp_path / "m.twl")]) == 1
    assert "no Keras could load the model" in capsys.readouterr().err
