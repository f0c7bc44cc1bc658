"""Names: what TF1 programs look up by string (ops, tensors, variables, scopes, slots, gradients), against
TensorFlow 1. Op types are compared only where tensorweave has the same op (its Add is TF's AddV2)."""

from tests.fidelity.harness import case


def _inputs(t):
    return [t.name, [i.name for i in t.op.inputs]]


def _op_names(tf):
    return sorted(o.name for o in tf.get_default_graph().get_operations())


# --- operators and math wrappers ------------------------------------------------------------------------------------


@case
def mul_by_python_number(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return _inputs(a * 2)


@case
def reversed_mul(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return _inputs(2 * a)


@case
def add_operator(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    b = tf.constant([1.0, 2.0], name="b")
    return [_inputs(a + b), _inputs(a + b)]


@case
def tf_add_after_add_operator(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    a + a
    return _inputs(tf.add(a, 1.0))


@case
def sub_operators(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [_inputs(a - 1.0), _inputs(1.0 - a), _inputs(tf.subtract(a, a))]


@case
def division_operators(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [_inputs(a / 2.0), _inputs(tf.div(a, 2.0)), _inputs(tf.truediv(a, 2.0)), _inputs(tf.divide(a, a))]


@case
def int_truediv_casts(tf, sess):
    a = tf.placeholder(tf.int32, [2], name="a")
    t = a / 2
    return [_inputs(t), sorted(o.name for o in tf.get_default_graph().get_operations())]


@case
def floordiv_and_mod(tf, sess):
    a = tf.placeholder(tf.int32, [2], name="a")
    return [_inputs(a // 2), _inputs(a % 3), _inputs(tf.floordiv(a, 2)), _inputs(tf.mod(a, 3))]


@case
def pow_operator(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [_inputs(a**2), _inputs(tf.pow(a, 3.0)), (a**2).op.type]


@case
def negation_and_abs(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [(-a).name, abs(a).name, tf.negative(a).name]


@case
def comparison_operators(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [_inputs(a < 1.0), _inputs(a <= 1.0), _inputs(a > 1.0), _inputs(a >= 1.0), _inputs(1.0 < a)]


@case
def logical_operators(tf, sess):
    a = tf.placeholder(tf.bool, [2], name="a")
    b = tf.placeholder(tf.bool, [2], name="b")
    return [_inputs(a & b), _inputs(a | b), (~a).name, _inputs(tf.logical_and(a, b))]


@case
def xor_operator(tf, sess):
    a = tf.placeholder(tf.bool, [2], name="a")
    b = tf.placeholder(tf.bool, [2], name="b")
    x = a ^ b
    return [x.name, sess.run(x, {a: [True, False], b: [True, True]})]


@case
def matmul_operator_and_function(tf, sess):
    a = tf.placeholder(tf.float32, [2, 2], name="a")
    return [_inputs(a @ a), _inputs(tf.matmul(a, [[1.0, 2.0], [3.0, 4.0]]))]


@case
def gen_op_wrappers_name_constants(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [
        _inputs(tf.multiply(a, 2.0)),
        _inputs(tf.maximum(a, 0.0)),
        _inputs(tf.minimum(a, 0.0)),
        _inputs(tf.squared_difference(a, 1.0)),
        _inputs(tf.equal(a, 1.0)),
        _inputs(tf.not_equal(a, 1.0)),
        _inputs(tf.realdiv(a, 2.0)),
    ]


@case
def unary_wrapper_names(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    ops = [tf.exp(a), tf.log(a), tf.sqrt(a), tf.square(a), tf.sigmoid(a), tf.tanh(a), tf.nn.relu(a), tf.abs(a)]
    return [o.name for o in ops]


@case
def cast_and_identity_names(tf, sess):
    x = tf.constant(1.0)
    return [tf.cast(x, tf.int32).name, tf.identity(x).name, tf.reshape(x, [1]).name, tf.to_float(x).name]


@case
def reduction_names(tf, sess):
    x = tf.constant([1.0, 2.0])
    return [tf.reduce_sum(x).name, tf.reduce_mean(x).name, tf.reduce_max(x, name="m").name, tf.argmax(x).name]


@case
def explicit_names_are_kept(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return [
        tf.add(a, a, name="total").name,
        tf.multiply(a, 2.0, name="twice").name,
        tf.matmul([[1.0]], [[2.0]], name="mm").name,
    ]


@case
def explicit_name_constant_operand(tf, sess):
    a = tf.placeholder(tf.float32, [2], name="a")
    return _inputs(tf.multiply(a, 2.0, name="twice"))


# --- unique names and scopes ------------------------------------------------------------------------------------


@case
def unique_name_suffixes(tf, sess):
    names = [tf.constant(1.0, name="x").name for _ in range(3)]
    return names + [tf.constant(1.0, name="x_1").name, tf.constant(1.0, name="x").name]


@case
def unique_names_ignore_case(tf, sess):
    return [tf.constant(1.0, name="X").name, tf.constant(1.0, name="x").name]


@case
def default_const_names(tf, sess):
    return [tf.constant(1.0).name, tf.constant(2.0).name, tf.placeholder(tf.float32).name]


@case
def name_scope_nesting_and_reentry(tf, sess):
    with tf.name_scope("a"):
        x = tf.constant(1.0, name="x")
        with tf.name_scope("b"):
            y = tf.constant(1.0, name="y")
    with tf.name_scope("a"):
        z = tf.constant(1.0, name="x")
    return [x.name, y.name, z.name]


@case
def name_scope_trailing_slash_reenters(tf, sess):
    with tf.name_scope("a"):
        tf.constant(1.0, name="x")
    with tf.name_scope("a/"):
        y = tf.constant(1.0, name="x")
    return y.name


@case
def name_scope_none_resets(tf, sess):
    with tf.name_scope("a"), tf.name_scope(None):
        x = tf.constant(1.0, name="x")
    return x.name


@case
def name_scope_yields_scope_string(tf, sess):
    with tf.name_scope("b") as s1:
        pass
    with tf.name_scope("b") as s2:
        pass
    return [s1, s2]


@case
def name_scope_captured_and_reused(tf, sess):
    with tf.name_scope("outer") as scope:
        pass
    with tf.name_scope(scope):
        x = tf.constant(1.0, name="x")
    return x.name


@case
def name_scope_with_default_name(tf, sess):
    with tf.name_scope(None, "default", []) as s1:
        pass
    with tf.name_scope(None, "default", []) as s2:
        pass
    return [s1, s2]


@case
def get_name_scope(tf, sess):
    with tf.name_scope("a"), tf.name_scope("b"):
        return tf.get_default_graph().get_name_scope()


@case
def op_named_like_existing_scope(tf, sess):
    with tf.name_scope("s"):
        tf.constant(1.0, name="c")
    return tf.constant(1.0, name="s").name


# --- variables ------------------------------------------------------------------------------------------------------


@case
def variable_node_names(tf, sess):
    v = tf.Variable([1.0, 2.0], name="v")
    return [v.name, v.op.name, v.value().name, v.initializer.name, v.initial_value.name, _op_names(tf)]


@case
def variable_default_names(tf, sess):
    return [tf.Variable(3.0).name, tf.Variable(3.0).name]


@case
def variable_in_name_scope(tf, sess):
    with tf.name_scope("n"):
        v = tf.Variable(1.0, name="v")
    return [v.name, v.value().name]


@case
def variable_from_callable_uses_initializer_scope(tf, sess):
    v = tf.Variable(lambda: tf.zeros([2]), name="v")
    return [v.initial_value.name, _op_names(tf)]


@case
def get_variable_initializer_names(tf, sess):
    tf.get_variable("w", [2], initializer=tf.zeros_initializer())
    tf.get_variable("b", [2], initializer=tf.ones_initializer())
    tf.get_variable("c", [2], initializer=tf.constant_initializer(3.0))
    return _op_names(tf)


@case
def get_variable_random_initializer_names(tf, sess):
    tf.get_variable("d", [2], initializer=tf.random_normal_initializer())
    tf.get_variable("e", [2], initializer=tf.truncated_normal_initializer())
    tf.get_variable("f", [2], initializer=tf.random_uniform_initializer())
    return _op_names(tf)


@case
def get_variable_default_initializer_names(tf, sess):
    tf.get_variable("w", [2, 3])
    return _op_names(tf)


@case
def get_variable_from_tensor_initializer(tf, sess):
    v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0]))
    return [v.name, v.initial_value.name]


@case
def variable_initialized_from_variable_names(tf, sess):
    v = tf.Variable(1.0, name="v")
    u = tf.Variable(v * 3, name="u")
    return [u.initial_value.name, v.name, u.name]


@case
def random_op_names(tf, sess):
    r = tf.random_uniform([2])
    n = tf.random_normal([2])
    t = tf.truncated_normal([2])
    return [r.name, n.name, t.name, _op_names(tf)]


# --- variable scopes ------------------------------------------------------------------------------------------------


@case
def variable_scope_reentry_with_reuse(tf, sess):
    with tf.variable_scope("s"):
        a = tf.get_variable("a", [1])
        x = tf.constant(1.0, name="x")
    with tf.variable_scope("s", reuse=True):
        b = tf.get_variable("a", [1])
        y = tf.constant(1.0, name="x")
    with tf.variable_scope("s"):
        z = tf.constant(1.0, name="x")
        c = tf.get_variable("c", [1])
    return [a.name, b.name, a is b, x.name, y.name, z.name, c.name, c.value().name]


@case
def variable_scope_object_reentry_opens_new_name_scope(tf, sess):
    with tf.variable_scope("s") as sc:
        pass
    with tf.variable_scope(sc):
        x = tf.constant(1.0, name="x")
        v = tf.get_variable("v", [1])
    with tf.variable_scope(sc):
        y = tf.constant(1.0, name="x")
    return [x.name, y.name, v.name, sc.name, sc.original_name_scope]


@case
def variable_scope_inside_name_scope(tf, sess):
    with tf.name_scope("n"), tf.variable_scope("s"):
        v = tf.get_variable("v", [1])
        x = tf.constant(1.0, name="x")
        u = tf.Variable(1.0, name="u")
    return [v.name, x.name, u.name]


@case
def variable_scope_default_names(tf, sess):
    with tf.variable_scope(None, default_name="d"):
        a = tf.get_variable("v", [1])
    with tf.variable_scope(None, default_name="d"):
        b = tf.get_variable("v", [1])
    return [a.name, b.name]


@case
def nested_variable_scopes(tf, sess):
    with tf.variable_scope("outer"), tf.variable_scope("inner"):
        v = tf.get_variable("v", [1])
        s = tf.get_variable_scope().name
    return [v.name, s]


@case
def auto_reuse(tf, sess):
    def make():
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            return tf.get_variable("w", [2])

    a, b = make(), make()
    return [a.name, a is b, len(tf.global_variables())]


@case
def reuse_variables_method(tf, sess):
    with tf.variable_scope("s") as scope:
        a = tf.get_variable("w", [1])
        scope.reuse_variables()
        b = tf.get_variable("w", [1])
    return [a is b, b.name]


@case
def collections_of_variables(tf, sess):
    tf.Variable(1.0, name="a")
    tf.Variable(1.0, name="b", trainable=False)
    with tf.variable_scope("s"):
        tf.get_variable("c", [1])
    return [
        [v.name for v in tf.global_variables()],
        [v.name for v in tf.trainable_variables()],
        [v.name for v in tf.global_variables("s")],
        tf.GraphKeys.GLOBAL_VARIABLES,
        tf.GraphKeys.TRAINABLE_VARIABLES,
        tf.GraphKeys.UPDATE_OPS,
    ]


@case
def global_variables_initializer_name(tf, sess):
    tf.Variable(1.0)
    return [tf.global_variables_initializer().name, tf.global_variables_initializer().type]


# --- gradients and optimizers ---------------------------------------------------------------------------------------


@case
def gradient_tensor_names(tf, sess):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.reduce_sum(x * x)
    (g,) = tf.gradients(y, [x])
    (g2,) = tf.gradients(y, [x])
    return [g.name.split("/")[0], g2.name.split("/")[0]]


@case
def gradient_of_matmul_names(tf, sess):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.Variable(tf.ones([3, 4]), name="w")
    y = tf.matmul(x, w)
    gx, gw = tf.gradients(y, [x, w])
    return [gx.name, gw.name]


@case
def gradients_with_name(tf, sess):
    x = tf.placeholder(tf.float32, [2], name="x")
    (g,) = tf.gradients(tf.reduce_sum(x), [x], name="my_grads")
    return g.name.split("/")[0]


@case
def momentum_slot_names(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    step = opt.minimize(tf.reduce_sum(w * w))
    slot = opt.get_slot(w, "momentum")
    return [slot.name, opt.get_slot_names(), step.name]


@case
def adam_slot_names(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.AdamOptimizer(0.1)
    step = opt.minimize(tf.reduce_sum(w * w))
    return [
        opt.get_slot(w, "m").name,
        opt.get_slot(w, "v").name,
        sorted(opt.get_slot_names()),
        sorted(v.name for v in tf.global_variables()),
        step.name,
    ]


@case
def gradient_descent_step_name(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    return [step.name, step.type]


@case
def rmsprop_slot_names(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.RMSPropOptimizer(0.1)
    opt.minimize(tf.reduce_sum(w * w))
    return sorted(v.name for v in tf.global_variables())


@case
def adagrad_slot_names(tf, sess):
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.AdagradOptimizer(0.1)
    opt.minimize(tf.reduce_sum(w * w))
    return sorted(v.name for v in tf.global_variables())


@case
def slot_names_in_scope(tf, sess):
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    opt.minimize(tf.reduce_sum(w * w))
    return opt.get_slot(w, "momentum").name


@case
def global_step_names(tf, sess):
    gs = tf.train.get_or_create_global_step()
    return [gs.name, gs.dtype.base_dtype, [v.name for v in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)]]


# --- losses and layers ---------------------------------------------------------------------------------------------


@case
def losses_names(tf, sess):
    labels = tf.constant([[0.0, 1.0]])
    logits = tf.constant([[0.5, 0.5]])
    a = tf.losses.softmax_cross_entropy(labels, logits)
    b = tf.losses.mean_squared_error(labels, logits)
    return [a.name, b.name, [t.name for t in tf.get_collection(tf.GraphKeys.LOSSES)]]


@case
def sparse_loss_name(tf, sess):
    loss = tf.losses.sparse_softmax_cross_entropy([1], tf.constant([[0.5, 0.5]]))
    return loss.name


@case
def nn_op_names(tf, sess):
    x = tf.constant([[1.0, 2.0]])
    return [
        tf.nn.softmax(x).name,
        tf.nn.log_softmax(x).name,
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=x, logits=x).name,
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=x).name,
        tf.nn.l2_loss(x).name,
        tf.nn.bias_add(x, [1.0, 2.0]).name,
    ]


@case
def dense_layer_names(tf, sess):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.layers.dense(x, 2)
    z = tf.layers.dense(y, 2, name="out")
    return [y.name, z.name, sorted(v.name for v in tf.global_variables())]


@case
def batch_norm_update_ops_are_operations(tf, sess):
    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.batch_normalization(x, training=True)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    return [[type(u).__name__ for u in updates], [u.name for u in updates]]


@case
def placeholder_names(tf, sess):
    return [
        tf.placeholder(tf.float32).name,
        tf.placeholder(tf.float32, name="input").name,
        tf.placeholder_with_default(1.0, []).name,
    ]


@case
def div_and_truediv_name_their_constants(tf, sess):
    a = tf.placeholder(tf.float32, [])
    i = tf.placeholder(tf.int32, [])
    outs = [tf.div(a, 2.0), tf.div(i, 2), tf.truediv(a, 2.0), tf.truediv(i, 2)]
    return [t.name for t in outs] + [op.name for op in tf.get_default_graph().get_operations()]
