"""Variable sharing helpers beyond variable_scope(reuse=True), as TF1 libraries (Sonnet 1, tensor2tensor, the
DeepMind 2017 code) used them: tf.make_template with a name and create_scope_now_, the template's variable_scope
and variables, called on two inputs (shared weights, one set of variables), a template in a template, and the
error for a template that creates a tf.Variable directly on its second call; variable_scope(default_name=)
uniquified names ("layer", "layer_1"), auxiliary_name_scope=False, re-entering a captured scope object and its
original_name_scope, tf.name_scope(None) to leave the scopes, and tf.AUTO_REUSE from a helper called twice."""


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    init = tf.constant_initializer(0.5)

    def linear(x, units):
        w = tf.get_variable("w", [x.shape[-1].value, units], initializer=init)
        b = tf.get_variable("b", [units], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b

    layer = tf.make_template("linear", linear, units=3)
    x1 = tf.ones([2, 4])
    x2 = tf.ones([5, 4]) * 2.0
    y1 = layer(x1)
    y2 = layer(x2)
    out["template_vars"] = [v.name for v in layer.variables] if hasattr(layer, "variables") else None
    out["template_scope"] = layer.variable_scope.name
    out["template_ops"] = [y1.op.name, y2.op.name]

    def outer(x):
        inner = tf.make_template("inner", linear, units=2)
        return inner(x) + inner(x)

    nested = tf.make_template("outer", outer)
    z = nested(x1)
    nested(x1)
    scoped = tf.make_template("scoped_now", linear, create_scope_now_=True, units=1)
    with tf.variable_scope("elsewhere"):
        s = scoped(x1)

    def bad(x):
        return x * tf.Variable(1.0, name="raw")

    bad_template = tf.make_template("bad", bad)
    bad_template(x1)
    try:
        bad_template(x1)
        out["bad_second_call"] = None
    except ValueError as e:
        out["bad_second_call"] = ["ValueError", "Trainable variable created when calling a template" in str(e)]

    names = []
    for _ in range(2):
        with tf.variable_scope(None, default_name="layer"):
            names.append(tf.get_variable("k", [1]).name)
    with tf.variable_scope("aux") as aux_scope:
        pass
    with tf.variable_scope(aux_scope, auxiliary_name_scope=False):
        names.append(tf.get_variable("k", [1]).name)
        names.append(tf.identity(1.0, name="op").name)
    with tf.variable_scope(aux_scope):
        names.append(tf.identity(1.0, name="op").name)
        names.append(aux_scope.original_name_scope)
        with tf.name_scope(None):
            names.append(tf.identity(1.0, name="top").name)

    def shared_dense(x):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            return linear(x, 2)

    a = shared_dense(x1)
    b = shared_dense(x2)
    names += [a.op.name, b.op.name]
    out["names"] = names
    out["all_vars"] = [(v.name, v.shape.as_list()) for v in tf.global_variables()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run([y1, y2, z, s, a, b])
    return out
