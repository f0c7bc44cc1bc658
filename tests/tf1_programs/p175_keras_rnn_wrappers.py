"""A tf.keras sequence model as 2018 TF1 tutorials built it (graph mode, v2 behaviour off): Embedding(mask_zero=
True) into Bidirectional(LSTM(return_sequences=True)) with merge_mode="concat", TimeDistributed(Dense), a
SimpleRNN and a GRU(return_state=True) in a functional model, Masking on float inputs, a Lambda layer, kernel
regularizers (tf.keras.regularizers.l2) and constraints (max_norm), every kernel from a constant-seeded
initializer; compile/fit on fixed numpy data with shuffle=False, evaluate / predict, the layers' output shapes and
weight names, the regularization losses, and count_params."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras
    L = K.layers
    init = K.initializers.RandomUniform(-0.2, 0.2, seed=175)
    orth = K.initializers.Orthogonal(seed=175)
    rng = np.random.RandomState(175)
    x = rng.randint(0, 12, size=(16, 6))
    x[:, 4:] = 0
    y = (x.sum(axis=1) > 25).astype(np.float32)
    tags = (x % 3).astype(np.int32)

    seq_model = K.models.Sequential(
        [
            L.Embedding(12, 5, mask_zero=True, embeddings_initializer=init, input_length=6),
            L.Bidirectional(
                L.LSTM(4, return_sequences=True, kernel_initializer=init, recurrent_initializer=orth),
                merge_mode="concat",
            ),
            L.TimeDistributed(
                L.Dense(
                    3,
                    kernel_initializer=init,
                    kernel_regularizer=K.regularizers.l2(0.01),
                    kernel_constraint=K.constraints.max_norm(1.0),
                )
            ),
        ]
    )
    seq_model.compile(optimizer=tf.train.AdamOptimizer(0.01), loss="sparse_categorical_crossentropy")
    hist = seq_model.fit(x, tags, batch_size=8, epochs=3, shuffle=False, verbose=0)
    out = {
        "seq_shapes": [list(l.output_shape) for l in seq_model.layers],
        "seq_weights": [w.name for w in seq_model.weights],
        "seq_loss": hist.history["loss"],
        "seq_params": seq_model.count_params(),
        "reg_losses": len(seq_model.losses),
    }

    inp = L.Input(shape=(6, 2), name="frames")
    masked = L.Masking(mask_value=0.0)(inp)
    rnn = L.SimpleRNN(4, return_sequences=True, kernel_initializer=init, recurrent_initializer=orth)(masked)
    gru_out, gru_state = L.GRU(3, return_state=True, kernel_initializer=init, recurrent_initializer=orth,
                               name="gru")(rnn)  # fmt: skip
    doubled = L.Lambda(lambda t: t * 2.0, name="double")(gru_out)
    pred = L.Dense(1, activation="sigmoid", kernel_initializer=init, name="out")(L.concatenate([doubled, gru_state]))
    model = K.models.Model(inp, pred)
    model.compile(optimizer="rmsprop", loss="binary_crossentropy", metrics=["accuracy"])
    frames = rng.rand(16, 6, 2).astype(np.float32)
    frames[:, 5:] = 0.0
    h = model.fit(frames, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    out["fn_loss"] = h.history["loss"]
    out["fn_keys"] = sorted(h.history)
    out["fn_eval"] = model.evaluate(frames, y, verbose=0)
    out["fn_pred"] = model.predict(frames[:3])
    out["fn_names"] = [l.name for l in model.layers]
    out["fn_weights"] = [w.name for w in model.weights]
    out["metrics_names"] = model.metrics_names
    return out
