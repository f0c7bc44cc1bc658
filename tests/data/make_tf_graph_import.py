"""Writes tf_graph_import.pb, a GraphDef written by TensorFlow (tensorflow.compat.v1, v2 behaviour off,
`as_graph_def()`), and tf_graph_import.npz, what TensorFlow computes with it. Every node carries all the attrs of
TF's op definitions, defaults included (Conv2D/MaxPool `explicit_paddings`, MatMul `grad_a`, Equal
`incompatible_shape_error`, GatherNd `bad_indices_policy`, TopKV2 `Tk`/`index_type`, SparseSegmentSum
`sparse_gradient`, FusedBatchNorm `exponential_avg_factor`...). tests/test_tf_graph_import.py imports the file into
tensorweave and compares (and, where TensorFlow is installed, runs this script again into a temporary directory).

The graph: a small CNN (conv2d, bias_add, relu, max_pool, FusedBatchNorm in training and inference form, matmul,
softmax) fed by the placeholder `x`, and beside it equal/not_equal (one of them with incompatible shapes),
gather_nd/scatter_nd/tensor_scatter_update (with bad_indices_policy IGNORE and an index outside), top_k with int64
indices and sparse_segment_sum/mean/sqrt_n. The outputs are named in FETCHES; X is fed to `x`.

  python tests/data/make_tf_graph_import.py [output directory, default: this script's directory]
"""

import os
import sys

import numpy as np

FETCHES = [
    "probs",
    "conv_pool",
    "bn_train_y",
    "bn_train_mean",
    "bn_train_var",
    "bn_infer_y",
    "eq",
    "ne",
    "eq_incompatible",
    "ne_incompatible",
    "gathered",
    "gathered_ignore",
    "scattered",
    "scattered_ignore",
    "tensor_scattered",
    "topk_values",
    "topk_indices",
    "seg_sum",
    "seg_mean",
    "seg_sqrtn",
]


def _inputs():
    rng = np.random.RandomState(5)
    return rng, rng.standard_normal((2, 8, 8, 3)).astype(np.float32)


def build(tf):
    """The graph in the default graph; returns the placeholder x."""
    rng, _ = _inputs()
    x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
    w = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.3)
    b = tf.constant(rng.standard_normal(4).astype(np.float32) * 0.1)
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    tf.identity(h, name="conv_pool")
    scale = tf.constant(rng.uniform(0.5, 1.5, 4).astype(np.float32))
    offset = tf.constant(rng.standard_normal(4).astype(np.float32) * 0.1)
    running_mean = tf.constant(rng.standard_normal(4).astype(np.float32) * 0.1)
    running_var = tf.constant(rng.uniform(0.5, 1.5, 4).astype(np.float32))
    train = tf.raw_ops.FusedBatchNorm(
        x=h,
        scale=scale,
        offset=offset,
        mean=running_mean,
        variance=running_var,
        epsilon=0.001,
        exponential_avg_factor=0.25,
        is_training=True,
    )
    tf.identity(train.y, name="bn_train_y")
    tf.identity(train.batch_mean, name="bn_train_mean")
    tf.identity(train.batch_variance, name="bn_train_var")
    infer = tf.raw_ops.FusedBatchNorm(
        x=h, scale=scale, offset=offset, mean=running_mean, variance=running_var, epsilon=0.001, is_training=False
    )
    tf.identity(infer.y, name="bn_infer_y")
    flat = tf.reshape(train.y, [-1, 4 * 4 * 4])
    dense = tf.constant(rng.standard_normal((64, 5)).astype(np.float32) * 0.2)
    logits = tf.matmul(flat, dense)
    tf.nn.softmax(logits, name="probs")

    ints = tf.constant([1, 2, 3, 4])
    tf.equal(ints, tf.constant([1, 0, 3, 0]), name="eq")
    tf.not_equal(ints, tf.constant(3), name="ne")
    tf.raw_ops.Equal(x=ints, y=tf.constant([1, 2]), incompatible_shape_error=False, name="eq_incompatible")
    tf.raw_ops.NotEqual(x=ints, y=tf.constant([1, 2]), incompatible_shape_error=False, name="ne_incompatible")

    params = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    tf.gather_nd(params, [[0, 1], [2, 3]], name="gathered")
    tf.raw_ops.GatherNd(params=params, indices=[[1], [7], [0]], bad_indices_policy="IGNORE", name="gathered_ignore")
    tf.scatter_nd([[1], [3]], tf.constant([5.0, 6.0]), [5], name="scattered")
    tf.raw_ops.ScatterNd(
        indices=tf.constant([[1], [9], [3]]),
        updates=tf.constant([5.0, 7.0, 6.0]),
        shape=tf.constant([5]),
        bad_indices_policy="IGNORE",
        name="scattered_ignore",
    )
    tf.tensor_scatter_nd_update(params, [[0, 0], [2, 1]], tf.constant([-1.0, -2.0]), name="tensor_scattered")

    top = tf.raw_ops.TopKV2(input=logits, k=tf.constant(2, tf.int64), index_type=tf.int64)
    tf.identity(top.values, name="topk_values")
    tf.identity(top.indices, name="topk_indices")

    data = tf.constant(rng.standard_normal((5, 3)).astype(np.float32))
    idx = tf.constant([0, 2, 3, 4])
    seg = tf.constant([0, 0, 1, 3])
    tf.sparse.segment_sum(data, idx, seg, name="seg_sum")
    tf.sparse.segment_mean(data, idx, seg, name="seg_mean")
    tf.sparse.segment_sqrt_n(data, idx, seg, name="seg_sqrtn")
    return x


def main(out_dir):
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    _, x_value = _inputs()
    graph = tf.Graph()
    with graph.as_default():
        x = build(tf)
        with tf.Session() as sess:
            values = sess.run([f + ":0" for f in FETCHES], {x: x_value})
    with open(os.path.join(out_dir, "tf_graph_import.pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    arrays = {"x": x_value}
    for name, value in zip(FETCHES, values):
        arrays[name] = np.asarray(value)
    np.savez(os.path.join(out_dir, "tf_graph_import.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
