"""More models TensorFlow and Keras wrote, through tensorweave-convert and the lite runtime, against Keras' own
output: padded text through Embedding(mask_zero=True) and Bidirectional RNNs returning sequences (tf_keras and
Keras 3), and the TensorFlow ops those models hold that needed a rewrite or a lowering."""

import numpy as np
import pytest

from converters import lite_runner
from converters.cli import main as cli_main
from tf2_behavior import tf2_behavior

tf = pytest.importorskip("tensorflow")
tf_keras = pytest.importorskip("tf_keras")

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(autouse=True, scope="module")
def _tf2_behavior():
    """TF2 behavior, as a Keras user (and the tensorweave-convert process) has it (tests/tf2_behavior.py)."""
    with tf2_behavior():
        yield


def _eager():
    from tensorflow.python.eager import context

    return context.eager_mode()  # (even when another test in this process disabled eager execution)


def _convert_and_run(tmp_path, source, feeds):
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", source, "--output", twl]) == 0
    return lite_runner.LiteRunner(twl).run(feeds)


def _padded_tokens():
    """Token ids with padding (0) inside and at the end of each row."""
    tokens = np.random.default_rng(3).integers(1, 30, (3, 10)).astype(np.int32)
    tokens[0, 3:5] = 0
    tokens[1, 7:] = 0
    tokens[2, :2] = 0
    return tokens


def _masked_text_model(keras):
    layers = keras.layers
    tokens = keras.Input((10,), dtype="int32", name="tokens")
    h = layers.Embedding(30, 8, mask_zero=True)(tokens)
    h = layers.Bidirectional(layers.LSTM(6, return_sequences=True))(h)
    seq = layers.Bidirectional(layers.GRU(5, return_sequences=True), name="per_token")(h)
    return keras.Model(tokens, [seq, layers.Dense(2, name="logits")(seq)])


@pytest.mark.parametrize("module,save", [("tf_keras", "h5"), ("keras", "keras")])
def test_masked_bidirectional_rnns_returning_sequences_agree_with_keras(tmp_path, module, save):
    """Keras runs an RNN as a while loop, which the converter rebuilds unrolled; Keras' unrolled RNN zeroes the
    padded steps of a Bidirectional layer's backward sequence at the mirrored positions (its mask not reversed
    with the steps). The converted model zeroes them where the saved model does."""
    keras = pytest.importorskip(module)
    tokens = _padded_tokens()
    with _eager():
        keras.utils.set_random_seed(0)
        model = _masked_text_model(keras)
        want = dict(zip(["per_token", "logits"], model.predict(tokens, verbose=0)))
        path = str(tmp_path / f"model.{save}")
        model.save(path)
    got = _convert_and_run(tmp_path, path, {"tokens": tokens})
    assert sorted(got) == ["logits", "per_token"]
    # The padded steps of the sequence output are zeros, as in Keras.
    assert not np.any(got["per_token"][0, 3:5]) and not np.any(got["per_token"][1, 7:])
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=RTOL, atol=ATOL, err_msg=key)


def _image_model():
    """tf.image.resize in Lambda layers (bilinear, nearest, bicubic, area: TF2's half-pixel sampling) and a Dense
    with activation="softsign" (Softsign, an op the core does not define)."""
    layers = tf_keras.layers
    image = tf_keras.Input((6, 8, 3), name="image")
    h = layers.Conv2D(4, 3, padding="same")(image)
    resized = [
        layers.Lambda(lambda t: tf.image.resize(t, (9, 11)))(h),
        layers.Lambda(lambda t: tf.image.resize(t, (4, 5), method="nearest"))(h),
        layers.Lambda(lambda t: tf.image.resize(t, (11, 13), method="bicubic"))(h),
        layers.Lambda(lambda t: tf.image.resize(t, (3, 2), method="area"))(h),
        layers.Lambda(lambda t: tf.image.resize(t, (12, 16), method="area"))(h),
    ]
    h = layers.Concatenate()([layers.Flatten()(r) for r in resized])
    return tf_keras.Model(image, layers.Dense(5, activation="softsign", name="scores")(h))


