"""tw.keras.losses against tf_keras's losses in TF1 graph mode: functions, Loss classes (reductions, sample
weights), Softmax/Sigmoid outputs, get/serialize and errors."""

import numpy as np
import pytest
import tensorweave as tw

L = tw.keras.losses

RNG = np.random.RandomState(0)
LOGITS = RNG.randn(4, 3).astype(np.float32)
PROBS = (np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)).astype(np.float32)
ONE_HOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
IDS = np.array([0, 2, 1, 2], np.int64)
BIN = np.array([[0, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 0]], np.float32)
REG_T = RNG.rand(4, 3).astype(np.float32) * 2
REG_P = RNG.rand(4, 3).astype(np.float32) * 2
SIGNED = (RNG.rand(4, 3).astype(np.float32) - 0.5) * 3


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _run_both(build):
    """`build(lib, losses)` -> list of tensors, in tensorweave and in tf_keras; returns both values."""
    tf1, tf_keras = _tf_keras()
    with tw.Graph().as_default(), tw.Session() as sess:
        ours = sess.run(build(tw, L))
    with tf1.Graph().as_default(), tf1.Session() as sess:
        theirs = sess.run(build(tf1, tf_keras.losses))
    return ours, theirs


FUNCTION_CASES = [
    ("mean_squared_error", REG_T, REG_P, {}),
    ("mse", REG_T, REG_P, {}),
    ("mean_absolute_error", REG_T, REG_P, {}),
    ("mean_absolute_percentage_error", REG_T, REG_P, {}),
    ("mean_squared_logarithmic_error", REG_T, REG_P, {}),
    ("binary_crossentropy", BIN, PROBS, {}),
    ("binary_crossentropy", BIN, LOGITS, {"from_logits": True}),
    ("binary_crossentropy", BIN, PROBS, {"label_smoothing": 0.2}),
    ("categorical_crossentropy", ONE_HOT, PROBS, {}),
    ("categorical_crossentropy", ONE_HOT, LOGITS, {"from_logits": True}),
    ("categorical_crossentropy", ONE_HOT, PROBS, {"label_smoothing": 0.1}),
    ("categorical_crossentropy", ONE_HOT, PROBS * 2.0, {}),  # unnormalized: divided by its sum
    ("sparse_categorical_crossentropy", IDS, PROBS, {}),
    ("sparse_categorical_crossentropy", IDS[:, None], PROBS, {}),
    ("sparse_categorical_crossentropy", IDS, LOGITS, {"from_logits": True}),
    ("sparse_categorical_crossentropy", IDS[:, None], LOGITS, {"from_logits": True, "ignore_class": 1}),
    ("hinge", BIN, SIGNED, {}),
    ("hinge", BIN * 2 - 1, SIGNED, {}),
    ("squared_hinge", BIN, SIGNED, {}),
    ("categorical_hinge", ONE_HOT, SIGNED, {}),
    ("kl_divergence", PROBS[::-1].copy(), PROBS, {}),
    ("kld", PROBS[::-1].copy(), PROBS, {}),
    ("poisson", REG_T, REG_P, {}),
    ("cosine_similarity", REG_T, SIGNED, {}),
    ("cosine_similarity", REG_T, SIGNED, {"axis": 0}),
    ("huber", REG_T, REG_P * 3, {}),
    ("huber", REG_T, REG_P * 3, {"delta": 0.5}),
    ("log_cosh", REG_T, SIGNED, {}),
]


@pytest.mark.parametrize(
    "name,y_true,y_pred,kwargs", FUNCTION_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTION_CASES)]
)
def test_functions_match_tf_keras(name, y_true, y_pred, kwargs):
    ours, theirs = _run_both(
        lambda lib, losses: [getattr(losses, name)(lib.constant(y_true), lib.constant(y_pred), **kwargs)]
    )
    assert ours[0].shape == theirs[0].shape
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["categorical_crossentropy", "sparse_categorical_crossentropy", "binary_crossentropy"])
def test_softmax_and_sigmoid_outputs_use_their_logits(name):
    # Extreme logits: clipping probabilities would give a different value than the logits path.
    logits = np.array([[30.0, -30.0, 0.0], [-20.0, 25.0, 1.0]], np.float32)
    labels = {"sparse_categorical_crossentropy": np.array([1, 0])}.get(name, np.eye(3, dtype=np.float32)[[1, 0]])

    def build(lib, losses):
        x = lib.constant(logits)
        out = lib.nn.sigmoid(x) if name == "binary_crossentropy" else lib.nn.softmax(x)
        fn = getattr(losses, name)
        # With from_logits=True too, the op's input is used (tf_keras warns that this may be a mistake).
        return [fn(lib.constant(labels), out), fn(lib.constant(labels), out, from_logits=True)]

    with pytest.warns(UserWarning, match="received `from_logits=True`"):
        ours, theirs = _run_both(build)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[0].max() > 20  # not clipped at -log(1e-7) = 16.1


