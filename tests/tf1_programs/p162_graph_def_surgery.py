"""GraphDef surgery as TF1 deployment scripts did it: as_graph_def(add_shapes=True) and the nodes' _output_shapes,
op.get_attr("T") / node_def / op.values() / tensor.consumers(), tf.import_graph_def with input_map replacing a
placeholder by a constant, return_elements (tensors and an op), name="" and a prefix, a GraphDef written with
tf.train.write_graph(as_text=False), read back with tf.gfile + GraphDef.ParseFromString, nodes edited in Python
(a Const's value replaced through tf.make_tensor_proto, a node renamed with its consumers' inputs rewired), and
graph.unique_name / name_scope("scope/") re-entry by absolute name."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    x = tf.placeholder(tf.float32, [None, 2], name="input")
    w = tf.constant([[1.0], [2.0]], name="weights")
    y = tf.matmul(x, w, name="logits")
    z = tf.nn.relu(y, name="output")
    g = tf.get_default_graph()
    gd = g.as_graph_def(add_shapes=True)
    out["output_shapes"] = {
        n.name: [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape] for n in gd.node
    }
    out["attr_T"] = [g.get_operation_by_name("logits").get_attr("T").name, y.op.node_def.op]
    out["values"] = [t.name for t in y.op.values()]
    out["consumers"] = [op.name for op in y.consumers()]
    out["unique"] = [g.unique_name("logits"), g.unique_name("logits", mark_as_used=False), g.unique_name("fresh")]
    with tf.name_scope("block") as scope:
        a = tf.identity(x, name="a")
    with tf.name_scope(scope):
        b = tf.identity(x, name="b")
    out["scope_reentry"] = [a.name, b.name, scope]
    path = tf.train.write_graph(gd, workdir, "model.pb", as_text=False)
    out["written"] = os.path.basename(path)
    with tf.gfile.GFile(path, "rb") as f:
        loaded = tf.GraphDef()
        loaded.ParseFromString(f.read())
    out["loaded_nodes"] = [n.name for n in loaded.node]
    # edit the Const's value and rename "output"
    for node in loaded.node:
        if node.name == "weights":
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.array([[3.0], [-1.0]], np.float32)))
        if node.name == "output":
            node.name = "prediction"
    with tf.Graph().as_default() as g2:
        new_input = tf.constant([[1.0, 1.0], [2.0, 0.5]], name="fixed_input")
        pred, logits, op = tf.import_graph_def(
            loaded, input_map={"input:0": new_input}, return_elements=["prediction:0", "logits:0", "logits"], name="m"
        )
        out["imported_names"] = [pred.name, logits.name, op.name, type(op).__name__]
        with tf.Session() as sess:
            out["imported_values"] = sess.run([pred, logits])
        tf.import_graph_def(gd, name="")
        out["unprefixed"] = [t.name for t in g2.get_operation_by_name("output").outputs]
        out["placeholder_kept"] = g2.get_operation_by_name("input").type
    return out