def test_resizes_in_lambda_layers_and_softsign_agree_with_keras(tmp_path):
    with _eager():
        tf_keras.utils.set_random_seed(1)
        model = _image_model()
        x = np.random.default_rng(2).uniform(0, 1, (2, 6, 8, 3)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "model.h5")
        model.save(path)
    got = _convert_and_run(tmp_path, path, {"image": x})
    np.testing.assert_allclose(got["scores"], want, rtol=RTOL, atol=ATOL)


def _frozen_graph(tmp_path, build, x):
    """(path of a frozen TF1 GraphDef with input "x" and outputs y0, y1, ..., TensorFlow's outputs)."""
    v1 = tf.compat.v1
    with tf.Graph().as_default() as g:
        xt = v1.placeholder(tf.float32, x.shape, name="x")
        names = [tf.identity(o, name=f"y{i}").name for i, o in enumerate(build(xt))]
        with v1.Session() as sess:
            wants = sess.run(names, {xt: x})
    pb = str(tmp_path / "model.pb")
    with open(pb, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    return pb, [n.split(":")[0] for n in names], wants


def _cli_run_graph(tmp_path, pb, outputs, x):
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", pb, "--output", twl, "--inputs", "x", "--outputs", ",".join(outputs)]) == 0
    return lite_runner.LiteRunner(twl).run({"x": x})


def test_resize_bicubic_and_area_agree_with_tensorflow_exactly(tmp_path):
    """ResizeBicubic in each sampling mode, up and down (TensorFlow's weights come from a table of 1024 steps per
    pixel: the lite runtime rounds to it, so the results agree to float rounding), and ResizeArea by whole
    factors (shrinking: block averages; growing: repeated pixels)."""
    x = np.random.default_rng(1).uniform(0, 255, [2, 5, 6, 3]).astype(np.float32)

    def build(xt):
        outs = []
        for size in ([8, 11], [3, 4], [5, 6]):
            for align, half in ((True, False), (False, True), (False, False)):
                outs.append(
                    tf.compat.v1.raw_ops.ResizeBicubic(
                        images=xt, size=size, align_corners=align, half_pixel_centers=half
                    )
                )
        outs += [tf.compat.v1.image.resize_area(xt, size) for size in ([5, 3], [10, 12], [1, 18], [10, 3])]
        return outs

    pb, outputs, wants = _frozen_graph(tmp_path, build, x)
    got = _cli_run_graph(tmp_path, pb, outputs, x)
    for name, want in zip(outputs, wants):
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-3, err_msg=name)


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda xt: [tf.compat.v1.image.resize_area(xt, [3, 4])], "each axis must shrink or grow by a whole factor"),
        (lambda xt: [tf.compat.v1.image.resize_area(xt, [5, 3], align_corners=True)], "align_corners=True"),
    ],
)
def test_resize_area_by_a_fraction_is_refused_naming_the_node(tmp_path, capsys, build, message):
    x = np.zeros([1, 5, 6, 3], np.float32)
    pb, outputs, _ = _frozen_graph(tmp_path, build, x)
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", pb, "--output", twl, "--inputs", "x", "--outputs", ",".join(outputs)]) == 1
    err = capsys.readouterr().err
    assert "ResizeArea" in err and message in err, err


def _static_dims_model():
    """A run-time batch with static image dims read through tf.shape: a Lambda resizing a feature map to a skip
    connection's size (DeepLab's decoder), and CenterCrop (a tf.cond on the image size, then
    crop_to_bounding_box: a Slice whose size holds the run-time batch)."""
    layers = tf_keras.layers
    image = tf_keras.Input((12, 12, 3), name="image")
    crop = layers.CenterCrop(8, 8)(image)
    skip = layers.Conv2D(4, 3, padding="same")(crop)
    h = layers.Conv2D(6, 3, strides=4, padding="same")(skip)
    h = layers.Lambda(lambda ts: tf.image.resize(ts[0], tf.shape(ts[1])[1:3]))([h, skip])
    return tf_keras.Model(image, layers.Conv2D(2, 1, name="mask")(layers.Concatenate()([h, skip])))


