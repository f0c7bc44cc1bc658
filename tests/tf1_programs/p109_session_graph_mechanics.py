"""Session and graph mechanics TF1 scripts relied on, and their errors: sess.make_callable with a feed_list
(and accept_options), fetches as namedtuples / dicts / nested lists, Session.run on an Operation (None) and on
a fetched-twice tensor, graph.finalize() and the RuntimeError when adding an op afterwards, tf.Graph.device with a
function, graph.unique_name, control_dependencies(None) clearing outer ones, op.get_attr / op.node_def / op.type,
tensor.consumers(), graph.get_all_collection_keys, as_graph_element, sess.graph is the default graph, a fetch of a
non-tensor (TypeError), feeding a non-placeholder tensor (allowed), and feeding a fed-only-once key twice."""

import collections


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    a = tf.placeholder(tf.float32, [None], name="a")
    b = tf.placeholder(tf.float32, [None], name="b")
    total = tf.add(a, b, name="total")
    prod = tf.multiply(a, b, name="prod")
    doubled = tf.identity(total * 2.0, name="doubled")
    counter = tf.Variable(0, name="counter")
    inc = tf.assign_add(counter, 1, name="inc")
    with tf.control_dependencies([inc]):
        with tf.control_dependencies(None):
            free = tf.constant(1.0, name="free")
        bound = tf.constant(2.0, name="bound")
    with tf.device(lambda op: "/cpu:0" if op.type == "Const" else ""):
        c1 = tf.constant(3.0, name="c1")
        s1 = tf.sqrt(c1, name="s1")
    Pair = collections.namedtuple("Pair", ["sum", "product"])
    out["unique"] = [tf.get_default_graph().unique_name("total"), tf.get_default_graph().unique_name("fresh")]
    out["free_deps"] = [op.name for op in free.op.control_inputs]
    out["bound_deps"] = [op.name for op in bound.op.control_inputs]
    out["devices"] = [c1.device, s1.device]
    out["attrs"] = [total.op.get_attr("T").name, total.op.type, total.op.node_def.op, sorted(total.op.node_def.input)]
    out["consumers"] = sorted(op.name for op in total.consumers())
    out["graph_element"] = tf.get_default_graph().as_graph_element("total:0").name
    with tf.Session() as sess:
        out["same_graph"] = sess.graph is tf.get_default_graph()
        sess.run(tf.global_variables_initializer())
        feed = {a: [1.0, 2.0], b: [3.0, 4.0]}
        pair = sess.run(Pair(total, prod), feed)
        out["namedtuple"] = [type(pair).__name__, pair.sum, pair.product]
        nested = sess.run({"x": [total, (prod, doubled)], "y": total}, feed)
        out["nested"] = [nested["x"][0], nested["x"][1][0], nested["x"][1][1], nested["y"]]
        out["op_fetch"] = sess.run(inc)
        out["twice"] = sess.run([total, total], feed)
        fn = sess.make_callable([total, prod], feed_list=[a, b])
        out["callable"] = fn([1.0], [5.0])
        fn_op = sess.make_callable(inc)
        out["callable_op"] = [fn_op(), sess.run(counter)]
        fn_dict = sess.make_callable({"d": doubled}, feed_list=["a:0", "b:0"])
        out["callable_dict"] = fn_dict([1.0, 1.0], [0.5, 0.5])
        out["bound_runs_inc"] = [sess.run(bound), sess.run(counter)]
        out["feed_intermediate"] = sess.run(doubled, {total: [10.0]})
        out["by_name"] = sess.run("total:0", {"a:0": [1.0], "b:0": [2.0]})
        try:
            sess.run(42)
        except TypeError as e:
            out["bad_fetch"] = ["TypeError", "Fetch argument 42 has invalid type" in str(e)]
        try:
            sess.run(total, {a: [1.0, 2.0], b: [1.0]})
        except tf.errors.InvalidArgumentError as e:
            out["mismatch"] = ["InvalidArgumentError", "Incompatible shapes" in e.message]
        try:
            sess.run(total, {"nope:0": [1.0]})
        except (TypeError, ValueError, KeyError) as e:
            out["bad_feed_key"] = type(e).__name__
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0)
        g.finalize()
        out["finalized"] = g.finalized
        try:
            tf.constant(2.0)
        except RuntimeError as e:
            out["finalized_error"] = ["RuntimeError", str(e)]
    out["collection_keys"] = sorted(tf.get_default_graph().get_all_collection_keys())
    out["graph_version"] = tf.get_default_graph().version > 0
    del x
    return out
