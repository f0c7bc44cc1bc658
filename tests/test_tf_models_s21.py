"""More models TensorFlow and Keras wrote, through tensorweave-convert and the lite runtime, against Keras' own
output: padded text through Embedding(mask_zero=True) and Bidirectional RNNs returning sequences (tf_keras and
Keras 3), and the TensorFlow ops those models hold that needed a rewrite or a lowering."""

import numpy as np
import pytest

from converters import lite_runner
from converters.cli import main as cli_main

tf = pytest.importorskip("tensorflow")
tf_keras = pytest.importorskip("tf_keras")

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(autouse=True, scope="module")
def _tf2_behavior():
    """TF2 behavior, as a Keras user has it, even when an earlier test in this process disabled it (Keras then
    saves a directory as .h5 and cannot read a .keras file); restored afterwards."""
    from tensorflow.python import tf2

    was_enabled = tf2.enabled()
    tf2.enable()
    yield
    if not was_enabled:
        tf2.disable()


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
    last = layers.Bidirectional(layers.GRU(4))(h)
    return keras.Model(tokens, [seq, layers.Dense(2, name="logits")(last)])


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
