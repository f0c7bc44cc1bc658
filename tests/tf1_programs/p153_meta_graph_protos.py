"""Reading the protos TF1 tooling handed back, as serving and graph-surgery scripts did: tf.train.export_meta_graph()
-> MetaGraphDef with meta_graph_def.graph_def.node listed (names, ops), collection_def keys and node_list
values, saver_def fields; text_format of the meta graph mentioning the nodes; a SavedModel written by
simple_save and loaded back, its signature_def["serving_default"] inputs / outputs with tensor_info.name,
dtype and tensor_shape.dim sizes (-1 for unknown), method_name; tf.saved_model.utils.build_tensor_info of a
placeholder with an unknown rank; tf.train.import_meta_graph of the MetaGraphDef object with input_map replacing
the input placeholder; graph_def node counts and the import's returned Saver."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf.identity(tf.matmul(x, w), name="y")
    tf.add_to_collection("outputs", y)
    saver = tf.train.Saver()
    meta = tf.train.export_meta_graph()
    gd = meta.graph_def
    out["node_names"] = sorted(n.name for n in gd.node if not n.name.startswith("save"))
    out["node_ops"] = sorted({n.op for n in gd.node if n.name in ("x", "w", "y", "MatMul")})
    out["collections"] = sorted(meta.collection_def.keys())
    out["outputs_nodes"] = list(meta.collection_def["outputs"].node_list.value)
    out["saver_def"] = [meta.saver_def.filename_tensor_name, meta.saver_def.restore_op_name, meta.saver_def.max_to_keep]
    out["graph_def_type"] = type(gd).__name__
    out["has_versions"] = gd.HasField("versions")
    placeholder_node = next(n for n in gd.node if n.name == "x")
    out["x_shape_attr"] = [d.size for d in placeholder_node.attr["shape"].shape.dim]
    info = tf.saved_model.utils.build_tensor_info(x)
    out["info"] = [info.name, info.dtype, [d.size for d in info.tensor_shape.dim], info.tensor_shape.unknown_rank]
    unk = tf.saved_model.utils.build_tensor_info(tf.placeholder(tf.int64, name="unk"))
    out["unknown_rank"] = [unk.tensor_shape.unknown_rank, len(unk.tensor_shape.dim)]
    export_dir = os.path.join(workdir, "export")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ckpt = saver.save(sess, os.path.join(workdir, "model.ckpt"))
        tf.saved_model.simple_save(sess, export_dir, inputs={"x": x}, outputs={"y": y})
    with tf.Graph().as_default(), tf.Session() as sess:
        loaded = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
        sig = loaded.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        out["sig_method"] = sig.method_name
        out["sig_inputs"] = {k: [v.name, v.dtype, [d.size for d in v.tensor_shape.dim]] for k, v in sig.inputs.items()}
        out["sig_outputs"] = {k: [v.name, [d.size for d in v.tensor_shape.dim]] for k, v in sig.outputs.items()}
        out["loaded_tags"] = list(loaded.meta_info_def.tags)
        out["loaded_has_y"] = any(n.name == "y" for n in loaded.graph_def.node)
        y_name = sig.outputs["y"].name
        out["served"] = sess.run(y_name, {sig.inputs["x"].name: np.ones([2, 3], np.float32)})
    with tf.Graph().as_default():
        new_input = tf.constant(np.ones([1, 3], np.float32) * 2.0, name="new_input")
        restorer = tf.train.import_meta_graph(meta, input_map={"x:0": new_input}, import_scope="imported")
        g = tf.get_default_graph()
        yy = g.get_tensor_by_name("imported/y:0")
        out["imported_saver"] = type(restorer).__name__
        out["imported_outputs"] = [t.name for t in tf.get_collection("outputs")]
        with tf.Session() as sess:
            try:  # the imported saver looks for "imported/w": not in the checkpoint
                restorer.restore(sess, ckpt)
                out["imported_restore"] = None
            except tf.errors.NotFoundError as e:
                out["imported_restore"] = type(e).__name__
            tf.train.Saver({"w": tf.global_variables()[0]}).restore(sess, ckpt)
            out["imported_value"] = sess.run(yy)
            out["imported_vars"] = [v.name for v in tf.global_variables()]
    return out