def test_static_dims_read_through_the_shape_of_a_run_time_batch_fold(tmp_path):
    with _eager():
        tf_keras.utils.set_random_seed(2)
        model = _static_dims_model()
        x = np.random.default_rng(4).standard_normal((3, 12, 12, 3)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "model.h5")
        model.save(path)
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    for batch in (3, 1):  # (the same .twl at another batch)
        got = runner.run({"image": x[:batch]})
        np.testing.assert_allclose(got["mask"], want[:batch], rtol=RTOL, atol=ATOL)


def test_keras3_export_of_an_rnn_converts_as_the_keras_file_does(tmp_path):
    """Keras 3's model.export writes its LSTM as a TF2 while loop (no Keras metadata to rebuild it from): the loop
    becomes the lite LSTM (converters/tf_rnn_loops.py); the .keras file converts unrolled. Both agree with Keras."""
    keras = pytest.importorskip("keras")
    with _eager():
        i = keras.Input((6, 3), name="x")
        model = keras.Model(i, keras.layers.LSTM(4)(i))
        x = np.random.default_rng(0).standard_normal((2, 6, 3)).astype(np.float32)
        want = model.predict(x, verbose=0)
        model.export(str(tmp_path / "exported"), verbose=False)
        model.save(str(tmp_path / "model.keras"))
    for source in ("exported", "model.keras"):
        got = _convert_and_run(tmp_path, str(tmp_path / source), [x])
        (value,) = got.values()
        np.testing.assert_allclose(value, want, rtol=RTOL, atol=ATOL, err_msg=source)


def _lambda_math_model():
    """TensorFlow ops Keras users write in Lambda layers: reduce_logsumexp (IsFinite), the tanh GELU (Pow 3),
    cumsum (reverse), top_k, a Pow of 1.5, and an EinsumDense whose equation has an ellipsis."""
    layers = tf_keras.layers
    x = tf_keras.Input((4, 6), name="x")
    parts = [
        layers.Lambda(lambda t: tf.math.reduce_logsumexp(t, axis=-1))(x),
        layers.Lambda(lambda t: tf.nn.gelu(t, approximate=True))(x),
        layers.Lambda(lambda t: tf.cumsum(t, axis=1, reverse=True))(x),
        layers.Lambda(lambda t: tf.math.top_k(t, 2).values * tf.cast(tf.math.top_k(t, 2).indices, tf.float32))(x),
        layers.Lambda(lambda t: tf.math.pow(tf.abs(t), 1.5))(x),
        layers.EinsumDense("...b,bc->...c", output_shape=3, bias_axes="c")(x),
    ]
    return tf_keras.Model(x, layers.Concatenate(name="features")([layers.Flatten()(p) for p in parts]))


def test_lambda_math_and_an_ellipsis_einsum_agree_with_keras(tmp_path):
    with _eager():
        tf_keras.utils.set_random_seed(3)
        model = _lambda_math_model()
        x = np.random.default_rng(5).standard_normal((2, 4, 6)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "model.h5")  # (a .keras file's Lambda loads only in Keras' unsafe mode)
        model.save(path)
    got = _convert_and_run(tmp_path, path, {"x": x})
    np.testing.assert_allclose(got["features"], want, rtol=RTOL, atol=ATOL)


