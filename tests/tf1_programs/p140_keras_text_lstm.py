"""A tf.keras text classifier in a TF1 program (1.x tutorials' IMDB recipe on a made-up corpus): words indexed by
hand, tf.keras.preprocessing.sequence.pad_sequences (maxlen, padding / truncating "pre" and "post", value),
tf.keras.utils.to_categorical, a functional model of Input / Embedding(mask_zero=True) / LSTM / Dense with
seeded initializers, compiled with categorical_crossentropy and Adam, model.fit on numpy arrays (shuffle=False,
batch_size, validation_data) with a LambdaCallback recording epoch losses and a History, train_on_batch /
test_on_batch, model.predict, save_weights / load_weights into a second model (TF checkpoint format), the layers'
names and output shapes and the model's weight names."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(140)
    rng = np.random.RandomState(140)
    vocab = ["good", "great", "fun", "bad", "awful", "boring", "the", "movie", "was", "very"]
    word_index = {w: i + 1 for i, w in enumerate(vocab)}
    texts, labels = [], []
    for i in range(24):
        positive = i % 2 == 0
        words = ["the", "movie", "was"] + ["very"] * (i % 3) + [vocab[(i // 2) % 3 + (0 if positive else 3)]]
        texts.append([word_index[w] for w in words])
        labels.append(1 if positive else 0)
    pad = tf.keras.preprocessing.sequence.pad_sequences
    out = {
        "pad_pre": pad(texts[:4], maxlen=6),
        "pad_post": pad(texts[:4], maxlen=5, padding="post", truncating="post", value=0),
        "pad_none": pad([[1, 2], [3]]),
        "pad_dtype": str(pad([[1, 2]], maxlen=3).dtype),
    }
    x = pad(texts, maxlen=7)
    y = tf.keras.utils.to_categorical(labels, num_classes=2)
    out["y"] = y[:4]
    out["to_categorical_auto"] = tf.keras.utils.to_categorical([0, 2, 1])

    def build(name):
        init = tf.keras.initializers.glorot_uniform(seed=1)
        inputs = tf.keras.layers.Input(shape=(7,), name="tokens")
        emb = tf.keras.layers.Embedding(
            len(vocab) + 1,
            6,
            mask_zero=True,
            embeddings_initializer=tf.keras.initializers.RandomUniform(-0.1, 0.1, seed=2),
        )(inputs)
        h = tf.keras.layers.LSTM(
            5, kernel_initializer=init, recurrent_initializer=tf.keras.initializers.Orthogonal(seed=3)
        )(emb)
        outputs = tf.keras.layers.Dense(2, activation="softmax", kernel_initializer=init, name="probs")(h)
        return tf.keras.Model(inputs, outputs, name=name)

    model = build("text_lstm")
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="categorical_crossentropy", metrics=["accuracy"])
    out["layers"] = [(layer.name, type(layer).__name__) for layer in model.layers]
    out["output_shapes"] = [list(layer.output_shape) for layer in model.layers]
    out["weights"] = [(w.name, w.shape.as_list()) for w in model.weights]
    epoch_losses = []
    cb = tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: epoch_losses.append(logs["loss"]))
    history = model.fit(
        x[:16],
        y[:16],
        batch_size=8,
        epochs=3,
        shuffle=False,
        verbose=0,
        validation_data=(x[16:], y[16:]),
        callbacks=[cb],
    )
    out["history"] = {k: [float(v) for v in vals] for k, vals in sorted(history.history.items())}
    out["lambda_losses"] = [float(v) for v in epoch_losses]
    out["train_on_batch"] = model.train_on_batch(x[:8], y[:8])
    out["test_on_batch"] = model.test_on_batch(x[16:], y[16:])
    out["predict"] = model.predict(x[16:], batch_size=4)
    path = os.path.join(workdir, "weights.ckpt")
    model.save_weights(path)
    other = build("copy")
    other.load_weights(path)
    out["reloaded"] = other.predict(x[16:])
    out["metrics_names"] = model.metrics_names
    return out
