"""tf.keras fed from Python as TF 1.10-1.15 programs did it (graph mode): a tf.keras.utils.Sequence subclass
(__len__ / __getitem__ / on_epoch_end) given to fit_generator with shuffle=False, validation_data from another
Sequence, evaluate_generator / predict_generator, a plain Python generator with steps_per_epoch, the
callbacks TF1 users wired in (TensorBoard writing an event file, LambdaCallback recording epochs,
ReduceLROnPlateau and LearningRateScheduler changing K.get_value(model.optimizer.lr), CSVLogger), train_on_batch
and test_on_batch return values, and to_categorical targets for a categorical_crossentropy model."""

import os

import numpy as np


def _read_lines(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return [lines[0].split(","), len(lines)]


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras
    rng = np.random.RandomState(181)
    x = rng.rand(40, 5).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] > 1.0).astype(np.int64) + (x[:, 2] > 0.7).astype(np.int64)
    y = K.utils.to_categorical(labels, num_classes=3)
    epochs_seen = []

    class Batches(K.utils.Sequence):
        def __init__(self, xs, ys, batch):
            self.xs, self.ys, self.batch = xs, ys, batch

        def __len__(self):
            return int(np.ceil(len(self.xs) / float(self.batch)))

        def __getitem__(self, i):
            s = slice(i * self.batch, (i + 1) * self.batch)
            return self.xs[s], self.ys[s]

        def on_epoch_end(self):
            epochs_seen.append("end")

    init = K.initializers.RandomNormal(stddev=0.3, seed=181)
    model = K.Sequential(
        [
            K.layers.Dense(8, activation="relu", kernel_initializer=init, input_shape=(5,)),
            K.layers.Dense(3, activation="softmax", kernel_initializer=init),
        ]
    )
    model.compile(optimizer=K.optimizers.SGD(lr=0.5), loss="categorical_crossentropy", metrics=["accuracy"])
    log_dir = os.path.join(workdir, "tb")
    csv_path = os.path.join(workdir, "log.csv")
    lambda_epochs = []
    callbacks = [
        K.callbacks.TensorBoard(log_dir=log_dir),
        K.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: lambda_epochs.append((epoch, sorted(logs)))),
        K.callbacks.LearningRateScheduler(lambda epoch: 0.5 / (1 + epoch)),
        K.callbacks.CSVLogger(csv_path),
    ]
    hist = model.fit_generator(
        Batches(x[:32], y[:32], 8), epochs=3, shuffle=False, validation_data=Batches(x[32:], y[32:], 4),
        callbacks=callbacks, verbose=0,
    )  # fmt: skip
    out = {
        "history": {k: v for k, v in hist.history.items()},
        "lambda": lambda_epochs,
        "lr_after": float(K.backend.get_value(model.optimizer.lr)),
        "event_files": sum(1 for _, _, fs in os.walk(log_dir) for f in fs if f.startswith("events.out.tfevents")) > 0,
        "csv_lines": _read_lines(csv_path),
        "epoch_end_calls": len(epochs_seen) >= 3,
    }
    out["eval_gen"] = model.evaluate_generator(Batches(x[32:], y[32:], 4))
    out["pred_gen"] = model.predict_generator(Batches(x[:6], y[:6], 4))

    def gen():
        while True:
            for i in range(0, 32, 16):
                yield x[i : i + 16], y[i : i + 16]

    h2 = model.fit_generator(gen(), steps_per_epoch=2, epochs=2, verbose=0,
                             callbacks=[K.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0)])  # fmt: skip
    out["gen_loss"] = h2.history["loss"]
    out["train_on_batch"] = model.train_on_batch(x[:8], y[:8])
    out["test_on_batch"] = model.test_on_batch(x[8:16], y[8:16])
    out["metrics_names"] = model.metrics_names
    return out
