"""tf.keras trained from tf.data in a TF1 program (TF 1.13-1.15 style, graph mode): a Sequential model compiled
with an optimizer object and a metric, model.fit(dataset.repeat(), steps_per_epoch=, epochs=) with
shuffle=False-equivalent fixed data, validation_data as a dataset with validation_steps, model.evaluate(dataset,
steps=), model.predict(dataset, steps=), and the History's keys and per-epoch values; weights set from numpy
so both systems start alike."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    rng = np.random.RandomState(134)
    xs = rng.randn(32, 4).astype(np.float32)
    ys = (xs[:, :1] - xs[:, 1:2] > 0).astype(np.float32)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(6, activation="tanh", input_shape=(4,)),
            tf.keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.set_weights(
        [
            rng.randn(4, 6).astype(np.float32) * 0.5,
            np.zeros(6, np.float32),
            rng.randn(6, 1).astype(np.float32) * 0.5,
            np.zeros(1, np.float32),
        ]
    )
    model.compile(optimizer=tf.keras.optimizers.SGD(lr=0.5), loss="binary_crossentropy", metrics=["accuracy"])
    train = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(8).repeat()
    val = tf.data.Dataset.from_tensor_slices((xs[:16], ys[:16])).batch(8).repeat()
    history = model.fit(train, steps_per_epoch=4, epochs=3, validation_data=val, validation_steps=2, verbose=0)
    out = {
        "keys": sorted(history.history.keys()),
        "history": {k: [float(v) for v in vals] for k, vals in history.history.items()},
        "epochs": history.epoch,
    }
    out["evaluate"] = model.evaluate(tf.data.Dataset.from_tensor_slices((xs, ys)).batch(16), steps=2, verbose=0)
    out["predict"] = model.predict(tf.data.Dataset.from_tensor_slices(xs[:5]).batch(5), steps=1)
    out["metrics_names"] = model.metrics_names
    return out
