"""Moving a model between graphs the TF1 way: tf.train.export_meta_graph with clear_devices=True and a
collection_list; tf.train.import_meta_graph with import_scope and clear_devices, the imported names and devices; Saver on the imported variables restoring a checkpoint written under other
names (a var_list dict); the GraphDef's node inputs, devices and ops of a written .pbtxt read back with
text_format; tf.train.write_graph / import_graph_def with return_elements and input_map."""

import os

import numpy as np


def main(tf, workdir):
    rng = np.random.RandomState(110)
    w_np = rng.randn(3, 2).astype(np.float32)
    xs = rng.randn(4, 3).astype(np.float32)
    out = {}
    g1 = tf.Graph()
    with g1.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        with tf.device("/cpu:0"), tf.variable_scope("model"):
            w = tf.get_variable("w", initializer=tf.constant(w_np))
            b = tf.get_variable("b", [2], initializer=tf.constant_initializer(0.5))
            y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        with tf.variable_scope("other"):
            tf.get_variable("unused", [1])
        tf.add_to_collection("outputs", y)
        tf.add_to_collection("inputs", x)
        saver = tf.train.Saver({"weights": w, "bias": b})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["y"] = sess.run(y, {x: xs})
            ckpt = saver.save(sess, os.path.join(workdir, "model.ckpt"))
        meta_path = os.path.join(workdir, "model.meta")
        meta = tf.train.export_meta_graph(
            filename=meta_path, clear_devices=True, collection_list=["outputs", "inputs", tf.GraphKeys.GLOBAL_VARIABLES]
        )
        out["meta_collections"] = sorted(meta.collection_def.keys())
        gd = g1.as_graph_def()
        out["graph_inputs"] = {
            n.name: list(n.input)
            for n in gd.node
            if n.name.startswith("model/") and n.op in ("MatMul", "AddV2", "Add", "Relu")
        }
        tf.train.write_graph(gd, workdir, "graph.pbtxt", as_text=True)
        tf.train.write_graph(gd, workdir, "graph.pb", as_text=False)
    from google.protobuf import text_format

    with open(os.path.join(workdir, "graph.pbtxt")) as f:
        text_gd = text_format.Parse(f.read(), tf.GraphDef())
    out["text_nodes"] = len(text_gd.node) == len(gd.node)
    out["text_mm"] = [list(n.input) for n in text_gd.node if n.op == "MatMul"]
    g2 = tf.Graph()
    with g2.as_default():
        new_saver = tf.train.import_meta_graph(meta_path, import_scope="imported", clear_devices=True)
        y2 = tf.get_collection("outputs")[0]
        x2 = tf.get_collection("inputs")[0]
        out["imported_names"] = [x2.name, y2.name, y2.device]
        out["imported_vars"] = [v.op.name for v in tf.global_variables()]
        out["saver_made"] = new_saver is not None
        by_name = {v.op.name: v for v in tf.global_variables()}
        restorer = tf.train.Saver({"weights": by_name["imported/model/w"], "bias": by_name["imported/model/b"]})
        with tf.Session() as sess:
            restorer.restore(sess, ckpt)
            out["y_restored"] = sess.run(y2, {x2: xs})
    g3 = tf.Graph()
    with g3.as_default():
        with tf.gfile.GFile(os.path.join(workdir, "graph.pb"), "rb") as f:
            gd3 = tf.GraphDef()
            gd3.ParseFromString(f.read())
        new_x = tf.placeholder(tf.float32, [None, 3], name="new_x")
        (mm,) = tf.import_graph_def(gd3, input_map={"x:0": new_x}, return_elements=["model/MatMul:0"], name="g")
        out["mapped"] = [mm.name, [t.name for t in mm.op.inputs]]
    return out
