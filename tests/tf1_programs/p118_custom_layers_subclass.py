"""Custom layers as TF1 code subclassed them: a tf.layers.Layer with build() / add_weight (initializer,
regularizer, trainable=False) / call(), its variables' names under the layer's scope, reuse by calling the
object twice, add_loss of an activity regularizer collected in REGULARIZATION_LOSSES and layer.losses, a
tf.keras.layers.Layer subclass with get_config and compute_output_shape used on placeholders, trainable_weights /
non_trainable_weights, and training both with the regularization losses."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(118)
    xs = rng.randn(6, 4).astype(np.float32)
    ys = rng.randn(6, 3).astype(np.float32)

    class ScaledDense(tf.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.kernel = self.add_weight(
                "kernel",
                shape=[int(input_shape[-1]), self.units],
                initializer=tf.constant_initializer(rng.randn(int(input_shape[-1]), self.units) * 0.3),
                regularizer=lambda w: 0.01 * tf.reduce_sum(tf.square(w)),
            )
            self.scale = self.add_weight("scale", shape=[], initializer=tf.ones_initializer())
            self.count = self.add_weight("count", shape=[], initializer=tf.zeros_initializer(), trainable=False)
            super().build(input_shape)

        def call(self, inputs):
            out = self.scale * tf.matmul(inputs, self.kernel)
            self.add_loss(1e-3 * tf.reduce_sum(tf.abs(out)))
            return out

    class Residual(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(
                name="w", shape=(int(input_shape[-1]), self.units), initializer=tf.keras.initializers.Constant(0.05)
            )
            super().build(input_shape)

        def call(self, inputs):
            return inputs[:, : self.units] + tf.nn.tanh(tf.matmul(inputs, self.w))

        def compute_output_shape(self, input_shape):
            return tf.TensorShape([input_shape[0], self.units])

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 3])
    layer = ScaledDense(3, name="scaled")
    h1 = layer(x)
    h2 = layer(x * 2.0)
    res = Residual(3, name="residual")
    out_t = res(tf.concat([h1, h2], 1))
    reg = tf.losses.get_regularization_losses()
    loss = tf.reduce_mean(tf.square(out_t - y)) + tf.add_n(reg) + tf.add_n(layer.losses)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    config = res.get_config()
    out = {
        "vars": [
            (v.op.name, v.shape.as_list(), v in tf.trainable_variables())
            for v in tf.global_variables()
            if "Adam" not in v.op.name and "power" not in v.op.name
        ],
        "layer_trainable": [v.op.name for v in layer.trainable_weights],
        "layer_non_trainable": [v.op.name for v in layer.non_trainable_weights],
        "n_losses": [len(layer.losses), len(reg)],
        "reg_names": [t.op.name for t in reg],
        "config": sorted((k, config[k]) for k in ("name", "trainable", "units")),
        "output_shape": res.compute_output_shape(tf.TensorShape([None, 6])).as_list(),
        "shapes": [t.shape.as_list() for t in (h1, h2, out_t)],
        "names": [t.name for t in (h1, h2, out_t)],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(6):
            out["losses"].append(sess.run([loss, train], {x: xs, y: ys})[0])
        out["scale"] = sess.run(layer.scale)
    return out
