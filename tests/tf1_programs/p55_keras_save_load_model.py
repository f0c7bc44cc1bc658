"""tf.keras whole-model persistence in a TF1 program: a functional model with a custom-named Dense stack,
compiled with an optimizer object and metrics, fit on fixed data (shuffle=False), model.save to HDF5, then
tf.keras.models.load_model in a fresh graph continuing training from the saved optimizer state; model.summary's
printed lines, get_config round trip (Sequential.from_config), to_json/model_from_json, and
predict_on_batch/train_on_batch/test_on_batch values."""

import os

import numpy as np


def build(tf):
    inp = tf.keras.Input(shape=(4,), name="features")
    h = tf.keras.layers.Dense(
        8, activation="relu", name="hidden", kernel_initializer=tf.keras.initializers.glorot_uniform(seed=1)
    )(inp)
    h = tf.keras.layers.Dense(
        8, activation="tanh", name="hidden2", kernel_initializer=tf.keras.initializers.glorot_uniform(seed=2)
    )(h)
    out = tf.keras.layers.Dense(
        3, activation="softmax", name="probs", kernel_initializer=tf.keras.initializers.glorot_uniform(seed=3)
    )(h)
    model = tf.keras.Model(inp, out, name="clf")
    model.compile(
        optimizer=tf.keras.optimizers.Adam(0.01),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    return model


def main(tf, workdir):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    rng = np.random.RandomState(55)
    x = rng.randn(64, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5).astype(np.int64)
    out = {}
    model = build(tf)
    hist = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    out["history"] = {k: [float(v) for v in vals] for k, vals in hist.history.items()}
    lines = []
    model.summary(print_fn=lines.append)
    out["summary"] = [line for line in lines if "hidden" in line or "probs" in line or "params" in line]
    out["weights_names"] = [w.name for w in model.weights]
    out["predict"] = model.predict(x[:5])
    path = os.path.join(workdir, "model.h5")
    model.save(path)
    out["train_on_batch"] = model.train_on_batch(x[:16], y[:16])
    out["test_on_batch"] = model.test_on_batch(x[:16], y[:16])
    cfg = model.get_config()
    out["config_layers"] = [(layer["class_name"], layer["config"]["name"]) for layer in cfg["layers"]]
    js = model.to_json()
    clone = tf.keras.models.model_from_json(js)
    out["clone_layers"] = [layer.name for layer in clone.layers]

    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    loaded = tf.keras.models.load_model(path)
    out["loaded_predict"] = loaded.predict(x[:5])
    out["loaded_eval"] = loaded.evaluate(x, y, verbose=0)
    out["loaded_train"] = loaded.train_on_batch(x[:16], y[:16])
    out["loaded_optimizer"] = type(loaded.optimizer).__name__
    out["loaded_iterations"] = int(tf.keras.backend.get_value(loaded.optimizer.iterations))
    out["predict_on_batch"] = loaded.predict_on_batch(x[:3])
    seq = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,), name="d")], name="s")
    seq2 = tf.keras.Sequential.from_config(seq.get_config())
    out["seq2"] = [seq2.name, [layer.name for layer in seq2.layers], seq2.output_shape]
    return out
