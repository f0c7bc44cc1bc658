"""Exporting for TensorFlow Serving the TF1 way: tf.saved_model.builder.SavedModelBuilder with
add_meta_graph_and_variables(tags=[tag_constants.SERVING], signature_def_map=...) built by
signature_def_utils.predict_signature_def and build_signature_def with utils.build_tensor_info, the
DEFAULT_SERVING_SIGNATURE_DEF_KEY and PREDICT_METHOD_NAME constants, builder.save(); then
tf.saved_model.loader.load in a fresh graph, the signature's inputs / outputs read back by key (names, dtypes,
dtypes), tensors fetched by those names, and the error for a tag set that is not in the export."""

import os

import numpy as np


def main(tf, workdir):
    rng = np.random.RandomState(126)
    w_np = rng.randn(3, 2).astype(np.float32)
    xs = rng.randn(4, 3).astype(np.float32)
    export_dir = os.path.join(workdir, "export", "1")
    out = {}
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="features")
        w = tf.Variable(w_np, name="w")
        logits = tf.matmul(x, w, name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        classes = tf.argmax(probs, 1, name="classes")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["before"] = sess.run(probs, {x: xs})
            builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
            predict = tf.saved_model.signature_def_utils.predict_signature_def(
                inputs={"x": x}, outputs={"probs": probs, "classes": classes}
            )
            info = tf.saved_model.utils.build_tensor_info(logits)
            custom = tf.saved_model.signature_def_utils.build_signature_def(
                inputs={"x": tf.saved_model.utils.build_tensor_info(x)},
                outputs={"logits": info},
                method_name=tf.saved_model.signature_constants.PREDICT_METHOD_NAME,
            )
            builder.add_meta_graph_and_variables(
                sess,
                [tf.saved_model.tag_constants.SERVING],
                signature_def_map={
                    tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict,
                    "logits_only": custom,
                },
            )
            builder.save()
    out["constants"] = [
        tf.saved_model.tag_constants.SERVING,
        tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY,
        tf.saved_model.signature_constants.PREDICT_METHOD_NAME,
        tf.saved_model.signature_constants.PREDICT_INPUTS,
    ]
    out["info"] = [info.name, info.dtype]
    out["files"] = sorted(os.listdir(export_dir))
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
        sig = meta.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        out["signature_keys"] = sorted(meta.signature_def.keys())
        out["method"] = sig.method_name
        out["inputs"] = {k: [v.name, v.dtype] for k, v in sig.inputs.items()}
        out["outputs"] = {k: [v.name, v.dtype] for k, v in sig.outputs.items()}
        out["after"] = sess.run(sig.outputs["probs"].name, {sig.inputs["x"].name: xs})
        out["classes"] = sess.run(sig.outputs["classes"].name, {sig.inputs["x"].name: xs})
        out["tags"] = list(meta.meta_info_def.tags)
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            tf.saved_model.loader.load(sess, ["train"], export_dir)
        except RuntimeError as e:
            out["bad_tag"] = ["RuntimeError", "could not be found in SavedModel" in str(e)]
    return out
