"""Custom gradients as TF1 research code wrote them: tf.custom_gradient for a numerically stable log1pexp and a
gradient-reversal layer (domain adaptation), tf.RegisterGradient + graph.gradient_override_map to replace
Sign's gradient by a straight-through estimator (binarized networks) and Identity's by a clipped one, and
tf.stop_gradient; values and gradients, the op types the override leaves in the graph, and a small model trained
through the straight-through sign."""

_REGISTERED = set()


def main(tf, workdir):
    tf.reset_default_graph()
    if tf.__name__ not in _REGISTERED:
        _REGISTERED.add(tf.__name__)

        @tf.RegisterGradient("StraightThroughSign_p82")
        def _st_sign(op, grad):
            x = op.inputs[0]
            return grad * tf.cast(tf.abs(x) <= 1.0, grad.dtype)

        @tf.RegisterGradient("ClipGrad_p82")
        def _clip(op, grad):
            return tf.clip_by_value(grad, -0.1, 0.1)

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.log(1 + e), grad

    @tf.custom_gradient
    def reverse_gradient(x):
        def grad(dy):
            return -0.5 * dy

        return tf.identity(x), grad

    x = tf.constant([-2.0, 0.0, 3.0, 100.0])
    y = log1pexp(x)
    dy = tf.gradients(y, x)[0]
    h = tf.constant([[1.0, -2.0], [0.5, 4.0]])
    r = reverse_gradient(h)
    dr = tf.gradients(tf.reduce_sum(r * r), h)[0]
    g = tf.get_default_graph()
    w = tf.Variable([[0.3, -1.5], [0.8, 0.1]], name="w")
    with g.gradient_override_map({"Sign": "StraightThroughSign_p82", "Identity": "ClipGrad_p82"}):
        bw = tf.sign(w, name="binary_w")
        clipped = tf.identity(w * 3.0, name="clipped")
    inp = tf.constant([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    target = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    loss = tf.reduce_mean(tf.square(tf.matmul(inp, bw) - target)) + tf.reduce_sum(clipped)
    grad_w = tf.gradients(loss, w)[0]
    sg = tf.gradients(tf.reduce_sum(tf.stop_gradient(w) * w), w)[0]
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    out = {
        "ops": [
            bw.op.type,
            clipped.op.type,
            bw.op.get_attr("_gradient_op_type"),
            clipped.op.get_attr("_gradient_op_type"),
        ],
        "shapes": [dy.shape.as_list(), dr.shape.as_list(), grad_w.shape.as_list()],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run([y, dy, r, dr, grad_w, sg])
        for _ in range(4):
            # The loss in a run of its own: fetched with `train`, TF may read w before or after the update.
            out["losses"].append(sess.run(loss))
            sess.run(train)
        out["w"] = sess.run(w)
    return out