CLASS_CASES = [
    ("MeanSquaredError", REG_T, REG_P, {}),
    ("MeanAbsoluteError", REG_T, REG_P, {}),
    ("MeanAbsolutePercentageError", REG_T, REG_P, {}),
    ("MeanSquaredLogarithmicError", REG_T, REG_P, {}),
    ("BinaryCrossentropy", BIN, LOGITS, {"from_logits": True, "label_smoothing": 0.1}),
    ("CategoricalCrossentropy", ONE_HOT, PROBS, {}),
    ("SparseCategoricalCrossentropy", IDS, LOGITS, {"from_logits": True}),
    ("SparseCategoricalCrossentropy", IDS, PROBS, {"ignore_class": 2}),
    ("Hinge", BIN, SIGNED, {}),
    ("SquaredHinge", BIN, SIGNED, {}),
    ("CategoricalHinge", ONE_HOT, SIGNED, {}),
    ("Poisson", REG_T, REG_P, {}),
    ("LogCosh", REG_T, SIGNED, {}),
    ("KLDivergence", PROBS[::-1].copy(), PROBS, {}),
    ("Huber", REG_T, REG_P * 3, {"delta": 0.7}),
    ("CosineSimilarity", REG_T, SIGNED, {"axis": -1}),
]


@pytest.mark.parametrize("name,y_true,y_pred,kwargs", CLASS_CASES, ids=[c[0] for c in CLASS_CASES])
def test_classes_reductions_and_sample_weights_match_tf_keras(name, y_true, y_pred, kwargs):
    weights_1d = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
    weights_2d = RNG.rand(4, 1).astype(np.float32)

    def build(lib, losses):
        yt, yp = lib.constant(y_true), lib.constant(y_pred)
        out = []
        for reduction in ("auto", "sum", "none", "sum_over_batch_size"):
            loss = getattr(losses, name)(reduction=reduction, **kwargs)
            out += [loss(yt, yp), loss(yt, yp, sample_weight=weights_1d), loss(yt, yp, sample_weight=weights_2d)]
        out.append(getattr(losses, name)(**kwargs)(yt, yp, sample_weight=2.0))
        return out

    ours, theirs = _run_both(build)
    for a, b in zip(ours, theirs):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_config_and_serialize():
    _, tf_keras = _tf_keras()
    for name, _, _, kwargs in CLASS_CASES:
        ours = getattr(L, name)(**kwargs).get_config()
        theirs = getattr(tf_keras.losses, name)(**kwargs).get_config()
        theirs.pop("fn", None)
        assert ours == theirs, name
    config = L.serialize(L.CategoricalCrossentropy(from_logits=True))
    again = L.deserialize(config)
    assert isinstance(again, L.CategoricalCrossentropy) and again.get_config()["from_logits"] is True
    assert L.serialize(L.mse) == "mean_squared_error"


def test_get():
    assert L.get("mse") is L.mean_squared_error
    assert L.get("categorical_crossentropy") is L.categorical_crossentropy
    assert L.get("kullback_leibler_divergence") is L.kl_divergence
    assert L.get("cosine_proximity") is L.cosine_similarity  # TF 1.x's name
    assert isinstance(L.get("BinaryCrossentropy"), L.BinaryCrossentropy)
    assert isinstance(L.get({"class_name": "Huber", "config": {"delta": 2.0}}), L.Huber)
    assert L.get(None) is None

    def custom(y_true, y_pred):
        return y_pred

    assert L.get(custom) is custom


def test_errors():
    with pytest.raises(ValueError, match="Unknown loss function: 'foo'"):
        L.get("foo")
    with pytest.raises(ValueError, match="Could not interpret loss function identifier: 42"):
        L.get(42)
    with pytest.raises(ValueError, match="Invalid Reduction Key: mean"):
        L.MeanSquaredError(reduction="mean")
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        L.MeanSquaredError(foo=1)
    with tw.Graph().as_default(), pytest.raises(ValueError):
        L.mean_squared_error(tw.zeros([2, 3]), tw.zeros([2, 4]))
    with tw.Graph().as_default(), pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(2, 4\) are incompatible"):
        L.categorical_crossentropy(tw.zeros([2, 3]), tw.ones([2, 4]))
