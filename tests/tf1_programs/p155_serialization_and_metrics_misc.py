"""Odds and ends TF1 utility code used: tf.serialize_tensor / tf.parse_tensor round trips (float, int, string),
tf.serialize_sparse / tf.deserialize_many_sparse-free serialize_many_sparse, tf.encode_base64 / tf.decode_base64
(web-safe, pad), tf.strings.bytes_split, tf.compat.as_bytes / as_text / as_str_any, tf.histogram_fixed_width_bins,
tf.math.confusion_matrix with weights and num_classes, streaming tf.metrics.sensitivity_at_specificity /
specificity_at_sensitivity / precision_at_thresholds / true_positives_at_thresholds / mean_cosine_distance, and
the checkpoint helpers tf.train.global_step, tf.train.assert_global_step, tf.train.load_checkpoint
(get_variable_to_shape_map / get_tensor), tf.train.load_variable, tf.train.remove_checkpoint,
tf.train.checkpoint_exists, tf.train.generate_checkpoint_state_proto."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    f = tf.constant([[1.5, -2.0], [0.0, 3.25]])
    i = tf.constant([7, 8, 9], tf.int64)
    s = tf.constant(["ab", "cde"])
    ser = [tf.serialize_tensor(t) for t in (f, i, s)]
    parsed = [
        tf.parse_tensor(ser[0], tf.float32),
        tf.parse_tensor(ser[1], tf.int64),
        tf.parse_tensor(ser[2], tf.string),
    ]
    sp = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 2])
    ops = {
        "parsed": parsed,
        "ser_sparse_shape": tf.shape(tf.serialize_sparse(sp)),
        "b64": tf.encode_base64(tf.constant(["hello?>", "TF1"])),
        "b64_pad": tf.encode_base64(tf.constant(["hello?>"]), pad=True),
        "b64_round": tf.decode_base64(tf.encode_base64(tf.constant(["x\x00y", ""]))),
        "bins": tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 12.0], [0.0, 10.0], nbins=5),
        "confusion": tf.confusion_matrix([0, 1, 2, 1, 0], [0, 2, 2, 1, 1], num_classes=4, weights=[1, 2, 3, 4, 5]),
        "confusion_default": tf.math.confusion_matrix([0, 1, 1], [1, 1, 0]),
    }
    out["parsed_shapes"] = [p.shape.ndims for p in parsed]
    labels = tf.constant([1, 0, 1, 1, 0, 0, 1, 0], tf.int64)
    preds = tf.constant([0.9, 0.3, 0.6, 0.4, 0.2, 0.7, 0.8, 0.1])
    metrics = {
        "sens_at_spec": tf.metrics.sensitivity_at_specificity(labels, preds, 0.75, num_thresholds=20),
        "spec_at_sens": tf.metrics.specificity_at_sensitivity(labels, preds, 0.5, num_thresholds=20),
        "prec_at_thr": tf.metrics.precision_at_thresholds(labels, preds, [0.25, 0.5, 0.75]),
        "tp_at_thr": tf.metrics.true_positives_at_thresholds(labels, preds, [0.25, 0.5, 0.75]),
        "cosine": tf.metrics.mean_cosine_distance(
            tf.constant([[1.0, 0.0], [0.0, 1.0]]), tf.constant([[0.6, 0.8], [0.0, 1.0]]), dim=1
        ),
    }
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        out["ops"] = sess.run(ops)
        sess.run({k: v[1] for k, v in metrics.items()})
        out["metrics"] = sess.run({k: v[0] for k, v in metrics.items()})
    out["bytes_split"] = None
    with tf.Session() as sess:
        out["bytes_split"] = sess.run(tf.strings.bytes_split(tf.constant("héllo")))
    out["compat"] = [
        tf.compat.as_bytes("é"), tf.compat.as_text(b"\xc3\xa9"), tf.compat.as_str_any(3), tf.compat.as_bytes(b"x"),
    ]  # fmt: skip

    v = tf.Variable(np.arange(4, dtype=np.float32).reshape(2, 2), name="v")
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 5)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(inc)
        out["global_step_fn"] = tf.train.global_step(sess, gs)
        tf.train.assert_global_step(gs)
        path = saver.save(sess, os.path.join(workdir, "model.ckpt"), global_step=gs)
    out["assert_bad_global_step"] = None
    try:
        tf.train.assert_global_step(v)
    except (TypeError, ValueError) as e:
        out["assert_bad_global_step"] = type(e).__name__
    reader = tf.train.load_checkpoint(path)
    out["shape_map"] = sorted(reader.get_variable_to_shape_map().items())
    out["reader_tensor"] = reader.get_tensor("v")
    out["load_variable"] = tf.train.load_variable(workdir, "global_step")
    out["exists"] = tf.train.checkpoint_exists(path)
    state = tf.train.generate_checkpoint_state_proto(workdir, path, all_model_checkpoint_paths=[path])
    out["state"] = [os.path.basename(state.model_checkpoint_path), len(state.all_model_checkpoint_paths)]
    tf.train.remove_checkpoint(path)
    out["exists_after_remove"] = tf.train.checkpoint_exists(path)
    return out
