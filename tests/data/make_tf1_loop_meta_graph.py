"""Writes tf1_loop.meta, a meta graph exported by TensorFlow 1 (tensorflow.compat.v1, v2 behaviour off) with a
while loop that holds a cond and a nested while loop, and tf1_loop.json, what TensorFlow computes with it: the
loss and its gradients with respect to the placeholder x and the variable w at X. tests/test_control_flow_meta_graph.py
imports the file into tensorweave and compares (and, where TensorFlow is installed, runs this script again).

Only ops that tensorweave registers are used (TF's `a + b` builds AddV2, so the sums are tf.raw_ops.Add).

  python tests/data/make_tf1_loop_meta_graph.py [output directory, default: this script's directory]
"""

import json
import os
import sys

import numpy as np

X = [0.1, 0.2, -0.3]


def build(tf):
    """The model: the loss, and the x placeholder and w variable it depends on."""
    x = tf.placeholder(tf.float64, [3], name="x")
    w = tf.Variable(np.array([0.5, -0.3, 0.8]), name="w")

    def body(i, h):
        def inner(j, a):
            return tf.raw_ops.Add(x=j, y=1), tf.raw_ops.Add(x=tf.sin(a) * w, y=x)

        _, a = tf.while_loop(lambda j, a: j < 2, inner, [tf.constant(0), h])
        h = tf.cond(i < 2, lambda: tf.tanh(tf.raw_ops.Add(x=a, y=x)), lambda: a * 1.5)
        return tf.raw_ops.Add(x=i, y=1), h

    _, h = tf.while_loop(lambda i, h: i < 4, body, [tf.constant(0), tf.ones([3], tf.float64)])
    loss = tf.reduce_sum(h * h, name="loss")
    tf.add_to_collection("loss", loss)
    return x, w, loss


def main(out_dir):
    # Imported here: `pytest --doctest-modules` imports this file, also where TensorFlow is not installed.
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    x, w, loss = build(tf)
    tf.train.export_meta_graph(os.path.join(out_dir, "tf1_loop.meta"))
    dx, dw = tf.gradients(loss, [x, w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run({"loss": loss, "dx": dx, "dw": dw}, {x: X})
    result = {"x": X, **{k: np.asarray(v).tolist() for k, v in values.items()}}
    with open(os.path.join(out_dir, "tf1_loop.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
