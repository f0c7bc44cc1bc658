"""Fidelity cases: while loops and conds exported in a meta graph and imported into a fresh graph (their
WhileContext / CondContext travel in the "while_context" / "cond_context" collections): what the contexts' protos
name, the gradients taken through the imported control flow, and an imported model trained further."""

import os
import tempfile

import numpy as np

from tests.fidelity.harness import case

X = np.array([0.1, 0.2, -0.3])


def _model(tf):
    """A loop holding a nested loop and a cond; the loss depends on the placeholder x and the variable w."""
    x = tf.placeholder(tf.float64, [3], name="x")
    w = tf.Variable(np.array([0.5, -0.3, 0.8]), name="w")

    def body(i, h):
        _, a = tf.while_loop(lambda j, a: j < 2, lambda j, a: (j + 1, tf.sin(a) * w + x), [0, h])
        return i + 1, tf.cond(i < 2, lambda: tf.tanh(a + x), lambda: a * 1.5)

    _, h = tf.while_loop(lambda i, h: i < 4, body, [0, tf.ones([3], tf.float64)])
    loss = tf.reduce_sum(tf.square(h), name="loss")
    tf.add_to_collection("loss", loss)
    return x, w, loss


def _while_fields(proto):
    fields = {
        name: getattr(proto, name)
        for name in (
            "context_name",
            "parallel_iterations",
            "back_prop",
            "swap_memory",
            "pivot_name",
            "pivot_for_pred_name",
            "pivot_for_body_name",
            "maximum_iterations_name",
        )
    }
    fields["loop_exit_names"] = list(proto.loop_exit_names)
    fields["loop_enter_names"] = list(proto.loop_enter_names)
    fields["nested"] = [_nested_fields(n) for n in proto.nested_contexts]
    fields["values"] = sorted(proto.values_def.values)
    fields["external_values"] = sorted(proto.values_def.external_values.items())
    return fields


def _nested_fields(nested):
    if nested.WhichOneof("ctxt") == "while_ctxt":
        return _while_fields(nested.while_ctxt)
    c = nested.cond_ctxt
    return {
        "context_name": c.context_name,
        "pred_name": c.pred_name,
        "pivot_name": c.pivot_name,
        "branch": c.branch,
        "values": sorted(c.values_def.values),
        "external_values": sorted(c.values_def.external_values.items()),
    }


def _export(tf, sess):
    """Exports the model (Saver.save writes the .meta); the checkpoint prefix."""
    _model(tf)
    sess.run(tf.global_variables_initializer())
    return tf.train.Saver().save(sess, os.path.join(tempfile.mkdtemp(), "model.ckpt"))


@case
def exported_loop_contexts(tf, sess):
    _model(tf)
    meta = tf.train.export_meta_graph()
    return {
        "collections": sorted(k for k in meta.collection_def if k.endswith("context")),
        "while": [_while_fields(c.to_proto()) for c in tf.get_collection(tf.GraphKeys.WHILE_CONTEXT)],
        "cond": [c.to_proto().context_name for c in tf.get_collection(tf.GraphKeys.COND_CONTEXT)],
    }


@case
def exported_cond_contexts(tf, sess):
    p = tf.placeholder(tf.bool, [], name="p")
    tf.cond(p, lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0]), lambda: tf.constant(7))
    protos = [c.to_proto() for c in tf.get_collection(tf.GraphKeys.COND_CONTEXT)]
    return {
        "while": len(tf.get_collection(tf.GraphKeys.WHILE_CONTEXT)),
        "cond": [
            [c.context_name, c.pred_name, c.pivot_name, c.branch, [_nested_fields(n) for n in c.nested_contexts]]
            for c in protos
        ],
    }


@case(tol=1e-9)
def gradients_through_an_imported_loop(tf, sess):
    path = _export(tf, sess)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        saver = tf.train.import_meta_graph(path + ".meta", import_scope="imported")
        saver.restore(s, path)
        [loss] = tf.get_collection("loss")
        [w] = tf.global_variables()
        x = g.get_tensor_by_name("imported/x:0")
        dx, dw = tf.gradients(loss, [x, w])
        contexts = [c.name for c in tf.get_collection(tf.GraphKeys.WHILE_CONTEXT)]
        enter = g.get_operation_by_name("imported/while/Enter")
        return contexts, enter.get_attr("frame_name"), s.run([loss, dx, dw], {x: X})


@case(tol=1e-9)
def imported_loop_model_trains(tf, sess):
    path = _export(tf, sess)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        saver = tf.train.import_meta_graph(path + ".meta")
        saver.restore(s, path)
        [loss] = tf.get_collection("loss")
        x = g.get_tensor_by_name("x:0")
        train = tf.train.GradientDescentOptimizer(0.02).minimize(loss)
        losses = [s.run([loss, train], {x: X})[0] for _ in range(5)]
        return losses, s.run(tf.global_variables()[0])


@case(tol=1e-9)
def gradients_through_a_loop_in_an_imported_cond(tf, sess):
    x = tf.placeholder(tf.float64, [2], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])[1], lambda: -x)
    tf.add_to_collection("y", y)
    meta = tf.train.export_meta_graph()
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        tf.train.import_meta_graph(meta)
        [y] = tf.get_collection("y")
        x, p = g.get_tensor_by_name("x:0"), g.get_tensor_by_name("p:0")
        dx = tf.gradients(tf.reduce_sum(y), x)[0]
        return [s.run([y, dx], {x: [1.5, -2.0], p: v}) for v in (True, False)]
