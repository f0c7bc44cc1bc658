"""A subclassed tf.keras.Model in a TF1 program (the TF 1.13-1.15 "model subclassing" guide, graph mode): layers
as attributes created in __init__ (Dense, Dropout, BatchNormalization), call(inputs, training=None) using them,
the model called on a placeholder (output shape, model.variables / trainable_variables / non_trainable_variables
names after the first call), the same model applied twice (one set of weights), compile/fit/evaluate on numpy,
model.predict, get_weights/set_weights round trip, save_weights / load_weights in the HDF5 and TF checkpoint
formats into a second instance, and the error for calling summary() before the model is built. As in tf_keras's
v1 layers, the first call on the placeholder (training=False) sets the model's inputs and outputs, which fit then
trains (dropout and batch norm in inference mode)."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(187)
    K = tf.keras
    init = K.initializers.RandomUniform(-0.3, 0.3, seed=187)

    class MLP(K.Model):
        def __init__(self, hidden=8, classes=3):
            super().__init__(name="mlp")
            self.dense1 = K.layers.Dense(hidden, activation="relu", kernel_initializer=init)
            self.bn = K.layers.BatchNormalization()
            self.dropout = K.layers.Dropout(0.5, seed=1)
            self.dense2 = K.layers.Dense(classes, kernel_initializer=init)

        def call(self, inputs, training=None):
            h = self.dense1(inputs)
            h = self.bn(h, training=training)
            h = self.dropout(h, training=training)
            return self.dense2(h)

    out = {}
    model = MLP()
    x = tf.placeholder(tf.float32, [None, 4])
    logits = model(x, training=False)
    logits2 = model(x * 2.0, training=False)
    out["shape"] = logits.shape.as_list()
    out["variables"] = [v.name for v in model.variables]
    out["trainable"] = [v.name for v in model.trainable_variables]
    out["non_trainable"] = [v.name for v in model.non_trainable_variables]
    out["layer_names"] = [l.name for l in model.layers]
    out["same_weights"] = len(model.variables)
    rng = np.random.RandomState(187)
    xs = rng.rand(32, 4).astype(np.float32)
    ys = (xs[:, 0] * 3).astype(np.int64) % 3
    model.compile(
        optimizer=tf.train.AdamOptimizer(0.01),
        loss=K.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    sess = K.backend.get_session()
    hist = model.fit(xs, ys, batch_size=8, epochs=3, shuffle=False, verbose=0)
    out["loss"] = hist.history["loss"]
    out["eval"] = model.evaluate(xs, ys, verbose=0)
    out["predict"] = model.predict(xs[:3])
    feed_out = sess.run([logits, logits2], {x: xs[:2]})
    out["graph_call"] = feed_out
    unbuilt = MLP()
    try:
        unbuilt.summary()
        out["summary_unbuilt"] = None
    except ValueError as e:
        out["summary_unbuilt"] = ["ValueError", "has not yet been built" in str(e)]
    weights = model.get_weights()
    out["weight_shapes"] = [w.shape for w in weights]
    h5 = os.path.join(workdir, "w.h5")
    model.save_weights(h5)
    ckpt = os.path.join(workdir, "ckpt", "w")
    model.save_weights(ckpt)
    out["ckpt_state"] = os.path.exists(os.path.join(os.path.dirname(ckpt), "checkpoint"))  # (the data files' format
    # is tensorweave's own)
    other = MLP()
    other(tf.zeros([1, 4]))
    other.load_weights(h5)
    out["h5_equal"] = all(np.allclose(a, b) for a, b in zip(other.get_weights(), weights))
    third = MLP()
    third(tf.zeros([1, 4]))
    third.load_weights(ckpt)
    out["ckpt_equal"] = all(np.allclose(a, b) for a, b in zip(third.get_weights(), weights))
    third.set_weights([np.zeros_like(w) for w in weights])
    out["zeroed"] = sess.run(third(tf.constant(xs[:2]), training=False))
    return out
