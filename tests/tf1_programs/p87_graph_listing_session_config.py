"""Graph introspection and session options as TF1 scripts used them: a small model's
tf.get_default_graph().get_operations() listed as (name, type) pairs, op inputs/outputs by name,
graph.get_tensor_by_name / get_operation_by_name, as_graph_def node count and tf.train.write_graph text,
sess.graph.finalize() then the RuntimeError from adding an op, a Session(config=ConfigProto(
inter/intra_op_parallelism_threads, allow_soft_placement, device_count, graph_options=OptimizerOptions)),
RunOptions(trace_level) with RunMetadata, and graph.version / collections listing."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3], name="input")
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", initializer=tf.constant([[1.0], [2.0], [3.0]]))
        b = tf.get_variable("b", initializer=tf.constant([0.5]))
        logits = tf.nn.xw_plus_b(x, w, b, name="logits")
    prob = tf.sigmoid(logits, name="prob")
    loss = tf.reduce_mean(tf.square(prob - 1.0), name="loss")
    init = tf.global_variables_initializer()
    g = tf.get_default_graph()
    out = {
        "ops": [(op.name, op.type) for op in g.get_operations()],
        "logits_inputs": [t.name for t in g.get_operation_by_name("layer/logits").inputs],
        "prob_outputs": [t.name for t in g.get_operation_by_name("prob").outputs],
        "by_name": [g.get_tensor_by_name("loss:0").shape.as_list(), g.get_tensor_by_name("input:0").dtype.name],
        "collections": sorted(g.get_all_collection_keys()),
        "n_nodes": len(g.as_graph_def().node),
    }
    tf.train.write_graph(g, workdir, "graph.pbtxt", as_text=True)
    with open(os.path.join(workdir, "graph.pbtxt")) as f:
        out["pbtxt_has_prob"] = 'name: "prob"' in f.read()
    config = tf.ConfigProto(
        inter_op_parallelism_threads=2,
        intra_op_parallelism_threads=2,
        allow_soft_placement=True,
        device_count={"CPU": 1},
        graph_options=tf.GraphOptions(optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L1)),
    )
    with tf.Session(config=config) as sess:
        sess.run(init)
        sess.graph.finalize()
        out["finalized"] = sess.graph.finalized
        try:
            tf.constant(1.0)
            out["after_finalize"] = None
        except RuntimeError as e:
            out["after_finalize"] = ["RuntimeError", str(e)]
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        meta = tf.RunMetadata()
        out["loss"] = sess.run(loss, {x: [[1.0, 0.0, 0.0], [0.0, 1.0, -1.0]]}, options=opts, run_metadata=meta)
        out["traced"] = len(meta.step_stats.dev_stats) > 0
    out["config"] = [config.inter_op_parallelism_threads, dict(config.device_count), config.allow_soft_placement]
    return out
