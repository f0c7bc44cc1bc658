"""Session life-cycle details TF1 scripts met: RunOptions(timeout_in_ms) on a dequeue from an empty queue
(DeadlineExceededError), a closed queue (OutOfRangeError) and its message, Session.close() twice, running on a
closed session (RuntimeError "Attempted to use a closed Session."), sess.as_default() nested with
tf.get_default_session, InteractiveSession replacing the default, Tensor.eval(session=) / Operation.run(session=)
with an explicit session, eval() without a default session (ValueError "Cannot evaluate tensor using `eval()`"),
a session on another graph (ValueError / RuntimeError when fetching across graphs), sess.graph identity,
sess.list_devices() names' device types, and feeding a tensor that is not feedable after
graph.prevent_feeding (ValueError)."""


def _err(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - the class and first line are compared
        return [type(e).__name__, str(e).split("\n")[0][:60]]


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    q = tf.FIFOQueue(2, tf.float32)
    deq = q.dequeue()
    enq = q.enqueue(1.0)
    close = q.close()
    sess = tf.Session()
    opts = tf.RunOptions(timeout_in_ms=50)
    out["timeout"] = _err(lambda: sess.run(deq, options=opts))[0]
    sess.run(enq)
    out["after_enqueue"] = sess.run(deq)
    sess.run(close)
    out["closed_queue"] = _err(lambda: sess.run(deq))[0]
    out["enqueue_closed"] = _err(lambda: sess.run(enq))[0]
    c = tf.constant(3.0)
    with sess.as_default():
        out["default_is_sess"] = tf.get_default_session() is sess
        out["eval_in_default"] = c.eval()
        other = tf.Session()
        with other.as_default():
            out["nested_default"] = tf.get_default_session() is other
        out["restored_default"] = tf.get_default_session() is sess
        other.close()
    out["no_default"] = tf.get_default_session() is None
    out["eval_no_session"] = _err(lambda: c.eval())
    out["eval_explicit"] = c.eval(session=sess)
    v = tf.Variable(1.0)
    v.initializer.run(session=sess)
    out["op_run_explicit"] = sess.run(v)
    out["graph_identity"] = sess.graph is tf.get_default_graph()
    out["device_types"] = sorted({d.device_type for d in sess.list_devices()})
    sess.close()
    sess.close()
    out["closed_session"] = _err(lambda: sess.run(c))
    g2 = tf.Graph()
    with g2.as_default():
        other_c = tf.constant(1.0)
    with tf.Session() as s2:
        out["other_graph_fetch"] = _err(lambda: s2.run(other_c))[0]
        p = tf.placeholder(tf.float32, [])
        y = p * 2.0
        tf.get_default_graph().prevent_feeding(y)
        out["prevent_feeding"] = _err(lambda: s2.run(y * 1.0, {y: 1.0}))
        out["feed_ok"] = s2.run(y, {p: 2.0})
    isess = tf.InteractiveSession()
    out["interactive_default"] = tf.get_default_session() is isess
    out["interactive_eval"] = (c * 2.0).eval()
    isess.close()
    return out
