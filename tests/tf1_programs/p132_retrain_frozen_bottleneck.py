"""The "retrain the last layer" recipe (TensorFlow for Poets, 2017): a small "pretrained" network frozen with
graph_util.convert_variables_to_constants, trimmed with extract_sub_graph and remove_training_nodes (the Identity
nodes gone), written with tf.io.write_graph; then imported with import_graph_def(return_elements=[
input, bottleneck]) into a new graph, bottlenecks computed once, and a new final layer trained on them with
tf.stop_gradient; the frozen graph's node list, ops, and the new layer's losses compared."""

import os

import numpy as np


def main(tf, workdir):
    rng = np.random.RandomState(132)
    images = rng.rand(10, 6, 6, 1).astype(np.float32)
    labels = rng.randint(0, 3, 10).astype(np.int64)
    out = {}
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 6, 6, 1], name="input")
        k = tf.Variable(rng.randn(3, 3, 1, 4).astype(np.float32) * 0.5, name="conv/kernel")
        h = tf.nn.relu(tf.nn.conv2d(x, k, [1, 2, 2, 1], "SAME"), name="conv/relu")
        h = tf.identity(h, name="conv/out")
        pooled = tf.reduce_mean(h, [1, 2], name="bottleneck")
        w = tf.Variable(rng.randn(4, 5).astype(np.float32), name="old_head/w")
        tf.matmul(pooled, w, name="old_head/logits")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["bottleneck_ref"] = sess.run(pooled, {x: images[:2]})
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), ["bottleneck", "old_head/logits"]
            )
    sub = tf.graph_util.extract_sub_graph(frozen, ["bottleneck"])
    trimmed = tf.graph_util.remove_training_nodes(sub, protected_nodes=["input"])
    out["frozen_ops"] = sorted((n.name, n.op) for n in frozen.node)
    out["sub_nodes"] = sorted(n.name for n in sub.node)
    out["trimmed"] = sorted((n.name, n.op, list(n.input)) for n in trimmed.node)
    path = tf.io.write_graph(trimmed, workdir, "bottleneck.pb", as_text=False)
    out["written"] = os.path.basename(path)
    with tf.Graph().as_default():
        gd = tf.GraphDef()
        with tf.gfile.GFile(os.path.join(workdir, "bottleneck.pb"), "rb") as f:
            gd.ParseFromString(f.read())
        inp, bottleneck = tf.import_graph_def(gd, return_elements=["input:0", "bottleneck:0"], name="pretrained")
        out["imported"] = [inp.name, bottleneck.name, bottleneck.shape.as_list()]
        features = tf.stop_gradient(bottleneck)
        y = tf.placeholder(tf.int64, [None])
        head_w = tf.Variable(tf.zeros([4, 3]), name="final/w")
        head_b = tf.Variable(tf.zeros([3]), name="final/b")
        logits = tf.matmul(features, head_w) + head_b
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        out["trainable"] = [v.op.name for v in tf.trainable_variables()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            cached = sess.run(bottleneck, {inp: images})
            out["bottleneck_same"] = bool(np.allclose(cached[:2], out["bottleneck_ref"], atol=1e-6))
            out["losses"] = [sess.run([loss, train], {bottleneck: cached, y: labels})[0] for _ in range(6)]
    return out
