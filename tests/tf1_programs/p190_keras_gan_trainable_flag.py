"""The Keras GAN recipe of 2017-2018 tutorials in a TF1 program (graph mode): a generator and a discriminator as
Sequential models, the discriminator compiled on its own, then discriminator.trainable = False before compiling
the stacked combined = Sequential([generator, discriminator]) (the flag is read at compile time, so
discriminator.train_on_batch still updates it and combined.train_on_batch does not), training alternated with
train_on_batch on fixed noise; the losses, which weights moved in each step, trainable_weights counts before and
after the flag, and the models' summaries' parameter counts."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras
    L = K.layers
    init = K.initializers.RandomNormal(stddev=0.2, seed=190)
    generator = K.Sequential(
        [L.Dense(8, activation="relu", input_shape=(4,), kernel_initializer=init), L.Dense(2, kernel_initializer=init)],
        name="generator",
    )
    discriminator = K.Sequential(
        [
            L.Dense(8, input_shape=(2,), kernel_initializer=init),
            L.LeakyReLU(alpha=0.2),
            L.Dense(1, activation="sigmoid", kernel_initializer=init),
        ],
        name="discriminator",
    )
    discriminator.compile(optimizer=K.optimizers.SGD(0.1), loss="binary_crossentropy", metrics=["accuracy"])
    out = {"d_trainable_before": len(discriminator.trainable_weights)}
    discriminator.trainable = False
    combined = K.Sequential([generator, discriminator], name="combined")
    combined.compile(optimizer=K.optimizers.SGD(0.1), loss="binary_crossentropy")
    out["d_trainable_after"] = len(discriminator.trainable_weights)
    out["combined_trainable"] = len(combined.trainable_weights)
    out["params"] = [generator.count_params(), discriminator.count_params(), combined.count_params()]
    out["names"] = [l.name for l in combined.layers] + [w.name for w in combined.weights]
    rng = np.random.RandomState(190)
    real = (rng.randn(8, 2) * 0.5 + np.array([2.0, -1.0])).astype(np.float32)
    noise = rng.randn(8, 4).astype(np.float32)
    out["steps"] = []
    for _ in range(3):
        fake = generator.predict(noise)
        d_before = discriminator.get_weights()
        d_real = discriminator.train_on_batch(real, np.ones((8, 1)))
        d_fake = discriminator.train_on_batch(fake, np.zeros((8, 1)))
        d_moved = any(not np.allclose(a, b) for a, b in zip(d_before, discriminator.get_weights()))
        g_before, d_before = generator.get_weights(), discriminator.get_weights()
        g_loss = combined.train_on_batch(noise, np.ones((8, 1)))
        g_moved = any(not np.allclose(a, b) for a, b in zip(g_before, generator.get_weights()))
        d_still = all(np.allclose(a, b) for a, b in zip(d_before, discriminator.get_weights()))
        out["steps"].append([d_real, d_fake, g_loss, d_moved, g_moved, d_still])
    out["final_fake"] = generator.predict(noise[:3])
    return out