def test_a_keras_file_with_a_lambda_converts_only_outside_safe_mode(tmp_path, capsys):
    """Keras loads a .keras file's Lambda layer (Python code) only with safe_mode=False: refused naming the way
    (--no-keras-safe-mode, or .h5), which then converts."""
    keras = tf_keras
    with _eager():
        x_in = keras.Input((4, 4, 2), name="image")
        model = keras.Model(x_in, keras.layers.Lambda(lambda t: tf.image.resize(t, (6, 6)) * 2.0, name="up")(x_in))
        x = np.random.default_rng(0).standard_normal((1, 4, 4, 2)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "model.keras")
        model.save(path)
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--output", twl]) == 1
    assert "--no-keras-safe-mode" in capsys.readouterr().err
    assert cli_main(["--input", path, "--output", twl, "--no-keras-safe-mode"]) == 0
    (got,) = lite_runner.LiteRunner(twl).run({"image": x}).values()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_keras_3d_cnn_agrees_with_keras_at_two_batch_sizes(tmp_path):
    """A video classifier: Conv3D (SAME strided, VALID dilated in depth), MaxPooling3D, AveragePooling3D (SAME:
    its count excludes the padding), BatchNormalization and GlobalAveragePooling3D, with a run-time batch."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(4)
        clip = tf_keras.Input((5, 8, 8, 3), name="clip")
        h = layers.Conv3D(6, 3, strides=(1, 2, 2), padding="same", activation="relu")(clip)
        h = layers.BatchNormalization()(h)
        h = layers.MaxPooling3D((2, 2, 2), padding="same")(h)
        h = layers.Conv3D(4, (2, 1, 1), dilation_rate=(2, 1, 1))(h)
        h = layers.AveragePooling3D((1, 2, 2), strides=(1, 1, 1), padding="same")(h)
        model = tf_keras.Model(clip, layers.Dense(3, name="logits")(layers.GlobalAveragePooling3D()(h)))
        _randomize_batch_norms(model)
        x = np.random.default_rng(6).standard_normal((3, 5, 8, 8, 3)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "model.h5")
        model.save(path)
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    for batch in (3, 1):
        np.testing.assert_allclose(runner.run({"clip": x[:batch]})["logits"], want[:batch], rtol=RTOL, atol=ATOL)


def _randomize_batch_norms(model):
    rng = np.random.default_rng(7)
    for layer in model.layers:
        if isinstance(layer, tf_keras.layers.BatchNormalization):
            layer.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(np.float32) for w in layer.get_weights()])


def test_tf1_graph_ops_agree_with_tensorflow(tmp_path):
    """TF1 graph ops a frozen .pb holds: OneHot (a -1 label gives a row of off values), ArgMin, BroadcastTo,
    GatherNd of computed indices, Rint (half to even), Expm1, Log1p, Cumsum, TopKV2, MirrorPad (REFLECT,
    SYMMETRIC), ReverseSequence, LRN, Atan2 (x of 0 included)."""
    x = np.random.default_rng(8).standard_normal([2, 6, 5]).astype(np.float32)
    assert np.any(np.argmax(x, -1) == 0)  # (some labels are -1)

    def build(xt):
        labels = tf.cast(tf.argmax(xt, -1), tf.int32) - 1  # (-1 where the first column is largest)
        picks = tf.stack([tf.constant([1, 0]), tf.cast(tf.argmin(xt[:, :, 0], 1), tf.int32)], 1)
        return [
            tf.one_hot(labels, 4, on_value=3.0, off_value=-0.5),
            tf.cast(tf.argmin(xt, 1), tf.float32),
            tf.broadcast_to(xt[:1, :1, :], [3, 6, 5]),
            tf.gather_nd(xt, picks),
            tf.math.rint(xt * 2.5),
            tf.math.expm1(xt) + tf.math.log1p(tf.abs(xt)),
            tf.cumsum(xt, axis=1, exclusive=True),
            tf.math.top_k(xt, 3).values,
            tf.pad(xt, [[0, 0], [2, 1], [1, 3]], mode="REFLECT"),
            tf.pad(xt, [[0, 0], [0, 2], [2, 0]], mode="SYMMETRIC"),
            tf.reverse_sequence(xt, [4, 6], seq_axis=1, batch_axis=0),
            tf.nn.local_response_normalization(xt[:, :, :, None] * tf.ones([1, 1, 1, 6]) * tf.range(6.0), 2),
            tf.math.atan2(xt, tf.round(xt[::-1] * 2.0) / 2.0 + 0.0),
        ]

    pb, outputs, wants = _frozen_graph(tmp_path, build, x)
    got = _cli_run_graph(tmp_path, pb, outputs, x)
    for name, want in zip(outputs, wants):
        np.testing.assert_allclose(got[name], want, rtol=RTOL, atol=ATOL, err_msg=name)


def test_a_frozen_pb_of_keras_attention_with_a_run_time_batch_converts(tmp_path):
    """A GraphDef frozen from a tf_keras model (convert_variables_to_constants_v2) keeps MultiHeadAttention's and
    EinsumDense's Einsum ops, which the core lacks: the CLI lowers them from the shapes TensorFlow infers."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(5)
        x_in = tf_keras.Input((5, 8))
        h = x_in + layers.MultiHeadAttention(num_heads=2, key_dim=4)(x_in, x_in)
        model = tf_keras.Model(x_in, layers.EinsumDense("...b,bc->...c", output_shape=3)(h))
        spec = tf.TensorSpec([None, 5, 8], tf.float32, name="x")
        frozen = convert_variables_to_constants_v2(tf.function(lambda x: model(x)).get_concrete_function(spec))
        x = np.random.default_rng(9).standard_normal((3, 5, 8)).astype(np.float32)
        want = model.predict(x, verbose=0)
    pb = str(tmp_path / "model.pb")
    with open(pb, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    assert any(n.op == "Einsum" for n in frozen.graph.as_graph_def().node)
    got = _cli_run_graph(tmp_path, pb, ["Identity"], x)
    np.testing.assert_allclose(got["Identity"], want, rtol=RTOL, atol=ATOL)


def test_keras_preprocessing_layers_agree_with_keras(tmp_path):
    """Discretization (Bucketize, which the core lacks), CategoryEncoding multi_hot and count (DenseBincount, its
    size clipped to num_tokens; then a Sum of integers, which must not go through an integer MEAN) and an inverted
    Normalization."""
    layers = tf_keras.layers
    with _eager():
        x_in = tf_keras.Input((4,), name="x")
        bins = layers.Discretization(bin_boundaries=[-1.0, 0.0, 0.5])(x_in)
        model = tf_keras.Model(
            x_in,
            [
                layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot", name="multi_hot")(bins),
                layers.CategoryEncoding(num_tokens=4, output_mode="count", name="count")(bins),
                layers.Normalization(mean=0.5, variance=2.0, invert=True, name="restored")(x_in),
            ],
        )
        x = np.random.default_rng(10).standard_normal((3, 4)).astype(np.float32)
        want = dict(zip(model.output_names, model.predict(x, verbose=0)))
        path = str(tmp_path / "model.h5")
        model.save(path)
    got = _convert_and_run(tmp_path, path, {"x": x})
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=RTOL, atol=ATOL, err_msg=key)


