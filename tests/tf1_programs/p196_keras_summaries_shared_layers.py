"""What model.summary() printed for the models TF1-era Keras code built, captured with print_fn and compared line
by line: a Sequential CNN (Conv2D, MaxPooling2D, Flatten, Dropout, Dense), a functional siamese model sharing one
Dense encoder between two Inputs ("Connected to" with the shared layer's node indices), a model nested as a layer,
and a subclassed model after its first call ("multiple" output shapes); plus get_layer by name and index and
the shared layer's get_output_at / inbound node count."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras
    L = K.layers
    out = {}

    def summary(model):
        lines = []
        model.summary(print_fn=lines.append, line_length=90)
        return lines

    cnn = K.Sequential(
        [
            L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dropout(0.5),
            L.Dense(3, activation="softmax"),
        ]
    )
    out["cnn"] = summary(cnn)
    left = L.Input((5,), name="left")
    right = L.Input((5,), name="right")
    encoder = L.Dense(4, activation="tanh", name="encoder")
    diff = L.Lambda(lambda t: K.backend.abs(t[0] - t[1]), name="l1")([encoder(left), encoder(right)])
    score = L.Dense(1, activation="sigmoid", name="score")(diff)
    siamese = K.Model([left, right], score, name="siamese")
    out["siamese"] = summary(siamese)
    out["shared"] = [len(encoder._inbound_nodes) if hasattr(encoder, "_inbound_nodes") else None,
                     encoder.get_output_at(1).name]  # fmt: skip
    out["get_layer"] = [siamese.get_layer("encoder").name, siamese.get_layer(index=3).name]
    inp = L.Input((8, 8, 1))
    outer = K.Model(inp, L.Dense(2)(cnn(inp)), name="outer")
    out["outer"] = summary(outer)

    class Tiny(K.Model):
        def __init__(self):
            super().__init__(name="tiny")
            self.a = L.Dense(3)
            self.b = L.Dense(1)

        def call(self, x):
            return self.b(self.a(x))

    tiny = Tiny()
    tiny(tf.zeros([2, 4]))
    out["tiny"] = summary(tiny)
    out["params"] = [m.count_params() for m in (cnn, siamese, outer, tiny)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["siamese_out_shape"] = sess.run(score, {left: np.ones((2, 5)), right: np.zeros((2, 5))}).shape
    return out
