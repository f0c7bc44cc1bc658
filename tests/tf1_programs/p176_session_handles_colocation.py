"""Less common session and placement features TF1 code used: persistent tensors across run calls with
tf.get_session_handle / tf.get_session_tensor / tf.delete_session_tensor (the 2016 "keep a tensor in the
session" recipe, its handle fed back as a string), tf.colocate_with (the _class colocation attribute of ops
created in it, ignore_existing), tf.container (the container attr of variables and queues made inside), op
attrs read with op.get_attr, node_def devices under nested tf.device scopes and a device function, and
tf.Session.run with RunOptions(trace_level=FULL_TRACE) filling RunMetadata's step_stats."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
    h = tf.get_session_handle(tf.matmul(a, a))
    with tf.Session() as sess:
        handle = sess.run(h)
        holder, restored = tf.get_session_tensor(handle.handle, tf.float32)
        doubled = restored * 2.0
        out["doubled"] = sess.run(doubled, feed_dict={holder: handle.handle})
        out["handle_eval"] = handle.eval()
        out["handle_type"] = type(handle.handle).__name__
        holder2, deleter = tf.delete_session_tensor(handle.handle)
        sess.run(deleter, feed_dict={holder2: handle.handle})
        try:
            sess.run(doubled, feed_dict={holder: handle.handle})
            out["after_delete"] = None
        except tf.errors.OpError as e:
            out["after_delete"] = type(e).__name__

    tf.reset_default_graph()
    v = tf.Variable(tf.zeros([2]), name="v")
    with tf.colocate_with(v):
        c1 = tf.add(v, 1.0, name="c1")
        with tf.colocate_with(a if False else c1.op, ignore_existing=True):
            c2 = tf.identity(c1, name="c2")
    out["colocation"] = [c1.op.colocation_groups(), c2.op.colocation_groups()]
    out["class_attr"] = [x.decode() for x in c1.op.get_attr("_class")]
    with tf.container("experiment"):
        w = tf.Variable(1.0, name="w", use_resource=False)
        q = tf.FIFOQueue(2, tf.float32, name="q")
    out["container"] = [w.op.get_attr("container"), q.queue_ref.op.get_attr("container")]

    def device_fn(op):
        return "/cpu:0" if op.type == "Const" else ""

    with tf.device("/job:worker/task:1"):
        x = tf.constant(1.0, name="x")
        with tf.device("/cpu:0"):
            y = tf.identity(x, name="y")
        with tf.device(None):
            z = tf.identity(x, name="z")
    with tf.device(device_fn):
        k = tf.constant(2.0, name="k")
        s = tf.add(k, k, name="s")
    out["devices"] = [x.device, y.device, z.device, k.device, s.device]
    out["attrs"] = [x.op.get_attr("dtype").name, s.op.get_attr("T").name]
    tf.reset_default_graph()
    p = tf.placeholder(tf.float32, [3])
    r = tf.reduce_sum(tf.square(p))
    with tf.Session() as sess:
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        md = tf.RunMetadata()
        out["traced"] = sess.run(r, {p: np.arange(3.0)}, options=opts, run_metadata=md)
        out["has_step_stats"] = len(md.step_stats.dev_stats) > 0
    return out