def test_a_spectrogram_in_the_model_agrees_with_keras(tmp_path):
    """tf.abs(tf.signal.stft(...)) in a Lambda (frames shorter than the FFT: RFFT pads them) then log and a
    Conv1D, with a run-time batch: |RFFT| lowers to two matmuls with constant cos/sin matrices (no complex numbers
    in the lite runtime); tf.signal.frame's shape arithmetic (a SplitV of the Shape) folds, its slice takes the
    batch whole and its Reshapes take -1 for it."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(6)
        wave = tf_keras.Input((400,), name="wave")
        h = layers.Lambda(lambda t: tf.math.log(tf.abs(tf.signal.stft(t, 48, 32, fft_length=64)) + 1e-6))(wave)
        h = layers.GlobalAveragePooling1D()(layers.Conv1D(6, 3, activation="relu")(h))
        model = tf_keras.Model(wave, layers.Dense(4, name="logits")(h))
        x = np.random.default_rng(11).standard_normal((3, 400)).astype(np.float32)
        want = model.predict(x, verbose=0)
        path = str(tmp_path / "model.h5")
        model.save(path)
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    for batch in (3, 1):
        np.testing.assert_allclose(runner.run({"wave": x[:batch]})["logits"], want[:batch], rtol=RTOL, atol=ATOL)
