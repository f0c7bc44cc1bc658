"""More construction-time errors of tf ops, as TF1 users met them (Stack Overflow titles), compared by class and
first line: concat with an out-of-range axis, reduce_sum over an axis out of range,
transpose with a bad perm length, argmax over a bad axis, expand_dims with a bad axis,
softmax_cross_entropy_with_logits_v2 with mismatched logits / labels, sparse_softmax_cross_entropy_with_logits
with labels of the wrong rank, pad with paddings of the wrong shape, conv2d with a filter whose in-channels
differ, tf.split with size_splits not summing, tf.boolean_mask with a mask of the wrong rank, tf.where with x and y of different shapes, tf.range with a
zero delta, tf.fill with a negative dim, and the run-time error of string_to_number on a bad string."""

import numpy as np


def _err(tf, fn):
    """The error's class and the first line of its message up to the node it names (op names inside the wrappers
    are the systems' own)."""
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared by class and first line
        msg = str(e).strip().split("\n")[0]
        return [type(e).__name__, msg.split(" for '{{node")[0][:110]]


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.ones([2, 3])
    f = tf.placeholder(tf.float32, [None, 4])
    cases = {
        "concat_axis": lambda: tf.concat([x, x], axis=2),
        "reduce_axis": lambda: tf.reduce_sum(x, axis=2),
        "transpose_perm": lambda: tf.transpose(x, [1, 0, 2]),
        "argmax_axis": lambda: tf.argmax(x, axis=3),
        "expand_dims_axis": lambda: tf.expand_dims(x, 4),
        "softmax_xent_shapes": lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.ones([2, 4]), logits=x),
        "sparse_xent_rank": lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.ones([2, 1], tf.int32), logits=x
        ),
        "pad_shape": lambda: tf.pad(x, [[1, 1]]),
        "conv_channels": lambda: tf.nn.conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], "SAME"),
        "split_sizes": lambda: tf.split(x, [1, 1], axis=1),
        "boolean_mask_rank": lambda: tf.boolean_mask(x, tf.constant([[[True]]])),
        "where_shapes": lambda: tf.where(tf.constant([True, False]), tf.ones([2]), tf.ones([3])),
        "range_zero_delta": lambda: tf.Session().run(tf.range(0, 5, 0)),
        "fill_negative": lambda: tf.fill([2, -1], 0.0),
        "matmul_placeholder": lambda: tf.matmul(f, x),
    }
    out = {name: _err(tf, fn) for name, fn in cases.items()}
    bad = tf.strings.to_number(tf.constant(["1.5", "abc"]))
    with tf.Session() as sess:
        try:
            sess.run(bad)
            out["to_number_runtime"] = None
        except tf.errors.InvalidArgumentError as e:  # (TF 2's message starts "Graph execution error:")
            out["to_number_runtime"] = [type(e).__name__, "abc" in e.message]
        out["ok_values"] = sess.run([tf.reshape(x, [-1]), tf.concat([x, x], axis=-1)])
    return out
