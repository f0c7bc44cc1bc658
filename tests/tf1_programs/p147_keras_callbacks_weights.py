"""tf.keras training options in a TF1 program (graph mode): a Sequential model fit on numpy with
validation_split, class_weight and sample_weight, the callbacks TF 1.x users wired in (ModelCheckpoint with a
formatted filepath and save_best_only, ReduceLROnPlateau, CSVLogger, TerminateOnNaN, EarlyStopping with
restore_best_weights-free patience, a custom Callback recording on_batch_end / on_epoch_end), K.get_value of the
learning rate after the plateau, the files written, model.save to HDF5 and tf.keras.models.load_model with
custom_objects for a custom activation and metric, then evaluate / predict_classes-free argmax predictions."""

import csv
import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(147)
    rng = np.random.RandomState(147)
    x = rng.randn(60, 5).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0.3).astype(np.int32)

    def swishish(t):
        return t * tf.keras.backend.sigmoid(t)

    def pos_rate(y_true, y_pred):
        return tf.keras.backend.mean(tf.keras.backend.cast(y_pred[:, 1] > 0.5, "float32"))

    init = tf.keras.initializers.glorot_uniform(seed=7)
    model = tf.keras.models.Sequential(
        [
            tf.keras.layers.Dense(8, activation=swishish, input_shape=(5,), kernel_initializer=init, name="hidden"),
            tf.keras.layers.Dense(2, activation="softmax", kernel_initializer=init, name="out"),
        ]
    )
    model.compile(
        optimizer=tf.keras.optimizers.SGD(lr=0.5, momentum=0.5),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy", pos_rate],
    )

    class Recorder(tf.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.batches, self.epochs = [], []

        def on_batch_end(self, batch, logs=None):
            self.batches.append((batch, int(logs["size"])))

        def on_epoch_end(self, epoch, logs=None):
            self.epochs.append(sorted(logs.keys()))

    recorder = Recorder()
    ckpt = os.path.join(workdir, "weights.{epoch:02d}-{val_loss:.2f}.h5")
    callbacks = [
        tf.keras.callbacks.ModelCheckpoint(ckpt, monitor="val_loss", save_best_only=True, save_weights_only=True),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10.0, verbose=0),
        tf.keras.callbacks.CSVLogger(os.path.join(workdir, "log.csv")),
        tf.keras.callbacks.TerminateOnNaN(),
        tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=10),
        recorder,
    ]
    sample_weight = np.where(np.arange(60) % 3 == 0, 2.0, 1.0)
    history = model.fit(
        x,
        y,
        batch_size=16,
        epochs=4,
        verbose=0,
        shuffle=False,
        validation_split=0.25,
        class_weight={0: 1.0, 1: 1.5},
        sample_weight=sample_weight,
        callbacks=callbacks,
    )
    out = {
        "history": {k: [float(v) for v in vals] for k, vals in sorted(history.history.items())},
        "batches": recorder.batches,
        "epoch_keys": recorder.epochs,
        "lr": float(tf.keras.backend.get_value(model.optimizer.lr)),
        "checkpoints": len([f for f in os.listdir(workdir) if f.startswith("weights.")]),
    }
    with open(os.path.join(workdir, "log.csv")) as f:
        rows = list(csv.reader(f))
    out["csv_header"] = rows[0]
    out["csv_rows"] = len(rows)
    out["csv_loss"] = [float(r[rows[0].index("loss")]) for r in rows[1:]]
    path = os.path.join(workdir, "model.h5")
    model.save(path)
    loaded = tf.keras.models.load_model(path, custom_objects={"swishish": swishish, "pos_rate": pos_rate})
    out["loaded_layers"] = [layer.name for layer in loaded.layers]
    out["loaded_evaluate"] = loaded.evaluate(x, y, verbose=0)
    out["evaluate"] = model.evaluate(x, y, batch_size=20, verbose=0)
    out["metrics_names"] = model.metrics_names
    out["predicted"] = np.argmax(loaded.predict(x[:10]), axis=-1)
    out["same"] = np.allclose(loaded.predict(x), model.predict(x))
    return out
