"""The Keras functional-API guide's multi-input / multi-output model (2017-2018 docs) in a TF1 program: a text
input through Embedding + LSTM, an auxiliary output on it, concatenated with a second "metadata" Input,
Dense layers to a main output; compiled with loss and loss_weights as dicts keyed by output names, per-output
metrics as a dict, fit on dicts of numpy arrays (shuffle=False) with validation_data; the History's keys (per-output
loss and metric names as Keras builds them), metrics_names, evaluate's list, predict's list of outputs, get_layer
by name, the model's input_names / output_names, and a weights-sharing "siamese" Dense applied to two inputs."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(158)
    rng = np.random.RandomState(158)
    K = tf.keras
    init = K.initializers.glorot_uniform(seed=3)
    main_input = K.layers.Input(shape=(6,), dtype="int32", name="main_input")
    x = K.layers.Embedding(input_dim=20, output_dim=4, input_length=6,
                           embeddings_initializer=K.initializers.RandomUniform(-0.2, 0.2, seed=4))(main_input)  # fmt: skip
    lstm_out = K.layers.LSTM(5, kernel_initializer=init, recurrent_initializer=K.initializers.Orthogonal(seed=5))(x)
    auxiliary_output = K.layers.Dense(1, activation="sigmoid", name="aux_output", kernel_initializer=init)(lstm_out)
    auxiliary_input = K.layers.Input(shape=(3,), name="aux_input")
    h = K.layers.concatenate([lstm_out, auxiliary_input])
    h = K.layers.Dense(8, activation="relu", kernel_initializer=init)(h)
    main_output = K.layers.Dense(1, activation="sigmoid", name="main_output", kernel_initializer=init)(h)
    model = K.models.Model(inputs=[main_input, auxiliary_input], outputs=[main_output, auxiliary_output])
    model.compile(
        optimizer=K.optimizers.RMSprop(lr=0.01),
        loss={"main_output": "binary_crossentropy", "aux_output": "binary_crossentropy"},
        loss_weights={"main_output": 1.0, "aux_output": 0.2},
        metrics={"main_output": ["accuracy"], "aux_output": ["mae"]},
    )
    tokens = rng.randint(1, 20, size=(40, 6)).astype(np.int32)
    meta = rng.randn(40, 3).astype(np.float32)
    labels = ((tokens[:, 0] > 10) ^ (meta[:, 0] > 0)).astype(np.float32)[:, None]
    history = model.fit(
        {"main_input": tokens[:32], "aux_input": meta[:32]},
        {"main_output": labels[:32], "aux_output": labels[:32]},
        epochs=3,
        batch_size=8,
        shuffle=False,
        verbose=0,
        validation_data=([tokens[32:], meta[32:]], [labels[32:], labels[32:]]),
    )
    out = {
        "history_keys": sorted(history.history),
        "history": {k: [float(v) for v in vals] for k, vals in sorted(history.history.items())},
        "metrics_names": model.metrics_names,
        "input_names": model.input_names,
        "output_names": model.output_names,
        "evaluate": model.evaluate([tokens, meta], [labels, labels], batch_size=40, verbose=0),
        "get_layer": [model.get_layer("aux_output").name, model.get_layer(index=0).name],
        "layer_names": [layer.name for layer in model.layers],
    }
    preds = model.predict([tokens[:4], meta[:4]])
    out["predict"] = [type(preds).__name__, [p.shape for p in preds], preds]
    # a shared layer applied to two inputs
    a = K.layers.Input(shape=(3,), name="left")
    b = K.layers.Input(shape=(3,), name="right")
    shared = K.layers.Dense(2, kernel_initializer=init, name="shared")
    distance = K.layers.Lambda(lambda t: K.backend.abs(t[0] - t[1]), name="l1")([shared(a), shared(b)])
    siamese = K.models.Model([a, b], distance)
    out["siamese_weights"] = [w.name for w in siamese.weights]
    out["shared_inbound"] = len(shared._inbound_nodes) if hasattr(shared, "_inbound_nodes") else None
    out["siamese"] = siamese.predict([meta[:3], meta[3:6]])
    return out
