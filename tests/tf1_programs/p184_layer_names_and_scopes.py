"""How tf.layers and variable_scope named things in real TF1 model code, the details checkpoints depend on:
tf.layers.dense after a tf.name_scope("dense") already exists (variables "dense/...", ops "dense_1/..."), two
unnamed tf.layers.conv2d calls ("conv2d", "conv2d_1"), a model function called twice under
variable_scope("model", reuse=tf.AUTO_REUSE) (the same variables, ops under "model_1/"), default-named scopes in a
loop inside a scope that is re-entered (the numbering starts over in each re-entry), a layer object called
twice (its scope kept, "dense_2/..." ops), variable_scope(scope_object) re-entry (the name scope it opens, the
default layer name starting over there: "already exists" without reuse, the same variables with it), and a
tf.layers.Dense built under one scope and called under another; every variable and output name."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    img = tf.placeholder(tf.float32, [None, 6, 6, 1], name="img")
    with tf.name_scope("dense"):
        tf.identity(x, name="marker")
    d1 = tf.layers.dense(x, 3)
    c1 = tf.layers.conv2d(img, 2, 3)
    c2 = tf.layers.conv2d(img, 2, 3)

    def model(inp):
        h = tf.layers.dense(inp, 5, activation=tf.nn.relu, name="hidden")
        blocks = []
        for _ in range(2):
            with tf.variable_scope(None, default_name="block"):
                blocks.append(tf.get_variable("w", [5, 5], initializer=tf.ones_initializer()))
        for w in blocks:
            h = tf.matmul(h, w)
        return tf.layers.dense(h, 1, name="logits")

    with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
        m1 = model(x)
    with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
        m2 = model(x * 2.0)
    layer = tf.layers.Dense(2, name="shared_dense")
    l1 = layer(x)
    l2 = layer(x + 1.0)
    with tf.variable_scope("outer") as outer_scope:
        o1 = tf.layers.dense(x, 2)
    with tf.variable_scope(outer_scope):
        marker = tf.identity(x, name="inside")
        try:  # the default name starts over in the re-entered scope: "outer/dense" again, without reuse
            tf.layers.dense(x, 2)
            out["reentered_dense"] = None
        except ValueError as e:
            out["reentered_dense"] = ["ValueError", "outer/dense/kernel already exists" in str(e)]
    with tf.variable_scope(outer_scope, reuse=True):
        o2 = tf.layers.dense(x, 2)
    with tf.variable_scope("builder"):
        late = tf.layers.Dense(2)
    with tf.variable_scope("caller"):
        late_out = late(x)
    with tf.variable_scope(None, default_name="dense"):
        extra = tf.get_variable("v", [1])
    out["outputs"] = [t.name for t in (d1, c1, c2, m1, m2, l1, l2, o1, o2, marker, late_out)]
    out["vars"] = [(v.name, v.shape.as_list()) for v in tf.global_variables()]
    out["extra"] = extra.name
    out["layer_scope"] = [layer.name, late.scope_name if hasattr(late, "scope_name") else None]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([m1, m2], {x: np.ones([2, 4], np.float32)})
        out["shared"] = bool(np.allclose(a * 2.0, b, atol=1e-5))
    return out
