"""Graph and session mechanics: tf.Graph().as_default(), collections, name scopes, assign ops, non-trainable
variables, get_default_session, and the frozen-graph recipe (convert_variables_to_constants, write_graph,
GFile, import_graph_def with a prefix, ops built on the imported tensors outside the `with`)."""

import os

import numpy as np


def main(tf, workdir):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="input")
        with tf.name_scope("layer"):
            w = tf.Variable([[1.0, -1.0], [0.5, 2.0]], name="w")
            b = tf.Variable([0.1, 0.2], name="b")
            out = tf.nn.relu(tf.matmul(x, w) + b, name="act")
        counter = tf.Variable(0, trainable=False, name="counter")
        inc = tf.assign_add(counter, 1)
        dec = tf.assign_sub(counter, 3)
        reset = tf.assign(counter, 10)
        scaled = w.assign(w * 2.0)
        tf.add_to_collection("my_outputs", out)
        tf.add_to_collection("my_outputs", tf.identity(out, name="output"))
        ref = tf.get_collection_ref("my_list")
        ref.append(1)
        keys = sorted(
            k
            for k in graph.get_all_collection_keys()
            if k in ("my_outputs", "my_list", "variables", "trainable_variables")
        )
        init = tf.variables_initializer([w, b, counter])
    assert tf.get_default_graph() is not graph
    with tf.Session(graph=graph) as sess:
        same_session = tf.get_default_session() is sess
        sess.run(init)
        counts = [sess.run(inc), sess.run(inc), sess.run(dec), sess.run(reset), inc.eval()]
        feed = {x: [[1.0, 2.0], [-3.0, 1.0]]}
        before = sess.run(out, feed)
        sess.run(scaled)
        after = out.eval(feed_dict=feed)
        frozen = tf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["output"])
    path = tf.train.write_graph(frozen, workdir, "frozen.pb", as_text=False)
    with tf.gfile.GFile(os.path.join(workdir, "frozen.pb"), "rb") as f:
        graph_def = tf.GraphDef()
        graph_def.ParseFromString(f.read())
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(graph_def, name="prefix")
    inp = g2.get_tensor_by_name("prefix/input:0")
    outp = g2.get_tensor_by_name("prefix/output:0")
    probs = tf.nn.softmax(outp)  # built outside the `with`: goes in outp's graph, as TF1 does
    top = tf.argmax(probs, axis=1)
    with tf.Session(graph=g2) as sess:
        frozen_out, p, t = sess.run([outp, probs, top], {inp: [[1.0, 2.0], [-3.0, 1.0]]})

    def op_types(ops):
        # `+` is AddV2 in TF 2's compat.v1 and Add in TF 1.x and tensorweave: either is right.
        return sorted("Add" if t == "AddV2" else t for t in ops)

    return {
        "same_session": same_session,
        "counts": counts,
        "before": before,
        "after": after,
        "frozen_ops": op_types(n.op for n in frozen.node),
        "frozen_names": sorted(n.name for n in frozen.node),
        "path": os.path.basename(path),
        "frozen_out": frozen_out,
        "probs": p,
        "top": t,
        "probs_graph": probs.graph is g2,
        "ops_in_g2": op_types(op.type for op in g2.get_operations()),
        "keys": keys,
        "n_outputs": len(graph.get_collection("my_outputs")),
        "names": [out.name, w.name, w.initializer.name, inc.name, counter.dtype.base_dtype.name, w.op.type],
        "trainable": [v.name for v in graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)],
        "global": [v.name for v in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)],
        "graph_keys": [
            tf.GraphKeys.TRAINABLE_VARIABLES,
            tf.GraphKeys.GLOBAL_VARIABLES,
            tf.GraphKeys.UPDATE_OPS,
            tf.GraphKeys.LOSSES,
            tf.GraphKeys.SUMMARIES,
            tf.GraphKeys.LOCAL_VARIABLES,
            tf.GraphKeys.REGULARIZATION_LOSSES,
            tf.GraphKeys.GLOBAL_STEP,
            tf.GraphKeys.QUEUE_RUNNERS,
        ],
    }
